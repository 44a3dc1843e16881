#pragma once
// The parts of the extension module mlfma2d._core, each defined in its own file.
#include <pybind11/pybind11.h>

namespace mlfma2d_python {

namespace py = pybind11;

void bind_errors(py::module_& m);  // errors.cpp: the exception classes and their translation
void bind_solver(py::module_& m);  // solver.cpp: Solver, direct_sum, back ends, terms_for_eps
void bind_io(py::module_& m);      // io.cpp: point-set and result files, generators

}  // namespace mlfma2d_python
