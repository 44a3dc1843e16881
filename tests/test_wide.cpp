// The wide kernels at both vector widths (issue 23, docs/math.md section 3.12): where this CPU has
// AVX-512, every kernel at 512 bits against the same at 256 bits (the product and Horner bitwise,
// the sums over lanes to rounding), and the whole Solver within eps of direct sums at both.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kernel/pair_constants.hpp"
#include "kernel/wide.hpp"
#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d {
namespace {

std::vector<double> random(std::size_t n, std::uint64_t seed, double lo = -1, double hi = 1) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = u(g);
  return v;
}

// Both widths, or a skip that says why not.
struct Widths {
  const WideKernels *narrow = nullptr, *wide = nullptr;
};
Widths widths() {
  return {wide_kernels_of(256), wide_kernels_of(512)};
}
#define NEED_BOTH_WIDTHS(w)                                                                  \
  if (!(w).wide) GTEST_SKIP() << "this CPU (or build) has no AVX-512: one width to compare"; \
  ASSERT_NE((w).narrow, nullptr)

// A complex factor as WideColumn holds `before`: re = (Re a_0, Re a_0, ...), im = (-Im a_0, Im a_0,
// ...).
struct Factor {
  std::vector<double> re, im;
};
Factor factor(int n, std::uint64_t seed) {
  const std::vector<double> a = random(2 * std::size_t(n), seed);
  Factor f;
  for (int l = 0; l < n; ++l) {
    f.re.insert(f.re.end(), {a[2 * l], a[2 * l]});
    f.im.insert(f.im.end(), {-a[2 * l + 1], a[2 * l + 1]});
  }
  return f;
}

// x y + im swap: the kernels' complex product (one product and one fused multiply-add a double).
std::pair<double, double> times(const double* re, const double* im, double xr, double xi) {
  return {std::fma(re[0], xr, im[0] * xi), std::fma(re[1], xi, im[1] * xr)};
}

TEST(Wide, TheTranslationIsTheSameAtBothWidths) {
  const Widths w = widths();
  NEED_BOTH_WIDTHS(w);
  // Row counts that end in every partial tile (8, 16, 24 past whole tiles of 32) and terms that
  // end inside a vector, a leading block of a larger R (ld > rows: M2L's truncated translations),
  // column counts that end inside a tile, columns without an output, and columns with and
  // without M2L's term g in_0.
  for (int n : {5, 18, 19, 31, 61})
    for (int extra : {0, 8})
      for (int cols : {1, 4 * kWideItems, 4 * kWideItems + 2}) {
        const int rows = wide_rows(n), ld = rows + extra;
        const std::vector<double> R = random(std::size_t(ld) * n, 1);
        // Each column's input, output and factors; each input and output 2 n doubles with a
        // guard after them (which must stay).
        const std::size_t stride = 2 * n + 7;
        const std::vector<double> in = random(stride * cols, 2), start = random(stride * cols, 3);
        // `before` interleaved, `after` as planes padded to the rows (Scaling's forms).
        std::vector<Factor> before, after;
        for (int j = 0; j < cols; ++j) {
          before.push_back(factor(n, 30 + j));
          const std::vector<double> a = random(2 * std::size_t(n), 60 + j);
          Factor f{std::vector<double>(std::size_t(rows), 0.0),
                   std::vector<double>(std::size_t(rows), 0.0)};
          for (int l = 0; l < n; ++l) f.re[l] = a[2 * l], f.im[l] = a[2 * l + 1];
          after.push_back(f);
        }
        const std::vector<double> g = random(2 * std::size_t(cols), 4);
        auto column = [&](int j, double* out) {
          const bool log = j % 3 != 1;
          return WideColumn{in.data() + j * stride, before[j].re.data(),     before[j].im.data(),
                            after[j].re.data(),     after[j].im.data(),      out,
                            log ? g[2 * j] : 0.0,   log ? g[2 * j + 1] : 0.0};
        };
        auto run = [&](const WideKernels* k) {
          std::vector<double> o = start;
          std::vector<WideColumn> c;
          for (int j = 0; j < cols; ++j)
            c.push_back(column(j, j == 4 ? nullptr : o.data() + j * stride));
          k->translate(n, rows, ld, R.data(), cols, c.data());
          return o;
        };
        const std::vector<double> a = run(w.narrow), b = run(w.wide);
        const std::string what = "n " + std::to_string(n) + " ld " + std::to_string(ld) + " cols " +
                                 std::to_string(cols);
        EXPECT_EQ(a, b) << what;
        // And the translation itself, against plain loops: the scaling before, the product, the
        // scaling after.
        for (int j = 0; j < cols; ++j) {
          const WideColumn c = column(j, nullptr);
          std::vector<std::pair<double, double>> S{std::size_t(n)};
          for (int k = 0; k < n; ++k)
            S[k] = times(c.bre + 2 * k, c.bim + 2 * k, c.in[2 * k], c.in[2 * k + 1]);
          const double gre[2] = {c.gre, c.gre}, gim[2] = {-c.gim, c.gim};
          const auto g0 = times(gre, gim, c.in[0], c.in[1]);
          for (std::size_t i = 0; i < stride; ++i) {
            const std::size_t at = j * stride + i;
            if (j == 4 || i >= std::size_t(2 * n)) {
              ASSERT_EQ(a[at], start[at]) << what << " column " << j << " written at " << i;
              continue;
            }
            const int l = int(i / 2);
            double v[2] = {0, 0};
            if (l == 0 && (c.gre != 0 || c.gim != 0)) v[0] = g0.first, v[1] = g0.second;
            for (int k = 0; k < n; ++k) {
              v[0] = std::fma(R[std::size_t(k) * ld + l], S[k].first, v[0]);
              v[1] = std::fma(R[std::size_t(k) * ld + l], S[k].second, v[1]);
            }
            const int ri = int(i % 2);
            const double t = ri == 0 ? std::fma(c.are[l], v[0], -(c.aim[l] * v[1]))
                                     : std::fma(c.are[l], v[1], c.aim[l] * v[0]);
            ASSERT_EQ(a[at], start[at] + t) << what << " (" << l << ", " << j << ", " << ri << ")";
          }
        }
      }
}

