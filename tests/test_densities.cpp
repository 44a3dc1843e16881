// Several densities, dipoles and Hessians (issue 22): every combination of sources (charges,
// dipoles, both) and outputs (potential, field, Hessian) for nd = 1 and 3 within eps of direct
// sums on uniform, clustered and graded sets, on both trees; coincident sources merged, extents
// that need scaling, separate targets, orientations per density; the overloads' checks.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "mlfma2d/mlfma2d.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

using testing::expect_error;

enum class Kinds { Charges, Dipoles, Both };

const char* name(Kinds k) {
  return k == Kinds::Charges ? "charges" : k == Kinds::Dipoles ? "dipoles" : "both";
}

// Strengths of nd densities: charges of mixed sign, dipole strengths, orientations (not unit
// length) either per source or per density.
struct Strengths {
  std::vector<double> q, d, v;
  bool per_density = false;
  Densities densities(Kinds k) const {
    Densities in;
    if (k != Kinds::Dipoles) in.charges = q.data();
    if (k != Kinds::Charges) {
      in.dipole_strengths = d.data();
      in.dipole_vectors = v.data();
      in.vectors_per_density = per_density;
    }
    return in;
  }
};

Strengths make_strengths(std::size_t n, int nd, bool per_density, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Strengths s;
  s.per_density = per_density;
  for (std::size_t k = 0; k < n * nd; ++k) s.q.push_back(u(g));
  for (std::size_t k = 0; k < n * nd; ++k) s.d.push_back(u(g));
  for (std::size_t k = 0; k < 2 * n * (per_density ? nd : 1); ++k) s.v.push_back(u(g));
  return s;
}

// The outputs of nd densities at m targets, sized for the options.
struct Outs {
  std::vector<double> phi, ex, ey, hxx, hxy, hyy;
  Outs(std::size_t all, bool field, bool hessian) : phi(all) {
    if (field) ex.resize(all), ey.resize(all);
    if (hessian) hxx.resize(all), hxy.resize(all), hyy.resize(all);
  }
  Outputs outputs() {
    Outputs o;
    o.potential = phi.data();
    o.field_x = ex.empty() ? nullptr : ex.data();
    o.field_y = ey.empty() ? nullptr : ey.data();
    o.hessian_xx = hxx.empty() ? nullptr : hxx.data();
    o.hessian_xy = hxy.empty() ? nullptr : hxy.data();
    o.hessian_yy = hyy.empty() ? nullptr : hyy.data();
    return o;
  }
};

std::vector<double> row(const std::vector<double>& a, int d, std::size_t m) {
  return std::vector<double>(a.begin() + std::ptrdiff_t(d * m),
                             a.begin() + std::ptrdiff_t((d + 1) * m));
}

// The Solver against the direct sum, every density and output within `tol`.
void expect_within(const PointSet& pts, Kinds kinds, int nd, bool field, bool hessian,
                   const Options& base, double tol, bool per_density = false) {
  Options o = base;
  o.densities = nd;
  o.charges = kinds != Kinds::Dipoles;
  o.dipoles = kinds != Kinds::Charges;
  o.field = field;
  o.hessian = hessian;
  const bool self = !pts.has_targets();
  const std::vector<double>& tx = self ? pts.x : pts.tx;
  const std::vector<double>& ty = self ? pts.y : pts.ty;
  const std::size_t m = tx.size();
  const Strengths st = make_strengths(pts.x.size(), nd, per_density, 11);
  Solver solver = self ? Solver(pts.x, pts.y, o) : Solver(pts.x, pts.y, pts.tx, pts.ty, o);
  Outs fmm(nd * m, field, hessian), ref(nd * m, field, hessian);
  solver.evaluate(st.densities(kinds), fmm.outputs());
  direct_sum(pts.x, pts.y, tx, ty, st.densities(kinds), direct_options(o), {}, ref.outputs());
  const std::string what = std::string(name(kinds)) + " nd=" + std::to_string(nd) +
                           (field ? " field" : "") + (hessian ? " hessian" : "") + " tree " +
                           o.tree + " backend " + o.backend;
  for (int k = 0; k < nd; ++k) {
    EXPECT_LE(error_norms(row(fmm.phi, k, m), row(ref.phi, k, m)).rel_l2, tol)
        << what << " density " << k << ": potential";
    if (field)
      EXPECT_LE(
          error_norms(row(fmm.ex, k, m), row(fmm.ey, k, m), row(ref.ex, k, m), row(ref.ey, k, m))
              .rel_l2,
          tol)
          << what << " density " << k << ": field";
    if (hessian) {
      EXPECT_LE(error_norms(row(fmm.hxx, k, m), row(fmm.hxy, k, m), row(ref.hxx, k, m),
                            row(ref.hxy, k, m))
                    .rel_l2,
                tol)
          << what << " density " << k << ": Hessian";
      for (std::size_t i = 0; i < m; ++i) ASSERT_EQ(fmm.hyy[k * m + i], -fmm.hxx[k * m + i]);
    }
  }
}

