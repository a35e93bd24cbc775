// The same loops compiled with AVX-512 and 512-bit vectors (see CMakeLists.txt).
#define AK_KERNEL_NS avx512
#include "cpu/elementwise_loops.h"
