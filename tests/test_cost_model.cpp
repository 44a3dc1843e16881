// The cost model behind CT "auto" (solver/cost_model.hpp): its choice against a brute-force scan
// of measured times, and its cache of constants (per machine key, per version, unreadable files
// ignored with a note).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "farfield/expansions.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "solver/cost_model.hpp"
#include "solver/options.hpp"
#include "tests/test_util.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

using namespace mlfma2d;
using mlfma2d::testing::make_points;
using mlfma2d::testing::temp_path;

namespace {

// The least total of three evaluations (the first also pays first touches).
double seconds_per_evaluation(Solver* s, const std::vector<double>& q) {
  double best = INFINITY;
  for (int k = 0; k < 3; ++k) {
    s->evaluate(q);
    best = std::min(best, s->timings().total);
  }
  return best;
}

bool mentions(const std::vector<std::string>& lines, const std::string& part) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Case {
  const char* shape;
  std::size_t n;
  double eps;
  const char* tree;
};

}  // namespace

// The requirement: the choice within 1.25x of the best of a brute-force scan, here on a
// grid of shapes, accuracies and both trees, the cpu back end on this machine. One thread: on a
// machine shared with other processes a team of OpenMP threads waits at barriers for descheduled
// members, which no model of the work predicts (docs/auto.md). The binary runs alone
// (RUN_SERIAL in tests/CMakeLists.txt), and the verdict compares the chosen solver with the
// scan's best measured in alternation after the scan, so a burst of load elsewhere slows both
// (CI once measured the chosen CT 64 far slower than the scan's CT 64, the same tree). A case that
// still misses is measured again (with fresh constants) up to three times; a model that is
// wrong misses every time.
TEST(CostModel, ChoosesWithinAQuarterOfTheScansBest) {
#ifdef MLFMA2D_SANITIZE
  GTEST_SKIP() << "a comparison of measured times: the sanitizers' instrumentation slows each "
                  "operator by its own factor, which no calibration of the real code describes "
                  "(the normal build runs it)";
#endif
  const std::string cache = temp_path("scan_calibration.txt");
  const std::vector<Case> cases = {{"uniform", 40000, 1e-6, "adaptive"},
                                   {"uniform", 40000, 1e-10, "adaptive"},
                                   {"graded-polygon", 40000, 1e-6, "adaptive"},
                                   {"clusters", 40000, 1e-8, "adaptive"},
                                   {"uniform", 40000, 1e-6, "uniform"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.shape) + " " + c.tree + " eps " + std::to_string(c.eps));
    const PointSet p = make_points(c.shape, c.n, 3);
    const bool adaptive = std::string(c.tree) == "adaptive";
    double ratio = INFINITY;
    std::string table;
    for (int attempt = 0; attempt < 3 && ratio > 1.25; ++attempt) {
      Options o;
      o.backend = "cpu";
      o.eps = c.eps;
      o.tree = c.tree;
      o.threads = 1;
      o.calibration_cache = cache;
      o.recalibrate = attempt > 0;
      Solver chosen(p.x, p.y, o);
      ASSERT_TRUE(chosen.auto_choice().ct_chosen);
      // The scan: every leaf capacity 2^k (adaptive) or level offset -4..+1 at CT 15 (uniform).
      std::unique_ptr<Solver> fastest;
      double fastest_seconds = INFINITY;
      std::ostringstream t;
      for (int step = adaptive ? 3 : -4; step <= (adaptive ? 10 : 1); ++step) {
        Options s = o;
        s.ct = adaptive ? 1 << step : kPapersCapacity;
        s.level_offset = adaptive ? 0 : step;
        try {
          auto fixed = std::make_unique<Solver>(p.x, p.y, s);
          const double seconds = seconds_per_evaluation(fixed.get(), p.q);
          t << " " << (adaptive ? "ct " : "offset ") << (adaptive ? s.ct : step) << ": "
            << 1e3 * seconds << " ms;";
          if (seconds < fastest_seconds) {
            fastest_seconds = seconds;
            fastest = std::move(fixed);
          }
        } catch (const InvalidInput&) {  // an offset past the root
        }
      }
      ASSERT_TRUE(fastest);
      // The verdict: the chosen solver and the scan's best, alternately.
      double mine = INFINITY;
      double best = INFINITY;
      for (int round = 0; round < 3; ++round) {
        mine = std::min(mine, seconds_per_evaluation(&chosen, p.q));
        best = std::min(best, seconds_per_evaluation(fastest.get(), p.q));
      }
      ratio = mine / best;
      table = "chosen " + std::to_string(chosen.auto_choice().ct) + "/" +
              std::to_string(chosen.auto_choice().level_offset) + " " + std::to_string(1e3 * mine) +
              " ms (predicted " + std::to_string(1e3 * chosen.auto_choice().predicted_seconds) +
              " ms), the scan's best " + std::to_string(1e3 * best) + " ms; scan:" + t.str();
    }
    EXPECT_LE(ratio, 1.25) << table;
    std::printf("%s %s n %zu eps %g: %.2fx the scan's best; %s\n", c.shape, c.tree, c.n, c.eps,
                ratio, table.c_str());
  }
}

