// Kernel launch under the emulator: AAKAAR_LAUNCH(k, grid, block, smem, args...) turns
// into launch(), which packs the arguments (by value, as a real launch copies them to
// the device) and hands a type-erased thunk to the runtime. The launch is synchronous:
// when it returns every block has run, and any error has been thrown here, on the
// launching thread, as aakaar_emu::KernelError (a std::runtime_error).
// Include cuda_emu.h, not this file.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "emu_device.h"

namespace aakaar_emu {

struct KernelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct LaunchSite {
  const char* kernel;  // the kernel expression as written at the launch
  const char* file;
  int line;
};

using KernelThunk = void (*)(const void* packed_args);

// Runs grid x block threads of thunk(args); see emu_runtime.cpp.
void launch_grid(const LaunchSite& site, dim3 grid, dim3 block, size_t dynamic_smem,
                 KernelThunk thunk, const void* args);

// Number of OS threads that run blocks in parallel (default: AAKAAR_EMU_THREADS, or the
// number of cores). Each runs one block at a time, with all its threads as fibers.
void set_num_threads(int n);
int get_num_threads();

// Order in which a block's runnable fibers are resumed: thread 0 first (default), or
// the last thread first -- running both exposes code that relies on one order, such as
// a missing __syncthreads(). AAKAAR_EMU_ORDER=reverse sets it from the environment.
void set_reverse_order(bool reverse);

template <typename... P, typename... A>
void launch(const LaunchSite& site, void (*kernel)(P...), dim3 grid, dim3 block, size_t smem,
            A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "kernel launched with the wrong number of arguments");
  struct Pack {
    void (*kernel)(P...);
    std::tuple<std::decay_t<P>...> args;
  };
  const Pack pack{kernel, std::tuple<std::decay_t<P>...>(std::forward<A>(args)...)};
  launch_grid(site, grid, block, smem,
              [](const void* p) {
                const Pack& pk = *static_cast<const Pack*>(p);
                std::apply(pk.kernel, pk.args);  // each thread gets its own copies
              },
              &pack);
}

}  // namespace aakaar_emu

#define AAKAAR_LAUNCH(kernel, grid, block, smem, ...)                                   \
  ::aakaar_emu::launch(::aakaar_emu::LaunchSite{#kernel, __FILE__, __LINE__}, kernel, \
                       grid, block, smem, ##__VA_ARGS__)

// Dynamic shared memory: a plain `extern __shared__ T x[];` compiles but cannot link on
// the host, so kernels declare it through this macro.
#define AAKAAR_DYNAMIC_SHARED(T, name) \
  T* name = reinterpret_cast<T*>(::aakaar_emu::dynamic_shared_memory())
