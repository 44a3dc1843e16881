// mlfma2d_bench_trees: the adaptive tree against the uniform tree on uniform, contour, graded and
// multi-scale point sets (issue 11). For each set, tree and level offset: the one-shot time
// (points in memory to potentials: tree, plan, set-up and the first evaluation) and the time per
// evaluation (median of the repeats on the same geometry); then, per set and tree, the best
// offset, and the ratios the issue asks for: each set's best against the uniform plate's best
// (adaptive tree), and the plate on the adaptive tree against the plate on the uniform tree.
// Prints a table; --json FILE writes every measurement. Public API only.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "runtime/text.hpp"

namespace {

using mlfma2d::Options;
using mlfma2d::PointSet;
using mlfma2d::Solver;
using mlfma2d::split;

struct Args {
  std::size_t n = 1000000;
  double eps = 1e-6;
  int ct = 15;
  std::string backend = "cpu";
  std::vector<std::string> sets = {"uniform", "circle", "graded-strip", "graded-polygon",
                                   "multiscale-clusters"};
  std::vector<std::string> trees = {"adaptive", "uniform"};
  std::vector<int> offsets = {-4, -3, -2, -1, 0, 1};
  int repeat = 5;
  int threads = 0;
  double max_pairs = 2e10;  ///< skip a configuration with more near-field pairs than this
  std::string json;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "mlfma2d_bench_trees: %s\n"
               "usage: mlfma2d_bench_trees [--n N] [--eps X] [--ct C] [--backend B]\n"
               "         [--sets a,b,...] [--trees adaptive,uniform] [--levels -4,...,1]\n"
               "         [--repeat K] [--threads T] [--max-pairs P] [--json FILE]\n",
               why.c_str());
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--help" || k == "-h") usage("the adaptive and uniform trees on several point sets");
    if (i + 1 >= argc) usage("missing value after " + k);
    const std::string v = argv[++i];
    try {
      if (k == "--n")
        a.n = std::size_t(std::stod(v));
      else if (k == "--eps")
        a.eps = std::stod(v);
      else if (k == "--ct")
        a.ct = std::stoi(v);
      else if (k == "--backend")
        a.backend = v;
      else if (k == "--sets")
        a.sets = split(v, ',');
      else if (k == "--trees")
        a.trees = split(v, ',');
      else if (k == "--levels") {
        a.offsets.clear();
        for (const std::string& o : split(v, ',')) a.offsets.push_back(std::stoi(o));
      } else if (k == "--repeat")
        a.repeat = std::stoi(v);
      else if (k == "--threads")
        a.threads = std::stoi(v);
      else if (k == "--max-pairs")
        a.max_pairs = std::stod(v);
      else if (k == "--json")
        a.json = v;
      else
        usage("unknown option " + k);
    } catch (const std::logic_error&) {
      usage("bad value '" + v + "' for " + k);
    }
  }
  if (a.n < 1 || a.repeat < 1) usage("--n and --repeat must be >= 1");
  return a;
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Row {
  std::string set, tree;
  int offset = 0;
  bool ran = false;
  std::string note;
  int levels = 0;
  std::size_t leaves = 0;
  double near_pairs = 0, m2l = 0;
  double one_shot = 0, per_eval = 0, min_eval = 0;
  mlfma2d::Timings timings;  ///< of the median evaluation
};

Row measure(const Args& a, const PointSet& p, const std::string& set, const std::string& tree,
            int offset) {
  Row r;
  r.set = set;
  r.tree = tree;
  r.offset = offset;
  Options o;
  o.tree = tree;
  o.ct = a.ct;
  o.level_offset = offset;
  o.eps = a.eps;
  o.backend = a.backend;
  o.threads = a.threads;
  try {
    const double t0 = now();
    Solver s(p.x, p.y, o);
    r.levels = s.stats().levels;
    r.leaves = s.stats().leaf_boxes;
    r.near_pairs = double(s.stats().near_pairs);
    r.m2l = double(s.stats().m2l_pairs);
    if (r.near_pairs > a.max_pairs) {
      std::ostringstream m;
      m << r.near_pairs << " near-field pairs: skipped";
      r.note = m.str();
      return r;
    }
    s.evaluate(p.q);
    r.one_shot = now() - t0;
    std::vector<mlfma2d::Timings> runs;
    for (int k = 0; k < a.repeat; ++k) {
      s.evaluate(p.q);
      runs.push_back(s.timings());
    }
    std::sort(runs.begin(), runs.end(),
              [](const auto& x, const auto& y) { return x.total < y.total; });
    r.timings = runs[runs.size() / 2];
    r.per_eval = r.timings.total;
    r.min_eval = runs.front().total;
    r.ran = true;
  } catch (const mlfma2d::Error& e) {
    r.note = e.what();
  }
  return r;
}

