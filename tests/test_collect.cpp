// Host-side tests of the CUDA back ends' data collection (no GPU needed): the collected arrays,
// walked on the host by the very per-thread bodies the kernels run, give the cpu back end's
// sums; the repetition records have the documented stride and padding; the chunk planner
// covers every target exactly once within its budget.
#include <gtest/gtest.h>

#ifdef MLFMA2D_WITH_CUDA

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "mlfma2d/errors.hpp"
#include "mlfma2d/io.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/backend_util.hpp"
#include "nearfield/cuda/indexing/indexing.hpp"
#include "nearfield/cuda/repetition/repetition.hpp"
#include "tests/near_field_geometry.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {
namespace {

using cuda::Chunk;
using cuda::ChunkCost;
using cuda::ChunkPlan;

using testing::Geometry;
// This file's point sets (testing::try_geometry's seed).
constexpr std::uint64_t kSeed = 11;
using testing::rel_diff;
using testing::Sums;

// The cpu back end's sums: the reference.
Sums cpu_reference(const Geometry& g, bool field) {
  return testing::run_backend("cpu", g, field);
}

constexpr std::size_t kNoCap = std::numeric_limits<std::size_t>::max();

/// The indexing back end, with every device step replaced by its host equivalent.
Sums walk_indexing(const Geometry& g, bool field, std::size_t max_targets,
                   std::size_t* n_chunks = nullptr) {
  const Tree& tree = g.tree;
  const ChunkPlan cp = cuda::plan_chunks(g.plan.near, cuda::indexing_chunk_cost(), kNoCap,
                                         max_targets, "back end 'test': ");
  if (n_chunks) *n_chunks = cp.chunks.size();
  const std::size_t nt = tree.n_targets(), ns = tree.n_sources();
  Sums s{std::vector<double>(nt, NAN), std::vector<double>(field ? nt : 0, NAN),
         std::vector<double>(field ? nt : 0, NAN)};
  cuda::IndexingArrays a;
  a.tx = g.problem.caller_tx;
  a.ty = g.problem.caller_ty;
  a.sx = g.problem.caller_sx;
  a.sy = g.problem.caller_sy;
  a.q = g.pts.q.data();
  const cuda::NearFieldOut out{s.phi.data(), field ? s.ex.data() : nullptr,
                               field ? s.ey.data() : nullptr};
  std::int64_t next_target = 0;
  for (const Chunk& c : cp.chunks) {
    // The four arrays carved from one buffer, as the back end does.
    const cuda::IndexingChunkLayout l = cuda::indexing_chunk_layout(c);
    EXPECT_EQ(l.bytes, cuda::indexing_chunk_cost().bytes(c));
    EXPECT_LE(l.bytes, cp.chunk_bytes);
    std::vector<std::int64_t> buffer(l.bytes / 8 + 1);
    char* base = reinterpret_cast<char*>(buffer.data());
    auto* all_targets = reinterpret_cast<std::int32_t*>(base + l.all_targets);
    auto* all_targets_index = reinterpret_cast<std::int64_t*>(base + l.all_targets_index);
    auto* all_neighbors = reinterpret_cast<std::int32_t*>(base + l.all_neighbors);
    auto* all_neighbors_index = reinterpret_cast<std::int64_t*>(base + l.all_neighbors_index);
    cuda::collect_indexing_chunk(g.problem, c, all_targets, all_targets_index, all_neighbors,
                                 all_neighbors_index);
    // Array 4 is tree.tgt_index() box by box; 5 and 7 start at 0 and end at the array lengths.
    for (std::int64_t i = 0; i < c.targets(); ++i) {
      EXPECT_EQ(all_targets[i], tree.tgt_index()[next_target++]);
    }
    EXPECT_EQ(all_targets_index[0], 0);
    EXPECT_EQ(all_targets_index[c.leaves()], c.targets());
    EXPECT_EQ(all_neighbors_index[0], 0);
    EXPECT_EQ(all_neighbors_index[c.leaves()], c.neighbors);
    for (std::int64_t j = 0; j < c.neighbors; ++j) {
      const std::int32_t si = all_neighbors[j];
      EXPECT_TRUE(si >= 0 && std::size_t(si) < ns);
      if (!(si >= 0 && std::size_t(si) < ns)) return s;
    }
    a.all_targets = all_targets;
    a.all_targets_index = all_targets_index;
    a.all_neighbors = all_neighbors;
    a.all_neighbors_index = all_neighbors_index;
    a.boxes = c.leaves();
    for (std::int64_t box = 0; box < a.boxes; ++box) {  // one "thread" per box
      if (field) {
        cuda::indexing_box<true>(a, box, out);
      } else {
        cuda::indexing_box<false>(a, box, out);
      }
    }
  }
  EXPECT_EQ(next_target, std::int64_t(nt));
  return s;
}

/// The repetition back end with every device step replaced by its host equivalent; checks the
/// records on the way.
Sums walk_repetition(const Geometry& g, bool field, std::size_t max_targets,
                     std::size_t* n_chunks = nullptr) {
  const Tree& tree = g.tree;
  const NearField& nf = g.plan.near;
  const std::int64_t stride = cuda::repetition_stride(g.problem);
  EXPECT_EQ(stride, 3 + 3 * std::max(9 * std::int64_t(tree.t), nf.max_sources()));
  const auto near = g.plan.near.sources;
  ChunkCost cost;
  cost.per_target = 8 * std::size_t(stride) + 8 * (field ? 3 : 1);
  const ChunkPlan cp =
      cuda::plan_chunks(g.plan.near, cost, kNoCap, max_targets, "back end 'test': ");
  if (n_chunks) *n_chunks = cp.chunks.size();
  const std::size_t nt = tree.n_targets();
  std::vector<double> q_tree(tree.n_sources());
  cuda::gather_tree_order(g.problem, g.pts.q.data(), q_tree.data());
  Sums s{std::vector<double>(nt, NAN), std::vector<double>(field ? nt : 0, NAN),
         std::vector<double>(field ? nt : 0, NAN)};
  constexpr double kSentinel = -7.25;  // padding must keep it: collection writes 3 + 3n only
  for (const Chunk& c : cp.chunks) {
    std::vector<double> records(std::size_t(c.targets() * stride), kSentinel);
    cuda::collect_repetition_chunk(g.problem, c, q_tree.data(), stride, records.data());
    for (std::int64_t b = c.leaf_begin; b < c.leaf_end; ++b) {
      for (std::int64_t i = nf.leaf_tgt[b]; i < nf.leaf_tgt[b + 1]; ++i) {
        const double* r = records.data() + (i - c.tgt_begin) * stride;
        EXPECT_EQ(r[0], tree.tx()[i]);
        EXPECT_EQ(r[1], tree.ty()[i]);
        const auto n = std::int64_t(r[2]);
        EXPECT_EQ(n, near[b]);  // every source of the leaf's E1
        EXPECT_LE(3 + 3 * n, stride);
        for (std::int64_t k = 3 + 3 * n; k < stride; ++k) {
          if (r[k] != kSentinel) {
            ADD_FAILURE() << "record of tree target " << i << " written at padding offset " << k;
            break;
          }
        }
      }
    }
    std::vector<double> phi(c.targets()), ex(c.targets()), ey(c.targets());
    const cuda::NearFieldOut out{phi.data(), ex.data(), ey.data()};
    for (std::int64_t i = 0; i < c.targets(); ++i) {  // one "thread" per target
      if (field) {
        cuda::repetition_target<true>(records.data(), stride, i, out);
      } else {
        cuda::repetition_target<false>(records.data(), stride, i, out);
      }
    }
    cuda::scatter_to_caller(g.problem, c, phi.data(), s.phi.data());
    if (field) {
      cuda::scatter_to_caller(g.problem, c, ex.data(), s.ex.data());
      cuda::scatter_to_caller(g.problem, c, ey.data(), s.ey.data());
    }
  }
  return s;
}

using testing::SetCase;
using Case = SetCase;

class CollectTest : public ::testing::TestWithParam<Case> {};

/// Every CT and level offset of the brief, potential and field.
TEST_P(CollectTest, HostWalkIsEquivalentToReference) {
  const Case& param = GetParam();
  testing::for_each_tree(param.shape, param.separate, param.kind, kSeed, {1, 7, 1000},
                         [&](const Geometry& g) {
                           for (bool field : {false, true}) {
                             SCOPED_TRACE(field ? "field" : "potential");
                             const Sums ref = cpu_reference(g, field);
                             const Sums ind = walk_indexing(g, field, kNoCap);
                             const Sums rep = walk_repetition(g, field, kNoCap);
                             EXPECT_LE(rel_diff(ind.phi, ref.phi), 1e-12);
                             EXPECT_LE(rel_diff(rep.phi, ref.phi), 1e-12);
                             if (!field) continue;
                             EXPECT_LE(rel_diff(ind.ex, ref.ex), 1e-12);
                             EXPECT_LE(rel_diff(ind.ey, ref.ey), 1e-12);
                             EXPECT_LE(rel_diff(rep.ex, ref.ex), 1e-12);
                             EXPECT_LE(rel_diff(rep.ey, ref.ey), 1e-12);
                           }
                         });
}

/// Forced chunk sizes change neither sum: each target is summed by the same code in the same
/// order whatever chunk it falls in.
TEST_P(CollectTest, ChunkedHostWalkIsEquivalentToReference) {
  const Case& param = GetParam();
  Geometry g;
  ASSERT_TRUE(
      testing::try_geometry(&g, param.shape, 3000, param.separate, 15, 1, kSeed, param.kind));
  const Sums one_ind = walk_indexing(g, true, kNoCap);
  const Sums one_rep = walk_repetition(g, true, kNoCap);
  const Sums ref = cpu_reference(g, true);
  EXPECT_LE(rel_diff(one_ind.phi, ref.phi), 1e-12);
  EXPECT_LE(rel_diff(one_rep.phi, ref.phi), 1e-12);
  for (std::size_t cap : {std::size_t(1), std::size_t(5), std::size_t(64), std::size_t(999)}) {
    SCOPED_TRACE("chunk_targets " + std::to_string(cap));
    std::size_t chunks_ind = 0, chunks_rep = 0;
    const Sums ind = walk_indexing(g, true, cap, &chunks_ind);
    const Sums rep = walk_repetition(g, true, cap, &chunks_rep);
    EXPECT_GT(chunks_ind, 1u);
    EXPECT_EQ(chunks_ind, chunks_rep);
    EXPECT_EQ(ind.phi, one_ind.phi);
    EXPECT_EQ(ind.ex, one_ind.ex);
    EXPECT_EQ(ind.ey, one_ind.ey);
    EXPECT_EQ(rep.phi, one_rep.phi);
    EXPECT_EQ(rep.ex, one_rep.ex);
    EXPECT_EQ(rep.ey, one_rep.ey);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, CollectTest, ::testing::ValuesIn(testing::near_field_sets()),
                         testing::set_case_test_name);

/// The planner's chunks are consecutive runs of whole leaves that tile all leaves and targets,
/// respect the target cap (unless one leaf alone exceeds it) and the byte budget.
void check_cover(const Tree& tree, const NearField& nf, const ChunkPlan& cp, const ChunkCost& cost,
                 std::size_t budget, std::size_t cap) {
  const std::vector<std::int64_t>& near = nf.sources;
  std::int64_t leaf = 0, target = 0;
  std::vector<int> seen(tree.n_targets(), 0);
  std::int64_t mt = 0;
  std::size_t own = 0;
  for (const Chunk& c : cp.chunks) {
    EXPECT_EQ(c.leaf_begin, leaf);
    EXPECT_GT(c.leaf_end, c.leaf_begin);
    EXPECT_EQ(c.tgt_begin, target);
    EXPECT_EQ(c.tgt_begin, nf.leaf_tgt[c.leaf_begin]);
    EXPECT_EQ(c.tgt_end, nf.leaf_tgt[c.leaf_end]);
    std::int64_t nb = 0;
    for (std::int64_t b = c.leaf_begin; b < c.leaf_end; ++b) nb += near[b];
    EXPECT_EQ(c.neighbors, nb);
    if (c.leaves() > 1) EXPECT_LE(std::size_t(c.targets()), cap);
    for (std::int64_t i = c.tgt_begin; i < c.tgt_end; ++i) ++seen[i];
    EXPECT_LE(cost.bytes(c), budget);
    mt = std::max(mt, c.targets());
    own = std::max(own, cost.bytes(c) - cost.fixed);
    leaf = c.leaf_end;
    target = c.tgt_end;
  }
  EXPECT_EQ(leaf, std::int64_t(nf.leaves()));
  EXPECT_EQ(target, std::int64_t(tree.n_targets()));
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int k) { return k == 1; }))
      << "a target is in no chunk or in two";
  EXPECT_EQ(cp.max_targets, mt);
  EXPECT_EQ(cp.chunk_bytes, own);
  EXPECT_EQ(cp.bytes, cost.fixed + own);
  EXPECT_LE(cp.bytes, budget);
}

