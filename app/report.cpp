#include "app/report.hpp"

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
  return j;
}

std::string to_text(const RunReport& r) {
  const TreeStats& s = r.stats;
  std::string out;
  out += format("mlfma2d %s: %zu sources, %zu targets%s\n", version(), s.n_sources, s.n_targets,
                s.self ? " (the sources, self pairs skipped)" : "");
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
  out += format("back end        %s, %d thread%s%s\n", r.options.backend.c_str(), r.threads_used,
                r.threads_used == 1 ? "" : "s", r.options.field ? ", with field" : "");
  out += format("near field      %llu pairs, %.3g pairs/s\n",
                static_cast<unsigned long long>(s.near_pairs), pairs_per_second(r));
  out +=
      format("M2L             %llu translations\n", static_cast<unsigned long long>(s.m2l_pairs));
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
  return a;
}

}  // namespace mlfma2d::app
