// Tests of the batched electrostatic solve (issue 22): GMRES in lockstep on several right-hand
// sides against each solved alone, the operator's block product against its single product,
// and the capacitance matrices of the batched and the one-at-a-time paths on several geometries.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "electrostatics/gmres.hpp"
#include "electrostatics/mesh.hpp"
#include "mlfma2d/electrostatics.hpp"

namespace mlfma2d {
namespace {

// ---- GMRES in lockstep

// A nonsymmetric system whose right-hand sides converge after different iteration counts: a
// diagonal spread over [1, 50] with a random upper neighbour (b = e_3 lies in the space of
// e_0..e_3 that A keeps: four iterations at most; a random b takes many, b = 0 none).
struct Problem {
  int n = 80;
  Eigen::MatrixXd a;
  std::vector<std::vector<double>> b;
  Problem() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    a = Eigen::MatrixXd::Zero(n, n);
    for (int i = 0; i < n; ++i) {
      a(i, i) = 1 + 49.0 * i / (n - 1);
      if (i + 1 < n) a(i, i + 1) = 0.5 * u(rng);
    }
    b.assign(5, std::vector<double>(n, 0.0));
    for (double& v : b[0]) v = u(rng);
    b[1][3] = 1;
    // b[2] = 0: converged before any product
    for (double& v : b[3]) v = u(rng);
    for (int i = 0; i < n; ++i) b[4][i] = std::sin(0.3 * i);
  }
  void multiply(const double* x, double* y) const {
    Eigen::Map<Eigen::VectorXd>(y, n) = a * Eigen::Map<const Eigen::VectorXd>(x, n);
  }
};

TEST(LockstepGmres, EachColumnIsExactlyItsOwnSolve) {
  const Problem p;
  // A preconditioner (the inverse diagonal) that every column applies on its own.
  const es::LinearMap jacobi = [&](const double* in, double* out) {
    for (int i = 0; i < p.n; ++i) out[i] = in[i] / p.a(i, i);
  };
  for (const int restart : {4, 50}) {
    for (const bool preconditioned : {false, true}) {
      es::GmresOptions o;
      o.tol = 1e-12;
      o.restart = restart;
      const es::LinearMap pre = preconditioned ? jacobi : es::LinearMap();
      std::vector<int> ks;  // the block sizes, step by step
      std::size_t block_products = 0;
      const es::BlockMap block = [&](int k, const double* x, double* y) {
        ks.push_back(k);
        for (int c = 0; c < k; ++c) p.multiply(x + c * p.n, y + c * p.n);
        block_products += static_cast<std::size_t>(k);
      };
      std::vector<std::vector<double>> xs;
      const std::vector<es::GmresResult> rs = es::gmres_block(block, pre, p.b, &xs, o);
      ASSERT_EQ(rs.size(), p.b.size());
      std::size_t products = 0;
      for (std::size_t c = 0; c < p.b.size(); ++c) {
        std::vector<double> x;
        const es::GmresResult r = es::gmres(
            [&](const double* in, double* out) {
              p.multiply(in, out);
              ++products;
            },
            pre, p.b[c], &x, o);
        const std::string where = "restart " + std::to_string(restart) + ", column " +
                                  std::to_string(c) + (preconditioned ? ", Jacobi" : "");
        // The same arithmetic: the same iterations, residual history and solution, bit for bit.
        EXPECT_TRUE(rs[c].converged) << where;
        EXPECT_EQ(rs[c].iterations, r.iterations) << where;
        EXPECT_EQ(rs[c].history, r.history) << where;
        EXPECT_EQ(rs[c].residual, r.residual) << where;
        EXPECT_EQ(xs[c], x) << where;
        EXPECT_LE(rs[c].residual, 1e-12) << where;
      }
      // Every product of the separate solves, no more, in fewer calls; the block shrinks as
      // columns converge, the zero column never in it.
      EXPECT_EQ(block_products, products);
      EXPECT_LT(ks.size(), products);
      EXPECT_EQ(ks.front(), 4);
      EXPECT_TRUE(std::is_sorted(ks.rbegin(), ks.rend()));
      EXPECT_LT(ks.back(), ks.front()) << "the columns should finish at different steps";
      EXPECT_EQ(rs[2].iterations, 0);
    }
  }
}

TEST(LockstepGmres, ColumnOutOfIterationsIsReportedAndStopsAlone) {
  const Problem p;
  es::GmresOptions o;
  o.tol = 1e-13;
  o.max_iterations = 6;
  std::vector<std::vector<double>> xs;
  const std::vector<es::GmresResult> rs = es::gmres_block(
      [&](int k, const double* x, double* y) {
        for (int c = 0; c < k; ++c) p.multiply(x + c * p.n, y + c * p.n);
      },
      {}, p.b, &xs, o);
  EXPECT_FALSE(rs[0].converged);
  EXPECT_EQ(rs[0].iterations, 6);
  EXPECT_GT(rs[0].residual, 1e-13);
  EXPECT_TRUE(rs[2].converged);  // b = 0
}

// ---- The operator on a block of vectors

// A coupled microstrip with a substrate over the plane: interface rows (the field), two-sided
// conductor panels, images; three vectors in one product against one product each.
TEST(BlockProduct, IsTheProductOfEachVector) {
  ContourShape shape;
  shape.ground = 8e-3;
  ElectrostaticOptions o;
  o.ground_plane = true;
  o.panels = 3000;
  const Contours c = generate_contours("coupled-microstrip", shape);
  es::Mesh mesh(c, o, 0, false, 1e-12, 1, 3);
  ASSERT_TRUE(mesh.ps.interfaces);
  const std::size_t m = mesh.size();
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x(3 * m), y(3 * m), one(m);
  for (double& v : x) v = u(rng);
  // Each way of serving fewer vectors than the block, and the block Solver freed and made again.
  using Tail = es::SingleLayer::Tail;
  for (const int round : {0, 1, 2, 3}) {
    const Tail tail = round == 1   ? Tail::one_by_one
                      : round == 2 ? Tail::cheaper
                                   : Tail::keep_in_block;
    mesh.op->tail = tail;
    if (round == 3) mesh.release_block();
    for (const int k : {3, 2, 1}) {
      const std::size_t evaluations = mesh.op->evaluations;
      mesh.system_block(k, x.data(), y.data());
      const std::size_t used = mesh.op->evaluations - evaluations;
      if (k == 3 || tail == Tail::keep_in_block) EXPECT_EQ(used, 1u);
      if (k < 3 && tail == Tail::one_by_one) EXPECT_EQ(used, std::size_t(k));
      for (int col = 0; col < k; ++col) {
        mesh.system(x.data() + col * m, one.data());
        double num = 0, den = 0;
        for (std::size_t i = 0; i < m; ++i) {
          num += (y[col * m + i] - one[i]) * (y[col * m + i] - one[i]);
          den += one[i] * one[i];
        }
        // Two FMM trees (nd = 1 and nd = 3) at eps 1e-12.
        EXPECT_LT(std::sqrt(num / den), 1e-10)
            << "round " << round << ", k " << k << ", column " << col;
      }
    }
  }
}

// ---- The capacitance matrices of both paths

struct Case {
  std::string name;
  Contours contours;
  ElectrostaticOptions options;
};

// A ground strip (conductor 0, the reference) under strips of different widths: no plane, the
// constant and the charge row; with three strips, four conductors.
Contours strips(int count) {
  Contours c;
  c.add({-6e-3, 6e-3}, {0, 0}, false, 0);
  double x = -4e-3;
  for (int k = 1; k <= count; ++k) {
    const double w = 0.6e-3 + 0.3e-3 * k;
    c.add({x, x + w}, {0.5e-3 * k, 0.5e-3 * k}, false, k);
    x += w + 0.7e-3;
  }
  return c;
}

// Three exact circles (two half-circle arcs each) of different radii over the plane y = 0.
Contours wires() {
  Contours c;
  const double r[] = {0.5e-3, 0.8e-3, 0.6e-3}, cx[] = {-3e-3, 0, 2.5e-3},
               cy[] = {1e-3, 2e-3, 1.5e-3};
  for (int k = 0; k < 3; ++k) {
    c.add({cx[k] + r[k], cx[k] - r[k]}, {cy[k], cy[k]}, true, k, {1.0, 1.0});
  }
  return c;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  ElectrostaticOptions o;
  o.panels = 3000;
  o.tol = 1e-10;
  out.push_back(
      {"microstrip (ground strip and two strips, K = 3)", generate_contours("microstrip"), o});
  out.push_back({"ground strip and three strips (K = 4)", strips(3), o});
  ElectrostaticOptions plane = o;
  plane.ground_plane = true;
  ContourShape shape;
  shape.ground = 8e-3;
  out.push_back({"coupled microstrip on a substrate (C and C0)",
                 generate_contours("coupled-microstrip", shape), plane});
  ElectrostaticOptions wire = plane;
  wire.eps_r = 2.1;
  out.push_back({"three wires over the ground plane (arcs)", wires(), wire});
  return out;
}

TEST(BatchedSolve, CapacitanceMatchesTheSolvesOneAtATime) {
  for (const Case& c : cases()) {
    ElectrostaticOptions o = c.options;
    o.batched = false;
    const ElectrostaticSolution one = solve_conductors(c.contours, o);
    o.batched = true;
    const ElectrostaticSolution block = solve_conductors(c.contours, o);
    ASSERT_GE(block.capacitance.size(), 2u) << c.name;
    EXPECT_FALSE(one.batched) << c.name;
    EXPECT_TRUE(block.batched) << c.name;
    ASSERT_EQ(block.solves.size(), one.solves.size()) << c.name;
    // C, C0 and sigma for the potentials: the same to within the solves' tolerance.
    const double c_diff = capacitance_difference(block.capacitance, one.capacitance);
    const double c0_diff =
        capacitance_difference(block.line.capacitance_vacuum, one.line.capacitance_vacuum);
    EXPECT_LT(c_diff, 10 * o.tol) << c.name;
    EXPECT_LT(c0_diff, 10 * o.tol) << c.name;
    double num = 0, den = 0;
    for (std::size_t j = 0; j < one.sigma.size(); ++j) {
      num += (block.sigma[j] - one.sigma[j]) * (block.sigma[j] - one.sigma[j]);
      den += one.sigma[j] * one.sigma[j];
    }
    EXPECT_LT(std::sqrt(num / den), 1e-8) << c.name;
    EXPECT_LT(block.residual, 10 * o.tol) << c.name;
    // Each right-hand side converged; its iterations within one of the separate solve's (the
    // two FMM trees differ at eps); the block took fewer FMM evaluations than products.
    for (std::size_t k = 0; k < one.solves.size(); ++k) {
      EXPECT_LE(block.solves[k].residual, o.tol) << c.name << ", solve " << k;
      EXPECT_NEAR(block.solves[k].iterations, one.solves[k].iterations, 1)
          << c.name << ", solve " << k;
    }
    EXPECT_EQ(one.timings.evaluations, one.timings.products) << c.name;
    EXPECT_LT(block.timings.evaluations, block.timings.products) << c.name;
    std::printf("%-50s C %.1e, C0 %.1e apart; evaluations %zu against %zu\n", c.name.c_str(),
                c_diff, c0_diff, block.timings.evaluations, one.timings.evaluations);
  }
}

// An accuracy-driven solve (a block Solver on every mesh), and a second solve() on one mesh (its
// block Solver, freed after the first, made again): the same as one at a time.
TEST(BatchedSolve, RefinementAndASecondSolveMatch) {
  ElectrostaticOptions o;
  o.panels = 1000;
  o.accuracy = 1e-5;
  o.batched = false;
  const ElectrostaticSolution one = solve_conductors(strips(3), o);
  o.batched = true;
  const ElectrostaticSolution block = solve_conductors(strips(3), o);
  EXPECT_TRUE(block.batched);
  ASSERT_EQ(block.meshes.size(), one.meshes.size());
  EXPECT_EQ(block.panels.size(), one.panels.size());
  EXPECT_LT(capacitance_difference(block.capacitance, one.capacitance), 10 * block.tol);
  o.accuracy = 0;
  ElectrostaticSolver solver(strips(3), o);
  const ElectrostaticSolution first = solver.solve(), second = solver.solve();
  EXPECT_TRUE(second.batched);
  EXPECT_LT(second.timings.evaluations, second.timings.products);
  EXPECT_LT(capacitance_difference(first.capacitance, second.capacitance), 1e-14);
}

// The figure the batched and MPI tests compare C by: entries relative to the reference's diagonal.
TEST(CapacitanceDifference, IsRelativeToTheReferenceDiagonalAndChecksSizes) {
  const std::vector<std::vector<double>> c = {{2, -1}, {-1, 8}}, d = {{2, -1.5}, {-1.5, 8.4}};
  EXPECT_DOUBLE_EQ(capacitance_difference(d, c), 0.5 / 4);  // |(-1.5) - (-1)| / sqrt(2 * 8)
  EXPECT_DOUBLE_EQ(capacitance_difference(c, c), 0);
  EXPECT_DOUBLE_EQ(capacitance_difference({}, {}), 0);
  EXPECT_THROW(capacitance_difference(c, {{1}}), InvalidInput);
}

// One signal conductor, the dense method, or no capacitance: nothing to batch.
TEST(BatchedSolve, OneRightHandSideIsNotBatched) {
  ElectrostaticOptions o;
  o.panels = 1000;
  o.ground_plane = true;
  EXPECT_FALSE(solve_conductors(generate_contours("microstrip-line"), o).batched);
  o.ground_plane = false;
  o.method = "dense";
  EXPECT_FALSE(solve_conductors(generate_contours("microstrip"), o).batched);
  o.method = "fmm";
  o.capacitance = false;
  EXPECT_FALSE(solve_conductors(generate_contours("microstrip"), o).batched);
}

}  // namespace
}  // namespace mlfma2d