// Horner for `sets` polynomials (kernel/wide.hpp) of degree 30 at the first n of m points, the
// first polynomial's imaginary part not asked for; the outputs start at -7.
struct HornerRun {
  std::vector<std::vector<double>> cr, ci;
  std::vector<double> zr, zi, values;
};
HornerRun horner_run(const WideKernels& k, int sets, int n, int m) {
  const int top = 30;
  HornerRun r;
  r.zr = random(m, 3, -0.7, 0.7), r.zi = random(m, 4, -0.7, 0.7);
  const double* cr[3] = {};
  const double* ci[3] = {};
  for (int s = 0; s < 3; ++s) {
    r.cr.push_back(random(top + 1, 5 + 2 * s)), r.ci.push_back(random(top + 1, 6 + 2 * s));
    cr[s] = r.cr[s].data(), ci[s] = r.ci[s].data();
  }
  r.values.assign(6 * std::size_t(m), -7.0);
  double* out[6] = {};
  for (int h = 0; h < 2 * sets; ++h)
    if (h != 1) out[h] = r.values.data() + std::size_t(h) * m;
  k.horner(n, r.zr.data(), r.zi.data(), sets, cr, ci, top, out);
  return r;
}

// Horner for one, two and three polynomials at once, at every count of points up to 45 (whole
// blocks of chains, partial vectors, tails of fewer vectors) at every width this CPU has: each
// point's value is that of its own chain of fused multiply-adds written out here, and nothing
// past the points or not asked for is written.
TEST(Wide, HornerIsEachPointsOwnChain) {
  const int m = 45, top = 30;
  for (int bits : {256, 512}) {
    const WideKernels* k = wide_kernels_of(bits);
    if (!k) continue;
    for (int sets = 1; sets <= 3; ++sets)
      for (int n = 1; n <= m; ++n) {
        const HornerRun r = horner_run(*k, sets, n, m);
        for (int s = 0; s < 3; ++s)
          for (int j = 0; j < m; ++j) {
            double ur = r.cr[s][top], ui = r.ci[s][top];
            for (int l = top - 1; l >= 0; --l) {
              const double re = std::fma(ur, r.zr[j], -std::fma(ui, r.zi[j], -r.cr[s][l]));
              ui = std::fma(ur, r.zi[j], std::fma(ui, r.zr[j], r.ci[s][l]));
              ur = re;
            }
            const bool in = j < n && s < sets;
            const std::string at = std::to_string(bits) + " bits, " + std::to_string(sets) +
                                   " sets, " + std::to_string(n) + " points: " + std::to_string(s) +
                                   ", " + std::to_string(j);
            ASSERT_EQ(r.values[std::size_t(2 * s * m + j)], in ? ur : -7.0) << at;
            ASSERT_EQ(r.values[std::size_t((2 * s + 1) * m + j)], in && s > 0 ? ui : -7.0) << at;
          }
      }
  }
}

