// mlfma2d._core's electrostatic solve: the library's ElectrostaticSolver, its contours, files,
// generators and closed forms (include/mlfma2d/electrostatics.hpp). Contours travel as five
// arrays (x, y, offsets, closed, conductor); the package wraps them (python/mlfma2d/
// _electrostatics.py). The GIL is released while the library discretises, builds and solves.
#include <pybind11/stl.h>

#include <memory>
#include <mutex>

#include "arrays.hpp"
#include "bindings.hpp"
#include "fields.hpp"
#include "mlfma2d/electrostatics.hpp"

namespace mlfma2d_python {

namespace {

mlfma2d::Contours contours_from(py::handle x, py::handle y, py::handle offsets, py::handle closed,
                                py::handle conductor) {
  mlfma2d::Contours c;
  c.x = to_vector(x, "x");
  c.y = to_vector(y, "y");
  c.offsets = to_int64(offsets, "offsets");
  c.closed = to_int(closed, "closed", true);
  c.conductor = to_int(conductor, "conductor");
  return c;
}

py::tuple contours_tuple(const mlfma2d::Contours& c) {
  return py::make_tuple(copy_to_numpy(c.x), copy_to_numpy(c.y), copy_to_numpy(c.offsets),
                        copy_to_numpy(c.closed), copy_to_numpy(c.conductor));
}

// The row-major (K-1)x(K-1) capacitance as a 2-D array.
py::array_t<double> matrix(const std::vector<std::vector<double>>& rows) {
  const py::ssize_t n = py::ssize_t(rows.size());
  py::array_t<double> a({n, n});
  auto w = a.mutable_unchecked<2>();
  for (py::ssize_t i = 0; i < n; ++i)
    for (py::ssize_t j = 0; j < n; ++j) w(i, j) = rows[std::size_t(i)][std::size_t(j)];
  return a;
}

py::dict panels_dict(const mlfma2d::Panels& p) {
  py::dict d;
  d["x0"] = copy_to_numpy(p.x0);
  d["y0"] = copy_to_numpy(p.y0);
  d["x1"] = copy_to_numpy(p.x1);
  d["y1"] = copy_to_numpy(p.y1);
  d["x"] = copy_to_numpy(p.x);
  d["y"] = copy_to_numpy(p.y);
  d["length"] = copy_to_numpy(p.length);
  d["contour"] = copy_to_numpy(p.contour);
  d["conductor"] = copy_to_numpy(p.conductor);
  return d;
}

/// A solution as the library returns it; the package reads its fields through properties.
struct PySolution {
  mlfma2d::ElectrostaticSolution s;
};

py::tuple field_tuple(mlfma2d::FieldAtTargets&& f) {
  return py::make_tuple(to_numpy(std::move(f.potential)), to_numpy(std::move(f.field_x)),
                        to_numpy(std::move(f.field_y)));
}

/// The library's ElectrostaticSolver; one call into it at a time (it keeps work buffers).
class PyElectrostaticSolver {
 public:
  PyElectrostaticSolver(const mlfma2d::Contours& contours, const py::dict& options,
                        const py::dict& fmm) {
    mlfma2d::ElectrostaticOptions o = from_dict(options, mlfma2d::ElectrostaticOptions{});
    o.fmm = from_dict(fmm, mlfma2d::ElectrostaticOptions::default_fmm());
    py::gil_scoped_release nogil;
    solver_ = std::make_unique<mlfma2d::ElectrostaticSolver>(contours, o);
  }

  PySolution solve() {
    return without_gil(mutex_, [&] { return PySolution{solver_->solve()}; });
  }

  py::tuple field(const PySolution& solution, py::handle tx, py::handle ty) {
    const std::vector<double> x = to_vector(tx, "targets[0]"), y = to_vector(ty, "targets[1]");
    return field_tuple(without_gil(mutex_, [&] { return solver_->evaluate(solution.s, x, y); }));
  }

  py::array_t<double> potential_at_panels(py::handle sigma) {
    const std::vector<double> s = to_vector(sigma, "sigma");
    return to_numpy(without_gil(mutex_, [&] { return solver_->potential_at_panels(s); }));
  }

  py::dict panels() const { return panels_dict(solver_->panels()); }
  int conductors() const { return solver_->conductors(); }
  py::dict options() const {
    mlfma2d::ElectrostaticOptions o = solver_->options();
    py::dict d = to_dict(o);
    d["fmm"] = to_dict(o.fmm);
    return d;
  }
  py::dict timings() {
    // Not while another thread's solve writes them.
    return to_dict(without_gil(mutex_, [&] { return solver_->timings(); }));
  }

