// The loops of the thin products (one or a few rows of C): written once,
// compiled twice, by thin.cpp (baseline ISA) and thin_avx2.cpp (-mavx2
// -mfma). Both include this file INSIDE an anonymous namespace, so each
// build's copy has internal linkage and the linker can never swap one for
// the other. No includes here for that reason; int64_t must be declared.
// Fixed-size accumulator arrays let the compiler keep them in vector
// registers without reassociating a single running sum.

// out[j] = sum_k a[k * inc_a] * B[k * rs_b + j] for j < n: a row times a
// matrix whose rows are contiguous. Each block of W columns of the result
// stays in registers (4 vectors: enough independent FMA chains) while B
// streams past once.
template <typename T>
void row_times_rows(int64_t K, const T* a, int64_t inc_a, const T* B, int64_t rs_b, int64_t n,
                    T* out) {
  constexpr int W = 128 / sizeof(T);  // 32 floats: four 8-wide registers
  int64_t j0 = 0;
  for (; j0 + W <= n; j0 += W) {
    T acc[W] = {};
    for (int64_t k = 0; k < K; ++k) {
      const T ak = a[k * inc_a];
      const T* b = B + k * rs_b + j0;
      for (int j = 0; j < W; ++j) acc[j] += ak * b[j];
    }
    for (int j = 0; j < W; ++j) out[j0 + j] = acc[j];
  }
  if (j0 < n) {  // the last, narrower block
    const int64_t w = n - j0;
    T acc[W] = {};
    for (int64_t k = 0; k < K; ++k) {
      const T ak = a[k * inc_a];
      const T* b = B + k * rs_b + j0;
      for (int64_t j = 0; j < w; ++j) acc[j] += ak * b[j];
    }
    for (int64_t j = 0; j < w; ++j) out[j0 + j] = acc[j];
  }
}

// out[j] = sum_k a[k] * B[j * cs_b + k] for j < n: a contiguous row dotted
// with the contiguous columns of B (x @ W^T with W stored row-major).
template <typename T>
void row_dot_columns(int64_t K, const T* a, const T* B, int64_t cs_b, int64_t n, T* out) {
  constexpr int L = 64 / sizeof(T);  // 16 floats: two 8-wide partial sums
  for (int64_t j = 0; j < n; ++j) {
    const T* b = B + j * cs_b;
    T acc[L] = {};
    int64_t k = 0;
    for (; k + L <= K; k += L)
      for (int l = 0; l < L; ++l) acc[l] += a[k + l] * b[k + l];
    T sum = 0;
    for (; k < K; ++k) sum += a[k] * b[k];
    for (int l = 0; l < L; ++l) sum += acc[l];
    out[j] = sum;
  }
}

// One row of C, out[0:n], from rows of B (columns_of_b false: B has unit
// column stride) or from columns of B (unit row stride, and a contiguous).
template <typename T>
void thin_row(bool columns_of_b, int64_t K, const T* a, int64_t inc_a, const T* B, int64_t rs_b,
              int64_t cs_b, int64_t n, T* out) {
  if (columns_of_b) row_dot_columns(K, a, B, cs_b, n, out);
  else row_times_rows(K, a, inc_a, B, rs_b, n, out);
}
