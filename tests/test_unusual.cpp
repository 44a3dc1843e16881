// Unusual but valid input, computed correctly: each case against direct summation (the library's
// direct_sum, and where that could share a flaw with the solver, an independent reference).
// docs/robustness.md lists the cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

struct Points {
  std::vector<double> x, y, q, tx, ty;  // tx, ty empty: self-evaluation
};

struct Outcome {
  Result result;
  std::vector<double> phi, fx, fy;  // direct sums
  TreeStats stats;
  std::vector<std::string> warnings;
};

// Solve with the field, compare with direct summation, and expect every value finite.
Outcome solve(const Points& p, Options o = {}) {
  o.field = true;
  if (o.threads == 0) o.threads = 2;
  Solver s = p.tx.empty() ? Solver(p.x, p.y, o) : Solver(p.x, p.y, p.tx, p.ty, o);
  Outcome out;
  out.result = s.evaluate(p.q);
  out.stats = s.stats();
  out.warnings = s.warnings();
  const auto& tx = p.tx.empty() ? p.x : p.tx;
  const auto& ty = p.tx.empty() ? p.y : p.ty;
  direct_sum(p.x, p.y, p.q, tx, ty, {}, &out.phi, &out.fx, &out.fy, 2);
  for (std::size_t i = 0; i < out.result.potential.size(); ++i) {
    EXPECT_TRUE(std::isfinite(out.result.potential[i])) << "potential " << i;
    EXPECT_TRUE(std::isfinite(out.result.field_x[i]) && std::isfinite(out.result.field_y[i]))
        << "field " << i;
  }
  return out;
}

// Relative L2 error of a field against a reference, both scaled first: fields around 1e300
// (points 1e-300 apart) or 1e-300 (points 1e300 apart) would overflow or underflow the sums of
// squares.
double scaled_field_error(const std::vector<double>& fx, const std::vector<double>& fy,
                          const std::vector<double>& rx, const std::vector<double>& ry) {
  double big = 0;
  for (std::size_t i = 0; i < rx.size(); ++i)
    big = std::max({big, std::abs(rx[i]), std::abs(ry[i])});
  if (big == 0) big = 1;
  std::vector<double> ax, ay, bx, by;
  for (std::size_t i = 0; i < rx.size(); ++i) {
    ax.push_back(fx[i] / big);
    ay.push_back(fy[i] / big);
    bx.push_back(rx[i] / big);
    by.push_back(ry[i] / big);
  }
  return testing::field_rel_l2(ax, ay, bx, by);
}

double field_error(const Outcome& o) {
  return scaled_field_error(o.result.field_x, o.result.field_y, o.fx, o.fy);
}

// Relative L2 errors of potential and field against the direct sums within `tol`.
void expect_within(const Outcome& o, double tol) {
  EXPECT_LE(error_norms(o.result.potential, o.phi).rel_l2, tol);
  EXPECT_LE(field_error(o), tol);
}

bool mentions(const std::vector<std::string>& notes, const std::string& word) {
  for (const auto& n : notes) {
    if (n.find(word) != std::string::npos) return true;
  }
  return false;
}

Points uniform(std::size_t n, std::uint64_t seed, double x0 = 0, double y0 = 0, double side = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1), c(-1, 1);
  Points p;
  for (std::size_t i = 0; i < n; ++i) {
    p.x.push_back(x0 + side * u(rng));
    p.y.push_back(y0 + side * u(rng));
    p.q.push_back(c(rng));
  }
  return p;
}

// ------------------------------------------------------------------ tiny point sets

TEST(Unusual, OnePointSelfEvaluationIsExactlyZero) {
  Points p;
  p.x = {0.3};
  p.y = {-7.5};
  p.q = {2.0};
  const Outcome o = solve(p);
  ASSERT_EQ(o.result.potential.size(), 1u);
  EXPECT_EQ(o.result.potential[0], 0.0);
  EXPECT_EQ(o.result.field_x[0], 0.0);
  EXPECT_EQ(o.result.field_y[0], 0.0);
}