TEST(ChunkPlanner, CoversEveryTargetOnce) {
  for (const Case& param : {Case{"clusters", false}, Case{"circle", true}}) {
    for (int ct : {1, 15}) {
      SCOPED_TRACE(param.shape + ", ct " + std::to_string(ct));
      Geometry g;
      testing::try_geometry(&g, param.shape, 5000, param.separate, ct, 0, kSeed);
      const NearField& nf = g.plan.near;
      const auto& near = nf.sources;
      ChunkCost cost = cuda::indexing_chunk_cost();
      cost.fixed = 1000;
      // By target cap, unlimited bytes.
      for (std::size_t cap :
           {std::size_t(1), std::size_t(3), std::size_t(50), std::size_t(1000), kNoCap}) {
        SCOPED_TRACE("cap " + std::to_string(cap));
        const ChunkPlan cp = cuda::plan_chunks(g.plan.near, cost, kNoCap, cap, "back end 'test': ");
        check_cover(g.tree, g.plan.near, cp, cost, kNoCap, cap);
        if (cap == kNoCap) EXPECT_EQ(cp.chunks.size(), 1u);
      }
      // By byte budget: multiples of the largest single leaf's cost.
      std::size_t one_leaf = 0;  // the largest single-leaf chunk
      for (std::size_t b = 0; b < nf.leaves(); ++b) {
        const Chunk c{std::int64_t(b), std::int64_t(b) + 1, nf.leaf_tgt[b], nf.leaf_tgt[b + 1],
                      near[b]};
        one_leaf = std::max(one_leaf, cost.bytes(c));
      }
      for (std::size_t factor : {1, 2, 7, 40}) {
        SCOPED_TRACE("budget " + std::to_string(factor) + " leaves");
        const std::size_t budget = cost.fixed + factor * (one_leaf - cost.fixed);
        const ChunkPlan cp =
            cuda::plan_chunks(g.plan.near, cost, budget, kNoCap, "back end 'test': ");
        check_cover(g.tree, g.plan.near, cp, cost, budget, kNoCap);
        EXPECT_GT(cp.chunks.size(), 1u);
      }
    }
  }
}

