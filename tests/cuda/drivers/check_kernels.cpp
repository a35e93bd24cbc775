// Checks every CUDA kernel against its CPU reference (csrc/ladders/cuda/reference.h) on
// sizes that are not multiples of the block size, non-contiguous views (transposed,
// sliced with steps, broadcast, large strides) and empty tensors.
//
//   check_kernels [elementwise|reduce|gemm ...]     (default: all)
//
// Prints one line per case and exits non-zero if any case fails. Runs on the emulator
// (g++ -x c++) or, compiled with nvcc -x cu, on a real GPU.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ladders/cuda/elementwise.h"
#include "ladders/cuda/gemm.h"
#include "ladders/cuda/reduce.h"
#include "ladders/cuda/reference.h"
#include "device_buffer.h"

namespace ak = aakaar::cuda;
namespace ref = aakaar::cuda::reference;

static int g_failures = 0, g_cases = 0;
static std::mt19937_64 g_rng(1234);

static void report(bool ok, const std::string& name, const std::string& detail = "") {
  ++g_cases;
  if (!ok) ++g_failures;
  std::printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", name.c_str(), detail.empty() ? "" : ": ", detail.c_str());
}

// A view into its own storage: element index -> offset + sum(idx[d] * strides[d]).
struct View {
  std::vector<int64_t> strides;
  int64_t offset = 0;
  int64_t storage = 1;  // elements to allocate
};

static View make_view(const std::vector<int64_t>& sizes, std::vector<int64_t> strides, int64_t offset = 0) {
  View v{std::move(strides), offset, offset + 1};
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] > 0) v.storage += (sizes[d] - 1) * (v.strides[d] < 0 ? -v.strides[d] : v.strides[d]);
  return v;
}
// Row-major contiguous strides, each multiplied by `step` (step > 1: a strided slice).
static View contiguous(const std::vector<int64_t>& sizes, int64_t step = 1, int64_t offset = 0) {
  std::vector<int64_t> st(sizes.size());
  int64_t s = step;
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    st[d] = s;
    s *= sizes[d] > 0 ? sizes[d] : 1;
  }
  return make_view(sizes, st, offset);
}
// Storage laid out in the order `perm` of the dimensions: a permuted (e.g. transposed) view.
static View permuted(const std::vector<int64_t>& sizes, const std::vector<int>& perm) {
  std::vector<int64_t> st(sizes.size());
  int64_t s = 1;
  for (int k = static_cast<int>(perm.size()) - 1; k >= 0; --k) {
    st[perm[k]] = s;
    s *= sizes[perm[k]] > 0 ? sizes[perm[k]] : 1;
  }
  return make_view(sizes, st);
}
// Stride 0 along the dimensions flagged in `bcast`.
static View broadcast(const std::vector<int64_t>& sizes, const std::vector<int>& bcast) {
  View v = contiguous(sizes);
  for (size_t d = 0; d < sizes.size(); ++d)
    if (bcast[d]) v.strides[d] = 0;
  return make_view(sizes, v.strides);
}

// ---- elementwise ----------------------------------------------------------------------
template <typename T>
static void check_add(const std::string& name, const std::vector<int64_t>& sizes, const View& vo, const View& va,
                      const View& vb) {
  const int nd = static_cast<int>(sizes.size());
  std::vector<T> o = random_vector<T>(vo.storage, g_rng), a = random_vector<T>(va.storage, g_rng),
                 b = random_vector<T>(vb.storage, g_rng);
  DeviceBuffer<T> d_o(o), d_a(a), d_b(b);
  ak::ewise_add<T>(nd, sizes.data(), d_o.ptr + vo.offset, vo.strides.data(), d_a.ptr + va.offset,
                   va.strides.data(), d_b.ptr + vb.offset, vb.strides.data());
  std::vector<T> got = d_o.download();
  ref::ewise_add<T>(nd, sizes.data(), o.data() + vo.offset, vo.strides.data(), a.data() + va.offset,
                    va.strides.data(), b.data() + vb.offset, vb.strides.data());
  // The whole storage must match: elements outside the output view must be untouched.
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < o.size(); ++i)
    if (std::memcmp(&got[i], &o[i], sizeof(T)) != 0 && bad++ == 0) first = i;
  report(bad == 0, "ewise_add " + name, bad ? std::to_string(bad) + " wrong elements, first at storage offset " +
                                                  std::to_string(first) : "");
}

