// The distributed solver's figures and errors under mpirun -np 1..4: the work summed over the
// ranks against the one-process plan, the traffic (every byte sent is received), the partition's
// balance, and an error on one rank thrown on every rank.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "mlfma2d/errors.hpp"
#include "tests/mpi_test_util.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d::testing {
namespace {

Options cpu_options(int ct) {
  Options o;
  o.ct = ct;
  o.threads = 1;
  o.backend = "cpu";
  return o;
}

TEST(DistributedFigures, WorkTrafficAndBalance) {
  const std::size_t n = 20000;
  const PointSet pts = make_points("clusters", n, 11);
  const Options opt = cpu_options(32);
  Solver one(pts.x, pts.y, opt);
  const Part part = take_part(pts.x, pts.y, 3);
  DistributedSolver ds(MPI_COMM_WORLD, part.x, part.y, opt);
  const std::vector<double> q(part.index.size(), 1.0);
  ds.evaluate(q);
  ds.evaluate(q);
  // The global tree is the one-process tree; the near pairs and W terms are split among the
  // ranks, the M2L pairs and X terms of boxes shared by several ranks counted on each.
  const TreeStats& s = ds.stats();
  EXPECT_EQ(s.n_sources, n);
  EXPECT_EQ(s.leaf_boxes, one.stats().leaf_boxes);
  EXPECT_EQ(s.boxes, one.stats().boxes);
  EXPECT_EQ(s.levels, one.stats().levels);
  EXPECT_EQ(s.near_pairs, one.stats().near_pairs);
  EXPECT_EQ(s.m2p_terms, one.stats().m2p_terms);
  EXPECT_GE(s.m2l_pairs, one.stats().m2l_pairs);
  EXPECT_GE(s.p2l_terms, one.stats().p2l_terms);
  const DistributedFigures& f = ds.figures();
  EXPECT_EQ(f.rank, mpi_rank());
  EXPECT_EQ(f.ranks, mpi_size());
  EXPECT_EQ(f.caller_sources, part.index.size());
  EXPECT_GT(f.evaluation, 0);
  EXPECT_LE(f.communication, f.evaluation);
  EXPECT_NEAR(f.work, f.evaluation - f.communication, 1e-12);
  EXPECT_EQ(f.sent, f.ghost_sent + f.multipole_sent + f.redistribution_sent);
  const std::vector<DistributedFigures> all = ds.gather_figures(0);
  if (mpi_rank() != 0) {
    EXPECT_TRUE(all.empty());
    return;
  }
  ASSERT_EQ(all.size(), std::size_t(mpi_size()));
  std::size_t sources = 0, targets = 0, leaves = 0, in = 0, out = 0;
  std::uint64_t sent = 0, received = 0;
  double most = 0, mean = 0;
  for (const DistributedFigures& r : all) {
    sources += r.sources;
    targets += r.targets;
    leaves += r.leaves;
    in += r.multipoles_in;
    out += r.multipoles_out;
    sent += r.sent;
    received += r.received;
    most = std::max(most, r.predicted);
    mean += r.predicted / double(all.size());
    EXPECT_LE(r.ghost_sources, n);
    if (mpi_size() == 1) {
      EXPECT_EQ(r.sent, 0u);
      EXPECT_EQ(r.ghost_sources, 0u);
      EXPECT_EQ(r.multipoles_in, 0u);
    } else {
      EXPECT_GT(r.ghost_sent, 0u) << "rank " << r.rank;
      EXPECT_GT(r.multipole_sent, 0u) << "rank " << r.rank;
      EXPECT_GT(r.setup_sent, 0u) << "rank " << r.rank;
    }
  }
  EXPECT_EQ(sources, n);
  EXPECT_EQ(targets, n);
  EXPECT_EQ(leaves, one.stats().leaf_boxes);
  EXPECT_EQ(in, out);  // every partial multipole sent is received
  EXPECT_EQ(sent, received);
  // The partition's balance by its own model (the measured one is noise on 2 oversubscribed
  // cores): whole leaves of a 20000-point tree leave little over.
  EXPECT_LE(most / mean, 1.1);
  const double imbalance = work_imbalance(all);
  EXPECT_GE(imbalance, 1.0);
  EXPECT_TRUE(std::isfinite(imbalance));
}

TEST(DistributedFigures, TheOwnedOrderNeedsNoRedistribution) {
  // Separate targets: the owned sources and targets, where each came from, and an evaluation in
  // their order against the one-process Solver's at the same points.
  const std::size_t n = 9000, m = 5000;
  const PointSet src = make_points("disk", n, 2), tgt = make_points("uniform", m, 6);
  Options opt = cpu_options(32);
  opt.field = true;
  Solver one(src.x, src.y, tgt.x, tgt.y, opt);
  const Result ref = one.evaluate(src.q);
  const Part sp = take_part(src.x, src.y, 1), tp = take_part(tgt.x, tgt.y, 2);
  DistributedSolver ds(MPI_COMM_WORLD, sp.x, sp.y, tp.x, tp.y, opt);
  const DistributedPoints os = ds.owned_sources(), ot = ds.owned_targets();
  const auto sparts = all_parts(n, 1), tparts = all_parts(m, 2);
  std::vector<double> q;
  for (std::size_t i = 0; i < os.x.size(); ++i) {
    const std::size_t g = sparts[os.rank[i]][std::size_t(os.index[i])];
    EXPECT_EQ(os.x[i], src.x[g]);
    EXPECT_EQ(os.y[i], src.y[g]);
    q.push_back(src.q[g]);
  }
  Part owned;  // the owned targets as a part of the global targets
  for (std::size_t i = 0; i < ot.x.size(); ++i) {
    const std::size_t g = tparts[ot.rank[i]][std::size_t(ot.index[i])];
    EXPECT_EQ(ot.x[i], tgt.x[g]);
    EXPECT_EQ(ot.y[i], tgt.y[g]);
    owned.index.push_back(g);
  }
  Result r;
  r.potential.resize(ot.x.size() + 1);  // + 1: a rank with no targets still passes an array
  r.field_x.resize(ot.x.size() + 1);
  r.field_y.resize(ot.x.size() + 1);
  Densities in;
  in.charges = q.data();
  ds.evaluate_owned(in, Outputs{r.potential.data(), r.field_x.data(), r.field_y.data()});
  for (std::vector<double>* v : {&r.potential, &r.field_x, &r.field_y}) v->pop_back();
  expect_outputs_near(r, ref, 1, m, owned, 1e-12, "the owned order");
  EXPECT_EQ(ds.figures().redistribution_sent, 0u);
  // Owned sources and targets make every point once.
  std::size_t counts[2] = {os.x.size(), ot.x.size()};
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(counts[0], n);
  EXPECT_EQ(counts[1], m);
}

// Throws on every rank, of type E, with `part` in its message.
template <class E, class F>
void expect_everywhere(F&& f, const std::string& part) {
  bool thrown = false;
  try {
    f();
  } catch (const E& e) {
    thrown = true;
    EXPECT_TRUE(contains(e.what(), part)) << e.what();
  }
  EXPECT_TRUE(thrown) << "expected an error with \"" << part << "\"";
}

TEST(DistributedErrors, OneRanksBadInputFailsEveryRank) {
  const PointSet pts = make_points("uniform", 3000, 4);
  Part part = take_part(pts.x, pts.y, 0);
  const int last = mpi_size() - 1;
  if (mpi_rank() == last && !part.x.empty()) part.x[0] = NAN;
  expect_everywhere<InvalidInput>(
      [&] { DistributedSolver(MPI_COMM_WORLD, part.x, part.y, cpu_options(16)); },
      "non-finite coordinate");
  if (mpi_size() > 1) {
    expect_everywhere<InvalidInput>(
        [&] { DistributedSolver(MPI_COMM_WORLD, part.x, part.y, cpu_options(16)); },
        "rank " + std::to_string(last) + ":");
  }
}

TEST(DistributedErrors, DifferentOptionsOrChargesFailEveryRank) {
  const PointSet pts = make_points("uniform", 3000, 4);
  const Part part = take_part(pts.x, pts.y, 0);
  if (mpi_size() > 1) {
    expect_everywhere<InvalidInput>(
        [&] {
          DistributedSolver(MPI_COMM_WORLD, part.x, part.y, cpu_options(mpi_rank() == 0 ? 8 : 16));
        },
        "different options");
  }
  DistributedSolver ds(MPI_COMM_WORLD, part.x, part.y, cpu_options(16));
  std::vector<double> q(part.index.size() + (mpi_rank() == 0 ? 1 : 0), 1.0);
  expect_everywhere<InvalidInput>([&] { ds.evaluate(q); }, "charges");
  q.resize(part.index.size());
  if (!q.empty() && mpi_rank() == mpi_size() - 1) q[0] = INFINITY;
  expect_everywhere<InvalidInput>([&] { ds.evaluate(q); }, "not finite");
  q.assign(part.index.size(), 1.0);
  EXPECT_EQ(ds.evaluate(q).potential.size(), part.index.size());  // the solver still works
}

TEST(DistributedErrors, ExtentsTheOneProcessSolverScalesAreRefused) {
  std::vector<double> x = {0.0, 1.0}, y = {0.0, 1.0};
  if (mpi_rank() == mpi_size() - 1) x[1] = 1e200;  // on one rank: the extent is every rank's
  expect_everywhere<InvalidInput>([&] { DistributedSolver(MPI_COMM_WORLD, x, y, cpu_options(16)); },
                                  "extents up to 2^500");
}

TEST(DistributedErrors, NoSourcesOnAnyRank) {
  const std::vector<double> none;
  const std::vector<double> tx = {0.5, 0.25}, ty = {0.5, 0.75};
  expect_everywhere<InvalidInput>(
      [&] { DistributedSolver(MPI_COMM_WORLD, none, none, tx, ty, cpu_options(16)); },
      "no sources on any rank");
}

}  // namespace
}  // namespace mlfma2d::testing

int main(int argc, char** argv) {
  return mlfma2d::testing::mpi_test_main(argc, argv);
}