TEST(ChunkPlanner, OnePointIsOneChunk) {
  Geometry g;
  testing::try_geometry(&g, "uniform", 1, false, 1, 0, kSeed);
  const ChunkPlan cp =
      cuda::plan_chunks(g.plan.near, cuda::indexing_chunk_cost(), kNoCap, 1, "back end 'test': ");
  check_cover(g.tree, g.plan.near, cp, cuda::indexing_chunk_cost(), kNoCap, 1);
  EXPECT_EQ(cp.chunks.size(), 1u);
}

TEST(ChunkPlanner, TooSmallBudgetThrowsWithClearMessage) {
  Geometry g;
  testing::try_geometry(&g, "uniform", 2000, false, 15, 0, kSeed);
  ChunkCost cost;
  cost.per_target = 8 * std::size_t(cuda::repetition_stride(g.problem)) + 8;
  try {
    cuda::plan_chunks(g.plan.near, cost, 1000, kNoCap, "back end 'repetition': ");
    FAIL() << "no exception for a 1000-byte budget";
  } catch (const RuntimeFailure& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("back end 'repetition': one chunk of "), std::string::npos) << m;
    EXPECT_NE(m.find(" targets needs "), std::string::npos) << m;
    EXPECT_NE(m.find("MB of device memory but only 0.0 MB are available"), std::string::npos) << m;
  }
  cost.fixed = 5u << 20;
  try {
    cuda::plan_chunks(g.plan.near, cost, 1u << 20, kNoCap, "back end 'indexing': ");
    FAIL() << "no exception for resident arrays over budget";
  } catch (const RuntimeFailure& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("back end 'indexing': the arrays kept on the device for the whole "
                     "evaluation need 5.0 MB of device memory but only 1.0 MB are available"),
              std::string::npos)
        << m;
  }
}

