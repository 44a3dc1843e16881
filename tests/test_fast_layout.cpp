// Host-side tests of the layouts of the back ends 'shared' and 'repetition-gpu' (no GPU needed):
// the layouts, walked on the host by the kernels' own per-thread bodies (fast_kernels.hpp) in
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
#include "nearfield/cuda/collect.hpp"
#include "nearfield/cuda/fast_kernels.hpp"
#include "nearfield/cuda/fast_layout.hpp"
#include "solver/plan.hpp"
#include "solver/tree.hpp"
#include "tests/near_field_geometry.hpp"

namespace mlfma2d {
namespace {

using cuda::SharedLayout;
using cuda::SharedMode;

using testing::Geometry;

void make_geometry(Geometry* g, const std::string& shape, std::size_t n, bool separate, int ct,
                   int offset) {
  testing::make_geometry(g, shape, n, separate, ct, offset, 31);
}

struct Sums {
  std::vector<double> phi, ex, ey;
};

Sums cpu_sums(const Geometry& g) {
  NearFieldProblem p = g.problem;
  p.field = true;
  auto cpu = make_near_field_backend("cpu");
  cpu->setup(p);
  const std::size_t nt = g.tree.n_targets();
  Sums s{std::vector<double>(nt), std::vector<double>(nt), std::vector<double>(nt)};
  NearFieldTimings t;
  cpu->evaluate(g.pts.q.data(), s.phi.data(), s.ex.data(), s.ey.data(), &t);
  return s;
}

double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0, m = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (std::isnan(a[i])) return INFINITY;
    d = std::max(d, std::abs(a[i] - b[i]));
    m = std::max(m, std::abs(b[i]));
  }
  return m > 0 ? d / m : d;
}

/// The shared kernel run on the host: block by block, the union staged into vectors, each
/// thread's body called as the kernel calls it (tiles and batches of the dense path included).
Sums emulate_shared(const Geometry& g, const SharedLayout& l) {
  const Tree& tree = g.tree;
  const std::size_t nt = tree.n_targets();
  std::vector<double> q_tree(tree.n_sources());
  cuda::gather_tree_order(tree, g.pts.q.data(), q_tree.data(), 1);
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
    const std::int64_t to = tree.tgt_index[l.slot_tgt[slot]];
    EXPECT_TRUE(std::isnan(out.phi[to])) << "target " << to << " written twice";
    out.phi[to] = phi;
    out.ex[to] = ex;
    out.ey[to] = ey;
  };
  for (std::int64_t g_ = 0; g_ < l.groups(); ++g_) {
    const std::int64_t sb = l.group_slot[g_], se = l.group_slot[g_ + 1];
    const std::int64_t ub = l.group_union[g_], u = l.group_union[g_ + 1] - ub;
    if (!l.group_dense[g_]) {
      EXPECT_LE(se - sb, l.block);
      EXPECT_LE(u, l.tile);
      stage(ub, 0, u);
      for (std::int64_t slot = sb; slot < se; ++slot) {
        const std::int32_t i = l.slot_tgt[slot];
        const std::int32_t leaf = l.slot_leaf[slot];
        double phi = 0, ex = 0, ey = 0;
        cuda::segment_sum<true>(sx.data(), sy.data(), sq.data(), tree.tx[i], tree.ty[i],
                                l.seg.data() + 2 * l.leaf_seg[leaf], l.leaf_n[leaf], &phi, &ex,
                                &ey);
        write(slot, phi, ex, ey);
      }
      continue;
    }
    EXPECT_EQ(u, l.leaf_n[l.slot_leaf[sb]]);  // a dense group's union is its leaf's E1
    for (std::int64_t b = sb; b < se; b += l.block) {
      for (std::int64_t slot = b; slot < std::min(se, b + l.block); ++slot) {
        const std::int32_t i = l.slot_tgt[slot];
        double phi = 0, ex = 0, ey = 0;
        for (std::int64_t t0 = 0; t0 < u; t0 += l.tile) {
          const std::int64_t n = std::min<std::int64_t>(l.tile, u - t0);
          stage(ub, t0, n);
          cuda::dense_sum<true>(sx.data(), sy.data(), sq.data(), tree.tx[i], tree.ty[i],
                                std::int32_t(n), &phi, &ex, &ey);
        }
        write(slot, phi, ex, ey);
      }
    }
  }
  return out;
}

