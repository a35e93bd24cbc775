// Portable (baseline x86-64 / any CPU) build of the elementwise inner loops.
#define AK_KERNEL_NS baseline
#include "cpu/elementwise_loops.h"