TEST(Unusual, OneSourceManyTargetsAndOneTarget) {
  Points p;
  p.x = {0.5};
  p.y = {0.25};
  p.q = {-1.5};
  p.tx = {0.5, 1.5, -2.0, 0.5, 1e3};
  p.ty = {0.25, 0.25, 3.0, 1.25, -1e3};  // the first target is the source: skipped
  Options o;
  o.eps = 1e-12;  // even 5 points go through the expansions (L >= 3)
  const Outcome out = solve(p, o);
  EXPECT_EQ(out.result.potential[0], 0.0);
  EXPECT_NEAR(out.result.potential[1], 0.0, 1e-12);  // log 1 = 0
  EXPECT_NEAR(out.result.potential[2], -1.5 * std::log(std::hypot(2.5, 2.75)), 1e-12);
  expect_within(out, 1e-12);
  Points one = p;
  one.tx = {2.5};
  one.ty = {0.25};
  const Outcome o1 = solve(one, o);
  EXPECT_NEAR(o1.result.potential[0], -1.5 * std::log(2.0), 1e-12);
  EXPECT_NEAR(o1.result.field_x[0], 1.5 / 2.0, 1e-12);  // E = -q (x - y)/r^2
  EXPECT_NEAR(o1.result.field_y[0], 0.0, 1e-12);
}

TEST(Unusual, TwoPoints) {
  Points p;
  p.x = {0.0, 3.0};
  p.y = {0.0, 4.0};
  p.q = {2.0, -1.0};
  for (const double eps : {1e-6, 1e-12}) {
    Options opt;
    opt.eps = eps;
    const Outcome o = solve(p, opt);
    const double tol = 10 * eps;  // absolute, on values of size 1
    EXPECT_NEAR(o.result.potential[0], -1.0 * std::log(5.0), tol);
    EXPECT_NEAR(o.result.potential[1], 2.0 * std::log(5.0), tol);
    // E at point 0 from point 1: -q1 (x0 - x1)/r^2 = -(-1)(-3, -4)/25
    EXPECT_NEAR(o.result.field_x[0], -3.0 / 25.0, tol);
    EXPECT_NEAR(o.result.field_y[0], -4.0 / 25.0, tol);
    expect_within(o, eps);
  }
}

// ------------------------------------------------------------------ coincident points

TEST(Unusual, AllPointsIdenticalGiveExactlyZeroWithANote) {
  for (const double at : {0.0, 0.75, -3e5, 1e-300}) {
    for (const std::size_t n :
         {std::size_t(2), std::size_t(15), std::size_t(16), std::size_t(500)}) {
      SCOPED_TRACE("at " + std::to_string(at) + ", n " + std::to_string(n));
      Points p;
      p.x.assign(n, at);
      p.y.assign(n, -at);
      for (std::size_t j = 0; j < n; ++j) p.q.push_back(1.0 + double(j));
      const Outcome o = solve(p);
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(o.result.potential[i], 0.0) << i;
        ASSERT_EQ(o.result.field_x[i], 0.0) << i;
        ASSERT_EQ(o.result.field_y[i], 0.0) << i;
      }
      EXPECT_TRUE(mentions(o.warnings, "identical")) << "no note about identical points";
      if (n > std::size_t(o.stats.ct)) EXPECT_TRUE(o.stats.levels_capped);
    }
  }
}

TEST(Unusual, ManyCoincidentPointsCapTheTreeAndStayWithinEps) {
  // 400 points on one spot (CT = 15 cannot be met), 1 x 60 on a second spot, and 3000 spread.
  Points p = uniform(3000, 5);
  for (int j = 0; j < 400; ++j) {
    p.x.push_back(0.3125);
    p.y.push_back(0.6875);
    p.q.push_back(j % 2 ? 1.0 : -0.5);
  }
  for (int j = 0; j < 60; ++j) {
    p.x.push_back(0.9);
    p.y.push_back(0.1);
    p.q.push_back(0.25);
  }
  for (const double eps : {1e-6, 1e-10}) {
    Options o;
    o.eps = eps;
    o.ct = kPapersCapacity;
    const Outcome out = solve(p, o);
    EXPECT_TRUE(out.stats.levels_capped);
    EXPECT_EQ(out.stats.levels, kMaxLevels);
    EXPECT_TRUE(mentions(out.warnings, "cannot be met")) << "no warning";
    expect_within(out, eps);
  }
}

