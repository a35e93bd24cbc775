// LAMB's and Adafactor's kernels compiled for avx512 (see optimizer_layerwise.cpp).
// No contraction into fused multiply-adds, as optimizer_avx512.cpp: each line rounds as
// PyTorch's separate operations do.
#pragma GCC optimize("fp-contract=off")
#define AK_KERNEL_NS avx512
#include "cpu/fused/optimizer_layerwise.h"
