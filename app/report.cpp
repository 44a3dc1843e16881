#include "app/report.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <type_traits>

#include "app/field_json.hpp"
#include "runtime/text.hpp"

namespace mlfma2d::app {

using nlohmann::json;
using tuning::AutoSelection;
using tuning::Candidate;

namespace {

const json kAbsent = json(json::value_t::discarded);
constexpr unsigned J_A = kJson | kAttribute;

// The request behind p: an explicit --terms or the error target.
bool terms_from_eps(const RunReport& r) {
  return r.options.terms == 0;
}

json or_null(const std::string& text) {
  return text.empty() ? json(nullptr) : json(text);
}

bool section_present(const RunReport& r, const std::string& section) {
  if (section == "error") return r.verification.done;
  if (section == "auto") return r.auto_selection.done;
  if (section == "distributed") return !r.ranks.empty();
  return true;
}

json candidates_json(const AutoSelection& a) {
  json candidates = json::array();
  for (const Candidate& c : a.candidates) {
    candidates.push_back({{"backend", c.backend},
                          {"level_offset", c.level_offset},
                          {"levels", c.levels},
                          {"ct", c.ct},
                          {"usable", c.usable},
                          {"note", c.note},
                          {"near_seconds", number_or_null(c.near_seconds)},
                          {"far_seconds", number_or_null(c.far_seconds)},
                          {"total_seconds", number_or_null(c.total_seconds)}});
  }
  return candidates;
}

bool is_set(const json& v) {
  if (v.is_null() || v.is_discarded()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0;
  if (v.is_string()) return !v.get<std::string>().empty();
  return true;
}

}  // namespace

double pairs_per_second(const RunReport& r) {
  const double pairs = static_cast<double>(r.stats.near_pairs);
  if (r.timings.near_kernel > 0) return pairs / r.timings.near_kernel;
  if (r.timings.near > 0) return pairs / r.timings.near;
  return 0;
}

std::vector<std::pair<std::string, std::string>> unavailable_backends(
    const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string gpu = tuning::gpu_unavailable();
  for (const BackendInfo& b : near_field_backend_info()) {
    if (b.available || std::find(names.begin(), names.end(), b.name) == names.end()) continue;
    std::string why = b.why;
    const std::string who = "back end '" + b.name + "' ";
    if (why.rfind(who, 0) == 0) why.erase(0, who.size());
    out.emplace_back(b.name, b.runs_on_device && !gpu.empty() ? gpu : why);
  }
  return out;
}

std::vector<std::string> grouped_reasons(
    const std::vector<std::pair<std::string, std::string>>& unavailable) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // reason, back ends
  for (const auto& backend : unavailable) {
    const std::string& why = backend.second;
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == why; });
    if (it == groups.end()) it = groups.insert(groups.end(), {why, {}});
    it->second.push_back(backend.first);
  }
  std::vector<std::string> lines;
  for (const auto& [why, names] : groups) lines.push_back(join(names, ", ") + ": " + why);
  return lines;
}

void print_report(std::ostream& out, const std::string& report) {
  out << report;
  out.flush();
  if (!out) throw IoError("cannot write the report to standard output");
}

