// The slice of the CUDA runtime API that launchers and test drivers call, on host
// memory, so that a launcher source compiles unchanged under nvcc and the emulator.
// "Device" memory is ordinary aligned host memory; every call is synchronous.
// Include cuda_emu.h, not this file.
#pragma once
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace aakaar_emu {
int get_num_threads();  // emu_launch.h
}

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
};
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};
// Device attributes launchers use to size grids; values as in CUDA's driver_types.h.
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
};
using cudaStream_t = struct aakaar_emu_stream*;
struct aakaar_emu_event {
  std::chrono::steady_clock::time_point t;
};
using cudaEvent_t = aakaar_emu_event*;

inline const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
  }
  return "unknown error";
}

inline cudaError_t cudaMalloc(void** p, size_t bytes) {
  if (!p) return cudaErrorInvalidValue;
  *p = nullptr;
  if (bytes == 0) return cudaSuccess;
  // 256-byte alignment, like cudaMalloc; aligned_alloc wants a multiple of it.
  *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <typename T>
inline cudaError_t cudaMalloc(T** p, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(p), bytes);
}
inline cudaError_t cudaFree(void* p) {
  std::free(p);
  return cudaSuccess;
}
// Page-locked host memory. On the emulator every byte is host memory and there is no DMA
// engine to pin pages for, so this is an ordinary (aligned) allocation.
inline cudaError_t cudaMallocHost(void** p, size_t bytes) { return cudaMalloc(p, bytes); }
template <typename T>
inline cudaError_t cudaMallocHost(T** p, size_t bytes) {
  return cudaMallocHost(reinterpret_cast<void**>(p), bytes);
}
inline cudaError_t cudaFreeHost(void* p) { return cudaFree(p); }
inline cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind) {
  if (bytes && (!dst || !src)) return cudaErrorInvalidValue;
  if (bytes) std::memmove(dst, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind k,
                                   cudaStream_t = nullptr) {
  return cudaMemcpy(dst, src, bytes, k);
}
inline cudaError_t cudaMemset(void* dst, int value, size_t bytes) {
  if (bytes && !dst) return cudaErrorInvalidValue;
  if (bytes) std::memset(dst, value, bytes);
  return cudaSuccess;
}
template <typename T>
inline cudaError_t cudaMemcpyToSymbol(T& symbol, const void* src, size_t bytes, size_t offset = 0,
                                      cudaMemcpyKind = cudaMemcpyHostToDevice) {
  if (offset + bytes > sizeof(T)) return cudaErrorInvalidValue;
  std::memcpy(reinterpret_cast<char*>(&symbol) + offset, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
// The emulator is always exactly one device, number 0.
inline cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidDevice; }
// The fields of cudaDeviceProp that the library reads.
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  int multiProcessorCount;
  int major, minor;
};
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (device != 0) return cudaErrorInvalidDevice;
  *prop = cudaDeviceProp{};
  std::strncpy(prop->name, "aakaar CUDA emulator (CPU)", sizeof prop->name - 1);
  prop->multiProcessorCount = aakaar_emu::get_num_threads();
  prop->major = 0;
  prop->minor = 0;
  return cudaSuccess;
}
// 0: no CUDA runtime underneath (a real runtime reports e.g. 13000).
inline cudaError_t cudaRuntimeGetVersion(int* version) {
  *version = 0;
  return cudaSuccess;
}
// The emulated device has one "multiprocessor" per OS thread that runs blocks, so grids
// sized as a multiple of the SM count stay small (and fast) on the emulator.
inline cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (device != 0) return cudaErrorInvalidValue;
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = 1024; return cudaSuccess;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = 48 * 1024; return cudaSuccess;
    case cudaDevAttrWarpSize: *value = 32; return cudaSuccess;
    case cudaDevAttrMultiProcessorCount: *value = aakaar_emu::get_num_threads(); return cudaSuccess;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = 2048; return cudaSuccess;
  }
  return cudaErrorInvalidValue;
}

// Launches are synchronous and throw on error, so there is never a pending error.
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaPeekAtLastError() { return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }

inline cudaError_t cudaEventCreate(cudaEvent_t* e) {
  *e = new aakaar_emu_event{};
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete e;
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t = nullptr) {
  e->t = std::chrono::steady_clock::now();
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t stop) {
  *ms = std::chrono::duration<float, std::milli>(stop->t - start->t).count();
  return cudaSuccess;
}