/// Structural checks: slots are a permutation of the targets, each group's slots are its leaves'
/// targets, the E1 pairs add up to the plan's, sorted groups put larger leaves first.
void check_layout(const Geometry& g, const SharedLayout& l) {
  const Tree& tree = g.tree;
  const std::size_t nt = tree.n_targets();
  ASSERT_EQ(l.slot_tgt.size(), nt);
  std::vector<int> seen(nt, 0);
  std::uint64_t pairs = 0;
  for (std::size_t s = 0; s < nt; ++s) {
    ++seen[l.slot_tgt[s]];
    const std::int32_t leaf = l.slot_leaf[s];
    EXPECT_GE(l.slot_tgt[s], tree.leaves().tgt_begin[leaf]);
    EXPECT_LT(l.slot_tgt[s], tree.leaves().tgt_end[leaf]);
    pairs += std::uint64_t(l.leaf_n[leaf]);
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), std::ptrdiff_t(nt));
  EXPECT_EQ(pairs, g.plan.near_pairs);
  EXPECT_EQ(l.group_slot.front(), 0);
  EXPECT_EQ(l.group_slot.back(), std::int64_t(nt));
  for (std::int64_t k = 0; k < l.groups(); ++k) {
    EXPECT_LT(l.group_slot[k], l.group_slot[k + 1]) << "a group without targets";
    if (l.mode == SharedMode::kLeaves) EXPECT_TRUE(l.group_dense[k]);
    if (l.mode == SharedMode::kGroups) {
      for (std::int64_t s = l.group_slot[k] + 1; s < l.group_slot[k + 1]; ++s) {
        EXPECT_GE(l.leaf_n[l.slot_leaf[s - 1]], l.leaf_n[l.slot_leaf[s]]);
      }
    }
  }
}

struct Case {
  std::string shape;
  bool separate;
};

class FastLayoutTest : public ::testing::TestWithParam<Case> {};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.shape + (info.param.separate ? "_separate_targets" : "_self");
}

/// Every mode, the kernel's block shape (128 targets, 1024-source tiles) and a tiny one (4
/// targets, 16-source tiles: many dense groups, batches and tiles), CT 1/15/200, offsets -2..+3.
TEST_P(FastLayoutTest, SharedEmulationIsEquivalentToReference) {
  const Case& c = GetParam();
  for (int ct : {1, 15, 200}) {
    for (int offset = -2; offset <= 3; ++offset) {
      for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(7), std::size_t(700)}) {
        SCOPED_TRACE("ct " + std::to_string(ct) + ", offset " + std::to_string(offset) + ", n " +
                     std::to_string(n));
        Geometry g;
        make_geometry(&g, c.shape, n, c.separate, ct, offset);
        const Sums ref = cpu_sums(g);
        const cuda::LeafSegments segs = cuda::leaf_segments(g.tree, g.plan, 0);
        for (SharedMode mode :
             {SharedMode::kGroups, SharedMode::kGroupsUnsorted, SharedMode::kLeaves}) {
          for (auto [block, tile] : {std::pair<int, int>{cuda::kSharedBlock, cuda::kSharedTile},
                                     std::pair<int, int>{4, 16}}) {
            SCOPED_TRACE(std::string(cuda::shared_mode_name(mode)) + ", block " +
                         std::to_string(block) + ", tile " + std::to_string(tile));
            const SharedLayout l = cuda::shared_layout(g.tree, g.plan, segs, mode, block, tile, 0);
            check_layout(g, l);
            const Sums s = emulate_shared(g, l);
            EXPECT_LE(rel_diff(s.phi, ref.phi), 1e-12);
            EXPECT_LE(rel_diff(s.ex, ref.ex), 1e-12);
            EXPECT_LE(rel_diff(s.ey, ref.ey), 1e-12);
            if (HasFailure()) return;
          }
        }
      }
    }
  }
}

