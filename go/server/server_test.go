package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"aakaar"
	"aakaar/aakaartest"
	"aakaar/server"
)

var (
	base    string // http://127.0.0.1:port
	model   *aakaar.Model
	metrics *server.Metrics
)

func TestMain(m *testing.M) {
	os.Exit(serve(m))
}

func serve(m *testing.M) int {
	path, cleanup, err := aakaartest.Start(1, aakaartest.Sizes)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting Python:", err)
		return 1
	}
	defer cleanup()
	code := func() int {
		if model, err = aakaar.Load(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer model.Close()
		metrics = server.NewMetrics()
		b, err := aakaar.NewBatcher(model, aakaar.BatchConfig{MaxBatch: 32, MaxDelay: 2 * time.Millisecond, QueueSize: 1024}, metrics.ObserveBatch)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer b.Close()
		cfg := server.Config{MaxBodyBytes: 64 << 10, MaxRows: 8, Timeout: 5 * time.Second}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		srv := &http.Server{Handler: server.New(b, metrics, cfg, nil).Handler()}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		base = "http://" + ln.Addr().String()
		return m.Run()
	}()
	if err := aakaar.Shutdown(); err != nil {
		fmt.Fprintln(os.Stderr, "shutdown:", err)
		code = 1
	}
	if n := aakaar.LiveTensors(); n != 0 {
		fmt.Fprintf(os.Stderr, "%d shared tensors leaked after shutdown\n", n)
		code = 1
	}
	return code
}

func rows(n int, seed int64) [][]float32 { return aakaartest.RandomRows(n, model.In, seed) }

