// The end-to-end performance table (docs/performance-gpu.md): per-evaluation times with the
// geometry reused and new charges each call, the first evaluation with all setup reported
// apart, the near-field kernel's pair rate against the measured double-log ceiling, growth with
// N, the N = 1e8 run, and the CPU-only row. Prints each row as it completes, a table last, and
// writes JSON.
//
//   mlfma2d_bench [--backend NAME] [--threads T] [--repeat K] [--rows LIST] [--json FILE]
//                 [--ct CT] [--levels I] [--sample S] [--kernel-variants]
//                 [--kernel-n N] [--kernel-ct LIST]
//   rows: a  N=1e6 uniform, eps 1e-10: first evaluation (tree, plan, setup, evaluation) and the
//            median of K evaluations with new charges; error vs direct summation on a sample
//         b  the same at N=1e7
//         c  N=1e6 circle contour, and its ratio to (a)
//         d  near-field kernel pairs/s at N=1e7 uniform, CT 15 and CT 64 (plan.near.pairs /
//            the kernel phase), against the all-pairs double-log ceiling (kCeiling); the
//            back end alone (no far field): tree, plan and setup once, then K evaluations.
//            --kernel-n and --kernel-ct change N and the CT list (e.g. the near field at 1e8);
//            --kernel-variants adds the other block layouts of 'shared' and repetition-gpu
//         e  growth: time(1e7) / time(1e6) (needs a and b)
//         f  N=1e8 completes (time, host and device memory); only when listed, or with `all` on
//            a machine with >= 100 GiB of memory
//         g  the CPU-only row: cpu back end, N=1e6, eps 1e-10
//         h  the defaults against the brute-force best (issue 12): for each set and N of
//            --auto-sets / --auto-n at --auto-eps, a Solver with default Options (back end and
//            depth chosen by the library): its one-shot time (construction + first evaluation,
//            choosing included) and 10 evaluations (median, min, spread); then every back end of
//            --auto-backends (default: all available) x --auto-trees (default both) x
//            --auto-offsets (default -4..+1) at CT 15, median of 3 after a warm-up; the ratio of
//            the defaults to the best. The JSON file is rewritten after every row, so a run cut
//            short keeps the rows it finished.
//         p  the double-precision FMA peak at 256 bits and at the widest vectors the CPU has
//            (bench/peak.cpp); the far field of rows a, b, g as GFLOP/s and a fraction of it
//         i  several densities, dipoles and the Hessian against the evaluations they extend
//            (bench/densities.cpp), on --densities-n uniform points (default 1e6)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench.hpp"
#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "runtime/host.hpp"
#include "runtime/placement.hpp"
#include "runtime/text.hpp"
#include "tuning/tuning.hpp"

using namespace mlfma2d;
using namespace mlfma2d::bench;
using tuning::median;
using json = nlohmann::json;

namespace {

// The reference of row d: the rate of an all-pairs, shared-memory tiled double-log kernel on the
// H100 host, measured by a probe before logs were kept in results/ (its log is not in the
// repository; docs/performance-gpu.md).
constexpr double kCeiling = 2.65e11;
constexpr double kKernelTarget = 1.3e11;  // half the ceiling
constexpr double kEps = 1e-10;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Charges of evaluation k: uniform in [0, 1), a new vector each call.
std::vector<double> charges(std::size_t n, std::uint64_t k) {
  std::vector<double> q(n);
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    std::mt19937_64 rng(1000003 * (k + 1) + std::uint64_t(t));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (std::int64_t i = count * t / nt; i < count * (t + 1) / nt; ++i) q[i] = u(rng);
  }
  return q;
}

std::string ms(double s) {
  return format("%.1f ms", 1e3 * s);
}

// clang-format off

/// The figures of a tree that every row reports.
json tree_json(const TreeStats& st) {
  return {{"ct", st.ct}, {"levels", st.levels}, {"t", st.t}, {"D", st.D},
          {"near_pairs", st.near_pairs}};
}

// clang-format on

