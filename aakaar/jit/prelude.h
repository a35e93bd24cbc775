// What every aakaar.jit module (a %%cpp cell, a load_inline source) sees before
// its own code: pybind11, and the library's public C++ headers, so a cell can
// take aakaar tensors (`aakaar::TensorPtr` or `const aakaar::Tensor&`: the same
// objects as in Python, no copy), dispatch on their dtype (AK_DISPATCH_FLOAT),
// split work on the library's thread pool (aakaar::parallel_for) and use its
// vectorisable math (aakaar::cpu::exp_f32, ...). The symbols come from the
// loaded aakaar._C, which the module is linked against.
#pragma once
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/dtype.h"
#include "core/error.h"
#include "core/tensor.h"
#include "cpu/parallel.h"
#include "cpu/vec_math.h"

namespace aakaar::jit {

// Thrown by the stub of a C++ exercise (aakaar.book.exercises writes
// `throw aakaar::jit::NotImplementedError("Exercise N.M: ...")`); Python sees a
// NotImplementedError, as for the Python exercises. Its text starts with a tag
// so that a stub inside a CUDA kernel is recognised too: the emulator reports a
// kernel thread's exception as a std::runtime_error naming the block and the
// thread, followed by the exception's own text.
inline constexpr const char kStubTag[] = "[aakaar.jit stub] ";

struct NotImplementedError : std::logic_error {
  explicit NotImplementedError(const std::string& what) : std::logic_error(kStubTag + what) {}
};

// Registered by the generated module: this type -> NotImplementedError (the
// tag dropped), also when it arrives inside the emulator's report of a kernel.
inline void register_translators() {
  pybind11::register_local_exception_translator([](std::exception_ptr p) {
    const std::string tag = kStubTag;
    try {
      if (p) std::rethrow_exception(p);
    } catch (const NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what() + tag.size());
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      const size_t at = what.find(tag);
      if (at == std::string::npos) throw;  // not a stub: the other translators' turn
      PyErr_SetString(PyExc_NotImplementedError, what.c_str() + at + tag.size());
    }
  });
}

}  // namespace aakaar::jit
