#include "app/sweep.hpp"

#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/inputs.hpp"
#include "app/options.hpp"
#include "app/plots.hpp"
#include "app/progress.hpp"
#include "app/report.hpp"
#include "mlfma2d/io.hpp"
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

// The sweeps `mlfma2d sweep` knows.
std::vector<std::string> sweep_names() {
  return {"collection", "kernel", "levels"};
}

/// A back end must agree with the reference to this relative L2 difference (same double sums).
constexpr double kSweepTolerance = 1e-12;
/// Configurations beyond these are skipped as absurd (hours of cpu time, or a repetition layout
/// of tens of GiB per evaluation): near-field pairs, and N (3 + 27 t) 8 bytes.
constexpr double kMaxSweepPairs = 4e9;
constexpr double kMaxRepetitionBytes = 32.0 * (1ull << 30);

po::options_description sweep_description() {
  return option_table(
      "Sweep",
      {{
           {"quick", nullptr, "the short variant (minutes, not hours); default: off"},
           {"repeat", "K",
            "timed evaluations per run, the median reported; default: 20 (3 with --quick)"},
           {"warmup", "W", "untimed evaluations before them; default: 1"},
           {"backends", "A,B,...",
            "back ends to run; default: all known, those not available here skipped"},
           {"output-dir", "DIR",
            "folder for the CSV, metadata JSON, gnuplot scripts and PNG plots (created); default: "
            "sweep-NAME (sweep-NAME-quick with --quick)"},
           {"sizes", "N1,N2,...",
            "replace the sweep's list of N (collection, kernel; for tests and quick looks)"},
           {"grid-levels", "L1,L2,...", "replace the levels sweep's list of L (N = 4^(L-1))"},
           {"offsets", "I1,I2,...", "replace the levels sweep's level offsets i (default -3..3)"},
           {"ct", "N", "clustering threshold; default: 15"},
           {"fix-levels", "L",
            "the kernel sweep's fixed tree height; default: L fixed by CT for the largest N"},
           {"shape", "NAME",
            "point-set shape (see mlfma2d generate --help); default: uniform (the papers' plate)"},
           {"seed", "S", "seed of the point sets; default: 1"},
           {"threads", "T",
            "OpenMP threads (the cpu back end, the GPU back ends' collection); default: OpenMP's"},
           {"no-plots", nullptr, "write the CSV only, no plots; default: off"},
       },
       closing_options(false, "no progress on stderr; default: off")});
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(' '));
        return v;
      }
    }
  }
  return "unknown";
}

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

std::string sweep_help_text() {
  return "Experiments (NAME), near field (P2P) only, as in the papers; uniform points on the\n"
         "unit square, targets = sources, CT 15. For each configuration the tree and plan are\n"
         "built once; each back end is set up once and evaluated K times on the same charges\n"
         "(after W untimed warm-ups); the medians of K are recorded per phase. Every back end is\n"
         "checked against cpu once (relative L2 <= 1e-12; a mismatch stops the sweep, exit 4).\n"
         "  collection  N = 5,000..100,000 step 5,000, then 150,000..350,000 step 50,000\n"
         "              (paper 1 Fig. 1); --quick: 10,000..100,000 step 30,000, 200,000, 350,000\n"
         "  kernel      N = 1,000..100,000 step 1,000, then 150,000..1,000,000 step 50,000, CT\n"
         "              and L fixed: L = the level CT fixes for the largest N (paper 1 Figs. 2,\n"
         "              3); --quick: 1,000..100,000 step 33,000, 250,000, 500,000, 1,000,000\n"
         "  levels      L = 4..11 x i = -3..+3, N = 4^(L-1), the tree height changed by i after\n"
         "              CT fixed it (paper 1 eq. 34, Figs. 4-6); --quick: L = 4..9. Skipped:\n"
         "              L + i < 2, more than 4e9 pairs, or a repetition layout over 32 GiB.\n"
         "Files in --output-dir: NAME.csv (one row per configuration and back end; columns:\n" +
         wrap_text(join(sweep_csv_columns(), ", "), 90, "  ") +
         "),\n"
         "  NAME_metadata.json (date, command line, host CPU, threads, back ends run and skipped,\n"
         "  fixed L, configurations skipped), NAME_model.json/.txt (the fit of 'model fit' on\n"
         "  this CSV), and PNG plots with their .dat data and .gp gnuplot scripts (if gnuplot is\n"
         "  missing the plots are skipped; scripts/plot-sweep DIR renders them later).\n"
         "Progress: a bar on stderr when it is a terminal, else a line per 10%.\n";
}