/// \brief One end-to-end measurement: Solver construction + first evaluation, then K more.
struct EndToEnd {
  double first = 0;  ///< construction (tree, plan, setup) + first evaluation, wall
  double median = 0, near = 0, far = 0, kernel = 0;
  double rel_l2 = 0;
  std::size_t sampled = 0;
  json detail;
};

EndToEnd end_to_end(const std::string& shape, std::size_t n, const std::string& backend,
                    const Args& a, int repeat) {
  const PointSet p = generate_points(shape, n, 1);
  Options o;
  o.eps = kEps;
  o.backend = backend;
  o.threads = a.threads;
  o.ct = a.ct;
  o.level_offset = a.level_offset;
  std::vector<double> phi(n);
  const double t0 = now();
  Solver s(p.x, p.y, o);
  s.evaluate(p.q.data(), phi.data(), nullptr, nullptr);
  EndToEnd e;
  e.first = now() - t0;
  const Timings first = s.timings();
  std::vector<double> total, near, far, kernel;
  std::vector<double> q;
  for (int k = 0; k < repeat; ++k) {
    q = charges(n, std::uint64_t(k));  // outside the timed region
    s.evaluate(q.data(), phi.data(), nullptr, nullptr);
    const Timings& t = s.timings();
    total.push_back(t.total);
    near.push_back(t.near);
    far.push_back(t.far);
    kernel.push_back(t.near_kernel);
  }
  if (repeat == 0) q = p.q;
  e.median = median(total);
  e.near = median(near);
  e.far = median(far);
  e.kernel = median(kernel);
  // Error of the last evaluation on a sample of targets, against direct summation.
  const std::size_t m = std::min(n, std::max<std::size_t>(1, a.sample));
  std::vector<std::size_t> which(m);
  for (std::size_t i = 0; i < m; ++i) which[i] = i * (n / m);
  std::vector<double> ref, got(m);
  direct_sum(p.x, p.y, q, p.x, p.y, which, &ref, nullptr, nullptr, a.threads);
  for (std::size_t i = 0; i < m; ++i) got[i] = phi[which[i]];
  e.rel_l2 = error_norms(got, ref).rel_l2;
  e.sampled = m;
  const TreeStats& st = s.stats();
  e.detail = tree_json(st);
  // clang-format off
  e.detail.update({{"n", n}, {"shape", shape}, {"backend", backend}, {"eps", kEps},
                   {"terms", st.terms}, {"first_s", e.first}, {"first_tree_s", first.tree},
                   {"first_plan_s", first.plan}, {"first_setup_s", first.setup},
                   {"first_evaluation_s", first.total}, {"median_s", e.median},
                   {"median_near_s", e.near}, {"median_far_s", e.far},
                   {"median_near_kernel_s", e.kernel}, {"evaluations_s", total},
                   {"rel_l2", e.rel_l2}, {"sampled", m}, {"device_memory", st.device_memory}});
  // clang-format on
  // The far field's rate (docs/math.md section 3.10's count) and its share of the peak.
  const double gflops = e.far > 0 ? st.far_flops / e.far * 1e-9 : 0;
  e.detail["far_gflops"] = gflops;
  if (peak().measured) e.detail["far_of_wide_peak"] = gflops / peak().wide_all;
  return e;
}

