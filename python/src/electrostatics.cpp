// mlfma2d._core's electrostatic solve: the library's ElectrostaticSolver, its contours, files,
// generators and closed forms (include/mlfma2d/electrostatics.hpp). Contours travel as seven
// arrays (x, y, offsets, closed, conductor, bulge, eps_r); the package wraps them (python/mlfma2d/
// _electrostatics.py). The GIL is released while the library discretises, builds and solves.
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "arrays.hpp"
#include "bindings.hpp"
#include "fields.hpp"
#include "mlfma2d/electrostatics.hpp"

namespace mlfma2d_python {

namespace {

// The optional per-vertex bulges and per-contour permittivities: None or empty = none.
std::vector<double> optional_vector(py::handle v, const char* name) {
  return v.is_none() ? std::vector<double>{} : to_vector(v, name);
}

mlfma2d::Contours contours_from(py::handle x, py::handle y, py::handle offsets, py::handle closed,
                                py::handle conductor, py::handle bulge, py::handle eps_r) {
  mlfma2d::Contours c;
  c.x = to_vector(x, "x");
  c.y = to_vector(y, "y");
  c.offsets = to_int64(offsets, "offsets");
  c.closed = to_int(closed, "closed", true);
  c.conductor = to_int(conductor, "conductor");
  c.bulge = optional_vector(bulge, "bulge");
  c.eps_r = optional_vector(eps_r, "eps_r");
  return c;
}

py::tuple contours_tuple(const mlfma2d::Contours& c) {
  return py::make_tuple(copy_to_numpy(c.x), copy_to_numpy(c.y), copy_to_numpy(c.offsets),
                        copy_to_numpy(c.closed), copy_to_numpy(c.conductor), copy_to_numpy(c.bulge),
                        copy_to_numpy(c.eps_r));
}

/// A solution as the library returns it; the package reads its fields through attributes.
struct PySolution {
  mlfma2d::ElectrostaticSolution s;
};

py::tuple field_tuple(mlfma2d::FieldAtTargets&& f) {
  return py::make_tuple(to_numpy(std::move(f.potential)), to_numpy(std::move(f.field_x)),
                        to_numpy(std::move(f.field_y)), f.undefined_field);
}

/// A Python progress callable, called from the solve (which runs without the GIL) with the GIL
/// taken; its first exception stops the calls and is raised when the solve returns.
struct Progress {
  py::object callback;
  std::optional<py::error_already_set> error;
  void call(const std::string& line) {
    py::gil_scoped_acquire gil;
    if (error) return;
    try {
      callback(line);
    } catch (py::error_already_set& e) {
      error.emplace(std::move(e));
    }
  }
  ~Progress() {
    py::gil_scoped_acquire gil;  // Python objects are released with the GIL held
    error.reset();
    callback = py::object();
  }
};

/// The library's ElectrostaticSolver; one call into it at a time (it keeps work buffers).
class PyElectrostaticSolver {
 public:
  PyElectrostaticSolver(const mlfma2d::Contours& contours, const py::dict& options,
                        const py::dict& fmm, const py::object& progress) {
    mlfma2d::ElectrostaticOptions o = from_dict(options, mlfma2d::ElectrostaticOptions{});
    o.fmm = from_dict(fmm, mlfma2d::ElectrostaticOptions::default_fmm());
    if (!progress.is_none()) {
      if (!PyCallable_Check(progress.ptr())) {
        throw py::type_error("progress must be a callable taking one str, got " +
                             std::string(py::repr(progress)));
      }
      progress_ = std::make_shared<Progress>();
      progress_->callback = progress;
      o.progress = [p = progress_](const std::string& line) { p->call(line); };
    }
    py::gil_scoped_release nogil;
    solver_ = std::make_unique<mlfma2d::ElectrostaticSolver>(contours, o);
  }

  PySolution solve() {
    PySolution s = without_gil(mutex_, [&] { return PySolution{solver_->solve()}; });
    if (progress_ && progress_->error) {  // the callback raised: that is the solve's exception
      py::error_already_set e = std::move(*progress_->error);
      progress_->error.reset();
      throw e;
    }
    return s;
  }