static void check_elementwise() {
  for (int64_t n : {0, 1, 31, 255, 256, 257, 1000, 65537, 300001}) {
    const std::vector<int64_t> s{n};
    check_add<float>("float contiguous n=" + std::to_string(n), s, contiguous(s), contiguous(s), contiguous(s));
  }
  {
    const std::vector<int64_t> s{37, 53};
    check_add<float>("float transposed inputs 37x53", s, contiguous(s), permuted(s, {1, 0}), permuted(s, {1, 0}));
    check_add<float>("float transposed output 37x53", s, permuted(s, {1, 0}), contiguous(s), contiguous(s));
    check_add<float>("float broadcast row and column 37x53", s, contiguous(s), broadcast(s, {1, 0}),
                     broadcast(s, {0, 1}));
    check_add<float>("float sliced step 3, offsets 37x53", s, contiguous(s, 2, 5), contiguous(s, 3, 7),
                     contiguous(s, 1, 11));
  }
  {
    const std::vector<int64_t> s{5, 7, 9, 3};
    check_add<double>("double permuted 4-D 5x7x9x3", s, permuted(s, {2, 0, 3, 1}), permuted(s, {3, 2, 1, 0}),
                      contiguous(s, 2));
    check_add<int64_t>("int64 permuted 4-D 5x7x9x3", s, contiguous(s), permuted(s, {1, 3, 0, 2}),
                       broadcast(s, {0, 1, 0, 1}));
  }
  {
    const std::vector<int64_t> s{3, 1, 4};  // large strides: offsets beyond 2^31 elements apart would need
    View big = make_view(s, {1 << 20, 7, 1 << 18});  // 64-bit offsets; here ~3M elements of storage
    check_add<float>("float large strides 3x1x4", s, contiguous(s), big, broadcast(s, {1, 0, 0}));
  }
  {
    const std::vector<int64_t> s{2, 3, 2, 3, 2, 3, 2, 3};
    check_add<float>("float 8-D permuted", s, contiguous(s), permuted(s, {7, 6, 5, 4, 3, 2, 1, 0}),
                     contiguous(s, 2));
  }
  {
    const std::vector<int64_t> s{4, 0, 5};
    check_add<float>("float empty 4x0x5", s, contiguous(s), contiguous(s), contiguous(s));
    const std::vector<int64_t> scalar{};
    check_add<float>("float 0-D scalar", scalar, contiguous(scalar), contiguous(scalar), contiguous(scalar));
  }
}

// ---- reductions ------------------------------------------------------------------------
template <typename T>
static void check_sum(const std::string& name, const std::vector<int64_t>& sizes, const View& v) {
  const int nd = static_cast<int>(sizes.size());
  std::vector<T> x = random_vector<T>(v.storage, g_rng);
  DeviceBuffer<T> d_x(x), d_out(1);
  long double want, mag;
  ref::sum_all<T>(nd, sizes.data(), x.data() + v.offset, v.strides.data(), &want, &mag);
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  for (ak::SumVersion ver : {ak::SumVersion::SharedTree, ak::SumVersion::WarpShuffle}) {
    d_out.upload({T(12345)});  // garbage that an empty sum must overwrite with 0
    ak::sum_all<T>(nd, sizes.data(), d_x.ptr + v.offset, v.strides.data(), d_out.ptr, ver);
    const T got = d_out.download()[0];
    // Any order of n additions errs by at most about (chain length) * eps * sum|x|;
    // the kernels' chains are short (a grid-stride slice plus two trees).
    const double eps = std::numeric_limits<T>::epsilon();
    const double tol = 64 * eps * static_cast<double>(mag) + std::numeric_limits<T>::min();
    const double err = std::fabs(static_cast<double>(got) - static_cast<double>(want));
    char detail[160];
    std::snprintf(detail, sizeof detail, "got %.9g want %.9Lg (err %.3g, tol %.3g)", static_cast<double>(got), want,
                  err, tol);
    report(err <= tol, std::string("sum v") + std::to_string(static_cast<int>(ver)) + " " + name,
           err <= tol ? "" : detail);
  }
}