/// Records built element by element as a warp builds them (32 lanes) equal the records the
/// 'repetition' back end collects on the host, bit for bit.
TEST_P(FastLayoutTest, GpuRecordsEqualHostRecords) {
  const Case& c = GetParam();
  for (int ct : {1, 15, 200}) {
    for (int offset : {-2, 0, 2}) {
      SCOPED_TRACE("ct " + std::to_string(ct) + ", offset " + std::to_string(offset));
      Geometry g;
      make_geometry(&g, c.shape, 600, c.separate, ct, offset);
      const Tree& tree = g.tree;
      const std::int64_t nt = std::int64_t(tree.n_targets());
      const std::int64_t stride = cuda::repetition_stride(tree);
      std::vector<double> q_tree(tree.n_sources());
      cuda::gather_tree_order(tree, g.pts.q.data(), q_tree.data(), 1);
      const auto near = cuda::near_source_counts(tree, g.plan);
      cuda::Chunk all{0, std::int64_t(tree.leaves().size()), 0, nt, 0};
      std::vector<double> host(std::size_t(nt * stride), -1.0);
      cuda::collect_repetition_chunk(tree, g.plan, all, q_tree.data(), stride, 1, host.data());

      const cuda::LeafSegments segs = cuda::leaf_segments(tree, g.plan, 0);
      const std::vector<std::int32_t> tgt_leaf = cuda::target_leaves(tree, 0);
      cuda::RecordArrays a;
      a.tx = tree.tx.data();
      a.ty = tree.ty.data();
      a.sx = tree.sx.data();
      a.sy = tree.sy.data();
      a.q = q_tree.data();
      a.tgt_leaf = tgt_leaf.data();
      a.leaf_seg = segs.begin.data();
      a.leaf_n = segs.count.data();
      a.seg = segs.seg.data();
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
      for (std::int64_t i = 0; i < nt; ++i) caller[tree.tgt_index[i]] = phi[i];
      EXPECT_LE(rel_diff(caller, ref.phi), 1e-12);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sets, FastLayoutTest,
                         ::testing::Values(Case{"uniform", false}, Case{"disk", false},
                                           Case{"circle", false}, Case{"clusters", false},
                                           Case{"uniform", true}, Case{"circle", true}),
                         case_name);

/// Merged ranges: a leaf's segments are sorted, disjoint, non-empty and cover exactly its E1
/// boxes' sources; in a uniform tree many neighbours follow one another and merge.
TEST(FastLayout, LeafSegmentsCoverTheE1Boxes) {
  Geometry g;
  make_geometry(&g, "uniform", 20000, false, 15, 0);
  const cuda::LeafSegments s = cuda::leaf_segments(g.tree, g.plan, 0);
  const Level& leaves = g.tree.leaves();
  std::int64_t boxes = 0;
  for (std::size_t b = 0; b < leaves.size(); ++b) {
    std::vector<std::int32_t> want, got;
    for (std::int64_t e = g.plan.near_begin[b]; e < g.plan.near_begin[b + 1]; ++e) {
      const std::int32_t nb = g.plan.near_box[e];
      for (std::int64_t j = leaves.src_begin[nb]; j < leaves.src_end[nb]; ++j) want.push_back(j);
      ++boxes;
    }
    std::int32_t last = -1;
    for (std::int64_t k = s.begin[b]; k < s.begin[b + 1]; ++k) {
      const std::int32_t lo = s.seg[2 * k], hi = s.seg[2 * k + 1];
      ASSERT_LT(lo, hi);
      ASSERT_LT(last, lo);  // sorted; a gap (not merged) between ranges
      for (std::int32_t j = lo; j < hi; ++j) got.push_back(j);
      last = hi;
    }
    ASSERT_EQ(got, want) << "leaf " << b;
    EXPECT_EQ(s.count[b], std::int32_t(want.size()));
  }
  EXPECT_LT(s.segments(), boxes);
}

TEST(FastLayout, GroupsFillTheBlocks) {
  Geometry g;
  make_geometry(&g, "uniform", 100000, false, 15, 0);
  const cuda::LeafSegments segs = cuda::leaf_segments(g.tree, g.plan, 0);
  const SharedLayout l = cuda::shared_layout(g.tree, g.plan, segs, SharedMode::kGroups,
                                             cuda::kSharedBlock, cuda::kSharedTile, 0);
  // Uniform points, CT 15: a few targets per leaf, so groups of many leaves fill most of a block.
  const double mean = double(g.tree.n_targets()) / double(l.groups());
  EXPECT_GT(mean, 0.8 * cuda::kSharedBlock);
  const double unions = double(l.group_union.back()) / double(g.tree.n_sources());
  EXPECT_LT(unions, 4.0);  // staged sources per target: far below the E1 size (~9 D)
}

}  // namespace
}  // namespace mlfma2d

#else  // MLFMA2D_WITH_CUDA

TEST(FastLayout, NeedCuda) {
  GTEST_SKIP() << "built without CUDA";
}

#endif  // MLFMA2D_WITH_CUDA
