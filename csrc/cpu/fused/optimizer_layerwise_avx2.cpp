// LAMB's and Adafactor's kernels compiled for avx2 (see optimizer_layerwise.cpp).
// No contraction into fused multiply-adds, as optimizer_avx2.cpp: each line rounds as
// PyTorch's separate operations do.
#pragma GCC optimize("fp-contract=off")
#define AK_KERNEL_NS avx2
#include "cpu/fused/optimizer_layerwise.h"
