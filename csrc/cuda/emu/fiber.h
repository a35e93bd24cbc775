// Cooperative fibers for the CUDA emulator: one fiber per CUDA thread of a block.
//
// A fiber is a stack plus a saved stack pointer. Switching is a plain function call
// that saves the callee-saved registers on the current stack, stores the stack pointer,
// and loads another one: on x86-64 a dozen instructions (fiber.cpp), 10-12x faster than
// swapcontext(), which makes a signal-mask system call on every switch. Other
// architectures (or -DAAKAAR_EMU_UCONTEXT) use the portable ucontext path.
//
// Fibers never migrate between OS threads: the compiler caches addresses of
// thread_local variables (threadIdx, __shared__ arrays) inside a function.
#pragma once
#include <cstddef>
#include <vector>

#if !defined(__x86_64__) && !defined(AAKAAR_EMU_UCONTEXT)
#define AAKAAR_EMU_UCONTEXT 1
#endif
#ifdef AAKAAR_EMU_UCONTEXT
#include <ucontext.h>
#endif

namespace aakaar_emu {

// An mmap'ed stack with an inaccessible guard page below it, so an overflow faults
// instead of silently overwriting a neighbour (compile kernels with
// -fstack-clash-protection so large frames cannot jump over the guard).
struct FiberStack {
  char* base = nullptr;  // lowest usable byte (just above the guard page)
  size_t size = 0;       // usable bytes
  size_t color = 0;      // bytes left unused at the top (see StackPool::get)
};

// Stacks are pooled per OS thread and reused by every block it runs: memory is
// committed lazily by the kernel, so 1024 stacks cost address space, not RAM.
class StackPool {
 public:
  explicit StackPool(size_t stack_bytes) : stack_bytes_(stack_bytes) {}
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;
  // Makes sure at least n stacks exist and returns stack i (i < n).
  const FiberStack& get(size_t i);
  size_t stack_bytes() const { return stack_bytes_; }

 private:
  size_t stack_bytes_;
  std::vector<FiberStack> stacks_;
};

using FiberEntry = void (*)(void* arg);

// The saved state of a suspended execution context (a fiber or the scheduler).
struct FiberContext {
#ifdef AAKAAR_EMU_UCONTEXT
  ucontext_t uc;
#else
  void* sp = nullptr;
#endif
};

// Prepares ctx so that switching to it calls entry(arg) on the given stack.
// entry must never return: it ends by switching away for the last time.
void fiber_init(FiberContext* ctx, const FiberStack& stack, FiberEntry entry, void* arg);

// Saves the current context into `from` and resumes `to`.
void fiber_switch(FiberContext* from, FiberContext* to);

}  // namespace aakaar_emu
