// mlfma2d_bench_solve batched: the capacitance matrix of K signal conductors solved as one block
// (ElectrostaticOptions::batched: GMRES in lockstep on the K right-hand sides, each step one FMM
// evaluation of nd = K densities) against the K right-hand sides solved one after the other, on
// the same geometry: a bus of K zero-thickness traces on a substrate over the ground plane, so
// that C and C0 are each K right-hand sides. The two paths run alternately, R times each (the
// order swapped every round, so that a load on the machine falls on both); the table shows the
// fastest run of each, the JSON every run. Besides wall-clock seconds the process's CPU seconds
// of each run: with one thread they are the work done, whatever else the machine runs (other
// processes stretch the wall clock, not the CPU time). Public API only.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "mlfma2d/electrostatics.hpp"
#include "solve.hpp"

namespace mlfma2d::bench_solve {

namespace {

using json = nlohmann::json;

constexpr double kWidth = 0.5e-3, kGap = 0.5e-3, kHeight = 0.5e-3, kEpsR = 4.4;

// K traces of width kWidth, kGap apart, centred, on a substrate of height kHeight as wide as
// generate's line shapes make it (20 (span + h)), over the plane y = 0.
Contours bus(int traces) {
  Contours c;
  const double span = traces * kWidth + (traces - 1) * kGap;
  for (int k = 0; k < traces; ++k) {
    const double x0 = -0.5 * span + k * (kWidth + kGap);
    c.add({x0, x0 + kWidth}, {kHeight, kHeight}, false, k);
  }
  const double half = 10 * (span + kHeight);
  c.add_region({-half, half, half, -half}, {0, 0, kHeight, kHeight}, kEpsR);
  return c;
}

// One run's figures.
struct Run {
  double total = 0, setup = 0, solve = 0, product = 0;
  double cpu = 0;  // process CPU seconds of the whole solve
  std::size_t products = 0, evaluations = 0;
  std::vector<int> iterations;
  ElectrostaticSolution solution;
};

Run run(const Contours& c, std::size_t panels, bool batched, const Args& a) {
  ElectrostaticOptions o;
  o.ground_plane = true;
  o.panels = panels;
  o.batched = batched;
  o.fmm.backend = a.backend;
  o.fmm.threads = a.threads;
  Run r;
  const std::clock_t cpu0 = std::clock();
  r.solution = solve_conductors(c, o);
  r.cpu = double(std::clock() - cpu0) / CLOCKS_PER_SEC;
  const ElectrostaticTimings& t = r.solution.timings;
  r.total = t.total;
  r.setup = t.discretise + t.near + t.fmm_setup + t.preconditioner;
  r.solve = t.solve;
  r.product = t.product;
  r.products = t.products;
  r.evaluations = t.evaluations;
  for (const SolveStats& s : r.solution.solves) r.iterations.push_back(s.iterations);
  return r;
}

json run_json(const Run& r) {
  return {{"total_s", r.total},           {"cpu_s", r.cpu},
          {"setup_s", r.setup},           {"solve_s", r.solve},
          {"product_s", r.product},       {"products", r.products},
          {"evaluations", r.evaluations}, {"iterations", r.iterations},
          {"batched", r.solution.batched}};
}

// "min-max" of the iteration counts of solves [first, first + count).
std::string range(const std::vector<int>& its, std::size_t first, std::size_t count) {
  const auto b = its.begin() + static_cast<long>(first);
  const auto [lo, hi] = std::minmax_element(b, b + static_cast<long>(count));
  return *lo == *hi ? std::to_string(*lo) : std::to_string(*lo) + "-" + std::to_string(*hi);
}

const Run& fastest(const std::vector<Run>& runs) {
  return *std::min_element(runs.begin(), runs.end(),
                           [](const Run& x, const Run& y) { return x.total < y.total; });
}

double least_cpu(const std::vector<Run>& runs) {
  double least = runs.front().cpu;
  for (const Run& r : runs) least = std::min(least, r.cpu);
  return least;
}

}  // namespace

void batched(const Args& a) {
  json j = {{"what",
             "C and C0 of K traces on a substrate over the ground plane: one block of K "
             "right-hand sides (batched) against K solves one after the other"},
            {"geometry",
             {{"trace_width_m", kWidth},
              {"gap_m", kGap},
              {"substrate_height_m", kHeight},
              {"eps_r", kEpsR}}},
            {"backend", a.backend},
            {"threads", a.threads},
            {"repeats", a.repeats},
            {"rows", json::array()}};
  std::printf(
      "C and C0 of K traces (w = s = h = 0.5 mm, t = 0) on a substrate (eps_r 4.4) over the "
      "ground plane, tol 1e-10, backend %s, threads %s;\nseconds: solve() from the contours, "
      "set-up included, the fastest of %d runs of each path (alternating); CPU ratio: the least "
      "CPU seconds of each\n",
      a.backend.c_str(), a.threads > 0 ? std::to_string(a.threads).c_str() : "default", a.repeats);
  std::printf("%3s %8s %12s %9s %7s %11s %11s %7s %15s %15s %9s %9s\n", "K", "panels", "its C; C0",
              "products", "evals", "one-by-one", "batched", "ratio", "set-up s (1/b)",
              "per product s", "CPU ratio", "|dC|");
  for (const int traces : a.traces) {
    const Contours c = bus(traces);
    for (const std::size_t panels : a.panels) {
      std::vector<Run> one, block;
      for (int r = 0; r < a.repeats; ++r) {
        for (const bool b : {r % 2 == 1, r % 2 == 0})
          (b ? block : one).push_back(run(c, panels, b, a));
      }
      const Run& s = fastest(one);
      const Run& b = fastest(block);
      const double dc = capacitance_difference(b.solution.capacitance, s.solution.capacitance);
      const double dc0 = capacitance_difference(b.solution.line.capacitance_vacuum,
                                                s.solution.line.capacitance_vacuum);
      const std::size_t k = static_cast<std::size_t>(traces);
      const std::string its = range(b.iterations, 0, k) + "; " + range(b.iterations, k, k);
      const double cpu_ratio = least_cpu(one) / least_cpu(block);
      std::printf(
          "%3d %8zu %12s %9zu %7zu %11.2f %11.2f %7.2f %7.2f/%-7.2f %7.4f/%-7.4f %9.2f %9.1e\n",
          traces, b.solution.panels.size(), its.c_str(), b.products, b.evaluations, s.total,
          b.total, s.total / b.total, s.setup, b.setup, s.product, b.product, cpu_ratio,
          std::max(dc, dc0));
      std::fflush(stdout);
      json row = {{"traces", traces},
                  {"panels", b.solution.panels.size()},
                  {"ratio_fastest", s.total / b.total},
                  {"ratio_least_cpu", cpu_ratio},
                  {"capacitance_difference", dc},
                  {"capacitance_vacuum_difference", dc0},
                  {"one_by_one", json::array()},
                  {"batched", json::array()}};
      for (const Run& r : one) row["one_by_one"].push_back(run_json(r));
      for (const Run& r : block) row["batched"].push_back(run_json(r));
      j["rows"].push_back(row);
      save(a, j);
    }
  }
}

}  // namespace mlfma2d::bench_solve
