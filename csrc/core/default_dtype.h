// The process-wide default floating dtype (torch.set_default_dtype): what a Python
// float, a factory without dtype= and an integer promoted to a float become.
#pragma once
#include "core/dtype.h"

namespace aakaar {

// float32 unless set_default_dtype chose float64, float16 or bfloat16.
DType default_dtype();
// Refuses (TypeError, PyTorch's class and words) a dtype that is not floating.
void set_default_dtype(DType d);

}  // namespace aakaar
