// Package aakaar serves aakaar models from Go: an embedded CPython runs aakaar.serving on
// buffers shared by Go, Python and C++ (see Tensor), on one locked OS thread; a Batcher
// groups concurrent requests into batches. Build flags: source go/env.sh (README.md).
package aakaar

// #include <stdlib.h>
// #include "glue.h"
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// PythonError is an exception raised in Python (in aakaar or the model), as text.
type PythonError struct{ Msg string }

func (e *PythonError) Error() string { return e.Msg }

// ErrNotInitialized is returned by calls made before Init or after Shutdown.
var ErrNotInitialized = errors.New("aakaar: the Python runtime is not running (call Init first; Shutdown ends it)")

// ErrBadInput marks an input the model cannot take (wrong size, NaN): the caller's fault.
var ErrBadInput = errors.New("bad input")

func takeError(e *C.char) error {
	if e == nil {
		return nil
	}
	defer C.free(unsafe.Pointer(e))
	return &PythonError{Msg: C.GoString(e)}
}

// [[book:python_thread]]
// The Python thread: one goroutine, locked to its OS thread for its whole life, runs every call
// into Python; other goroutines send it closures and wait. CPython ties the GIL's thread state to
// the OS thread, and the Go scheduler moves goroutines between threads at any call, so no other
// goroutine may ever call into Python directly.
var (
	mu       sync.Mutex // guards work and done across Init/Shutdown
	work     chan func()
	finished chan error
)

func pythonThread(python string, threads int, started chan<- error) {
	runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
	cp := C.CString(python)
	err := takeError(C.ak_init(cp))
	C.free(unsafe.Pointer(cp))
	if err == nil && threads > 0 {
		err = takeError(C.ak_set_threads(C.int(threads)))
	}
	started <- err
	if err != nil {
		finished <- takeError(C.ak_finalize())
		return
	}
	for f := range work { // until Shutdown closes the channel
		f()
	}
	finished <- takeError(C.ak_finalize())
}

// onPython runs f on the Python thread and waits for it.
func onPython(f func()) error {
	mu.Lock()
	w := work
	mu.Unlock()
	if w == nil {
		return ErrNotInitialized
	}
	done := make(chan struct{})
	w <- func() { f(); close(done) }
	<-done
	return nil
}

// [[/book:python_thread]]

// Options of Init (optional: Init(python) uses the defaults).
type Options struct {
	// Threads is the size of aakaar's CPU thread pool; 0 picks DefaultThreads().
	Threads int
}

// DefaultThreads leaves one core to Go (HTTP, JSON, the batcher): aakaar's pool workers spin
// for a while after each job, and a pool as large as the machine would compete with Go's
// scheduler for every core.
func DefaultThreads() int {
	n := runtime.NumCPU() - 1
	if n < 1 {
		n = 1
	}
	return n
}

// Init starts the Python interpreter of `python` (a virtual environment's bin/python, so that
// its site-packages, where aakaar is installed, are used) on a dedicated OS thread. Only one
// interpreter per process: a second Init without Shutdown fails, and an interpreter cannot be
// started again after Shutdown (CPython does not support re-initializing numpy).
func Init(python string, options ...Options) error {
	var opts Options
	if len(options) > 1 {
		return errors.New("aakaar: Init takes at most one Options")
	}
	if len(options) == 1 {
		opts = options[0]
	}
	mu.Lock()
	defer mu.Unlock()
	if work != nil {
		return errors.New("aakaar: Init called twice")
	}
	if finished != nil {
		return errors.New("aakaar: the Python runtime was shut down and cannot be started again in this process")
	}
	if _, err := os.Stat(python); err != nil {
		return fmt.Errorf("aakaar: no python interpreter at %s (run bash scripts/setup.sh, or set AAKAAR_PYTHON): %w", python, err)
	}
	if opts.Threads == 0 {
		opts.Threads = DefaultThreads()
	}
	started := make(chan error, 1)
	finished = make(chan error, 1)
	work = make(chan func())
	go pythonThread(python, opts.Threads, started)
	if err := <-started; err != nil {
		work = nil
		<-finished
		return fmt.Errorf("aakaar: starting Python: %w", err)
	}
	return nil
}

// Shutdown finalizes the interpreter (after the calls in flight) and returns its error.
func Shutdown() error {
	mu.Lock()
	w := work
	work = nil
	mu.Unlock()
	if w == nil {
		return ErrNotInitialized
	}
	close(w)
	return <-finished
}

// FindPython is $AAKAAR_PYTHON, else the first .venv/bin/python in the working directory or
// one of its parents (the repository's virtual environment, from go/ or below).
func FindPython() (string, error) {
	if p := os.Getenv("AAKAAR_PYTHON"); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, ".venv", "bin", "python")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("aakaar: no .venv/bin/python above the working directory; run bash scripts/setup.sh or set AAKAAR_PYTHON")
		}
		dir = parent
	}
}

// Model is a loaded served-model file (aakaar.serving.load_model).
type Model struct {
	obj      unsafe.Pointer // a PyObject*, only touched on the Python thread
	In, Out  int            // floats in one input row and one output row
	Path     string
	mu       sync.Mutex
	released bool
}