// ------------------------------------------------------------------ issue 10: no silent wrong
// answers

// Potential and field by direct summation in long double (exponents to 1e4932: r^2 of points
// 1e300 apart does not overflow), an independent reference for extents doubles cannot square.
void long_double_sums(const Points& p, std::vector<double>* phi, std::vector<double>* fx,
                      std::vector<double>* fy) {
  const auto& tx = p.tx.empty() ? p.x : p.tx;
  const auto& ty = p.tx.empty() ? p.y : p.ty;
  phi->assign(tx.size(), 0);
  fx->assign(tx.size(), 0);
  fy->assign(tx.size(), 0);
  for (std::size_t i = 0; i < tx.size(); ++i) {
    long double sp = 0, sx = 0, sy = 0;
    for (std::size_t j = 0; j < p.x.size(); ++j) {
      const long double dx = (long double)tx[i] - p.x[j], dy = (long double)ty[i] - p.y[j];
      const long double r2 = dx * dx + dy * dy;
      if (r2 == 0) continue;
      sp += 0.5L * p.q[j] * std::log(r2);
      sx -= p.q[j] * dx / r2;
      sy -= p.q[j] * dy / r2;
    }
    (*phi)[i] = double(sp);
    (*fx)[i] = double(sx);
    (*fy)[i] = double(sy);
  }
}

// Coordinates spread over 1e200 (and over the whole double range, +-1e308): r^2 would overflow,
// so the tree works in coordinates scaled by a power of two and adds log S per paired charge.
TEST(Unusual, ExtentsBeyondTheSquareOfADoubleAreExact) {
  for (const double side : {1e200, 1.7e308}) {
    SCOPED_TRACE("side " + std::to_string(side));
    Points p = uniform(500, 12);  // the unit square, spread to [-side/2, side/2]^2
    for (std::size_t i = 0; i < p.x.size(); ++i) {
      p.x[i] = -side / 2 + side * p.x[i];
      p.y[i] = -side / 2 + side * p.y[i];
    }
    for (const bool separate : {false, true}) {
      Points c = p;
      if (separate) {
        c.tx = {p.x[3], 0.0, side / 4};  // on a source, at the origin, elsewhere
        c.ty = {p.y[3], 0.0, -side / 3};
      }
      std::vector<double> rp, rx, ry;
      long_double_sums(c, &rp, &rx, &ry);
      for (const double eps : {1e-6, 1e-12}) {
        Options o;
        o.eps = eps;
        o.field = true;
        Solver s = c.tx.empty() ? Solver(c.x, c.y, o) : Solver(c.x, c.y, c.tx, c.ty, o);
        const Result r = s.evaluate(c.q);
        EXPECT_GT(s.stats().coordinate_scale, 1e100);
        EXPECT_LE(error_norms(r.potential, rp).rel_l2, eps);
        EXPECT_LE(scaled_field_error(r.field_x, r.field_y, rx, ry), eps);
      }
      // The library's direct sum scales the same way.
      std::vector<double> dp, dx, dy;
      const auto& tx = c.tx.empty() ? c.x : c.tx;
      const auto& ty = c.tx.empty() ? c.y : c.ty;
      direct_sum(c.x, c.y, c.q, tx, ty, {}, &dp, &dx, &dy, 2);
      EXPECT_LE(error_norms(dp, rp).rel_l2, 1e-14);
      EXPECT_LE(scaled_field_error(dx, dy, rx, ry), 1e-14);
    }
  }
}

