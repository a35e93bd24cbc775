// The fused pointwise loss loops compiled for avx2 (see CMakeLists.txt).
#define AK_KERNEL_NS avx2
#include "cpu/fused/pointwise_loss_loops.h"
