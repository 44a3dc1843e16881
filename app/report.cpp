#include "app/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace mlfma2d::app {

namespace {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  char buffer[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  return buffer;
}

std::string signed_int(int value) {
  return format("%+d", value);
}

// Bytes with a binary unit, for people; JSON and attributes keep the exact count.
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

// The auto-selection's lines of the text report: the choice, why, and every candidate.
std::string auto_text(const AutoSelection& a) {
  std::string out;
  std::string what = a.backend_auto && a.levels_auto ? "back end and levels"
                     : a.backend_auto                ? "back end"
                                                     : "levels";
  out += format("auto            %s chosen by %s%s: %s at level offset %s\n", what.c_str(),
                a.method.c_str(), a.method == "model" ? (" (" + a.model_path + ")").c_str() : "",
                a.backend.c_str(), signed_int(a.level_offset).c_str());
  out += "  why           " + a.reason + "\n";
  out += format("  candidates    %-15s %6s %3s %12s %12s %12s\n", "back end", "offset", "L",
                "near (ms)", "far (ms)", "total (ms)");
  auto ms = [](double s) {
    return std::isfinite(s) ? format("%12.3f", 1e3 * s) : format("%12s", "-");
  };
  std::vector<std::string> unusable;  // one line per distinct reason, not one per offset
  for (const Candidate& c : a.candidates) {
    if (!c.usable) {
      const std::string line = c.backend + ": " + c.note;
      if (std::find(unusable.begin(), unusable.end(), line) == unusable.end()) {
        unusable.push_back(line);
      }
      continue;
    }
    out += format("                %-15s %6s %3d %s %s %s\n", c.backend.c_str(),
                  signed_int(c.level_offset).c_str(), c.levels, ms(c.near_seconds).c_str(),
                  ms(c.far_seconds).c_str(), ms(c.total_seconds).c_str());
  }
  for (const std::string& line : unusable) out += "  not run       " + line + "\n";
  out += format("  took          %.3f s\n", a.calibration_seconds);
  return out;
}

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

// The request behind p: an explicit --terms or the error target.
bool terms_from_eps(const RunReport& r) {
  return r.options.terms == 0;
}

}  // namespace

const std::vector<PhaseRow>& phase_rows() {
  static const std::vector<PhaseRow> rows = {
      {"tree", "tree", &Timings::tree},
      {"plan", "plan", &Timings::plan},
      {"setup", "setup", &Timings::setup},
      {"P2M", "p2m", &Timings::p2m},
      {"M2M", "m2m", &Timings::m2m},
      {"M2L", "m2l", &Timings::m2l},
      {"L2L", "l2l", &Timings::l2l},
      {"L2P", "l2p", &Timings::l2p},
      {"far total", "far", &Timings::far},
      {"near collect", "near_collect", &Timings::near_collect},
      {"near transfer", "near_transfer", &Timings::near_transfer},
      {"near kernel", "near_kernel", &Timings::near_kernel},
      {"near return", "near_return", &Timings::near_return},
      {"near total", "near", &Timings::near},
      {"total per evaluation", "total", &Timings::total},
  };
  return rows;
}

double pairs_per_second(const RunReport& report) {
  const double pairs = static_cast<double>(report.stats.near_pairs);
  if (report.timings.near_kernel > 0) return pairs / report.timings.near_kernel;
  if (report.timings.near > 0) return pairs / report.timings.near;
  return 0;
}

double far_gflops(const RunReport& report) {
  return report.timings.far > 0 ? report.stats.far_flops / report.timings.far * 1e-9 : 0;
}