TEST(Wide, HornerAndPowerSumsAgreeAcrossWidths) {
  const Widths w = widths();
  NEED_BOTH_WIDTHS(w);
  const int m = 77, top = 30, nd = 3;
  const std::vector<double> zr = random(m, 3, -0.7, 0.7), zi = random(m, 4, -0.7, 0.7);
  for (int sets = 1; sets <= 3; ++sets) {
    const HornerRun a = horner_run(*w.narrow, sets, m, m), b = horner_run(*w.wide, sets, m, m);
    EXPECT_EQ(a.values, b.values) << sets << " sets";
  }
  const std::vector<double> q = random(std::size_t(nd) * m, 7), mx = random(std::size_t(nd) * m, 8),
                            my = random(std::size_t(nd) * m, 9);
  const std::size_t slots = 4 * nd * (top + 1);
  std::vector<double> o1(slots), o2(slots),
      scratch(std::size_t(power_sums_scratch(m, top, 3 * nd)));
  w.narrow->power_sums(m, zr.data(), zi.data(), top, nd, q.data(), mx.data(), my.data(), m,
                       o1.data(), scratch.data());
  w.wide->power_sums(m, zr.data(), zi.data(), top, nd, q.data(), mx.data(), my.data(), m, o2.data(),
                     scratch.data());
  for (std::size_t i = 0; i < slots; ++i)
    EXPECT_NEAR(o1[i], o2[i], 1e-14 * (1 + std::abs(o1[i]))) << "slot " << i;
}

// The power sums against the sums written out here (std::complex, point by point), at every
// width this CPU has: charges, dipoles and both, nd = 1, 3, 4 and 6 (every channel group and the
// rest, one group alone: 1, 2 and 4 channels), a count of points that is not a whole number of
// vectors, and top past a padded row.
TEST(Wide, PowerSumsAreTheSumsOfPowers) {
  const int m = 77, top = 25;
  const std::vector<double> zr = random(m, 3, -0.7, 0.7), zi = random(m, 4, -0.7, 0.7);
  for (int bits : {256, 512}) {
    const WideKernels* k = wide_kernels_of(bits);
    if (!k) continue;
    for (int nd : {1, 3, 4, 6})
      for (int kinds : {1, 2, 3}) {
        const bool charges = kinds != 2, dipoles = kinds != 1;
        const std::vector<double> q = random(std::size_t(nd) * m, 7),
                                  mx = random(std::size_t(nd) * m, 8),
                                  my = random(std::size_t(nd) * m, 9);
        const int channels = nd * ((charges ? 1 : 0) + (dipoles ? 2 : 0));
        std::vector<double> out(std::size_t(4 * nd * (top + 1)), NAN),
            scratch(std::size_t(power_sums_scratch(m, top, channels)));
        k->power_sums(m, zr.data(), zi.data(), top, nd, charges ? q.data() : nullptr,
                      dipoles ? mx.data() : nullptr, dipoles ? my.data() : nullptr, m, out.data(),
                      scratch.data());
        for (int d = 0; d < nd; ++d)
          for (int p = 0; p <= top; ++p) {
            std::complex<double> sq = 0, sm = 0;
            for (int j = 0; j < m; ++j) {
              const std::complex<double> w = std::pow(std::complex<double>(zr[j], zi[j]), p);
              sq += q[d * m + j] * w;
              sm += std::complex<double>(mx[d * m + j], my[d * m + j]) * w;
            }
            const double* o = out.data() + ((d * (top + 1) + p) * 2) * 2;
            const std::string at = "bits " + std::to_string(bits) + " nd " + std::to_string(nd) +
                                   " kinds " + std::to_string(kinds) + " density " +
                                   std::to_string(d) + " power " + std::to_string(p);
            if (charges) {
              EXPECT_NEAR(o[0], sq.real(), 1e-13 * (1 + std::abs(sq))) << at;
              EXPECT_NEAR(o[1], sq.imag(), 1e-13 * (1 + std::abs(sq))) << at;
            }
            if (dipoles) {
              EXPECT_NEAR(o[2], sm.real(), 1e-13 * (1 + std::abs(sm))) << at;
              EXPECT_NEAR(o[3], sm.imag(), 1e-13 * (1 + std::abs(sm))) << at;
            }
          }
      }
  }
}

