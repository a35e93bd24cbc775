// The fused optimizer loops compiled for avx512 (see CMakeLists.txt).
// No fused multiply-adds: -mfma would let the compiler contract a * b + c into one
// rounding, and each line of core/optimizer_math.h is meant to round as PyTorch's (and
// the papers' numpy transcriptions') separate operations do. The loops are memory-bound,
// so this costs nothing measurable. Before any include, so that every function here agrees.
#pragma GCC optimize("fp-contract=off")
#define AK_KERNEL_NS avx512
#include "cpu/fused/optimizer_loops.h"