struct Case {
  const char* shape;
  const char* tree;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.shape << " on the " << c.tree << " tree";
}

class EveryCombination : public ::testing::TestWithParam<Case> {};

TEST_P(EveryCombination, IsWithinEpsOfDirectSums) {
  const Case c = GetParam();
  const PointSet pts = generate_points(c.shape, 3000, 5);
  Options o;
  o.tree = c.tree;
  o.eps = 1e-8;
  o.backend = "cpu";
  o.ct = 32;  // deep enough for every operator (the adaptive tree's W and X lists too)
  for (Kinds k : {Kinds::Charges, Kinds::Dipoles, Kinds::Both})
    for (int order = 0; order <= 2; ++order)
      for (int nd : {1, 3}) expect_within(pts, k, nd, order >= 1, order == 2, o, o.eps);
}

INSTANTIATE_TEST_SUITE_P(Shapes, EveryCombination,
                         ::testing::Values(Case{"uniform", "adaptive"},
                                           Case{"clusters", "adaptive"},
                                           Case{"graded-polygon", "adaptive"},
                                           Case{"uniform", "uniform"}, Case{"clusters", "uniform"}),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           std::string s = std::string(i.param.shape) + "_" + i.param.tree;
                           for (char& ch : s)
                             if (ch == '-') ch = '_';
                           return s;
                         });

