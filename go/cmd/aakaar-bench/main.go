// Command aakaar-bench measures the server on 127.0.0.1: requests per second and p50/p99
// latency with and without batching at several numbers of concurrent clients, throughput
// against p99 as the batching delay varies, and the cost of each hop of one call. It writes a
// dated JSON (chapter 18 reads book/data/go-serving.json):
//
//	source go/env.sh; cd go && go run ./cmd/aakaar-bench -out ../book/data/go-serving.json
//
// Every run is bounded: -duration per configuration and -max-requests per client.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"aakaar"
	"aakaar/aakaartest"
	"aakaar/server"
)

// Result is one configuration's measurement.
type Result struct {
	Mode       string  `json:"mode"` // "batched" or "unbatched"
	Clients    int     `json:"clients"`
	MaxBatch   int     `json:"max_batch"`
	MaxDelayMs float64 `json:"max_delay_ms"`
	Requests   int     `json:"requests"`
	Errors     int     `json:"errors"`
	Seconds    float64 `json:"seconds"`
	RPS        float64 `json:"requests_per_second"`
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
	MeanBatch  float64 `json:"mean_batch_rows"`
	// CPUPerRequestUs is the process's CPU time (server, clients and the Python thread: all of
	// them run in this process) divided by the requests answered: on a machine with few cores
	// this, not the model, bounds the throughput.
	CPUPerRequestUs float64 `json:"cpu_us_per_request"`
	// RPSRuns is every repeat's throughput; the fields above are the repeat with the median.
	RPSRuns []float64 `json:"requests_per_second_runs"`
}

// config is one measured setting.
type config struct {
	mode           string
	clients, batch int
	delay          time.Duration
	via            via
}

// via is how the clients reach the model.
type via int

const (
	viaHTTP      via = iota // the server on 127.0.0.1, one row per request
	viaInProcess            // goroutines calling the batcher directly: no HTTP at all
	viaFloor                // the same HTTP clients against a handler that skips the model
)

// median is the repeat with the median throughput, carrying every repeat's throughput.
func median(runs []Result) Result {
	sorted := append([]Result(nil), runs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].RPS < sorted[j].RPS })
	r := sorted[len(sorted)/2]
	for _, x := range runs {
		r.RPSRuns = append(r.RPSRuns, x.RPS)
	}
	return r
}

