// Host-side tests of the 'shared' back end's mutual path (nearfield/cuda/shared/mutual.hpp; no
// GPU needed): the one-way near field and the mutual pairs both ways cover every pair of the
// plan's near lists once; the mutual kernel walked on the host lane by lane (its per-lane step,
// the element each lane takes, the lane the reverse sums come from after each step, the warps'
// sums in order, the rounds adding to their slots) and the combine, after the one-way kernel,
// give the cpu back end's sums for every kind of sources and output; every slot written once.
#include <gtest/gtest.h>

#ifdef MLFMA2D_WITH_CUDA

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel/pair.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/cuda/shared/mutual.hpp"
#include "nearfield/cuda/shared/shared.hpp"
#include "tests/near_field_geometry.hpp"
#include "tests/shared_emulation.hpp"
#include "tests/test_util.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {
namespace {

using cuda::kMutualBlock;
using cuda::kMutualLanes;
using testing::DensityCase;
using testing::DensitySums;
using testing::Geometry;
using testing::Strengths;
constexpr std::uint64_t kSeed = 43;
constexpr std::uint64_t kStrengthSeed = 7;
constexpr int kWarps = kMutualBlock / kMutualLanes;

/// The mutual kernel and the combine on the host, as the kernels run them: each task's rounds
/// of b's targets, c's chunks of 32 staged (past c's end its first source, strengths 0), 32
/// steps a chunk, the reverse sums moved between lanes after each; then each leaf's slots added
/// to `out` (caller order; the outputs asked for), in order.
template <int kOrder, bool kCharge, bool kDipole>
void emulate_mutual(const Geometry& g, const cuda::MutualLayout& m, const testing::TreeStrengths& w,
                    DensitySums* out) {
  constexpr int kSums = kPairSums[kOrder];
  const double *sx = g.tree.sx.data(), *sy = g.tree.sy.data();
  const TableHalfLog log = testing::staged_half_log_table();
  std::vector<double> slot(std::size_t(kSums * m.slots), NAN);
  auto strengths = [&](std::int32_t j) {
    cuda::PointStrengths s;
    if (kCharge) s.q = w.q[std::size_t(j)];
    if (kDipole) s.mx = w.mx[std::size_t(j)], s.my = w.my[std::size_t(j)];
    return s;
  };
  for (std::int64_t t = 0; t < m.tasks(); ++t) {
    const std::int32_t b0 = m.task_b0[t], nb = m.task_nb[t], c0 = m.task_c0[t], nc = m.task_nc[t];
    for (std::int32_t r0 = 0; r0 < nb; r0 += kMutualBlock) {
      const int warps = (std::min(nb - r0, kMutualBlock) + kMutualLanes - 1) / kMutualLanes;
      std::vector<PairSums> acc(kMutualBlock);
      for (std::int32_t j0 = 0; j0 < nc; j0 += kMutualLanes) {
        double cx[kMutualLanes], cy[kMutualLanes];
        cuda::PointStrengths cw[kMutualLanes];
        for (int e = 0; e < kMutualLanes; ++e) {
          const bool real = j0 + e < nc;
          const std::int32_t j = c0 + (real ? j0 + e : 0);
          cx[e] = sx[j], cy[e] = sy[j], cw[e] = real ? strengths(j) : cuda::PointStrengths{};
        }
        double part[kWarps][kSums][kMutualLanes];
        for (int wp = 0; wp < warps; ++wp) {
          PairSums back[kMutualLanes];
          for (int k = 0; k < kMutualLanes; ++k) {
            for (int lane = 0; lane < kMutualLanes; ++lane) {
              const std::int32_t i = r0 + wp * kMutualLanes + lane;
              const std::int32_t ti = b0 + (i < nb ? i : 0);
              const int e = cuda::mutual_element(lane, k);
              cuda::mutual_step<kOrder, kCharge, kDipole>(
                  sx[ti], sy[ti], i < nb ? strengths(ti) : cuda::PointStrengths{}, cx[e], cy[e],
                  cw[e], log, &acc[wp * kMutualLanes + lane], &back[lane]);
            }
            PairSums moved[kMutualLanes];
            for (int lane = 0; lane < kMutualLanes; ++lane)
              moved[lane] = back[cuda::mutual_from_lane(lane)];
            std::copy(moved, moved + kMutualLanes, back);
          }
          for (int lane = 0; lane < kMutualLanes; ++lane)
            for (int s = 0; s < kSums; ++s) part[wp][s][lane] = cuda::mutual_sum(back[lane], s);
        }
        for (int e = 0; e < kMutualLanes && j0 + e < nc; ++e) {
          for (int s = 0; s < kSums; ++s) {
            double v = part[0][s][e];
            for (int wp = 1; wp < warps; ++wp) v += part[wp][s][e];
            double& to = slot[std::size_t(s * m.slots + m.task_back[t] + j0 + e)];
            if (r0 == 0) EXPECT_TRUE(std::isnan(to)) << "slot written twice";
            to = r0 == 0 ? v : to + v;
          }
        }
      }
      for (int i = r0; i < std::min(nb, r0 + kMutualBlock); ++i) {
        for (int s = 0; s < kSums; ++s) {
          double& to = slot[std::size_t(s * m.slots + m.task_fwd[t] + i)];
          EXPECT_TRUE(std::isnan(to)) << "slot written twice";
          to = cuda::mutual_sum(acc[std::size_t(i - r0)], s);
        }
      }
    }
  }
  std::vector<double>* outputs[5] = {&out->phi, &out->ex, &out->ey, &out->hxx, &out->hxy};
  for (std::int64_t k = 0; k < m.leaves(); ++k) {
    const std::int32_t n = m.comb_n[k];
    for (std::int32_t i = 0; i < n; ++i) {
      double v[kSums] = {};
      for (std::int32_t p = 0; p < m.comb_partners[k]; ++p)
        for (int s = 0; s < kSums; ++s)
          v[s] += slot[std::size_t(s * m.slots + m.comb_slot[k] + std::int64_t(p) * n + i)];
      const auto to = std::size_t(g.tree.tgt_index()[m.comb_t0[k] + i]);
      for (int s = 0; s < kSums; ++s)
        if (!outputs[s]->empty()) (*outputs[s])[to] += v[s];
    }
  }
  for (double v : slot) ASSERT_FALSE(std::isnan(v)) << "a slot never written";
}

/// Pairs: the one-way near field's and each task's both ways add up to the plan's; the tasks'
/// leaves are mutual (each whole in the other's near list) and their lanes full enough.
void check_cover(const Geometry& g, const cuda::MutualLayout& m) {
  const NearField& near = g.plan.near;
  std::uint64_t pairs = m.one.pairs;
  for (std::int64_t t = 0; t < m.tasks(); ++t) {
    pairs += 2 * std::uint64_t(m.task_nb[t]) * std::uint64_t(m.task_nc[t]);
    EXPECT_GE(cuda::mutual_lanes(m.task_nb[t], m.task_nc[t]), cuda::kMutualMinLanes);
    EXPECT_LT(m.task_b0[t], m.task_c0[t]);
  }
  EXPECT_EQ(pairs, near.pairs);
  EXPECT_EQ(m.one.leaf_tgt, near.leaf_tgt);
}

/// Every kind of sources and output the path takes (one density).
const DensityCase kCases[] = {
    {1, true, false, false, false}, {1, true, false, true, false},  {1, true, false, true, true},
    {1, true, false, false, true},  {1, false, true, false, false}, {1, false, true, true, true},
    {1, true, true, false, false},  {1, true, true, true, false},   {1, true, true, false, true}};

/// The mutual path (one-way kernel, mutual kernel, combine) on the host against the cpu back
/// end, every kind of sources and output, on uniform, clustered, graded and curve sets whose
/// leaves take it.
TEST(MutualLayout, EmulationIsEquivalentToReference) {
  struct Config {
    std::string shape;
    TreeKind kind;
    int ct;
  };
  std::int64_t tasks = 0;
  for (const Config& c :
       {Config{"uniform", TreeKind::Adaptive, 64}, Config{"uniform", TreeKind::Uniform, 100},
        Config{"clusters", TreeKind::Adaptive, 64},
        Config{"graded-polygon", TreeKind::Adaptive, 40},
        Config{"circle", TreeKind::Adaptive, 200}}) {
    SCOPED_TRACE(c.shape + ", " + tree_kind_name(c.kind) + ", ct " + std::to_string(c.ct));
    Geometry g;
    ASSERT_TRUE(testing::try_geometry(&g, c.shape, 6000, false, c.ct, 0, kSeed, c.kind));
    for (const DensityCase& dc : kCases) {
      SCOPED_TRACE(testing::describe(dc));
      const NearFieldProblem p = testing::density_problem(g, dc);
      ASSERT_TRUE(cuda::shared_mutual_applies(p));
      const cuda::MutualLayout m = cuda::mutual_layout(p);
      check_cover(g, m);
      tasks += m.tasks();
      const Strengths s = testing::make_strengths(g.tree.n_sources(), dc, kStrengthSeed);
      const cuda::SharedLayout l =
          cuda::shared_layout(p, m.one, cuda::kSharedBlock, cuda::shared_layout_tile(p));
      DensitySums out = testing::emulate_shared(g, l, dc, s);
      const testing::TreeStrengths w(g, s, 1);
      dispatch_pair(p.order(), dc.charges, dc.dipoles, [&](auto o, auto q, auto d) {
        emulate_mutual<decltype(o)::value, decltype(q)::value, decltype(d)::value>(g, m, w, &out);
      });
      testing::expect_density_equivalent(out, testing::run_backend("cpu", g, dc, s), 1);
    }
  }
  EXPECT_GT(tasks, 0) << "no set took the mutual path";
}

/// Where it does not apply: separate targets, several densities.
TEST(MutualLayout, OnlySelfEvaluationOfOneDensity) {
  Geometry self, apart;
  ASSERT_TRUE(testing::try_geometry(&self, "uniform", 3000, false, 64, 0, kSeed));
  ASSERT_TRUE(testing::try_geometry(&apart, "uniform", 3000, true, 64, 0, kSeed));
  for (const DensityCase& dc : kCases) {
    SCOPED_TRACE(testing::describe(dc));
    EXPECT_TRUE(cuda::shared_mutual_applies(testing::density_problem(self, dc)));
    EXPECT_FALSE(cuda::shared_mutual_applies(testing::density_problem(apart, dc)));
    DensityCase two = dc;
    two.nd = 2;
    EXPECT_FALSE(cuda::shared_mutual_applies(testing::density_problem(self, two)));
  }
}

}  // namespace
}  // namespace mlfma2d

#else  // MLFMA2D_WITH_CUDA

TEST(MutualLayout, NeedCuda) {
  GTEST_SKIP() << "built without CUDA";
}

#endif  // MLFMA2D_WITH_CUDA
