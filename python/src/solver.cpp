// mlfma2d._core.Solver and direct_sum: the library's Solver behind NumPy arrays. The GIL is
// released while the library computes; charges and outputs are read and written in place.
#include <pybind11/stl.h>

#include <memory>
#include <mutex>

#include "arrays.hpp"
#include "bindings.hpp"
#include "fields.hpp"

namespace mlfma2d_python {

namespace {

// Outputs of one evaluation (or a batch): potential, and the field when the solver computes it.
// Rows of a batch are contiguous, so row r starts at r * n_targets.
struct Outputs {
  CArray potential, ex, ey;

  Outputs(const std::vector<py::ssize_t>& shape, bool field) : potential(shape) {
    if (field) {
      ex = CArray(shape);
      ey = CArray(shape);
    }
  }
  py::object result(bool field) const {
    if (field) return py::make_tuple(potential, ex, ey);
    return potential;
  }
};

/// The library's Solver, owned by the Python object. One evaluation at a time: the library's
/// Solver keeps per-evaluation buffers, and with the GIL released two Python threads could
/// otherwise enter it together.
class PySolver {
 public:
  PySolver(py::handle x, py::handle y, py::handle targets, const py::dict& options) {
    const mlfma2d::Options opt = options_from_dict(options);
    std::vector<double> vx = to_vector(x, "x"), vy = to_vector(y, "y");
    std::vector<double> tx, ty;
    const bool separate = to_vector_pair(targets, "targets", &tx, &ty);
    py::gil_scoped_release nogil;  // tree, plan and back-end set-up
    solver_ = separate ? std::make_unique<mlfma2d::Solver>(vx, vy, tx, ty, opt)
                       : std::make_unique<mlfma2d::Solver>(vx, vy, opt);
  }

  std::size_t n_sources() const { return solver_->stats().n_sources; }
  std::size_t n_targets() const { return solver_->stats().n_targets; }
  bool field() const { return solver_->options().field; }

  // q: (n_sources,) or (k, n_sources) -> outputs (n_targets,) or (k, n_targets).
  py::object evaluate(py::handle q_obj) {
    const CArray q = real_array(q_obj, "q", 1, 2);
    const std::size_t n = n_sources(), m = n_targets();
    const bool batch = q.ndim() == 2;
    const std::size_t per_row = std::size_t(q.shape(q.ndim() - 1));
    if (per_row != n) {
      // The library's own message for a charge vector of the wrong length.
      throw mlfma2d::InvalidInput("expected " + std::to_string(n) + " charges" +
                                  (batch ? " per row" : "") + ", got " + std::to_string(per_row));
    }
    const std::size_t rows = batch ? std::size_t(q.shape(0)) : 1;
    std::vector<py::ssize_t> shape{py::ssize_t(m)};
    if (batch) shape.insert(shape.begin(), py::ssize_t(rows));
    const bool with_field = field();
    Outputs out(shape, with_field);
    const double* qp = q.data();
    double* phi = out.potential.mutable_data();
    double* ex = with_field ? out.ex.mutable_data() : nullptr;
    double* ey = with_field ? out.ey.mutable_data() : nullptr;
    without_gil(mutex_, [&] {
      for (std::size_t r = 0; r < rows; ++r) {
        solver_->evaluate(qp + r * n, phi + r * m, ex ? ex + r * m : nullptr,
                          ey ? ey + r * m : nullptr);
      }
    });
    return out.result(with_field);
  }

  py::dict stats() const { return to_dict(solver_->stats()); }
  py::dict options() const { return to_dict(solver_->options()); }
  py::dict timings() {
    // Not while another thread's evaluate writes them.
    return to_dict(without_gil(mutex_, [&] { return solver_->timings(); }));
  }
  std::vector<std::string> warnings() const { return solver_->warnings(); }
  py::dict auto_choice() const { return to_dict(solver_->auto_choice()); }

 private:
  std::unique_ptr<mlfma2d::Solver> solver_;
  std::mutex mutex_;
};

py::object direct_sum(py::handle x, py::handle y, py::handle q, py::handle targets, bool field,
                      py::handle which, int threads) {
  const std::vector<double> vx = to_vector(x, "x"), vy = to_vector(y, "y"), vq = to_vector(q, "q");
  std::vector<double> tx, ty;
  const bool self = !to_vector_pair(targets, "targets", &tx, &ty);
  const std::vector<std::size_t> rows =
      which.is_none() ? std::vector<std::size_t>{} : to_indices(which, "which");
  std::vector<double> phi, ex, ey;
  {
    py::gil_scoped_release nogil;
    // Self-evaluation is the sources as targets: the library skips coincident pairs, as the
    // Solver does.
    mlfma2d::direct_sum(vx, vy, vq, self ? vx : tx, self ? vy : ty, rows, &phi,
                        field ? &ex : nullptr, field ? &ey : nullptr, threads);
  }
  if (field)
    return py::make_tuple(to_numpy(std::move(phi)), to_numpy(std::move(ex)),
                          to_numpy(std::move(ey)));
  return to_numpy(std::move(phi));
}

}  // namespace

void bind_solver(py::module_& m) {
  py::class_<PySolver>(m, "Solver")
      .def(py::init<py::handle, py::handle, py::handle, const py::dict&>(), py::arg("x"),
           py::arg("y"), py::arg("targets"), py::arg("options"))
      .def("evaluate", &PySolver::evaluate, py::arg("q"))
      .def_property_readonly("n_sources", &PySolver::n_sources)
      .def_property_readonly("n_targets", &PySolver::n_targets)
      .def_property_readonly("field", &PySolver::field)
      .def_property_readonly("stats", &PySolver::stats)
      .def_property_readonly("options", &PySolver::options)
      .def_property_readonly("timings", &PySolver::timings)
      .def_property_readonly("warnings", &PySolver::warnings)
      .def_property_readonly("auto_choice", &PySolver::auto_choice);
  m.def("direct_sum", &direct_sum, py::arg("x"), py::arg("y"), py::arg("q"), py::arg("targets"),
        py::arg("field"), py::arg("which"), py::arg("threads"));
  m.def("default_options", [] { return to_dict(mlfma2d::Options{}); });
  m.def("terms_for_eps", &mlfma2d::terms_for_eps, py::arg("eps"));
  m.def("error_norms", [](py::handle value, py::handle reference) {
    return to_dict(
        mlfma2d::error_norms(to_vector(value, "value"), to_vector(reference, "reference")));
  });
  m.def(
      "start_device", [](const std::string& backend) { mlfma2d::start_device(backend); },
      py::arg("backend"));
  m.def("wait_for_device", [] {
    const py::gil_scoped_release unlocked;
    mlfma2d::wait_for_device();
  });
  m.def("backends", [] {
    py::dict d;
    for (const mlfma2d::BackendInfo& info : mlfma2d::near_field_backend_info())
      d[info.name.c_str()] = to_dict(info);
    return d;
  });
  m.attr("MAX_TERMS") = mlfma2d::kMaxTerms;
  m.attr("MAX_LEVELS") = mlfma2d::kMaxLevels;
  m.attr("PAPERS_CT") = mlfma2d::kPapersCapacity;
}

}  // namespace mlfma2d_python
