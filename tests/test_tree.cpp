// Tree and interaction-plan invariants (DESIGN.md section 2).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "solver/plan.hpp"
#include "solver/tree.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

Tree tree_of(const PointSet& p, int ct, int offset = 0, std::string* warning = nullptr) {
  return build_tree(p.x, p.y, p.tx, p.ty, ct, offset, warning, 2);
}

TEST(Morton, EncodeDecodeRoundTrip) {
  for (std::uint32_t ix : {0u, 1u, 2u, 77u, 1000u, (1u << 29) - 1})
    for (std::uint32_t iy : {0u, 3u, 12345u, (1u << 29) - 1}) {
      const BoxCoord c = morton_decode(morton_encode(ix, iy));
      EXPECT_EQ(c.ix, ix);
      EXPECT_EQ(c.iy, iy);
    }
  EXPECT_EQ(morton_encode(1, 0), 1u);
  EXPECT_EQ(morton_encode(0, 1), 2u);
  EXPECT_EQ(morton_encode(1, 1), 3u);
}

// Every point lies in exactly one leaf, inside that leaf's square, and the ranges partition the
// tree-ordered arrays; parents and children agree; keys are strictly increasing.
void expect_valid(const Tree& tree) {
  const Level& leaf = tree.leaves();
  std::int64_t s_next = 0, t_next = 0;
  const double s = tree.box_size(tree.levels);
  for (std::size_t b = 0; b < leaf.size(); ++b) {
    if (b > 0) ASSERT_LT(leaf.key[b - 1], leaf.key[b]);
    ASSERT_EQ(leaf.src_begin[b], s_next);
    ASSERT_EQ(leaf.tgt_begin[b], t_next);
    ASSERT_TRUE(leaf.has_sources(b) || leaf.has_targets(b)) << "empty box stored";
    s_next = leaf.src_end[b];
    t_next = leaf.tgt_end[b];
    const BoxCoord c = morton_decode(leaf.key[b]);
    const double x0 = tree.x0 + c.ix * s, y0 = tree.y0 + c.iy * s;
    for (std::int64_t j = leaf.src_begin[b]; j < leaf.src_end[b]; ++j) {
      EXPECT_GE(tree.sx[j], x0 - 1e-12 * tree.size);
      EXPECT_LE(tree.sx[j], x0 + s + 1e-12 * tree.size);
      EXPECT_GE(tree.sy[j], y0 - 1e-12 * tree.size);
      EXPECT_LE(tree.sy[j], y0 + s + 1e-12 * tree.size);
    }
  }
  EXPECT_EQ(std::size_t(s_next), tree.n_sources());
  EXPECT_EQ(std::size_t(t_next), tree.n_targets());
  // The permutation is a permutation.
  std::vector<int> seen(tree.n_sources(), 0);
  for (auto i : tree.src_index) ++seen[i];
  for (int v : seen) ASSERT_EQ(v, 1);
  for (int l = 2; l <= tree.levels; ++l) {
    const Level& lv = tree.level[l];
    const Level& up = tree.level[l - 1];
    for (std::size_t b = 0; b < lv.size(); ++b) {
      const std::int32_t p = lv.parent[b];
      ASSERT_GE(p, 0);
      EXPECT_EQ(up.key[p], lv.key[b] >> 2);
      EXPECT_GE(std::int32_t(b), up.child_begin[p]);
      EXPECT_LT(std::int32_t(b), up.child_begin[p + 1]);
    }
  }
  EXPECT_EQ(tree.level[1].size(), 1u);
}

TEST(Tree, EveryPointInExactlyOneLeafOnAllShapes) {
  for (const std::string shape : point_set_shapes()) {
    SCOPED_TRACE(shape);
    const PointSet p = testing::make_points(shape, 5000);
    for (int ct : {1, 15, 200}) expect_valid(tree_of(p, ct));
  }
}