TEST(CostModel, TheCacheFileNamesTheVersion) {
  ::setenv("MLFMA2D_CACHE_DIR", "/some/where", 1);
  EXPECT_EQ(default_calibration_cache(),
            std::string("/some/where/calibration-") + version() + ".txt");
  ::unsetenv("MLFMA2D_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(default_calibration_cache(),
            std::string("/xdg/mlfma2d/calibration-") + version() + ".txt");
}

TEST(CostModel, ConstantsAreMeasuredOnceAndAgainWhenTheMachineKeyChanges) {
  const PointSet p = make_points("uniform", 5000, 2);
  const std::string cache = mlfma2d::testing::fresh_path("key_calibration.txt");
  Options o;
  o.backend = "cpu";
  o.threads = 1;
  o.calibration_cache = cache;
  {
    Solver first(p.x, p.y, o);  // nothing cached: measured, then stored
    EXPECT_GT(first.auto_choice().calibration_seconds, 0);
    EXPECT_NE(first.auto_choice().calibration.find("measured now"), std::string::npos);
  }
  const std::string stored = read_all(cache);
  ASSERT_NE(stored.find("|cpu|threads=1|"), std::string::npos) << stored;
  {
    Solver second(p.x, p.y, o);  // cached
    EXPECT_EQ(second.auto_choice().calibration_seconds, 0);
    EXPECT_NE(second.auto_choice().calibration.find("constants from " + cache), std::string::npos);
  }
  // Another device (the key's first field): its line does not serve this machine.
  std::string other = stored;
  const auto eol = other.find('\n');
  other.replace(eol + 1, other.find('|', eol) - eol - 1, "another_device");
  std::ofstream(cache) << other;
  {
    Solver third(p.x, p.y, o);
    EXPECT_GT(third.auto_choice().calibration_seconds, 0);
  }
  const std::string both = read_all(cache);
  const std::string key = stored.substr(eol + 1, stored.find(' ', eol) - eol - 1);
  EXPECT_NE(both.find("\nanother_device|cpu"), std::string::npos) << both;  // kept
  EXPECT_NE(both.find("\n" + key + " "), std::string::npos) << both;        // and this one
  // Another thread count or p: another key too.
  o.threads = 2;
  Solver fourth(p.x, p.y, o);
  EXPECT_GT(fourth.auto_choice().calibration_seconds, 0);
  o.recalibrate = true;  // asked for: measured even though cached
  Solver fifth(p.x, p.y, o);
  EXPECT_GT(fifth.auto_choice().calibration_seconds, 0);
}

TEST(CostModel, AnUnreadableCacheIsIgnoredWithANoteAndReplaced) {
  const PointSet p = make_points("uniform", 3000, 2);
  Options o;
  o.backend = "cpu";
  o.threads = 1;
  for (const std::string& text :
       {std::string("garbage\n"),
        std::string("# mlfma2d cost-model constants, one line per machine key\nkey 1 2 x\n")}) {
    const std::string cache = mlfma2d::testing::fresh_path("bad_calibration.txt");
    std::ofstream(cache) << text;
    o.calibration_cache = cache;
    Solver s(p.x, p.y, o);
    EXPECT_TRUE(mentions(s.warnings(), "calibration cache " + cache)) << text;
    EXPECT_TRUE(mentions(s.warnings(), "ignored")) << text;
    EXPECT_GT(s.auto_choice().calibration_seconds, 0);
    const std::string now = read_all(cache);
    EXPECT_EQ(now.rfind("# mlfma2d cost-model constants", 0), 0u) << now;  // rewritten
    Solver again(p.x, p.y, o);
    EXPECT_FALSE(mentions(again.warnings(), "ignored"));
    EXPECT_EQ(again.auto_choice().calibration_seconds, 0);
  }
  // A cache that cannot be written: noted, and the Solver works all the same.
  o.calibration_cache = "/proc/mlfma2d-no-such-place/calibration.txt";
  Solver s(p.x, p.y, o);
  EXPECT_TRUE(mentions(s.warnings(), "cannot write the calibration cache"));
  EXPECT_GT(s.evaluate(p.q).potential.size(), 0u);
  // "none": no cache at all, no note.
  o.calibration_cache = "none";
  Solver none(p.x, p.y, o);
  EXPECT_TRUE(none.warnings().empty());
  EXPECT_GT(none.auto_choice().calibration_seconds, 0);
}

