// Host-side tests of the layouts of the back ends 'shared' and 'repetition-gpu' (no GPU needed):
// the layouts, walked on the host by the kernels' own per-thread bodies (shared.hpp,
// repetition_gpu.hpp) in
// the kernels' block structure, give the cpu back end's sums; the groups respect their limits;
// the records built the GPU way equal the host-collected records of 'repetition'.
#include <gtest/gtest.h>

#ifdef MLFMA2D_WITH_CUDA

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/backend_util.hpp"
#include "nearfield/cuda/repetition/repetition.hpp"
#include "nearfield/cuda/repetition_gpu/repetition_gpu.hpp"
#include "nearfield/cuda/shared/shared.hpp"
#include "tests/near_field_geometry.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {
namespace {

using cuda::SharedLayout;

using testing::Geometry;
// This file's point sets (testing::try_geometry's seed).
constexpr std::uint64_t kSeed = 31;
using testing::rel_diff;
using testing::Sums;

// The cpu back end's sums with the field: the reference.
Sums cpu_sums(const Geometry& g) {
  return testing::run_backend("cpu", g, true);
}

/// The shared kernel run on the host: block by block, the union staged into vectors, each
/// thread's body called as the kernel calls it (the tiles of the dense path included).
Sums emulate_shared(const Geometry& g, const SharedLayout& l) {
  const Tree& tree = g.tree;
  const std::size_t nt = tree.n_targets();
  std::vector<double> q_tree(tree.n_sources());
  cuda::gather_tree_order(g.problem, g.pts.q.data(), q_tree.data());
  Sums out{std::vector<double>(nt, NAN), std::vector<double>(nt, NAN),
           std::vector<double>(nt, NAN)};
  std::vector<double> sx(l.tile), sy(l.tile), sq(l.tile);
  auto stage = [&](std::int64_t ub, std::int64_t from, std::int64_t count) {
    for (std::int64_t e = 0; e < count; ++e) {
      const std::int32_t j = l.union_src[ub + from + e];
      sx[e] = tree.sx[j];
      sy[e] = tree.sy[j];
      sq[e] = q_tree[j];
    }
  };
  auto write = [&](std::int64_t slot, double phi, double ex, double ey) {
    const std::int64_t to = tree.tgt_index()[l.slot_tgt[slot]];
    EXPECT_TRUE(std::isnan(out.phi[to])) << "target " << to << " written twice";
    out.phi[to] = phi;
    out.ex[to] = ex;
    out.ey[to] = ey;
  };
  for (std::int64_t g_ = 0; g_ < l.groups(); ++g_) {
    const std::int64_t sb = l.group_slot[g_], se = l.group_slot[g_ + 1];
    const std::int64_t ub = l.union_begin[g_], u = l.union_end[g_] - ub;
    EXPECT_LE(se - sb, l.block);  // one thread per slot
    if (!l.group_dense[g_]) {
      EXPECT_LE(u, l.tile);
      stage(ub, 0, u);
      for (std::int64_t slot = sb; slot < se; ++slot) {
        const std::int32_t i = l.slot_tgt[slot];
        const std::int32_t leaf = l.slot_leaf[slot];
        double phi = 0, ex = 0, ey = 0;
        cuda::segment_sum<true>(sx.data(), sy.data(), sq.data(), tree.tx()[i], tree.ty()[i],
                                l.seg.data() + 2 * l.leaf_seg[leaf], l.leaf_n[leaf], &phi, &ex,
                                &ey);
        write(slot, phi, ex, ey);
      }
      continue;
    }
    EXPECT_EQ(u, l.leaf_n[l.slot_leaf[sb]]);  // a dense group's union is its leaf's near list
    EXPECT_EQ(l.slot_leaf[sb], l.slot_leaf[se - 1]);
    for (std::int64_t slot = sb; slot < se; ++slot) {
      const std::int32_t i = l.slot_tgt[slot];
      double phi = 0, ex = 0, ey = 0;
      for (std::int64_t t0 = 0; t0 < u; t0 += l.tile) {
        const std::int64_t n = std::min<std::int64_t>(l.tile, u - t0);
        stage(ub, t0, n);
        cuda::dense_sum<true>(sx.data(), sy.data(), sq.data(), tree.tx()[i], tree.ty()[i],
                              std::int32_t(n), &phi, &ex, &ey);
      }
      write(slot, phi, ex, ey);
    }
  }
  return out;
}

/// Structural checks: slots are a permutation of the targets, each group's slots are its leaves'
/// targets, the near pairs add up to the plan's, groups put larger leaves first.
void check_layout(const Geometry& g, const SharedLayout& l) {
  const Tree& tree = g.tree;
  const std::size_t nt = tree.n_targets();
  ASSERT_EQ(l.slot_tgt.size(), nt);
  std::vector<int> seen(nt, 0);
  std::uint64_t pairs = 0;
  for (std::size_t s = 0; s < nt; ++s) {
    ++seen[l.slot_tgt[s]];
    const std::int32_t leaf = l.slot_leaf[s];
    EXPECT_GE(l.slot_tgt[s], g.plan.near.leaf_tgt[leaf]);
    EXPECT_LT(l.slot_tgt[s], g.plan.near.leaf_tgt[leaf + 1]);
    pairs += std::uint64_t(l.leaf_n[leaf]);
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), std::ptrdiff_t(nt));
  EXPECT_EQ(pairs, g.plan.near.pairs);
  EXPECT_EQ(l.group_slot.front(), 0);
  EXPECT_EQ(l.group_slot.back(), std::int64_t(nt));
  for (std::int64_t k = 0; k < l.groups(); ++k) {
    EXPECT_LT(l.group_slot[k], l.group_slot[k + 1]) << "a group without targets";
    for (std::int64_t s = l.group_slot[k] + 1; s < l.group_slot[k + 1]; ++s) {
      EXPECT_GE(l.leaf_n[l.slot_leaf[s - 1]], l.leaf_n[l.slot_leaf[s]]);
    }
  }
}