TEST(Wide, NearBatchAgreesAcrossWidths) {
  const Widths w = widths();
  NEED_BOTH_WIDTHS(w);
  const int n = 64;
  std::vector<double> x = random(n, 10), y = random(n, 11);
  x[5] = 0.25, y[5] = -0.5;  // the target itself: skipped
  std::vector<std::vector<double>> q, mx, my;
  for (int d = 0; d < 8; ++d)
    q.push_back(random(n, 20 + d)), mx.push_back(random(n, 40 + d)),
        my.push_back(random(n, 60 + d));
  for (int order = 0; order <= 2; ++order)
    for (int batch = 1; batch <= kWideBatch[order]; batch *= 2) {
      const double *pq[8], *px[8], *py[8];
      for (int d = 0; d < batch; ++d)
        pq[d] = q[d].data(), px[d] = mx[d].data(), py[d] = my[d].data();
      double a[40], b[40];
      ASSERT_TRUE(
          w.narrow->near_batch(n, x.data(), y.data(), batch, order, pq, px, py, 0.25, -0.5, a));
      ASSERT_TRUE(
          w.wide->near_batch(n, x.data(), y.data(), batch, order, pq, px, py, 0.25, -0.5, b));
      for (int i = 0; i < 5 * batch; ++i)
        EXPECT_NEAR(a[i], b[i], 1e-13 * (1 + std::abs(a[i])))
            << "order " << order << " batch " << batch << " sum " << i;
    }
}

// near_mutual at every width this CPU has: its targets' sums bitwise those of near_batch over the
// same sources (the same operations), and each mutual source's sums from the targets those of
// near_batch with the roles swapped, to rounding; a pair too close is refused.
TEST(Wide, NearMutualSumsBothWays) {
  const int m = 7, n = 48, from = 16;  // [0, 16) one way; [16, 48) both ways
  std::vector<double> x = random(n, 70), y = random(n, 71), tx = random(m, 72), ty = random(m, 73);
  x[20] = tx[2], y[20] = ty[2];  // a target on a mutual source: skipped both ways
  std::vector<std::vector<double>> q, qt;
  for (int d = 0; d < 8; ++d) q.push_back(random(n, 80 + d)), qt.push_back(random(m, 90 + d));
  for (int bits : {256, 512}) {
    const WideKernels* k = wide_kernels_of(bits);
    if (!k) continue;
    for (int order = 0; order <= 2; ++order)
      for (int batch = 1; batch <= kWideBatch[order]; batch *= 2) {
        const int sums = kPairSums[order];
        const std::string at = "bits " + std::to_string(bits) + " order " + std::to_string(order) +
                               " batch " + std::to_string(batch);
        std::vector<std::vector<double>> out(std::size_t(sums * batch), std::vector<double>(m)),
            back(std::size_t(sums * batch), std::vector<double>(n - from, 0.0));
        const double *pq[8], *pqt[8];
        double *po[24], *pb[24];
        for (int d = 0; d < batch; ++d) pq[d] = q[d].data(), pqt[d] = qt[d].data();
        for (int s = 0; s < sums * batch; ++s) po[s] = out[s].data(), pb[s] = back[s].data();
        ASSERT_TRUE(k->near_mutual(m, tx.data(), ty.data(), pqt, n, x.data(), y.data(), from, batch,
                                   order, pq, pb, po))
            << at;
        for (int i = 0; i < m; ++i) {
          double a[40];
          ASSERT_TRUE(k->near_batch(n, x.data(), y.data(), batch, order, pq, nullptr, nullptr,
                                    tx[i], ty[i], a));
          for (int d = 0; d < batch; ++d)
            for (int s = 0; s < sums; ++s)
              EXPECT_EQ(out[std::size_t(sums * d + s)][i], a[5 * d + s]) << at << " target " << i;
        }
        // A mutual source's sums: the targets as sources (near_batch over them, padded to
        // whole vectors with zero charges at the first target).
        std::vector<double> sx(16, tx[0]), sy(16, ty[0]);
        std::copy(tx.begin(), tx.end(), sx.begin());
        std::copy(ty.begin(), ty.end(), sy.begin());
        std::vector<std::vector<double>> sq(8, std::vector<double>(16, 0.0));
        for (int d = 0; d < batch; ++d) std::copy(qt[d].begin(), qt[d].end(), sq[d].begin());
        const double* psq[8];
        for (int d = 0; d < batch; ++d) psq[d] = sq[d].data();
        for (int j = from; j < n; ++j) {
          double a[40];
          ASSERT_TRUE(k->near_batch(16, sx.data(), sy.data(), batch, order, psq, nullptr, nullptr,
                                    x[j], y[j], a));
          for (int d = 0; d < batch; ++d)
            for (int s = 0; s < sums; ++s) {
              const double got = back[std::size_t(sums * d + s)][std::size_t(j - from)];
              EXPECT_NEAR(got, a[5 * d + s], 1e-13 * (1 + std::abs(a[5 * d + s])))
                  << at << " source " << j << " sum " << s;
            }
        }
      }
    // A target 1e-200 from a mutual source at the origin: too close for the wide kernel.
    std::vector<double> sx = x, sy = y, near_x = tx, near_y = ty;
    sx[30] = sy[30] = 0;
    near_x[0] = 1e-200, near_y[0] = 0;
    std::vector<double> b(n - from, 0.0), o(m);
    const double *pq[1] = {q[0].data()}, *pqt[1] = {qt[0].data()};
    double *pb[1] = {b.data()}, *po[1] = {o.data()};
    EXPECT_FALSE(k->near_mutual(m, near_x.data(), near_y.data(), pqt, n, sx.data(), sy.data(), from,
                                1, 0, pq, pb, po))
        << "bits " << bits;
  }
}

