// Package server is the HTTP front of a Batcher: a JSON endpoint, a raw little-endian float32
// endpoint, health and Prometheus metrics. Every failure is answered with a status code and a
// JSON message; none stops the server.
package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"aakaar"
)

// Config bounds what one request may ask.
type Config struct {
	MaxBodyBytes int64         // larger bodies get 413
	MaxRows      int           // more rows in one request get 413
	Timeout      time.Duration // a request not answered in time gets 504
}

// DefaultConfig: 8 MiB bodies, 256 rows, 10 s.
func DefaultConfig() Config {
	return Config{MaxBodyBytes: 8 << 20, MaxRows: 256, Timeout: 10 * time.Second}
}

// Server answers requests with a Batcher.
type Server struct {
	b       *aakaar.Batcher
	metrics *Metrics
	cfg     Config
	log     *log.Logger
}

// New makes a server; metrics should be the ones the batcher reports to (ObserveBatch).
func New(b *aakaar.Batcher, metrics *Metrics, cfg Config, logger *log.Logger) *Server {
	if logger == nil {
		logger = log.New(io.Discard, "", 0)
	}
	return &Server{b: b, metrics: metrics, cfg: cfg, log: logger}
}

// Handler routes /v1/predict (JSON), /v1/predict/raw (float32 bytes), /healthz and /metrics.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/predict", s.timed(s.predictJSON))
	mux.HandleFunc("/v1/predict/raw", s.timed(s.predictRaw))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		m := s.b.Model()
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "model": m.Path, "in": m.In, "out": m.Out})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { // anything else: a JSON 404
		writeJSON(w, http.StatusNotFound, map[string]any{"error": "no such endpoint: " + r.URL.Path +
			" (POST /v1/predict, POST /v1/predict/raw, GET /healthz, GET /metrics)", "status": http.StatusNotFound})
	})
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		s.metrics.Write(w)
	})
	return mux
}

// httpError is an error with the status code it is answered with.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

// StatusClientClosed is recorded (nginx's 499) when the client went away before its answer.
const StatusClientClosed = 499

func (s *Server) timed(h func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		code := http.StatusOK
		if err := h(w, r); err != nil {
			code = s.statusOf(r, err)
			if code != StatusClientClosed {
				writeJSON(w, code, map[string]any{"error": err.Error(), "status": code})
			}
			if code >= 500 {
				s.log.Printf("%s %s: %d %v", r.Method, r.URL.Path, code, err)
			}
		}
		s.metrics.ObserveRequest(code, time.Since(start))
	}
}

func (s *Server) statusOf(r *http.Request, err error) int {
	var he *httpError
	var pe *aakaar.PythonError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &he):
		return he.code
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, aakaar.ErrBadInput):
		return http.StatusBadRequest
	case errors.Is(err, aakaar.ErrOverloaded), errors.Is(err, aakaar.ErrClosed):
		return http.StatusServiceUnavailable
	case r.Context().Err() != nil: // the client disconnected
		return StatusClientClosed
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	case errors.As(err, &pe):
		return http.StatusInternalServerError
	}
	return http.StatusInternalServerError
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.Method != http.MethodPost {
		return nil, &httpError{http.StatusMethodNotAllowed, "use POST"}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than the limit of %d bytes", mbe.Limit)}
	}
	return body, err
}

func (s *Server) checkRows(n int) error {
	if n == 0 {
		return &httpError{http.StatusBadRequest, "no input rows"}
	}
	if n > s.cfg.MaxRows {
		return &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("%d rows, more than the limit of %d per request", n, s.cfg.MaxRows)}
	}
	return nil
}