json number_or_null(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

std::string human_bytes(std::size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? format("%zu B", bytes) : format("%.1f %s", value, units[unit]);
}

namespace {

using R = const RunReport&;
using Get = std::function<json(R)>;

// The public struct of a run that a row takes a field of.
template <class S>
const S& part(R r) {
  if constexpr (std::is_same_v<S, TreeStats>) return r.stats;
  if constexpr (std::is_same_v<S, Timings>) return r.timings;
  if constexpr (std::is_same_v<S, Options>) return r.options;
}

// A field of a public struct: its key and unit from the library's table, the value the field's
// unless `get` says otherwise; in the JSON and the attributes as every field of the structs is.
template <class S, class T>
ReportField from_table(const char* section, T S::*member, const char* line, const char* text,
                       const char* number, unsigned use, Get get = {}) {
  const Field<S, T> f = field_of(member);
  if (!get) get = [member](R r) { return field_json(part<S>(r).*member); };
  return {section, f.name, line, text, number, use | kJson | kAttribute, std::move(get), f.unit};
}

// A figure of the tree or a setting as run, at the top level.
template <class S, class T>
ReportField top(T S::*member, const char* line, const char* text, const char* number, unsigned use,
                Get get = {}) {
  return from_table("", member, line, text, number, use, std::move(get));
}

// A phase of "timings": seconds of the evaluation with the median total.
ReportField phase(double Timings::*slot, const char* label, unsigned use = 0) {
  return from_table("timings", slot, label, nullptr, nullptr, use);
}

// Every field of S that `fields` does not show yet (by key, in `section`): in the JSON and the
// attributes, so that a new field of the struct is reported without a row here.
template <class S>
void add_the_rest(std::vector<ReportField>* fields, const char* section) {
  FieldTable<S>::visit([&](const auto& f) {
    const bool shown = std::any_of(fields->begin(), fields->end(), [&](const ReportField& r) {
      return std::string(r.section) == section && std::string(r.key) == f.name;
    });
    if (!shown) fields->push_back(from_table(section, f.member, nullptr, nullptr, nullptr, 0));
  });
}

// A field of "error" (--verify) of the output that `has` says was compared (null: the
// potential, always).
ReportField error(const char* key, const char* line, const char* text, unsigned use,
                  double Verification::*slot, bool Verification::*has) {
  return {"error", key, line, text, "%.3e", use, [slot, has](R r) {
            const Verification& v = r.verification;
            return v.done && (!has || v.*has) ? json(v.*slot) : kAbsent;
          }};
}

// The density of an output's largest error, when there are several.
ReportField worst(const char* key, const char* line, int Verification::*slot,
                  bool Verification::*has) {
  return {"error", key, line, "worst density {}", nullptr, J_A, [slot, has](R r) {
            const Verification& v = r.verification;
            return v.done && (!has || v.*has) && v.densities > 1 ? json(v.*slot) : kAbsent;
          }};
}

// Every density's errors: [{rel_l2, max_abs, field_rel_l2, ...}, ...].
json per_density_json(const Verification& v) {
  json all = json::array();
  for (const auto& e : v.per_density) {
    json d = {{"rel_l2", number_or_null(e[0].rel_l2)}, {"max_abs", number_or_null(e[0].max_abs)}};
    if (v.has_field) {
      d["field_rel_l2"] = number_or_null(e[1].rel_l2);
      d["field_max_abs"] = number_or_null(e[1].max_abs);
    }
    if (v.has_hessian) {
      d["hessian_rel_l2"] = number_or_null(e[2].rel_l2);
      d["hessian_max_abs"] = number_or_null(e[2].max_abs);
    }
    all.push_back(d);
  }
  return all;
}

// What the sources carry and what was computed, in words.
std::string sources_text(const Options& o) {
  return o.charges && o.dipoles ? "charges and dipoles" : o.dipoles ? "dipoles" : "charges";
}
std::string outputs_text(const Options& o) {
  return std::string("potential") + (o.field ? ", field" : "") + (o.hessian ? ", hessian" : "");
}

// A field of "auto" (--backend auto, --levels auto).
template <class T>
ReportField chosen(const char* key, unsigned use, T AutoSelection::*slot) {
  return {"auto",
          key,
          nullptr,
          nullptr,
          nullptr,
          use,
          [slot](R r) { return json(r.auto_selection.*slot); }};
}

// clang-format off
// NOLINTNEXTLINE(readability-function-size): the report's table, one row per output field
std::vector<ReportField> make_report_fields() {
  constexpr unsigned J = kJson, A = kAttribute, G = kGeometry, H = kColumnHead, T = kColumnTail,
                     C = kCompared, S = kTextIfSet;
  std::vector<ReportField> fields = {
    {"", "input", "input", "{}", nullptr, J | A | G, [](R r) { return json(r.input); }},
    {"", "targets_input", "targets", "{}", nullptr, J | A | G,
     [](R r) { return or_null(r.targets_input); }},
    {"", "output", "output", "{}", nullptr, J, [](R r) { return or_null(r.output); }},
    // What was computed: the kinds of sources, nd, the outputs.
    {"", "sources", "sources", "{}", nullptr, J | A | G,
     [](R r) { return json(sources_text(r.options)); }},
    {"", "dipole_orientations", "sources", "orientations {}", nullptr, J | A, [](R r) {
       if (!r.options.dipoles) return json(nullptr);
       return json(r.vectors_per_density ? "per density" : "per source");
     }},
    top(&Options::densities, "sources", "nd = {}", nullptr, G | T),
    top(&Options::charges, nullptr, nullptr, nullptr, 0),
    top(&Options::dipoles, nullptr, nullptr, nullptr, 0),
    {"", "outputs", "outputs", "{}", nullptr, J | A | G,
     [](R r) { return json(outputs_text(r.options)); }},
    top(&Options::field, nullptr, nullptr, nullptr, G),
    top(&Options::hessian, nullptr, nullptr, nullptr, G),
    top(&TreeStats::tree, "tree", "{}", nullptr, G | T),
    top(&TreeStats::levels, "tree", "L = {}", nullptr, G | T),
    top(&TreeStats::levels_ct, "tree", "L fixed by CT = {}", nullptr, G),
    top(&Options::level_offset, "tree", "offset {}", "%+d", G | T),
    top(&Options::ct, "tree", "CT = {}", nullptr, G),
    top(&TreeStats::levels_capped, "tree", "capped at the deepest level", nullptr, S),
    top(&TreeStats::t, "", "t = {}", nullptr, G | T),
    top(&TreeStats::D, "", "D = N/4^(L-1) = {}", "%.3g", G | T),
    top(&TreeStats::leaf_boxes, "", "leaf boxes {}", nullptr, G | T),
    top(&TreeStats::boxes, "", "boxes {}", nullptr, 0),
    top(&TreeStats::merged_sources, "", "{} coincident sources merged", nullptr, S),
    top(&TreeStats::coordinate_scale, "", "coordinates scaled by 1/{}", "%.3g", S,
        [](R r) {
          return r.stats.coordinate_scale == 1 ? json(nullptr) : json(r.stats.coordinate_scale);
        }),
    top(&TreeStats::terms, "expansion", "p = {} terms", nullptr, G | T),
    {"", "terms_from", "expansion", "p from {}", nullptr, J | A,
     [](R r) { return json(terms_from_eps(r) ? "eps" : "terms"); }},
    // With --terms, eps played no part: none is recorded.
    top(&Options::eps, "expansion", "eps = {}", nullptr, G,
        [](R r) { return terms_from_eps(r) ? json(r.options.eps) : json(nullptr); }),
    top(&TreeStats::accuracy_floor, "expansion", "accuracy floor of this geometry {}", "%.3g", S),
    top(&Options::backend, "back end", "{}", nullptr, 0),
    {"", "threads", "back end", "threads {}", nullptr, J | A | G | T,
     [](R r) { return json(r.threads_used); }},
    top(&TreeStats::threads_placed, "back end", "placed on cores", nullptr, S),
    top(&TreeStats::near_pairs, "near field", "{} pairs", nullptr, G | T),
    {"", "pairs_per_second", "near field", "{} pairs/s", "%.3g", J | T,
     [](R r) { return json(pairs_per_second(r)); }, "pairs/s"},
    top(&TreeStats::m2l_pairs, "far field", "{} M2L translations", nullptr, 0),
    {"", "far_gflops", "far field", "{} GFLOP/s", "%.3g", J,
     [](R r) { return json(r.timings.far > 0 ? r.stats.far_flops / r.timings.far * 1e-9 : 0.0); }},
    top(&TreeStats::device_memory, "device memory", "{}", "bytes", T | S),
    {"", "memory_peak", "host memory", "peak {}", "bytes", J | A | S,
     [](R r) { return json(r.memory_peak); }, "B"},
    {"", "memory_estimate", "host memory", "estimate {}", "bytes", J | A | S,
     [](R r) { return json(std::size_t(r.memory_estimate)); }, "B"},
    {"", "version", nullptr, nullptr, nullptr, J | A, [](R) { return json(version()); }},
    top(&TreeStats::n_sources, nullptr, nullptr, nullptr, G | T),
    top(&TreeStats::n_targets, nullptr, nullptr, nullptr, G | T),
    top(&TreeStats::self, nullptr, nullptr, nullptr, G),
    top(&TreeStats::box_size, nullptr, nullptr, nullptr, 0),
    // Named for what the report makes of it: the budget the run was given.
    {"", "gpu_memory_budget", nullptr, nullptr, nullptr, J | A,
     [](R r) { return json(r.options.gpu_memory); }, field_of(&Options::gpu_memory).unit},
    {"", "repeat", nullptr, nullptr, nullptr, J | A | G | T, [](R r) { return json(r.repeat); }},
    {"", "totals", nullptr, nullptr, nullptr, J, [](R r) { return json(r.totals); }},
    {"", "warnings", nullptr, nullptr, nullptr, J, [](R r) { return json(r.warnings); }},
    // The phases, in the order of the evaluation report's times.
    phase(&Timings::tree, "tree"),
    phase(&Timings::plan, "plan"),
    phase(&Timings::choose, "choose (cost model)"),
    phase(&Timings::setup, "setup"),
    phase(&Timings::device_wait, "  of it waiting for device"),
    phase(&Timings::p2m, "P2M"),
    phase(&Timings::m2m, "M2M"),
    phase(&Timings::m2l, "M2L"),
    phase(&Timings::p2l, "P2L"),
    phase(&Timings::l2l, "L2L"),
    phase(&Timings::l2p, "L2P"),
    phase(&Timings::m2p, "M2P"),
    phase(&Timings::far, "far total", C),
    phase(&Timings::near_collect, "near collect", C),
    phase(&Timings::near_transfer, "near transfer", C),
    phase(&Timings::near_kernel, "near kernel", C),
    phase(&Timings::near_return, "near return", C),
    phase(&Timings::near, "near total", C),
    phase(&Timings::total, "total per evaluation", C),
    // --verify: the errors against direct summation.
    // Each output's errors: of its worst density when there are several (per_density: all).
    error("rel_l2", "  potential", "rel L2 {}", J | A | H, &Verification::rel_l2, nullptr),
    error("max_abs", "  potential", "max abs {}", J | A | H, &Verification::max_abs, nullptr),
    worst("worst_density", "  potential", &Verification::worst, nullptr),
    error("field_rel_l2", "  field", "rel L2 {}", J | A, &Verification::field_rel_l2,
          &Verification::has_field),
    error("field_max_abs", "  field", "max abs {}", J | A, &Verification::field_max_abs,
          &Verification::has_field),
    worst("field_worst_density", "  field", &Verification::field_worst, &Verification::has_field),
    error("hessian_rel_l2", "  Hessian", "rel L2 {}", J | A, &Verification::hessian_rel_l2,
          &Verification::has_hessian),
    error("hessian_max_abs", "  Hessian", "max abs {}", J | A, &Verification::hessian_max_abs,
          &Verification::has_hessian),
    worst("hessian_worst_density", "  Hessian", &Verification::hessian_worst,
          &Verification::has_hessian),
    {"error", "per_density", nullptr, nullptr, nullptr, J,
     [](R r) { return r.verification.done ? per_density_json(r.verification) : kAbsent; }},
    error("direct_seconds", nullptr, nullptr, J, &Verification::direct_seconds, nullptr),
    // The verdict: with --terms no tolerance was checked, and neither the text, the JSON
    // (tolerance and passed null) nor the attributes (none) claim one; a non-finite error still
    // fails.
    {"error", "tolerance", "  tolerance", "{}", "%.3g", J | A, [](R r) {
       const Verification& v = r.verification;
       return !v.done ? kAbsent : v.checked ? number_or_null(v.tolerance) : json(nullptr);
     }},
    {"error", "verdict", "  tolerance", "{}", nullptr, 0, [](R r) {
       const Verification& v = r.verification;
       if (!v.done) return kAbsent;
       if (v.checked) return json(v.passed ? "met: yes" : "met: no");
       return json(std::string("not checked (--terms given, no tolerance)") +
                   (v.passed ? "" : "; the errors are not finite"));
     }},
    {"error", "passed", nullptr, nullptr, nullptr, J | A, [](R r) {
       const Verification& v = r.verification;
       return !v.done ? kAbsent : !v.passed ? json(false) : v.checked ? json(true) : json(nullptr);
     }},
    {"error", "sampled", nullptr, nullptr, nullptr, J | A,
     [](R r) { return r.verification.done ? json(r.verification.sampled) : kAbsent; }},
    {"error", "n_checked", nullptr, nullptr, nullptr, J | A,
     [](R r) { return r.verification.done ? json(r.verification.n_checked) : kAbsent; }},
    // --backend auto, --levels auto: what was chosen and why (the text: auto_text()).
    chosen("backend", J | A, &AutoSelection::backend),
    chosen("level_offset", J | A, &AutoSelection::level_offset),
    chosen("levels", J, &AutoSelection::levels),
    chosen("ct", J | A, &AutoSelection::ct),
    chosen("backend_auto", J, &AutoSelection::backend_auto),
    chosen("levels_auto", J, &AutoSelection::levels_auto),
    chosen("method", J | A, &AutoSelection::method),
    {"auto", "model", nullptr, nullptr, nullptr, J, [](R r) {
       return r.auto_selection.model_path.empty() ? kAbsent : json(r.auto_selection.model_path);
     }},
    chosen("reason", J | A, &AutoSelection::reason),
    {"auto", "predicted_seconds", nullptr, nullptr, nullptr, J | A,
     [](R r) { return number_or_null(r.auto_selection.predicted_seconds); }},
    {"auto", "measured_seconds", nullptr, nullptr, nullptr, J | A,
     [](R r) { return json(r.timings.total); }},
    chosen("seconds", J, &AutoSelection::seconds),
    chosen("calibration_seconds", J, &AutoSelection::calibration_seconds),
    {"auto", "candidates", nullptr, nullptr, nullptr, J,
     [](R r) { return candidates_json(r.auto_selection); }},
  };
  // Under mpirun: the ranks' figures (app/report_ranks.cpp).
  for (ReportField& f : ranks_fields()) fields.push_back(std::move(f));
  add_the_rest<TreeStats>(&fields, "");
  add_the_rest<Timings>(&fields, "timings");
  return fields;
}
// clang-format on

}  // namespace

const std::vector<ReportField>& report_fields() {
  static const std::vector<ReportField> fields = make_report_fields();
  return fields;
}

std::string section_prefix(const std::string& section) {
  if (section.empty()) return "";
  return (section == "timings" ? std::string("timing") : section) + "_";
}

json section_json(const RunReport& r, const std::string& section) {
  if (!section_present(r, section)) return nullptr;
  json j = json::object();
  for (const ReportField& f : report_fields()) {
    if (!(f.use & kJson) || f.section != section) continue;
    const json v = f.get(r);
    if (!v.is_discarded()) j[f.key] = v;
  }
  return j;
}

json to_json(const RunReport& r) {
  json j = section_json(r, "");
  for (const char* section : {"timings", "error", "auto", "distributed"}) {
    if (section_present(r, section)) j[section] = section_json(r, section);
  }
  return j;
}

std::map<std::string, AttrValue> to_attributes(const RunReport& r) {
  std::map<std::string, AttrValue> a;
  for (const ReportField& f : report_fields()) {
    if (!(f.use & kAttribute) || !section_present(r, f.section)) continue;
    const json v = f.get(r);
    const std::string name = section_prefix(f.section) + f.key;
    if (v.is_string()) {
      a[name] = AttrValue(v.get<std::string>());
    } else if (v.is_boolean()) {
      a[name] = AttrValue::from_integer(v.get<bool>() ? 1 : 0);
    } else if (v.is_number_integer()) {
      a[name] = AttrValue::from_integer(v.get<std::int64_t>());
    } else if (v.is_number()) {
      a[name] = AttrValue(v.get<double>());
    }
  }
  return a;
}

std::string value_text(const ReportField& f, const json& v) {
  if (v.is_null() || v.is_discarded()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  const std::string spec = f.number ? f.number : "";
  if (spec == "bytes") {
    const auto bytes = v.get<std::size_t>();
    return human_bytes(bytes) + format(" (%zu bytes)", bytes);
  }
  if (v.is_number_unsigned()) return format("%llu", v.get<unsigned long long>());
  if (v.is_number_integer()) {
    return format(spec == "%+d" ? "%+lld" : "%lld", v.get<long long>());
  }
  return format(spec.empty() ? "%g" : spec.c_str(), v.get<double>());
}

std::string field_lines(const RunReport& r, const std::string& from, const std::string& to) {
  std::string out, heading, line;
  bool inside = false;
  auto flush = [&] {
    if (!line.empty()) out += format("%-16s%s\n", heading.c_str(), line.c_str());
    line.clear();
  };
  for (const ReportField& f : report_fields()) {
    if (!f.line || !f.text || std::string(f.section) == "timings") continue;
    if (f.line == from) inside = true;
    if (!inside) continue;
    if (f.line != heading) {
      if (heading == to) break;
      flush();
      heading = f.line;
    }
    if (!section_present(r, f.section)) continue;
    const json v = f.get(r);
    if (v.is_null() || v.is_discarded() || ((f.use & kTextIfSet) && !is_set(v))) continue;
    std::string piece = f.text;
    const auto at = piece.find("{}");
    if (at != std::string::npos) piece.replace(at, 2, value_text(f, v));
    line += (line.empty() ? "" : ", ") + piece;
  }
  flush();
  return out;
}

std::string title_line(const RunReport& r, const char* command) {
  const TreeStats& s = r.stats;
  return format("mlfma2d %s%s: %zu sources, %zu targets%s\n", version(), command, s.n_sources,
                s.n_targets, s.self ? " (the sources, self pairs skipped)" : "");
}

std::string auto_text(const AutoSelection& a, double measured_seconds) {
  std::string out;
  const std::string what = a.backend_auto && a.levels_auto ? "back end and depth"
                           : a.backend_auto                ? "back end"
                                                           : "depth";
  out += format("auto            %s chosen by the %s%s: %s, CT %d, level offset %+d\n",
                what.c_str(), a.method == "model" ? "papers' model" : a.method.c_str(),
                a.method == "model" ? (" (" + a.model_path + ")").c_str() : "", a.backend.c_str(),
                a.ct, a.level_offset);
  out += "  why           " + a.reason + "\n";
  if (std::isfinite(a.predicted_seconds) && measured_seconds > 0) {
    out += format("  time          predicted %.3f ms, measured %.3f ms per evaluation\n",
                  1e3 * a.predicted_seconds, 1e3 * measured_seconds);
  }
  if (a.candidates.empty()) return out;
  const char* kind = a.method == "model" ? "near field" : "predicted";
  out += format("  candidates    %-15s %6s %6s %3s %12s %12s %12s  (%s)\n", "back end", "CT",
                "offset", "L", "near (ms)", "far (ms)", "total (ms)", kind);
  auto ms = [](double s) {
    return std::isfinite(s) ? format("%12.3f", 1e3 * s) : format("%12s", "-");
  };
  std::vector<std::string> unusable;  // one line per distinct reason
  for (const Candidate& c : a.candidates) {
    if (!c.usable) {
      const std::string line = c.backend + ": " + c.note;
      if (std::find(unusable.begin(), unusable.end(), line) == unusable.end()) {
        unusable.push_back(line);
      }
      continue;
    }
    out += format("                %-15s %6d %+6d %3d %s %s %s\n", c.backend.c_str(), c.ct,
                  c.level_offset, c.levels, ms(c.near_seconds).c_str(), ms(c.far_seconds).c_str(),
                  ms(c.total_seconds).c_str());
  }
  for (const std::string& line : unusable) out += "  not run       " + line + "\n";
  out += format("  took          %.3f s%s\n", a.seconds,
                a.calibration_seconds > 0
                    ? format(" (measuring the constants %.3f s)", a.calibration_seconds).c_str()
                    : "");
  return out;
}

std::string to_text(const RunReport& r) {
  std::string out = title_line(r, "") + field_lines(r, "input", "back end");
  if (!r.preview.empty()) {
    out += "output          none: --output FILE.h5 or FILE.csv writes every value; the first:\n";
    out += "                " + r.preview + "\n";
  }
  for (const std::string& w : r.warnings) out += "warning         " + w + "\n";
  if (r.auto_selection.done) out += auto_text(r.auto_selection, r.timings.total);
  out += field_lines(r, "near field", "device memory");
  out += r.repeat > 1 ? format("times (ms)      evaluation with the median total of %d\n", r.repeat)
                      : "times (ms)\n";
  // With the depth chosen, the chosen plan was built (and timed) within choose.
  const bool plan_in_choose = r.auto_selection.done && r.auto_selection.levels_auto;
  for (const ReportField& f : report_fields()) {
    if (std::string(f.section) == "timings") {
      const bool within = plan_in_choose && std::string(f.key) == "plan";
      out += format("  %-22s %12.3f%s\n", f.line ? f.line : f.key, 1e3 * f.get(r).get<double>(),
                    within ? "  (within choose)" : "");
    }
  }
  if (!r.ranks.empty()) out += ranks_text(r);
  if (r.verification.done) {
    const Verification& v = r.verification;
    out += format(
        "verification    direct summation at %s%zu targets (%.3f s)%s\n",
        v.sampled ? "a random sample of " : "all ", v.n_checked, v.direct_seconds,
        v.densities > 1 ? format(", every output of the %d densities", v.densities).c_str() : "");
    out += field_lines(r, "  potential", "  tolerance");
  }
  return out;
}

}  // namespace mlfma2d::app
