// The near field's half log (kernel/half_log.hpp, docs/math.md 6.4): 0.5 log x by a table of 16
// entries and a polynomial, as the resident GPU kernels compute it (TableHalfLog, walked here on
// the host with the table staged as a block stages it) and as the wide kernels do at each
// width (through near_batch, one unit charge), against the long double log: within 2 ulps of the
// result plus 2^-54, over the whole range of normal doubles, every table cell's edges, and near
// 1 where the result vanishes.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <random>
#include <vector>

#include "kernel/pair.hpp"
#include "kernel/wide.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

// Arguments over every binade, each table cell's edges, 1 +- small and the extremes.
std::vector<double> arguments() {
  std::vector<double> x;
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> m(1.0, 2.0);
  std::uniform_int_distribution<int> e(-1022, 1023);
  for (int k = 0; k < 200000; ++k) x.push_back(std::ldexp(m(g), e(g)));
  for (int k = 0; k < 100000; ++k) x.push_back(std::ldexp(m(g), e(g) % 40));  // geometry's r2
  for (int e2 : {-1022, -60, -1, 0, 1, 7, 1023})
    for (int i = 0; i <= kHalfLogTable; ++i) {
      const double edge = std::ldexp(1.0 + double(i) / kHalfLogTable, e2);
      if (!(edge <= DBL_MAX)) continue;
      x.push_back(edge);
      x.push_back(std::nextafter(edge, 0.0));
      if (std::nextafter(edge, INFINITY) <= DBL_MAX) x.push_back(std::nextafter(edge, INFINITY));
    }
  for (double d = 1e-16; d < 0.1; d *= 3) {
    x.push_back(1 + d);
    x.push_back(1 - d);
  }
  x.push_back(DBL_MIN);
  x.push_back(DBL_MAX);
  return x;
}

// The error allowed: 2 ulps of the result (k log(2)/2 with log(2)/2 rounded: up to 1) and 2^-54
// (near x = 1 from below, k log(2)/2 + hlogc[i] cancels to about 0.03: their roundings remain).
double allowed(long double exact) {
  const double r = std::abs(double(exact));
  return (r > 0 ? std::ldexp(1.0, std::ilogb(r) - 51) : 0.0) + std::ldexp(1.0, -54);
}

TEST(HalfLog, TheKernelsTableLogIsWithinTwoUlps) {
  const TableHalfLog half_log = testing::staged_half_log_table();
  double worst = 0;  // in units of the allowance
  for (double v : arguments()) {
    const long double exact = 0.5L * std::log(static_cast<long double>(v));
    const double got = half_log(v);
    const double err = std::abs(double(static_cast<long double>(got) - exact));
    worst = std::max(worst, err / allowed(exact));
    ASSERT_LE(err, allowed(exact)) << "x = " << std::hexfloat << v << std::defaultfloat << ": "
                                   << got << " against " << double(exact);
  }
  RecordProperty("worst_in_allowances", std::to_string(worst));
  EXPECT_EQ(half_log(INFINITY), INFINITY);
  EXPECT_TRUE(std::isnan(half_log(NAN)));
}

// The wide kernels' log, through their near field: one unit charge at distance sqrt(x) from the
// target, the lanes' other sources of strength 0 (which add 0 exactly).
TEST(HalfLog, TheWideKernelsLogIsWithinTwoUlpsAtEachWidth) {
  for (int bits : {256, 512}) {
    const WideKernels* w = wide_kernels_of(bits);
    if (!w) continue;  // this CPU or build has not that width (test_wide says so)
    SCOPED_TRACE("width " + std::to_string(bits));
    std::vector<double> sx(kWideLanes, 0.0), sy(kWideLanes, 0.0), q(kWideLanes, 0.0);
    q[0] = 1.0;
    const double* pq[1] = {q.data()};
    int checked = 0;
    for (double v : arguments()) {
      const double d = std::sqrt(v);
      const double r2 = d * d;  // what the kernel sees
      if (!(r2 >= DBL_MIN && r2 <= DBL_MAX)) continue;
      double out[5];
      ASSERT_TRUE(w->near_batch(kWideLanes, sx.data(), sy.data(), 1, kPotential, pq, nullptr,
                                nullptr, d, 0.0, out));
      const long double exact = 0.5L * std::log(static_cast<long double>(r2));
      ASSERT_LE(std::abs(double(static_cast<long double>(out[0]) - exact)), allowed(exact))
          << "r2 = " << std::hexfloat << r2;
      ++checked;
    }
    EXPECT_GT(checked, 300000);
  }
}

}  // namespace
}  // namespace mlfma2d