nlohmann::json to_json(const RunReport& r) {
  using nlohmann::json;
  const TreeStats& s = r.stats;
  json j;
  j["version"] = version();
  j["input"] = r.input;
  j["targets_input"] = r.targets_input.empty() ? json(nullptr) : json(r.targets_input);
  j["output"] = r.output.empty() ? json(nullptr) : json(r.output);
  j["n_sources"] = s.n_sources;
  j["n_targets"] = s.n_targets;
  j["self"] = s.self;
  j["levels"] = s.levels;
  j["levels_ct"] = s.levels_ct;
  j["level_offset"] = r.options.level_offset;
  j["levels_capped"] = s.levels_capped;
  j["ct"] = r.options.ct;
  j["t"] = s.t;
  j["D"] = s.D;
  j["terms"] = s.terms;
  j["terms_from"] = terms_from_eps(r) ? "eps" : "terms";
  j["eps"] = r.options.eps;
  j["backend"] = r.options.backend;
  j["threads"] = r.threads_used;
  j["field"] = r.options.field;
  j["leaf_boxes"] = s.leaf_boxes;
  j["boxes"] = s.boxes;
  j["near_pairs"] = s.near_pairs;
  j["m2l_pairs"] = s.m2l_pairs;
  j["pairs_per_second"] = pairs_per_second(r);
  j["far_gflops"] = far_gflops(r);
  j["box_size"] = s.box_size;
  j["device_memory"] = s.device_memory;
  j["gpu_memory_budget"] = r.options.gpu_memory;
  j["repeat"] = r.repeat;
  j["totals"] = r.totals;
  j["warnings"] = r.warnings;
  json timings = json::object();
  for (const PhaseRow& row : phase_rows()) timings[row.key] = r.timings.*row.seconds;
  j["timings"] = timings;
  if (r.verification.done) {
    const Verification& v = r.verification;
    json e;
    e["rel_l2"] = v.rel_l2;
    e["max_abs"] = v.max_abs;
    e["sampled"] = v.sampled;
    e["n_checked"] = v.n_checked;
    if (v.has_field) {
      e["field_rel_l2"] = v.field_rel_l2;
      e["field_max_abs"] = v.field_max_abs;
    }
    e["direct_seconds"] = v.direct_seconds;
    j["error"] = e;
  }
  if (r.auto_selection.done) j["auto"] = to_json(r.auto_selection);
  return j;
}

namespace {

// The report's first lines, shared by evaluate's and compare's text: sizes, files, tree, p.
std::string geometry_text(const RunReport& r, const char* command) {
  const TreeStats& s = r.stats;
  std::string out;
  out += format("mlfma2d %s%s: %zu sources, %zu targets%s\n", version(), command, s.n_sources,
                s.n_targets, s.self ? " (the sources, self pairs skipped)" : "");
  out += format("input           %s\n", r.input.c_str());
  if (!r.targets_input.empty()) out += format("targets         %s\n", r.targets_input.c_str());
  if (!r.output.empty()) out += format("output          %s\n", r.output.c_str());
  out += format("tree            L = %d (L fixed by CT = %d is %d, offset %s)%s\n", s.levels,
                r.options.ct, s.levels_ct, signed_int(r.options.level_offset).c_str(),
                s.levels_capped ? ", capped at the deepest level" : "");
  out += format("                t = %zu, D = %.3g, leaf boxes %zu, boxes %zu\n", s.t, s.D,
                s.leaf_boxes, s.boxes);
  if (terms_from_eps(r)) {
    out += format("expansion       p = %d terms (from eps = %g)\n", s.terms, r.options.eps);
  } else {
    out += format("expansion       p = %d terms (--terms)\n", s.terms);
  }
  return out;
}

}  // namespace

std::string to_text(const RunReport& r) {
  const TreeStats& s = r.stats;
  std::string out = geometry_text(r, "");
  out += format("back end        %s, %d thread%s%s\n", r.options.backend.c_str(), r.threads_used,
                r.threads_used == 1 ? "" : "s", r.options.field ? ", with field" : "");
  if (r.auto_selection.done) out += auto_text(r.auto_selection);
  out += format("near field      %llu pairs, %.3g pairs/s\n",
                static_cast<unsigned long long>(s.near_pairs), pairs_per_second(r));
  out += format("far field       %llu M2L translations, %.3g GFLOP/s\n",
                static_cast<unsigned long long>(s.m2l_pairs), far_gflops(r));
  if (s.device_memory > 0) {
    out += format("device memory   %s (%zu bytes)\n", human_bytes(s.device_memory).c_str(),
                  s.device_memory);
  }
  if (r.repeat > 1) {
    out += format("times (ms)      evaluation with the median total of %d\n", r.repeat);
  } else {
    out += "times (ms)\n";
  }
  for (const PhaseRow& row : phase_rows()) {
    out += format("  %-22s %12.3f\n", row.label, 1e3 * (r.timings.*row.seconds));
  }
  if (r.verification.done) {
    const Verification& v = r.verification;
    out += format("verification    direct summation at %s%zu targets (%.3f s)\n",
                  v.sampled ? "a random sample of " : "all ", v.n_checked, v.direct_seconds);
    out += format("  potential     rel L2 %.3e, max abs %.3e\n", v.rel_l2, v.max_abs);
    if (v.has_field) {
      out += format("  field         rel L2 %.3e, max abs %.3e\n", v.field_rel_l2, v.field_max_abs);
    }
  }
  return out;
}