std::string ms(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", 1e3 * s);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  // The device's start (first use in the process) apart from every row (bench.cpp says why).
  const double t_device = now();
  mlfma2d::start_device(a.backend);
  mlfma2d::wait_for_device();
  const double device_start = now() - t_device;
  std::vector<Row> rows;
  std::printf(
      "N = %zu, eps %g, CT %d, back end %s (device started in %.1f ms, apart from the "
      "rows), median of %d evaluations\n",
      a.n, a.eps, a.ct, a.backend.c_str(), 1e3 * device_start, a.repeat);
  std::printf("%-20s %-8s %4s %3s %9s %10s %10s | %9s %9s %9s %9s %9s\n", "set", "tree", "lev", "L",
              "leaves", "near pairs", "one-shot", "per eval", "tree", "plan", "far", "near");
  for (const std::string& set : a.sets) {
    const PointSet p = mlfma2d::generate_points(set, a.n, 1);
    for (const std::string& tree : a.trees) {
      for (int offset : a.offsets) {
        std::fprintf(stderr, "  %s, %s, levels %+d...\n", set.c_str(), tree.c_str(), offset);
        const Row r = measure(a, p, set, tree, offset);
        rows.push_back(r);
        if (!r.ran) {
          std::printf("%-20s %-8s %+4d %3d %9zu %10.3g  %s\n", set.c_str(), tree.c_str(), offset,
                      r.levels, r.leaves, r.near_pairs, r.note.c_str());
          continue;
        }
        const mlfma2d::Timings& t = r.timings;
        std::printf("%-20s %-8s %+4d %3d %9zu %10.3g %10s | %9s %9s %9s %9s %9s\n", set.c_str(),
                    tree.c_str(), offset, r.levels, r.leaves, r.near_pairs, ms(r.one_shot).c_str(),
                    ms(r.per_eval).c_str(), ms(t.tree).c_str(), ms(t.plan).c_str(),
                    ms(t.far).c_str(), ms(t.near).c_str());
        std::fflush(stdout);
      }
    }
  }

  // The best offset per set and tree, and the ratios.
  auto best = [&](const std::string& set, const std::string& tree) -> const Row* {
    const Row* b = nullptr;
    for (const Row& r : rows)
      if (r.ran && r.set == set && r.tree == tree && (!b || r.per_eval < b->per_eval)) b = &r;
    return b;
  };
  const Row* plate = best("uniform", "adaptive");
  const Row* plate_uniform = best("uniform", "uniform");
  std::printf(
      "\nbest level offset per set and tree (ms); ratios against the uniform plate on the "
      "adaptive tree\n");
  std::printf("%-20s %-8s %4s %10s %10s %12s %12s\n", "set", "tree", "lev", "per eval", "one-shot",
              "eval ratio", "one-shot ratio");
  for (const std::string& set : a.sets)
    for (const std::string& tree : a.trees) {
      const Row* b = best(set, tree);
      if (!b) continue;
      std::printf("%-20s %-8s %+4d %10s %10s %12.2f %12.2f\n", set.c_str(), tree.c_str(), b->offset,
                  ms(b->per_eval).c_str(), ms(b->one_shot).c_str(),
                  plate ? b->per_eval / plate->per_eval : NAN,
                  plate ? b->one_shot / plate->one_shot : NAN);
    }
  if (plate && plate_uniform)
    std::printf("uniform plate, adaptive / uniform tree: per evaluation %.2f, one-shot %.2f\n",
                plate->per_eval / plate_uniform->per_eval,
                plate->one_shot / plate_uniform->one_shot);

  if (!a.json.empty()) {
    std::ofstream f(a.json);
    f << "{\n  \"n\": " << a.n << ", \"eps\": " << a.eps << ", \"ct\": " << a.ct
      << ", \"backend\": \"" << a.backend << "\", \"repeat\": " << a.repeat << ", \"version\": \""
      << mlfma2d::version() << "\",\n  \"rows\": [\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      const mlfma2d::Timings& t = r.timings;
      f << "    {\"set\": \"" << r.set << "\", \"tree\": \"" << r.tree
        << "\", \"offset\": " << r.offset << ", \"ran\": " << (r.ran ? "true" : "false")
        << ", \"levels\": " << r.levels << ", \"leaves\": " << r.leaves
        << ", \"near_pairs\": " << r.near_pairs << ", \"m2l_pairs\": " << r.m2l
        << ", \"one_shot_s\": " << r.one_shot << ", \"per_eval_s\": " << r.per_eval
        << ", \"min_eval_s\": " << r.min_eval << ", \"tree_s\": " << t.tree
        << ", \"plan_s\": " << t.plan << ", \"setup_s\": " << t.setup << ", \"p2m_s\": " << t.p2m
        << ", \"m2m_s\": " << t.m2m << ", \"m2l_s\": " << t.m2l << ", \"p2l_s\": " << t.p2l
        << ", \"l2l_s\": " << t.l2l << ", \"l2p_s\": " << t.l2p << ", \"m2p_s\": " << t.m2p
        << ", \"far_s\": " << t.far << ", \"near_s\": " << t.near
        << ", \"near_kernel_s\": " << t.near_kernel << "}" << (i + 1 < rows.size() ? "," : "")
        << "\n";
    }
    f << "  ]\n}\n";
    if (!f) {
      std::fprintf(stderr, "mlfma2d_bench_trees: cannot write %s\n", a.json.c_str());
      return 3;
    }
  }
  return 0;
}
