// `mlfma2d sweep NAME`, the run (app/sweep.hpp): the configurations measured back end by back
// end through the tuning module's harness, each row written as it is measured, then the model
// fit, the plots, the metadata and the summary. The command's options and help: app/sweep.cpp.
#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "app/inputs.hpp"
#include "app/plots.hpp"
#include "app/progress.hpp"
#include "app/report.hpp"
#include "app/sweep.hpp"
#include "mlfma2d/io.hpp"
#include "runtime/atomic_file.hpp"
#include "runtime/host.hpp"
#include "runtime/text.hpp"
#include "tuning/model.hpp"
#include "tuning/tuning.hpp"

namespace mlfma2d::app {

namespace fs = std::filesystem;
using namespace tuning;

namespace {

/// \brief One configuration of a sweep.
struct SweepPoint {
  std::size_t n = 0;     ///< points (uniform, targets = sources)
  int level_offset = 0;  ///< i, applied after CT fixed L (levels sweep)
  int grid_levels = 0;   ///< levels sweep: the L of N = 4^(L-1); else 0
};

/// A back end must agree with the reference to this relative L2 difference (same double sums).
constexpr double kSweepTolerance = 1e-12;
/// Configurations beyond these are skipped as absurd (hours of cpu time, or a repetition layout
/// of tens of GiB per evaluation): near-field pairs, and N (3 + 27 t) 8 bytes.
constexpr double kMaxSweepPairs = 4e9;
constexpr double kMaxRepetitionBytes = 32.0 * (1ull << 30);

std::vector<std::size_t> steps(std::size_t from, std::size_t to, std::size_t step) {
  std::vector<std::size_t> out;
  for (std::size_t n = from; n <= to; n += step) out.push_back(n);
  return out;
}

std::string point_label(const std::string& sweep, const SweepPoint& p) {
  if (sweep == "levels")
    return format("L = %d (N = %zu), i = %+d", p.grid_levels, p.n, p.level_offset);
  return format("N = %zu", p.n);
}

std::vector<SweepPoint> sweep_points(const SweepArgs& a) {
  std::vector<SweepPoint> out;
  std::vector<std::size_t> sizes = a.sizes;
  if (a.name == "collection") {
    if (sizes.empty()) {
      if (a.quick) {
        sizes = steps(10000, 100000, 30000);
        sizes.insert(sizes.end(), {200000, 350000});
      } else {
        sizes = steps(5000, 100000, 5000);  // paper 1 sec. 4.1.1
        const auto more = steps(150000, 350000, 50000);
        sizes.insert(sizes.end(), more.begin(), more.end());
      }
    }
  } else if (a.name == "kernel") {
    if (sizes.empty()) {
      if (a.quick) {
        sizes = steps(1000, 100000, 33000);
        sizes.insert(sizes.end(), {250000, 500000, 1000000});
      } else {
        sizes = steps(1000, 100000, 1000);  // paper 1 sec. 4.1.2
        const auto more = steps(150000, 1000000, 50000);
        sizes.insert(sizes.end(), more.begin(), more.end());
      }
    }
  } else if (a.name == "levels") {
    std::vector<int> ls = a.grid_levels;
    if (ls.empty())
      for (int l = 4; l <= (a.quick ? 9 : 11); ++l) ls.push_back(l);  // paper 1 eq. 34
    std::vector<int> is = a.offsets;
    if (is.empty())
      for (int i = -3; i <= 3; ++i) is.push_back(i);
    for (int l : ls)
      for (int i : is) out.push_back({std::size_t(1) << (2 * (l - 1)), i, l});
    return out;
  } else {
    throw InvalidInput("sweep: unknown experiment '" + a.name +
                       "' (valid: " + join(sweep_names(), ", ") + ")");
  }
  for (std::size_t n : sizes) out.push_back({n, 0, 0});
  return out;
}

int sweep_repeats(const SweepArgs& a) {
  return a.repeat > 0 ? a.repeat : (a.quick ? 3 : 20);
}

// The sweep's CSV: grown row by row in NAME.csv.partial (kept when the run fails or is killed,
// with the rows it measured), renamed to NAME.csv when the sweep is complete.
class SweepCsv {
 public:
  SweepCsv(const std::string& path, const std::string& head)
      : tmp_(path, Unfinished::keep_partial), file_(std::fopen(tmp_.path().c_str(), "w")) {
    if (!file_) throw IoError(cannot_write(tmp_.path(), std::strerror(errno)));
    append(head);
  }
  // One or more whole lines, on disk at once: a killed run keeps them.
  void append(const std::string& lines) {
    std::fputs((lines + "\n").c_str(), file_.get());
    std::fflush(file_.get());
  }
  void commit() {
    if (std::fflush(file_.get()) != 0 || std::ferror(file_.get())) {
      throw IoError(cannot_write(tmp_.path(), "write failed (disk full?)"));
    }
    file_.reset();
    tmp_.commit();
  }