 private:
  std::unique_ptr<mlfma2d::ElectrostaticSolver> solver_;
  std::mutex mutex_;
};

}  // namespace

void bind_electrostatics(py::module_& m) {
  using S = PySolution;
  py::class_<S>(m, "ElectrostaticSolution")
      .def_property_readonly("sigma", [](const S& s) { return copy_to_numpy(s.s.sigma); })
      .def_property_readonly("charge", [](const S& s) { return copy_to_numpy(s.s.charge); })
      .def_property_readonly("potentials", [](const S& s) { return copy_to_numpy(s.s.potentials); })
      .def_property_readonly("offset", [](const S& s) { return s.s.offset; })
      .def_property_readonly("eps_r", [](const S& s) { return s.s.eps_r; })
      .def_property_readonly("reference", [](const S& s) { return s.s.reference; })
      .def_property_readonly("capacitance", [](const S& s) { return matrix(s.s.capacitance); })
      .def_property_readonly("capacitance_conductors",
                             [](const S& s) { return copy_to_numpy(s.s.capacitance_conductors); })
      .def_property_readonly("panels", [](const S& s) { return panels_dict(s.s.panels); })
      .def_property_readonly("solves",
                             [](const S& s) {
                               py::list l;
                               for (const mlfma2d::SolveStats& st : s.s.solves)
                                 l.append(to_dict(st));
                               return l;
                             })
      .def_property_readonly("iterations", [](const S& s) { return s.s.iterations; })
      .def_property_readonly("residual", [](const S& s) { return s.s.residual; })
      .def_property_readonly("timings", [](const S& s) { return to_dict(s.s.timings); })
      .def_property_readonly("fmm_stats", [](const S& s) { return to_dict(s.s.fmm_stats); })
      .def_property_readonly("fmm_backend", [](const S& s) { return s.s.fmm_backend; })
      .def_property_readonly("fmm_eps", [](const S& s) { return s.s.fmm_eps; })
      .def_property_readonly("preconditioner", [](const S& s) { return s.s.preconditioner; });

  py::class_<PyElectrostaticSolver>(m, "ElectrostaticSolver")
      .def(py::init([](py::handle x, py::handle y, py::handle offsets, py::handle closed,
                       py::handle conductor, const py::dict& options, const py::dict& fmm) {
             return std::make_unique<PyElectrostaticSolver>(
                 contours_from(x, y, offsets, closed, conductor), options, fmm);
           }),
           py::arg("x"), py::arg("y"), py::arg("offsets"), py::arg("closed"), py::arg("conductor"),
           py::arg("options"), py::arg("fmm"))
      .def("solve", &PyElectrostaticSolver::solve)
      .def("field", &PyElectrostaticSolver::field, py::arg("solution"), py::arg("tx"),
           py::arg("ty"))
      .def("potential_at_panels", &PyElectrostaticSolver::potential_at_panels, py::arg("sigma"))
      .def_property_readonly("panels", &PyElectrostaticSolver::panels)
      .def_property_readonly("conductors", &PyElectrostaticSolver::conductors)
      .def_property_readonly("options", &PyElectrostaticSolver::options)
      .def_property_readonly("timings", &PyElectrostaticSolver::timings);

  m.def("default_electrostatic_options", [] {
    mlfma2d::ElectrostaticOptions o;
    py::dict d = to_dict(o);
    d["fmm"] = to_dict(o.fmm);
    return d;
  });
  m.def("default_contour_shape", [] { return to_dict(mlfma2d::ContourShape{}); });
  m.def("validate_contours", [](py::handle x, py::handle y, py::handle offsets, py::handle closed,
                                py::handle conductor) {
    mlfma2d::validate(contours_from(x, y, offsets, closed, conductor));
  });
  m.def("contour_shapes", &mlfma2d::contour_shapes);
  m.def("generate_contours", [](const std::string& shape, const py::dict& parameters) {
    const mlfma2d::ContourShape p = from_dict(parameters, mlfma2d::ContourShape{}, "parameter");
    return contours_tuple(mlfma2d::generate_contours(shape, p));
  });
  // (contours tuple, potentials or None, eps_r or None)
  m.def("read_contours", [](const std::string& path) {
    mlfma2d::ContourFile f = without_gil([&] { return mlfma2d::read_contours(path); });
    return py::make_tuple(
        contours_tuple(f.contours),
        f.potentials.empty() ? py::object(py::none()) : py::object(copy_to_numpy(f.potentials)),
        f.has_eps_r ? py::object(py::float_(f.eps_r)) : py::object(py::none()));
  });
  m.def("write_contours",
        [](const std::string& path, py::handle x, py::handle y, py::handle offsets,
           py::handle closed, py::handle conductor, py::handle potentials, py::handle eps_r) {
          mlfma2d::ContourFile f;
          f.contours = contours_from(x, y, offsets, closed, conductor);
          if (!potentials.is_none()) f.potentials = to_vector(potentials, "potentials");
          if (!eps_r.is_none()) {
            f.eps_r = py::float_(py::reinterpret_borrow<py::object>(eps_r)).cast<double>();
            f.has_eps_r = true;
          }
          without_gil([&] { mlfma2d::write_contours(path, f); });
        });
  m.def("write_solution", [](const std::string& path, const PySolution& solution,
                             py::handle targets, py::handle field) {
    std::vector<double> tx, ty;
    const bool with_targets = to_vector_pair(targets, "targets", &tx, &ty);
    mlfma2d::FieldAtTargets f;
    if (with_targets) {
      if (!PySequence_Check(field.ptr()) || PySequence_Size(field.ptr()) != 3) {
        PyErr_Clear();
        throw mlfma2d::InvalidInput("field must be (potential, ex, ey) for the targets");
      }
      const auto items = py::reinterpret_borrow<py::sequence>(field);
      f.potential = to_vector(items[0], "field[0]");
      f.field_x = to_vector(items[1], "field[1]");
      f.field_y = to_vector(items[2], "field[2]");
    }
    without_gil(
        [&] { mlfma2d::write_solution(path, solution.s, tx, ty, with_targets ? &f : nullptr); });
  });
  m.def("coax_capacitance", &mlfma2d::coax_capacitance, py::arg("a"), py::arg("b"),
        py::arg("eps_r") = 1.0);
  m.def("eccentric_coax_capacitance", &mlfma2d::eccentric_coax_capacitance, py::arg("a"),
        py::arg("b"), py::arg("e"), py::arg("eps_r") = 1.0);
  m.def("two_wire_capacitance", &mlfma2d::two_wire_capacitance, py::arg("a"), py::arg("d"),
        py::arg("eps_r") = 1.0);
  m.def("strip_sigma", &mlfma2d::strip_sigma, py::arg("x"), py::arg("w"), py::arg("charge"));
  m.attr("EPSILON_0") = mlfma2d::kEpsilon0;
}

}  // namespace mlfma2d_python