TEST(Tree, LeafCountsAtMostCTAndTAndDReported) {
  const PointSet p = testing::make_points("uniform", 20000);
  for (int ct : {1, 4, 15, 64, 200}) {
    const Tree tree = tree_of(p, ct);
    std::size_t most = 0;
    const Level& leaf = tree.leaves();
    for (std::size_t b = 0; b < leaf.size(); ++b)
      most = std::max<std::size_t>(most, leaf.src_end[b] - leaf.src_begin[b]);
    EXPECT_LE(most, std::size_t(ct));
    EXPECT_EQ(tree.t, most);
    EXPECT_GE(tree.levels, 3);
    EXPECT_DOUBLE_EQ(tree.mean_per_box, 20000.0 / std::pow(4.0, tree.levels - 1));
    // L is the smallest height >= 3 that meets CT.
    if (tree.levels > 3) {
      const Tree shallower = tree_of(p, ct, -1);
      EXPECT_GT(shallower.t, std::size_t(ct));
    }
  }
}

TEST(Tree, LevelOffsetPlusOneGivesFourTimesTheLeaves) {
  const PointSet p = testing::make_points("uniform", 50000);
  const Tree t0 = tree_of(p, 200), t1 = tree_of(p, 200, +1), tm = tree_of(p, 200, -1);
  ASSERT_EQ(t0.leaves().size(), std::size_t(1) << (2 * (t0.levels - 1))) << "all boxes filled";
  EXPECT_EQ(t1.levels, t0.levels + 1);
  EXPECT_EQ(t1.leaves().size(), 4 * t0.leaves().size());
  EXPECT_EQ(tm.leaves().size() * 4, t0.leaves().size());
  EXPECT_NEAR(t1.mean_per_box * 4, t0.mean_per_box, 1e-12);
  expect_valid(t1);
}

TEST(Tree, SeparateTargetsGetTheirOwnRanges) {
  PointSet p = testing::make_points("disk", 3000);
  const PointSet t = testing::make_points("uniform", 2000, 99);
  p.tx = t.x;
  p.ty = t.y;
  for (auto& v : p.tx) v = 2 * v - 0.5;  // partly outside the sources' box
  const Tree tree = tree_of(p, 15);
  EXPECT_FALSE(tree.self);
  EXPECT_EQ(tree.n_targets(), 2000u);
  expect_valid(tree);
}

TEST(Tree, CoincidentPointsCapTheHeightWithAWarning) {
  PointSet p;
  p.x.assign(50, 0.25);
  p.y.assign(50, 0.75);
  p.x.push_back(0.9);
  p.y.push_back(0.1);
  std::string warning;
  const Tree tree = tree_of(p, 10, 0, &warning);
  EXPECT_TRUE(tree.capped);
  EXPECT_EQ(tree.levels, kMaxLevels);
  EXPECT_NE(warning.find("capped"), std::string::npos) << warning;
  expect_valid(tree);
}

TEST(Tree, BadArgumentsThrowInvalidInput) {
  const PointSet p = testing::make_points("uniform", 100);
  EXPECT_THROW(tree_of(p, 0), InvalidInput);
  EXPECT_THROW(tree_of(p, 15, -3), InvalidInput);  // L = 3 - 3 = 0: above the root
  EXPECT_THROW(tree_of(p, 15, 40), InvalidInput);
  PointSet bad = p;
  bad.x[7] = std::nan("");
  try {
    tree_of(bad, 15);
    FAIL() << "no throw";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("source 7"), std::string::npos) << e.what();
  }
}

TEST(Plan, M2LOffsetsAreTheFortyOfTheInteractionList) {
  std::set<int> seen;
  for (int dy = -3; dy <= 3; ++dy)
    for (int dx = -3; dx <= 3; ++dx) {
      const int o = m2l_offset_index(dx, dy);
      if (std::abs(dx) <= 1 && std::abs(dy) <= 1) {
        EXPECT_EQ(o, -1);
      } else {
        ASSERT_GE(o, 0);
        EXPECT_EQ(m2l_offset(o)[0], dx);
        EXPECT_EQ(m2l_offset(o)[1], dy);
        seen.insert(o);
      }
    }
  EXPECT_EQ(seen.size(), std::size_t(kM2LOffsets));
}