 private:
  struct Close {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  TemporaryFile tmp_;
  std::unique_ptr<std::FILE, Close> file_;
};

// One sweep's run: its settings, back ends and files, then what it measured and skipped.
struct Sweep {
  const SweepArgs& a;
  std::vector<SweepPoint> points;
  int repeat = 0, threads = 0;
  std::string dir, csv;
  std::vector<std::string> runnable;                         ///< the reference first
  std::vector<std::pair<std::string, std::string>> skipped;  ///< back ends not here, why
  bool need_reference = false;  ///< a back end to check against the reference
  int fixed_levels = 0;         ///< the kernel sweep's L; 0 elsewhere
  std::string fixed_note;
  std::vector<nlohmann::json> skipped_configs;
  std::vector<SweepRow> rows;
};

// The back ends to run: the reference first, those not available here skipped with the reason.
void choose_backends(Sweep* s, std::ostream& err) {
  const SweepArgs& a = s->a;
  std::vector<std::string> wanted = a.backends.empty() ? near_field_backends() : a.backends;
  std::stable_partition(wanted.begin(), wanted.end(),
                        [](const std::string& b) { return b == kReferenceBackend; });
  s->skipped = unavailable_backends(wanted);
  for (const std::string& b : wanted) {
    if (near_field_backend_available(b)) s->runnable.push_back(b);
  }
  for (const std::string& line : grouped_reasons(s->skipped)) {
    if (!a.quiet) err << "sweep " << a.name << ": skipping " << line << "\n";
  }
  if (s->runnable.empty()) throw BackendUnavailable("sweep: none of the back ends can run here");
  s->need_reference = s->runnable.front() != kReferenceBackend || s->runnable.size() > 1;
}

// The kernel sweep keeps CT and L fixed (paper 1 sec. 4.1.2): L from the largest N.
void fix_levels(Sweep* s, std::ostream& err) {
  const SweepArgs& a = s->a;
  if (a.name != "kernel") return;
  std::size_t n_max = 0;
  for (const SweepPoint& p : s->points) n_max = std::max(n_max, p.n);
  if (a.fixed_levels > 0) {
    s->fixed_levels = a.fixed_levels;
    s->fixed_note = format("L fixed at %d (--fix-levels)", s->fixed_levels);
  } else {
    const PointSet big = generate_points(a.shape, n_max, a.seed);
    s->fixed_levels = levels_by_ct(big.x, big.y, {}, {}, a.ct, s->threads);
    s->fixed_note = format("L fixed at %d = the level CT %d fixes for the largest N (%zu)",
                           s->fixed_levels, a.ct, n_max);
  }
  if (!a.quiet) err << "sweep kernel: " << s->fixed_note << "\n";
}

// The sweep's settings, its output folder made and its CSV's path checked, before any work.
Sweep start_sweep(const SweepArgs& a, std::ostream& err) {
  Sweep s{a};
  s.points = sweep_points(a);
  s.repeat = sweep_repeats(a);
  s.threads = a.threads > 0 ? a.threads : omp_get_max_threads();
  s.dir = a.output_dir.empty() ? "sweep-" + a.name + (a.quick ? "-quick" : "") : a.output_dir;
  std::error_code ec;
  fs::create_directories(s.dir, ec);
  if (ec || !fs::is_directory(s.dir)) {
    throw IoError("cannot create the output folder '" + s.dir + "'" +
                  (ec ? ": " + ec.message() : std::string()));
  }
  s.csv = (fs::path(s.dir) / (a.name + ".csv")).string();
  check_writable(s.csv);
  choose_backends(&s, err);
  fix_levels(&s, err);
  return s;
}

// The CSV's '#' lines and its header.
std::string csv_head(const Sweep& s) {
  const SweepArgs& a = s.a;
  std::string head =
      format("# mlfma2d %s sweep %s%s, %s, %s\n", version(), a.name.c_str(),
             a.quick ? " (quick)" : "", utc_now().c_str(), a.command_line.c_str()) +
      format("# shape %s, seed %llu, CT %d, repeat %d (medians), warmup %d, threads %d\n",
             a.shape.c_str(), static_cast<unsigned long long>(a.seed), a.ct, s.repeat, a.warmup,
             s.threads);
  if (!s.fixed_note.empty()) head += "# " + s.fixed_note + "\n";
  head += "# times in seconds; near_total = the back end's evaluate() wall time\n";
  return head + sweep_csv_header();
}

// Why configuration `tree` is not run, or "" when it is.
std::string too_large(const Sweep& s, const TreeStats& tree) {
  if (tree.levels < 2) return format("L + i = %d < 2: no tree to speak of", tree.levels);
  if (double(tree.near_pairs) > kMaxSweepPairs) {
    return format("%.3g near-field pairs per evaluation (more than %.0e: absurd here)",
                  double(tree.near_pairs), kMaxSweepPairs);
  }
  const double rep_bytes = double(tree.n_targets) * (3 + 27.0 * double(tree.t)) * 8;
  const bool replicates = std::any_of(s.runnable.begin(), s.runnable.end(), replicates_sources);
  if (replicates && rep_bytes > kMaxRepetitionBytes) {
    return format("the repetition layout would need %.1f GiB per evaluation (t = %zu)",
                  rep_bytes / double(1ull << 30), tree.t);
  }
  return "";
}

// The columns every back end's row of one configuration shares: the tree's figures.
SweepRow tree_row(const Sweep& s, long config, const SweepPoint& p, const TreeStats& tree) {
  SweepRow base;
  base.sweep = s.a.name;
  base.config = config;
  base.n = double(tree.n_targets);
  base.ct = s.a.ct;
  base.level_offset = tree.levels - tree.levels_ct;
  base.levels_ct = tree.levels_ct;
  base.levels = tree.levels;
  base.grid_levels = p.grid_levels > 0 ? p.grid_levels : tree.levels;
  base.t = double(tree.t);
  base.D = tree.D;
  base.leaf_boxes = double(tree.leaf_boxes);
  base.boxes = double(tree.boxes);
  base.near_pairs = double(tree.near_pairs);
  base.threads = s.threads;
  return base;
}

// The levels sweep also times the far field of each tree (a cpu Solver, median of the
// repeats): the depth that is best is the one of least far + near, not of least near.
double far_field_seconds(const Sweep& s, const PointSet& pts, Options options) {
  options.backend = kReferenceBackend;
  Solver solver(pts.x, pts.y, options);
  std::vector<double> far;
  for (int k = 0; k < s.a.warmup + s.repeat; ++k) {
    solver.evaluate(pts.q);
    if (k >= s.a.warmup) far.push_back(solver.timings().far);
  }
  return median(far);
}

// A back end's row from its measurement.
SweepRow measured_row(SweepRow row, const std::string& backend, const NearFieldMeasurement& m) {
  row.backend = backend;
  row.repeat = m.repeat;
  row.phase = {m.collect, m.transfer, m.kernel, m.ret};
  row.near_total = m.total;
  row.near_total_mean = m.total_mean;
  row.near_total_min = m.total_min;
  row.device_bytes = double(m.device_bytes);
  row.chunks = double(m.chunks);
  row.pairs_per_second = row.near_total > 0 ? row.near_pairs / row.near_total : 0;
  return row;
}

// What a configuration's measurement needs: where it is, what it is, and where its rows go.
struct Configuration {
  const SweepPoint& point;
  std::string label;
  const PointSet& pts;
  NearFieldBench* bench;
  SweepRow base;
};

// A configuration or one back end on it not measured: noted, in the metadata, and its steps done.
void skip(Sweep* s, ProgressBar* bar, const SweepPoint& p, const std::string& label,
          const std::string& backend, const std::string& why) {
  nlohmann::json entry = {
      {"n", p.n}, {"level_offset", p.level_offset}, {"grid_levels", p.grid_levels}};
  if (backend.empty()) {
    bar->note("sweep " + s->a.name + ": skipping " + label + ": " + why);
  } else {
    bar->note("sweep " + s->a.name + ": " + label + ": " + backend + " failed: " + why);
    entry["backend"] = backend;
  }
  entry["reason"] = why;
  s->skipped_configs.push_back(entry);
  for (std::size_t k = 0; k < (backend.empty() ? s->runnable.size() : 1); ++k) bar->step();
}

// Every back end on one configuration, each checked against the reference, its row appended.
void measure_backends(Sweep* s, const Configuration& c, ProgressBar* bar, SweepCsv* file) {
  const SweepArgs& a = s->a;
  std::vector<double> reference;
  if (s->need_reference && s->runnable.front() != kReferenceBackend) {
    bar->label(c.label + ": " + kReferenceBackend + " reference");
    c.bench->setup(kReferenceBackend);
    c.bench->measure(c.pts.q, 0, 1, &reference);
  }
  for (const std::string& b : s->runnable) {
    bar->label(c.label + ": " + b);
    NearFieldMeasurement m;
    std::vector<double> potential;
    try {
      c.bench->setup(b);
      m = c.bench->measure(c.pts.q, a.warmup, s->repeat, &potential);
    } catch (const RuntimeFailure& e) {  // e.g. device memory: note it, go on with the rest
      skip(s, bar, c.point, c.label, b, e.what());
      continue;
    }
    SweepRow row = measured_row(c.base, b, m);
    if (b == kReferenceBackend) {
      reference = potential;
    } else {
      row.rel_l2_vs_cpu = error_norms(potential, reference).rel_l2;
      if (!(row.rel_l2_vs_cpu <= kSweepTolerance)) {
        throw RuntimeFailure(format(
            "sweep %s, %s: back end '%s' disagrees with %s: relative L2 difference %.3e > %.0e",
            a.name.c_str(), c.label.c_str(), b.c_str(), kReferenceBackend, row.rel_l2_vs_cpu,
            kSweepTolerance));
      }
    }
    file->append(sweep_csv_line(row));
    row.source = s->csv;
    s->rows.push_back(row);
    bar->step();
  }
}

// One configuration: its tree, the checks that it is worth running, then its back ends.
void measure_configuration(Sweep* s, long config, const SweepPoint& p, ProgressBar* bar,
                           SweepCsv* file) {
  const SweepArgs& a = s->a;
  const std::string label = point_label(a.name, p);
  bar->label(label + ": tree");
  const PointSet pts = generate_points(a.shape, p.n, a.seed);
  Options options;
  options.ct = a.ct;
  options.threads = s->threads;
  options.level_offset = p.level_offset;
  if (s->fixed_levels > 0) {
    options.level_offset = s->fixed_levels - levels_by_ct(pts.x, pts.y, {}, {}, a.ct, s->threads);
  }
  std::optional<NearFieldBench> bench;
  try {
    bench.emplace(pts.x, pts.y, std::vector<double>{}, std::vector<double>{}, options);
  } catch (const InvalidInput& e) {
    return skip(s, bar, p, label, "", e.what());
  }
  const TreeStats& tree = bench->stats();
  if (const std::string why = too_large(*s, tree); !why.empty()) {
    return skip(s, bar, p, label, "", why);
  }
  Configuration c{p, label, pts, &*bench, tree_row(*s, config, p, tree)};
  if (a.name == "levels") {
    bar->label(label + ": far field");
    c.base.far_total = far_field_seconds(*s, pts, options);
  }
  measure_backends(s, c, bar, file);
}

// Every configuration, each back end's row written as it is measured.
void measure(Sweep* s, std::ostream& err) {
  SweepCsv file(s->csv, csv_head(*s));
  ProgressBar bar(err, s->a.name, s->points.size() * s->runnable.size(), s->a.quiet);
  long config = 0;
  for (const SweepPoint& p : s->points) measure_configuration(s, ++config, p, &bar, &file);
  bar.finish();
  file.commit();
}

// What the sweep made after measuring: the model's files and the plots.
struct SweepOutputs {
  std::string model_json, model_txt;
  std::vector<std::string> pngs;
  std::string plot_note;
};

// The model over this sweep's rows (time models always; the speedup model with both GPU back
// ends), then the plots.
SweepOutputs fit_and_plot(const Sweep& s, std::ostream& err) {
  const SweepArgs& a = s.a;
  SweepOutputs o;
  const ModelFit fit = fit_model(s.rows);
  o.model_json = (fs::path(s.dir) / (a.name + "_model.json")).string();
  o.model_txt = (fs::path(s.dir) / (a.name + "_model.txt")).string();
  write_text_file(o.model_json, model_json(fit) + "\n");
  write_text_file(o.model_txt, fit_report(fit));
  if (a.no_plots) {
    o.plot_note = "plots not made (--no-plots)";
    return o;
  }
  o.pngs = make_plots(s.dir, s.rows, fit.runs.empty() ? nullptr : &fit, s.repeat, false, err,
                      &o.plot_note);
  if (!o.plot_note.empty() && !a.quiet) err << "sweep " << a.name << ": " << o.plot_note << "\n";
  return o;
}

// NAME_metadata.json: how the sweep ran, on what, and what it skipped and wrote.
void write_metadata(const Sweep& s, const SweepOutputs& o, double seconds) {
  const SweepArgs& a = s.a;
  nlohmann::json meta;
  meta["sweep"] = a.name;
  meta["quick"] = a.quick;
  meta["version"] = version();
  meta["date"] = utc_now();
  meta["command_line"] = a.command_line;
  meta["host_cpu"] = cpu_model_name().empty() ? "unknown" : cpu_model_name();
  meta["host_cores"] = omp_get_num_procs();
  meta["threads"] = s.threads;
  meta["backends"] = s.runnable;
  // The device back ends that ran (their names stand for the device; nvidia-smi names it).
  std::vector<std::string> device_backends;
  for (const std::string& b : s.runnable)
    if (b != kReferenceBackend) device_backends.push_back(b);
  meta["device_backends"] = device_backends;
  nlohmann::json sk = nlohmann::json::array();
  for (const auto& [b, why] : s.skipped) sk.push_back({{"backend", b}, {"reason", why}});
  meta["backends_skipped"] = sk;
  meta["shape"] = a.shape;
  meta["seed"] = a.seed;
  meta["ct"] = a.ct;
  meta["repeat"] = s.repeat;
  meta["warmup"] = a.warmup;
  meta["statistic"] = "median of repeat timed evaluations (per phase and total)";
  if (s.fixed_levels > 0) {
    meta["fixed_levels"] = s.fixed_levels;
    meta["fixed_levels_note"] = s.fixed_note;
  }
  meta["configurations"] = s.points.size();
  meta["rows"] = s.rows.size();
  meta["configurations_skipped"] = s.skipped_configs;
  meta["seconds"] = seconds;
  meta["csv"] = s.csv;
  meta["model"] = o.model_json;
  meta["plots"] = o.pngs;
  if (!o.plot_note.empty()) meta["plots_note"] = o.plot_note;
  write_text_file((fs::path(s.dir) / (a.name + "_metadata.json")).string(), meta.dump(2) + "\n");
}

// The summary's table: near-field time per back end and configuration; the levels sweep's also
// far + near (the whole evaluation) per back end.
void print_times(const Sweep& s, std::ostream& out) {
  const bool with_far = s.a.name == "levels";
  out << format("  %9s %3s %3s %5s %8s", "N", "i", "L", "t", "D");
  if (with_far) out << format(" %10s", "far ms");
  for (const std::string& b : s.runnable) out << format(" %17s", (b + " ms").c_str());
  if (with_far)
    for (const std::string& b : s.runnable) out << format(" %17s", ("total " + b).c_str());
  out << "\n";
  std::map<long, std::map<std::string, const SweepRow*>> by_config;
  for (const SweepRow& r : s.rows) by_config[r.config][r.backend] = &r;
  for (const auto& [id, m] : by_config) {
    const SweepRow& r = *m.begin()->second;
    out << format("  %9.0f %+3d %3d %5.0f %8.3g", r.n, r.level_offset, r.levels, r.t, r.D);
    if (with_far) out << format(" %10.4g", 1e3 * r.far_total);
    for (const std::string& b : s.runnable) {
      out << (m.count(b) ? format(" %17.4g", 1e3 * m.at(b)->near_total) : format(" %17s", "-"));
    }
    if (with_far) {
      for (const std::string& b : s.runnable) {
        out << (m.count(b) ? format(" %17.4g", 1e3 * (m.at(b)->far_total + m.at(b)->near_total))
                           : format(" %17s", "-"));
      }
    }
    out << "\n";
  }
}

// The summary on stdout: what ran, the times, and the files written.
void print_summary(const Sweep& s, const SweepOutputs& o, double seconds, std::ostream& out) {
  const SweepArgs& a = s.a;
  out << format(
      "sweep %s%s: %zu configurations x %zu back end(s) (%s), %d timed evaluations "
      "each (median), %s\n",
      a.name.c_str(), a.quick ? " (quick)" : "", s.points.size(), s.runnable.size(),
      join(s.runnable, ", ").c_str(), s.repeat, duration_text(seconds).c_str());
  for (const std::string& line : grouped_reasons(s.skipped)) out << "  skipped " << line << "\n";
  if (!s.fixed_note.empty()) out << "  " << s.fixed_note << "\n";
  print_times(s, out);
  out << "  CSV " << s.csv << "\n  model " << o.model_json << " (" << o.model_txt << ")\n";
  out << "  "
      << (o.pngs.empty() ? o.plot_note : std::to_string(o.pngs.size()) + " plots in " + s.dir)
      << "\n";
  out.flush();
  if (!out) throw IoError("cannot write the report to standard output");
}

}  // namespace

int run_sweep(const SweepArgs& a, std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  Sweep s = start_sweep(a, err);
  measure(&s, err);
  const SweepOutputs o = fit_and_plot(s, err);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_metadata(s, o, seconds);
  print_summary(s, o, seconds, out);
  return 0;
}

}  // namespace mlfma2d::app