// predictRows submits every row to the batcher at once (they may share a batch with other
// requests' rows) and waits for all of them.
func (s *Server) predictRows(ctx context.Context, rows [][]float32) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	for i, row := range rows { // refuse a bad request before any of its rows is queued
		if err := s.b.Model().CheckRow(row); err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
	}
	if len(rows) == 1 { // the common case: no goroutine
		out, err := s.b.Predict(ctx, rows[0])
		if err != nil {
			return nil, err
		}
		return [][]float32{out}, nil
	}
	out := make([][]float32, len(rows))
	errs := make([]error, len(rows))
	var wg sync.WaitGroup
	for i := range rows {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out[i], errs[i] = s.b.Predict(ctx, rows[i])
			if errs[i] != nil {
				cancel() // one failed row fails the request: stop waiting for the others
			}
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// PredictRequest is the JSON body of /v1/predict.
type PredictRequest struct {
	Inputs [][]float32 `json:"inputs"`
}

// PredictResponse is its answer: the logits of each row and their argmax.
type PredictResponse struct {
	Outputs [][]float32 `json:"outputs"`
	Classes []int       `json:"classes"`
}

func (s *Server) predictJSON(w http.ResponseWriter, r *http.Request) error {
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	var req PredictRequest
	dec := json.NewDecoder(bytesReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return &httpError{http.StatusBadRequest, "malformed JSON: " + err.Error() + ` (expected {"inputs": [[floats], ...]})`}
	}
	if err := s.checkRows(len(req.Inputs)); err != nil {
		return err
	}
	out, err := s.predictRows(r.Context(), req.Inputs)
	if err != nil {
		return err
	}
	resp := PredictResponse{Outputs: out, Classes: make([]int, len(out))}
	for i, row := range out {
		resp.Classes[i] = argmax(row)
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// predictRaw takes rows of little-endian float32 (Content-Type application/octet-stream) and
// answers the logits the same way: no parsing, the cheapest path to the model. On a
// little-endian machine the body is read straight into the rows' float32s: one allocation and
// no decoding per request (on a small machine the per-request cost of HTTP, not the model,
// bounds a batching server's throughput: see chapter 18).
func (s *Server) predictRaw(w http.ResponseWriter, r *http.Request) error {
	in := s.b.Model().In
	rowBytes := 4 * in
	var flat []float32
	if r.Method == http.MethodPost && r.ContentLength >= 0 && r.ContentLength <= s.cfg.MaxBodyBytes &&
		r.ContentLength%int64(rowBytes) == 0 && littleEndian {
		// The size is known and fits: read it into its final place at once.
		flat = make([]float32, r.ContentLength/4)
		if _, err := io.ReadFull(r.Body, floatBytes(flat)); err != nil {
			return &httpError{http.StatusBadRequest, "reading the body: " + err.Error()}
		}
	} else {
		body, err := s.readBody(w, r)
		if err != nil {
			return err
		}
		if len(body)%rowBytes != 0 {
			return &httpError{http.StatusBadRequest, fmt.Sprintf("the body holds %d bytes, not a multiple of one row (%d float32 = %d bytes)", len(body), in, rowBytes)}
		}
		flat = DecodeFloats(body)
	}
	n := len(flat) / in
	if err := s.checkRows(n); err != nil {
		return err
	}
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = flat[i*in : (i+1)*in : (i+1)*in]
	}
	out, err := s.predictRows(r.Context(), rows)
	if err != nil {
		return err
	}
	buf := make([]byte, 0, len(out)*len(out[0])*4)
	for _, row := range out {
		buf = AppendFloats(buf, row)
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(buf)))
	_, err = w.Write(buf)
	if err != nil {
		s.log.Printf("writing the answer: %v", err)
	}
	return nil
}

// littleEndian: float32s in memory are laid out as the raw endpoint's bytes.
var littleEndian = binary.LittleEndian.Uint16([]byte{1, 0}) == *(*uint16)(unsafe.Pointer(&[2]byte{1, 0}))

// floatBytes is xs's memory seen as bytes (no copy).
func floatBytes(xs []float32) []byte {
	if len(xs) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&xs[0])), 4*len(xs))
}

// DecodeFloats reads little-endian float32s.
func DecodeFloats(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// AppendFloats appends little-endian float32s.
func AppendFloats(b []byte, xs []float32) []byte {
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func argmax(xs []float32) int {
	best := 0
	for i, x := range xs {
		if x > xs[best] {
			best = i
		}
	}
	return best
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
