// The extension module mlfma2d._core. The public Python API is the package mlfma2d
// (python/mlfma2d/), which adds keyword arguments, defaults and SciPy on top of it.
#include "bindings.hpp"
#include "fields.hpp"
#include "mlfma2d/mlfma2d.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "mlfma2d's C++ library; use the package mlfma2d, not this module";
  m.def("version", &mlfma2d::version);
  mlfma2d_python::bind_errors(m);
  mlfma2d_python::bind_solver(m);
  mlfma2d_python::bind_io(m);
  mlfma2d_python::bind_electrostatics(m);
#ifdef MLFMA2D_PYTHON_MPI
  mlfma2d_python::bind_distributed(m);
  m.attr("DISTRIBUTED") = "";
#else
  // Why DistributedSolver is absent (python/CMakeLists.txt says it at configure time too).
  m.attr("DISTRIBUTED") = MLFMA2D_PYTHON_NO_MPI;
#endif
  m.attr("FIELDS") = mlfma2d_python::field_tables();
}
