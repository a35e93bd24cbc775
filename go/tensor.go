package aakaar

// #include <stdlib.h>
// #include <string.h>
import "C"

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Align is the byte alignment of every Tensor's memory: a cache line, as aakaar's own allocator.
const Align = 64

// [[book:tensor]]
// Tensor is a float32 buffer in C memory (posix_memalign), shared by Go, Python and C++ without
// copies: Go reads and writes it as a []float32, the C glue hands Python a memoryview of the same
// bytes, numpy.frombuffer and aakaar.from_numpy wrap that view, and aakaar's kernels read and
// write it in place. The Go garbage collector neither moves nor frees it (it is not Go memory),
// so the pointer stays valid across the cgo call; Free returns it.
type Tensor struct {
	ptr    unsafe.Pointer
	n      int
	pinned bool // Python kept a reference after a call: the memory must never be freed
}

// [[/book:tensor]]

var liveTensors atomic.Int64

// LiveTensors is the number of Tensors allocated and not yet freed (shared segments in use).
func LiveTensors() int64 { return liveTensors.Load() }

// NewTensor allocates n float32s of zeroed shared memory.
func NewTensor(n int) (*Tensor, error) {
	if n <= 0 {
		return nil, fmt.Errorf("aakaar: a tensor needs a positive size, got %d", n)
	}
	var p unsafe.Pointer
	if rc := C.posix_memalign(&p, Align, C.size_t(n)*4); rc != 0 {
		return nil, fmt.Errorf("aakaar: posix_memalign of %d bytes failed (error %d)", n*4, int(rc))
	}
	C.memset(p, 0, C.size_t(n)*4)
	t := &Tensor{ptr: p, n: n}
	liveTensors.Add(1)
	return t, nil
}

// Floats is the tensor's memory as a Go slice (no copy); valid until Free.
func (t *Tensor) Floats() []float32 { return unsafe.Slice((*float32)(t.ptr), t.n) }

// Len is the number of float32s.
func (t *Tensor) Len() int { return t.n }

// Bytes is the size in bytes.
func (t *Tensor) Bytes() int { return t.n * 4 }

// Pointer is the address of the first element, for comparing with what Python and C++ see.
func (t *Tensor) Pointer() uintptr { return uintptr(t.ptr) }

// Free returns the memory. Calling it twice is harmless; a tensor Python still references
// (see Pinned) is not freed.
func (t *Tensor) Free() {
	if t == nil || t.ptr == nil || t.pinned {
		return
	}
	C.free(t.ptr)
	t.ptr = nil
	liveTensors.Add(-1)
}

// Pinned reports whether Python kept a reference to the tensor after a call (a bug in the model
// code): the memory is then never freed, and LiveTensors shows the leak.
func (t *Tensor) Pinned() bool { return t.pinned }
