package server

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"
	"time"

	"aakaar"
)

// histogram is a Prometheus histogram: cumulative buckets by upper bound, a sum and a count.
type histogram struct {
	name, help string
	bounds     []float64
	counts     []uint64 // per bucket, not cumulative; the last is +Inf
	sum        float64
	count      uint64
}

func newHistogram(name, help string, bounds []float64) *histogram {
	return &histogram{name: name, help: help, bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *histogram) observe(v float64) {
	i := sort.SearchFloat64s(h.bounds, v) // first bound >= v: Prometheus buckets are "le"
	h.counts[i]++
	h.sum += v
	h.count++
}

func (h *histogram) write(w io.Writer) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s histogram\n", h.name, h.help, h.name)
	var cum uint64
	for i, b := range h.bounds {
		cum += h.counts[i]
		fmt.Fprintf(w, "%s_bucket{le=\"%s\"} %d\n", h.name, strconv.FormatFloat(b, 'g', -1, 64), cum)
	}
	fmt.Fprintf(w, "%s_bucket{le=\"+Inf\"} %d\n%s_sum %s\n%s_count %d\n", h.name, h.count, h.name,
		strconv.FormatFloat(h.sum, 'g', -1, 64), h.name, h.count)
}

// window is the last len(buf) latencies, for quantiles of recent traffic.
type window struct {
	buf  []float64
	next int
	full bool
}

func (w *window) add(v float64) {
	w.buf[w.next] = v
	w.next = (w.next + 1) % len(w.buf)
	if w.next == 0 {
		w.full = true
	}
}

func (w *window) quantiles(qs ...float64) []float64 {
	n := w.next
	if w.full {
		n = len(w.buf)
	}
	out := make([]float64, len(qs))
	if n == 0 {
		return out
	}
	s := append([]float64(nil), w.buf[:n]...)
	sort.Float64s(s)
	for i, q := range qs {
		out[i] = s[int(q*float64(n-1)+0.5)]
	}
	return out
}

// Metrics counts requests and batches; Write writes them in Prometheus' text format.
type Metrics struct {
	mu          sync.Mutex
	batchRows   *histogram
	queueDelay  *histogram
	latency     *histogram
	recent      window
	requests    map[int]uint64
	batches     uint64
	batchErrors uint64
}

// Quantiles reported for the latency summary.
var Quantiles = []float64{0.5, 0.9, 0.99}

// NewMetrics makes empty metrics.
func NewMetrics() *Metrics {
	seconds := []float64{1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 0.1, 0.25, 0.5, 1}
	return &Metrics{
		batchRows: newHistogram("aakaar_batch_size", "Rows per call of the model.",
			[]float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}),
		queueDelay: newHistogram("aakaar_queue_delay_seconds", "Time a row waited before its batch started.", seconds),
		latency:    newHistogram("aakaar_request_latency_seconds", "Time from a request's arrival to its answer.", seconds),
		recent:     window{buf: make([]float64, 10000)},
		requests:   map[int]uint64{},
	}
}

// ObserveBatch records one call of the model (the Batcher's onBatch hook).
func (m *Metrics) ObserveBatch(s aakaar.BatchStats) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.batches++
	if s.Err != nil {
		m.batchErrors++
	}
	m.batchRows.observe(float64(s.Rows))
	for _, d := range s.QueueDelays {
		m.queueDelay.observe(d.Seconds())
	}
}

// ObserveRequest records one HTTP request's status and latency.
func (m *Metrics) ObserveRequest(code int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[code]++
	m.latency.observe(d.Seconds())
	m.recent.add(d.Seconds())
}

// LatencyQuantiles are the p50, p90 and p99 latencies of the recent requests.
func (m *Metrics) LatencyQuantiles() []float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.recent.quantiles(Quantiles...)
}

// Write writes the metrics in Prometheus' text exposition format (version 0.0.4).
func (m *Metrics) Write(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintf(w, "# HELP aakaar_requests_total HTTP requests by status code.\n# TYPE aakaar_requests_total counter\n")
	codes := make([]int, 0, len(m.requests))
	for c := range m.requests {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	for _, c := range codes {
		fmt.Fprintf(w, "aakaar_requests_total{code=\"%d\"} %d\n", c, m.requests[c])
	}
	fmt.Fprintf(w, "# HELP aakaar_batches_total Calls of the model.\n# TYPE aakaar_batches_total counter\naakaar_batches_total %d\n", m.batches)
	fmt.Fprintf(w, "# HELP aakaar_batch_errors_total Calls of the model that raised.\n# TYPE aakaar_batch_errors_total counter\naakaar_batch_errors_total %d\n", m.batchErrors)
	m.batchRows.write(w)
	m.queueDelay.write(w)
	m.latency.write(w)
	fmt.Fprintf(w, "# HELP aakaar_request_latency_recent_seconds Latency quantiles of the last %d requests.\n", len(m.recent.buf))
	fmt.Fprintf(w, "# TYPE aakaar_request_latency_recent_seconds summary\n")
	for i, v := range m.recent.quantiles(Quantiles...) {
		fmt.Fprintf(w, "aakaar_request_latency_recent_seconds{quantile=\"%s\"} %s\n",
			strconv.FormatFloat(Quantiles[i], 'g', -1, 64), strconv.FormatFloat(v, 'g', -1, 64))
	}
	fmt.Fprintf(w, "# HELP aakaar_live_shared_tensors Shared Go/Python/C++ buffers allocated now.\n"+
		"# TYPE aakaar_live_shared_tensors gauge\naakaar_live_shared_tensors %d\n", aakaar.LiveTensors())
}