/// Time the near-field back end `backend` alone (no far field) on the bench's geometry: setup
/// once, `repeat` evaluations with new charges after one warm-up; the kernel phase's median.
json kernel_rate(tuning::NearFieldBench* bench, const std::string& backend, int repeat) {
  const TreeStats& st = bench->stats();
  const double setup = bench->setup(backend);
  std::vector<tuning::NearFieldSample> samples;
  for (int k = 0; k <= repeat; ++k) {
    const std::vector<double> q = charges(st.n_sources, 100 + std::uint64_t(k));
    const tuning::NearFieldSample s = bench->evaluate(q);
    if (k > 0) samples.push_back(s);  // k = 0 warms up
  }
  const tuning::NearFieldMeasurement m = tuning::summarize(samples);
  std::vector<double> kernels;
  for (const tuning::NearFieldSample& s : samples) kernels.push_back(s.kernel);
  const double rate = m.kernel > 0 ? double(st.near_pairs) / m.kernel : 0;
  json j = tree_json(st);
  // clang-format off
  j.update({{"variant", backend}, {"n", st.n_targets}, {"setup_s", setup}, {"kernel_s", m.kernel},
            {"kernels_s", kernels}, {"collect_s", m.collect}, {"transfer_s", m.transfer},
            {"return_s", m.ret}, {"near_total_s", m.total}, {"device_bytes", m.device_bytes},
            {"pairs_per_s", rate}, {"of_ceiling", rate / kCeiling}});
  // clang-format on
  return j;
}

void row_end_to_end(const std::string& id, const std::string& shape, std::size_t n, double target,
                    const std::string& backend, const Args& a, EndToEnd* keep) {
  const EndToEnd e = end_to_end(shape, n, backend, a, a.repeat);
  Row r;
  r.id = id;
  r.what = "N=" + format("%.0e", double(n)) + " " + shape + ", " + backend + ", eps 1e-10, median";
  r.target = target > 0 ? "<= " + ms(target) : "-";
  r.measured = ms(e.median);
  r.met = target > 0 ? (e.median <= target ? "yes" : "no") : "n/a";
  r.detail = e.detail;
  std::printf(
      "     first (tree+plan+setup+evaluation) %s; near %s, far %s (overlapped), "
      "kernel %s; rel_l2 %.2e on %zu targets; far field %.0f GFLOP/s%s\n",
      ms(e.first).c_str(), ms(e.near).c_str(), ms(e.far).c_str(), ms(e.kernel).c_str(), e.rel_l2,
      e.sampled, double(e.detail["far_gflops"]),
      peak().measured ? format(" (%.0f %% of the %d-bit peak)",
                               100 * double(e.detail["far_of_wide_peak"]), peak().wide_bits)
                            .c_str()
                      : "");
  add_row(r);
  if (keep) *keep = e;
}

/// The timings of `count` evaluations, each with new charges (as an iterative solver gives them):
/// the defaults and every scan point are timed alike.
std::vector<Timings> evaluations(Solver* s, std::size_t n, int count) {
  std::vector<Timings> t;
  for (int k = 0; k < count; ++k) {
    const std::vector<double> q = charges(n, std::uint64_t(k));
    s->evaluate(q);
    t.push_back(s->timings());
  }
  return t;
}

/// One phase of each evaluation, in seconds.
std::vector<double> phase(const std::vector<Timings>& t, double Timings::*field) {
  std::vector<double> v;
  for (const Timings& x : t) v.push_back(x.*field);
  return v;
}

/// Row h for one set and N: the defaults, then the scan, then the ratio.
/// \brief The scan of row h: every back end x tree x level offset at CT 15, and the fastest.
struct Scan {
  json points = json::array();
  double best = INFINITY;
  std::string best_text;
};

/// Row h's scan on the n points `p` with options `o` (the defaults' but for what the scan sets).
Scan scan_configurations(const PointSet& p, std::size_t n, const Options& o, const Args& a) {
  std::vector<std::string> backends = a.auto_backends;
  if (backends.empty())
    for (const std::string& b : near_field_backends())
      if (near_field_backend_available(b)) backends.push_back(b);
  Scan scan;
  for (const std::string& b : backends)
    for (const std::string& tree : a.auto_trees)
      for (const int offset : a.auto_offsets) {
        Options f = o;
        f.backend = b;
        f.tree = tree;
        f.ct = kPapersCapacity;
        f.level_offset = offset;
        json point = {{"backend", b}, {"tree", tree}, {"level_offset", offset}};
        try {
          Solver x(p.x, p.y, f);
          if (double(x.stats().near_pairs) > a.max_pairs) {
            point["skipped"] = "near pairs above --max-pairs";
            scan.points.push_back(point);
            continue;
          }
          x.evaluate(p.q);  // its first evaluation, like the defaults' one-shot
          const std::vector<double> t = phase(evaluations(&x, n, 3), &Timings::total);
          point["median_s"] = median(t);
          if (median(t) < scan.best) {
            scan.best = median(t);
            scan.best_text = format("%s %s %+d", b.c_str(), tree.c_str(), offset);
          }
        } catch (const Error& e) {  // an offset past the root or the deepest level, memory
          point["skipped"] = e.what();
        }
        scan.points.push_back(point);
      }
  return scan;
}