static void check_reduce() {
  for (int64_t n : {0, 1, 31, 255, 256, 257, 1000, 100003, 1000000}) {
    const std::vector<int64_t> s{n};
    check_sum<float>("float contiguous n=" + std::to_string(n), s, contiguous(s));
  }
  check_sum<double>("double contiguous n=777777", {777777}, contiguous({777777}));
  check_sum<float>("float every 3rd element n=70001", {70001}, contiguous({70001}, 3, 2));
  check_sum<float>("float transposed 301x233", {301, 233}, permuted({301, 233}, {1, 0}));
  check_sum<double>("double broadcast 3-D 17x1x45", {17, 19, 45}, broadcast({17, 19, 45}, {0, 1, 0}));
  check_sum<float>("float empty 0x7", {0, 7}, contiguous({0, 7}));
}

// ---- GEMM --------------------------------------------------------------------------------
template <typename T>
static void check_gemm_case(ak::GemmVersion ver, int64_t M, int64_t N, int64_t K, bool ta, bool tb, T alpha, T beta,
                            int64_t pad = 0, int64_t offset = 0) {
  // A is M x K, row-major, or stored transposed (column-major) when ta; same for B. Its
  // leading dimension is padded by `pad` elements, and both start `offset` elements into
  // their buffers: v6 reads rows with float4 loads only when they are 16-byte aligned,
  // so padding and offsets steer it onto its vector path, its edges or its scalar path.
  const int64_t lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad;
  std::vector<T> A = random_vector<T>(std::max<int64_t>((ta ? K : M) * lda + offset, 1), g_rng);
  std::vector<T> B = random_vector<T>(std::max<int64_t>((tb ? N : K) * ldb + offset, 1), g_rng);
  std::vector<T> C = random_vector<T>(std::max<int64_t>(M * N, 1), g_rng);
  const int64_t rs_a = ta ? 1 : lda, cs_a = ta ? lda : 1, rs_b = tb ? 1 : ldb, cs_b = tb ? ldb : 1;
  if (beta == T(0))  // beta == 0 means C is not read: NaN there must not leak into the result
    for (T& c : C) c = std::numeric_limits<T>::quiet_NaN();
  DeviceBuffer<T> dA(A), dB(B), dC(C);
  ak::gemm<T>(ver, M, N, K, alpha, dA.ptr + offset, rs_a, cs_a, dB.ptr + offset, rs_b, cs_b, beta, dC.ptr, N, 1);
  std::vector<T> got = dC.download();
  std::vector<double> bound;
  ref::gemm<T>(M, N, K, alpha, A.data() + offset, rs_a, cs_a, B.data() + offset, rs_b, cs_b, beta, C.data(), N, 1,
               &bound);
  const double eps = std::numeric_limits<T>::epsilon();
  int64_t bad = 0;
  double worst = 0;
  for (int64_t i = 0; i < M * N; ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - static_cast<double>(C[i]));
    const double tol = (K + 4) * eps * bound[i] + std::numeric_limits<T>::min();
    if (!(err <= tol)) ++bad;  // also catches NaN
    worst = std::max(worst, err / (tol > 0 ? tol : 1));
  }
  char name[200];
  std::snprintf(name, sizeof name, "gemm v%d %s M=%lld N=%lld K=%lld%s%s alpha=%g beta=%g pad=%lld offset=%lld",
                static_cast<int>(ver), sizeof(T) == 4 ? "float" : "double", static_cast<long long>(M),
                static_cast<long long>(N), static_cast<long long>(K), ta ? " A^T" : "", tb ? " B^T" : "",
                static_cast<double>(alpha), static_cast<double>(beta), static_cast<long long>(pad),
                static_cast<long long>(offset));
  report(bad == 0, name, bad ? std::to_string(bad) + " wrong elements (worst error/tolerance " + std::to_string(worst) + ")" : "");
}