// Each (target leaf, source leaf) pair is covered exactly once: by the near list of the target
// leaf, or by one M2L pair between ancestors at some level >= 3.
void expect_exact_cover(const Tree& tree, const Plan& plan) {
  const Level& leaf = tree.leaves();
  const int L = tree.levels;
  std::map<std::pair<std::int64_t, std::int64_t>, int> m2l;  // (level*2^32+tgt, src) -> count
  for (int l = 3; l <= L; ++l) {
    const M2LLevel& ml = plan.m2l[l];
    for (std::size_t i = 0; i < ml.tgt.size(); ++i)
      ++m2l[{(std::int64_t(l) << 32) + ml.tgt[i], ml.src[i]}];
  }
  for (auto& kv : m2l) ASSERT_EQ(kv.second, 1) << "duplicate M2L pair";
  auto ancestor = [&](int l, std::int32_t b) {
    for (int k = L; k > l; --k) b = tree.level[k].parent[b];
    return b;
  };
  std::uint64_t near_pairs = 0;
  for (std::size_t b = 0; b < leaf.size(); ++b) {
    if (!leaf.has_targets(b)) continue;
    std::set<std::int32_t> near(plan.near_box.begin() + plan.near_begin[b],
                                plan.near_box.begin() + plan.near_begin[b + 1]);
    for (std::size_t s = 0; s < leaf.size(); ++s) {
      if (!leaf.has_sources(s)) continue;
      int covered = near.count(std::int32_t(s)) ? 1 : 0;
      if (covered) near_pairs += std::uint64_t(leaf.src_end[s] - leaf.src_begin[s]) *
                                 std::uint64_t(leaf.tgt_end[b] - leaf.tgt_begin[b]);
      for (int l = 3; l <= L; ++l)
        covered += m2l.count({(std::int64_t(l) << 32) + ancestor(l, std::int32_t(b)),
                              ancestor(l, std::int32_t(s))});
      ASSERT_EQ(covered, 1) << "leaf pair (" << b << ", " << s << ")";
    }
  }
  EXPECT_EQ(near_pairs, plan.near_pairs);
}

TEST(Plan, NearAndFarCoverEveryPairExactlyOnce) {
  for (const std::string shape : {"uniform", "circle", "clusters"}) {
    SCOPED_TRACE(shape);
    const PointSet p = testing::make_points(shape, 600);
    for (int offset : {-1, 0, 1}) {
      const Tree tree = tree_of(p, 4, offset);
      expect_exact_cover(tree, build_plan(tree, 2));
    }
  }
  PointSet p = testing::make_points("uniform", 400);
  const PointSet t = testing::make_points("circle", 300, 5);
  p.tx = t.x;
  p.ty = t.y;
  const Tree tree = tree_of(p, 3);
  expect_exact_cover(tree, build_plan(tree, 2));
}

TEST(Plan, InteractionListsHaveAtMost27BoxesAndNearListsAtMost9) {
  const PointSet p = testing::make_points("uniform", 20000);
  const Tree tree = tree_of(p, 15);
  const Plan plan = build_plan(tree, 2);
  for (std::size_t b = 0; b + 1 < plan.near_begin.size(); ++b)
    EXPECT_LE(plan.near_begin[b + 1] - plan.near_begin[b], 9);
  for (int l = 3; l <= tree.levels; ++l) {
    std::map<std::int32_t, int> per_box;
    for (auto b : plan.m2l[l].tgt) ++per_box[b];
    for (auto& kv : per_box) EXPECT_LE(kv.second, 27);
    if (l == tree.levels) {
      int most = 0;
      for (auto& kv : per_box) most = std::max(most, kv.second);
      EXPECT_EQ(most, 27) << "an interior box of a full level has 27";
    }
  }
}

}  // namespace
}  // namespace mlfma2d
