#include "app/report.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "runtime/text.hpp"

namespace mlfma2d::app {

using nlohmann::json;
using tuning::AutoSelection;
using tuning::Candidate;

namespace {

const json kAbsent = json(json::value_t::discarded);

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

// A phase of "timings": seconds of the evaluation with the median total.
ReportField phase(const char* key, const char* label, double Timings::*slot, unsigned use) {
  return {
      "timings", key, label, nullptr, nullptr, use, [slot](R r) { return json(r.timings.*slot); },
      "s"};
}

// A field of "error" (--verify); `field_only`: only with --field.
ReportField error(const char* key, const char* line, const char* text, unsigned use,
                  double Verification::*slot, bool field_only) {
  return {"error", key, line, text, "%.3e", use, [slot, field_only](R r) {
            const Verification& v = r.verification;
            return v.done && (!field_only || v.has_field) ? json(v.*slot) : kAbsent;
          }};
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

}  // namespace

// clang-format off
const std::vector<ReportField>& report_fields() {
  constexpr unsigned J = kJson, A = kAttribute, G = kGeometry, H = kColumnHead, T = kColumnTail,
                     C = kCompared, S = kTextIfSet;
  static const std::vector<ReportField> fields = {
    {"", "input", "input", "{}", nullptr, J | A | G, [](R r) { return json(r.input); }},
    {"", "targets_input", "targets", "{}", nullptr, J | A | G,
     [](R r) { return or_null(r.targets_input); }},
    {"", "output", "output", "{}", nullptr, J, [](R r) { return or_null(r.output); }},
    {"", "tree", "tree", "{}", nullptr, J | A | G | T, [](R r) { return json(r.stats.tree); }},
    {"", "levels", "tree", "L = {}", nullptr, J | A | G | T,
     [](R r) { return json(r.stats.levels); }},
    {"", "levels_ct", "tree", "L fixed by CT = {}", nullptr, J | A | G,
     [](R r) { return json(r.stats.levels_ct); }},
    {"", "level_offset", "tree", "offset {}", "%+d", J | A | G | T,
     [](R r) { return json(r.options.level_offset); }},
    {"", "ct", "tree", "CT = {}", nullptr, J | A | G, [](R r) { return json(r.options.ct); }},
    {"", "levels_capped", "tree", "capped at the deepest level", nullptr, J | S,
     [](R r) { return json(r.stats.levels_capped); }},
    {"", "t", "", "t = {}", nullptr, J | A | G | T, [](R r) { return json(r.stats.t); }},
    {"", "D", "", "D = N/4^(L-1) = {}", "%.3g", J | A | G | T, [](R r) { return json(r.stats.D); }},
    {"", "leaf_boxes", "", "leaf boxes {}", nullptr, J | A | G | T,
     [](R r) { return json(r.stats.leaf_boxes); }},
    {"", "boxes", "", "boxes {}", nullptr, J | A, [](R r) { return json(r.stats.boxes); }},
    {"", "merged_sources", "", "{} coincident sources merged", nullptr, J | A | S,
     [](R r) { return json(r.stats.merged_sources); }},
    {"", "coordinate_scale", "", "coordinates scaled by 1/{}", "%.3g", J | A | S,
     [](R r) {
       return r.stats.coordinate_scale == 1 ? json(nullptr) : json(r.stats.coordinate_scale);
     }},
    {"", "terms", "expansion", "p = {} terms", nullptr, J | A | G | T,
     [](R r) { return json(r.stats.terms); }},
    {"", "terms_from", "expansion", "p from {}", nullptr, J | A,
     [](R r) { return json(terms_from_eps(r) ? "eps" : "terms"); }},
    // With --terms, eps played no part: none is recorded.
    {"", "eps", "expansion", "eps = {}", nullptr, J | A | G,
     [](R r) { return terms_from_eps(r) ? json(r.options.eps) : json(nullptr); }},
    {"", "accuracy_floor", "expansion", "accuracy floor of this geometry {}", "%.3g", J | A | S,
     [](R r) { return json(r.stats.accuracy_floor); }},
    {"", "backend", "back end", "{}", nullptr, J | A, [](R r) { return json(r.options.backend); }},
    {"", "threads", "back end", "threads {}", nullptr, J | A | G | T,
     [](R r) { return json(r.threads_used); }},
    {"", "threads_placed", "back end", "placed on cores", nullptr, J | A | S,
     [](R r) { return json(r.stats.threads_placed); }},
    {"", "field", "back end", "with field", nullptr, J | A | G | S,
     [](R r) { return json(r.options.field); }},
    {"", "near_pairs", "near field", "{} pairs", nullptr, J | A | G | T,
     [](R r) { return json(r.stats.near_pairs); }},
    {"", "pairs_per_second", "near field", "{} pairs/s", "%.3g", J | T,
     [](R r) { return json(pairs_per_second(r)); }, "pairs/s"},
    {"", "m2l_pairs", "far field", "{} M2L translations", nullptr, J | A,
     [](R r) { return json(r.stats.m2l_pairs); }},
    {"", "far_gflops", "far field", "{} GFLOP/s", "%.3g", J,
     [](R r) { return json(r.timings.far > 0 ? r.stats.far_flops / r.timings.far * 1e-9 : 0.0); }},
    {"", "device_memory", "device memory", "{}", "bytes", J | A | T | S,
     [](R r) { return json(r.stats.device_memory); }, "B"},
    {"", "memory_peak", "host memory", "peak {}", "bytes", J | A | S,
     [](R r) { return json(r.memory_peak); }, "B"},
    {"", "memory_estimate", "host memory", "estimate {}", "bytes", J | A | S,
     [](R r) { return json(std::size_t(r.memory_estimate)); }, "B"},
    {"", "version", nullptr, nullptr, nullptr, J | A, [](R) { return json(version()); }},
    {"", "n_sources", nullptr, nullptr, nullptr, J | A | G | T,
     [](R r) { return json(r.stats.n_sources); }},
    {"", "n_targets", nullptr, nullptr, nullptr, J | A | G | T,
     [](R r) { return json(r.stats.n_targets); }},
    {"", "self", nullptr, nullptr, nullptr, J | A | G, [](R r) { return json(r.stats.self); }},
    {"", "box_size", nullptr, nullptr, nullptr, J, [](R r) { return json(r.stats.box_size); }},
    {"", "gpu_memory_budget", nullptr, nullptr, nullptr, J | A,
     [](R r) { return json(r.options.gpu_memory); }},
    {"", "repeat", nullptr, nullptr, nullptr, J | A | G | T, [](R r) { return json(r.repeat); }},
    {"", "totals", nullptr, nullptr, nullptr, J, [](R r) { return json(r.totals); }},
    {"", "warnings", nullptr, nullptr, nullptr, J, [](R r) { return json(r.warnings); }},
    // The phases, in the order of the evaluation report's times.
    phase("tree", "tree", &Timings::tree, J | A),
    phase("plan", "plan", &Timings::plan, J | A),
    phase("choose", "choose (cost model)", &Timings::choose, J | A),
    phase("setup", "setup", &Timings::setup, J | A),
    phase("device_wait", "  of it waiting for device", &Timings::device_wait, J | A),
    phase("p2m", "P2M", &Timings::p2m, J | A),
    phase("m2m", "M2M", &Timings::m2m, J | A),
    phase("m2l", "M2L", &Timings::m2l, J | A),
    phase("p2l", "P2L", &Timings::p2l, J | A),
    phase("l2l", "L2L", &Timings::l2l, J | A),
    phase("l2p", "L2P", &Timings::l2p, J | A),
    phase("m2p", "M2P", &Timings::m2p, J | A),
    phase("far", "far total", &Timings::far, J | A | C),
    phase("near_collect", "near collect", &Timings::near_collect, J | A | C),
    phase("near_transfer", "near transfer", &Timings::near_transfer, J | A | C),
    phase("near_kernel", "near kernel", &Timings::near_kernel, J | A | C),
    phase("near_return", "near return", &Timings::near_return, J | A | C),
    phase("near", "near total", &Timings::near, J | A | C),
    phase("total", "total per evaluation", &Timings::total, J | A | C),
    // --verify: the errors against direct summation.
    error("rel_l2", "  potential", "rel L2 {}", J | A | H, &Verification::rel_l2, false),
    error("max_abs", "  potential", "max abs {}", J | A | H, &Verification::max_abs, false),
    error("field_rel_l2", "  field", "rel L2 {}", J | A, &Verification::field_rel_l2, true),
    error("field_max_abs", "  field", "max abs {}", J | A, &Verification::field_max_abs, true),
    error("direct_seconds", nullptr, nullptr, J, &Verification::direct_seconds, false),
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
  return fields;
}
// clang-format on

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
  for (const char* section : {"timings", "error", "auto"}) {
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
      out += format("  %-22s %12.3f%s\n", f.line, 1e3 * f.get(r).get<double>(),
                    within ? "  (within choose)" : "");
    }
  }
  if (r.verification.done) {
    const Verification& v = r.verification;
    out += format("verification    direct summation at %s%zu targets (%.3f s)\n",
                  v.sampled ? "a random sample of " : "all ", v.n_checked, v.direct_seconds);
    out += field_lines(r, "  potential", "  tolerance");
  }
  return out;
}

}  // namespace mlfma2d::app
