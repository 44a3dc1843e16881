#pragma once
// The fields of the library's public structs, by name: one line per field. to_dict() turns a
// struct into a Python dict (Solver.stats, .timings, .options, backends()); options_from_dict()
// fills Options (and the solve's settings) from the keyword arguments. A new field of Options,
// TreeStats, Timings, AutoChoice, CapacityCandidate, BackendInfo, ElectrostaticOptions,
// ElectrostaticTimings, SolveStats, MeshLevel, LineMode or ContourShape is one line here
// (python/tests/test_api.py and test_solve.py read the headers and fail when a field is missing).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <type_traits>

#include "mlfma2d/electrostatics.hpp"
#include "mlfma2d/errors.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d_python {

namespace py = pybind11;

template <class F>
void visit_fields(mlfma2d::Options& o, F&& f) {
  f("tree", o.tree);
  f("ct", o.ct);
  f("level_offset", o.level_offset);
  f("eps", o.eps);
  f("terms", o.terms);
  f("backend", o.backend);
  f("threads", o.threads);
  f("place_threads", o.place_threads);
  f("field", o.field);
  f("gpu_memory", o.gpu_memory);
  f("chunk_targets", o.chunk_targets);
  f("calibration_cache", o.calibration_cache);
  f("recalibrate", o.recalibrate);
}

template <class F>
void visit_fields(mlfma2d::Timings& t, F&& f) {
  f("tree", t.tree);
  f("plan", t.plan);
  f("setup", t.setup);
  f("choose", t.choose);
  f("device_wait", t.device_wait);
  f("p2m", t.p2m);
  f("m2m", t.m2m);
  f("m2l", t.m2l);
  f("l2l", t.l2l);
  f("l2p", t.l2p);
  f("p2l", t.p2l);
  f("m2p", t.m2p);
  f("near_collect", t.near_collect);
  f("near_transfer", t.near_transfer);
  f("near_kernel", t.near_kernel);
  f("near_return", t.near_return);
  f("near", t.near);
  f("far", t.far);
  f("total", t.total);
}

template <class F>
void visit_fields(mlfma2d::TreeStats& s, F&& f) {
  f("n_sources", s.n_sources);
  f("n_targets", s.n_targets);
  f("self", s.self);
  f("tree", s.tree);
  f("levels", s.levels);
  f("levels_ct", s.levels_ct);
  f("levels_capped", s.levels_capped);
  f("ct", s.ct);
  f("t", s.t);
  f("D", s.D);
  f("leaf_boxes", s.leaf_boxes);
  f("boxes", s.boxes);
  f("near_pairs", s.near_pairs);
  f("m2l_pairs", s.m2l_pairs);
  f("m2p_terms", s.m2p_terms);
  f("p2l_terms", s.p2l_terms);
  f("far_flops", s.far_flops);
  f("terms", s.terms);
  f("box_size", s.box_size);
  f("merged_sources", s.merged_sources);
  f("coordinate_scale", s.coordinate_scale);
  f("accuracy_floor", s.accuracy_floor);
  f("device_memory", s.device_memory);
  f("threads_placed", s.threads_placed);
}

template <class F>
void visit_fields(mlfma2d::CapacityCandidate& c, F&& f) {
  f("ct", c.ct);
  f("level_offset", c.level_offset);
  f("levels", c.levels);
  f("leaf_boxes", c.leaf_boxes);
  f("near_pairs", c.near_pairs);
  f("m2l_pairs", c.m2l_pairs);
  f("far", c.far);
  f("near", c.near);
  f("total", c.total);
}

template <class F>
void visit_fields(mlfma2d::AutoChoice& a, F&& f) {
  f("backend_chosen", a.backend_chosen);
  f("ct_chosen", a.ct_chosen);
  f("backend", a.backend);
  f("ct", a.ct);
  f("level_offset", a.level_offset);
  f("predicted_seconds", a.predicted_seconds);
  f("choose_seconds", a.choose_seconds);
  f("calibration_seconds", a.calibration_seconds);
  f("calibration", a.calibration);
  f("candidates", a.candidates);
  f("reason", a.reason);
}

template <class F>
void visit_fields(mlfma2d::BackendInfo& b, F&& f) {
  f("name", b.name);
  f("summary", b.summary);
  f("runs_on_device", b.runs_on_device);
  f("available", b.available);
  f("why", b.why);
}

