// mlfma2d._core.Solver and direct_sum: the library's Solver behind NumPy arrays. The GIL is
// released while the library computes; strengths and outputs are read and written in place.
#include <pybind11/stl.h>

#include <memory>
#include <mutex>

#include "arrays.hpp"
#include "bindings.hpp"
#include "densities.hpp"
#include "fields.hpp"

namespace mlfma2d_python {

namespace {

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

  // Charges q and/or dipoles (d, v) as the options say: 1-D (n_sources,) for nd = 1, 2-D
  // (nd, n_sources); nd = 1 also takes (k, n_sources), k passes. Outputs (n_targets,) or
  // (rows, n_targets) each (densities.hpp).
  py::object evaluate(py::handle q, py::handle d, py::handle v) {
    const mlfma2d::Options& o = solver_->options();
    refuse_unused(q, o.charges, "q", "charges");
    refuse_unused(d, o.dipoles, "dipole_strengths", "dipoles");
    refuse_unused(v, o.dipoles, "dipole_vectors", "dipoles");
    if (o.dipoles && (d.is_none() || v.is_none()))
      throw mlfma2d::InvalidInput(
          "dipole_strengths and dipole_vectors are needed: the Solver was built with dipoles=True");
    const Kinds kinds{o.charges, o.dipoles, o.field, o.hessian};
    const std::size_t n = n_sources(), m = n_targets(), nd = std::size_t(o.densities);
    const SourceArrays in = source_arrays(q, d, v, kinds, n, o.densities, "");
    OutputArrays out(kinds, in.two_d, in.rows, m);
    without_gil(mutex_, [&] {
      for (std::size_t r = 0; r < in.rows; r += nd) solver_->evaluate(in.at(r, n), out.at(r, m));
    });
    return out.result(kinds);
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
  // An array for a kind of source the Solver was not built for: an error rather than ignored.
  static void refuse_unused(py::handle given, bool taken, const char* name, const char* option) {
    if (taken || given.is_none()) return;
    throw mlfma2d::InvalidInput(std::string(name) + " given, but the Solver was built with " +
                                option + "=False");
  }

  std::unique_ptr<mlfma2d::Solver> solver_;
  std::mutex mutex_;
};

// Every kind of source, the kinds taken from the arrays given; nd from their rows.
py::object direct_sum(py::handle x, py::handle y, py::handle q, py::handle d, py::handle v,
                      py::handle targets, bool field, bool hessian, py::handle which, int threads) {
  const std::vector<double> vx = to_vector(x, "x"), vy = to_vector(y, "y");
  std::vector<double> tx, ty;
  const bool self = !to_vector_pair(targets, "targets", &tx, &ty);
  const std::vector<std::size_t> rows =
      which.is_none() ? std::vector<std::size_t>{} : to_indices(which, "which");
  if (d.is_none() != v.is_none())
    throw mlfma2d::InvalidInput("direct_sum: dipole_strengths and dipole_vectors go together");
  if (q.is_none() && d.is_none())
    throw mlfma2d::InvalidInput(
        "direct_sum: no sources' strengths: give q, or dipole_strengths and dipole_vectors");
  const Kinds kinds{!q.is_none(), !d.is_none(), field, hessian};
  const SourceArrays in = source_arrays(q, d, v, kinds, vx.size(), 0, "direct_sum");
  // The library evaluates every target for an empty `which` (None, or no indices) too.
  const std::size_t m = rows.empty() ? (self ? vx.size() : tx.size()) : rows.size();
  OutputArrays out(kinds, in.two_d, in.rows, m);
  if (in.rows == 0) return out.result(kinds);  // an empty batch: nothing to sum
  mlfma2d::DirectOptions o;
  o.densities = int(in.rows);
  o.charges = kinds.charges;
  o.dipoles = kinds.dipoles;
  o.field = field;
  o.hessian = hessian;
  o.threads = threads;
  const mlfma2d::Densities sources = in.at(0, vx.size());
  const mlfma2d::Outputs outputs = out.at(0, m);
  {
    py::gil_scoped_release nogil;
    // Self-evaluation is the sources as targets: the library skips coincident pairs, as the
    // Solver does.
    mlfma2d::direct_sum(vx, vy, self ? vx : tx, self ? vy : ty, sources, o, rows, outputs);
  }
  return out.result(kinds);
}

}  // namespace

void bind_solver(py::module_& m) {
  py::class_<PySolver>(m, "Solver")
      .def(py::init<py::handle, py::handle, py::handle, const py::dict&>(), py::arg("x"),
           py::arg("y"), py::arg("targets"), py::arg("options"))
      .def("evaluate", &PySolver::evaluate, py::arg("q"), py::arg("dipole_strengths"),
           py::arg("dipole_vectors"))
      .def_property_readonly("n_sources", &PySolver::n_sources)
      .def_property_readonly("n_targets", &PySolver::n_targets)
      .def_property_readonly("field", &PySolver::field)
      .def_property_readonly("stats", &PySolver::stats)
      .def_property_readonly("options", &PySolver::options)
      .def_property_readonly("timings", &PySolver::timings)
      .def_property_readonly("warnings", &PySolver::warnings)
      .def_property_readonly("auto_choice", &PySolver::auto_choice);
  m.def("direct_sum", &direct_sum, py::arg("x"), py::arg("y"), py::arg("q"),
        py::arg("dipole_strengths"), py::arg("dipole_vectors"), py::arg("targets"),
        py::arg("field"), py::arg("hessian"), py::arg("which"), py::arg("threads"));
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
