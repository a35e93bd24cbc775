// LAMB's and Adafactor's fused steps (the kinds of the backend entry optimizer_step that
// need whole-parameter norms): optimizer_layerwise.h holds the kernels, compiled here for
// the baseline instruction set and in _avx2.cpp / _avx512.cpp for those; cpu/isa.h chooses.
#include "cpu/backend_cpu.h"
#include "cpu/isa.h"

#define AK_KERNEL_NS baseline
#include "cpu/fused/optimizer_layerwise.h"
#undef AK_KERNEL_NS

namespace aakaar::cpu {

#define AK_LAYERWISE_DECL                                                                          \
  void optimizer_layerwise(const OptimizerStep&, const TensorList&, const TensorList&,            \
                           const std::vector<TensorList>&);
namespace avx2 { AK_LAYERWISE_DECL }
namespace avx512 { AK_LAYERWISE_DECL }
#undef AK_LAYERWISE_DECL

void optimizer_step_layerwise(const OptimizerStep& st, const TensorList& params, const TensorList& grads,
                              const std::vector<TensorList>& states) {
  if (params.empty()) return;
#if defined(__x86_64__) || defined(_M_X64)
  if (isa() == Isa::Avx512) return avx512::optimizer_layerwise(st, params, grads, states);
  if (isa() == Isa::Avx2) return avx2::optimizer_layerwise(st, params, grads, states);
#endif
  baseline::optimizer_layerwise(st, params, grads, states);
}

}  // namespace aakaar::cpu