  py::tuple field(const PySolution& solution, py::handle tx, py::handle ty) {
    const std::vector<double> x = to_vector(tx, "targets[0]"), y = to_vector(ty, "targets[1]");
    return field_tuple(without_gil(mutex_, [&] { return solver_->evaluate(solution.s, x, y); }));
  }

  py::array_t<double> potential_at_panels(py::handle sigma) {
    const std::vector<double> s = to_vector(sigma, "sigma");
    return to_numpy(without_gil(mutex_, [&] { return solver_->potential_at_panels(s); }));
  }

  py::dict panels() const { return to_dict(solver_->panels(), true); }
  int conductors() const { return solver_->conductors(); }
  py::dict options() const { return to_dict(solver_->options()); }
  py::dict timings() {
    // Not while another thread's solve writes them.
    return to_dict(without_gil(mutex_, [&] { return solver_->timings(); }));
  }

 private:
  std::shared_ptr<Progress> progress_;
  std::unique_ptr<mlfma2d::ElectrostaticSolver> solver_;
  std::mutex mutex_;
};

// The solver and its solution.
void bind_electrostatic_solver(py::module_& m) {
  py::class_<PySolution> solution(m, "ElectrostaticSolution");
  bind_fields(solution, &PySolution::s);

  py::class_<PyElectrostaticSolver>(m, "ElectrostaticSolver")
      .def(py::init([](py::handle x, py::handle y, py::handle offsets, py::handle closed,
                       py::handle conductor, py::handle bulge, py::handle eps_r,
                       const py::dict& options, const py::dict& fmm, const py::object& progress) {
             return std::make_unique<PyElectrostaticSolver>(
                 contours_from(x, y, offsets, closed, conductor, bulge, eps_r), options, fmm,
                 progress);
           }),
           py::arg("x"), py::arg("y"), py::arg("offsets"), py::arg("closed"), py::arg("conductor"),
           py::arg("bulge"), py::arg("eps_r"), py::arg("options"), py::arg("fmm"),
           py::arg("progress") = py::none())
      .def("solve", &PyElectrostaticSolver::solve)
      .def("field", &PyElectrostaticSolver::field, py::arg("solution"), py::arg("tx"),
           py::arg("ty"))
      .def("potential_at_panels", &PyElectrostaticSolver::potential_at_panels, py::arg("sigma"))
      .def_property_readonly("panels", &PyElectrostaticSolver::panels)
      .def_property_readonly("conductors", &PyElectrostaticSolver::conductors)
      .def_property_readonly("options", &PyElectrostaticSolver::options)
      .def_property_readonly("timings", &PyElectrostaticSolver::timings);
  m.def("default_electrostatic_options", [] { return to_dict(mlfma2d::ElectrostaticOptions{}); });
}

// Contours: checked, generated, read and written.
void bind_contours(py::module_& m) {
  m.def("default_contour_shape", [] { return to_dict(mlfma2d::ContourShape{}); });
  m.def(
      "validate_contours",
      [](py::handle x, py::handle y, py::handle offsets, py::handle closed, py::handle conductor,
         py::handle bulge, py::handle eps_r, py::handle ground_plane_y) {
        const double y0 =
            ground_plane_y.is_none()
                ? std::nan("")
                : py::float_(py::reinterpret_borrow<py::object>(ground_plane_y)).cast<double>();
        mlfma2d::validate(contours_from(x, y, offsets, closed, conductor, bulge, eps_r), y0);
      },
      py::arg("x"), py::arg("y"), py::arg("offsets"), py::arg("closed"), py::arg("conductor"),
      py::arg("bulge") = py::none(), py::arg("eps_r") = py::none(),
      py::arg("ground_plane_y") = py::none());
  m.def("contour_shapes", &mlfma2d::contour_shapes);
  m.def("generate_contours", [](const std::string& shape, const py::dict& parameters) {
    const mlfma2d::ContourShape p = from_dict(parameters, mlfma2d::ContourShape{}, "parameter");
    return contours_tuple(mlfma2d::generate_contours(shape, p));
  });
  // (contours tuple, potentials or None, eps_r or None, ground_plane_y or None)
  m.def("read_contours", [](const std::string& path) {
    mlfma2d::ContourFile f = without_gil([&] { return mlfma2d::read_contours(path); });
    return py::make_tuple(
        contours_tuple(f.contours),
        f.potentials.empty() ? py::object(py::none()) : py::object(copy_to_numpy(f.potentials)),
        f.has_eps_r ? py::object(py::float_(f.eps_r)) : py::object(py::none()),
        f.ground_plane ? py::object(py::float_(f.ground_plane_y)) : py::object(py::none()));
  });
  m.def("write_contours",
        [](const std::string& path, py::handle x, py::handle y, py::handle offsets,
           py::handle closed, py::handle conductor, py::handle bulge, py::handle region_eps_r,
           py::handle potentials, py::handle eps_r, py::handle ground_plane_y) {
          mlfma2d::ContourFile f;
          f.contours = contours_from(x, y, offsets, closed, conductor, bulge, region_eps_r);
          if (!potentials.is_none()) f.potentials = to_vector(potentials, "potentials");
          if (!eps_r.is_none()) {
            f.eps_r = py::float_(py::reinterpret_borrow<py::object>(eps_r)).cast<double>();
            f.has_eps_r = true;
          }
          if (!ground_plane_y.is_none()) {
            f.ground_plane = true;
            f.ground_plane_y =
                py::float_(py::reinterpret_borrow<py::object>(ground_plane_y)).cast<double>();
          }
          without_gil([&] { mlfma2d::write_contours(path, f); });
        });
}

// The solution's files.
void bind_solution_files(py::module_& m) {
  m.def("write_solution", [](const std::string& path, const PySolution& solution,
                             py::handle targets, py::handle field) {
    std::vector<double> tx, ty;
    const bool with_targets = to_vector_pair(targets, "targets", &tx, &ty);
    mlfma2d::FieldAtTargets f;
    if (with_targets) {
      const Py_ssize_t n = PySequence_Check(field.ptr()) ? PySequence_Size(field.ptr()) : -1;
      if (n != 3 && n != 4) {
        PyErr_Clear();
        throw mlfma2d::InvalidInput(
            "field must be (potential, ex, ey[, undefined_field]) for the targets");
      }
      const auto items = py::reinterpret_borrow<py::sequence>(field);
      f.potential = to_vector(items[0], "field[0]");
      f.field_x = to_vector(items[1], "field[1]");
      f.field_y = to_vector(items[2], "field[2]");
      if (n == 4) f.undefined_field = items[3].cast<std::size_t>();
    }
    without_gil(
        [&] { mlfma2d::write_solution(path, solution.s, tx, ty, with_targets ? &f : nullptr); });
  });
  m.def("write_rlgc", [](const std::string& path, const PySolution& solution) {
    without_gil([&] { mlfma2d::write_rlgc(path, solution.s); });
  });
}

// The closed forms the tests and examples check against.
void bind_closed_forms(py::module_& m) {
  m.def("coax_capacitance", &mlfma2d::coax_capacitance, py::arg("a"), py::arg("b"),
        py::arg("eps_r") = 1.0);
  m.def("eccentric_coax_capacitance", &mlfma2d::eccentric_coax_capacitance, py::arg("a"),
        py::arg("b"), py::arg("e"), py::arg("eps_r") = 1.0);
  m.def("two_wire_capacitance", &mlfma2d::two_wire_capacitance, py::arg("a"), py::arg("d"),
        py::arg("eps_r") = 1.0);
  m.def("strip_sigma", &mlfma2d::strip_sigma, py::arg("x"), py::arg("w"), py::arg("charge"));
  m.attr("EPSILON_0") = mlfma2d::kEpsilon0;
}

}  // namespace

void bind_electrostatics(py::module_& m) {
  bind_electrostatic_solver(m);
  bind_contours(m);
  bind_solution_files(m);
  bind_closed_forms(m);
}

}  // namespace mlfma2d_python
