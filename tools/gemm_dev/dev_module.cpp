// A stand-alone module holding only aakaar._C.gemm, for working on the GEMM
// ladder without building the whole core. See build.sh next to this file.
#include <pybind11/pybind11.h>

void bind_gemm(pybind11::module_& m);

PYBIND11_MODULE(_C, m) { bind_gemm(m); }