/// Row h for one set and N: the defaults, then the scan, then the ratio.
void row_defaults_vs_scan(const std::string& set, std::size_t n, const Args& a) {
  const PointSet p = generate_points(set, n, 1);
  Options o;
  o.eps = a.auto_eps;
  o.threads = a.threads;
  o.place_threads = a.place_threads;
  const double t0 = now();
  Solver s(p.x, p.y, o);
  s.evaluate(p.q);
  const double one_shot = now() - t0;
  const Timings first = s.timings();
  const AutoChoice choice = s.auto_choice();
  const std::vector<Timings> runs = evaluations(&s, n, 10);
  double predicted_far = NAN, predicted_near = NAN;  // the chosen candidate's
  for (const CapacityCandidate& c : choice.candidates) {
    if (c.ct == choice.ct && c.level_offset == choice.level_offset) {
      predicted_far = c.far;
      predicted_near = c.near;
    }
  }
  const std::vector<double> totals = phase(runs, &Timings::total);
  const double med = median(totals), least = *std::min_element(totals.begin(), totals.end());
  std::printf(
      "     defaults: %s CT %d offset %+d, one-shot %s (choose %s, calibration %s), "
      "median %s, min %s, predicted %s\n",
      choice.backend.c_str(), choice.ct, choice.level_offset, ms(one_shot).c_str(),
      ms(first.choose).c_str(), ms(choice.calibration_seconds).c_str(), ms(med).c_str(),
      ms(least).c_str(), ms(choice.predicted_seconds).c_str());
  std::fflush(stdout);

  const Scan scan = scan_configurations(p, n, o, a);
  const double best = scan.best;
  const std::string& best_text = scan.best_text;
  Row r;
  r.id = "h";
  r.what = format("defaults / scan's best, %s N=%.0e eps %.0e", set.c_str(), double(n), a.auto_eps);
  r.target = "<= 1.25";
  const double ratio = std::isfinite(best) ? med / best : NAN;
  r.measured = std::isfinite(best) ? format("%.2f (best %s)", ratio, best_text.c_str())
                                   : std::string("no scan point ran (see skipped)");
  r.met = !std::isfinite(best) ? "n/a" : ratio <= 1.25 ? "yes" : "no";
  // clang-format off
  r.detail = {{"set", set}, {"n", n}, {"eps", a.auto_eps}, {"backend", choice.backend},
              {"ct", choice.ct}, {"level_offset", choice.level_offset},
              {"predicted_s", choice.predicted_seconds}, {"predicted_far_s", predicted_far},
              {"predicted_near_s", predicted_near}, {"one_shot_s", one_shot},
              {"first_tree_s", first.tree}, {"first_choose_s", first.choose},
              {"first_plan_s", first.plan}, {"first_setup_s", first.setup},
              {"first_evaluation_s", first.total},
              {"calibration_s", choice.calibration_seconds}, {"median_s", med}, {"min_s", least},
              {"spread", med / least}, {"evaluations_s", totals},
              {"evaluations_far_s", phase(runs, &Timings::far)},
              {"evaluations_near_s", phase(runs, &Timings::near)},
              {"evaluations_near_kernel_s", phase(runs, &Timings::near_kernel)},
              {"place_threads", a.place_threads}, {"best_s", best},
              {"best", best_text}, {"ratio", ratio}, {"scan", scan.points}};
  // clang-format on
  add_row(r);
}

