// The CUDA entry of the dispatch table, registered at load time only when a device is
// usable: on a machine without a GPU or driver the module imports and runs on the CPU,
// and asking for "cuda" raises the dispatcher's "device not available" RuntimeError.
#include "cuda/backend_cuda.h"

#include "core/error.h"
#include "cuda/allocator.h"
#include "cuda/emu/cuda_emu.h"
#include "cuda/gemm.h"

namespace aakaar::cuda {

// out[b] = a[b] @ b[b] through the backend's GEMM (cuda/gemm.h), one launch for the
// whole batch; any strides (transposed and sliced operands need no copy).
void bmm(const Tensor& out, const Tensor& a, const Tensor& b) {
  const int64_t batch = out.shape[0], M = out.shape[1], N = out.shape[2], K = a.shape[2];
  AK_DISPATCH_FLOAT(out.dtype, "matmul", [&](auto tag) {
    using T = decltype(tag);
    gemm_strided_batched<T>(batch, M, N, K, T(1), a.data<T>(), a.strides[0], a.strides[1], a.strides[2],
                    b.data<T>(), b.strides[0], b.strides[1], b.strides[2], T(0), out.data<T>(), out.strides[0],
                    out.strides[1], out.strides[2]);
  });
}

namespace {

// The fused kernels this device has: the losses, the optimizer step, convolution, pooling,
// sorting, the scans and scatter_reduce. The others
// (linear, add/lerp with a scale, ...) stay null, and their ops compose the primitives.
Backend make_table() {
  Backend b{allocate_storage, copy,    fill,   binary,  unary,          where,        reduce,
            arg_reduce,       softmax, cumsum, bmm,     gather,         scatter,      random_uniform,
            random_normal};
  b.cross_entropy = cross_entropy;
  b.cross_entropy_backward = cross_entropy_backward;
  b.optimizer_step = optimizer_step;
  b.optimizer_step_capturable = optimizer_step_capturable;
  b.pointwise_loss = pointwise_loss;
  b.pointwise_loss_backward = pointwise_loss_backward;
  b.ctc_loss = ctc_loss;
  b.ctc_loss_backward = ctc_loss_backward;
  b.conv2d = conv2d;
  b.conv2d_backward = conv2d_backward;
  b.max_pool2d = max_pool2d;
  b.avg_pool2d = avg_pool2d;
  b.avg_pool2d_backward = avg_pool2d_backward;
  b.sort = sort;
  b.scan = scan;
  b.scatter_reduce = scatter_reduce;
  return b;
}
const Backend kCudaBackend = make_table();

struct Registrar {
  Registrar() {
    if (device_count() > 0) register_backend(DeviceType::CUDA, &kCudaBackend);
  }
} registrar;

}  // namespace
}  // namespace aakaar::cuda
