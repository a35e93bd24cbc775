// The fused optimizer loops compiled for avx512 (see CMakeLists.txt).
#define AK_KERNEL_NS avx512
#include "cpu/fused/optimizer_loops.h"
