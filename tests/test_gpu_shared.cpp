// The 'shared' back end's own paths on the GPU: its multi-leaf groups, dense one-leaf groups and
// unions of several tiles; its mutual path (nearfield/cuda/shared/mutual.hpp), adjacent
// leaves summed both ways against the cpu back end on sets and leaf capacities that take it
// (every kind of sources and output), the same bits on every run, strengths written into the
// staging buffers by the caller, and a device-memory budget that holds the one-way layout but not
// the mutual slots (the path left out, the answer the same), and a staged evaluation's strengths
// in tree order handed to another thread (the far field's). Skips, with the reason, where no CUDA
// device is found.
#include <gtest/gtest.h>

#ifdef MLFMA2D_WITH_CUDA

#include <cstdint>
#include <string>
#include <thread>

#include "nearfield/backend.hpp"
#include "nearfield/cuda/shared/mutual.hpp"
#include "tests/gpu_test_util.hpp"
#include "tests/near_field_geometry.hpp"
#include "tests/test_util.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {
namespace {

using testing::expect_equivalent;
using testing::Geometry;
using testing::Sums;
constexpr std::uint64_t kSeed = 47;

struct Config {
  std::string shape;
  TreeKind kind;
  int ct;
  std::size_t n;
};

/// Uniform, clustered, graded and curve sets at leaf capacities whose leaves take the path
/// (rounds of more than 128 targets at CT 512), potential and field.
TEST(GpuMutual, SharedIsEquivalentToReferenceAndTheSameBitsEveryRun) {
  REQUIRE_CUDA_DEVICE();
  for (const Config& c : {Config{"uniform", TreeKind::Adaptive, 64, 40000},
                          Config{"uniform", TreeKind::Adaptive, 512, 100000},
                          Config{"uniform", TreeKind::Uniform, 200, 40000},
                          Config{"clusters", TreeKind::Adaptive, 200, 60000},
                          Config{"graded-polygon", TreeKind::Adaptive, 40, 40000},
                          Config{"circle", TreeKind::Adaptive, 300, 40000}}) {
    SCOPED_TRACE(c.shape + ", " + tree_kind_name(c.kind) + ", ct " + std::to_string(c.ct));
    Geometry g;
    ASSERT_TRUE(testing::try_geometry(&g, c.shape, c.n, false, c.ct, 0, kSeed, c.kind));
    for (bool field : {false, true}) {
      SCOPED_TRACE(field ? "field" : "potential");
      NearFieldProblem p = g.problem;
      p.field = field;
      ASSERT_TRUE(cuda::shared_mutual_applies(p));
      EXPECT_GT(cuda::mutual_layout(p).tasks(), 0);
      const Sums s = testing::run_backend("shared", g, field);
      expect_equivalent(s, testing::run_backend("cpu", g, field), field);
      const Sums again = testing::run_backend("shared", g, field);
      EXPECT_EQ(s.phi, again.phi);
      EXPECT_EQ(s.ex, again.ex);
      EXPECT_EQ(s.ey, again.ey);
    }
  }
}

/// Dipoles, charges and dipoles, the Hessian (with and without the field): the path against
/// the cpu back end and the same bits on a second run, on uniform and clustered sets.
TEST(GpuMutual, EveryKindAndOutputIsEquivalentToReferenceAndTheSameBitsEveryRun) {
  REQUIRE_CUDA_DEVICE();
  const testing::DensityCase cases[] = {
      {1, true, false, true, true}, {1, true, false, false, true}, {1, false, true, false, false},
      {1, false, true, true, true}, {1, true, true, false, false}, {1, true, true, true, false},
      {1, true, true, true, true}};
  for (const Config& c : {Config{"uniform", TreeKind::Adaptive, 256, 60000},
                          Config{"clusters", TreeKind::Adaptive, 200, 60000}}) {
    SCOPED_TRACE(c.shape + ", ct " + std::to_string(c.ct));
    Geometry g;
    ASSERT_TRUE(testing::try_geometry(&g, c.shape, c.n, false, c.ct, 0, kSeed, c.kind));
    for (const testing::DensityCase& dc : cases) {
      SCOPED_TRACE(testing::describe(dc));
      const NearFieldProblem p = testing::density_problem(g, dc);
      ASSERT_TRUE(cuda::shared_mutual_applies(p));
      EXPECT_GT(cuda::mutual_layout(p).tasks(), 0);
      const testing::Strengths s = testing::make_strengths(g.tree.n_sources(), dc, kSeed);
      const testing::DensitySums a = testing::run_backend("shared", g, dc, s);
      testing::expect_density_equivalent(a, testing::run_backend("cpu", g, dc, s), 1);
      testing::expect_identical(a, testing::run_backend("shared", g, dc, s));
    }
  }
}

/// A budget below the mutual path's slots but above the one-way layout: the back end sums
/// every pair one way, within the budget, to the same answer.
TEST(GpuMutual, ABudgetWithoutRoomForTheSlotsSumsOneWay) {
  REQUIRE_CUDA_DEVICE();
  Geometry g;
  ASSERT_TRUE(
      testing::try_geometry(&g, "uniform", 60000, false, 256, 0, kSeed, TreeKind::Adaptive));
  NearFieldProblem p = g.problem;
  p.field = true;
  const cuda::MutualLayout m = cuda::mutual_layout(p);
  ASSERT_GT(m.tasks(), 0);
  const Sums with = testing::run_backend("shared", g, true);
  const std::size_t slots = m.bytes(3);
  ASSERT_GT(with.timings.device_bytes, slots);
  const std::size_t budget = with.timings.device_bytes - slots / 2;
  const Sums without = testing::run_backend("shared", g, true, 0, budget);
  EXPECT_LE(without.timings.device_bytes, budget);
  expect_equivalent(without, with, true);
  expect_equivalent(without, testing::run_backend("cpu", g, true), true);
}

/// Strengths the caller wrote into the staging buffers itself (Solver::evaluate's dipole
/// moments) are not copied again: evaluations from them, staged or not, give the bits of one
/// from the caller's arrays; buffers for the kinds carried alone, none before set-up.
TEST(GpuShared, StrengthsWrittenIntoTheStagingBuffersGiveTheSameBits) {
  REQUIRE_CUDA_DEVICE();
  Geometry g;
  ASSERT_TRUE(
      testing::try_geometry(&g, "clusters", 20000, false, 64, 0, kSeed, TreeKind::Adaptive));
  const testing::DensityCase dc{2, true, true, true, false};
  auto gpu = make_near_field_backend("shared");
  EXPECT_EQ(gpu->staging_buffers().q, nullptr) << "before set-up";
  gpu->setup(testing::density_problem(g, dc));
  const StagingBuffers to = gpu->staging_buffers();
  ASSERT_TRUE(to.q && to.mx && to.my);
  const testing::Strengths s = testing::make_strengths(g.tree.n_sources(), dc, kSeed);
  const std::size_t all = std::size_t(dc.nd) * g.tree.n_targets();
  testing::DensitySums plain(all, dc), again(all, dc), staged(all, dc);
  gpu->evaluate(s.sources(), plain.outputs(), &plain.timings);
  std::copy(s.mx.begin(), s.mx.end(), to.mx);
  std::copy(s.my.begin(), s.my.end(), to.my);
  const NearSources in{s.q.data(), to.mx, to.my};
  gpu->evaluate(in, again.outputs(), &again.timings);
  testing::expect_identical(again, plain);
  ASSERT_TRUE(gpu->stage_in(in, 4));
  gpu->evaluate(in, staged.outputs(), &staged.timings);
  const std::vector<double>* want[3] = {&plain.phi, &plain.ex, &plain.ey};
  for (int k = 0; k < 3; ++k) {
    const double* r = gpu->staged_result(k);
    ASSERT_NE(r, nullptr) << "output " << k;
    EXPECT_EQ(std::vector<double>(r, r + all), *want[k]) << "output " << k;
  }
  gpu->setup(testing::density_problem(g, {1, true, false, false, false}));
  EXPECT_NE(gpu->staging_buffers().q, nullptr);
  EXPECT_EQ(gpu->staging_buffers().mx, nullptr) << "charges alone";
}

/// A staged evaluation asked for them hands its strengths in tree order (the device's gather,
/// copied back) to another thread while it runs, the bits of the caller's in Tree::src_index's
/// order (two densities of charges and dipoles, 2.4e6 strengths); none when not asked for, after
/// an evaluation not staged, after one that failed before its strengths went in (the waiting
/// thread released), below strengths_back's size, or from the cpu back end.
TEST(GpuShared, StagedEvaluationsHandTheirStrengthsInTreeOrderToAnotherThread) {
  REQUIRE_CUDA_DEVICE();
  Geometry g;
  ASSERT_TRUE(
      testing::try_geometry(&g, "clusters", 400000, false, 64, 0, kSeed, TreeKind::Adaptive));
  const testing::DensityCase dc{2, true, true, true, false};
  const NearFieldProblem p = testing::density_problem(g, dc);
  ASSERT_TRUE(strengths_back(charge_shape(p)));
  auto gpu = make_near_field_backend("shared");
  gpu->setup(p);
  const testing::Strengths s = testing::make_strengths(g.tree.n_sources(), dc, kSeed);
  const std::size_t ns = g.tree.n_sources(), all = std::size_t(dc.nd) * g.tree.n_targets();
  testing::DensitySums out(all, dc);
  for (int round = 0; round < 2; ++round) {  // round 1: its own strengths, not round 0's
    testing::Strengths r = s;
    for (double& v : r.q) v += round;
    ASSERT_TRUE(gpu->stage_in(r.sources(), 4, true));
    std::thread near([&] { gpu->evaluate(r.sources(), out.outputs(), &out.timings); });
    const StrengthArrays got = gpu->tree_order_strengths();
    near.join();
    const std::vector<double>* want[3] = {&r.q, &r.mx, &r.my};
    const double* kinds[3] = {got.q, got.mx, got.my};
    for (int k = 0; k < 3; ++k) {
      ASSERT_NE(kinds[k], nullptr) << "kind " << k;
      for (std::size_t d = 0; d < std::size_t(dc.nd); ++d)
        for (std::size_t j = 0; j < ns; ++j)
          ASSERT_EQ(kinds[k][d * ns + j], (*want[k])[d * ns + std::size_t(p.src_index[j])])
              << "kind " << k << ", density " << d << ", source " << j << ", round " << round;
    }
  }
  gpu->evaluate(s.sources(), out.outputs(), &out.timings);  // not staged
  EXPECT_EQ(gpu->tree_order_strengths().q, nullptr) << "after an evaluation not staged";
  ASSERT_TRUE(gpu->stage_in(s.sources(), 4));
  gpu->evaluate(s.sources(), out.outputs(), &out.timings);
  EXPECT_EQ(gpu->tree_order_strengths().q, nullptr) << "not asked for";
  ASSERT_TRUE(gpu->stage_in(s.sources(), 4, true));
  std::thread failing(
      [&] { EXPECT_THROW(gpu->evaluate(s.sources(), NearOutputs{}, nullptr), InvalidInput); });
  EXPECT_EQ(gpu->tree_order_strengths().q, nullptr) << "after an evaluation that failed";
  failing.join();
  auto cpu = make_near_field_backend("cpu");
  cpu->setup(p);
  EXPECT_FALSE(cpu->stage_in(s.sources(), 4, true));
  EXPECT_EQ(cpu->tree_order_strengths().q, nullptr) << "the cpu back end";
  Geometry small;
  ASSERT_TRUE(
      testing::try_geometry(&small, "clusters", 20000, false, 64, 0, kSeed, TreeKind::Adaptive));
  const NearFieldProblem q = testing::density_problem(small, dc);
  ASSERT_FALSE(strengths_back(charge_shape(q)));
  gpu->setup(q);
  const testing::Strengths t = testing::make_strengths(small.tree.n_sources(), dc, kSeed);
  testing::DensitySums few(std::size_t(dc.nd) * small.tree.n_targets(), dc);
  ASSERT_TRUE(gpu->stage_in(t.sources(), 4, true));
  gpu->evaluate(t.sources(), few.outputs(), &few.timings);
  EXPECT_EQ(gpu->tree_order_strengths().q, nullptr) << "below strengths_back's size";
}

/// 'shared' with multi-leaf groups, dense one-leaf groups and unions of several tiles.
TEST(GpuShared, EveryGroupKindIsEquivalentToReference) {
  REQUIRE_CUDA_DEVICE();
  struct Config {
    std::string shape;
    int ct, offset;
  };
  // CT 200 at offset -2: leaves of ~1000 targets with E1 unions of several 1024-source tiles.
  for (const Config& c :
       {Config{"uniform", 15, 0}, Config{"uniform", 64, 0}, Config{"uniform", 200, -2},
        Config{"clusters", 15, 0}, Config{"clusters", 200, 0}}) {
    SCOPED_TRACE(c.shape + ", ct " + std::to_string(c.ct) + ", offset " + std::to_string(c.offset));
    Geometry g;
    ASSERT_TRUE(testing::try_geometry(&g, c.shape, 20000, false, c.ct, c.offset, kSeed));
    for (bool field : {false, true})
      expect_equivalent(testing::run_backend("shared", g, field),
                        testing::run_backend("cpu", g, field), field);
  }
}

}  // namespace
}  // namespace mlfma2d

#else  // MLFMA2D_WITH_CUDA

TEST(GpuShared, NeedCuda) {
  GTEST_SKIP() << "built without CUDA";
}

#endif  // MLFMA2D_WITH_CUDA
