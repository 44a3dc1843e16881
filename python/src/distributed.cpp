// mlfma2d._core.DistributedSolver: the library's DistributedSolver over the ranks of an mpi4py
// communicator (docs/python.md, docs/distributed.md). Built only with MPI and mpi4py's C API
// (python/CMakeLists.txt). Every call is collective, as in C++: every rank calls it, in the same
// order, with the same batch shape. The GIL is released while the library computes (MPI is called
// from the calling thread: MPI_THREAD_FUNNELED suffices, mpi4py's default is more).
#include <mpi.h>
// mpi4py's C API: PyMPIComm_Type, PyMPIComm_Get.
#include <mpi4py/mpi4py.h>
#include <pybind11/stl.h>

#include <exception>
#include <memory>
#include <mutex>
#include <optional>

#include "arrays.hpp"
#include "bindings.hpp"
#include "densities.hpp"
#include "fields.hpp"
#include "mlfma2d/distributed.hpp"

namespace mlfma2d_python {

namespace {

// The MPI_Comm behind an mpi4py communicator (TypeError for anything else).
MPI_Comm communicator(py::handle comm) {
  static const bool imported = import_mpi4py() == 0;
  if (!imported) throw py::error_already_set();
  if (!PyObject_TypeCheck(comm.ptr(), &PyMPIComm_Type)) {
    throw py::type_error(
        "comm: an mpi4py communicator (mpi4py.MPI.Comm, e.g. MPI.COMM_WORLD), not " +
        std::string(py::str(py::type::of(comm).attr("__name__"))));
  }
  MPI_Comm* c = PyMPIComm_Get(comm.ptr());
  if (!c) throw py::error_already_set();
  return *c;
}

// Runs f, then agrees on its error over comm (mlfma2d::collectively: every rank throws the lowest
// failing rank's), except that a Python error of this rank (a TypeError) is raised as itself.
template <class F>
void agreed(MPI_Comm comm, F&& f) {
  std::exception_ptr error;
  bool python = false;
  try {
    f();
  } catch (const mlfma2d::Error&) {
    error = std::current_exception();
  } catch (...) {
    error = std::current_exception();
    python = true;
  }
  try {
    mlfma2d::agree_on_errors(comm, error);
  } catch (...) {
    if (python) std::rethrow_exception(error);
    throw;
  }
}

class PyDistributedSolver {
 public:
  PyDistributedSolver(py::handle comm, py::handle x, py::handle y, py::handle targets,
                      const py::dict& options) {
    const MPI_Comm c = communicator(comm);
    mlfma2d::Options opt;
    std::vector<double> vx, vy, tx, ty;
    bool separate = false;
    agreed(c, [&] {
      opt = options_from_dict(options);
      vx = to_vector(x, "x");
      vy = to_vector(y, "y");
      separate = to_vector_pair(targets, "targets", &tx, &ty);
    });
    MPI_Comm_dup(c, &comm_);       // for the agreement in evaluate (the caller may free theirs)
    py::gil_scoped_release nogil;  // the tree over the ranks, the partition, the plan
    solver_ = separate ? std::make_unique<mlfma2d::DistributedSolver>(c, vx, vy, tx, ty, opt)
                       : std::make_unique<mlfma2d::DistributedSolver>(c, vx, vy, opt);
  }
  ~PyDistributedSolver() {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (!finalised && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  PyDistributedSolver(const PyDistributedSolver&) = delete;
  PyDistributedSolver& operator=(const PyDistributedSolver&) = delete;

  std::size_t n_sources() const { return solver_->figures().caller_sources; }
  std::size_t n_targets() const { return solver_->figures().caller_targets; }

  // As Solver.evaluate (solver.cpp): this rank's strengths in, the outputs at its targets out;
  // a batch of k rows is k evaluations, so every rank passes the same k.
  py::object evaluate(py::handle q, py::handle d, py::handle v) {
    const mlfma2d::Options& o = solver_->options();
    const Kinds kinds{o.charges, o.dipoles, o.field, o.hessian};
    const std::size_t n = n_sources(), m = n_targets(), nd = std::size_t(o.densities);
    std::optional<SourceArrays> in;
    std::optional<OutputArrays> out;
    // A bad argument on one rank fails every rank: the others would wait in the evaluation.
    agreed(comm_, [&] {
      if (!o.charges && !q.is_none())
        throw mlfma2d::InvalidInput("q given, but the solver was built with charges=False");
      if (!o.dipoles && (!d.is_none() || !v.is_none()))
        throw mlfma2d::InvalidInput("dipoles given, but the solver was built with dipoles=False");
      in.emplace(source_arrays(q, d, v, kinds, n, o.densities, ""));
      out.emplace(kinds, in->two_d, in->rows, m);
    });
    without_gil(mutex_, [&] {
      for (std::size_t r = 0; r < in->rows; r += nd) solver_->evaluate(in->at(r, n), out->at(r, m));
    });
    return out->result(kinds);
  }

  py::dict figures() const { return to_dict(solver_->figures()); }
  py::list gather_figures(int root) {
    const std::vector<mlfma2d::DistributedFigures> all =
        without_gil(mutex_, [&] { return solver_->gather_figures(root); });
    py::list out;
    for (const mlfma2d::DistributedFigures& f : all) out.append(to_dict(f));
    return out;
  }
  py::dict stats() const { return to_dict(solver_->stats()); }
  py::dict options() const { return to_dict(solver_->options()); }
  py::dict timings() const { return to_dict(solver_->timings()); }
  std::vector<std::string> warnings() const { return solver_->warnings(); }
  py::dict auto_choice() const { return to_dict(solver_->auto_choice()); }

 private:
  std::unique_ptr<mlfma2d::DistributedSolver> solver_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::mutex mutex_;
};

}  // namespace

void bind_distributed(py::module_& m) {
  py::class_<PyDistributedSolver>(m, "DistributedSolver")
      .def(py::init<py::handle, py::handle, py::handle, py::handle, const py::dict&>(),
           py::arg("comm"), py::arg("x"), py::arg("y"), py::arg("targets"), py::arg("options"))
      .def("evaluate", &PyDistributedSolver::evaluate, py::arg("q"), py::arg("dipole_strengths"),
           py::arg("dipole_vectors"))
      .def("gather_figures", &PyDistributedSolver::gather_figures, py::arg("root"))
      .def_property_readonly("n_sources", &PyDistributedSolver::n_sources)
      .def_property_readonly("n_targets", &PyDistributedSolver::n_targets)
      .def_property_readonly("figures", &PyDistributedSolver::figures)
      .def_property_readonly("stats", &PyDistributedSolver::stats)
      .def_property_readonly("options", &PyDistributedSolver::options)
      .def_property_readonly("timings", &PyDistributedSolver::timings)
      .def_property_readonly("warnings", &PyDistributedSolver::warnings)
      .def_property_readonly("auto_choice", &PyDistributedSolver::auto_choice);
}

}  // namespace mlfma2d_python