// Hops is MeasureHops' result in microseconds.
type Hops struct {
	Rows        int     `json:"rows"`
	GoToC       float64 `json:"go_to_c_us"`
	Handoff     float64 `json:"goroutine_to_python_thread_us"`
	CToPython   float64 `json:"c_to_python_us"`
	PythonToCpp float64 `json:"python_to_cpp_us"`
	Model       float64 `json:"model_us"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "aakaar-bench:", err)
		os.Exit(1)
	}
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad count %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func run() error {
	clientsFlag := flag.String("clients", "1,64,256", "numbers of concurrent clients")
	delaysFlag := flag.String("delays", "0,0.5,1,2,4,8", "max batching delays (ms) for the trade-off curve")
	tradeoffClients := flag.Int("tradeoff-clients", 64, "clients for the trade-off curve")
	maxBatch := flag.Int("max-batch", 64, "max rows per batch when batching")
	maxDelay := flag.Duration("max-delay", 2*time.Millisecond, "max batching delay for the client sweep")
	duration := flag.Duration("duration", 2*time.Second, "measured time per configuration and repeat")
	repeats := flag.Int("repeats", 3, "rounds over all configurations (interleaved, so a busy moment of a shared machine spreads over all)")
	maxRequests := flag.Int("max-requests", 20000, "most requests per client per configuration")
	threads := flag.Int("threads", 0, "aakaar's CPU threads (0: one less than the cores)")
	out := flag.String("out", "", "write the results as JSON here (atomically)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the load runs here (go tool pprof)")
	flag.Parse()
	clients, err := parseInts(*clientsFlag)
	if err != nil {
		return err
	}
	var delays []float64
	for _, f := range strings.Split(*delaysFlag, ",") {
		d, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || d < 0 {
			return fmt.Errorf("bad delay %q", f)
		}
		delays = append(delays, d)
	}
	sizes := []int{784, 256, 128, 47} // chapter 17's MLP, random weights: speed does not depend on them
	if *threads == 0 {
		*threads = aakaar.DefaultThreads()
	}
	modelPath, cleanup, err := aakaartest.Start(*threads, sizes)
	if err != nil {
		return err
	}
	defer cleanup()
	defer func() { _ = aakaar.Shutdown() }()
	m, err := aakaar.Load(modelPath)
	if err != nil {
		return err
	}
	defer m.Close()

	var hops []Hops
	for _, rows := range []int{1, *maxBatch} {
		h, err := aakaar.MeasureHops(m, rows, 200)
		if err != nil {
			return err
		}
		us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
		hops = append(hops, Hops{rows, us(h.GoToC), us(h.Handoff), us(h.CToPython), us(h.PythonToCpp), us(h.Model)})
		fmt.Printf("hops, %d rows: %+v\n", rows, hops[len(hops)-1])
	}

	measure := func(c config) (Result, error) {
		cfg := aakaar.BatchConfig{MaxBatch: c.batch, MaxDelay: c.delay, QueueSize: 4096}
		var r Result
		var err error
		switch c.via {
		case viaHTTP:
			r, err = load(m, c.clients, cfg, *duration, *maxRequests)
		case viaInProcess:
			r, err = loadInProcess(m, c.clients, cfg, *duration, *maxRequests)
		case viaFloor:
			r, err = loadFloor(m.In, m.Out, c.clients, *duration, *maxRequests)
		}
		r.Mode = c.mode
		fmt.Printf("%-20s clients %3d  batch<=%3d delay %4.1fms: %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms  mean batch %5.1f  CPU %5.1f us/request  (%d requests, %d errors)\n",
			c.mode, c.clients, r.MaxBatch, r.MaxDelayMs, r.RPS, r.P50Ms, r.P99Ms, r.MeanBatch, r.CPUPerRequestUs, r.Requests, r.Errors)
		return r, err
	}
	// Three groups, measured in turns: the HTTP sweep, the same sweep without HTTP (what
	// batching buys the model side), and HTTP alone (the floor any server here pays per request).
	var sweep, inProcess, floor, curve []config
	for _, n := range clients {
		sweep = append(sweep, config{"unbatched", n, 1, 0, viaHTTP}, config{"batched", n, *maxBatch, *maxDelay, viaHTTP})
		inProcess = append(inProcess, config{"in-process unbatched", n, 1, 0, viaInProcess},
			config{"in-process batched", n, *maxBatch, *maxDelay, viaInProcess})
		floor = append(floor, config{"http floor", n, 0, 0, viaFloor})
	}
	for _, d := range delays {
		curve = append(curve, config{"batched", *tradeoffClients, *maxBatch, time.Duration(d * float64(time.Millisecond)), viaHTTP})
	}
	groups := [][]config{sweep, inProcess, floor, curve}
	var all []config
	for _, g := range groups {
		all = append(all, g...)
	}
	runs := make([][]Result, len(all))
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	for rep := 0; rep < *repeats; rep++ {
		fmt.Printf("round %d of %d\n", rep+1, *repeats)
		for i, c := range all {
			r, err := measure(c)
			if err != nil {
				return err
			}
			runs[i] = append(runs[i], r)
		}
	}
	medians := make([][]Result, len(groups))
	for i, k := 0, 0; k < len(groups); k++ {
		for range groups[k] {
			medians[k] = append(medians[k], median(runs[i]))
			i++
		}
	}
	results, inProcessResults, floorResults, tradeoff := medians[0], medians[1], medians[2], medians[3]
	ratio := func(rs []Result, label string) map[string]float64 {
		out := map[string]float64{}
		for i := 0; i+1 < len(rs); i += 2 {
			out[strconv.Itoa(rs[i].Clients)] = rs[i+1].RPS / rs[i].RPS
			fmt.Printf("clients %3d: %s batched / unbatched throughput %.2f (median of %d rounds)\n", rs[i].Clients, label, rs[i+1].RPS/rs[i].RPS, *repeats)
		}
		return out
	}
	ratios, inProcessRatios := ratio(results, "over HTTP:"), ratio(inProcessResults, "in process:")
	if *out == "" {
		return nil
	}
	doc := map[string]any{
		"date":     time.Now().UTC().Format(time.RFC3339),
		"machine":  machine(*threads),
		"commands": []string{"source go/env.sh", "cd go && go run ./cmd/aakaar-bench " + strings.Join(os.Args[1:], " ")},
		"config": map[string]any{"model_sizes": sizes, "duration_s": duration.Seconds(), "repeats": *repeats, "max_requests_per_client": *maxRequests,
			"max_batch": *maxBatch, "max_delay_ms": float64(*maxDelay) / 1e6, "endpoint": "/v1/predict/raw, one row per request",
			"tradeoff_clients": *tradeoffClients},
		"results":                           results,
		"batched_over_unbatched":            ratios,
		"in_process":                        inProcessResults,
		"in_process_batched_over_unbatched": inProcessRatios,
		"http_floor":                        floorResults,
		"tradeoff":                          tradeoff,
		"hops":                              hops,
	}
	return writeJSON(*out, doc)
}

func machine(threads int) map[string]any {
	cpu := "unknown"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "model name") {
				cpu = strings.TrimSpace(line[strings.Index(line, ":")+1:])
				break
			}
		}
	}
	load := "unknown"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return map[string]any{"cpu": cpu, "cores": runtime.NumCPU(), "load_average_at_end": load, "gomaxprocs": runtime.GOMAXPROCS(0),
		"aakaar_threads": threads, "go": runtime.Version(), "os": runtime.GOOS + "/" + runtime.GOARCH,
		"note": "clients and server share the machine (and the machine is shared with other work: see the load average); 127.0.0.1 only"}
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp makes it private; the results are not
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// load serves m on 127.0.0.1 with cfg and runs n clients, each sending one row per request and
// waiting for its answer before the next, for d or maxRequests requests each.
func load(m *aakaar.Model, n int, cfg aakaar.BatchConfig, d time.Duration, maxRequests int) (Result, error) {
	metrics := server.NewMetrics()
	var count batchCount
	b, err := aakaar.NewBatcher(m, cfg, func(s aakaar.BatchStats) {
		metrics.ObserveBatch(s)
		count.add(s.Rows)
	})
	if err != nil {
		return Result{}, err
	}
	defer b.Close()
	r, err := httpClients(server.New(b, metrics, server.DefaultConfig(), nil).Handler(), m.In, n, d, maxRequests)
	r.MaxBatch, r.MaxDelayMs, r.MeanBatch = cfg.MaxBatch, float64(cfg.MaxDelay)/1e6, count.mean()
	return r, err
}

// loadFloor is load's clients against a handler that reads the row and answers as many bytes
// as the model would, without the model: what HTTP alone costs per request on this machine.
func loadFloor(in, out, n int, d time.Duration, maxRequests int) (Result, error) {
	answer := make([]byte, 4*out)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		row := make([]byte, 4*in)
		if _, err := io.ReadFull(r.Body, row); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
		_, _ = w.Write(answer)
	})
	return httpClients(handler, in, n, d, maxRequests)
}

// loadInProcess is load without HTTP: n goroutines call the batcher directly, one row each
// time, so the measurement holds only the batcher, the hand-off to Python and the model.
func loadInProcess(m *aakaar.Model, n int, cfg aakaar.BatchConfig, d time.Duration, maxRequests int) (Result, error) {
	var count batchCount
	b, err := aakaar.NewBatcher(m, cfg, func(s aakaar.BatchStats) { count.add(s.Rows) })
	if err != nil {
		return Result{}, err
	}
	defer b.Close()
	r := runClients(n, d, maxRequests, func(c int) client {
		row := aakaartest.RandomRows(1, m.In, int64(c))[0]
		return client{call: func() error {
			_, err := b.Predict(context.Background(), row)
			return err
		}}
	})
	r.MaxBatch, r.MaxDelayMs, r.MeanBatch = cfg.MaxBatch, float64(cfg.MaxDelay)/1e6, count.mean()
	return r, nil
}

// batchCount counts model calls and their rows (the batcher reports each call).
type batchCount struct {
	mu            sync.Mutex
	batches, rows int64
}

func (c *batchCount) add(rows int) {
	c.mu.Lock()
	c.batches++
	c.rows += int64(rows)
	c.mu.Unlock()
}

func (c *batchCount) mean() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.batches == 0 {
		return 0
	}
	return float64(c.rows) / float64(c.batches)
}

// httpClients serves handler on 127.0.0.1 and runs n clients against it, each on its own
// kept-alive connection, one random row per request.
func httpClients(handler http.Handler, in, n int, d time.Duration, maxRequests int) (Result, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Result{}, err
	}
	srv := &http.Server{Handler: handler}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	addr := ln.Addr().String()
	return runClients(n, d, maxRequests, func(c int) client {
		body := server.AppendFloats(nil, aakaartest.RandomRows(1, in, int64(c))[0])
		req := append([]byte(fmt.Sprintf("POST /v1/predict/raw HTTP/1.1\r\nHost: %s\r\n"+
			"Content-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", addr, len(body))), body...)
		var conn net.Conn
		var br *bufio.Reader
		call := func() error {
			if conn == nil {
				var err error
				if conn, err = net.Dial("tcp", addr); err != nil {
					return err
				}
				br = bufio.NewReader(conn)
			}
			if err := roundTrip(conn, br, req); err != nil {
				conn.Close()
				conn = nil
				return err
			}
			return nil
		}
		return client{call: call, close: func() {
			if conn != nil {
				conn.Close()
			}
		}}
	}), nil
}

// client is one closed-loop client: call sends a request and waits for its answer; close (may
// be nil) releases what the client holds.
type client struct {
	call  func() error
	close func()
}

// runClients runs n closed-loop clients for d (or maxRequests requests each) and summarises
// their latencies, throughput and the process's CPU time per request.
func runClients(n int, d time.Duration, maxRequests int, newClient func(c int) client) Result {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	lat := make([][]float64, n)
	errs := make([]int, n)
	clients := make([]client, n)
	for c := range clients {
		clients[c] = newClient(c)
	}
	var wg sync.WaitGroup
	start, cpuStart := time.Now(), processCPU()
	for c := 0; c < n; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			if clients[c].close != nil {
				defer clients[c].close()
			}
			for i := 0; i < maxRequests && ctx.Err() == nil; i++ {
				t0 := time.Now()
				if err := clients[c].call(); err != nil {
					errs[c]++
					continue
				}
				lat[c] = append(lat[c], time.Since(t0).Seconds()*1e3)
			}
		}(c)
	}
	wg.Wait()
	elapsed, cpu := time.Since(start).Seconds(), processCPU()-cpuStart
	var all []float64
	nerr := 0
	for c := range lat {
		all = append(all, lat[c]...)
		nerr += errs[c]
	}
	sort.Float64s(all)
	q := func(p float64) float64 {
		if len(all) == 0 {
			return math.NaN()
		}
		return all[int(p*float64(len(all)-1)+0.5)]
	}
	r := Result{Clients: n, Requests: len(all), Errors: nerr, Seconds: elapsed, RPS: float64(len(all)) / elapsed,
		P50Ms: q(0.5), P99Ms: q(0.99)}
	if len(all) > 0 {
		r.CPUPerRequestUs = cpu.Seconds() * 1e6 / float64(len(all))
	}
	return r
}

// processCPU is the CPU time (user and system) this process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// roundTrip sends one request on a kept-alive connection and reads the answer: a client much
// lighter than net/http's (it reads the status line and Content-Length and skips the rest), so
// that on a small machine the load generator takes less of the CPU the server needs. The server
// is net/http, which always sends a Content-Length for answers this small.
func roundTrip(conn net.Conn, br *bufio.Reader, req []byte) error {
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := conn.Write(req); err != nil {
		return err
	}
	status, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	ok := bytes.HasPrefix(status, []byte("HTTP/1.1 200 "))
	statusText := strings.TrimSpace(string(status))
	length := -1
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) <= 2 { // the blank line that ends the header
			break
		}
		const cl = "content-length:"
		if len(line) > len(cl) && strings.EqualFold(string(line[:len(cl)]), cl) {
			if length, err = strconv.Atoi(strings.TrimSpace(string(line[len(cl):]))); err != nil {
				return fmt.Errorf("bad Content-Length in %q", line)
			}
		}
	}
	if length < 0 {
		return fmt.Errorf("an answer without Content-Length (%s)", statusText)
	}
	if _, err := br.Discard(length); err != nil {
		return err
	}
	if !ok {
		return errors.New(statusText)
	}
	return nil
}
