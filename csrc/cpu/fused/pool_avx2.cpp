// The max-pooling row loop compiled for avx2 (see CMakeLists.txt and pool_loops.h).
#define AK_KERNEL_NS avx2
#include "cpu/fused/pool_loops.h"

namespace aakaar::cpu::avx2 {
AK_POOL_INSTANTIATE
}  // namespace aakaar::cpu::avx2
