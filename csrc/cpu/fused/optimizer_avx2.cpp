// The fused optimizer loops compiled for avx2 (see CMakeLists.txt).
#define AK_KERNEL_NS avx2
#include "cpu/fused/optimizer_loops.h"
