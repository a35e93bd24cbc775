// Plain CPU references for the CUDA kernels, written as simply as possible (no shared
// code with the kernels) so that a test comparing the two means something.
// Host-only; pointers are ordinary host pointers.
#pragma once
#include <cstdint>
#include <vector>

namespace aakaar::cuda::reference {

// Calls fn(offsets of the current element) for every index of `sizes`, in row-major order,
// walking an odometer over the dimensions.
template <int N, typename F>
void for_each_index(int ndim, const int64_t* sizes, const int64_t* const (&strides)[N], F fn) {
  for (int d = 0; d < ndim; ++d)
    if (sizes[d] == 0) return;
  std::vector<int64_t> idx(ndim, 0);
  int64_t off[N] = {};
  for (;;) {
    fn(off);
    int d = ndim - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < sizes[d]) {
        for (int t = 0; t < N; ++t) off[t] += strides[t][d];
        break;
      }
      for (int t = 0; t < N; ++t) off[t] -= (sizes[d] - 1) * strides[t][d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

template <typename T>
void ewise_add(int ndim, const int64_t* sizes, T* out, const int64_t* out_strides, const T* a,
               const int64_t* a_strides, const T* b, const int64_t* b_strides) {
  for_each_index<3>(ndim, sizes, {out_strides, a_strides, b_strides},
                    [&](const int64_t* o) { out[o[0]] = a[o[1]] + b[o[2]]; });
}

// The exact-as-possible sum (long double), and the sum of magnitudes for the tolerance.
template <typename T>
void sum_all(int ndim, const int64_t* sizes, const T* x, const int64_t* strides, long double* sum,
             long double* abs_sum) {
  *sum = 0;
  *abs_sum = 0;
  for_each_index<1>(ndim, sizes, {strides}, [&](const int64_t* o) {
    *sum += x[o[0]];
    *abs_sum += x[o[0]] < 0 ? -static_cast<long double>(x[o[0]]) : x[o[0]];
  });
}

// C = alpha * A @ B + beta * C in long double; also the bound sum_k |A_ik * B_kj| per
// element, which scales the rounding error any order of summation may make.
template <typename T>
void gemm(int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t rs_a, int64_t cs_a, const T* B,
          int64_t rs_b, int64_t cs_b, T beta, T* C, int64_t rs_c, int64_t cs_c, std::vector<double>* bound) {
  bound->assign(static_cast<size_t>(M * N), 0.0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      long double acc = 0, mag = 0;
      for (int64_t k = 0; k < K; ++k) {
        const long double p = static_cast<long double>(A[i * rs_a + k * cs_a]) * B[k * rs_b + j * cs_b];
        acc += p;
        mag += p < 0 ? -p : p;
      }
      T& c = C[i * rs_c + j * cs_c];
      const long double prev = beta == T(0) ? 0 : static_cast<long double>(beta) * c;
      c = static_cast<T>(alpha * acc + prev);
      (*bound)[i * N + j] = static_cast<double>((alpha < 0 ? -alpha : alpha) * mag + (prev < 0 ? -prev : prev));
    }
}

}  // namespace aakaar::cuda::reference