// Points no generator makes: a collinear run with exact duplicates, at an offset of 1e6 and a
// spread of 1e-3 (the coordinates' low bits carry the geometry), beside a far tight pair of
// clusters.
PointSet adversarial_points() {
  PointSet p;
  for (int i = 0; i < 1500; ++i) {
    const double t = 1e-3 * std::pow(double(i) / 1500, 3);
    p.x.push_back(1e6 + t);
    p.y.push_back(1e6 + 0.5 * t);
    p.q.push_back(std::sin(0.37 * i));
    if (i % 97 == 0) {  // an exact duplicate
      p.x.push_back(p.x.back());
      p.y.push_back(p.y.back());
      p.q.push_back(-0.5);
    }
  }
  for (int i = 0; i < 1000; ++i) {
    const double a = 0.01 * i, r = 1e-9 * (1 + i % 7);
    p.x.push_back(1e6 + 1e-3 + (i % 2 ? 1e-4 : 0) + r * std::cos(a));
    p.y.push_back(1e6 - 1e-3 + r * std::sin(a));
    p.q.push_back(std::cos(0.11 * i));
  }
  return p;
}

TEST(Wide, TheSolverIsWithinEpsAtBothWidths) {
  const Widths w = widths();
  NEED_BOTH_WIDTHS(w);
  const std::vector<std::pair<std::string, PointSet>> sets = {
      {"graded-polygon", generate_points("graded-polygon", 4000, 3)},
      {"clusters", generate_points("clusters", 4000, 4)},
      {"multiscale-clusters", generate_points("multiscale-clusters", 4000, 5)},
      {"adversarial", adversarial_points()}};
  for (const auto& [name, pts] : sets) {
    std::vector<double> ref, rx, ry;
    direct_sum(pts.x, pts.y, pts.q, pts.x, pts.y, {}, &ref, &rx, &ry);
    std::vector<double> phi[2];
    int k = 0;
    for (int bits : {256, 512}) {
      ASSERT_TRUE(use_wide_kernels(bits));
      Options o;
      o.backend = "cpu";
      o.eps = 1e-10;
      o.field = true;
      o.ct = 32;
      Solver s(pts.x, pts.y, o);
      const Result r = s.evaluate(pts.q);
      EXPECT_LE(error_norms(r.potential, ref).rel_l2, o.eps) << name << ", " << bits << " bits";
      EXPECT_LE(error_norms(r.field_x, r.field_y, rx, ry).rel_l2, o.eps)
          << name << ", " << bits << " bits";
      phi[k++] = r.potential;
    }
    EXPECT_LE(error_norms(phi[0], phi[1]).rel_l2, 1e-14)
        << name << ": the two widths differ beyond rounding";
  }
  use_wide_kernels(512);
}

}  // namespace
}  // namespace mlfma2d
