// Host-side tests of the layouts of the back ends 'shared' and 'repetition-gpu' (no GPU needed):
// the layouts, walked on the host by the kernels' own per-thread bodies (shared.hpp,
// repetition_gpu.hpp, cuda/common/densities.hpp) in the kernels' block and pass structure, give
// the cpu back end's sums -- one density of charges, and every kind of source (charges,
// dipoles, both) x output (potential, field, Hessian) for several densities, in batches; the
// groups respect their limits and the tiles the shared memory; the records built the GPU way
// equal the host-collected records of 'repetition' and carry every strength of a batch; the
// charge path's buffers are what the problem asks.
#include <gtest/gtest.h>

#ifdef MLFMA2D_WITH_CUDA

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel/pair.hpp"
#include "mlfma2d/io.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/backend_util.hpp"
#include "nearfield/cuda/common/charge_io.hpp"
#include "nearfield/cuda/common/densities.hpp"
#include "nearfield/cuda/repetition/repetition.hpp"
#include "nearfield/cuda/repetition_gpu/repetition_gpu.hpp"
#include "nearfield/cuda/shared/shared.hpp"
#include "tests/near_field_geometry.hpp"
#include "tests/shared_emulation.hpp"
#include "tests/test_util.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {
namespace {

using cuda::SharedLayout;
using testing::DensityCase;
using testing::DensitySums;
using testing::emulate_shared;
using testing::Geometry;
using testing::outputs_from;
using testing::staged_half_log_table;
using testing::Strengths;
using testing::TreeStrengths;
// This file's point sets (testing::try_geometry's seed).
constexpr std::uint64_t kSeed = 31;
// The strengths' seed.
constexpr std::uint64_t kStrengthSeed = 5;

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

/// The cpu back end's sums for case c: the reference.
DensitySums cpu_sums(const Geometry& g, const DensityCase& c, const Strengths& s) {
  return testing::run_backend("cpu", g, c, s);
}

using testing::SetCase;
using Case = SetCase;

class FastLayoutTest : public ::testing::TestWithParam<Case> {};

/// One density of charges, potential and field (the classic kernel): the kernel's block shape
/// (128 targets, 1024-source tiles) and a tiny one (4 targets, 16-source tiles: many dense
/// groups, batches and tiles), CT 1/15/200, offsets -2..+3.
TEST_P(FastLayoutTest, SharedEmulationIsEquivalentToReference) {
  const Case& c = GetParam();
  testing::for_each_tree(
      c.shape, c.separate, c.kind, kSeed, {1, 2, 7, 700}, [&](const Geometry& g) {
        const DensityCase dc{1, true, false, true, false};
        const Strengths s = testing::make_strengths(g.tree.n_sources(), dc, kStrengthSeed);
        const DensitySums ref = cpu_sums(g, dc, s);
        for (auto [block, tile] : {std::pair<int, int>{cuda::kSharedBlock, cuda::kSharedTile},
                                   std::pair<int, int>{4, 16}}) {
          SCOPED_TRACE("block " + std::to_string(block) + ", tile " + std::to_string(tile));
          const SharedLayout l = cuda::shared_layout(g.problem, block, tile);
          check_layout(g, l);
          testing::expect_density_equivalent(emulate_shared(g, l, dc, s, tile == l.tile), ref, 1);
        }
      });
}

/// Every kind of source x output for nd = 1 and 3 (3: one 4-wide pass with 3 active
/// densities): the layout built for the problem's tile (shared_layout_tile, smaller than the
/// classic 1024 where a source carries more strengths) and a tiny one, against the cpu back end.
TEST_P(FastLayoutTest, SharedEmulationOfEveryKindIsEquivalentToReference) {
  const Case& c = GetParam();
  testing::for_each_tree(
      c.shape, c.separate, c.kind, kSeed, {1, 15, 200}, {-2, 0, 2}, {500}, [&](const Geometry& g) {
        for (const DensityCase& dc : testing::density_cases({1, 3})) {
          SCOPED_TRACE(testing::describe(dc));
          const Strengths s = testing::make_strengths(g.tree.n_sources(), dc, kStrengthSeed);
          const DensitySums ref = cpu_sums(g, dc, s);
          const NearFieldProblem p = testing::density_problem(g, dc);
          const SharedLayout l =
              cuda::shared_layout(p, cuda::kSharedBlock, cuda::shared_layout_tile(p));
          check_layout(g, l);
          testing::expect_density_equivalent(emulate_shared(g, l, dc, s), ref, dc.nd);
          const SharedLayout tiny = cuda::shared_layout(p, 4, 16);
          testing::expect_density_equivalent(emulate_shared(g, tiny, dc, s, false), ref, dc.nd);
          if (::testing::Test::HasFailure()) return;
        }
      });
}

/// The record arrays of g (the tree's coordinates and near lists, as 'repetition-gpu' uploads
/// them), `tgt_leaf` the target leaves.
cuda::RecordArrays record_geometry(const Geometry& g, const std::vector<std::int32_t>& tgt_leaf) {
  cuda::RecordArrays a;
  a.tx = g.tree.tx();
  a.ty = g.tree.ty();
  a.sx = g.tree.sx.data();
  a.sy = g.tree.sy.data();
  a.tgt_leaf = tgt_leaf.data();
  a.leaf_seg = g.plan.near.range_begin.data();
  a.leaf_n = g.plan.near.sources.data();
  a.seg = g.plan.near.range.data();
  return a;
}

/// Every target's record built element by element as a warp builds it (32 lanes).
std::vector<double> warp_records(const cuda::RecordArrays& a, std::int64_t nt,
                                 std::int64_t stride) {
  std::vector<double> out(std::size_t(nt * stride), -1.0);
  for (std::int64_t i = 0; i < nt; ++i)
    for (int lane = 0; lane < 32; ++lane)
      cuda::fill_record(a, i, lane, 32, out.data() + i * stride);
  return out;
}

/// Records built the GPU way (one density of charges) equal the records the 'repetition' back
/// end collects on the host, bit for bit, and the papers' kernel body over them gives the cpu
/// sums.
TEST_P(FastLayoutTest, GpuRecordsEqualHostRecords) {
  const Case& c = GetParam();
  testing::for_each_tree(
      c.shape, c.separate, c.kind, kSeed, {1, 15, 200}, {-2, 0, 2}, {600}, [&](const Geometry& g) {
        const Tree& tree = g.tree;
        const std::int64_t nt = std::int64_t(tree.n_targets());
        const std::int64_t stride = cuda::repetition_stride(g.problem);
        const DensityCase dc{1, true, false, true, false};
        const Strengths s = testing::make_strengths(tree.n_sources(), dc, kStrengthSeed);
        const TreeStrengths w(g, s, 1);
        const NearField& nf = g.plan.near;
        std::vector<double> host(std::size_t(nt * stride), -1.0);
        cuda::collect_repetition_chunk(g.problem,
                                       cuda::Chunk{0, std::int64_t(nf.leaves()), 0, nt, 0},
                                       w.q.data(), stride, host.data());
        const std::vector<std::int32_t> tgt_leaf = cuda::target_leaves(g.problem);
        const cuda::RecordArrays a = cuda::batch_records(
            record_geometry(g, tgt_leaf), cuda::DensityBatch{}, w.q.data(), nullptr, nullptr, 0);
        ASSERT_EQ(a.channels, 1);
        const std::vector<double> dev = warp_records(a, nt, stride);
        for (std::int64_t i = 0; i < nt; ++i) {
          const auto n = std::int64_t(host[i * stride + 2]);
          EXPECT_EQ(n, nf.sources[tgt_leaf[i]]);
          for (std::int64_t e = 0; e < 3 + 3 * n; ++e)
            ASSERT_EQ(dev[i * stride + e], host[i * stride + e])
                << "target " << i << " element " << e;
        }
        // And the unchanged repetition body over them gives the cpu sums.
        DensitySums tree_order(std::size_t(nt), dc), out(std::size_t(nt), dc);
        for (std::int64_t i = 0; i < nt; ++i)
          cuda::repetition_target<true>(dev.data(), stride, i, outputs_from(&tree_order, 0));
        for (std::int64_t i = 0; i < nt; ++i) {
          const std::int64_t to = tree.tgt_index()[i];
          out.phi[to] = tree_order.phi[i];
          out.ex[to] = tree_order.ex[i];
          out.ey[to] = tree_order.ey[i];
        }
        testing::expect_density_equivalent(out, cpu_sums(g, dc, s), 1);
      });
}

/// One pass of the general record kernel on the host: record_sums over every target's record,
/// the sums scattered to caller order as the back end's scatter does.
template <int kOrder, bool kCharge, bool kDipole, int kNd>
void record_pass(const Geometry& g, const std::vector<double>& records, std::int64_t stride,
                 const cuda::DensityBatch& b, DensitySums* out) {
  const std::int64_t nt = std::int64_t(g.tree.n_targets());
  DensityCase tc{b.count, kCharge, kDipole, out->ex.size() > 0, kOrder >= kHessian};
  DensitySums chunk(std::size_t(nt) * std::size_t(b.count), tc);
  for (std::int64_t i = 0; i < nt; ++i)
    cuda::record_sums<kOrder, kCharge, kDipole, kNd>(
        records.data(), stride, i, b.count, outputs_from(&chunk, 0), nt, staged_half_log_table());
  const cuda::NearFieldOut from = outputs_from(&chunk, 0);
  const cuda::NearFieldOut to = outputs_from(out, std::size_t(b.first) * std::size_t(nt));
  for (int d = 0; d < b.count; ++d) {
    for (std::int64_t i = 0; i < nt; ++i) {
      const std::int64_t k = d * nt + i, at = d * nt + g.tree.tgt_index()[i];
      for (auto [f, t] :
           {std::pair{from.phi, to.phi}, std::pair{from.ex, to.ex}, std::pair{from.ey, to.ey},
            std::pair{from.hxx, to.hxx}, std::pair{from.hxy, to.hxy}})
        if (t) t[at] = f[k];
    }
  }
}

/// The general records, pass by pass: element by element, each source's coordinates and then
/// its strengths density by density (q, mx, my of the kinds carried) as the tree holds them;
/// the general kernel's body over them gives the cpu sums, for every kind x output and nd = 1,
/// 3 and 10 (8 + a 2-wide pass).
TEST_P(FastLayoutTest, GpuRecordsOfEveryKindAreEquivalentToReference) {
  const Case& c = GetParam();
  for (int ct : {1, 15, 200}) {
    SCOPED_TRACE("ct " + std::to_string(ct));
    Geometry g;
    if (!testing::try_geometry(&g, c.shape, 400, c.separate, ct, 0, kSeed, c.kind)) continue;
    const NearField& nf = g.plan.near;
    const std::int64_t nt = std::int64_t(g.tree.n_targets()), ns = std::int64_t(g.tree.n_sources());
    const std::vector<std::int32_t> tgt_leaf = cuda::target_leaves(g.problem);
    for (const DensityCase& dc : testing::density_cases({1, 3, 10})) {
      SCOPED_TRACE(testing::describe(dc));
      const Strengths s = testing::make_strengths(std::size_t(ns), dc, kStrengthSeed);
      const TreeStrengths w(g, s, dc.nd);
      const int per = cuda::channels_per_density(dc.charges, dc.dipoles);
      const int order = dc.hessian ? kHessian : dc.field ? kField : kPotential;
      DensitySums out(std::size_t(dc.nd * nt), dc);
      for (const cuda::DensityBatch& b : cuda::density_batches(dc.nd)) {
        auto ptr = [](const std::vector<double>& v) { return v.empty() ? nullptr : v.data(); };
        const cuda::RecordArrays a = cuda::batch_records(record_geometry(g, tgt_leaf), b, ptr(w.q),
                                                         ptr(w.mx), ptr(w.my), ns);
        ASSERT_EQ(a.channels, b.count * per);
        const std::int64_t stride = cuda::record_stride(g.problem, a.channels);
        const std::vector<double> rec = warp_records(a, nt, stride);
        for (std::int64_t i = 0; i < nt; ++i) {
          const double* r = rec.data() + i * stride;
          const std::int64_t leaf = tgt_leaf[i], n = nf.sources[leaf];
          ASSERT_EQ(r[0], g.tree.tx()[i]);
          ASSERT_EQ(r[2], double(n));
          std::int64_t k = 0;
          for (std::int64_t q = nf.range_begin[leaf]; q < nf.range_begin[leaf + 1]; ++q) {
            for (std::int64_t j = nf.range[2 * q]; j < nf.range[2 * q + 1]; ++j, ++k) {
              const double* e = r + 3 + k * (2 + a.channels);
              ASSERT_EQ(e[0], g.tree.sx[j]) << "target " << i << ", source " << k;
              ASSERT_EQ(e[1], g.tree.sy[j]);
              for (int d = 0; d < b.count; ++d) {
                const std::size_t at = std::size_t((b.first + d) * ns + j);
                const double* v = e + 2 + d * per;
                if (dc.charges) ASSERT_EQ(v[0], w.q[at]) << "density " << b.first + d;
                if (dc.dipoles) ASSERT_EQ(v[per - 2], w.mx[at]) << "density " << b.first + d;
                if (dc.dipoles) ASSERT_EQ(v[per - 1], w.my[at]) << "density " << b.first + d;
              }
            }
          }
          ASSERT_EQ(k, n);
        }
        cuda::dispatch_batch(
            order, dc.charges, dc.dipoles, b.width, [&](auto o, auto q, auto d, auto n) {
              record_pass<decltype(o)::value, decltype(q)::value, decltype(d)::value,
                          decltype(n)::value>(g, rec, stride, b, &out);
            });
      }
      testing::expect_density_equivalent(out, cpu_sums(g, dc, s), dc.nd);
      if (::testing::Test::HasFailure()) return;
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

/// Several densities in wider passes: nd = 2 (one 2-wide pass), 5 (one 8-wide, 5 active), 8,
/// 10 (8 + a 2-wide pass), 19 (8 + 8 + a 4-wide pass with 3 active), every kind at the
/// Hessian with the field, and potentials of charges, on a clustered set.
TEST(FastLayout, SharedEmulationOfWideBatchesIsEquivalentToReference) {
  for (int ct : {15, 200}) {
    Geometry g;
    ASSERT_TRUE(testing::try_geometry(&g, "clusters", 800, false, ct, 0, kSeed));
    for (int nd : {2, 5, 8, 10, 19}) {
      for (const DensityCase dc :
           {DensityCase{nd, true, false, false, false}, DensityCase{nd, true, false, true, true},
            DensityCase{nd, false, true, true, true}, DensityCase{nd, true, true, true, true}}) {
        SCOPED_TRACE("ct " + std::to_string(ct) + ", " + testing::describe(dc));
        const Strengths s = testing::make_strengths(g.tree.n_sources(), dc, kStrengthSeed);
        const NearFieldProblem p = testing::density_problem(g, dc);
        const SharedLayout l =
            cuda::shared_layout(p, cuda::kSharedBlock, cuda::shared_layout_tile(p));
        testing::expect_density_equivalent(emulate_shared(g, l, dc, s), cpu_sums(g, dc, s), nd);
      }
    }
  }
}

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

/// The passes cover every density once, in order, each with a compiled width; whole batches of
/// 8, the rest in one pass (3: one 4-wide pass with 3 active).
TEST(FastLayout, DensityBatchesCoverEveryDensityOnce) {
  for (int nd = 1; nd <= 1024; nd += nd < 40 ? 1 : 97) {
    SCOPED_TRACE("nd " + std::to_string(nd));
    const std::vector<cuda::DensityBatch> batches = cuda::density_batches(nd);
    int next = 0;
    for (const cuda::DensityBatch& b : batches) {
      EXPECT_EQ(b.first, next);
      EXPECT_GE(b.count, 1);
      EXPECT_LE(b.count, b.width);
      EXPECT_TRUE(b.width == 1 || b.width == 2 || b.width == 4 || b.width == 8) << b.width;
      EXPECT_LT(b.width, 2 * b.count) << "a narrower kernel would do";
      next += b.count;
    }
    EXPECT_EQ(next, nd);
    EXPECT_EQ(batches.size(), std::size_t((nd + cuda::kMaxBatch - 1) / cuda::kMaxBatch));
    EXPECT_EQ(cuda::widest_batch(nd), batches.front().width);
  }
  const std::vector<cuda::DensityBatch> three = cuda::density_batches(3);
  ASSERT_EQ(three.size(), 1u);
  EXPECT_EQ(three[0].width, 4);
}

/// Each kernel's tile and the blocks its launch bounds ask fit an SM (228 KiB of shared memory,
/// 1 KiB a block kept; at most 48 KiB of static shared memory a block; 65536 registers, at
/// least 64 a thread); the classic kernel keeps 1024 sources and 8 blocks; a problem's layout
/// tile is the least of its passes'.
TEST(FastLayout, TilesFitTheSharedMemoryOfTheirBlocks) {
  EXPECT_EQ(cuda::shared_tile(kPotential, 1, 1), 1024);
  EXPECT_EQ(cuda::shared_tile(kField, 1, 1), 1024);
  EXPECT_EQ(cuda::shared_blocks_per_sm(kPotential, 1, 1), 8);
  EXPECT_EQ(cuda::shared_blocks_per_sm(kField, 1, 1), 8);
  for (int order : {kPotential, kField, kHessian}) {
    for (int per : {1, 2, 3}) {
      for (int width : {1, 2, 4, 8}) {
        SCOPED_TRACE("order " + std::to_string(order) + ", per " + std::to_string(per) +
                     ", width " + std::to_string(width));
        const int tile = cuda::shared_tile(order, per, width);
        const int blocks = cuda::shared_blocks_per_sm(order, per, width);
        const int bytes = 8 * tile * (2 + width * per);
        EXPECT_GE(tile, 128);  // a multi-leaf group still holds a few leaves' near lists
        EXPECT_EQ(tile % 32, 0);
        EXPECT_LE(bytes, 48 * 1024);
        EXPECT_LE(blocks * (bytes + 1024), 228 * 1024);
        EXPECT_GE(65536 / (cuda::kSharedBlock * blocks), 64);
        if (width > 1) {  // a wider pass: no more blocks, no larger tile (but the classic's)
          EXPECT_LE(blocks, cuda::shared_blocks_per_sm(order, per, width / 2));
          if (width > 2 || per > 1 || order == kHessian)
            EXPECT_LE(tile, cuda::shared_tile(order, per, width / 2));
        }
      }
    }
  }
  Geometry g;
  ASSERT_TRUE(testing::try_geometry(&g, "uniform", 1000, false, 15, 0, kSeed));
  for (const DensityCase& dc : testing::density_cases({1, 3, 10})) {
    SCOPED_TRACE(testing::describe(dc));
    const NearFieldProblem p = testing::density_problem(g, dc);
    const int per = cuda::channels_per_density(dc.charges, dc.dipoles);
    int least = 1 << 30;
    for (const cuda::DensityBatch& b : cuda::density_batches(dc.nd))
      least = std::min(least, cuda::shared_tile(p.order(), per, b.width));
    EXPECT_EQ(cuda::shared_layout_tile(p), least);
  }
}

/// The charge path's buffers: the strengths of the kinds carried, nd x n_sources each, in
/// caller and in tree order, the source permutation, and only the outputs asked, nd x
/// n_targets each; one density of charges as before issue 22.
TEST(FastLayout, ChargePathHoldsWhatTheProblemAsks) {
  for (const DensityCase& dc : testing::density_cases({1, 3, 1024})) {
    SCOPED_TRACE(testing::describe(dc));
    ChargeShape shape;
    shape.n_sources = 1000;
    shape.n_targets = 700;
    shape.densities = dc.nd;
    shape.charges = dc.charges;
    shape.dipoles = dc.dipoles;
    shape.field = dc.field;
    shape.hessian = dc.hessian;
    const cuda::ChargeIoSizes z(shape);
    const std::size_t kinds = (dc.charges ? 1 : 0) + (dc.dipoles ? 2 : 0);
    const std::size_t outputs = 1 + (dc.field ? 2 : 0) + (dc.hessian ? 2 : 0);
    EXPECT_EQ(z.channels(), int(kinds) * dc.nd);
    EXPECT_EQ(z.strength_doubles(), kinds * dc.nd * 1000);
    EXPECT_EQ(z.output_doubles(), std::size_t(dc.nd) * 700);
    for (int k = 0; k < cuda::ChargeIo::kOutputs; ++k)
      EXPECT_EQ(z.wants(k), k == 0 || (k <= 2 ? dc.field : dc.hessian)) << "output " << k;
    EXPECT_EQ(z.device_bytes(),
              4 * 1000 + 2 * 8 * kinds * dc.nd * 1000 + 8 * outputs * std::size_t(dc.nd) * 700);
  }
  Geometry g;
  ASSERT_TRUE(testing::try_geometry(&g, "uniform", 1000, true, 15, 0, kSeed));
  for (bool field : {false, true}) {
    NearFieldProblem p = g.problem;
    p.field = field;
    const std::size_t ns = p.n_sources, nt = p.n_targets;
    EXPECT_EQ(cuda::ChargeIo::bytes(p), 4 * ns + 16 * ns + 8 * nt * (field ? 3 : 1));
    EXPECT_EQ(cuda::resident_what(p), "the geometry kept on the device");
    p.densities = 8;
    EXPECT_EQ(cuda::resident_what(p),
              "the geometry and the strengths and outputs of 8 densities kept on the device");
  }
}

/// The reference itself: the cpu back end's sums of every kind x output equal a plain loop over
/// each target's near sources through pair.hpp's accumulate_pair, density by density.
TEST(FastLayout, ReferenceIsThePlainNearSum) {
  Geometry g;
  ASSERT_TRUE(testing::try_geometry(&g, "clusters", 600, true, 15, 0, kSeed, TreeKind::Adaptive));
  const NearField& nf = g.plan.near;
  const std::size_t ns = g.tree.n_sources(), nt = g.tree.n_targets();
  for (const DensityCase& dc : testing::density_cases({2})) {
    SCOPED_TRACE(testing::describe(dc));
    const Strengths s = testing::make_strengths(ns, dc, kStrengthSeed);
    const TreeStrengths w(g, s, dc.nd);
    DensitySums plain(std::size_t(dc.nd) * nt, dc);
    for (std::size_t b = 0; b < nf.leaves(); ++b) {
      for (std::int64_t i = nf.leaf_tgt[b]; i < nf.leaf_tgt[b + 1]; ++i) {
        for (int d = 0; d < dc.nd; ++d) {
          PairSums a;
          for (std::int64_t r = nf.range_begin[b]; r < nf.range_begin[b + 1]; ++r) {
            for (std::int64_t j = nf.range[2 * r]; j < nf.range[2 * r + 1]; ++j) {
              const std::size_t at = std::size_t(d) * ns + std::size_t(j);
              const double q = dc.charges ? w.q[at] : 0, mx = dc.dipoles ? w.mx[at] : 0,
                           my = dc.dipoles ? w.my[at] : 0;
              const double x = g.tree.tx()[i], y = g.tree.ty()[i];
              const double sx = g.tree.sx[j], sy = g.tree.sy[j];
              // every kind and the Hessian: the unused sums are not compared
              accumulate_pair<kHessian, true, true>(x, y, sx, sy, q, mx, my, &a);
            }
          }
          const std::size_t to = std::size_t(d) * nt + std::size_t(g.tree.tgt_index()[i]);
          plain.phi[to] = a.phi;
          if (dc.field) plain.ex[to] = a.ex, plain.ey[to] = a.ey;
          if (dc.hessian) plain.hxx[to] = a.hxx, plain.hxy[to] = a.hxy;
        }
      }
    }
    testing::expect_density_equivalent(cpu_sums(g, dc, s), plain, dc.nd);
  }
}

}  // namespace
}  // namespace mlfma2d

#else  // MLFMA2D_WITH_CUDA

TEST(FastLayout, NeedCuda) {
  GTEST_SKIP() << "built without CUDA";
}

#endif  // MLFMA2D_WITH_CUDA
