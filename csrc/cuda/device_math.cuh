// Scalar maths for the CUDA elementwise kernels, with the CPU kernels' semantics
// (csrc/cpu/elementwise_loops.h): Python's floor division and modulo, NaN-propagating
// maximum/minimum, integer powers, PyTorch's relu/gelu/softplus definitions.
//
// Overloads on float and double call the C maths functions by their exact names
// (expf / exp, ...): those exist both as CUDA device functions and in the host's libm,
// so the same source means the same function under nvcc and under the emulator.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/backend.h"
#include "cuda/emu/cuda_emu.h"
// After cuda_emu.h: py_arith.h sees __device__ and makes its functions device functions too.
#include "core/py_arith.h"

namespace aakaar::cuda::dmath {

#define AK_DMATH_UNARY(name, f32, f64)                                          \
  __host__ __device__ __forceinline__ float name(float x) { return f32(x); }  \
  __host__ __device__ __forceinline__ double name(double x) { return f64(x); }
AK_DMATH_UNARY(exp_, expf, exp)
AK_DMATH_UNARY(log_, logf, log)
AK_DMATH_UNARY(log1p_, log1pf, log1p)
AK_DMATH_UNARY(expm1_, expm1f, expm1)
AK_DMATH_UNARY(sqrt_, sqrtf, sqrt)
AK_DMATH_UNARY(sin_, sinf, sin)
AK_DMATH_UNARY(cos_, cosf, cos)
AK_DMATH_UNARY(tanh_, tanhf, tanh)
AK_DMATH_UNARY(erf_, erff, erf)
AK_DMATH_UNARY(floor_, floorf, floor)
AK_DMATH_UNARY(ceil_, ceilf, ceil)
AK_DMATH_UNARY(rint_, rintf, rint)  // round half to even, like the CPU's nearbyint
AK_DMATH_UNARY(fabs_, fabsf, fabs)
#undef AK_DMATH_UNARY
__host__ __device__ __forceinline__ float fmod_(float a, float b) { return fmodf(a, b); }
__host__ __device__ __forceinline__ double fmod_(double a, double b) { return fmod(a, b); }
__host__ __device__ __forceinline__ float pow_(float a, float b) { return powf(a, b); }
__host__ __device__ __forceinline__ double pow_(double a, double b) { return pow(a, b); }
__host__ __device__ __forceinline__ float copysign_(float a, float b) { return copysignf(a, b); }
__host__ __device__ __forceinline__ double copysign_(double a, double b) { return copysign(a, b); }

template <typename T>
__host__ __device__ __forceinline__ bool is_nan(T x) {
  return x != x;  // false for every integer type
}

// Python's floor division, modulo and integer powers: shared with the CPU loops.
using py_arith::floor_div;
using py_arith::int_pow;
using py_arith::py_mod;

template <typename T>
__device__ __forceinline__ T sigmoid(T x) {
  return T(1) / (T(1) + exp_(-x));
}

}  // namespace aakaar::cuda::dmath