/// \brief Rows a and b, kept for row e (and a for c's ratio).
struct EndToEndRows {
  EndToEnd a, b;
  bool have_a = false, have_b = false;
};

/// Rows a, b, c: end to end at N = 1e6 and 1e7 uniform, and 1e6 on the circle.
EndToEndRows rows_end_to_end(const Args& a) {
  EndToEndRows e;
  if (wants(a, "a")) {
    row_end_to_end("a", "uniform", 1000000, 0.060, a.backend, a, &e.a);
    e.have_a = true;
  }
  if (wants(a, "b")) {
    Args b = a;
    b.sample = std::max<std::size_t>(100, a.sample / 10);  // direct sums cost N per target
    row_end_to_end("b", "uniform", 10000000, 0.600, a.backend, b, &e.b);
    e.have_b = true;
  }
  if (wants(a, "c")) {
    EndToEnd rc;
    row_end_to_end("c", "circle", 1000000, 0.060, a.backend, a, &rc);
    if (e.have_a) {
      std::printf("     circle / uniform at N=1e6: %.2f\n", rc.median / e.a.median);
      last_row().detail["ratio_to_a"] = rc.median / e.a.median;
    }
  }
  return e;
}

/// Row d: the near-field kernel's pair rate for each CT of --kernel-ct (with --kernel-variants,
/// the other layouts of 'shared' beside it).
void rows_kernel_rate(const Args& a) {
  const std::size_t n = a.kernel_n;
  const PointSet p = generate_points("uniform", n, 2);
  for (int ct : a.kernel_ct) {
    Options o;
    o.ct = ct;
    o.threads = a.threads;
    tuning::NearFieldBench bench(p.x, p.y, {}, {}, o);
    const std::string b = a.backend;
    const json main = kernel_rate(&bench, b, a.repeat);
    Row r;
    r.id = "d" + std::to_string(ct);
    r.what = "near kernel N=" + format("%.0e", double(n)) + " uniform CT " + std::to_string(ct) +
             ", " + b;
    r.target = ">= 1.3e11 pairs/s";
    const double rate = main["pairs_per_s"].get<double>();
    r.measured = format("%.3g pairs/s", rate) + format(" (%.0f%%)", 100 * rate / kCeiling);
    r.met = rate >= kKernelTarget ? "yes" : "no";
    r.detail = main;
    r.detail["peak_rss_gib"] = peak_rss_gib();
    if (a.variants && b == "shared") {
      json v = json::array();
      for (const std::string other : {"repetition-gpu"}) {
        const json k = kernel_rate(&bench, other, 3);
        std::printf("     variant %-24s %.3g pairs/s (%.0f%% of ceiling), kernel %s\n",
                    other.c_str(), k["pairs_per_s"].get<double>(),
                    100 * k["of_ceiling"].get<double>(), ms(k["kernel_s"].get<double>()).c_str());
        v.push_back(k);
      }
      r.detail["variants"] = v;
    }
    add_row(r);
  }
}

/// Row e: growth from N = 1e6 to 1e7 (rows a and b).
void row_growth(const Args& a, const EndToEndRows& e) {
  Row r;
  r.id = "e";
  r.what = "growth time(1e7) / time(1e6), " + a.backend;
  r.target = "<= 12";
  if (e.have_a && e.have_b) {
    const double g = e.b.median / e.a.median;
    r.measured = format("%.2f", g);
    r.met = g <= 12 ? "yes" : "no";
    r.detail = {{"time_1e6_s", e.a.median}, {"time_1e7_s", e.b.median}, {"growth", g}};
  } else {
    r.measured = "needs rows a, b";
    r.met = "n/a";
  }
  add_row(r);
}

/// Row f: N = 1e8 completes.
void row_1e8(const Args& a) {
  const std::size_t n = 100000000;
  Args f = a;
  f.sample = 20;
  const EndToEnd e = end_to_end("uniform", n, a.backend, f, 1);
  Row r;
  r.id = "f";
  r.what = "N=1e8 uniform completes, " + a.backend;
  r.target = "completes";
  r.measured = ms(e.median) + format(", %.1f GiB host", peak_rss_gib());
  r.met = "yes";
  r.detail = e.detail;
  r.detail["peak_rss_gib"] = peak_rss_gib();
  add_row(r);
}