TEST(RepetitionRecords, StrideIsThreePlus27T) {
  for (int offset : {-2, 0, 3}) {
    Geometry g;
    ASSERT_TRUE(testing::try_geometry(&g, "clusters", 2000, false, 15, offset, kSeed));
    EXPECT_EQ(cuda::repetition_stride(g.problem), 3 + 27 * std::int64_t(g.tree.t));
    const auto& near = g.plan.near.sources;
    const std::int64_t most = *std::max_element(near.begin(), near.end());
    EXPECT_LE(3 + 3 * most, cuda::repetition_stride(g.problem)) << "a record would overflow";
  }
}

/// On an adaptive tree a near list can hold more than 9t sources (finer neighbours, W boxes and
/// X leaves done as P2P): the stride then follows the longest list.
TEST(RepetitionRecords, StrideFitsTheLongestAdaptiveNearList) {
  bool longer = false;
  for (const std::string shape : {"graded-polygon", "clusters"}) {
    Geometry g;
    ASSERT_TRUE(testing::try_geometry(&g, shape, 3000, false, 2, 0, kSeed, TreeKind::Adaptive));
    const std::int64_t most = g.plan.near.max_sources();
    const std::int64_t stride = cuda::repetition_stride(g.problem);
    EXPECT_EQ(stride, 3 + 3 * std::max(9 * std::int64_t(g.tree.t), most));
    longer = longer || most > 9 * std::int64_t(g.tree.t);
  }
  EXPECT_TRUE(longer) << "a list longer than 9t was met";
}

}  // namespace
}  // namespace mlfma2d

#else  // MLFMA2D_WITH_CUDA

TEST(Collect, NeedsCuda) {
  GTEST_SKIP() << "built without CUDA";
}

#endif  // MLFMA2D_WITH_CUDA
