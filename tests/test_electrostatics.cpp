// Tests of the electrostatic solve (electrostatics/, include/mlfma2d/electrostatics.hpp): the
// panel integral against quadrature, GMRES against an LU, the closed forms of docs/math.md
// section 8.12 with their convergence order, the fast path against a dense LU of the same
// discretisation, fields, and every bad input.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "electrostatics/gmres.hpp"
#include "electrostatics/panel_integrals.hpp"
#include "mlfma2d/electrostatics.hpp"

namespace mlfma2d {
namespace {

constexpr double kPi = 3.14159265358979323846;

// ---- The panel integral

// Reference: composite Gauss-Legendre (20 nodes a piece) in the panel's own coordinates, on
// pieces halving toward the target's foot u0 on the panel, where the log kernel is singular (or
// nearly): the pieces cover offsets [len/2, len] from u0, then [len/4, len/2], ... 60 times; the
// innermost [0, eps] is added in closed form (eps (log eps - 1) on the line, else eps log|v0|).
double quadrature_log(const es::Segment& s, double x, double y) {
  const es::GaussRule g = es::gauss_legendre(20);
  const double h = std::hypot(s.x1 - s.x0, s.y1 - s.y0);
  const double tx = (s.x1 - s.x0) / h, ty = (s.y1 - s.y0) / h;
  const double along = (x - s.x0) * tx + (y - s.y0) * ty;
  const double v0 = -(x - s.x0) * ty + (y - s.y0) * tx;
  const double u0 = std::min(h, std::max(0.0, along));
  const double off = std::abs(along - u0);  // beyond an end: how far past it
  auto f = [&](double delta) {  // log of the distance to the point delta from u0 (away from x)
    return 0.5 * std::log((delta + off) * (delta + off) + v0 * v0);
  };
  double total = 0;
  for (const double len0 : {u0, h - u0}) {
    double len = len0;
    for (int level = 0; level < 60 && len > 0; ++level, len *= 0.5) {
      double sum = 0;
      for (std::size_t k = 0; k < g.t.size(); ++k)
        sum += g.w[k] * f(0.75 * len + 0.25 * len * g.t[k]);
      total += 0.25 * len * sum;
    }
    if (len > 0) total += (v0 == 0 && off == 0) ? len * (std::log(len) - 1) : len * f(0);
  }
  return total;
}

TEST(PanelIntegral, MatchesGradedQuadratureEverywhere) {
  const es::Segment s{0.3, -0.2, 1.1, 0.4};  // length 1
  const double cx = 0.7, cy = 0.1;
  // On the panel (centre, off-centre, at an end), next to it, on its line outside, far away.
  const std::vector<std::pair<double, double>> targets = {{cx, cy},
                                                          {0.46, -0.08},
                                                          {0.3, -0.2},
                                                          {1.1, 0.4},
                                                          {cx - 0.03, cy + 0.04},
                                                          {cx + 1e-9, cy - 1e-9},
                                                          {1.5, 0.7},
                                                          {-0.5, -0.8},
                                                          {50.0, -20.0},
                                                          {cx + 0.6, cy - 0.8}};
  for (const auto& [x, y] : targets) {
    const double exact = es::panel_log_integral(s, x, y);
    const double ref = quadrature_log(s, x, y);
    EXPECT_NEAR(exact, ref, 2e-14 * std::max(1.0, std::abs(ref))) << "target " << x << ", " << y;
  }
  // At its own centre a panel of length h gives h (log(h/2) - 1) (docs/math.md section 8.6).
  EXPECT_NEAR(es::panel_log_integral(s, cx, cy), std::log(0.5) - 1, 1e-15);
}

TEST(PanelIntegral, GradientMatchesDifferencesOfTheIntegral) {
  const es::Segment s{-0.5, 0.0, 0.5, 0.0};
  for (const auto& [x, y] : std::vector<std::pair<double, double>>{
           {0.1, 0.3}, {0.7, -0.2}, {-2.0, 1.0}, {0.2, 1e-3}, {0.0, -0.05}}) {
    double gx = 0, gy = 0;
    es::panel_log_gradient(s, x, y, &gx, &gy);
    const double d = 1e-6;
    const double fx =
        (es::panel_log_integral(s, x + d, y) - es::panel_log_integral(s, x - d, y)) / (2 * d);
    const double fy =
        (es::panel_log_integral(s, x, y + d) - es::panel_log_integral(s, x, y - d)) / (2 * d);
    EXPECT_NEAR(gx, fx, 1e-7) << x << ", " << y;
    EXPECT_NEAR(gy, fy, 1e-7) << x << ", " << y;
  }
  // On the panel: the mean of the two sides (the normal part averages to 0).
  double gx = 1, gy = 1;
  es::panel_log_gradient(s, 0.2, 0.0, &gx, &gy);
  EXPECT_NEAR(gy, 0, 0);
  EXPECT_NEAR(gx, std::log(0.7 / 0.3), 1e-15);  // log r_a - log r_b
}

TEST(GaussLegendre, IntegratesPolynomialsOfDegree2nMinus1Exactly) {
  for (int n = 1; n <= 16; ++n) {
    const es::GaussRule g = es::gauss_legendre(n);
    for (int degree = 0; degree <= 2 * n - 1; ++degree) {
      double sum = 0;
      for (int k = 0; k < n; ++k) sum += g.w[k] * std::pow(g.t[k], degree);
      const double exact = degree % 2 ? 0.0 : 2.0 / (degree + 1);
      EXPECT_NEAR(sum, exact, 1e-14) << "n " << n << " degree " << degree;
    }
    // One degree more is not exact (n >= 1): the rule is the Gauss rule, not a better one.
    double sum = 0;
    for (int k = 0; k < n; ++k) sum += g.w[k] * std::pow(g.t[k], 2 * n);
    EXPECT_GT(std::abs(sum - 2.0 / (2 * n + 1)), 1e-12) << "n " << n;
  }
}

// ---- GMRES

TEST(Gmres, SolvesANonsymmetricSystemLikeLu) {
  const int n = 60;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  Eigen::MatrixXd a = Eigen::MatrixXd::Identity(n, n) * 4;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) a(i, j) += 0.5 * u(rng);
  std::vector<double> b(n);
  for (double& v : b) v = u(rng);
  const Eigen::VectorXd ref = a.partialPivLu().solve(Eigen::Map<Eigen::VectorXd>(b.data(), n));
  const es::LinearMap op = [&](const double* x, double* y) {
    Eigen::Map<Eigen::VectorXd>(y, n) = a * Eigen::Map<const Eigen::VectorXd>(x, n);
  };
  for (const int restart : {5, 60}) {
    std::vector<double> x;
    es::GmresOptions o;
    o.tol = 1e-12;
    o.restart = restart;
    const es::GmresResult r = es::gmres(op, {}, b, &x, o);
    ASSERT_TRUE(r.converged) << "restart " << restart;
    EXPECT_LE(r.residual, 1e-12);
    EXPECT_EQ(static_cast<int>(r.history.size()), r.iterations);
    EXPECT_NEAR((Eigen::Map<Eigen::VectorXd>(x.data(), n) - ref).norm() / ref.norm(), 0, 1e-11);
    for (std::size_t k = 1; k < r.history.size(); ++k) {
      if (restart == 60) EXPECT_LE(r.history[k], r.history[k - 1] * (1 + 1e-12));  // minimal
    }
  }
  // A preconditioner that is the exact inverse: one iteration.
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu = a.partialPivLu();
  std::vector<double> x;
  const es::GmresResult r = es::gmres(op,
                                      [&](const double* in, double* out) {
                                        Eigen::Map<Eigen::VectorXd>(out, n) =
                                            lu.solve(Eigen::Map<const Eigen::VectorXd>(in, n));
                                      },
                                      b, &x, {});
  EXPECT_EQ(r.iterations, 1);
  // Too few iterations: reported, not hidden.
  es::GmresOptions few;
  few.max_iterations = 3;
  few.tol = 1e-14;
  const es::GmresResult r3 = es::gmres(op, {}, b, &x, few);
  EXPECT_FALSE(r3.converged);
  EXPECT_EQ(r3.iterations, 3);
  EXPECT_GT(r3.residual, 1e-14);
}

// ---- Closed forms and convergence

double solve_c(const std::string& shape, std::size_t vertices, double tol = 1e-12) {
  ContourShape p;
  p.vertices = vertices;
  ElectrostaticOptions o;
  o.panels = 2 * vertices;  // one panel per polygon side
  o.tol = tol;
  const ElectrostaticSolution s = solve_conductors(generate_contours(shape, p), o);
  EXPECT_EQ(s.capacitance.size(), 1u);
  return s.capacitance.at(0).at(0);
}

double closed_form(const std::string& shape) {
  const ContourShape p;
  if (shape == "coax") return coax_capacitance(p.a, p.b);
  if (shape == "eccentric-coax") return eccentric_coax_capacitance(p.a, p.b, p.e);
  return two_wire_capacitance(p.a, p.d);
}

// Errors at n, 2n, 4n vertices per circle: the observed order log2(e_n / e_2n) must be `order`
// (flat panels on inscribed polygons, piecewise-constant sigma: O(h^2); the concentric coax,
// whose two polygons are alike, O(h^3)), and Richardson's extrapolation of the two finest with
// that order must meet the closed form to `extrapolated_tol`.
void check_convergence(const std::string& shape, std::size_t n, double order,
                       double extrapolated_tol) {
  const double exact = closed_form(shape);
  std::vector<double> c, err;
  for (std::size_t m = n; m <= 4 * n; m *= 2) {
    c.push_back(solve_c(shape, m));
    err.push_back(c.back() / exact - 1);
  }
  for (int k = 0; k < 2; ++k) {
    EXPECT_NEAR(std::log2(err[k] / err[k + 1]), order, 0.05)
        << shape << ": errors " << err[k] << ", " << err[k + 1];
  }
  const double richardson = c[2] + (c[2] - c[1]) / (std::pow(2.0, order) - 1);
  EXPECT_NEAR(richardson / exact - 1, 0, extrapolated_tol) << shape;
}

TEST(ClosedForms, CoaxReaches1e8DirectlyAtTwoThousandPanels) {
  const double exact = closed_form("coax");
  const double c = solve_c("coax", 1024);
  EXPECT_LT(std::abs(c / exact - 1), 1e-8);   // measured 4.3e-9 (docs/solve.md)
  EXPECT_GT(std::abs(c / exact - 1), 1e-10);  // and not exact: the polygons are not circles
  check_convergence("coax", 256, 3.0, 1e-10);
}

TEST(ClosedForms, EccentricCoaxConvergesAtOrderTwo) {
  check_convergence("eccentric-coax", 512, 2.0, 1e-8);
}

TEST(ClosedForms, TwoWireConvergesAtOrderTwo) {
  check_convergence("two-wire", 512, 2.0, 1e-8);
}

TEST(ClosedForms, PermittivityScalesTheCapacitanceAndUnitsDoNot) {
  ContourShape p;
  p.vertices = 256;
  const Contours c = generate_contours("two-wire", p);
  ElectrostaticOptions o;
  const double c1 = solve_conductors(c, o).capacitance[0][0];
  o.eps_r = 4.5;
  EXPECT_NEAR(solve_conductors(c, o).capacitance[0][0] / (4.5 * c1), 1, 1e-9);
  // The same shape in micrometres, far from the origin: C per unit length is scale-free.
  Contours small = c;
  for (double& x : small.x) x = 1e-3 * x + 5e-3;
  for (double& y : small.y) y = 1e-3 * y - 7e-3;
  EXPECT_NEAR(solve_conductors(small, ElectrostaticOptions{}).capacitance[0][0] / c1, 1, 1e-9);
}

TEST(ClosedForms, LoneStripSigmaShapeAndPotential) {
  ContourShape p;
  const double q = 2e-9;
  ElectrostaticOptions o;
  o.panels = 256;
  o.total_charge = q;
  const ElectrostaticSolution s = solve_conductors(generate_contours("strip", p), o);
  ASSERT_EQ(s.sigma.size(), 256u);
  EXPECT_NEAR(s.charge[0] / q, 1, 1e-12);
  double worst = 0;
  std::size_t checked = 0;
  for (std::size_t j = 0; j < s.sigma.size(); ++j) {
    const double x = s.panels.x[j];
    if (std::abs(x) > 0.4 * p.w) continue;  // away from the edges: |x| < 0.8 w/2
    worst = std::max(worst, std::abs(s.sigma[j] / strip_sigma(x, p.w, q) - 1));
    ++checked;
  }
  EXPECT_GT(checked, 50u);
  EXPECT_LT(worst, 1e-4);  // measured 3.2e-5 at 256 panels
  // With c = 0 the strip's potential is -Q/(2 pi eps0) log(w/4) (its logarithmic capacity w/4).
  const double v = -q / (2 * kPi * kEpsilon0) * std::log(p.w / 4);
  EXPECT_NEAR(s.potentials[0] / v, 1, 1e-7);
}

// ---- The fast path against a dense LU of the same discretisation

struct Agreement {
  double sigma = 0;   // relative L2 over the panel values
  double charge = 0;  // largest relative difference of a conductor's charge
  double capacitance = 0;
};

// The fast path (GMRES to 1e-12 on FMM products) against an LU of the same discretisation.
Agreement against_dense(const Contours& c, ElectrostaticOptions o) {
  o.tol = 1e-12;
  const ElectrostaticSolution fast = solve_conductors(c, o);
  o.method = "dense";
  const ElectrostaticSolution dense = solve_conductors(c, o);
  EXPECT_EQ(fast.sigma.size(), dense.sigma.size());
  EXPECT_LT(dense.residual, 1e-12);  // measured 4e-15 (circles) to 1.4e-13 (q = 3 strips)
  Agreement a;
  double num = 0, den = 0;
  for (std::size_t j = 0; j < fast.sigma.size(); ++j) {
    num += (fast.sigma[j] - dense.sigma[j]) * (fast.sigma[j] - dense.sigma[j]);
    den += dense.sigma[j] * dense.sigma[j];
  }
  a.sigma = std::sqrt(num / den);
  for (std::size_t k = 0; k < fast.charge.size(); ++k) {
    a.charge = std::max(a.charge, std::abs(fast.charge[k] / dense.charge[k] - 1));
  }
  for (std::size_t i = 0; i < fast.capacitance.size(); ++i) {
    for (std::size_t j = 0; j < fast.capacitance.size(); ++j) {
      a.capacitance =
          std::max(a.capacitance, std::abs(fast.capacitance[i][j] / dense.capacitance[i][j] - 1));
    }
  }
  return a;
}

TEST(FastPath, AgreesWithDenseLuOnCircles) {
  ContourShape p;
  p.vertices = 1500;
  ElectrostaticOptions o;
  o.panels = 3000;  // one or two panels per side: a non-uniform mesh
  const Agreement a = against_dense(generate_contours("eccentric-coax", p), o);
  EXPECT_LT(a.sigma, 1e-9);  // measured 6e-11
  EXPECT_LT(a.capacitance, 1e-12);
}

TEST(FastPath, AgreesWithDenseLuOnGradedStrips) {
  ElectrostaticOptions o;
  o.panels = 2400;
  o.grading = 2;  // smallest panels 1e-7 of a strip
  Agreement a = against_dense(generate_contours("microstrip"), o);
  EXPECT_LT(a.sigma, 1e-9);  // measured 6e-11
  EXPECT_LT(a.capacitance, 1e-12);
  // The default grading 3 makes edge panels of 1e-10 of a strip: the system's condition number
  // (~1e7) then turns the fast operator's 2e-14 difference from the analytic one into 5e-8 on
  // those panels' sigma; charges and C still agree to 1e-13 (docs/solve.md).
  o.grading = 3;
  a = against_dense(generate_contours("microstrip"), o);
  EXPECT_LT(a.sigma, 2e-7);
  EXPECT_LT(a.charge, 1e-12);
  EXPECT_LT(a.capacitance, 1e-12);
}

// ---- Several conductors: superposition, the capacitance matrix, fields

TEST(Conductors, CapacitanceMatrixIsConsistent) {
  ElectrostaticOptions o;
  o.panels = 1500;
  o.potentials = {0.25, 1.5, -0.75};  // the reference (0) is not at 0 V: only differences count
  const ElectrostaticSolution s = solve_conductors(generate_contours("microstrip"), o);
  ASSERT_EQ(s.capacitance.size(), 2u);
  ASSERT_EQ(s.capacitance_conductors, (std::vector<int>{1, 2}));
  const auto& c = s.capacitance;
  EXPECT_GT(c[0][0], 0);
  EXPECT_GT(c[1][1], 0);
  EXPECT_LT(c[0][1], 0);
  EXPECT_NEAR(c[0][0] / c[1][1], 1, 1e-6);  // the two strips are mirror images
  EXPECT_NEAR(c[0][1] / c[1][0], 1, 1e-3);  // collocation: symmetric to discretisation error
  // Q = C (V - V_ref) for the given potentials, and no net charge.
  for (int i = 0; i < 2; ++i) {
    const double q = c[i][0] * (1.5 - 0.25) + c[i][1] * (-0.75 - 0.25);
    EXPECT_NEAR(s.charge[i + 1] / q, 1, 1e-9);
  }
  EXPECT_NEAR((s.charge[0] + s.charge[1] + s.charge[2]) / s.charge[1], 0, 1e-9);
  EXPECT_LT(s.residual, 1e-9);
  // One direct solve for the same potentials gives the same sigma as the superposition.
  o.capacitance = false;
  const ElectrostaticSolution d = solve_conductors(generate_contours("microstrip"), o);
  EXPECT_TRUE(d.capacitance.empty());
  double num = 0, den = 0;
  for (std::size_t j = 0; j < s.sigma.size(); ++j) {
    num += (s.sigma[j] - d.sigma[j]) * (s.sigma[j] - d.sigma[j]);
    den += d.sigma[j] * d.sigma[j];
  }
  EXPECT_LT(std::sqrt(num / den), 1e-8);
  EXPECT_NEAR(d.offset, s.offset, 1e-8);
}

TEST(Conductors, CoaxFieldAndPotentialAtTargets) {
  ContourShape p;
  p.vertices = 2048;
  ElectrostaticOptions o;
  o.potentials = {0, 2.0};  // shield at 0 V, inner conductor at 2 V
  ElectrostaticSolver solver(generate_contours("coax", p), o);
  const ElectrostaticSolution s = solver.solve();
  // Between the conductors phi(r) = V ln(b/r) / ln(b/a), E = V / (r ln(b/a)) radially out.
  std::vector<double> tx, ty, r;
  for (int k = 0; k < 12; ++k) {
    const double radius = p.a + (p.b - p.a) * (0.1 + 0.07 * k), t = 0.37 + 0.5 * k;
    tx.push_back(radius * std::cos(t));
    ty.push_back(radius * std::sin(t));
    r.push_back(radius);
  }
  tx.push_back(0.2 * p.a);  // inside the inner conductor: phi = 2 V, E = 0
  ty.push_back(0.1 * p.a);
  const FieldAtTargets f = solver.evaluate(s, tx, ty);
  const double lg = std::log(p.b / p.a);
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_NEAR(f.potential[i], 2.0 * std::log(p.b / r[i]) / lg, 2e-6) << i;
    const double e = 2.0 / (r[i] * lg);
    EXPECT_NEAR(f.field_x[i], e * tx[i] / r[i], 1e-5 * e) << i;
    EXPECT_NEAR(f.field_y[i], e * ty[i] / r[i], 1e-5 * e) << i;
  }
  EXPECT_NEAR(f.potential.back(), 2.0, 1e-6);  // measured 3.6e-7: collocation at centres only
  EXPECT_NEAR(std::hypot(f.field_x.back(), f.field_y.back()), 0, 1e-6 * 2.0 / p.a);
  // A target on a panel end point: the potential's limit (the conductor's), no field (NaN,
  // counted), and the other targets as they are.
  const Panels& panels = solver.panels();
  const FieldAtTargets end = solver.evaluate(s, {panels.x0[5], tx[0]}, {panels.y0[5], ty[0]});
  EXPECT_EQ(end.undefined_field, 1u);
  EXPECT_TRUE(std::isnan(end.field_x[0]) && std::isnan(end.field_y[0]));
  EXPECT_NEAR(end.potential[0], 0.0, 2e-6);  // on the shield, to the collocation's accuracy
  EXPECT_NEAR(end.potential[1], f.potential[0], 1e-12 * std::abs(f.potential[0]));
  EXPECT_NEAR(end.field_x[1], f.field_x[0], 1e-9 * std::abs(f.field_x[0]));
}

