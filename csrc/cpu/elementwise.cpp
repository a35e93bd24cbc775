// Portable (baseline x86-64 / any CPU) build of the elementwise inner loops.
#define AK_KERNEL_NS baseline
#define AK_KERNEL_EVERY_DTYPE 1  // this build takes every dtype (see handled_here)
#include "cpu/elementwise_loops.h"
