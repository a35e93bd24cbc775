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
	"sort"
	"strconv"
	"strings"
	"sync"
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
	// RPSRuns is every repeat's throughput; the fields above are the repeat with the median.
	RPSRuns []float64 `json:"requests_per_second_runs"`
}

// config is one measured setting.
type config struct {
	mode           string
	clients, batch int
	delay          time.Duration
}

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

	measure := func(mode string, n, batch int, delay time.Duration) (Result, error) {
		r, err := load(m, n, aakaar.BatchConfig{MaxBatch: batch, MaxDelay: delay, QueueSize: 4096}, *duration, *maxRequests)
		r.Mode = mode
		fmt.Printf("%-9s clients %3d  batch<=%3d delay %4.1fms: %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms  mean batch %5.1f  (%d requests, %d errors)\n",
			mode, n, batch, r.MaxDelayMs, r.RPS, r.P50Ms, r.P99Ms, r.MeanBatch, r.Requests, r.Errors)
		return r, err
	}
	var sweep, curve []config
	for _, n := range clients {
		sweep = append(sweep, config{"unbatched", n, 1, 0}, config{"batched", n, *maxBatch, *maxDelay})
	}
	for _, d := range delays {
		curve = append(curve, config{"batched", *tradeoffClients, *maxBatch, time.Duration(d * float64(time.Millisecond))})
	}
	all := append(append([]config(nil), sweep...), curve...)
	runs := make([][]Result, len(all))
	for rep := 0; rep < *repeats; rep++ {
		fmt.Printf("round %d of %d\n", rep+1, *repeats)
		for i, c := range all {
			r, err := measure(c.mode, c.clients, c.batch, c.delay)
			if err != nil {
				return err
			}
			runs[i] = append(runs[i], r)
		}
	}
	var results, tradeoff []Result
	for i := range all {
		if i < len(sweep) {
			results = append(results, median(runs[i]))
		} else {
			tradeoff = append(tradeoff, median(runs[i]))
		}
	}
	ratios := map[string]float64{}
	for i := 0; i+1 < len(results); i += 2 {
		ratio := results[i+1].RPS / results[i].RPS
		ratios[strconv.Itoa(results[i].Clients)] = ratio
		fmt.Printf("clients %3d: batched / unbatched throughput %.2f (median of %d rounds)\n", results[i].Clients, ratio, *repeats)
	}
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
		"results":                results,
		"batched_over_unbatched": ratios,
		"tradeoff":               tradeoff,
		"hops":                   hops,
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

// [[book:load]]
// load serves m on 127.0.0.1 with cfg and runs n clients, each sending one row per request and
// waiting for its answer before the next, for d or maxRequests requests each.
func load(m *aakaar.Model, n int, cfg aakaar.BatchConfig, d time.Duration, maxRequests int) (Result, error) {
	var batches, rows int64
	var mu sync.Mutex
	metrics := server.NewMetrics()
	b, err := aakaar.NewBatcher(m, cfg, func(s aakaar.BatchStats) {
		metrics.ObserveBatch(s)
		mu.Lock()
		batches++
		rows += int64(s.Rows)
		mu.Unlock()
	})
	if err != nil {
		return Result{}, err
	}
	defer b.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Result{}, err
	}
	srv := &http.Server{Handler: server.New(b, metrics, server.DefaultConfig(), nil).Handler()}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	addr := ln.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	lat := make([][]float64, n)
	errs := make([]int, n)
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < n; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			body := server.AppendFloats(nil, aakaartest.RandomRows(1, m.In, int64(c))[0])
			req := append([]byte(fmt.Sprintf("POST /v1/predict/raw HTTP/1.1\r\nHost: %s\r\n"+
				"Content-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", addr, len(body))), body...)
			var conn net.Conn
			var br *bufio.Reader
			for i := 0; i < maxRequests && ctx.Err() == nil; i++ {
				t0 := time.Now()
				if conn == nil {
					var err error
					if conn, err = net.Dial("tcp", addr); err != nil {
						errs[c]++
						continue
					}
					br = bufio.NewReader(conn)
				}
				if err := roundTrip(conn, br, req); err != nil {
					errs[c]++
					conn.Close()
					conn = nil
					continue
				}
				lat[c] = append(lat[c], time.Since(t0).Seconds()*1e3)
			}
			if conn != nil {
				conn.Close()
			}
		}(c)
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
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
	r := Result{Clients: n, MaxBatch: cfg.MaxBatch, MaxDelayMs: float64(cfg.MaxDelay) / 1e6, Requests: len(all),
		Errors: nerr, Seconds: elapsed, RPS: float64(len(all)) / elapsed, P50Ms: q(0.5), P99Ms: q(0.99)}
	mu.Lock()
	if batches > 0 {
		r.MeanBatch = float64(rows) / float64(batches)
	}
	mu.Unlock()
	return r, nil
}

// roundTrip sends one request on a kept-alive connection and reads the answer: a client much
// lighter than net/http's, so that on a small machine the load generator takes less of the CPU
// the server needs (the server is still net/http).
func roundTrip(conn net.Conn, br *bufio.Reader, req []byte) error {
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := conn.Write(req); err != nil {
		return err
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err == nil && resp.StatusCode != http.StatusOK {
		err = errors.New(resp.Status)
	}
	return err
}

// [[/book:load]]