TEST(Conductors, PotentialAtPanelsIsTheOperatorTheSolveInverts) {
  // For a solution, potential_at_panels(sigma) + offset is each panel's conductor potential (to
  // the GMRES tolerance), on the fast path and on the dense one; a wrong length is named.
  for (const std::string method : {"fmm", "dense"}) {
    ElectrostaticOptions o;
    o.panels = 1200;
    o.method = method;
    o.potentials = {0.3, 1.0, -0.5};
    ElectrostaticSolver solver(generate_contours("microstrip"), o);
    const ElectrostaticSolution s = solver.solve();
    const std::vector<double> phi = solver.potential_at_panels(s.sigma);
    ASSERT_EQ(phi.size(), s.sigma.size());
    double worst = 0;
    for (std::size_t i = 0; i < phi.size(); ++i) {
      worst = std::max(worst, std::abs(phi[i] + s.offset - o.potentials[s.panels.conductor[i]]));
    }
    EXPECT_LT(worst, 1e-7) << method;
    EXPECT_THROW(solver.potential_at_panels(std::vector<double>(3, 0.0)), InvalidInput);
  }
}

// ---- Bad input

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidInput& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong type: ") + e.what();
  }
  return "no error";
}

Contours square(double x0, double y0, double side, int conductor) {
  Contours c;
  c.add({x0, x0 + side, x0 + side, x0}, {y0, y0, y0 + side, y0 + side}, true, conductor);
  return c;
}