// The convention by an independent formula: one dipole's potential written out here, the field
// and Hessian of a charge and a dipole against central differences of direct_sum's potential
// (nothing of the derivative code in the reference).
TEST(Densities, OneDipoleAgainstItsClosedFormAndDifferences) {
  const std::vector<double> x = {0.3, -0.45}, y = {-0.2, 0.1};  // a dipole, then a charge
  const std::vector<double> q = {0.0, 0.8}, d = {1.7, 0.0};
  const std::vector<double> v = {0.6, 0.0, -1.1, 0.0};  // 2 x N: the dipole's v = (0.6, -1.1)
  Densities in;
  in.charges = q.data();
  in.dipole_strengths = d.data();
  in.dipole_vectors = v.data();
  DirectOptions o;
  o.dipoles = true;
  o.threads = 1;  // about 30 sums of two pairs: no team for each
  auto phi_at = [&](double px, double py) {
    double phi = 0;
    Outputs out;
    out.potential = &phi;
    direct_sum(x, y, {px}, {py}, in, o, {}, out);
    return phi;
  };
  const double tx = 1.1, ty = 0.7;
  const double dx = tx - x[0], dy = ty - y[0];
  const double closed = 1.7 * (0.6 * dx - 1.1 * dy) / (dx * dx + dy * dy) +
                        0.8 * 0.5 * std::log((tx - x[1]) * (tx - x[1]) + (ty - y[1]) * (ty - y[1]));
  EXPECT_NEAR(phi_at(tx, ty), closed, 1e-14 * std::abs(closed));
  // Fourth-order central differences, h = 1e-3.
  const double h = 1e-3;
  auto d1 = [&](double ux, double uy) {
    return (-phi_at(tx + 2 * h * ux, ty + 2 * h * uy) + 8 * phi_at(tx + h * ux, ty + h * uy) -
            8 * phi_at(tx - h * ux, ty - h * uy) + phi_at(tx - 2 * h * ux, ty - 2 * h * uy)) /
           (12 * h);
  };
  auto d2 = [&](double ux, double uy) {
    return (-phi_at(tx + 2 * h * ux, ty + 2 * h * uy) + 16 * phi_at(tx + h * ux, ty + h * uy) -
            30 * phi_at(tx, ty) + 16 * phi_at(tx - h * ux, ty - h * uy) -
            phi_at(tx - 2 * h * ux, ty - 2 * h * uy)) /
           (12 * h * h);
  };
  const double phi_x = d1(1, 0), phi_y = d1(0, 1), phi_xx = d2(1, 0), phi_yy = d2(0, 1);
  const double phi_xy = (d2(1, 1) - d2(1, -1)) / 4;  // along the diagonals: (u.H.u) for u = (1,+-1)
  double phi, ex, ey, hxx, hxy, hyy;
  o.field = o.hessian = true;
  direct_sum(x, y, {tx}, {ty}, in, o, {}, Outputs{&phi, &ex, &ey, &hxx, &hxy, &hyy});
  EXPECT_NEAR(ex, -phi_x, 1e-9);
  EXPECT_NEAR(ey, -phi_y, 1e-9);
  EXPECT_NEAR(hxx, phi_xx, 1e-6);
  EXPECT_NEAR(hyy, phi_yy, 1e-6);
  EXPECT_NEAR(hxy, phi_xy, 1e-6);
  // And the Solver on the same two points.
  Options so;
  so.dipoles = so.field = so.hessian = true;
  so.backend = "cpu";
  Solver s(x, y, {tx}, {ty}, so);
  const Result r = s.evaluate(in);
  EXPECT_NEAR(r.potential[0], closed, 1e-13);
  EXPECT_NEAR(r.field_x[0], ex, 1e-13);
  EXPECT_NEAR(r.hessian_xy[0], hxy, 1e-13);
}

TEST(Densities, HessianOnlyWithoutTheField) {
  const PointSet pts = generate_points("uniform", 2000, 3);
  Options o;
  o.eps = 1e-10;
  o.backend = "cpu";
  o.ct = 24;
  expect_within(pts, Kinds::Both, 2, false, true, o, o.eps);
}

TEST(Densities, OrientationsPerDensity) {
  const PointSet pts = generate_points("disk", 2000, 9);
  Options o;
  o.eps = 1e-10;
  o.backend = "cpu";
  o.ct = 24;
  expect_within(pts, Kinds::Both, 3, true, true, o, o.eps, true);
}

TEST(Densities, SeparateTargets) {
  PointSet pts = generate_points("clusters", 2000, 4);
  const PointSet t = generate_points("uniform", 1500, 8);
  pts.tx = t.x;
  pts.ty = t.y;
  Options o;
  o.eps = 1e-9;
  o.backend = "cpu";
  o.ct = 20;
  expect_within(pts, Kinds::Both, 3, true, true, o, o.eps);
}

TEST(Densities, CoincidentSourcesMergeTheirDipoles) {
  // Every source twice: the merged source carries both moments.
  PointSet pts = generate_points("uniform", 1000, 2);
  pts.x.insert(pts.x.end(), pts.x.begin(), pts.x.end());
  pts.y.insert(pts.y.end(), pts.y.begin(), pts.y.end());
  Options o;
  o.eps = 1e-9;
  o.backend = "cpu";
  o.ct = 16;
  expect_within(pts, Kinds::Both, 2, true, true, o, o.eps);
}