// Load reads a served-model file (aakaar.serving.save_model writes one).
func Load(path string) (*Model, error) {
	var obj unsafe.Pointer
	var in, out C.int64_t
	var err error
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	if e := onPython(func() { err = takeError(C.ak_load(cp, &obj, &in, &out)) }); e != nil {
		return nil, e
	}
	if err != nil {
		return nil, err
	}
	return &Model{obj: obj, In: int(in), Out: int(out), Path: path}, nil
}

// Close releases the Python model object.
func (m *Model) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.released {
		return
	}
	m.released = true
	_ = onPython(func() { C.ak_release_model(m.obj) })
}

// Run is the model on `rows` rows of `in` (rows x In floats), writing rows x Out floats into
// `out`, both shared with Python (no copy). Synchronous: the call in Python cannot be
// interrupted, so a cancelled ctx is only checked before it starts.
func (m *Model) Run(ctx context.Context, in, out *Tensor, rows int) error {
	return m.call(ctx, in, out, rows, 0)
}

// WrapOnly does all of Run but the model (the buffers are wrapped, the output zeroed in C++): the
// cost of the hops without the model, for the benchmark.
func (m *Model) WrapOnly(in, out *Tensor, rows int) error {
	return m.call(context.Background(), in, out, rows, 1)
}

func (m *Model) call(ctx context.Context, in, out *Tensor, rows int, mode int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var err error
	if e := onPython(func() { err = m.callOnThread(in, out, rows, mode) }); e != nil {
		return e
	}
	return err
}

// callOnThread is call's body; it runs on the Python thread.
func (m *Model) callOnThread(in, out *Tensor, rows int, mode int) error {
	if rows <= 0 || in.Len() < rows*m.In || out.Len() < rows*m.Out {
		return fmt.Errorf("aakaar: %w: %d rows need %d input and %d output floats, the tensors hold %d and %d",
			ErrBadInput, rows, rows*m.In, rows*m.Out, in.Len(), out.Len())
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.released {
		return errors.New("aakaar: the model was closed")
	}
	var pinned C.int
	err := takeError(C.ak_run(m.obj, in.ptr, C.size_t(in.Bytes()), out.ptr, C.size_t(out.Bytes()),
		C.int64_t(rows), C.int(mode), &pinned))
	if pinned != 0 {
		in.pinned, out.pinned = true, true
		return fmt.Errorf("aakaar: Python kept a reference to a request buffer, which is leaked, not freed (error: %v)", err)
	}
	return err
}

// Predict runs the model on one row, unbatched: in is copied into a fresh shared tensor.
func (m *Model) Predict(ctx context.Context, in []float32) ([]float32, error) {
	out, err := m.PredictBatch(ctx, [][]float32{in})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// PredictBatch runs the model on several rows in one call.
func (m *Model) PredictBatch(ctx context.Context, rows [][]float32) ([][]float32, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("aakaar: %w: no rows", ErrBadInput)
	}
	in, err := NewTensor(len(rows) * m.In)
	if err != nil {
		return nil, err
	}
	defer in.Free()
	out, err := NewTensor(len(rows) * m.Out)
	if err != nil {
		return nil, err
	}
	defer out.Free()
	for i, r := range rows {
		if err := m.CheckRow(r); err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
		copy(in.Floats()[i*m.In:], r)
	}
	if err := m.Run(ctx, in, out, len(rows)); err != nil {
		return nil, err
	}
	res := make([][]float32, len(rows))
	for i := range res {
		res[i] = append([]float32(nil), out.Floats()[i*m.Out:(i+1)*m.Out]...)
	}
	return res, nil
}

// CheckRow rejects a row of the wrong size or holding NaN or infinity (wrapping ErrBadInput).
func (m *Model) CheckRow(r []float32) error {
	if len(r) != m.In {
		return fmt.Errorf("aakaar: %w: a row must hold %d floats, got %d", ErrBadInput, m.In, len(r))
	}
	for i, v := range r {
		if v != v || v > maxFloat32 || v < -maxFloat32 {
			return fmt.Errorf("aakaar: %w: element %d is %v (NaN and infinity are refused)", ErrBadInput, i, v)
		}
	}
	return nil
}

const maxFloat32 = 3.40282346638528859811704183484516925440e+38

// Exec runs Python source on the Python thread with `buf` bound to a writable memoryview of t
// (None if t is nil) and returns str(result) if the source sets `result`. For tests and
// diagnostics (the zero-copy proofs of go test use it).
func Exec(src string, t *Tensor) (string, error) {
	cs := C.CString(src)
	defer C.free(unsafe.Pointer(cs))
	var res *C.char
	var err error
	var pinned C.int
	var ptr unsafe.Pointer
	var n C.size_t
	if t != nil {
		ptr, n = t.ptr, C.size_t(t.Bytes())
	}
	if e := onPython(func() { err = takeError(C.ak_exec(cs, ptr, n, &res, &pinned)) }); e != nil {
		return "", e
	}
	if pinned != 0 && t != nil {
		t.pinned = true
	}
	out := ""
	if res != nil {
		out = C.GoString(res)
		C.free(unsafe.Pointer(res))
	}
	return strings.TrimSpace(out), err
}