std::map<std::string, AttrValue> to_attributes(const RunReport& r) {
  const TreeStats& s = r.stats;
  std::map<std::string, AttrValue> a;
  auto num = [](auto v) { return AttrValue(static_cast<double>(v)); };
  a["version"] = AttrValue(std::string(version()));
  a["input"] = AttrValue(r.input);
  if (!r.targets_input.empty()) a["targets_input"] = AttrValue(r.targets_input);
  a["ct"] = num(r.options.ct);
  a["level_offset"] = num(r.options.level_offset);
  a["eps"] = num(r.options.eps);
  a["terms"] = num(s.terms);
  a["terms_from"] = AttrValue(terms_from_eps(r) ? "eps" : "terms");
  a["backend"] = AttrValue(r.options.backend);
  a["field"] = num(r.options.field ? 1 : 0);
  a["threads"] = num(r.threads_used);
  a["gpu_memory_budget"] = num(r.options.gpu_memory);
  a["repeat"] = num(r.repeat);
  a["n_sources"] = num(s.n_sources);
  a["n_targets"] = num(s.n_targets);
  a["self"] = num(s.self ? 1 : 0);
  a["levels"] = num(s.levels);
  a["levels_ct"] = num(s.levels_ct);
  a["t"] = num(s.t);
  a["D"] = num(s.D);
  a["leaf_boxes"] = num(s.leaf_boxes);
  a["boxes"] = num(s.boxes);
  a["near_pairs"] = num(s.near_pairs);
  a["m2l_pairs"] = num(s.m2l_pairs);
  a["device_memory"] = num(s.device_memory);
  for (const PhaseRow& row : phase_rows()) {
    a[std::string("timing_") + row.key] = num(r.timings.*row.seconds);
  }
  if (r.verification.done) {
    const Verification& v = r.verification;
    a["error_rel_l2"] = num(v.rel_l2);
    a["error_max_abs"] = num(v.max_abs);
    a["error_sampled"] = num(v.sampled ? 1 : 0);
    a["error_n_checked"] = num(v.n_checked);
    if (v.has_field) {
      a["error_field_rel_l2"] = num(v.field_rel_l2);
      a["error_field_max_abs"] = num(v.field_max_abs);
    }
  }
  if (r.auto_selection.done) {
    a["auto_backend"] = AttrValue(r.auto_selection.backend);
    a["auto_level_offset"] = num(r.auto_selection.level_offset);
    a["auto_method"] = AttrValue(r.auto_selection.method);
    a["auto_reason"] = AttrValue(r.auto_selection.reason);
  }
  return a;
}

}  // namespace mlfma2d::app

