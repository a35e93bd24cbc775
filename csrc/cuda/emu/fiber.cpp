// Fiber stacks and the context switch (see fiber.h).
#include "fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

namespace aakaar_emu {

StackPool::~StackPool() {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (const FiberStack& s : stacks_) munmap(s.base - page, s.size + page);
}

const FiberStack& StackPool::get(size_t i) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  while (stacks_.size() <= i) {
    const size_t usable = (stack_bytes_ + page - 1) / page * page;
    void* p = mmap(nullptr, usable + page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (p == MAP_FAILED)
      throw std::runtime_error("CUDA emulator: could not map a " + std::to_string(usable) +
                               "-byte fiber stack (too many threads per block?)");
    // The lowest page is the guard: stacks grow down into it.
    if (mprotect(p, page, PROT_NONE) != 0) {
      munmap(p, usable + page);
      throw std::runtime_error("CUDA emulator: mprotect of a fiber guard page failed");
    }
    // Stagger the stack tops over 64 cache lines: otherwise the hot top frames of all
    // fibers sit at the same page offset, hence in the same L1 set, and evict each other.
    const size_t color = (stacks_.size() % 64) * 64;
    stacks_.push_back(FiberStack{static_cast<char*>(p) + page, usable, color});
  }
  return stacks_[i];
}

#ifndef AAKAAR_EMU_UCONTEXT

// aakaar_emu_switch(void** save_sp, void* load_sp): pushes the callee-saved registers
// (the only ones a function call must preserve in the System V ABI), saves rsp, loads
// the other stack and pops that context's registers, then jumps to wherever that context
// last called aakaar_emu_switch -- or, for a new fiber, to the trampoline. Popping the
// return address and jumping, rather than `ret`, matters: `ret` is predicted from the
// call stack, which is always wrong here, and the mispredicts doubled the switch cost.
// The FP control words (mxcsr, x87 cw) are not switched: every fiber runs kernel code
// under the same FP environment as the launching thread.
extern "C" void aakaar_emu_switch(void** save_sp, void* load_sp);
extern "C" void aakaar_emu_trampoline();

asm(R"(
  .text
  .globl aakaar_emu_switch
  .hidden aakaar_emu_switch
  .type aakaar_emu_switch, @function
  .p2align 4
aakaar_emu_switch:
  .cfi_startproc
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  popq %rcx
  jmp *%rcx
  .cfi_endproc
  .size aakaar_emu_switch, .-aakaar_emu_switch

  .globl aakaar_emu_trampoline
  .hidden aakaar_emu_trampoline
  .type aakaar_emu_trampoline, @function
  .p2align 4
aakaar_emu_trampoline:
  .cfi_startproc
  .cfi_undefined rip
  movq %r12, %rdi
  callq *%r13
  ud2
  .cfi_endproc
  .size aakaar_emu_trampoline, .-aakaar_emu_trampoline
)");

void fiber_init(FiberContext* ctx, const FiberStack& stack, FiberEntry entry, void* arg) {
  // Build the frame aakaar_emu_switch expects to pop. The trampoline is entered by a
  // jump with rsp 16-byte aligned, so its `call` gives entry the ABI's alignment.
  uintptr_t top = reinterpret_cast<uintptr_t>(stack.base + stack.size - stack.color) & ~uintptr_t(15);
  void** sp = reinterpret_cast<void**>(top);
  sp[-1] = nullptr;                                               // padding
  sp[-2] = nullptr;                                               // padding
  sp[-3] = reinterpret_cast<void*>(&aakaar_emu_trampoline);       // jump target
  sp[-4] = nullptr;                                               // rbp
  sp[-5] = nullptr;                                               // rbx
  sp[-6] = arg;                                                   // r12 -> rdi
  sp[-7] = reinterpret_cast<void*>(entry);                        // r13 -> called
  sp[-8] = nullptr;                                               // r14
  sp[-9] = nullptr;                                               // r15
  ctx->sp = &sp[-9];
}

void fiber_switch(FiberContext* from, FiberContext* to) { aakaar_emu_switch(&from->sp, to->sp); }

#else  // portable fallback

namespace {
// makecontext passes int arguments only, so a pointer travels as two halves.
void ucontext_entry(unsigned hi, unsigned lo, unsigned fhi, unsigned flo) {
  auto arg = reinterpret_cast<void*>((static_cast<uintptr_t>(hi) << 32) | lo);
  auto fn = reinterpret_cast<FiberEntry>((static_cast<uintptr_t>(fhi) << 32) | flo);
  fn(arg);
}
}  // namespace

void fiber_init(FiberContext* ctx, const FiberStack& stack, FiberEntry entry, void* arg) {
  if (getcontext(&ctx->uc) != 0) throw std::runtime_error("CUDA emulator: getcontext failed");
  ctx->uc.uc_stack.ss_sp = stack.base;
  ctx->uc.uc_stack.ss_size = stack.size - stack.color;
  ctx->uc.uc_link = nullptr;
  const auto a = reinterpret_cast<uintptr_t>(arg);
  const auto f = reinterpret_cast<uintptr_t>(entry);
  makecontext(&ctx->uc, reinterpret_cast<void (*)()>(&ucontext_entry), 4,
              static_cast<unsigned>(a >> 32), static_cast<unsigned>(a),
              static_cast<unsigned>(f >> 32), static_cast<unsigned>(f));
}

void fiber_switch(FiberContext* from, FiberContext* to) { swapcontext(&from->uc, &to->uc); }

#endif

}  // namespace aakaar_emu
