// The max-pooling row loop compiled for avx512 (see CMakeLists.txt and pool_loops.h).
#define AK_KERNEL_NS avx512
#include "cpu/fused/pool_loops.h"

namespace aakaar::cpu::avx512 {
AK_POOL_INSTANTIATE
}  // namespace aakaar::cpu::avx512