namespace mlfma2d::app {

nlohmann::json to_json(const AutoSelection& a) {
  using nlohmann::json;
  json j;
  j["backend"] = a.backend;
  j["level_offset"] = a.level_offset;
  j["levels"] = a.levels;
  j["backend_auto"] = a.backend_auto;
  j["levels_auto"] = a.levels_auto;
  j["method"] = a.method;
  if (!a.model_path.empty()) j["model"] = a.model_path;
  j["reason"] = a.reason;
  j["calibration_points"] = a.calibration_points;
  j["seconds"] = a.calibration_seconds;
  json candidates = json::array();
  for (const Candidate& c : a.candidates) {
    candidates.push_back({{"backend", c.backend},
                          {"level_offset", c.level_offset},
                          {"levels", c.levels},
                          {"usable", c.usable},
                          {"note", c.note},
                          {"near_seconds", number_or_null(c.near_seconds)},
                          {"far_seconds", number_or_null(c.far_seconds)},
                          {"total_seconds", number_or_null(c.total_seconds)}});
  }
  j["candidates"] = candidates;
  return j;
}

namespace {

// The phases of compare's time table, by their keys in phase_rows() (one table of phases).
const std::vector<const PhaseRow*>& compare_phases() {
  static const std::vector<const PhaseRow*> rows = [] {
    std::vector<const PhaseRow*> out;
    for (const char* key :
         {"near_collect", "near_transfer", "near_kernel", "near_return", "near", "far", "total"}) {
      for (const PhaseRow& row : phase_rows())
        if (std::string(row.key) == key) out.push_back(&row);
    }
    return out;
  }();
  return rows;
}

std::string ratio_text(double x) {
  return std::isfinite(x) && x > 0 ? format("%.3g", x) : std::string("-");
}

}  // namespace

std::vector<TableColumn> compare_columns(const CompareReport& r) {
  std::vector<TableColumn> cols;
  auto text = [&](const char* name, auto get) {
    TableColumn c;
    c.name = name;
    c.is_text = true;
    for (const CompareRow& row : r.rows) c.texts.push_back(get(row));
    cols.push_back(std::move(c));
  };
  auto number = [&](const std::string& name, const char* unit, auto get) {
    TableColumn c;
    c.name = name;
    c.unit = unit;
    for (const CompareRow& row : r.rows) c.numbers.push_back(static_cast<double>(get(row)));
    cols.push_back(std::move(c));
  };
  text("backend", [](const CompareRow& x) { return x.run.options.backend; });
  number("rel_l2", "", [](const CompareRow& x) { return x.run.verification.rel_l2; });
  number("max_abs", "", [](const CompareRow& x) { return x.run.verification.max_abs; });
  number("rel_l2_vs_cpu", "", [](const CompareRow& x) { return x.vs_cpu.rel_l2; });
  number("max_abs_vs_cpu", "", [](const CompareRow& x) { return x.vs_cpu.max_abs; });
  for (const PhaseRow* p : compare_phases()) {
    number(p->key, "s", [p](const CompareRow& x) { return x.run.timings.*(p->seconds); });
  }
  number("speedup_vs_cpu_near", "", [](const CompareRow& x) { return x.speedup_cpu_near; });
  number("speedup_vs_cpu_total", "", [](const CompareRow& x) { return x.speedup_cpu_total; });
  number("speedup_vs_indexing_near", "",
         [](const CompareRow& x) { return x.speedup_indexing_near; });
  number("speedup_vs_indexing_total", "",
         [](const CompareRow& x) { return x.speedup_indexing_total; });
  number("device_memory", "B", [](const CompareRow& x) { return x.run.stats.device_memory; });
  number("pairs_per_second", "pairs/s",
         [](const CompareRow& x) { return pairs_per_second(x.run); });
  number("n_sources", "", [](const CompareRow& x) { return x.run.stats.n_sources; });
  number("n_targets", "", [](const CompareRow& x) { return x.run.stats.n_targets; });
  number("levels", "", [](const CompareRow& x) { return x.run.stats.levels; });
  number("level_offset", "", [](const CompareRow& x) { return x.run.options.level_offset; });
  number("t", "", [](const CompareRow& x) { return x.run.stats.t; });
  number("D", "", [](const CompareRow& x) { return x.run.stats.D; });
  number("leaf_boxes", "", [](const CompareRow& x) { return x.run.stats.leaf_boxes; });
  number("near_pairs", "", [](const CompareRow& x) { return x.run.stats.near_pairs; });
  number("terms", "", [](const CompareRow& x) { return x.run.stats.terms; });
  number("repeat", "", [](const CompareRow& x) { return x.run.repeat; });
  number("threads", "", [](const CompareRow& x) { return x.run.threads_used; });
  return cols;
}

nlohmann::json to_json(const CompareReport& r) {
  using nlohmann::json;
  json j;
  j["command"] = "compare";
  j["version"] = version();
  j["construction"] = r.construction;
  j["output"] = r.output.empty() ? json(nullptr) : json(r.output);
  if (!r.rows.empty()) {
    // The geometry is the same for every row; repeated here for convenience.
    const RunReport& first = r.rows.front().run;
    const json geometry = to_json(first);
    for (const char* key : {"input", "targets_input", "n_sources", "n_targets", "self", "levels",
                            "levels_ct", "level_offset", "ct", "t", "D", "terms", "eps",
                            "leaf_boxes", "near_pairs", "threads", "field", "repeat"}) {
      j[key] = geometry[key];
    }
    if (first.verification.done) {
      j["reference"] = {{"sampled", first.verification.sampled},
                        {"n_checked", first.verification.n_checked},
                        {"direct_seconds", first.verification.direct_seconds}};
    }
  }
  json rows = json::array();
  for (const CompareRow& row : r.rows) {
    json b = to_json(row.run);
    b["rel_l2_vs_cpu"] = row.vs_cpu.rel_l2;
    b["max_abs_vs_cpu"] = row.vs_cpu.max_abs;
    b["speedup_vs_cpu"] = {{"near", number_or_null(row.speedup_cpu_near)},
                           {"total", number_or_null(row.speedup_cpu_total)}};
    b["speedup_vs_indexing"] = std::isfinite(row.speedup_indexing_near)
                                   ? json{{"near", number_or_null(row.speedup_indexing_near)},
                                          {"total", number_or_null(row.speedup_indexing_total)}}
                                   : json(nullptr);
    rows.push_back(b);
  }
  j["backends"] = rows;
  json skipped = json::array();
  for (const auto& [name, why] : r.skipped) skipped.push_back({{"backend", name}, {"reason", why}});
  j["skipped"] = skipped;
  if (r.auto_selection.done) j["auto"] = to_json(r.auto_selection);
  return j;
}

std::string to_text(const CompareReport& r) {
  std::string out;
  if (r.rows.empty()) return "compare: no back end ran\n";
  const RunReport& first = r.rows.front().run;
  out += geometry_text(first, " compare");
  out += "solvers         " + r.construction + "\n";
  const Verification& v = first.verification;
  if (v.done) {
    out += format("reference       direct summation at %s%zu targets (%.3f s), once for all\n",
                  v.sampled ? "a random sample of " : "all ", v.n_checked, v.direct_seconds);
  }
  out += format(
      "repeat          %d evaluation%s per back end, the one with the median total "
      "shown; %d thread%s\n",
      first.repeat, first.repeat == 1 ? "" : "s", first.threads_used,
      first.threads_used == 1 ? "" : "s");
  if (r.auto_selection.done) out += auto_text(r.auto_selection);
  for (const auto& [name, why] : r.skipped) out += "skipped         " + name + ": " + why + "\n";

  out += format("\n%-15s", "times (ms)");
  for (const PhaseRow* p : compare_phases()) out += format(" %13s", p->key);
  out += "\n";
  for (const CompareRow& row : r.rows) {
    out += format("%-15s", row.run.options.backend.c_str());
    for (const PhaseRow* p : compare_phases())
      out += format(" %13.3f", 1e3 * (row.run.timings.*(p->seconds)));
    out += "\n";
  }

  out += format("\n%-15s %10s %10s %10s %10s %10s %10s %10s %12s %10s\n", "back end", "rel L2",
                "max abs", "L2 vs cpu", "near/cpu", "total/cpu", "near/idx", "total/idx",
                "device mem", "pairs/s");
  for (const CompareRow& row : r.rows) {
    const RunReport& x = row.run;
    out += format("%-15s %10.2e %10.2e %10.2e %10s %10s %10s %10s %12s %10.3g\n",
                  x.options.backend.c_str(), x.verification.rel_l2, x.verification.max_abs,
                  row.vs_cpu.rel_l2, ratio_text(row.speedup_cpu_near).c_str(),
                  ratio_text(row.speedup_cpu_total).c_str(),
                  ratio_text(row.speedup_indexing_near).c_str(),
                  ratio_text(row.speedup_indexing_total).c_str(),
                  x.stats.device_memory ? human_bytes(x.stats.device_memory).c_str() : "-",
                  pairs_per_second(x));
  }
  out +=
      "(rel L2, max abs: potential against direct summation; L2 vs cpu: against the cpu back\n"
      " end; near/cpu, total/cpu: speedup of the near field and of the whole evaluation over\n"
      " cpu; near/idx, total/idx: the same over indexing, '-' when it did not run)\n";
  return out;
}

}  // namespace mlfma2d::app