using testing::SetCase;
using Case = SetCase;

class FastLayoutTest : public ::testing::TestWithParam<Case> {};

/// The kernel's block shape (128 targets, 1024-source tiles) and a tiny one (4
/// targets, 16-source tiles: many dense groups, batches and tiles), CT 1/15/200, offsets -2..+3.
TEST_P(FastLayoutTest, SharedEmulationIsEquivalentToReference) {
  const Case& c = GetParam();
  testing::for_each_tree(
      c.shape, c.separate, c.kind, kSeed, {1, 2, 7, 700}, [&](const Geometry& g) {
        const Sums ref = cpu_sums(g);
        for (auto [block, tile] : {std::pair<int, int>{cuda::kSharedBlock, cuda::kSharedTile},
                                   std::pair<int, int>{4, 16}}) {
          SCOPED_TRACE("block " + std::to_string(block) + ", tile " + std::to_string(tile));
          const SharedLayout l = cuda::shared_layout(g.problem, block, tile);
          check_layout(g, l);
          const Sums s = emulate_shared(g, l);
          EXPECT_LE(rel_diff(s.phi, ref.phi), 1e-12);
          EXPECT_LE(rel_diff(s.ex, ref.ex), 1e-12);
          EXPECT_LE(rel_diff(s.ey, ref.ey), 1e-12);
        }
      });
}

