#include "app/compare.hpp"

#include <cmath>
#include <limits>
#include <ostream>
#include <sstream>

#include "app/inputs.hpp"
#include "app/options.hpp"
#include "app/progress.hpp"
#include "runtime/text.hpp"
#include "tuning/model.hpp"
#include "tuning/tuning.hpp"

namespace mlfma2d::app {

using nlohmann::json;
using tuning::kBaselineBackend;
using tuning::kReferenceBackend;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The names of the columns and keys that compare with the reference and the baseline.
const std::string kVsReference = std::string("_vs_") + kReferenceBackend;
const std::string kSpeedupReference = "speedup" + kVsReference;
const std::string kSpeedupBaseline = std::string("speedup_vs_") + kBaselineBackend;

po::options_description compare_description() {
  const std::vector<OptionText> output = {
      {"output,o", "FILE",
       "write the table to FILE: CSV (.csv, one row per back end) or HDF5 (.h5, "
       "one dataset per column under /compare); default: none"},
      {"backends", "A,B,...",
       "back ends to compare (cpu is always run: it is the reference); default: "
       "all known, those not available here skipped with the reason"},
  };
  const std::vector<OptionText> sample = {
      {"verify-sample", "M",
       "direct summation at M random targets (0 = all); default: all if N_sources "
       "* N_targets <= 4e8, else 1000"},
  };
  return option_table("Compare", {input_options(), output, tree_options(), sample, run_options()});
}

double speedup(double base, double mine) {
  return base > 0 && mine > 0 ? base / mine : kNaN;
}

std::string ratio_text(double x) {
  return std::isfinite(x) && x > 0 ? format("%.3g", x) : std::string("-");
}

// The keys of the report fields with use `bit`, in table order.
std::vector<std::string> keys_with(unsigned bit) {
  std::vector<std::string> keys;
  for (const ReportField& f : report_fields())
    if (f.use & bit) keys.push_back(f.key);
  return keys;
}

/// \brief One back end of `mlfma2d compare`.
struct CompareRow {
  RunReport run;             ///< its evaluate report (verification against direct summation)
  ErrorNorms vs_reference;   ///< potential against the reference back end's
  double speedup_near = 0;   ///< reference near total / this near total
  double speedup_total = 0;  ///< reference total / this total
  double speedup_baseline_near = 0;   ///< the same over the papers' baseline; NaN when it did
  double speedup_baseline_total = 0;  ///< not run
};

/// \brief The whole comparison.
struct CompareReport {
  std::string construction;  ///< how the back ends' solvers were built
  std::vector<CompareRow> rows;
  std::vector<std::pair<std::string, std::string>> skipped;  ///< (back end, why)
  std::string output;
  tuning::AutoSelection auto_selection;  ///< the depth chosen for the reference (CT automatic)
};

/// Relative L2 difference from the reference back end's potential above which compare fails.
constexpr double kCompareTolerance = 1e-12;

Table compare_table(const CompareReport& r) {
  Table table;
  table.group = "compare";
  table.attributes = {{"version", version()}, {"created", utc_now()}};
  if (!r.rows.empty()) table.attributes.emplace_back("input", r.rows.front().run.input);
  table.attributes.emplace_back("construction", r.construction);
  auto text = [&](const char* name, auto get) {
    TableColumn c;
    c.name = name;
    c.is_text = true;
    for (const CompareRow& row : r.rows) c.texts.push_back(get(row));
    table.columns.push_back(std::move(c));
  };
  auto number = [&](const std::string& name, const char* unit, auto get) {
    TableColumn c;
    c.name = name;
    c.unit = unit;
    for (const CompareRow& row : r.rows) c.numbers.push_back(static_cast<double>(get(row)));
    table.columns.push_back(std::move(c));
  };
  // The report fields with use `bit`: a field of text values (the tree's kind) is a text column.
  auto fields = [&](unsigned bit) {
    for (const ReportField& f : report_fields()) {
      if (!(f.use & bit)) continue;
      if (!r.rows.empty() && f.get(r.rows.front().run).is_string()) {
        text(f.key, [&f](const CompareRow& x) { return f.get(x.run).get<std::string>(); });
        continue;
      }
      number(f.key, f.unit, [&f](const CompareRow& x) {
        const json v = f.get(x.run);
        return v.is_number() ? v.get<double>() : kNaN;
      });
    }
  };
  text("backend", [](const CompareRow& x) { return x.run.options.backend; });
  fields(kColumnHead);
  number("rel_l2" + kVsReference, "", [](const CompareRow& x) { return x.vs_reference.rel_l2; });
  number("max_abs" + kVsReference, "", [](const CompareRow& x) { return x.vs_reference.max_abs; });
  fields(kCompared);
  number(kSpeedupReference + "_near", "", [](const CompareRow& x) { return x.speedup_near; });
  number(kSpeedupReference + "_total", "", [](const CompareRow& x) { return x.speedup_total; });
  number(kSpeedupBaseline + "_near", "",
         [](const CompareRow& x) { return x.speedup_baseline_near; });
  number(kSpeedupBaseline + "_total", "",
         [](const CompareRow& x) { return x.speedup_baseline_total; });
  fields(kColumnTail);
  return table;
}

std::string table_help() {
  std::vector<std::string> columns;
  for (const TableColumn& c : compare_table(CompareReport{}).columns) {
    columns.push_back(c.name + (c.unit.empty() ? "" : " (" + c.unit + ")"));
  }
  return "Table file columns (--output; CSV header order, or /compare/<name> in HDF5):\n" +
         wrap_text(join(columns, ", "), 98, "  ") +
         "\n  rel_l2, max_abs: potential against direct summation; *_vs_cpu: against the cpu back "
         "end;\n  near, far, total and near_*: seconds of the evaluation with the median total.\n"
         "\n" +
         wrap_text("JSON (--report json): command, version, construction, the geometry (" +
                       join(keys_with(kGeometry), ", ") +
                       "), reference (sampled, n_checked, direct_seconds), backends (one evaluate "
                       "report each, as in mlfma2d --help, plus rel_l2_vs_cpu, max_abs_vs_cpu, "
                       "speedup_vs_cpu {near, total}, speedup_vs_indexing {near, total} or null), "
                       "skipped ({backend, reason}), and auto with --levels auto.",
                   98) +
         "\n";
}

std::string compare_help() {
  return help_page(
      "mlfma2d compare: every near-field back end on one geometry, verified and timed\n\n"
      "Usage:\n  mlfma2d compare [--input FILE] [--backends A,B] [--repeat K] "
      "[--output FILE.csv|.h5] [tree options]\n",
      "One Solver per back end, built on the same points and options (the tree is "
      "deterministic,\nso all share the same tree); cpu always runs first: it is the "
      "reference and the baseline.\nDirect summation runs once and checks every back end. "
      "Back ends not available here are\nskipped with the reason. An input of nd densities of "
      "charges is evaluated whole by each\nback end (errors: the worst density's); dipoles and "
      "--hessian are refused (the papers'\nback ends take neither): mlfma2d --verify checks "
      "them.\n",
      compare_description(), table_help(),
      "as mlfma2d --help; 4 also when a back end disagrees with cpu (rel L2 > 1e-12).");
}

json to_json(const CompareReport& r) {
  json j;
  j["command"] = "compare";
  j["version"] = version();
  j["construction"] = r.construction;
  j["output"] = r.output.empty() ? json(nullptr) : json(r.output);
  if (!r.rows.empty()) {
    // The geometry is the same for every row; repeated here for convenience.
    const RunReport& first = r.rows.front().run;
    for (const ReportField& f : report_fields()) {
      if (f.use & kGeometry) j[f.key] = f.get(first);
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
    b["rel_l2" + kVsReference] = row.vs_reference.rel_l2;
    b["max_abs" + kVsReference] = row.vs_reference.max_abs;
    b[kSpeedupReference] = {{"near", number_or_null(row.speedup_near)},
                            {"total", number_or_null(row.speedup_total)}};
    b[kSpeedupBaseline] = std::isfinite(row.speedup_baseline_near)
                              ? json{{"near", number_or_null(row.speedup_baseline_near)},
                                     {"total", number_or_null(row.speedup_baseline_total)}}
                              : json(nullptr);
    rows.push_back(b);
  }
  j["backends"] = rows;
  json skipped = json::array();
  for (const auto& [name, why] : r.skipped) skipped.push_back({{"backend", name}, {"reason", why}});
  j["skipped"] = skipped;
  if (r.auto_selection.done) {
    RunReport with_auto;
    with_auto.auto_selection = r.auto_selection;
    j["auto"] = section_json(with_auto, "auto");
  }
  return j;
}

std::string to_text(const CompareReport& r) {
  if (r.rows.empty()) return "compare: no back end ran\n";
  const RunReport& first = r.rows.front().run;
  std::string out = title_line(first, " compare") + field_lines(first, "input", "expansion");
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
  if (r.auto_selection.done) out += auto_text(r.auto_selection, 0);
  for (const std::string& line : grouped_reasons(r.skipped)) {
    out += "skipped         " + line + "\n";
  }

  out += format("\n%-15s", "times (ms)");
  for (const ReportField& f : report_fields())
    if (f.use & kCompared) out += format(" %13s", f.key);
  out += "\n";
  for (const CompareRow& row : r.rows) {
    out += format("%-15s", row.run.options.backend.c_str());
    for (const ReportField& f : report_fields())
      if (f.use & kCompared) out += format(" %13.3f", 1e3 * f.get(row.run).get<double>());
    out += "\n";
  }

  // "idx" abbreviates the papers' baseline back end.
  const std::string ref = kReferenceBackend;
  out += format("\n%-15s %10s %10s %10s %10s %10s %10s %10s %12s %10s\n", "back end", "rel L2",
                "max abs", ("L2 vs " + ref).c_str(), ("near/" + ref).c_str(),
                ("total/" + ref).c_str(), "near/idx", "total/idx", "device mem", "pairs/s");
  for (const CompareRow& row : r.rows) {
    const RunReport& x = row.run;
    out +=
        format("%-15s %10.2e %10.2e %10.2e %10s %10s %10s %10s %12s %10.3g\n",
               x.options.backend.c_str(), x.verification.rel_l2, x.verification.max_abs,
               row.vs_reference.rel_l2, ratio_text(row.speedup_near).c_str(),
               ratio_text(row.speedup_total).c_str(), ratio_text(row.speedup_baseline_near).c_str(),
               ratio_text(row.speedup_baseline_total).c_str(),
               x.stats.device_memory ? human_bytes(x.stats.device_memory).c_str() : "-",
               pairs_per_second(x));
  }
  out += format(
      "(rel L2, max abs: potential against direct summation; L2 vs %s: against the %s back\n"
      " end; near/%s, total/%s: speedup of the near field and of the whole evaluation over\n"
      " %s; near/idx, total/idx: the same over %s, '-' when it did not run)\n",
      ref.c_str(), ref.c_str(), ref.c_str(), ref.c_str(), ref.c_str(), kBaselineBackend);
  return out;
}

// The options for the sources of `in` that --sources keeps. nd densities of charges: every back
// end takes them (those that sum one density at a time, looped); dipoles and the Hessian only
// some, and not the papers' layouts compare is about.
Options compared_sources(LoadedInput* in, const EvaluateArgs& a) {
  select_sources(in, a.sources);
  if (in->points.has_dipoles()) {
    throw InvalidInput("compare: " + in->input +
                       " holds dipoles, which the papers' back ends do not take: compare its "
                       "charges (--sources charges), or verify the dipoles with mlfma2d --verify");
  }
  return with_sources_of(in->points, a.options);
}

int run_compare(const CompareArgs& args, std::ostream& out, std::ostream& err) {
  const EvaluateArgs& a = args.common;
  const Progress progress(err, a.quiet);
  LoadedInput in = resolve_input(a.input, a.targets, a.quiet, err);
  if (!a.output.empty()) {
    check_not_an_input("output", a.output, in);
    check_writable(a.output);
  }

  // The reference first: every other back end is checked against it.
  std::vector<std::string> wanted = args.backends.empty() ? near_field_backends() : args.backends;
  std::vector<std::string> runnable = {kReferenceBackend};
  CompareReport report;
  report.construction =
      "one Solver per back end, built on the same points and options (the tree is "
      "deterministic, so all share the same tree; with CT automatic, the one the cost model "
      "chose for the reference)";
  for (const std::string& b : wanted) {
    if (b != kReferenceBackend && near_field_backend_available(b)) runnable.push_back(b);
  }
  report.skipped = unavailable_backends(wanted);
  for (const std::string& line : grouped_reasons(report.skipped)) {
    if (!a.quiet) err << "compare: skipping " << line << "\n";
  }

  read_input(&in, progress);
  Options options = compared_sources(&in, a);
  Reference reference;
  {
    const auto step = progress.step("direct summation (the reference, once for every back end)");
    reference = direct_reference(in, options, a.verify_sample, a.seed);
  }

  Result reference_result;
  for (const std::string& b : runnable) {
    Options o = options;
    o.backend = b;
    CompareRow row;
    Result result = run_solver(in, o, a.repeat, progress, "compare: " + b + ": ",
                               b == runnable.front(), err, &row.run);
    row.run.verification =
        verify(reference, result, o.eps, o.terms == 0, row.run.stats.accuracy_floor);
    if (b == kReferenceBackend) {
      reference_result = std::move(result);
    } else {
      row.vs_reference = error_norms(result.potential, reference_result.potential);
    }
    if (b == kReferenceBackend && row.run.auto_selection.levels_auto) {
      // CT automatic: the depth the cost model chose for the reference, shared by every back end
      // (one tree for all).
      report.auto_selection = row.run.auto_selection;
      report.auto_selection.backend_auto = false;
      options.ct = row.run.options.ct;
      options.level_offset = row.run.options.level_offset;
    }
    row.run.auto_selection = {};
    report.rows.push_back(std::move(row));
  }

  const CompareRow* ref = &report.rows.front();
  const CompareRow* baseline = nullptr;
  for (const CompareRow& row : report.rows)
    if (row.run.options.backend == kBaselineBackend) baseline = &row;
  for (CompareRow& row : report.rows) {
    const Timings& t = row.run.timings;
    row.speedup_near = speedup(ref->run.timings.near, t.near);
    row.speedup_total = speedup(ref->run.timings.total, t.total);
    row.speedup_baseline_near = baseline ? speedup(baseline->run.timings.near, t.near) : kNaN;
    row.speedup_baseline_total = baseline ? speedup(baseline->run.timings.total, t.total) : kNaN;
    if (row.run.stats.near_pairs != ref->run.stats.near_pairs ||
        row.run.stats.levels != ref->run.stats.levels) {
      err << "warning: " << row.run.options.backend << " built a different tree than "
          << kReferenceBackend << " (L " << row.run.stats.levels << " vs " << ref->run.stats.levels
          << ")\n";
    }
  }

  if (!a.output.empty()) {
    const auto step = progress.step("writing " + a.output);
    report.output = a.output;
    write_table(a.output, compare_table(report));
  }
  print_report(out,
               a.report == ReportFormat::Json ? to_json(report).dump(2) + "\n" : to_text(report));

  for (const CompareRow& row : report.rows) {
    if (!(row.vs_reference.rel_l2 <= kCompareTolerance)) {
      throw RuntimeFailure(
          format("compare: back end '%s' disagrees with %s: relative L2 difference %.3e > %.0e",
                 row.run.options.backend.c_str(), kReferenceBackend, row.vs_reference.rel_l2,
                 kCompareTolerance));
    }
  }
  return 0;
}

ParsedCommand parse(const po::variables_map& vm, const std::vector<std::string>&,
                    const std::vector<std::string>&) {
  CompareArgs a;
  a.common = evaluate_args(vm);
  a.common.verify = true;  // compare always checks against direct summation
  if (a.common.options.hessian) {
    throw InvalidInput(
        "--hessian: compare does not take it (the papers' back ends compute no Hessian); "
        "verify the Hessian with mlfma2d --hessian --verify");
  }
  if (!a.common.model.empty())
    throw InvalidInput("--model chooses one back end: compare runs them all (--backends)");
  if (auto v = value_of(vm, "backends")) a.backends = backends_option("backends", *v);
  return command("compare", a, run_compare);
}

}  // namespace

CommandRow compare_command() {
  return {
      "compare",
      "compare",
      "  mlfma2d compare [options]         every back end on one geometry: errors, phase times,\n"
      "                                    speedups (see mlfma2d compare --help)\n",
      compare_description,
      compare_help,
      false,
      parse};
}

}  // namespace mlfma2d::app