// Coordinates near +-1e308 (beyond 2^1023): the scale is the largest power of two a double holds,
// 2^1023, not 2^1024 (which is inf: the report said "scaled by 1/inf" and the direct sum's field,
// divided by it, was 0).
TEST(Unusual, CoordinatesNearTheLargestDoubleHaveAFiniteScale) {
  Points p = uniform(300, 21);
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    p.x[i] = 1e308 * (2 * p.x[i] - 1);
    p.y[i] = 1e308 * (2 * p.y[i] - 1);
  }
  p.x[0] = 1.7e308;  // beyond 2^1023 = 8.99e307
  std::vector<double> rp, rx, ry;
  long_double_sums(p, &rp, &rx, &ry);
  Options o;
  o.eps = 1e-10;
  o.field = true;
  Solver s(p.x, p.y, o);
  EXPECT_EQ(s.stats().coordinate_scale, std::ldexp(1.0, 1023));
  const Result r = s.evaluate(p.q);
  EXPECT_LE(error_norms(r.potential, rp).rel_l2, 1e-10);
  EXPECT_LE(scaled_field_error(r.field_x, r.field_y, rx, ry), 1e-10);
  std::vector<double> dp, dx, dy;
  direct_sum(p.x, p.y, p.q, p.x, p.y, {}, &dp, &dx, &dy, 2);
  EXPECT_LE(error_norms(dp, rp).rel_l2, 1e-14);
  EXPECT_LE(scaled_field_error(dx, dy, rx, ry), 1e-13);
}

// Two points that differ but become one when scaled to the set's extent: a clear error, not a
// silently skipped pair.
TEST(Unusual, PointsBelowTheResolutionOfAHugeExtentAreAnError) {
  const std::vector<double> x = {-1e300, 1e300, 1e-310, 2e-310}, y = {0, 0, 0, 0};
  try {
    Solver s(x, y);
    FAIL() << "no error";
  } catch (const InvalidInput& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("source 2"), std::string::npos) << m;
    EXPECT_NE(m.find("different points"), std::string::npos) << m;
  }
}

// eps below what doubles hold: p saturates at the most terms (not 4, as 1/eps overflowing to inf
// once gave), and the Solver says what it can attain.
TEST(Unusual, EpsBelowDoublePrecisionSaturatesTheTermsWithANote) {
  EXPECT_EQ(terms_for_eps(1e-309), kMaxTerms);
  EXPECT_EQ(terms_for_eps(1e-320), kMaxTerms);
  EXPECT_EQ(terms_for_eps(4.9e-324), kMaxTerms);
  EXPECT_EQ(terms_for_eps(1e-20), kMaxTerms);
  EXPECT_LT(terms_for_eps(1e-12), kMaxTerms);
  const Points p = uniform(3000, 4);
  Options o;
  o.eps = 1e-309;
  const Outcome out = solve(p, o);
  EXPECT_EQ(out.stats.terms, kMaxTerms);
  EXPECT_GT(out.stats.accuracy_floor, 0);
  EXPECT_LE(out.stats.accuracy_floor, 1e-13);
  EXPECT_TRUE(mentions(out.warnings, "below what double arithmetic attains"));
  expect_within(out, out.stats.accuracy_floor);
  o.eps = 1e-6;
  EXPECT_EQ(solve(p, o).stats.accuracy_floor, 0);
}