/// Records built element by element as a warp builds them (32 lanes) equal the records the
/// 'repetition' back end collects on the host, bit for bit.
TEST_P(FastLayoutTest, GpuRecordsEqualHostRecords) {
  const Case& c = GetParam();
  for (int ct : {1, 15, 200}) {
    for (int offset : {-2, 0, 2}) {
      SCOPED_TRACE("ct " + std::to_string(ct) + ", offset " + std::to_string(offset));
      Geometry g;
      if (!testing::try_geometry(&g, c.shape, 600, c.separate, ct, offset, kSeed, c.kind)) continue;
      const Tree& tree = g.tree;
      const std::int64_t nt = std::int64_t(tree.n_targets());
      const std::int64_t stride = cuda::repetition_stride(g.problem);
      std::vector<double> q_tree(tree.n_sources());
      cuda::gather_tree_order(g.problem, g.pts.q.data(), q_tree.data());
      const NearField& nf = g.plan.near;
      const auto& near = nf.sources;
      cuda::Chunk all{0, std::int64_t(nf.leaves()), 0, nt, 0};
      std::vector<double> host(std::size_t(nt * stride), -1.0);
      cuda::collect_repetition_chunk(g.problem, all, q_tree.data(), stride, host.data());

      const std::vector<std::int32_t> tgt_leaf = cuda::target_leaves(g.problem);
      cuda::RecordArrays a;
      a.tx = tree.tx();
      a.ty = tree.ty();
      a.sx = tree.sx.data();
      a.sy = tree.sy.data();
      a.q = q_tree.data();
      a.tgt_leaf = tgt_leaf.data();
      a.leaf_seg = nf.range_begin.data();
      a.leaf_n = nf.sources.data();
      a.seg = nf.range.data();
      std::vector<double> dev(std::size_t(nt * stride), -1.0);
      for (std::int64_t i = 0; i < nt; ++i) {
        for (int lane = 0; lane < 32; ++lane) {
          cuda::fill_record(a, i, lane, 32, dev.data() + i * stride);
        }
      }
      for (std::int64_t i = 0; i < nt; ++i) {
        const auto n = std::int64_t(host[i * stride + 2]);
        EXPECT_EQ(n, near[tgt_leaf[i]]);
        for (std::int64_t e = 0; e < 3 + 3 * n; ++e) {
          ASSERT_EQ(dev[i * stride + e], host[i * stride + e])
              << "target " << i << " element " << e;
        }
      }
      // And the unchanged repetition body over them gives the cpu sums.
      std::vector<double> phi(nt), ex(nt), ey(nt);
      const cuda::NearFieldOut out{phi.data(), ex.data(), ey.data()};
      for (std::int64_t i = 0; i < nt; ++i)
        cuda::repetition_target<true>(dev.data(), stride, i, out);
      const Sums ref = cpu_sums(g);
      std::vector<double> caller(nt);
      for (std::int64_t i = 0; i < nt; ++i) caller[tree.tgt_index()[i]] = phi[i];
      EXPECT_LE(rel_diff(caller, ref.phi), 1e-12);
    }
  }
}

// The standard sets, and the disk (its boundary leaves are partly empty).
std::vector<Case> layout_sets() {
  std::vector<Case> sets = testing::near_field_sets();
  sets.push_back(Case{"disk", false});
  return sets;
}

INSTANTIATE_TEST_SUITE_P(Sets, FastLayoutTest, ::testing::ValuesIn(layout_sets()),
                         testing::set_case_test_name);

TEST(FastLayout, GroupsFillTheBlocks) {
  Geometry g;
  testing::try_geometry(&g, "uniform", 100000, false, 15, 0, kSeed);
  const SharedLayout l = cuda::shared_layout(g.problem, cuda::kSharedBlock, cuda::kSharedTile);
  // Uniform points, CT 15: a few targets per leaf, so groups of many leaves fill most of a block.
  const double mean = double(g.tree.n_targets()) / double(l.groups());
  EXPECT_GT(mean, 0.8 * cuda::kSharedBlock);
  const double unions = double(l.union_src.size()) / double(g.tree.n_sources());
  EXPECT_LT(unions, 4.0);  // staged sources per target: far below the near-list size (~9 D)
}

}  // namespace
}  // namespace mlfma2d

#else  // MLFMA2D_WITH_CUDA

TEST(FastLayout, NeedCuda) {
  GTEST_SKIP() << "built without CUDA";
}

#endif  // MLFMA2D_WITH_CUDA
