package aakaar

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// BatchConfig is the batching policy.
type BatchConfig struct {
	// MaxBatch is the most rows in one call of the model (1: no batching).
	MaxBatch int
	// MaxDelay is how long the first request of a batch may wait for others to join it.
	MaxDelay time.Duration
	// QueueSize is how many requests may wait; more are refused with ErrOverloaded.
	QueueSize int
}

// BatchStats describes one call of the model, for metrics.
type BatchStats struct {
	Rows        int
	QueueDelays []time.Duration // per request: from Submit to the start of the model call
	RunTime     time.Duration
	Err         error
}

var (
	// ErrOverloaded: the queue is full.
	ErrOverloaded = errors.New("aakaar: the request queue is full")
	// ErrClosed: the batcher was closed.
	ErrClosed = errors.New("aakaar: the batcher is closed")
)

type request struct {
	ctx      context.Context
	in       []float32
	out      []float32
	err      error
	enqueued time.Time
	done     chan struct{}
}

// Batcher groups concurrent Predict calls into calls of the model on up to MaxBatch rows. Rows
// keep their arrival order within a batch, each caller gets its own row's result, and a caller
// whose context ends stops waiting at once (its row is dropped if its batch has not started).
type Batcher struct {
	model   *Model
	cfg     BatchConfig
	queue   chan *request
	in, out *Tensor // the batch's shared buffers, reused for every batch
	onBatch func(BatchStats)
	closing chan struct{}
	stopped chan struct{}
	once    sync.Once
}

// NewBatcher starts a batcher for m; onBatch (may be nil) is called after every model call, on
// the batcher's goroutine.
func NewBatcher(m *Model, cfg BatchConfig, onBatch func(BatchStats)) (*Batcher, error) {
	if cfg.MaxBatch < 1 {
		return nil, fmt.Errorf("aakaar: MaxBatch must be at least 1, got %d", cfg.MaxBatch)
	}
	if cfg.MaxDelay < 0 {
		return nil, fmt.Errorf("aakaar: MaxDelay must not be negative, got %v", cfg.MaxDelay)
	}
	if cfg.QueueSize < 1 {
		cfg.QueueSize = 4 * cfg.MaxBatch
	}
	in, err := NewTensor(cfg.MaxBatch * m.In)
	if err != nil {
		return nil, err
	}
	out, err := NewTensor(cfg.MaxBatch * m.Out)
	if err != nil {
		in.Free()
		return nil, err
	}
	b := &Batcher{model: m, cfg: cfg, queue: make(chan *request, cfg.QueueSize), in: in, out: out,
		onBatch: onBatch, closing: make(chan struct{}), stopped: make(chan struct{})}
	go b.loop()
	return b, nil
}

// Model is the batcher's model.
func (b *Batcher) Model() *Model { return b.model }

// Predict queues one row and waits for its result, ctx's end, or the batcher's close.
func (b *Batcher) Predict(ctx context.Context, in []float32) ([]float32, error) {
	if err := b.model.CheckRow(in); err != nil {
		return nil, err
	}
	r := &request{ctx: ctx, in: in, enqueued: time.Now(), done: make(chan struct{})}
	select {
	case <-b.closing:
		return nil, ErrClosed
	default:
	}
	select {
	case b.queue <- r:
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
		return nil, ErrOverloaded
	}
	select {
	case <-r.done:
		return r.out, r.err
	case <-ctx.Done():
		return nil, ctx.Err() // the batcher skips the row, or finishes it for nobody
	}
}

// Close stops accepting requests, finishes the queued ones, and frees the batch buffers.
func (b *Batcher) Close() {
	b.once.Do(func() { close(b.closing) })
	<-b.stopped
}

// [[book:batch_loop]]
func (b *Batcher) loop() {
	defer close(b.stopped)
	defer b.in.Free()
	defer b.out.Free()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		var first *request
		select {
		case first = <-b.queue:
		case <-b.closing:
			b.drain()
			return
		}
		batch := []*request{first}
		// Rows already queued join at once (a busy server batches without waiting) ...
	queued:
		for len(batch) < b.cfg.MaxBatch {
			select {
			case r := <-b.queue:
				batch = append(batch, r)
			default:
				break queued
			}
		}
		// ... then more may join until the batch is full or the first row has waited MaxDelay.
		if wait := b.cfg.MaxDelay - time.Since(first.enqueued); len(batch) < b.cfg.MaxBatch && wait > 0 {
			timer.Reset(wait)
		collect:
			for len(batch) < b.cfg.MaxBatch {
				select {
				case r := <-b.queue:
					batch = append(batch, r)
				case <-timer.C:
					break collect
				}
			}
			if !timer.Stop() {
				select { // drain a fire that raced with a full batch
				case <-timer.C:
				default:
				}
			}
		}
		b.run(batch)
	}
}

// [[/book:batch_loop]]

// drain finishes what was queued before Close.
func (b *Batcher) drain() {
	for {
		var batch []*request
	fill:
		for len(batch) < b.cfg.MaxBatch {
			select {
			case r := <-b.queue:
				batch = append(batch, r)
			default:
				break fill
			}
		}
		if len(batch) == 0 {
			return
		}
		b.run(batch)
	}
}

// run calls the model on the rows of batch whose callers still wait: which those are is
// decided on the Python thread just before the call, so a request cancelled while an earlier
// call ran is never computed. If the call fails with more than one row, each row runs alone,
// so that one bad row (an exception the model raises on it) fails only its own request.
func (b *Batcher) run(batch []*request) {
	var live []*request
	var err error
	if e := onPython(func() {
		live = b.live(batch)
		if len(live) > 0 {
			err = b.call(live)
		}
	}); e != nil {
		live, err = b.live(batch), e
		for _, r := range live {
			r.err = e
		}
	}
	if err != nil && len(live) > 1 {
		for _, r := range live {
			r := r
			if e := onPython(func() { _ = b.call([]*request{r}) }); e != nil {
				r.err = e
			}
		}
	}
	for _, r := range batch {
		close(r.done)
	}
}

// live is the requests of batch whose context has not ended; the others get its error.
func (b *Batcher) live(batch []*request) []*request {
	var live []*request
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			continue
		}
		live = append(live, r)
	}
	return live
}

// call runs the model once on rows, on the Python thread: it gathers them into the shared
// input tensor (the one copy: a batch must be contiguous) and scatters the output rows back.
func (b *Batcher) call(rows []*request) error {
	m := b.model
	in := b.in.Floats()
	start := time.Now()
	delays := make([]time.Duration, len(rows))
	for i, r := range rows {
		copy(in[i*m.In:(i+1)*m.In], r.in)
		delays[i] = start.Sub(r.enqueued)
	}
	err := m.callOnThread(b.in, b.out, len(rows), 0)
	out := b.out.Floats()
	for i, r := range rows {
		r.err = err
		if err == nil {
			r.out = append([]float32(nil), out[i*m.Out:(i+1)*m.Out]...)
		}
	}
	if b.onBatch != nil {
		b.onBatch(BatchStats{Rows: len(rows), QueueDelays: delays, RunTime: time.Since(start), Err: err})
	}
	return err
}