// A million copies of one point cost as one: coincident sources are merged (charges summed) and
// the work stays O(N); every target still gets its value (targets at the merged point skip it).
TEST(Unusual, CoincidentSourcesAreMergedAndCostStaysLinear) {
  Points p = uniform(2000, 8);
  const std::size_t copies = 200000;
  for (std::size_t j = 0; j < copies; ++j) {
    p.x.push_back(0.25);
    p.y.push_back(0.75);
    p.q.push_back(j % 3 ? 0.5 : -1.0);
  }
  // and a few pairs and triples of duplicates among the spread points
  for (std::size_t j = 0; j < 30; ++j) {
    p.x.push_back(p.x[j]);
    p.y.push_back(p.y[j]);
    p.q.push_back(0.125);
  }
  Options o;
  o.eps = 1e-10;
  o.field = true;
  Solver s(p.x, p.y, o);
  EXPECT_EQ(s.stats().merged_sources, copies - 1 + 30);
  EXPECT_EQ(s.stats().n_sources, p.x.size());
  EXPECT_LT(double(s.stats().near_pairs), 100.0 * double(p.x.size())) << "cost O(N), not O(N^2)";
  const Result r = s.evaluate(p.q);
  // Direct sums at a sample of targets (every coincident target has the same value).
  std::vector<std::size_t> which = {
      0, 1, 2, 17, 29, 1999, 2000, 2001, 2000 + copies / 2, p.x.size() - 1, p.x.size() - 30};
  std::vector<double> rp, rx, ry;
  direct_sum(p.x, p.y, p.q, p.x, p.y, which, &rp, &rx, &ry, 2);
  std::vector<double> gp, gx, gy;
  for (std::size_t i : which) {
    gp.push_back(r.potential[i]);
    gx.push_back(r.field_x[i]);
    gy.push_back(r.field_y[i]);
  }
  EXPECT_LE(error_norms(gp, rp).rel_l2, 1e-10);
  EXPECT_LE(testing::field_rel_l2(gx, gy, rx, ry), 1e-10);
  // Separate targets on the merged point and elsewhere.
  const std::vector<double> tx = {0.25, 0.5, p.x[5]}, ty = {0.75, 0.5, p.y[5]};
  Solver t(p.x, p.y, tx, ty, o);
  const Result rt = t.evaluate(p.q);
  direct_sum(p.x, p.y, p.q, tx, ty, {}, &rp, &rx, &ry, 2);
  EXPECT_LE(error_norms(rt.potential, rp).rel_l2, 1e-10);
  EXPECT_LE(testing::field_rel_l2(rt.field_x, rt.field_y, rx, ry), 1e-10);
}

// A moved-from Solver throws (the library never aborts).
TEST(Unusual, MovedFromSolverThrows) {
  const Points p = uniform(100, 3);
  Solver a(p.x, p.y);
  Solver b = std::move(a);
  EXPECT_NO_THROW(b.evaluate(p.q));
  EXPECT_THROW(a.evaluate(p.q), InvalidInput);  // NOLINT(bugprone-use-after-move)
  EXPECT_THROW(a.stats(), InvalidInput);
  EXPECT_THROW(a.timings(), InvalidInput);
  EXPECT_THROW(a.options(), InvalidInput);
  EXPECT_THROW(a.warnings(), InvalidInput);
  std::vector<double> phi(p.x.size());
  EXPECT_THROW(a.evaluate(p.q.data(), phi.data(), nullptr, nullptr), InvalidInput);
}

// ------------------------------------------------------------------ scales and separations

TEST(Unusual, ClustersWithTinySeparationsInAUnitDomain) {
  // Clusters of 50 points 1e-12 apart at 20 places in the unit square, plus the corners.
  Points p;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(0, 1), c(-1, 1);
  for (int k = 0; k < 20; ++k) {
    const double cx = u(rng), cy = u(rng);
    for (int j = 0; j < 50; ++j) {
      p.x.push_back(cx + 1e-12 * (j % 7));
      p.y.push_back(cy + 1e-12 * (j / 7));
      p.q.push_back(c(rng));
    }
  }
  for (double x : {0.0, 1.0})
    for (double y : {0.0, 1.0}) {
      p.x.push_back(x);
      p.y.push_back(y);
      p.q.push_back(1.0);
    }
  for (const double eps : {1e-6, 1e-12}) {
    Options o;
    o.eps = eps;
    expect_within(solve(p, o), eps);
  }
}

TEST(Unusual, LargeOffsetSmallExtent) {
  // Coordinates around 1e6 with an extent of 1e-3.
  for (const double eps : {1e-6, 1e-9}) {
    Points p = uniform(4000, 11, 1e6, -1e6, 1e-3);
    Options o;
    o.eps = eps;
    expect_within(solve(p, o), eps);
  }
}

