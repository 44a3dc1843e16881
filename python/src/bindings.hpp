#pragma once
// The parts of the extension module mlfma2d._core, each defined in its own file.
#include <pybind11/pybind11.h>

#include <mutex>
#include <utility>

namespace mlfma2d_python {

namespace py = pybind11;

void bind_errors(py::module_& m);  // errors.cpp: the exception classes and their translation
void bind_solver(py::module_& m);  // solver.cpp: Solver, direct_sum, back ends, terms_for_eps
void bind_io(py::module_& m);      // io.cpp: point-set and result files, generators
void bind_electrostatics(py::module_& m);  // electrostatics.cpp: the solve, contours, files
// distributed.cpp (a build with MPI and mpi4py): DistributedSolver over an mpi4py communicator.
void bind_distributed(py::module_& m);

/// Runs `f` (which must not touch Python objects) without the GIL while holding `mutex`: one call
/// into a library object at a time (the library's solvers keep work buffers), the lock taken
/// without the GIL so that two Python threads cannot deadlock on it.
template <class F>
auto without_gil(std::mutex& mutex, F&& f) {
  py::gil_scoped_release nogil;
  std::lock_guard<std::mutex> lock(mutex);
  return f();
}

/// The HDF5 library as Debian builds it is not thread-safe: every file operation holds this lock
/// (io.cpp).
std::mutex& file_mutex();

/// Runs `f` (which must not touch Python objects) without the GIL, one file operation at a time.
template <class F>
auto without_gil(F&& f) {
  return without_gil(file_mutex(), std::forward<F>(f));
}

}  // namespace mlfma2d_python
