// The --verify verdict (app/inputs.hpp verify()): the errors against the tolerance max(eps,
// accuracy floor) when p came from eps, only finiteness with --terms, a non-finite error always
// failing; every output of every density, the worst named. On synthetic references, so each case
// is exact.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "app/inputs.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d::app {
namespace {

// A reference of ones at 4 targets (field (1, 0)), and a result off by `rel` everywhere (the
// field by `field_rel`).
struct Case {
  Reference ref;
  Result result;
  Case(double rel, double field_rel) {
    ref.n_checked = 4;
    ref.field = true;
    ref.phi.assign(4, 1.0);
    ref.fx.assign(4, 1.0);
    ref.fy.assign(4, 0.0);
    result.potential.assign(4, 1.0 + rel);
    result.field_x.assign(4, 1.0 + field_rel);
    result.field_y.assign(4, 0.0);
  }
};

TEST(Verify, WithinEpsPasses) {
  const Case c(1e-9, 2e-9);
  const Verification v = verify(c.ref, c.result, 1e-8, true, 0);
  EXPECT_TRUE(v.passed) << v.failure;
  EXPECT_EQ(v.tolerance, 1e-8);
  EXPECT_NEAR(v.rel_l2, 1e-9, 1e-15);
}

TEST(Verify, AboveEpsFailsNamingTheQuantity) {
  const Case potential(1e-6, 0);
  Verification v = verify(potential.ref, potential.result, 1e-8, true, 0);
  EXPECT_FALSE(v.passed);
  EXPECT_TRUE(testing::contains(v.failure, "the potential's relative L2 error")) << v.failure;
  EXPECT_TRUE(testing::contains(v.failure, "is above eps, 1e-08")) << v.failure;
  const Case field(0, 3e-8);
  v = verify(field.ref, field.result, 1e-8, true, 0);
  EXPECT_FALSE(v.passed);
  EXPECT_TRUE(testing::contains(v.failure, "the field's")) << v.failure;
}

TEST(Verify, TheAccuracyFloorRaisesTheTolerance) {
  const Case c(1e-6, 1e-6);
  Verification v = verify(c.ref, c.result, 1e-8, true, 1e-5);
  EXPECT_TRUE(v.passed) << v.failure;
  EXPECT_EQ(v.tolerance, 1e-5);
  v = verify(c.ref, c.result, 1e-8, true, 1e-7);
  EXPECT_FALSE(v.passed);
  EXPECT_TRUE(testing::contains(v.failure, "the accuracy floor of this geometry, 1e-07"))
      << v.failure;
}

TEST(Verify, WithTermsOnlyANonFiniteErrorFails) {
  const Case c(1e-2, 1e-2);
  const Verification terms = verify(c.ref, c.result, 1e-8, false, 0);
  EXPECT_TRUE(terms.passed);
  EXPECT_FALSE(terms.checked);  // no tolerance: the report must not claim one was met
  EXPECT_TRUE(verify(c.ref, c.result, 1e-1, true, 0).checked);
  Case nan(0, 0);
  nan.result.potential[2] = std::numeric_limits<double>::quiet_NaN();
  for (const bool from_eps : {true, false}) {
    const Verification v = verify(nan.ref, nan.result, 1e-8, from_eps, 0);
    EXPECT_FALSE(v.passed);
    EXPECT_TRUE(testing::contains(v.failure, "is not finite")) << v.failure;
  }
}

// Values near 1e-200 (the field of sources spread over 1e200) or 1e200: their squares would
// underflow or overflow; the norms are scaled, so the errors are the relative errors made.
TEST(Verify, ErrorsOfTinyAndHugeValuesAreMeasured) {
  for (const double size : {1e-200, 1e-310, 1e200}) {
    Case c(1e-7, 2e-7);
    for (auto* v : {&c.ref.phi, &c.ref.fx, &c.result.potential, &c.result.field_x}) {
      for (double& x : *v) x *= size;
    }
    const Verification v = verify(c.ref, c.result, 1e-6, true, 0);
    EXPECT_NEAR(v.rel_l2, 1e-7, size < 1e-300 ? 1e-9 : 1e-15) << size;
    EXPECT_NEAR(v.field_rel_l2, 2e-7, size < 1e-300 ? 1e-9 : 1e-15) << size;
    EXPECT_NEAR(v.field_max_abs / size, 2e-7, 1e-9) << size;
    EXPECT_TRUE(v.passed) << v.failure;
  }
}

// A NaN is never a smaller error: std::max(0.0, NaN) is 0, which once made max_abs 0.
TEST(ErrorNorms, NaNAndInfPropagate) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [value, reference] :
       std::vector<std::pair<std::vector<double>, std::vector<double>>>{
           {{nan, 1}, {1, 1}}, {{1, nan}, {1, 1}}, {{1, 1}, {nan, 1}}}) {
    const ErrorNorms e = error_norms(value, reference);
    EXPECT_TRUE(std::isnan(e.max_abs));
    EXPECT_TRUE(std::isnan(e.rel_l2));
  }
  const ErrorNorms f = error_norms({1, 1}, {0, 1}, {nan, 1}, {0, 1});
  EXPECT_TRUE(std::isnan(f.max_abs));
  EXPECT_TRUE(std::isnan(f.rel_l2));
  const ErrorNorms inf = error_norms({INFINITY, 1}, {1, 1});
  EXPECT_EQ(inf.max_abs, INFINITY);
  EXPECT_EQ(inf.rel_l2, INFINITY);
  const ErrorNorms zero = error_norms({1, 2}, {1, 2});
  EXPECT_EQ(zero.rel_l2, 0);
  EXPECT_EQ(zero.max_abs, 0);
  EXPECT_NEAR(error_norms({3, 0}, {0, 0}).rel_l2, 3, 1e-15);  // a zero reference: absolute
}

