// The same loops compiled with -mavx2 -mfma (see CMakeLists.txt).
#define AK_KERNEL_NS avx2
#include "cpu/elementwise_loops.h"
