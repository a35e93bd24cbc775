// A stand-alone module holding only aakaar._C.gemm (and the thread setting),
// for working on the GEMM ladder without building the whole core. See
// build.sh next to this file.
#include <pybind11/pybind11.h>

#include "cpu/parallel.h"

void bind_gemm(pybind11::module_& m);

PYBIND11_MODULE(_C, m) {
  m.def("set_num_threads", &aakaar::set_num_threads);
  m.def("get_num_threads", &aakaar::get_num_threads);
  bind_gemm(m);
}