Contours join(const Contours& a, const Contours& b) {
  Contours c = a;
  for (std::size_t k = 0; k < b.contours(); ++k) {
    const auto first = b.offsets[k], last = b.offsets[k + 1];
    c.add(std::vector<double>(b.x.begin() + first, b.x.begin() + last),
          std::vector<double>(b.y.begin() + first, b.y.begin() + last), b.closed[k],
          b.conductor[k]);
  }
  return c;
}

TEST(BadInput, EveryMalformedGeometryIsNamed) {
  auto expect = [](const Contours& c, const std::string& part) {
    const std::string m = message_of([&] { validate(c); });
    EXPECT_NE(m.find(part), std::string::npos) << "got: " << m;
  };
  Contours one;
  one.add({0.0}, {0.0}, false, 0);
  expect(one, "contour 0 is open with 1 vertex: an open contour needs at least 2");
  Contours zero;
  zero.add({0, 1, 1, 2}, {0, 0, 0, 0}, false, 0);
  expect(zero, "contour 0: segment 1 has zero length (vertices 1 and 2 coincide)");
  Contours repeated;
  repeated.add({0, 1, 1, 0}, {0, 0, 1, 0}, true, 0);
  expect(repeated, "must not repeat its first vertex");
  Contours nan = square(0, 0, 1, 0);
  nan.y[2] = std::nan("");
  expect(nan, "contour 0, vertex 2: y is NaN");
  Contours inf = square(0, 0, 1, 0);
  inf.x[1] = INFINITY;
  expect(inf, "contour 0, vertex 1: x is infinite");
  Contours bowtie;
  bowtie.add({0, 1, 1, 0}, {0, 1, 0, 1}, true, 0);
  expect(bowtie, "contour 0 crosses or touches itself");
  Contours fold;
  fold.add({0, 2, 1}, {0, 0, 0}, false, 0);
  expect(fold, "contour 0 crosses or touches itself");
  expect(join(square(0, 0, 1, 0), square(1, 0.5, 1, 1)), "conductors 0 and 1 cross or touch");
  expect(join(square(0, 0, 1, 0), square(1, 1, 1, 1)), "conductors 0 and 1 cross or touch");
  expect(join(square(0, 0, 1, 0), square(0.5, 0.5, 1, 0)),
         "contours 0 and 1 of conductor 0 cross or touch");
  Contours gap = join(join(square(0, 0, 1, 0), square(3, 0, 1, 2)), square(6, 0, 1, 2));
  expect(gap, "conductor 1 has no contour");
  Contours flag = square(0, 0, 1, 0);
  flag.closed[0] = 2;
  expect(flag, "contour 0: closed is 2, expected 0 or 1");
  Contours offsets = square(0, 0, 1, 0);
  offsets.offsets = {0, 3};
  expect(offsets, "offsets[1] is 3, expected the vertex count 4");
  Contours negative = square(0, 0, 1, 0);
  negative.conductor[0] = -2;
  expect(negative, "contour 0: conductor is -2");
  Contours region = join(square(0, 0, 1, 0), square(3, 0, 1, 0));
  region.conductor[1] = kDielectric;
  expect(region, "eps_r has 0 entries but there are 2 contours");
  region.eps_r = {0, 0};
  expect(region, "contour 1: eps_r = 0: a dielectric region's relative permittivity must be > 0");
  region.eps_r = {0, 4};
  region.closed[1] = 0;
  expect(region, "contour 1 bounds a dielectric region but is not closed");
  // Apart but close, nested (a coax) and a closed triangle are fine.
  EXPECT_EQ(message_of([&] { validate(join(square(0, 0, 1, 0), square(1 + 1e-9, 0, 1, 1))); }),
            "no error");
  EXPECT_EQ(message_of([&] { validate(generate_contours("coax")); }), "no error");
  Contours triangle;
  triangle.add({0, 1, 0}, {0, 0, 1}, true, 0);
  EXPECT_EQ(message_of([&] { validate(triangle); }), "no error");
}

