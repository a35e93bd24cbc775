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
// NotImplementedError, as for the Python exercises.
struct NotImplementedError : std::logic_error {
  using std::logic_error::logic_error;
};

// Registered by the generated module: this type -> NotImplementedError.
inline void register_translators() {
  pybind11::register_local_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    }
  });
}

}  // namespace aakaar::jit
