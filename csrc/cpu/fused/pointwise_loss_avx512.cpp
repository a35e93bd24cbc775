// The fused pointwise loss loops compiled for avx512 (see CMakeLists.txt).
#define AK_KERNEL_NS avx512
#include "cpu/fused/pointwise_loss_loops.h"