SweepArgs sweep_args_of(const po::variables_map& vm, const std::vector<std::string>& words,
                        const std::vector<std::string>& argv) {
  SweepArgs a;
  const auto names = sweep_names();
  const std::string valid = join(names, ", ");
  if (words.empty()) throw InvalidInput("sweep: name the experiment (" + valid + ")");
  if (std::find(names.begin(), names.end(), words[0]) == names.end()) {
    throw InvalidInput("sweep: unknown experiment '" + words[0] + "' (valid: " + valid + ")");
  }
  if (words.size() > 1) {
    throw InvalidInput("unexpected argument '" + words[1] + "' (see mlfma2d sweep --help)");
  }
  a.name = words[0];
  a.quick = switch_of(vm, "quick");
  if (auto v = value_of(vm, "repeat")) {
    a.repeat = static_cast<int>(integer_option("repeat", *v, 1, 100000, "an integer >= 1"));
  }
  if (auto v = value_of(vm, "warmup")) {
    a.warmup = static_cast<int>(integer_option("warmup", *v, 0, 1000, "an integer >= 0"));
  }
  if (auto v = value_of(vm, "backends")) a.backends = backends_option("backends", *v);
  if (auto v = value_of(vm, "output-dir")) {
    if (v->empty()) throw InvalidInput("--output-dir: empty folder name");
    a.output_dir = *v;
  }
  if (auto v = value_of(vm, "sizes")) {
    for (const std::string& item : list_option("sizes", *v)) {
      a.sizes.push_back(static_cast<std::size_t>(
          integer_option("sizes", item, 1, 1000000000, "a list of integers in [1, 1e9]")));
    }
  }
  if (auto v = value_of(vm, "grid-levels")) {
    for (const std::string& item : list_option("grid-levels", *v)) {
      a.grid_levels.push_back(static_cast<int>(
          integer_option("grid-levels", item, 2, 13, "a list of integers in [2, 13]")));
    }
  }
  if (auto v = value_of(vm, "offsets")) {
    for (const std::string& item : list_option("offsets", *v)) {
      a.offsets.push_back(static_cast<int>(
          integer_option("offsets", item, -kMaxLevels, kMaxLevels, "a list of integers")));
    }
  }
  if (auto v = value_of(vm, "ct")) {
    a.ct = static_cast<int>(integer_option("ct", *v, 1, INT_MAX, "an integer >= 1"));
  }
  if (auto v = value_of(vm, "fix-levels")) {
    a.fixed_levels = static_cast<int>(integer_option(
        "fix-levels", *v, 2, kMaxLevels, "an integer in [2, " + std::to_string(kMaxLevels) + "]"));
  }
  if (auto v = value_of(vm, "shape")) a.shape = shape_option("shape", *v);
  if (auto v = value_of(vm, "seed")) a.seed = seed_option("seed", *v);
  if (auto v = value_of(vm, "threads")) {
    a.threads = static_cast<int>(integer_option("threads", *v, 1, 4096, "an integer in [1, 4096]"));
  }
  a.no_plots = switch_of(vm, "no-plots");
  a.quiet = switch_of(vm, "quiet");
  a.command_line = "mlfma2d";
  for (const std::string& word : argv) a.command_line += " " + word;
  return a;
}