// Two densities at 2 targets with the Hessian: density 1's Hessian off by `hessian_rel`.
struct TwoDensities {
  Reference ref;
  Result result;
  explicit TwoDensities(double hessian_rel) {
    ref.n_checked = 2;
    ref.densities = 2;
    ref.hessian = true;
    ref.phi = {1, 1, 2, 2};
    ref.hxx = {1, 1, 1, 1};
    ref.hxy = {0, 0, 0, 0};
    ref.hyy = {-1, -1, -1, -1};
    result.potential = {1 + 1e-9, 1, 2, 2 * (1 + 1e-10)};
    result.hessian_xx = {1, 1, 1 + hessian_rel, 1 + hessian_rel};
    result.hessian_xy = {0, 0, 0, 0};
    result.hessian_yy = {-1, -1, -1, -1};
  }
};

TEST(Verify, EveryDensitysHessianIsJudgedAndTheWorstNamed) {
  const TwoDensities ok(1e-9);
  Verification v = verify(ok.ref, ok.result, 1e-8, true, 0);
  EXPECT_TRUE(v.passed) << v.failure;
  ASSERT_EQ(v.per_density.size(), 2u);
  EXPECT_EQ(v.worst, 0);  // the potential: density 0 is off by 1e-9 / sqrt(2), density 1 less
  EXPECT_NEAR(v.rel_l2, 1e-9 / std::sqrt(2.0), 1e-15);
  EXPECT_TRUE(v.has_hessian);
  EXPECT_EQ(v.hessian_worst, 1);
  EXPECT_NEAR(v.hessian_rel_l2, 1e-9, 1e-15);
  EXPECT_EQ(v.per_density[0][2].rel_l2, 0.0);
  const TwoDensities bad(1e-6);
  v = verify(bad.ref, bad.result, 1e-8, true, 0);
  EXPECT_FALSE(v.passed);
  EXPECT_TRUE(testing::contains(
      v.failure, "the Hessian's relative L2 error against direct summation (density 1 of 2)"))
      << v.failure;
  TwoDensities nan(0);
  nan.result.potential[3] = std::numeric_limits<double>::quiet_NaN();
  v = verify(nan.ref, nan.result, 1e-8, false, 0);
  EXPECT_FALSE(v.passed);  // with --terms too: a NaN is never within anything
  EXPECT_EQ(v.worst, 1);
  EXPECT_TRUE(testing::contains(v.failure,
                                "potential's relative L2 error against direct "
                                "summation (density 1 of 2) is not finite"))
      << v.failure;
}

TEST(Verify, NonFiniteValuesAreCounted) {
  Case c(0, 0);
  c.result.potential[0] = INFINITY;
  c.result.field_y[3] = -INFINITY;
  c.result.field_x[3] = std::nan("");
  const NonFinite n = count_non_finite(c.result);
  EXPECT_EQ(n.potential, 1u);
  EXPECT_EQ(n.field, 2u);
  EXPECT_EQ(n.text(c.result),
            "1 of 4 potentials and 2 of 8 field components are not finite (inf or NaN)");
  TwoDensities h(0);
  h.result.hessian_xy[1] = INFINITY;
  const NonFinite m = count_non_finite(h.result);
  EXPECT_EQ(m.hessian, 1u);
  EXPECT_EQ(m.text(h.result),
            "0 of 4 potentials and 1 of 12 Hessian components are not finite "
            "(inf or NaN)");
}

}  // namespace
}  // namespace mlfma2d::app