/// Every row asked for, in order; the exit status (4 when one failed: the rows after it are not
/// run).
int run_rows(const Args& a) {
  try {
    if (wants(a, "p")) row_peak(a.threads > 0 ? a.threads : omp_get_max_threads());
    const EndToEndRows e = rows_end_to_end(a);
    if (wants(a, "d")) rows_kernel_rate(a);
    if (wants(a, "e")) row_growth(a, e);
    if (a.rows.count("f")) row_1e8(a);
    if (wants(a, "g")) {
      // The CPU-only target: 1.3 s per evaluation on the 2-core development machine.
      row_end_to_end("g", "uniform", 1000000, 1.3, "cpu", a, nullptr);
    }
    if (wants(a, "h")) {
      for (const std::string& set : a.auto_sets)
        for (std::size_t n : a.auto_n) row_defaults_vs_scan(set, n, a);
    }
    if (wants(a, "i")) rows_densities(a);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mlfma2d_bench: %s\n", e.what());
    return 4;
  }
  return 0;
}

/// The device's start (its first use in this process), timed apart and before any row: the
/// one-shot figures are those of a process whose device is up (a library user's second Solver,
/// or a program that started it at its own start: mlfma2d::start_device). Seconds.
double start_device_apart() {
  const double t_device = now();
  start_device();
  wait_for_device();
  return now() - t_device;
}

/// What the JSON file says of the run besides its rows.
json run_json(const Args& a, const std::string& device, int threads, const Placement& cpus) {
  json j;
  j["backend"] = a.backend;
  j["device"] = device;
  j["threads"] = threads;
  j["host_memory_gib"] = host_memory_gib();
  // Which CPU the peak and the fractions of it were measured on: hosts of one machine kind gave
  // 16-thread FMA peaks from 600 to 1145 GFLOP/s (docs/performance.md 5.14).
  j["cpu_model"] = cpu_model_name();
  j["cpu_cores"] = cpus.cores();
  j["cpu_hardware_threads"] = int(cpus.cpus().size());
  j["repeat"] = a.repeat;
  j["ct"] = a.ct;
  j["level_offset"] = a.level_offset;
  j["ceiling_pairs_per_s"] = kCeiling;
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  const double device_start = start_device_apart();
  Args a;
  int status = 0;
  if (!parse_args(argc, argv, &a, &status)) return status;

  const std::string device = tuning::device_name();
  const int threads = a.threads > 0 ? a.threads : omp_get_max_threads();
  if (a.threads > 0) omp_set_num_threads(a.threads);
  const Placement cpus = Placement::topology();
  std::printf(
      "mlfma2d_bench: back end %s, device %s (started in %s, apart from every row), %d host "
      "threads on %s (%d cores, %zu hardware threads), %.0f GiB host memory, repeat %d, CT %d, "
      "level offset %+d\n",
      a.backend.c_str(), device.c_str(), ms(device_start).c_str(), threads,
      cpu_model_name().empty() ? "an unnamed CPU" : cpu_model_name().c_str(), cpus.cores(),
      cpus.cpus().size(), host_memory_gib(), a.repeat, a.ct, a.level_offset);
  print_table_head();
  std::fflush(stdout);
  if (!a.json_path.empty()) {
    try {
      check_writable(a.json_path);  // before the work, not after
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mlfma2d_bench: %s\n", e.what());
      return 3;
    }
    keep_json(a.json_path, run_json(a, device, threads, cpus));
  }

  status = run_rows(a);
  print_table(format("== mlfma2d_bench: back end %s, device %s, %d host threads", a.backend.c_str(),
                     device.c_str(), threads));
  try {
    save_json();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mlfma2d_bench: %s\n", e.what());
    status = status ? status : 3;
  }
  return status;
}
