package aakaar

// #include "glue.h"
import "C"

import (
	"time"
)

// HopCosts is the price of each hop of one call, per call: Go→C (a cgo call), the hand-off
// from a request's goroutine to the Python thread, C→Python (GIL and a call of a Python
// function), Python→C++ (wrapping both buffers as aakaar tensors and one C++ kernel), and the
// model itself on Rows rows.
type HopCosts struct {
	Rows        int
	GoToC       time.Duration
	Handoff     time.Duration
	CToPython   time.Duration
	PythonToCpp time.Duration
	Model       time.Duration
}

// best is the lowest per-call time of `repeats` timings of n calls of f (the least disturbed).
func best(repeats, n int, f func()) time.Duration {
	var lo time.Duration
	for r := 0; r < repeats; r++ {
		t0 := time.Now()
		for i := 0; i < n; i++ {
			f()
		}
		d := time.Since(t0) / time.Duration(n)
		if r == 0 || d < lo {
			lo = d
		}
	}
	return lo
}

// [[book:hops]]
// MeasureHops times each hop as the difference between two nested calls: nothing in C; a
// hand-off to the Python thread; a Python function that does nothing; wrapping the buffers
// and one C++ kernel; the whole model. Each hop's figure is its call minus the one before.
func MeasureHops(m *Model, rows, n int) (HopCosts, error) {
	in, err := NewTensor(rows * m.In)
	if err != nil {
		return HopCosts{}, err
	}
	defer in.Free()
	out, err := NewTensor(rows * m.Out)
	if err != nil {
		return HopCosts{}, err
	}
	defer out.Free()
	const repeats = 11 // the least disturbed of many: on a shared machine most timings include others' work
	goC := best(repeats, n*10, func() { C.ak_nothing() })
	handoff := best(repeats, n, func() { _ = onPython(func() {}) })
	var noop, wrap, run time.Duration
	var callErr error
	var pinned C.int
	call := func(mode C.int) {
		if e := takeError(C.ak_run(m.obj, in.ptr, C.size_t(in.Bytes()), out.ptr, C.size_t(out.Bytes()),
			C.int64_t(rows), mode, &pinned)); e != nil {
			callErr = e
		}
	}
	if err := onPython(func() {
		noop = best(repeats, n, func() {
			if e := takeError(C.ak_noop()); e != nil {
				callErr = e
			}
		})
		wrap = best(repeats, n, func() { call(1) })
		run = best(repeats, n, func() { call(0) })
	}); err != nil {
		return HopCosts{}, err
	}
	if callErr != nil {
		return HopCosts{}, callErr
	}
	return HopCosts{Rows: rows, GoToC: goC, Handoff: handoff, CToPython: noop - goC,
		PythonToCpp: wrap - noop, Model: run - wrap}, nil
}

// [[/book:hops]]