// With a device's near field beside a far field predicted to bound, the plan moves W and X items
// into the near field while the prediction falls, and only then: the H200 host's constants (a pair
// 1/400 of a W/X term) on clustered points in small leaves (the far field bounds), against the
// same with the near field bounding and on the CPU (far + near), where nothing moves.
TEST(CostModel, ADeviceNearFieldTakesWAndXItemsOnlyWhileThePredictionFalls) {
  const PointSet pts = make_points("clusters", 40000, 5);
  const TreePoints sorted =
      sort_tree_points(PointsRef{pts.x.data(), pts.y.data(), pts.x.size()}, PointsRef{}, 1);
  const int p = 30;
  const FarShape shape;
  const double all = 2.0 * double(pts.x.size());
  CostModel gpu;  // results/h200/session-2026-11-29b/call3/calibration.txt's first line, rounded
  gpu.m2l = 1.86e-11, gpu.box = 9.65e-11, gpu.point = 3.03e-11, gpu.wx = 5.07e-11;
  gpu.far_point = 1.19e-9, gpu.fixed = 1.5e-4, gpu.near_point = 1.9e-10, gpu.pair = 3.8e-12;
  gpu.leaf = 2.55e-9;
  gpu.overlap = true;
  auto chosen = [&](int ct, const CostModel& m) {
    CapacityChoice c;
    std::string warning;
    c.tree = grow_tree(sorted, ct, 0, TreeKind::Adaptive, &warning, 1);
    c.p2p_below = plan_options(p).p2p_below;
    c.plan = build_plan(c.tree, 1, plan_options(p));
    c.predicted =
        predict(m, far_field_work(c.tree, c.plan), double(c.plan.near.pairs), all, p, shape);
    return c;
  };
  CapacityChoice c = chosen(32, gpu);
  const CapacityChoice before = c;
  ASSERT_GT(before.plan.p2l_terms + before.plan.m2p_terms, 0u) << "clusters have W and X lists";
  ASSERT_GT(before.predicted.far, before.predicted.near) << "small leaves: the far field bounds";
  widen_near_field(gpu, p, shape, all, 1, &c);
  EXPECT_GT(c.p2p_below, before.p2p_below);
  EXPECT_LT(c.predicted.total, before.predicted.total);
  EXPECT_GT(c.plan.near.pairs, before.plan.near.pairs);
  EXPECT_LT(c.plan.p2l_terms + c.plan.m2p_terms, before.plan.p2l_terms + before.plan.m2p_terms);
  // It stopped where the next doubling would not have been better.
  if (c.predicted.far > c.predicted.near && c.plan.p2l_terms + c.plan.m2p_terms > 0) {
    PlanOptions next;
    next.p2p_below = 2 * c.p2p_below;
    const Plan more = build_plan(c.tree, 1, next);
    EXPECT_GE(
        predict(gpu, far_field_work(c.tree, more), double(more.near.pairs), all, p, shape).total,
        c.predicted.total);
  }
  // The near field bounding (large leaves), or the CPU: nothing moves.
  CapacityChoice large = chosen(2048, gpu);
  ASSERT_LE(large.predicted.far, large.predicted.near);
  widen_near_field(gpu, p, shape, all, 1, &large);
  EXPECT_EQ(large.p2p_below, plan_options(p).p2p_below);
  CostModel cpu = gpu;
  cpu.overlap = false;
  CapacityChoice on_cpu = chosen(32, cpu);
  widen_near_field(cpu, p, shape, all, 1, &on_cpu);
  EXPECT_EQ(on_cpu.p2p_below, plan_options(p).p2p_below);
  EXPECT_EQ(on_cpu.plan.near.pairs, before.plan.near.pairs);
}