TEST(Densities, ExtentsThatNeedScaling) {
  // Coordinates near 1e200: the tree scales them by a power of two; dipoles gain 1/S, each
  // derivative 1/S.
  PointSet pts = generate_points("uniform", 1500, 6);
  for (double& v : pts.x) v *= 1e200;
  for (double& v : pts.y) v *= 1e200;
  Options o;
  o.eps = 1e-9;
  o.backend = "cpu";
  o.ct = 16;
  expect_within(pts, Kinds::Both, 2, true, true, o, o.eps);
}

TEST(Densities, ChargesOverloadsTakeNdVectors) {
  const PointSet pts = generate_points("uniform", 800, 1);
  Options o;
  o.densities = 2;
  o.backend = "cpu";
  Solver s(pts.x, pts.y, o);
  std::vector<double> q(pts.q);
  q.insert(q.end(), pts.q.begin(), pts.q.end());
  for (std::size_t j = pts.q.size(); j < q.size(); ++j) q[j] *= -2;
  const Result r = s.evaluate(q);
  ASSERT_EQ(r.potential.size(), 2 * pts.x.size());
  for (std::size_t i = 0; i < pts.x.size(); ++i)
    EXPECT_NEAR(r.potential[pts.x.size() + i], -2 * r.potential[i],
                1e-12 * (1 + std::abs(r.potential[i])));
  expect_error<InvalidInput>([&] { s.evaluate(pts.q); },
                             {"expected 1600 charges", "2 x 800", "got 800"});
}

TEST(Densities, ChecksSayWhatIsMissing) {
  const PointSet pts = generate_points("uniform", 500, 1);
  Options o;
  o.backend = "cpu";
  o.dipoles = true;
  o.charges = false;
  Solver s(pts.x, pts.y, o);
  expect_error<InvalidInput>([&] { s.evaluate(pts.q); }, {"takes charges alone", "Densities"});
  Densities in;
  expect_error<InvalidInput>([&] { s.evaluate(in); }, {"no dipole strengths or orientations"});
  std::vector<double> d(pts.q), v(2 * pts.q.size(), 1.0);
  v[7] = NAN;
  in.dipole_strengths = d.data();
  in.dipole_vectors = v.data();
  expect_error<InvalidInput>([&] { s.evaluate(in); },
                             {"dipole orientation x of source 7", "not finite"});
  o.charges = false;
  o.dipoles = false;
  expect_error<InvalidInput>([&] { Solver(pts.x, pts.y, o); }, {"neither charges nor dipoles"});
  o.charges = true;
  o.densities = 0;
  expect_error<InvalidInput>([&] { Solver(pts.x, pts.y, o); },
                             {"densities must be in 1..1024", "got 0"});
}

TEST(Densities, PapersBackEndsRefuseDipolesByName) {
  const PointSet pts = generate_points("uniform", 500, 1);
  Options o;
  o.dipoles = true;
  o.backend = "indexing";
  expect_error<InvalidInput>(
      [&] { Solver(pts.x, pts.y, o); },
      {"back end 'indexing' cannot take dipole sources", "back ends that can: cpu"});
  o.dipoles = false;
  o.hessian = true;
  o.backend = "repetition";
  expect_error<InvalidInput>([&] { Solver(pts.x, pts.y, o); },
                             {"back end 'repetition' cannot take the Hessian", "cpu"});
}

TEST(Densities, AutoPicksABackEndThatTakesDipoles) {
  const PointSet pts = generate_points("uniform", 500, 1);
  Options o;
  o.dipoles = true;
  o.hessian = true;
  Solver s(pts.x, pts.y, o);
  EXPECT_TRUE(s.auto_choice().backend_chosen);
  EXPECT_NE(s.auto_choice().backend, "indexing");
  EXPECT_NE(s.auto_choice().backend, "repetition");
}

}  // namespace
}  // namespace mlfma2d