TEST(BadInput, EveryBadOptionIsNamed) {
  const Contours two = generate_contours("two-wire");
  auto expect = [&](const std::function<void(ElectrostaticOptions&)>& set, const std::string& part,
                    const Contours& c) {
    ElectrostaticOptions o;
    set(o);
    const std::string m = message_of([&] { ElectrostaticSolver(c, o); });
    EXPECT_NE(m.find(part), std::string::npos) << "got: " << m;
  };
  expect([](auto& o) { o.reference = 2; },
         "reference conductor 2 is out of range: there are 2 "
         "conductors (0..1)",
         two);
  expect([](auto& o) { o.reference = -1; }, "reference conductor -1 is out of range", two);
  expect([](auto& o) { o.potentials = {1, 2, 3}; }, "3 potentials given for 2 conductors", two);
  expect([](auto& o) { o.potentials = {1, NAN}; }, "potential of conductor 1 is not finite", two);
  expect([](auto& o) { o.eps_r = 0; }, "eps_r = 0: expected > 0", two);
  expect([](auto& o) { o.eps_r = -2; }, "eps_r = -2: expected > 0", two);
  expect([](auto& o) { o.tol = 0; }, "tol = 0", two);
  expect([](auto& o) { o.panels = 100; }, "panels = 100 is less than the 512 contour segments",
         two);
  expect([](auto& o) { o.panels = 1000, o.panel_size = 1e-4; }, "not both", two);
  expect([](auto& o) { o.panel_size = 1e-12; }, "gives more than", two);
  expect([](auto& o) { o.preconditioner = "ilu"; }, "preconditioner 'ilu'", two);
  expect([](auto& o) { o.method = "magic"; }, "method 'magic'", two);
  expect([](auto& o) { o.grading = 0.5; }, "grading = 0.5", two);
  expect([](auto& o) { o.panels = 9000, o.method = "dense"; }, "method dense: 9000 panels", two);
  expect([](auto& o) { o.potentials = {1}; }, "one conductor: its total charge is given",
         generate_contours("strip"));
  ElectrostaticOptions unknown;
  unknown.fmm.backend = "nonexistent";
  EXPECT_THROW(ElectrostaticSolver(two, unknown), BackendUnavailable);
  // Generators name the parameter.
  ContourShape p;
  p.d = 1e-3;  // wires of radius 1 mm overlap
  EXPECT_NE(message_of([&] { generate_contours("two-wire", p); }).find("expected d > 2a"),
            std::string::npos);
  EXPECT_NE(message_of([&] { generate_contours("hexagon"); }).find("shapes: coax"),
            std::string::npos);
}

}  // namespace
}  // namespace mlfma2d
