// AK_HD marks a small function that both the CPU code and the CUDA kernels call
// (the shared semantics in py_arith.h and reduce_semantics.h). In a CUDA source --
// nvcc, or the emulator's emu_device.h, which must be included first -- it is a
// host and device function; elsewhere a plain inline one.
#pragma once

#if defined(__CUDACC__) || defined(__device__)
#define AK_HD __host__ __device__ __forceinline__
#else
#define AK_HD inline
#endif
