// The ladder's registry: every rung by name, for the book and the benchmarks
// (aakaar._C.gemm). v3, v4 and v6 are the library's packed loops (cpu/gemm/
// packed.h) held to one micro-kernel table each; v1 and v5 are the library's
// own drivers.
#include "ladders/cpu_gemm/ladder.h"

#include "cpu/gemm/common.h"
#include "cpu/gemm/packed.h"
#include "cpu/isa.h"

namespace aakaar::cpu::gemm_ladder {

using namespace gemm_impl;

template <typename T>
void v3_packed(const GemmArgs<T>& g, Blocking blk) {
  run_packed(g, portable_kernels<T>(), blk);
}

template <typename T>
void v4_microkernel_avx2(const GemmArgs<T>& g, Blocking blk) {
  // Without AVX2 (not reachable through run_version: versions() leaves v4 out)
  // a direct caller still gets a correct result from the portable kernel.
  run_packed(g, avx2_kernels<T>(), blk);
}

template <typename T>
void v4_microkernel_avx512(const GemmArgs<T>& g, Blocking blk) {
  run_packed(g, avx512_kernels<T>(), blk);
}

template <typename T>
void v6_direct(const GemmArgs<T>& g, Blocking blk) {
  // Without AVX-512 (not listed by versions()) the kernels have no in-place
  // variant and the loops pack, so a direct caller still gets a right answer.
  run_packed(g, avx512_kernels<T>(), blk, Operands::InPlace);
}

AAKAAR_GEMM_INSTANTIATE_BLK(v3_packed)
AAKAAR_GEMM_INSTANTIATE_BLK(v4_microkernel_avx2)
AAKAAR_GEMM_INSTANTIATE_BLK(v4_microkernel_avx512)
AAKAAR_GEMM_INSTANTIATE_BLK(v6_direct)

std::vector<std::string> versions() {
  std::vector<std::string> v = {"v0_naive", "v1_loop_order", "v2_blocked", "v3_packed"};
  if (isa_at_least(Isa::Avx2)) v.push_back("v4_microkernel_avx2");
  if (isa_at_least(Isa::Avx512)) v.push_back("v4_microkernel_avx512");
  v.push_back("v5_threads");
  if (isa_at_least(Isa::Avx512)) v.push_back("v6_direct");
  return v;
}

template <typename T>
bool run_version(const std::string& name, const GemmArgs<T>& g, Blocking blk) {
  if (name == "v0_naive") v0_naive(g);
  else if (name == "v1_loop_order") v1_loop_order(g);
  else if (name == "v2_blocked") v2_blocked(g);
  else if (name == "v3_packed") v3_packed(g, blk);
  else if (name == "v4_microkernel_avx2" && isa_at_least(Isa::Avx2)) v4_microkernel_avx2(g, blk);
  else if (name == "v4_microkernel_avx512" && isa_at_least(Isa::Avx512)) v4_microkernel_avx512(g, blk);
  else if (name == "v5_threads") v5_threads(g, blk);
  else if (name == "v6_direct" && isa_at_least(Isa::Avx512)) v6_direct(g, blk);
  else return false;
  return true;
}
template bool run_version<float>(const std::string&, const GemmArgs<float>&, Blocking);
template bool run_version<double>(const std::string&, const GemmArgs<double>&, Blocking);

}  // namespace aakaar::cpu::gemm_ladder