std::string sweep_help() {
  return help_page(
      "mlfma2d sweep: re-run one of the papers' near-field experiments\n\n"
      "Usage:\n  mlfma2d sweep NAME [--quick] [--repeat K] [--backends A,B] [--output-dir DIR]\n",
      sweep_help_text(), sweep_description(), "",
      "as mlfma2d --help; 4 when a back end disagrees with cpu.");
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

int run_sweep(const SweepArgs& a, std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<SweepPoint> points = sweep_points(a);
  const int repeat = sweep_repeats(a);
  const int threads = a.threads > 0 ? a.threads : omp_get_max_threads();
  const std::string dir =
      a.output_dir.empty() ? "sweep-" + a.name + (a.quick ? "-quick" : "") : a.output_dir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw IoError("cannot create the output folder '" + dir + "'" +
                  (ec ? ": " + ec.message() : std::string()));
  }
  const std::string csv = (fs::path(dir) / (a.name + ".csv")).string();
  check_writable(csv);

  // Back ends: the reference first, those not available here skipped with the reason.
  std::vector<std::string> wanted = a.backends.empty() ? near_field_backends() : a.backends;
  std::stable_partition(wanted.begin(), wanted.end(),
                        [](const std::string& b) { return b == kReferenceBackend; });
  const std::vector<std::pair<std::string, std::string>> skipped = unavailable_backends(wanted);
  std::vector<std::string> runnable;
  for (const std::string& b : wanted) {
    if (near_field_backend_available(b)) runnable.push_back(b);
  }
  for (const std::string& line : grouped_reasons(skipped)) {
    if (!a.quiet) err << "sweep " << a.name << ": skipping " << line << "\n";
  }
  if (runnable.empty()) throw BackendUnavailable("sweep: none of the back ends can run here");
  const bool need_reference = runnable.front() != kReferenceBackend || runnable.size() > 1;

  // The kernel sweep keeps CT and L fixed (paper 1 sec. 4.1.2): L from the largest N.
  int fixed_levels = 0;
  std::string fixed_note;
  if (a.name == "kernel") {
    std::size_t n_max = 0;
    for (const SweepPoint& p : points) n_max = std::max(n_max, p.n);
    if (a.fixed_levels > 0) {
      fixed_levels = a.fixed_levels;
      fixed_note = format("L fixed at %d (--fix-levels)", fixed_levels);
    } else {
      const PointSet big = generate_points(a.shape, n_max, a.seed);
      fixed_levels = levels_by_ct(big.x, big.y, {}, {}, a.ct, threads);
      fixed_note = format("L fixed at %d = the level CT %d fixes for the largest N (%zu)",
                          fixed_levels, a.ct, n_max);
    }
    if (!a.quiet) err << "sweep kernel: " << fixed_note << "\n";
  }

  std::string header_lines =
      format("# mlfma2d %s sweep %s%s, %s, %s\n", version(), a.name.c_str(),
             a.quick ? " (quick)" : "", utc_now().c_str(), a.command_line.c_str()) +
      format("# shape %s, seed %llu, CT %d, repeat %d (medians), warmup %d, threads %d\n",
             a.shape.c_str(), static_cast<unsigned long long>(a.seed), a.ct, repeat, a.warmup,
             threads);
  if (!fixed_note.empty()) header_lines += "# " + fixed_note + "\n";
  header_lines += "# times in seconds; near_total = the back end's evaluate() wall time\n";

  // The CSV grows row by row in a .partial file (a killed run keeps what it measured), renamed
  // when the sweep is complete.
  const std::string partial = csv + ".partial";
  std::FILE* file = std::fopen(partial.c_str(), "w");
  if (!file) throw IoError("cannot write '" + partial + "': " + std::strerror(errno));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> csv_file(file, std::fclose);
  std::fputs((header_lines + sweep_csv_header() + "\n").c_str(), file);
  std::fflush(file);

  ProgressBar bar(err, a.name, points.size() * runnable.size(), a.quiet);
  std::vector<nlohmann::json> skipped_configs;
  std::vector<SweepRow> rows;
  long config = 0;
  for (const SweepPoint& p : points) {
    ++config;
    const std::string label = point_label(a.name, p);
    auto skip = [&](const std::string& why) {
      bar.note("sweep " + a.name + ": skipping " + label + ": " + why);
      skipped_configs.push_back({{"n", p.n},
                                 {"level_offset", p.level_offset},
                                 {"grid_levels", p.grid_levels},
                                 {"reason", why}});
      for (std::size_t k = 0; k < runnable.size(); ++k) bar.step();
    };
    bar.label(label + ": tree");
    const PointSet pts = generate_points(a.shape, p.n, a.seed);
    Options options;
    options.ct = a.ct;
    options.threads = threads;
    options.level_offset = p.level_offset;
    if (fixed_levels > 0) {
      options.level_offset = fixed_levels - levels_by_ct(pts.x, pts.y, {}, {}, a.ct, threads);
    }
    std::optional<NearFieldBench> bench;
    try {
      bench.emplace(pts.x, pts.y, std::vector<double>{}, std::vector<double>{}, options);
    } catch (const InvalidInput& e) {
      skip(e.what());
      continue;
    }
    const TreeStats& tree = bench->stats();
    if (tree.levels < 2) {
      skip(format("L + i = %d < 2: no tree to speak of", tree.levels));
      continue;
    }
    const double rep_bytes = double(tree.n_targets) * (3 + 27.0 * double(tree.t)) * 8;
    if (double(tree.near_pairs) > kMaxSweepPairs) {
      skip(format("%.3g near-field pairs per evaluation (more than %.0e: absurd here)",
                  double(tree.near_pairs), kMaxSweepPairs));
      continue;
    }
    const bool replicates = std::any_of(runnable.begin(), runnable.end(), replicates_sources);
    if (replicates && rep_bytes > kMaxRepetitionBytes) {
      skip(format("the repetition layout would need %.1f GiB per evaluation (t = %zu)",
                  rep_bytes / double(1ull << 30), tree.t));
      continue;
    }

    SweepRow base;
    base.sweep = a.name;
    base.config = config;
    base.n = double(tree.n_targets);
    base.ct = a.ct;
    base.level_offset = tree.levels - tree.levels_ct;
    base.levels_ct = tree.levels_ct;
    base.levels = tree.levels;
    base.grid_levels = p.grid_levels > 0 ? p.grid_levels : tree.levels;
    base.t = double(tree.t);
    base.D = tree.D;
    base.leaf_boxes = double(tree.leaf_boxes);
    base.boxes = double(tree.boxes);
    base.near_pairs = double(tree.near_pairs);
    base.threads = threads;

    // The levels sweep also times the far field of this tree (a cpu Solver, median of the
    // repeats): the depth that is best is the one of least far + near, not of least near.
    if (a.name == "levels") {
      bar.label(label + ": far field");
      Options far_options = options;
      far_options.backend = kReferenceBackend;
      Solver solver(pts.x, pts.y, far_options);
      std::vector<double> far;
      for (int k = 0; k < a.warmup + repeat; ++k) {
        solver.evaluate(pts.q);
        if (k >= a.warmup) far.push_back(solver.timings().far);
      }
      std::sort(far.begin(), far.end());
      base.far_total = far[(far.size() - 1) / 2];
    }

    std::vector<double> reference;
    if (need_reference && runnable.front() != kReferenceBackend) {
      bar.label(label + ": " + kReferenceBackend + " reference");
      bench->setup(kReferenceBackend);
      bench->measure(pts.q, 0, 1, &reference);
    }
    for (const std::string& b : runnable) {
      bar.label(label + ": " + b);
      NearFieldMeasurement m;
      std::vector<double> potential;
      try {
        bench->setup(b);
        m = bench->measure(pts.q, a.warmup, repeat, &potential);
      } catch (const RuntimeFailure& e) {  // e.g. device memory: note it, go on with the rest
        bar.note("sweep " + a.name + ": " + label + ": " + b + " failed: " + e.what());
        skipped_configs.push_back({{"n", p.n},
                                   {"level_offset", p.level_offset},
                                   {"grid_levels", p.grid_levels},
                                   {"backend", b},
                                   {"reason", e.what()}});
        bar.step();
        continue;
      }
      SweepRow row = base;
      if (b == kReferenceBackend) {
        reference = potential;
      } else {
        row.rel_l2_vs_cpu = error_norms(potential, reference).rel_l2;
        if (!(row.rel_l2_vs_cpu <= kSweepTolerance)) {
          throw RuntimeFailure(format(
              "sweep %s, %s: back end '%s' disagrees with %s: relative L2 difference %.3e > %.0e",
              a.name.c_str(), label.c_str(), b.c_str(), kReferenceBackend, row.rel_l2_vs_cpu,
              kSweepTolerance));
        }
      }
      row.backend = b;
      row.repeat = m.repeat;
      row.phase = {m.collect, m.transfer, m.kernel, m.ret};
      row.near_total = m.total;
      row.near_total_mean = m.total_mean;
      row.near_total_min = m.total_min;
      row.device_bytes = double(m.device_bytes);
      row.chunks = double(m.chunks);
      row.pairs_per_second = row.near_total > 0 ? row.near_pairs / row.near_total : 0;
      std::fputs((sweep_csv_line(row) + "\n").c_str(), file);
      std::fflush(file);
      row.source = csv;
      rows.push_back(row);
      bar.step();
    }
  }
  bar.finish();
  if (std::fflush(file) != 0 || std::ferror(file)) {
    throw IoError("cannot write '" + partial + "': write failed (disk full?)");
  }
  csv_file.reset();
  if (std::rename(partial.c_str(), csv.c_str()) != 0) {
    throw IoError("cannot write '" + csv + "': " + std::strerror(errno));
  }

  // The model over this sweep's rows (time models always; the speedup model with both GPU back
  // ends), then the plots.
  const ModelFit fit = fit_model(rows);
  const std::string model_file = (fs::path(dir) / (a.name + "_model.json")).string();
  const std::string model_txt = (fs::path(dir) / (a.name + "_model.txt")).string();
  write_text_file(model_file, model_json(fit) + "\n");
  write_text_file(model_txt, fit_report(fit));
  std::vector<std::string> pngs;
  std::string plot_note;
  if (!a.no_plots) {
    pngs = make_plots(dir, rows, fit.runs.empty() ? nullptr : &fit, repeat, false, err, &plot_note);
    if (!plot_note.empty() && !a.quiet) err << "sweep " << a.name << ": " << plot_note << "\n";
  } else {
    plot_note = "plots not made (--no-plots)";
  }

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  nlohmann::json meta;
  meta["sweep"] = a.name;
  meta["quick"] = a.quick;
  meta["version"] = version();
  meta["date"] = utc_now();
  meta["command_line"] = a.command_line;
  meta["host_cpu"] = cpu_model();
  meta["host_cores"] = omp_get_num_procs();
  meta["threads"] = threads;
  meta["backends"] = runnable;
  // The device back ends that ran (their names stand for the device; nvidia-smi names it).
  std::vector<std::string> device_backends;
  for (const std::string& b : runnable)
    if (b != kReferenceBackend) device_backends.push_back(b);
  meta["device_backends"] = device_backends;
  nlohmann::json sk = nlohmann::json::array();
  for (const auto& [b, why] : skipped) sk.push_back({{"backend", b}, {"reason", why}});
  meta["backends_skipped"] = sk;
  meta["shape"] = a.shape;
  meta["seed"] = a.seed;
  meta["ct"] = a.ct;
  meta["repeat"] = repeat;
  meta["warmup"] = a.warmup;
  meta["statistic"] = "median of repeat timed evaluations (per phase and total)";
  if (fixed_levels > 0) {
    meta["fixed_levels"] = fixed_levels;
    meta["fixed_levels_note"] = fixed_note;
  }
  meta["configurations"] = points.size();
  meta["rows"] = rows.size();
  meta["configurations_skipped"] = skipped_configs;
  meta["seconds"] = seconds;
  meta["csv"] = csv;
  meta["model"] = model_file;
  meta["plots"] = pngs;
  if (!plot_note.empty()) meta["plots_note"] = plot_note;
  write_text_file((fs::path(dir) / (a.name + "_metadata.json")).string(), meta.dump(2) + "\n");

  // Summary: near-field time per back end and configuration.
  out << format(
      "sweep %s%s: %zu configurations x %zu back end(s) (%s), %d timed evaluations "
      "each (median), %s\n",
      a.name.c_str(), a.quick ? " (quick)" : "", points.size(), runnable.size(),
      join(runnable, ", ").c_str(), repeat, duration_text(seconds).c_str());
  for (const std::string& line : grouped_reasons(skipped)) out << "  skipped " << line << "\n";
  if (!fixed_note.empty()) out << "  " << fixed_note << "\n";
  // The levels sweep: the near field, then far + near (the whole evaluation) per back end.
  const bool with_far = a.name == "levels";
  out << format("  %9s %3s %3s %5s %8s", "N", "i", "L", "t", "D");
  if (with_far) out << format(" %10s", "far ms");
  for (const std::string& b : runnable) out << format(" %17s", (b + " ms").c_str());
  if (with_far)
    for (const std::string& b : runnable) out << format(" %17s", ("total " + b).c_str());
  out << "\n";
  std::map<long, std::map<std::string, const SweepRow*>> by_config;
  for (const SweepRow& r : rows) by_config[r.config][r.backend] = &r;
  for (const auto& [id, m] : by_config) {
    const SweepRow& r = *m.begin()->second;
    out << format("  %9.0f %+3d %3d %5.0f %8.3g", r.n, r.level_offset, r.levels, r.t, r.D);
    if (with_far) out << format(" %10.4g", 1e3 * r.far_total);
    for (const std::string& b : runnable) {
      out << (m.count(b) ? format(" %17.4g", 1e3 * m.at(b)->near_total) : format(" %17s", "-"));
    }
    if (with_far) {
      for (const std::string& b : runnable) {
        out << (m.count(b) ? format(" %17.4g", 1e3 * (m.at(b)->far_total + m.at(b)->near_total))
                           : format(" %17s", "-"));
      }
    }
    out << "\n";
  }
  out << "  CSV " << csv << "\n  model " << model_file << " (" << model_txt << ")\n";
  out << "  " << (pngs.empty() ? plot_note : std::to_string(pngs.size()) + " plots in " + dir)
      << "\n";
  out.flush();
  if (!out) throw IoError("cannot write the report to standard output");
  return 0;
}

ParsedCommand parse(const po::variables_map& vm, const std::vector<std::string>& words,
                    const std::vector<std::string>& argv) {
  return command("sweep", sweep_args_of(vm, words, argv), run_sweep);
}

}  // namespace

CommandRow sweep_command() {
  return {"sweep",
          "sweep",
          "  mlfma2d sweep NAME [options]      re-run a paper's experiment: collection, kernel,\n"
          "                                    levels (see mlfma2d sweep --help)\n",
          sweep_description,
          sweep_help,
          true,
          parse};
}

}  // namespace mlfma2d::app
