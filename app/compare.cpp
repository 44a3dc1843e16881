#include "app/compare.hpp"

#include <hdf5.h>
#include <omp.h>
#include <unistd.h>

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <limits>
#include <ostream>

#include "app/auto_select.hpp"
#include "app/common.hpp"
#include "mlfma2d/io.hpp"

namespace mlfma2d::app {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  char buffer[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  return buffer;
}

std::string utc_now() {
  char buffer[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buffer;
}

double speedup(double base, double mine) {
  return base > 0 && mine > 0 ? base / mine : kNaN;
}

// ---- Table files.

std::string csv_table(const CompareReport& r) {
  const std::vector<TableColumn> cols = compare_columns(r);
  std::string out = format("# mlfma2d %s compare, %s\n", version(), utc_now().c_str());
  if (!r.rows.empty()) out += "# input = " + r.rows.front().run.input + "\n";
  out += "# times in seconds, device_memory in bytes; speedups are ratios (empty: not measured)\n";
  for (std::size_t c = 0; c < cols.size(); ++c) out += (c ? "," : "") + cols[c].name;
  out += "\n";
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    for (std::size_t c = 0; c < cols.size(); ++c) {
      if (c) out += ",";
      if (cols[c].is_text) {
        out += cols[c].texts[i];
      } else if (std::isfinite(cols[c].numbers[i])) {
        out += format("%.9g", cols[c].numbers[i]);
      }
    }
    out += "\n";
  }
  return out;
}

// HDF5 handles closed on every path; each failure names the file and the dataset.
class H5 {
 public:
  H5(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~H5() {
    if (id_ >= 0) close_(id_);
  }
  H5(const H5&) = delete;
  H5& operator=(const H5&) = delete;
  hid_t get() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

void h5_check(bool ok, const std::string& path, const std::string& what) {
  if (!ok) throw IoError("cannot write '" + path + "': HDF5 failed to write " + what);
}

void h5_string_attribute(hid_t on, const char* name, const std::string& value,
                         const std::string& path) {
  H5 type(H5Tcopy(H5T_C_S1), H5Tclose);
  h5_check(type.get() >= 0 && H5Tset_size(type.get(), std::max<std::size_t>(1, value.size())) >= 0,
           path, std::string("attribute ") + name);
  H5 space(H5Screate(H5S_SCALAR), H5Sclose);
  H5 attr(H5Acreate2(on, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  h5_check(attr.get() >= 0 && H5Awrite(attr.get(), type.get(), value.c_str()) >= 0, path,
           std::string("attribute ") + name);
}

void hdf5_table(const std::string& tmp, const std::string& path, const CompareReport& r) {
  H5E_auto2_t handler = nullptr;
  void* data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &handler, &data);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // our messages, not the HDF5 error stack
  struct Restore {
    H5E_auto2_t handler;
    void* data;
    ~Restore() { H5Eset_auto2(H5E_DEFAULT, handler, data); }
  } restore{handler, data};

  H5 file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  h5_check(file.get() >= 0, path, "the file");
  H5 group(H5Gcreate2(file.get(), "compare", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  h5_check(group.get() >= 0, path, "group /compare");
  h5_string_attribute(group.get(), "version", version(), path);
  h5_string_attribute(group.get(), "created", utc_now(), path);
  if (!r.rows.empty()) h5_string_attribute(group.get(), "input", r.rows.front().run.input, path);
  h5_string_attribute(group.get(), "construction", r.construction, path);
  const hsize_t n = r.rows.size();
  for (const TableColumn& c : compare_columns(r)) {
    const std::string where = "dataset /compare/" + c.name;
    H5 space(H5Screate_simple(1, &n, nullptr), H5Sclose);
    if (c.is_text) {
      H5 type(H5Tcopy(H5T_C_S1), H5Tclose);
      h5_check(type.get() >= 0 && H5Tset_size(type.get(), H5T_VARIABLE) >= 0, path, where);
      std::vector<const char*> texts;
      for (const std::string& t : c.texts) texts.push_back(t.c_str());
      H5 d(H5Dcreate2(group.get(), c.name.c_str(), type.get(), space.get(), H5P_DEFAULT,
                      H5P_DEFAULT, H5P_DEFAULT),
           H5Dclose);
      h5_check(d.get() >= 0 && (n == 0 || H5Dwrite(d.get(), type.get(), H5S_ALL, H5S_ALL,
                                                   H5P_DEFAULT, texts.data()) >= 0),
               path, where);
      h5_string_attribute(d.get(), "unit", c.unit, path);
    } else {
      H5 d(H5Dcreate2(group.get(), c.name.c_str(), H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT,
                      H5P_DEFAULT, H5P_DEFAULT),
           H5Dclose);
      h5_check(d.get() >= 0 && (n == 0 || H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                                                   H5P_DEFAULT, c.numbers.data()) >= 0),
               path, where);
      h5_string_attribute(d.get(), "unit", c.unit, path);
    }
  }
  h5_check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL) >= 0, path, "the file");
}

}  // namespace

void write_compare_table(const std::string& path, const CompareReport& report) {
  if (format_of(path) == FileFormat::Csv) {
    write_text_file(path, csv_table(report));
  } else {
    write_atomically(path, [&](const std::string& tmp) { hdf5_table(tmp, path, report); });
  }
}

std::string compare_help_columns() {
  std::string s = "Table file columns (--output; CSV header order, or /compare/<name> in HDF5):\n ";
  std::size_t width = 1;
  for (const TableColumn& c : compare_columns(CompareReport{})) {
    const std::string item = " " + c.name + (c.unit.empty() ? "" : " (" + c.unit + ")") + ",";
    if (width + item.size() > 98) {
      s += "\n ";
      width = 1;
    }
    s += item;
    width += item.size();
  }
  s.back() = '\n';
  s += "  rel_l2, max_abs: potential against direct summation; *_vs_cpu: against the cpu back "
       "end;\n  near, far, total and near_*: seconds of the evaluation with the median total.\n"
       "\nJSON (--report json): command, version, construction, the geometry (input, n_sources, "
       "n_targets,\nlevels, levels_ct, level_offset, ct, t, D, terms, eps, leaf_boxes, "
       "near_pairs, threads, field,\nrepeat), reference (sampled, n_checked, direct_seconds), "
       "backends (one evaluate report each,\nas in mlfma2d --help, plus rel_l2_vs_cpu, "
       "max_abs_vs_cpu, speedup_vs_cpu {near, total},\nspeedup_vs_indexing {near, total} or "
       "null), skipped ({backend, reason}), and auto with --levels auto.\n";
  return s;
}

int run_compare(const CompareArgs& args, std::ostream& out, std::ostream& err) {
  const EvaluateArgs& a = args.common;
  const Progress progress(err, !a.quiet && ::isatty(STDERR_FILENO));
  LoadedInput in = resolve_input(a.input, a.targets, a.quiet, err);
  if (!a.output.empty()) {
    check_not_an_input("output", a.output, in);
    check_output_path(a.output);
  }

  // cpu first: it is the reference of every other back end and the speedups' baseline.
  std::vector<std::string> wanted = args.backends.empty() ? near_field_backends() : args.backends;
  std::vector<std::string> runnable = {"cpu"};
  CompareReport report;
  report.construction =
      "one Solver per back end, built on the same points and options (the tree is "
      "deterministic, so all share the same tree)";
  for (const std::string& b : wanted) {
    if (b == "cpu") continue;
    std::string why;
    if (near_field_backend_available(b, &why)) {
      runnable.push_back(b);
    } else {
      report.skipped.emplace_back(b, why);
      if (!a.quiet) err << "compare: skipping " << b << ": " << why << "\n";
    }
  }

  read_input(&in, progress);
  const PointSet& points = in.points;
  Options options = a.options;
  if (a.levels_auto) {
    progress.stage("choosing the level offset...");
    AutoRequest request;
    request.levels_auto = true;
    request.backend_auto = true;  // the offset that is best with the best back end at it
    request.backends = runnable;
    request.model_path = a.model;
    report.auto_selection = auto_select(points, options, request, progress.stream());
    options.level_offset = report.auto_selection.level_offset;
  }

  progress.stage("direct summation (the reference, once for every back end)...");
  const Reference reference =
      direct_reference(in, options.field, a.verify_sample, a.seed, options.threads);

  Result cpu_result;
  bool warned = false;
  for (const std::string& b : runnable) {
    Options o = options;
    o.backend = b;
    progress.stage("compare: " + b + ": building tree and plan...");
    Solver solver = in.self() ? Solver(points.x, points.y, o)
                              : Solver(points.x, points.y, points.tx, points.ty, o);
    if (!warned) {
      for (const std::string& w : solver.warnings()) err << "warning: " << w << "\n";
      warned = true;
    }
    std::vector<Timings> runs;
    Result result;
    for (int k = 1; k <= a.repeat; ++k) {
      progress.stage("compare: " + b + ": evaluating " + std::to_string(k) + "/" +
                     std::to_string(a.repeat) + "...");
      result = solver.evaluate(points.q);
      runs.push_back(solver.timings());
    }
    CompareRow row;
    RunReport& r = row.run;
    r.input = in.input;
    r.targets_input = in.targets_input;
    r.options = o;
    r.threads_used = o.threads > 0 ? o.threads : omp_get_max_threads();
    r.stats = solver.stats();
    r.timings = runs[median_run(runs)];
    r.repeat = a.repeat;
    for (const Timings& t : runs) r.totals.push_back(t.total);
    r.warnings = solver.warnings();
    r.verification = verify(reference, result);
    if (b == "cpu") {
      cpu_result = std::move(result);
    } else {
      row.vs_cpu = compare_results(result, cpu_result);
    }
    report.rows.push_back(std::move(row));
  }

  const CompareRow* cpu = &report.rows.front();
  const CompareRow* indexing = nullptr;
  for (const CompareRow& row : report.rows)
    if (row.run.options.backend == "indexing") indexing = &row;
  for (CompareRow& row : report.rows) {
    const Timings& t = row.run.timings;
    row.speedup_cpu_near = speedup(cpu->run.timings.near, t.near);
    row.speedup_cpu_total = speedup(cpu->run.timings.total, t.total);
    row.speedup_indexing_near = indexing ? speedup(indexing->run.timings.near, t.near) : kNaN;
    row.speedup_indexing_total = indexing ? speedup(indexing->run.timings.total, t.total) : kNaN;
    if (row.run.stats.near_pairs != cpu->run.stats.near_pairs ||
        row.run.stats.levels != cpu->run.stats.levels) {
      err << "warning: " << row.run.options.backend << " built a different tree than cpu (L "
          << row.run.stats.levels << " vs " << cpu->run.stats.levels << ")\n";
    }
  }

  if (!a.output.empty()) {
    progress.stage("writing " + a.output + "...");
    report.output = a.output;
    write_compare_table(a.output, report);
  }
  if (a.report == ReportFormat::Json) {
    out << to_json(report).dump(2) << "\n";
  } else {
    out << to_text(report);
  }
  out.flush();
  if (!out) throw IoError("cannot write the report to standard output");

  for (const CompareRow& row : report.rows) {
    if (!(row.vs_cpu.rel_l2 <= kCompareTolerance)) {
      throw RuntimeFailure(
          format("compare: back end '%s' disagrees with cpu: relative L2 "
                 "difference %.3e > %.0e",
                 row.run.options.backend.c_str(), row.vs_cpu.rel_l2, kCompareTolerance));
    }
  }
  return 0;
}

}  // namespace mlfma2d::app