func post(t *testing.T, path, contentType string, body []byte) (int, []byte) {
	t.Helper()
	resp, err := http.Post(base+path, contentType, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

func postJSON(t *testing.T, v any) (int, []byte) {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return post(t, "/v1/predict", "application/json", b)
}

func raw(rs [][]float32) []byte {
	var b []byte
	for _, r := range rs {
		b = server.AppendFloats(b, r)
	}
	return b
}

// wantError checks the status and that the body is a JSON error naming `mention`.
func wantError(t *testing.T, what string, code int, body []byte, wantCode int, mention string) {
	t.Helper()
	var e struct {
		Error  string `json:"error"`
		Status int    `json:"status"`
	}
	if code != wantCode {
		t.Fatalf("%s: status %d, want %d (body %s)", what, code, wantCode, body)
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Status != code || !strings.Contains(e.Error, mention) {
		t.Fatalf("%s: want a JSON error mentioning %q, got %s", what, mention, body)
	}
}

// A raw body of unknown length (chunked) takes the reading path that does not preallocate; its
// answer must equal the one for the same rows sent with a Content-Length.
func TestRawChunkedBodyAnswersAsSized(t *testing.T) {
	body := raw(rows(2, 11))
	_, sized := post(t, "/v1/predict/raw", "application/octet-stream", body)
	req, err := http.NewRequest(http.MethodPost, base+"/v1/predict/raw", io.MultiReader(bytes.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = -1 // unknown: sent chunked
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	chunked, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !bytes.Equal(chunked, sized) || len(sized) != 2*4*model.Out {
		t.Fatalf("chunked: status %d, %d bytes; sized: %d bytes; want equal answers of %d bytes",
			resp.StatusCode, len(chunked), len(sized), 2*4*model.Out)
	}
}

func TestJSONAndRawAgreeWithTheModel(t *testing.T) {
	in := rows(3, 1)
	want, err := model.PredictBatch(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	code, body := postJSON(t, server.PredictRequest{Inputs: in})
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	var resp server.PredictResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	code, rawBody := post(t, "/v1/predict/raw", "application/octet-stream", raw(in))
	if code != http.StatusOK {
		t.Fatalf("raw: status %d: %s", code, rawBody)
	}
	rawOut := server.DecodeFloats(rawBody)
	for i := range want {
		for j := range want[i] {
			if math.Abs(float64(resp.Outputs[i][j]-want[i][j])) > 1e-5 || math.Abs(float64(rawOut[i*model.Out+j]-want[i][j])) > 1e-5 {
				t.Fatalf("row %d logit %d: JSON %v, raw %v, model %v", i, j, resp.Outputs[i][j], rawOut[i*model.Out+j], want[i][j])
			}
		}
	}
	if len(resp.Classes) != 3 {
		t.Fatalf("classes %v", resp.Classes)
	}
}

func TestMalformedRequestsGetClearErrors(t *testing.T) {
	good := rows(1, 2)[0]
	nan := append([]float32(nil), good...)
	nan[7] = float32(math.NaN())
	cases := []struct {
		name, path, ctype string
		body              []byte
		code              int
		mention           string
	}{
		{"not JSON", "/v1/predict", "application/json", []byte("{inputs: oops"), 400, "malformed JSON"},
		{"unknown field", "/v1/predict", "application/json", []byte(`{"input": [[1]]}`), 400, "malformed JSON"},
		{"no rows", "/v1/predict", "application/json", []byte(`{"inputs": []}`), 400, "no input rows"},
		{"short row", "/v1/predict", "application/json", []byte(`{"inputs": [[1, 2, 3]]}`), 400, "must hold 784 floats"},
		{"float32 overflow", "/v1/predict", "application/json", []byte(`{"inputs": [[1e39]]}`), 400, "malformed JSON"},
		{"raw, partial row", "/v1/predict/raw", "application/octet-stream", make([]byte, 4*model.In+4), 400, "not a multiple of one row"},
		{"raw, NaN", "/v1/predict/raw", "application/octet-stream", raw([][]float32{nan}), 400, "NaN"},
		{"too many rows", "/v1/predict/raw", "application/octet-stream", raw(rows(9, 3)), 413, "limit of 8"},
		{"body over the limit", "/v1/predict/raw", "application/octet-stream", make([]byte, 65<<10), 413, "larger than the limit"},
		{"no such endpoint", "/v2/predict", "application/json", []byte(`{}`), 404, "no such endpoint"},
	}
	for _, c := range cases {
		code, body := post(t, c.path, c.ctype, c.body)
		wantError(t, c.name, code, body, c.code, c.mention)
	}
	resp, err := http.Get(base + "/v1/predict")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	wantError(t, "GET", resp.StatusCode, b, 405, "POST")
	if code, body := post(t, "/v1/predict/raw", "application/octet-stream", raw([][]float32{good})); code != 200 {
		t.Fatalf("after the bad requests a good one failed: %d %s", code, body)
	}
}

func TestAPythonExceptionIsA500AndTheServerKeepsServing(t *testing.T) {
	restore, err := aakaartest.FailOn(42)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := restore(); err != nil {
			t.Fatal(err)
		}
	}()
	bad := rows(1, 4)
	bad[0][0] = 42
	code, body := postJSON(t, server.PredictRequest{Inputs: bad})
	wantError(t, "raising model", code, body, 500, "ValueError")
	if code, body := postJSON(t, server.PredictRequest{Inputs: rows(2, 5)}); code != 200 {
		t.Fatalf("after the exception: %d %s", code, body)
	}
}

func TestAClientDisconnectingMidRequestLeavesTheServerServing(t *testing.T) {
	stalled := aakaartest.Stall(400 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/predict/raw", bytes.NewReader(raw(rows(1, 6))))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("the client's request should have been cut off by its own deadline")
	}
	<-stalled
	if code, body := post(t, "/v1/predict/raw", "application/octet-stream", raw(rows(1, 7))); code != 200 {
		t.Fatalf("after a disconnect: %d %s", code, body)
	}
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(scrape(t), `aakaar_requests_total{code="499"}`) {
		if time.Now().After(deadline) {
			t.Fatal("the disconnected request is not counted as 499")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func scrape(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestHealthAndMetrics(t *testing.T) {
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if resp.StatusCode != 200 || h["status"] != "ok" || h["in"] != float64(784) {
		t.Fatalf("healthz: %d %v", resp.StatusCode, h)
	}
	post(t, "/v1/predict/raw", "application/octet-stream", raw(rows(2, 8)))
	text := scrape(t)
	for _, want := range []string{
		"# TYPE aakaar_batch_size histogram", `aakaar_batch_size_bucket{le="+Inf"}`,
		"# TYPE aakaar_queue_delay_seconds histogram", "# TYPE aakaar_request_latency_seconds histogram",
		`aakaar_request_latency_recent_seconds{quantile="0.99"}`, `aakaar_requests_total{code="200"}`,
		"aakaar_live_shared_tensors",
	} {
		if !strings.Contains(text, want) {
			t.Fatalf("/metrics lacks %q:\n%s", want, text)
		}
	}
}

// A bounded load test on 127.0.0.1: 32 clients, 25 requests each; every answer must be right.
func TestLoad(t *testing.T) {
	const clients, each = 32, 25
	in := rows(clients, 9)
	want, err := model.PredictBatch(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			body := raw(in[c : c+1])
			for i := 0; i < each; i++ {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/predict/raw", bytes.NewReader(body))
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- err
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					errs <- fmt.Errorf("client %d: %d %s", c, resp.StatusCode, b)
					return
				}
				got := server.DecodeFloats(b)
				for j := range got {
					if math.Abs(float64(got[j]-want[c][j])) > 1e-5 {
						errs <- fmt.Errorf("client %d got another row's answer", c)
						return
					}
				}
			}
		}(c)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
