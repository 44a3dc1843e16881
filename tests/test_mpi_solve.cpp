// The electrostatic solve over MPI ranks (ElectrostaticSolver with solve_ranks(comm),
// docs/distributed.md "The solve over ranks"), under mpirun -np 1..4 (tests/CMakeLists.txt): the
// capacitance matrix, the charges, sigma and the field at targets must equal the one-process
// solver's to within the GMRES tolerance (the same FMM tree: CT given), on a bordered system
// (two conductors without a ground plane: the constant and the charge row) with every
// preconditioner, over a ground plane with dielectric interfaces (the field rows), and C's
// right-hand sides batched (one block, GMRES in lockstep) against one process.
#include <cmath>

#include "tests/mpi_test_util.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d::testing {
namespace {

// One geometry solved by one process (on every rank) and over the ranks: the figures agree to
// `close` (a small multiple of the GMRES tolerance), the field at a few targets too.
void expect_same_solution(const Contours& c, const ElectrostaticOptions& o, double close) {
  const ElectrostaticSolution one = ElectrostaticSolver(c, o).solve();
  ElectrostaticSolver over(c, o, solve_ranks(MPI_COMM_WORLD));
  const ElectrostaticSolution many = over.solve();
  ASSERT_EQ(many.capacitance.size(), one.capacitance.size());
  EXPECT_LT(capacitance_difference(many.capacitance, one.capacitance), close)
      << mpi_size() << " ranks";
  EXPECT_LT(capacitance_difference(many.line.capacitance_vacuum, one.line.capacitance_vacuum),
            close);
  ASSERT_EQ(many.sigma.size(), one.sigma.size());
  EXPECT_LT(error_norms(many.sigma, one.sigma).rel_l2, 100 * close);
  EXPECT_LT(error_norms(many.charge, one.charge).rel_l2, close);
  EXPECT_NEAR(many.offset, one.offset, close * (1 + std::abs(one.offset)));
  EXPECT_LT(many.residual, 10 * o.tol);
  // Rounding in the dot products' order may move GMRES by an iteration or so, no more.
  EXPECT_NEAR(double(many.iterations), double(one.iterations), 2.0 + 0.05 * one.iterations);
  // The field at targets, each rank evaluating its part: every rank gets every value.
  const std::vector<double> tx = {0.3e-3, -2.5e-3, 4e-3, 1e-3, 0.0};
  const std::vector<double> ty = {2.2e-3, 0.7e-3, -1e-3, 3e-3, 5e-3};
  ElectrostaticSolver alone(c, o);
  const ElectrostaticSolution again = alone.solve();
  const FieldAtTargets a = alone.evaluate(again, tx, ty), b = over.evaluate(many, tx, ty);
  EXPECT_LT(error_norms(b.potential, a.potential).rel_l2, 100 * close);
  EXPECT_LT(error_norms(b.field_x, a.field_x).rel_l2, 100 * close);
  // The operator alone: the same potential of the same charge.
  const std::vector<double> pa = alone.potential_at_panels(again.sigma_total);
  const std::vector<double> pb = over.potential_at_panels(again.sigma_total);
  EXPECT_LT(error_norms(pb, pa).rel_l2, 1e-11);
}

ElectrostaticOptions options(const std::string& preconditioner) {
  ElectrostaticOptions o;
  o.panels = 1500;
  o.preconditioner = preconditioner;
  o.tol = 1e-10;
  o.fmm.backend = "cpu";
  o.fmm.threads = 1;  // the ranks share the cores (oversubscribed in CI)
  o.fmm.ct = 24;      // given: the distributed tree is the one-process tree
  return o;
}

TEST(SolveRanks, TwoWiresEveryPreconditionerEqualsOneProcess) {
  ContourShape p;
  p.a = 1e-3;
  p.d = 3e-3;
  const Contours c = generate_contours("two-wire", p);
  for (const char* pre : {"block", "diagonal", "none"}) expect_same_solution(c, options(pre), 1e-8);
}

TEST(SolveRanks, CoupledMicrostripOverAGroundPlaneEqualsOneProcess) {
  ContourShape p;
  const Contours c = generate_contours("coupled-microstrip", p);
  ElectrostaticOptions o = options("block");
  o.ground_plane = true;
  o.ground_plane_y = 0;
  o.panels = 2500;
  expect_same_solution(c, o, 1e-8);
}

// A ground strip under three strips of different widths (no plane: the border): C's three
// right-hand sides in one block, its products one DistributedSolver of nd = 3.
TEST(SolveRanks, BatchedRightHandSidesEqualOneProcess) {
  Contours c;
  c.add({-6e-3, 6e-3}, {0, 0}, false, 0);
  double x = -4e-3;
  for (int k = 1; k <= 3; ++k) {
    const double w = 0.6e-3 + 0.3e-3 * k;
    c.add({x, x + w}, {0.5e-3 * k, 0.5e-3 * k}, false, k);
    x += w + 0.7e-3;
  }
  ElectrostaticOptions o = options("block");
  const ElectrostaticSolution one = ElectrostaticSolver(c, o).solve();
  ASSERT_TRUE(one.batched);
  ElectrostaticSolver over(c, o, solve_ranks(MPI_COMM_WORLD));
  const ElectrostaticSolution many = over.solve();
  EXPECT_TRUE(many.batched);
  ASSERT_EQ(many.capacitance.size(), 3u);
  EXPECT_LT(capacitance_difference(many.capacitance, one.capacitance), 1e-8)
      << mpi_size() << " ranks";
  EXPECT_LT(error_norms(many.charge, one.charge).rel_l2, 1e-8);
  ASSERT_EQ(many.solves.size(), one.solves.size());
  for (std::size_t i = 0; i < one.solves.size(); ++i) {
    EXPECT_NEAR(double(many.solves[i].iterations), double(one.solves[i].iterations), 2.0);
  }
  // The block's columns shared evaluations over the ranks too.
  EXPECT_LT(over.timings().evaluations, over.timings().products);
  // One right-hand side after the other over the ranks: the same C.
  o.batched = false;
  const ElectrostaticSolution apart =
      ElectrostaticSolver(c, o, solve_ranks(MPI_COMM_WORLD)).solve();
  EXPECT_FALSE(apart.batched);
  EXPECT_LT(capacitance_difference(apart.capacitance, many.capacitance), 1e-8);
}

TEST(SolveRanks, RefinementToAnAccuracyEqualsOneProcess) {
  ContourShape p;
  p.a = 1e-3;
  p.d = 3e-3;
  p.vertices = 16;
  const Contours c = generate_contours("two-wire", p);
  ElectrostaticOptions o = options("block");
  o.panels = 64;
  o.accuracy = 1e-3;
  const ElectrostaticSolution one = solve_conductors(c, o);
  const ElectrostaticSolution many = ElectrostaticSolver(c, o, solve_ranks(MPI_COMM_WORLD)).solve();
  ASSERT_EQ(many.meshes.size(), one.meshes.size());
  EXPECT_GE(one.meshes.size(), 3u);
  EXPECT_EQ(many.panels.size(), one.panels.size());
  EXPECT_LT(capacitance_difference(many.capacitance, one.capacitance), 1e-8);
  EXPECT_EQ(many.accuracy_met, one.accuracy_met);
}

}  // namespace
}  // namespace mlfma2d::testing

int main(int argc, char** argv) {
  return mlfma2d::testing::mpi_test_main(argc, argv);
}