static void check_gemm() {
  const ak::GemmVersion versions[] = {ak::GemmVersion::Naive, ak::GemmVersion::Coalesced, ak::GemmVersion::SharedTiles,
                                      ak::GemmVersion::BlockTiling1D, ak::GemmVersion::BlockTiling2D,
                                      ak::GemmVersion::VectorLoads, ak::GemmVersion::DoubleBuffered};
  for (ak::GemmVersion v : versions) {
    check_gemm_case<float>(v, 1, 1, 1, false, false, 1.f, 0.f);
    check_gemm_case<float>(v, 7, 13, 5, false, false, 1.f, 0.f);
    check_gemm_case<float>(v, 33, 65, 17, false, false, 1.f, 0.f);
    check_gemm_case<float>(v, 128, 128, 128, false, false, 1.f, 0.f);
    check_gemm_case<float>(v, 130, 67, 129, true, false, 0.5f, 0.f);
    check_gemm_case<float>(v, 67, 130, 40, false, true, 1.f, 2.f);
    check_gemm_case<float>(v, 200, 9, 300, true, true, -1.f, 0.25f);
    check_gemm_case<double>(v, 45, 77, 63, false, false, 1.0, 1.0);
    check_gemm_case<float>(v, 0, 5, 3, false, false, 1.f, 0.f);    // empty C
    check_gemm_case<float>(v, 6, 5, 0, false, false, 1.f, 0.5f);   // K = 0: C = beta * C
  }
  // v6's load paths: rows aligned with full groups of 4 (vector loads throughout), aligned
  // rows whose last group runs past K or N (vector loads, then scalar ones at the edge),
  // and rows shifted off 16-byte alignment (scalar loads throughout).
  const ak::GemmVersion v6 = ak::GemmVersion::VectorLoads;
  check_gemm_case<float>(v6, 136, 264, 40, false, false, 1.f, 0.f);
  check_gemm_case<float>(v6, 131, 130, 37, false, false, 1.f, 0.f, 3);  // lda 40, ldb 133: A vector, B scalar
  check_gemm_case<float>(v6, 129, 133, 37, false, false, 1.f, 0.5f, 7);  // lda 44, ldb 140: both vector, both edges
  check_gemm_case<float>(v6, 136, 264, 40, false, false, 1.f, 0.f, 0, 1);  // misaligned by one float
  check_gemm_case<float>(v6, 70, 140, 36, true, false, 2.f, 0.f, 4);   // A^T: A scalar, B vector
  // v7: the same load paths, and K a few steps long (the two tiles take turns, the last
  // step loads nothing ahead) or shorter than one step; 64 rows/columns between quadrants.
  for (ak::GemmVersion v : {v6, ak::GemmVersion::DoubleBuffered}) {
    check_gemm_case<float>(v, 136, 264, 40, false, false, 1.f, 0.f);
    check_gemm_case<float>(v, 129, 133, 37, false, false, 1.f, 0.5f, 7);
    check_gemm_case<float>(v, 136, 264, 40, false, false, 1.f, 0.f, 0, 1);
    check_gemm_case<float>(v, 70, 140, 36, true, false, 2.f, 0.f, 4);
    check_gemm_case<float>(v, 65, 200, 3, false, false, 1.f, 0.f);
    check_gemm_case<float>(v, 256, 256, 1000, false, false, 1.f, 0.f);
    check_gemm_case<double>(v, 130, 131, 65, true, true, 1.0, 0.5);
  }
}

int main(int argc, char** argv) {
  std::vector<std::string> what(argv + 1, argv + argc);
  if (what.empty()) what = {"elementwise", "reduce", "gemm"};
  try {
    for (const std::string& w : what) {
      if (w == "elementwise") check_elementwise();
      else if (w == "reduce") check_reduce();
      else if (w == "gemm") check_gemm();
      else {
        std::fprintf(stderr, "unknown group '%s' (elementwise, reduce, gemm)\n", w.c_str());
        return 2;
      }
    }
  } catch (const std::exception& e) {
    std::printf("FAIL exception: %s\n", e.what());
    return 1;
  }
  std::printf("%d cases, %d failed\n", g_cases, g_failures);
  return g_failures ? 1 : 0;
}
