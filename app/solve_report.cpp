#include "app/solve_report.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "app/field_json.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "runtime/text.hpp"

namespace mlfma2d::app {

using nlohmann::json;

namespace {

constexpr double kSpeedOfLight = 299792458.0;  // m/s, exact
const json kAbsent = json(json::value_t::discarded);

using R = const SolveRun&;
using F = const SolveField&;

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

// The FMM as run: the back end, its accuracy and sizes under the report's names, the tree's
// figures under the table's.
json fmm_json(R r) {
  const ElectrostaticSolution& s = r.solution;
  const TreeStats& t = s.fmm_stats;
  json j = {{"backend", s.fmm_backend},
            {"eps", s.fmm_eps},
            {"sources", t.n_sources},
            {"targets", t.n_targets}};
  for (int TreeStats::*figure : {&TreeStats::terms, &TreeStats::levels, &TreeStats::ct}) {
    j[field_of(figure).name] = t.*figure;
  }
  j[field_of(&TreeStats::tree).name] = t.tree;
  j[field_of(&Options::level_offset).name] = r.options.fmm.level_offset;
  return j;
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

// Every mode's fields, its name and its velocity in c.
json modes_json(R r) {
  json modes = json::array();
  const std::vector<LineMode>& m = r.solution.line.modes;
  for (std::size_t i = 0; i < m.size(); ++i) {
    json mode = fields_json(m[i]);
    mode["label"] = mode_label(r.solution, i);
    mode["velocity_over_c"] = field_json(m[i].velocity / kSpeedOfLight);
    modes.push_back(mode);
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
          {"estimate", field_json(s.accuracy_estimate)},
          {"met", accuracy_met(r)},
          {"text", accuracy_text(r)}};
}

std::string accuracy_line(R r, F f) {
  return heading(f.label) + accuracy_text(r) + "\n";
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

// Every solve's fields, the residuals of its iterations under the report's name for them.
json solves_json(R r) {
  json solves = field_json(r.solution.solves);
  const char* history = field_of(&SolveStats::history).name;
  for (json& solve : solves) {
    solve["residual_history"] = std::move(solve[history]);
    solve.erase(history);
  }
  return solves;
}

std::string solves_text(R r, F f) {
  const ElectrostaticSolution& s = r.solution;
  std::string each;
  for (const SolveStats& st : s.solves) {
    each += (each.empty() ? "" : ", ") + std::to_string(st.iterations);
  }
  // Several right-hand sides: in lockstep blocks (C's, then C0's) or one at a time.
  std::string how;
  if (s.batched) {
    how = format(", batched (%zu per block)", s.capacitance.size());
  } else if (s.solves.size() > 1) {
    how = ", one at a time";
  }
  return heading(f.label) + format(
                                "%zu right-hand side(s)%s, %d iterations (%s), residual %.3g "
                                "(tol %.3g)\n",
                                s.solves.size(), how.c_str(), s.iterations, each.c_str(),
                                s.residual, r.options.tol);
}

std::string timings_text(R r, F f) {
  const ElectrostaticTimings& t = r.solution.timings;
  std::string out =
      heading(f.label) + format(
                             "discretise %.3g, near %.3g, FMM set-up %.3g, preconditioner %.3g, "
                             "solve %.3g, total %.3g\n",
                             t.discretise, t.near, t.fmm_setup, t.preconditioner, t.solve, t.total);
  if (t.products > 0) {
    out += heading("") + format(
                             "%zu products in %zu FMM evaluations, %.3g s each (FMM %.3g, "
                             "near correction %.3g)\n",
                             t.products, t.evaluations, t.product, t.product_fmm, t.product_near);
  }
  return out;
}

// The targets and every per-target field of what was evaluated there.
json targets_json(R r) {
  if (r.tx.empty()) return kAbsent;
  json j = {{"x", r.tx}, {"y", r.ty}};
  for_each_field(r.field, [&](const auto& field, const auto& value) {
    if constexpr (is_list_v<std::decay_t<decltype(value)>>) j[field.name] = field_json(value);
  });
  return j;
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

namespace {

using Get = std::function<json(R)>;
using Text = std::function<std::string(R, F)>;

// The public struct of a solve that a row takes a field of.
template <class S>
const S& part(R r) {
  if constexpr (std::is_same_v<S, ElectrostaticSolution>) return r.solution;
  if constexpr (std::is_same_v<S, LineParameters>) return r.solution.line;
  if constexpr (std::is_same_v<S, ElectrostaticOptions>) return r.options;
  if constexpr (std::is_same_v<S, FieldAtTargets>) return r.field;
}

// A field of a public struct: its key and SI unit from the library's table, the value the
// field's unless `get` says otherwise.
template <class S, class T>
SolveField from_table(T S::*member, const char* label, const char* text_unit = "",
                      double text_scale = 1, Get get = {}, Text text = {}) {
  const Field<S, T> f = field_of(member);
  if (!get) get = [member](R r) { return field_json(part<S>(r).*member); };
  return {f.name, f.unit, label, text_unit, text_scale, std::move(get), std::move(text)};
}

// A figure of the line that exists for one signal conductor only.
SolveField single_line(double LineParameters::*member, const char* label, const char* text_unit,
                       Text text = {}) {
  return from_table(
      member, label, text_unit, 1,
      [member](R r) { return when(one_signal(r), field_json(r.solution.line.*member)); },
      std::move(text));
}

using Sol = ElectrostaticSolution;
using Line = LineParameters;
using Opt = ElectrostaticOptions;

}  // namespace

// clang-format off
const std::vector<SolveField>& solve_fields() {
  static const std::vector<SolveField> fields = {
    {"input", "", "input", "", 1, [](R r) { return json(r.input); }},
    {"ranks", "", "ranks", "", 1, [](R r) { return r.ranks > 1 ? json(r.ranks) : kAbsent; }},
    {"conductors", "", "conductors", "", 1, [](R r) { return json(r.solution.charge.size()); }},
    from_table(&Sol::reference, "reference", "", 1, {}, reference_text),
    from_table(&Sol::ground_plane_y, "ground plane", "m", 1,
               [](R r) {
                 return r.solution.ground_plane ? json(r.solution.ground_plane_y) : json(nullptr);
               },
               ground_plane_text),
    from_table(&Sol::eps_r, "eps_r background"),
    // The panels as a count.
    from_table(&Sol::panels, "panels", "", 1, [](R r) { return json(r.solution.panels.size()); }),
    from_table(&Opt::panel_size, "panel size", "m", 1, [](R r) {
                 return r.options.panel_size > 0 ? json(r.options.panel_size) : json(nullptr);
               }),
    from_table(&Opt::grading, "grading"),
    from_table(&Opt::method, "method", "", 1, {}, method_text),
    from_table(&Sol::preconditioner, nullptr),
    from_table(&Opt::block_size, nullptr),
    from_table(&Opt::block_overlap, nullptr),
    {"fmm", "", nullptr, "", 1, fmm_json},
    {"", "", nullptr, "", 1, {}, blank},
    from_table(&Sol::capacitance, "C, Maxwell matrix", "pF/m", 1e12),
    from_table(&Sol::capacitance_conductors, nullptr),
    from_table(&Line::capacitance_mutual, "C mutual, -C_ij", "pF/m", 1e12, {}, mutual_text),
    from_table(&Line::capacitance_to_ground, "C to ground", "pF/m", 1e12),
    from_table(&Line::capacitance_vacuum, "C0, all eps_r = 1", "pF/m", 1e12),
    from_table(&Line::inductance, "L", "nH/m", 1e9),
    single_line(&Line::z0, "Z0", "ohm"),
    single_line(&Line::eps_eff, "eps_eff", ""),
    single_line(&Line::velocity, "velocity", "m/s", velocity_text),
    {"velocity_over_c", "", nullptr, "", 1,
     [](R r) {
       return when(one_signal(r), field_json(r.solution.line.velocity / kSpeedOfLight));
     }},
    from_table(&Line::modes, "modes", "", 1, modes_json, modes_text),
    from_table(&Line::symmetric_pair, nullptr),
    {"", "", nullptr, "", 1, {}, blank},
    {"accuracy", "", "accuracy", "", 1, accuracy_json, accuracy_line},
    from_table(&Sol::meshes, "meshes", "", 1, {}, meshes_text),
    from_table(&Sol::charge, "conductors", "", 1, {}, conductors_text),
    from_table(&Sol::potentials, nullptr),
    from_table(&Sol::offset, nullptr),
    from_table(&Sol::iterations, "GMRES", "", 1, {}, solves_text),
    from_table(&Sol::residual, nullptr),
    from_table(&Opt::tol, nullptr),
    from_table(&Sol::solves, nullptr, "", 1, solves_json),
    from_table(&Sol::batched, nullptr),
    from_table(&Sol::timings, "times (s)", "", 1, {}, timings_text),
    {"targets", "", "targets", "", 1, targets_json, targets_text},
    from_table(&FieldAtTargets::undefined_field, "note", "", 1,
               [](R r) { return r.tx.empty() ? kAbsent : json(r.field.undefined_field); },
               undefined_text),
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