// The solve's settings but `fmm` (the Solver's Options, a dict of its own).
template <class F>
void visit_fields(mlfma2d::ElectrostaticOptions& o, F&& f) {
  f("eps_r", o.eps_r);
  f("ground_plane", o.ground_plane);
  f("ground_plane_y", o.ground_plane_y);
  f("potentials", o.potentials);
  f("reference", o.reference);
  f("total_charge", o.total_charge);
  f("capacitance", o.capacitance);
  f("accuracy", o.accuracy);
  f("max_panels", o.max_panels);
  f("panels", o.panels);
  f("panel_size", o.panel_size);
  f("grading", o.grading);
  f("corner_angle", o.corner_angle);
  f("tol", o.tol);
  f("restart", o.restart);
  f("max_iterations", o.max_iterations);
  f("preconditioner", o.preconditioner);
  f("block_size", o.block_size);
  f("block_overlap", o.block_overlap);
  f("method", o.method);
  f("quadrature_nodes", o.quadrature_nodes);
  f("near_radius", o.near_radius);
}

template <class F>
void visit_fields(mlfma2d::ElectrostaticTimings& t, F&& f) {
  f("discretise", t.discretise);
  f("near", t.near);
  f("fmm_setup", t.fmm_setup);
  f("preconditioner", t.preconditioner);
  f("solve", t.solve);
  f("products", t.products);
  f("product", t.product);
  f("product_fmm", t.product_fmm);
  f("product_near", t.product_near);
  f("total", t.total);
}

template <class F>
void visit_fields(mlfma2d::SolveStats& s, F&& f) {
  f("iterations", s.iterations);
  f("residual", s.residual);
  f("history", s.history);
}

template <class F>
void visit_fields(mlfma2d::MeshLevel& m, F&& f) {
  f("panels", m.panels);
  f("change", m.change);
  f("seconds", m.seconds);
  f("iterations", m.iterations);
}

template <class F>
void visit_fields(mlfma2d::LineMode& m, F&& f) {
  f("velocity", m.velocity);
  f("eps_eff", m.eps_eff);
  f("impedance", m.impedance);
  f("voltage", m.voltage);
}

template <class F>
void visit_fields(mlfma2d::ContourShape& p, F&& f) {
  f("a", p.a);
  f("b", p.b);
  f("e", p.e);
  f("d", p.d);
  f("w", p.w);
  f("h", p.h);
  f("s", p.s);
  f("t", p.t);
  f("r1", p.r1);
  f("eps_r", p.eps_r);
  f("ground", p.ground);
  f("vertices", p.vertices);
}

template <class T>
py::dict to_dict(T value);

// A field's value for Python: a list of dicts for a list of structs, else the value itself.
template <class T>
py::object to_python(const T& field) {
  return py::cast(field);
}
template <>
inline py::object to_python(const std::vector<mlfma2d::CapacityCandidate>& field) {
  py::list l;
  for (const mlfma2d::CapacityCandidate& c : field) l.append(to_dict(c));
  return l;
}

/// \brief Every field of `value` in a dict, in declaration order.
template <class T>
py::dict to_dict(T value) {
  py::dict d;
  visit_fields(value, [&](const char* name, const auto& field) { d[name] = to_python(field); });
  return d;
}

// What a field of type T accepts, for the message when a value does not fit.
template <class T>
const char* kind_of() {
  if constexpr (std::is_same_v<T, bool>) return "True or False";
  if constexpr (std::is_same_v<T, std::string>) return "a string";
  if constexpr (std::is_same_v<T, std::vector<double>>) return "a list of numbers";
  if constexpr (std::is_floating_point_v<T>) return "a number";
  if constexpr (std::is_unsigned_v<T>) return "an integer >= 0";
  return "an integer";
}

/// \brief `value` as a T, or InvalidInput "<name> must be <kind>, got <repr>" where it is not
/// one: the module's message instead of pybind11's "incompatible function arguments".
template <class T>
T cast_argument(py::handle value, const std::string& name) {
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw mlfma2d::InvalidInput(name + " must be " + kind_of<T>() + ", got " +
                                std::string(py::repr(value)));
  }
}

/// \brief `base` with the keys of `given` set. An unknown key, or a value its field cannot
/// hold, throws InvalidInput naming the `what` ("option", "parameter").
template <class T>
T from_dict(const py::dict& given, T base, const char* what = "option") {
  for (auto item : given) {
    const std::string key = py::str(item.first);
    bool known = false;
    visit_fields(base, [&](const char* name, auto&) { known = known || key == name; });
    if (!known) throw mlfma2d::InvalidInput("unknown " + std::string(what) + " '" + key + "'");
  }
  visit_fields(base, [&](const char* name, auto& field) {
    if (!given.contains(name)) return;
    using F = std::decay_t<decltype(field)>;
    field = cast_argument<F>(given[name], std::string(what) + " " + name);
  });
  return base;
}

/// \brief Options with the keys of `given` set; the others keep the library's defaults.
inline mlfma2d::Options options_from_dict(const py::dict& given) {
  return from_dict(given, mlfma2d::Options{});
}

}  // namespace mlfma2d_python
