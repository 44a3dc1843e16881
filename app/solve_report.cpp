#include "app/solve_report.hpp"

#include <algorithm>
#include <cmath>

#include "mlfma2d/mlfma2d.hpp"
#include "runtime/text.hpp"

namespace mlfma2d::app {

using nlohmann::json;

namespace {

constexpr double kSpeedOfLight = 299792458.0;  // m/s, exact
const json kAbsent = json(json::value_t::discarded);

using R = const SolveRun&;
using F = const SolveField&;

json finite_or_null(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

// NaN (a field at a panel end) as JSON null, explicitly.
json finite_or_null(const std::vector<double>& v) {
  json out = json::array();
  for (double x : v) out.push_back(finite_or_null(x));
  return out;
}

// The single-line figures (Z0, eps_eff, velocity) exist for one signal conductor only, and only
// when the line parameters were computed (L is there).
bool one_signal(R r) {
  return r.solution.capacitance.size() == 1 && r.solution.line.inductance.size() == 1;
}

json when(bool present, const json& v) {
  return present ? v : kAbsent;
}

std::string number(double v, const char* spec = "%.8g") {
  return std::isfinite(v) ? format(spec, v) : std::string("-");
}

std::string heading(const char* label) {
  return format("%-18s", label);
}

// A matrix over the signal conductors: a head row of their numbers, then one row each; the
// diagonal shown as "-" when `off_diagonal`.
std::string matrix_text(R r, F f, const json& m, bool off_diagonal = false) {
  if (!m.is_array() || m.empty()) return "";
  const std::vector<int>& k = r.solution.capacitance_conductors;
  auto name = [&](std::size_t i) { return i < k.size() ? std::to_string(k[i]) : std::string("?"); };
  std::string out = std::string(f.label) + " (" + f.text_unit + "):\n" + std::string(10, ' ');
  for (std::size_t j = 0; j < m.size(); ++j) out += format("%16s", name(j).c_str());
  out += "\n";
  for (std::size_t i = 0; i < m.size(); ++i) {
    out += format("%10s", name(i).c_str());
    for (std::size_t j = 0; j < m[i].size(); ++j) {
      const double v = m[i][j].is_number() ? m[i][j].get<double>() : NAN;
      out += format("%16s", off_diagonal && i == j ? "-" : number(v * f.text_scale).c_str());
    }
    out += "\n";
  }
  return out;
}

// The generic text of a field: "label  value unit", a list of values, or a matrix.
std::string generic_text(R r, F f, const json& v) {
  if (v.is_discarded() || v.is_null()) return "";
  std::string value;
  if (v.is_string()) {
    value = v.get<std::string>();
    if (value.empty()) return "";
  } else if (v.is_boolean()) {
    value = v.get<bool>() ? "yes" : "no";
  } else if (v.is_number_integer()) {
    value = std::to_string(v.get<long long>());
  } else if (v.is_number()) {
    value = number(v.get<double>() * f.text_scale);
  } else if (v.is_array() && !v.empty() && v[0].is_array()) {
    return matrix_text(r, f, v);
  } else if (v.is_array()) {
    if (v.empty()) return "";
    for (const json& x : v) {
      value += (value.empty() ? "" : "  ") +
               (x.is_number() ? number(x.get<double>() * f.text_scale) : x.dump());
    }
  } else {
    value = v.dump();
  }
  return heading(f.label) + value + (*f.text_unit ? std::string(" ") + f.text_unit : "") + "\n";
}

// The reference: the ground plane, a conductor, or none (one conductor with a given charge).
bool has_reference(const ElectrostaticSolution& s) {
  return s.ground_plane || s.charge.size() >= 2;
}

std::string reference_text(R r, F f) {
  const int k = r.solution.reference;
  return heading(f.label) +
         (!has_reference(r.solution) ? std::string("none (one conductor, its charge given)")
          : k < 0                    ? std::string("the ground plane")
                                     : "conductor " + std::to_string(k)) +
         "\n";
}

std::string ground_plane_text(R r, F f) {
  if (!r.solution.ground_plane) return "";
  return heading(f.label) + "y = " + number(r.solution.ground_plane_y, "%g") +
         " m (metal below, 0 V)\n";
}

std::string method_text(R r, F f) {
  const ElectrostaticSolution& s = r.solution;
  const ElectrostaticOptions& o = r.options;
  std::string out = heading(f.label) + o.method;
  if (o.method == "fmm") {
    out += ", preconditioner " + s.preconditioner;
    if (s.preconditioner == "block") {
      out += format(" (%d panels + %d either side)", o.block_size, o.block_overlap);
    }
    out += format(", FMM %s eps %g (p = %d, %s tree, L = %d)", s.fmm_backend.c_str(), s.fmm_eps,
                  s.fmm_stats.terms, s.fmm_stats.tree.c_str(), s.fmm_stats.levels);
  }
  return out + "\n";
}

json fmm_json(R r) {
  const ElectrostaticSolution& s = r.solution;
  return {{"backend", s.fmm_backend},
          {"eps", s.fmm_eps},
          {"terms", s.fmm_stats.terms},
          {"tree", s.fmm_stats.tree},
          {"levels", s.fmm_stats.levels},
          {"ct", s.fmm_stats.ct},
          {"level_offset", r.options.fmm.level_offset},
          {"sources", s.fmm_stats.n_sources},
          {"targets", s.fmm_stats.n_targets}};
}

std::string mutual_text(R r, F f) {
  const auto& m = r.solution.line.capacitance_mutual;
  return m.size() > 1 ? matrix_text(r, f, json(m), true) : std::string();
}

std::string velocity_text(R r, F f) {
  if (!one_signal(r)) return "";
  const double v = r.solution.line.velocity;
  return heading(f.label) + number(v, "%.8g") + " m/s (" + number(v / kSpeedOfLight, "%.6f") +
         " c)\n";
}

json modes_json(R r) {
  json modes = json::array();
  const std::vector<LineMode>& m = r.solution.line.modes;
  for (std::size_t i = 0; i < m.size(); ++i) {
    modes.push_back({{"label", mode_label(r.solution, i)},
                     {"velocity", finite_or_null(m[i].velocity)},
                     {"velocity_over_c", finite_or_null(m[i].velocity / kSpeedOfLight)},
                     {"eps_eff", finite_or_null(m[i].eps_eff)},
                     {"impedance", finite_or_null(m[i].impedance)},
                     {"voltage", m[i].voltage}});
  }
  return modes;
}

std::string modes_text(R r, F f) {
  const std::vector<LineMode>& m = r.solution.line.modes;
  if (m.empty() || one_signal(r)) return "";
  const char* row = "%-8s %14s %9s %10s %10s  %s\n";
  std::string out =
      heading(f.label) + format(row, "", "velocity (m/s)", "(c)", "eps_eff", "Z (ohm)", "voltages");
  for (std::size_t i = 0; i < m.size(); ++i) {
    std::string v;
    for (double x : m[i].voltage) v += (v.empty() ? "" : ", ") + number(x, "%.4g");
    out += heading("") + format(row, mode_label(r.solution, i).c_str(),
                                number(m[i].velocity, "%.6g").c_str(),
                                number(m[i].velocity / kSpeedOfLight, "%.6f").c_str(),
                                number(m[i].eps_eff, "%.6g").c_str(),
                                number(m[i].impedance, "%.6g").c_str(), v.c_str());
  }
  return out;
}

json accuracy_json(R r) {
  const ElectrostaticSolution& s = r.solution;
  return {{"target", r.options.accuracy > 0 ? json(r.options.accuracy) : json(nullptr)},
          {"estimate", finite_or_null(s.accuracy_estimate)},
          {"met", accuracy_met(r)},
          {"text", accuracy_text(r)}};
}

std::string accuracy_line(R r, F f) {
  return heading(f.label) + accuracy_text(r) + "\n";
}

json meshes_json(R r) {
  json meshes = json::array();
  for (const MeshLevel& m : r.solution.meshes) {
    meshes.push_back({{"panels", m.panels},
                      {"change", finite_or_null(m.change)},
                      {"iterations", m.iterations},
                      {"seconds", m.seconds}});
  }
  return meshes;
}

std::string meshes_text(R r, F f) {
  if (r.solution.meshes.empty()) return "";
  const char* row = "%10s %12s %11s %10s\n";
  std::string out = heading(f.label) + format(row, "panels", "change", "iterations", "seconds");
  for (const MeshLevel& m : r.solution.meshes) {
    out += heading("") +
           format(row, std::to_string(m.panels).c_str(), number(m.change, "%.3g").c_str(),
                  std::to_string(m.iterations).c_str(), number(m.seconds, "%.3g").c_str());
  }
  return out;
}

std::string conductors_text(R r, F f) {
  const ElectrostaticSolution& s = r.solution;
  std::string out = heading(f.label) + format("%12s %16s  %s\n", "V (V)", "Q (C/m)", "kind");
  for (std::size_t k = 0; k < s.charge.size(); ++k) {
    out += format("%18zu%12s %16s  %s\n", k,
                  number(k < s.potentials.size() ? s.potentials[k] : NAN, "%.6g").c_str(),
                  number(s.charge[k], "%.8g").c_str(),
                  has_reference(s) && static_cast<int>(k) == s.reference ? "reference" : "signal");
  }
  if (s.charge.size() == 1 && !s.ground_plane) {
    out += heading("") + "(one conductor: V with phi + Q/(2 pi eps) log|x| -> 0 far away)\n";
  } else if (!s.ground_plane) {
    out += heading("") + "potential at infinity " + number(s.offset, "%.6g") + " V\n";
  }
  return out;
}

json solves_json(R r) {
  json solves = json::array();
  for (const SolveStats& st : r.solution.solves) {
    solves.push_back({{"iterations", st.iterations},
                      {"residual", st.residual},
                      {"residual_history", st.history}});
  }
  return solves;
}

std::string solves_text(R r, F f) {
  const ElectrostaticSolution& s = r.solution;
  std::string each;
  for (const SolveStats& st : s.solves) {
    each += (each.empty() ? "" : ", ") + std::to_string(st.iterations);
  }
  return heading(f.label) +
         format("%zu right-hand side(s), %d iterations (%s), residual %.3g (tol %.3g)\n",
                s.solves.size(), s.iterations, each.c_str(), s.residual, r.options.tol);
}

json timings_json(R r) {
  const ElectrostaticTimings& t = r.solution.timings;
  return {{"discretise", t.discretise},
          {"near", t.near},
          {"fmm_setup", t.fmm_setup},
          {"preconditioner", t.preconditioner},
          {"solve", t.solve},
          {"products", t.products},
          {"product", t.product},
          {"product_fmm", t.product_fmm},
          {"product_near", t.product_near},
          {"total", t.total}};
}

std::string timings_text(R r, F f) {
  const ElectrostaticTimings& t = r.solution.timings;
  std::string out =
      heading(f.label) + format(
                             "discretise %.3g, near %.3g, FMM set-up %.3g, preconditioner %.3g, "
                             "solve %.3g, total %.3g\n",
                             t.discretise, t.near, t.fmm_setup, t.preconditioner, t.solve, t.total);
  if (t.products > 0) {
    out += heading("") + format("%zu products, %.3g s each (FMM %.3g, near correction %.3g)\n",
                                t.products, t.product, t.product_fmm, t.product_near);
  }
  return out;
}

json targets_json(R r) {
  if (r.tx.empty()) return kAbsent;
  return {{"x", r.tx},
          {"y", r.ty},
          {"potential", finite_or_null(r.field.potential)},
          {"field_x", finite_or_null(r.field.field_x)},
          {"field_y", finite_or_null(r.field.field_y)}};
}

std::string targets_text(R r, F f) {
  if (r.tx.empty()) return "";
  const char* row = "%14s %14s %14s %14s %14s\n";
  std::string out =
      heading(f.label) + format(row, "x (m)", "y (m)", "phi (V)", "Ex (V/m)", "Ey (V/m)");
  const std::size_t shown = std::min<std::size_t>(r.tx.size(), 20);
  for (std::size_t i = 0; i < shown; ++i) {
    out +=
        heading("") + format(row, number(r.tx[i], "%.6g").c_str(), number(r.ty[i], "%.6g").c_str(),
                             number(r.field.potential[i], "%.6g").c_str(),
                             number(r.field.field_x[i], "%.6g").c_str(),
                             number(r.field.field_y[i], "%.6g").c_str());
  }
  if (shown < r.tx.size()) {
    out += heading("") + format("... %zu more (see --output)\n", r.tx.size() - shown);
  }
  return out;
}

std::string undefined_text(R r, F f) {
  const std::size_t n = r.field.undefined_field;
  if (r.tx.empty() || n == 0) return "";
  return heading(f.label) + format("%zu probe%s on a panel end: field NaN, potential the limit\n",
                                   n, n == 1 ? " lies" : "s lie");
}

std::string files_text(R r, F f) {
  std::string out;
  for (const std::string* file : {&r.output, &r.plot, &r.rlgc}) {
    if (!file->empty()) out += heading(f.label) + *file + "\n";
  }
  return out;
}

std::string blank(R, F) {
  return "\n";
}

json text_or_absent(const std::string& s) {
  return s.empty() ? kAbsent : json(s);
}

}  // namespace

bool accuracy_met(const SolveRun& r) {
  const ElectrostaticSolution& s = r.solution;
  const double target = r.options.accuracy;
  return target > 0 && s.accuracy_met && std::isfinite(s.accuracy_estimate) &&
         s.accuracy_estimate <= target;
}

std::string accuracy_text(const SolveRun& r) {
  const ElectrostaticSolution& s = r.solution;
  const double target = r.options.accuracy;
  if (!(target > 0)) {
    if (!r.mesh_option.empty()) {
      return "not estimated (fixed mesh: " + r.mesh_option + " given; add --accuracy)";
    }
    return "not estimated (one mesh; add --accuracy)";
  }
  const std::string asked = format("target %.3g", target);
  if (!std::isfinite(s.accuracy_estimate)) {
    return "not estimated (" + asked + ": NOT checked, the solver gave no estimate)";
  }
  const std::string out = format("estimate %.2g (", s.accuracy_estimate) + asked;
  if (accuracy_met(r)) return out + ": met)";
  // Refinement doubles the panels: the next mesh would have passed the limit.
  const std::size_t last = s.meshes.empty() ? s.panels.size() : s.meshes.back().panels;
  if (2 * last > r.options.max_panels) {
    return out + format(": NOT met, the mesh limit of %zu panels (--max-panels) reached)",
                        r.options.max_panels);
  }
  return out + ": NOT met)";
}

std::string mode_label(const ElectrostaticSolution& s, std::size_t mode) {
  const std::vector<LineMode>& m = s.line.modes;
  if (s.line.symmetric_pair && mode < m.size() && m[mode].voltage.size() == 2) {
    return m[mode].voltage[0] * m[mode].voltage[1] > 0 ? "even" : "odd";
  }
  return "mode " + std::to_string(mode + 1);
}

// clang-format off
const std::vector<SolveField>& solve_fields() {
  static const std::vector<SolveField> fields = {
    {"input", "", "input", "", 1, [](R r) { return json(r.input); }},
    {"conductors", "", "conductors", "", 1, [](R r) { return json(r.solution.charge.size()); }},
    {"reference", "", "reference", "", 1, [](R r) { return json(r.solution.reference); },
     reference_text},
    {"ground_plane_y", "m", "ground plane", "m", 1,
     [](R r) { return r.solution.ground_plane ? json(r.solution.ground_plane_y) : json(nullptr); },
     ground_plane_text},
    {"eps_r", "", "eps_r background", "", 1, [](R r) { return json(r.solution.eps_r); }},
    {"panels", "", "panels", "", 1, [](R r) { return json(r.solution.panels.size()); }},
    {"panel_size", "m", "panel size", "m", 1,
     [](R r) { return r.options.panel_size > 0 ? json(r.options.panel_size) : json(nullptr); }},
    {"grading", "", "grading", "", 1, [](R r) { return json(r.options.grading); }},
    {"method", "", "method", "", 1, [](R r) { return json(r.options.method); }, method_text},
    {"preconditioner", "", nullptr, "", 1, [](R r) { return json(r.solution.preconditioner); }},
    {"block_size", "", nullptr, "", 1, [](R r) { return json(r.options.block_size); }},
    {"block_overlap", "", nullptr, "", 1, [](R r) { return json(r.options.block_overlap); }},
    {"fmm", "", nullptr, "", 1, fmm_json},
    {"", "", nullptr, "", 1, {}, blank},
    {"capacitance", "F/m", "C, Maxwell matrix", "pF/m", 1e12,
     [](R r) { return json(r.solution.capacitance); }},
    {"capacitance_conductors", "", nullptr, "", 1,
     [](R r) { return json(r.solution.capacitance_conductors); }},
    {"capacitance_mutual", "F/m", "C mutual, -C_ij", "pF/m", 1e12,
     [](R r) { return json(r.solution.line.capacitance_mutual); }, mutual_text},
    {"capacitance_to_ground", "F/m", "C to ground", "pF/m", 1e12,
     [](R r) { return json(r.solution.line.capacitance_to_ground); }},
    {"capacitance_vacuum", "F/m", "C0, all eps_r = 1", "pF/m", 1e12,
     [](R r) { return json(r.solution.line.capacitance_vacuum); }},
    {"inductance", "H/m", "L", "nH/m", 1e9, [](R r) { return json(r.solution.line.inductance); }},
    {"z0", "ohm", "Z0", "ohm", 1,
     [](R r) { return when(one_signal(r), finite_or_null(r.solution.line.z0)); }},
    {"eps_eff", "", "eps_eff", "", 1,
     [](R r) { return when(one_signal(r), finite_or_null(r.solution.line.eps_eff)); }},
    {"velocity", "m/s", "velocity", "m/s", 1,
     [](R r) { return when(one_signal(r), finite_or_null(r.solution.line.velocity)); },
     velocity_text},
    {"velocity_over_c", "", nullptr, "", 1,
     [](R r) {
       return when(one_signal(r), finite_or_null(r.solution.line.velocity / kSpeedOfLight));
     }},
    {"modes", "", "modes", "", 1, modes_json, modes_text},
    {"symmetric_pair", "", nullptr, "", 1,
     [](R r) { return json(r.solution.line.symmetric_pair); }},
    {"", "", nullptr, "", 1, {}, blank},
    {"accuracy", "", "accuracy", "", 1, accuracy_json, accuracy_line},
    {"meshes", "", "meshes", "", 1, meshes_json, meshes_text},
    {"charge", "C/m", "conductors", "", 1, [](R r) { return json(r.solution.charge); },
     conductors_text},
    {"potentials", "V", nullptr, "", 1, [](R r) { return json(r.solution.potentials); }},
    {"offset", "V", nullptr, "", 1, [](R r) { return json(r.solution.offset); }},
    {"iterations", "", "GMRES", "", 1, [](R r) { return json(r.solution.iterations); },
     solves_text},
    {"residual", "", nullptr, "", 1, [](R r) { return json(r.solution.residual); }},
    {"tol", "", nullptr, "", 1, [](R r) { return json(r.options.tol); }},
    {"solves", "", nullptr, "", 1, solves_json},
    {"timings", "s", "times (s)", "", 1, timings_json, timings_text},
    {"targets", "", "targets", "", 1, targets_json, targets_text},
    {"undefined_field", "", "note", "", 1,
     [](R r) { return r.tx.empty() ? kAbsent : json(r.field.undefined_field); }, undefined_text},
    {"output", "", "wrote", "", 1, [](R r) { return text_or_absent(r.output); }, files_text},
    {"plot", "", nullptr, "", 1, [](R r) { return text_or_absent(r.plot); }},
    {"rlgc", "", nullptr, "", 1, [](R r) { return text_or_absent(r.rlgc); }},
  };
  return fields;
}
// clang-format on

json solve_json(const SolveRun& r) {
  json j = json::object();
  for (const SolveField& f : solve_fields()) {
    if (!*f.key || !f.get) continue;
    const json v = f.get(r);
    if (!v.is_discarded()) j[f.key] = v;
  }
  return j;
}

std::string solve_text(const SolveRun& r) {
  std::string out = format("mlfma2d %s solve\n", version());
  for (const SolveField& f : solve_fields()) {
    if (f.text) {
      out += f.text(r, f);
    } else if (f.label && f.get) {
      out += generic_text(r, f, f.get(r));
    }
  }
  // One blank line between sections, also where a section between them was empty.
  for (auto at = out.find("\n\n\n"); at != std::string::npos; at = out.find("\n\n\n")) {
    out.erase(at, 1);
  }
  return out;
}

std::string solve_json_keys() {
  std::string out;
  for (const SolveField& f : solve_fields()) {
    if (!*f.key) continue;
    out += (out.empty() ? "" : ", ") + std::string(f.key) +
           (*f.unit ? std::string(" (") + f.unit + ")" : "");
  }
  return out;
}

}  // namespace mlfma2d::app
