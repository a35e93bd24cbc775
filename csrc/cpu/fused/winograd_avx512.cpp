// Winograd's transforms compiled for avx512 (see CMakeLists.txt and winograd_loops.h).
#define AK_KERNEL_NS avx512
#include "cpu/fused/winograd_loops.h"

namespace aakaar::cpu::avx512 {
AK_WINOGRAD_INSTANTIATE
}  // namespace aakaar::cpu::avx512