TEST(Unusual, TinyCoordinatesAround1eMinus300) {
  // Points of the unit square scaled by s = 1e-300: log|s r| = log s + log|r|, so the exact
  // result is the unit-scale one plus log(s) times the charge (no pair is coincident here), an
  // independent check of direct_sum too, whose squared distances would underflow.
  const double s = 1e-300;
  const Points unit = uniform(3000, 13);
  Points tiny = unit;
  double total = 0;
  for (std::size_t j = 0; j < tiny.x.size(); ++j) {
    tiny.x[j] *= s;
    tiny.y[j] *= s;
    total += tiny.q[j];
  }
  std::vector<double> ref;
  direct_sum(unit.x, unit.y, unit.q, unit.x, unit.y, {}, &ref, nullptr, nullptr, 2);
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] += std::log(s) * (total - unit.q[i]);
  Options o;
  o.eps = 1e-9;
  const Outcome out = solve(tiny, o);
  EXPECT_LE(error_norms(out.phi, ref).rel_l2, 1e-13) << "direct_sum at 1e-300";
  expect_within(out, 1e-9);
  EXPECT_LE(error_norms(out.result.potential, ref).rel_l2, 1e-9);
}

TEST(Unusual, TinyDomainWithCoincidentPoints) {
  // Extent 1e-300 and a pile of 100 coincident points: the tree goes to its deepest level.
  Points p = uniform(500, 17, 0, 0, 1e-300);
  for (int j = 0; j < 100; ++j) {
    p.x.push_back(5e-301);
    p.y.push_back(2.5e-301);
    p.q.push_back(0.5);
  }
  const Outcome o = solve(p);
  if (o.stats.ct < 100) EXPECT_TRUE(o.stats.levels_capped);
  expect_within(o, 1e-6);
}

TEST(Unusual, PointsExactlyOnBoxEdgesAndCorners) {
  // A 33 x 33 grid on [0, 1]^2: every point lies on edges or corners of the boxes of every level
  // (the root box is [0, 1]^2, so x = k/32 are box boundaries down to level 6).
  Points p;
  for (int i = 0; i <= 32; ++i)
    for (int j = 0; j <= 32; ++j) {
      p.x.push_back(i / 32.0);
      p.y.push_back(j / 32.0);
      p.q.push_back(std::sin(1.0 + i * 33 + j));
    }
  for (const int ct : {1, 4, 15, 100}) {
    for (const int offset : {0, 1}) {
      SCOPED_TRACE("ct " + std::to_string(ct) + " offset " + std::to_string(offset));
      Options o;
      o.ct = ct;
      o.level_offset = offset;
      o.eps = 1e-9;
      const Outcome out = solve(p, o);
      EXPECT_LE(error_norms(out.result.potential, out.phi).rel_l2, 1e-9);
      // The field of this grid with mixed-sign charges is the hardest case measured for p(eps)
      // (docs/accuracy.md): it set the calibration.
      EXPECT_LE(field_error(out), 1e-9);
    }
  }
}

TEST(Unusual, TargetsOutsideTheSourcesBoundingBox) {
  const Points src = uniform(3000, 19);
  for (const double far : {2.0, 1e3}) {
    SCOPED_TRACE("targets at distance " + std::to_string(far));
    Points p = src;
    std::mt19937_64 rng(23);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int i = 0; i < 500; ++i) {
      p.tx.push_back(far + 0.5 * u(rng));
      p.ty.push_back(-far + 0.5 * u(rng));
    }
    p.tx.push_back(0.5);  // and one inside
    p.ty.push_back(0.5);
    Options o;
    o.eps = 1e-8;
    expect_within(solve(p, o), 1e-8);
  }
}

TEST(Unusual, VeryUnevenCharges) {
  // 1e12 next to 1e-12: the relative L2 error is dominated by the large charges, so also check
  // the potential of the small charges alone (on the same geometry) on its own scale.
  Points p = uniform(4000, 29);
  Points small = p;
  for (std::size_t j = 0; j < p.q.size(); ++j) {
    p.q[j] = (j % 2 ? 1e12 : 1e-12) * (j % 3 ? 1.0 : -1.0);
    small.q[j] = j % 2 ? 0.0 : p.q[j];
  }
  Options o;
  o.eps = 1e-9;
  expect_within(solve(p, o), 1e-9);
  expect_within(solve(small, o), 1e-9);
}

}  // namespace
}  // namespace mlfma2d
