// Winograd's transforms compiled for avx2 (see CMakeLists.txt and winograd_loops.h).
#define AK_KERNEL_NS avx2
#include "cpu/fused/winograd_loops.h"

namespace aakaar::cpu::avx2 {
AK_WINOGRAD_INSTANTIATE
}  // namespace aakaar::cpu::avx2
