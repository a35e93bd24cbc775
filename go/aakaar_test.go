package aakaar_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"aakaar"
	"aakaar/aakaartest"
)

var modelPath string

func TestMain(m *testing.M) {
	path, cleanup, err := aakaartest.Start(1, aakaartest.Sizes)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting Python:", err)
		os.Exit(1)
	}
	modelPath = path
	code := m.Run()
	cleanup()
	if err := aakaar.Shutdown(); err != nil {
		fmt.Fprintln(os.Stderr, "shutdown:", err)
		code = 1
	}
	if n := aakaar.LiveTensors(); n != 0 {
		fmt.Fprintf(os.Stderr, "%d shared tensors leaked after shutdown\n", n)
		code = 1
	}
	os.Exit(code)
}

func load(t *testing.T) *aakaar.Model {
	t.Helper()
	m, err := aakaar.Load(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

var randomRows = aakaartest.RandomRows

func TestTheVirtualEnvironmentsPythonRuns(t *testing.T) {
	out, err := aakaar.Exec(`
import sys, signal, aakaar
result = f"{sys.prefix != sys.base_prefix} {signal.getsignal(signal.SIGINT) is signal.default_int_handler}"`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out != "True False" {
		t.Fatalf("want a venv interpreter (sys.prefix != sys.base_prefix) without Python's SIGINT handler, got %q", out)
	}
}

func TestInitTwiceFails(t *testing.T) {
	if err := aakaar.Init("/nonexistent/python"); err == nil {
		t.Fatal("a second Init must fail")
	}
}

// [[book:zero_copy_test]]
// The bytes Go allocated are the bytes aakaar's C++ kernels read and write: the aakaar tensor's
// data_ptr is the Go pointer, Go's write is seen by C++, and C++'s write is seen by Go.
func TestZeroCopyAcrossGoPythonAndCpp(t *testing.T) {
	x, err := aakaar.NewTensor(2 * 784)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	x.Floats()[0], x.Floats()[784] = 1.5, -2 // Go writes
	out, err := aakaar.Exec(`
from aakaar.serving import _view
x = _view(buf, 2, 784)          # numpy.frombuffer + aakaar.from_numpy: no copy
seen = x.sum().item()           # C++ reads what Go wrote
x.mul_(4.0)                     # C++ writes in place
result = f"{x.data_ptr()} {seen}"`, x)
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(out)
	ptr, _ := strconv.ParseUint(fields[0], 10, 64)
	if uintptr(ptr) != x.Pointer() {
		t.Fatalf("aakaar's tensor is at %#x, Go's memory at %#x: a copy was made", ptr, x.Pointer())
	}
	if fields[1] != "-0.5" {
		t.Fatalf("C++ summed %s, want -0.5 (what Go wrote)", fields[1])
	}
	if x.Floats()[0] != 6 || x.Floats()[784] != -8 {
		t.Fatalf("Go sees %v and %v after C++'s mul_(4), want 6 and -8", x.Floats()[0], x.Floats()[784])
	}
	if x.Pinned() {
		t.Fatal("Python kept the buffer after the call")
	}
}

// [[/book:zero_copy_test]]

func TestRunWritesTheLogitsIntoGoMemory(t *testing.T) {
	m := load(t)
	in, _ := aakaar.NewTensor(3 * m.In)
	out, _ := aakaar.NewTensor(3 * m.Out)
	defer in.Free()
	defer out.Free()
	rows := randomRows(3, m.In, 1)
	for i, r := range rows {
		copy(in.Floats()[i*m.In:], r)
	}
	for i := range out.Floats() {
		out.Floats()[i] = float32(math.NaN())
	}
	if err := m.Run(context.Background(), in, out, 3); err != nil {
		t.Fatal(err)
	}
	// The same rows through numpy, in Python, from a copy of the input.
	ref, err := aakaar.Exec(fmt.Sprintf(`
import numpy as np, aakaar
from aakaar.serving import load_model
m = load_model(%q)
x = np.frombuffer(buf, dtype=np.float32).reshape(3, -1).copy()
with aakaar.no_grad():
    y = m(aakaar.tensor(x)).numpy()
result = " ".join(repr(float(v)) for v in y.ravel())`, modelPath), in)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range strings.Fields(ref) {
		want, _ := strconv.ParseFloat(s, 64)
		if got := float64(out.Floats()[i]); math.Abs(got-want) > 1e-5 {
			t.Fatalf("logit %d: Go sees %v, Python computed %v", i, got, want)
		}
	}
}

func TestPythonKeepingABufferIsCaughtNotFreed(t *testing.T) {
	x, _ := aakaar.NewTensor(4)
	before := aakaar.LiveTensors()
	if _, err := aakaar.Exec("import builtins, numpy as np\nbuiltins._kept = np.frombuffer(buf, dtype=np.float32)", x); err != nil {
		t.Fatal(err)
	}
	if !x.Pinned() {
		t.Fatal("a buffer Python still references must be reported as pinned")
	}
	x.Free() // refused: Python could still write into it
	if aakaar.LiveTensors() != before {
		t.Fatal("a pinned tensor was freed")
	}
	if _, err := aakaar.Exec("import builtins\ndel builtins._kept", nil); err != nil {
		t.Fatal(err)
	}
	aakaar.UnpinForTest(x)
	x.Free()
}

func TestBadModelFiles(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.aksv")
	if err := os.WriteFile(corrupt, []byte("AAKAAR\x00\x01 not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "missing.aksv"): "FileNotFoundError",
		corrupt:                            "SerializationError",
	} {
		_, err := aakaar.Load(path)
		var pe *aakaar.PythonError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%s): want a PythonError naming %s, got %v", filepath.Base(path), want, err)
		}
	}
}

func TestBadRows(t *testing.T) {
	m := load(t)
	nan := make([]float32, m.In)
	nan[3] = float32(math.NaN())
	inf := make([]float32, m.In)
	inf[0] = float32(math.Inf(-1))
	for name, row := range map[string][]float32{"short": make([]float32, m.In-1), "nan": nan, "inf": inf} {
		if _, err := m.Predict(context.Background(), row); !errors.Is(err, aakaar.ErrBadInput) {
			t.Errorf("%s row: want ErrBadInput, got %v", name, err)
		}
	}
}

func newBatcher(t *testing.T, m *aakaar.Model, cfg aakaar.BatchConfig, stats *[]aakaar.BatchStats) *aakaar.Batcher {
	t.Helper()
	var mu sync.Mutex
	b, err := aakaar.NewBatcher(m, cfg, func(s aakaar.BatchStats) {
		mu.Lock()
		defer mu.Unlock()
		if stats != nil {
			*stats = append(*stats, s)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

func closeTo(a, b []float32, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > tol {
			return false
		}
	}
	return true
}

func TestBatchedResultsEqualDirectCalls(t *testing.T) {
	m := load(t)
	rows := randomRows(96, m.In, 2)
	want := make([][]float32, len(rows))
	for i, r := range rows {
		var err error
		if want[i], err = m.Predict(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	var stats []aakaar.BatchStats
	b := newBatcher(t, m, aakaar.BatchConfig{MaxBatch: 16, MaxDelay: 5 * time.Millisecond, QueueSize: 256}, &stats)
	got := make([][]float32, len(rows))
	errs := make([]error, len(rows))
	var wg sync.WaitGroup
	for i := range rows {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			got[i], errs[i] = b.Predict(context.Background(), rows[i])
		}(i)
	}
	wg.Wait()
	for i := range rows {
		if errs[i] != nil {
			t.Fatalf("row %d: %v", i, errs[i])
		}
		if !closeTo(got[i], want[i], 1e-5) {
			t.Fatalf("row %d: the batched result differs from the direct call (rows mixed up?)", i)
		}
	}
	b.Close()
	largest, total := 0, 0
	for _, s := range stats {
		total += s.Rows
		if s.Rows > largest {
			largest = s.Rows
		}
		if s.Rows > 16 {
			t.Fatalf("a batch of %d rows exceeds MaxBatch 16", s.Rows)
		}
	}
	if total != len(rows) || largest < 2 {
		t.Fatalf("%d rows ran in %d batches of at most %d: want every row once, some batched", total, len(stats), largest)
	}
}

func TestOneRaisingRowFailsOnlyItsOwnRequest(t *testing.T) {
	m := load(t)
	restore, err := aakaartest.FailOn(42)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := restore(); err != nil {
			t.Fatal(err)
		}
	}()
	b := newBatcher(t, m, aakaar.BatchConfig{MaxBatch: 8, MaxDelay: 20 * time.Millisecond}, nil)
	rows := randomRows(8, m.In, 3)
	rows[5][0] = 42
	errs := make([]error, len(rows))
	var wg sync.WaitGroup
	for i := range rows {
		wg.Add(1)
		go func(i int) { defer wg.Done(); _, errs[i] = b.Predict(context.Background(), rows[i]) }(i)
	}
	wg.Wait()
	for i, err := range errs {
		var pe *aakaar.PythonError
		if i == 5 && !(errors.As(err, &pe) && strings.Contains(err.Error(), "ValueError")) {
			t.Errorf("the raising row: want a PythonError naming ValueError, got %v", err)
		}
		if i != 5 && err != nil {
			t.Errorf("row %d failed with its batch-mate: %v", i, err)
		}
	}
}

func TestCancelledRequestsStopWaitingAndAreSkipped(t *testing.T) {
	m := load(t)
	var stats []aakaar.BatchStats
	b := newBatcher(t, m, aakaar.BatchConfig{MaxBatch: 4, MaxDelay: time.Millisecond}, &stats)
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	row := randomRows(1, m.In, 4)[0]
	if _, err := b.Predict(gone, row); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled context: want context.Canceled, got %v", err)
	}
	stalled := aakaartest.Stall(300 * time.Millisecond)
	short, cancel2 := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel2()
	if _, err := b.Predict(short, row); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a request stuck behind a stalled model: want DeadlineExceeded, got %v", err)
	}
	<-stalled
	if _, err := b.Predict(context.Background(), row); err != nil {
		t.Fatalf("after a cancellation the batcher must keep serving: %v", err)
	}
	b.Close()
	rows := 0
	for _, s := range stats {
		rows += s.Rows
	}
	if rows != 1 {
		t.Fatalf("the model ran %d rows; only the one live request should have run", rows)
	}
}

func TestAFullQueueRefusesInsteadOfWaiting(t *testing.T) {
	m := load(t)
	b := newBatcher(t, m, aakaar.BatchConfig{MaxBatch: 1, QueueSize: 2}, nil)
	stalled := aakaartest.Stall(200 * time.Millisecond)
	row := randomRows(1, m.In, 5)[0]
	var wg sync.WaitGroup
	var mu sync.Mutex
	overloaded := 0
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := b.Predict(context.Background(), row); errors.Is(err, aakaar.ErrOverloaded) {
				mu.Lock()
				overloaded++
				mu.Unlock()
			} else if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	<-stalled
	if overloaded == 0 {
		t.Fatal("10 requests into a queue of 2 behind a stalled model: want some ErrOverloaded")
	}
}

func TestCloseFreesTheSharedBuffers(t *testing.T) {
	m := load(t)
	before := aakaar.LiveTensors()
	b, err := aakaar.NewBatcher(m, aakaar.BatchConfig{MaxBatch: 8, MaxDelay: time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Predict(context.Background(), randomRows(1, m.In, 6)[0]); err != nil {
		t.Fatal(err)
	}
	if aakaar.LiveTensors() != before+2 {
		t.Fatalf("a batcher holds 2 shared buffers, got %d", aakaar.LiveTensors()-before)
	}
	b.Close()
	if aakaar.LiveTensors() != before {
		t.Fatalf("%d shared buffers left after Close", aakaar.LiveTensors()-before)
	}
	if _, err := b.Predict(context.Background(), randomRows(1, m.In, 6)[0]); !errors.Is(err, aakaar.ErrClosed) {
		t.Fatalf("Predict after Close: want ErrClosed, got %v", err)
	}
}

func TestMeasureHopsRuns(t *testing.T) {
	m := load(t)
	h, err := aakaar.MeasureHops(m, 4, 20)
	if err != nil {
		t.Fatal(err)
	}
	if h.Rows != 4 {
		t.Fatalf("rows %d", h.Rows)
	}
}
