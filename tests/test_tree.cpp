// Tree and interaction-plan invariants (docs/math.md sections 2 and 4): both trees hold every point
// in exactly one leaf, the uniform tree is the papers', the adaptive tree follows the points, and
// the lists U, V, W, X cover every (target, source) pair exactly once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "runtime/parallel_sort.hpp"
#include "runtime/permutation.hpp"
#include "runtime/threads.hpp"
#include "solver/points.hpp"
#include "tests/test_util.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {
namespace {

Tree tree_of(const PointSet& p, int ct, int offset = 0, std::string* warning = nullptr,
             TreeKind kind = TreeKind::Uniform) {
  return build_tree(p.x, p.y, p.tx, p.ty, ct, offset, warning, 2, kind);
}
Tree adaptive_of(const PointSet& p, int ct, int offset = 0, std::string* warning = nullptr) {
  return tree_of(p, ct, offset, warning, TreeKind::Adaptive);
}

TEST(BlockedPermutation, ScattersAndGathersAsElementByElement) {
  // Sizes around the block and chunk limits (blocks of 2^8..2^16 places, chunks of >= 2^14),
  // one to three threads: out[to[k]] = in[k], out[to[k]] += in[k], out[to[k]] = base[to[k]] +
  // in[k] and out[k] = in[to[k]].
  std::mt19937_64 rng(11);
  for (const std::size_t n : {0, 1, 2, 255, 257, 16385, 70000, 1 << 20}) {
    std::vector<std::int64_t> to(n);
    std::iota(to.begin(), to.end(), 0);
    std::shuffle(to.begin(), to.end(), rng);
    std::vector<double> in(n), base(n);
    for (std::size_t k = 0; k < n; ++k) in[k] = double(k) + 0.25, base[k] = -double(k);
    std::vector<double> scattered(n), added = base, gathered(n);
    for (std::size_t k = 0; k < n; ++k) {
      scattered[std::size_t(to[k])] = in[k];
      added[std::size_t(to[k])] += in[k];
      gathered[k] = in[std::size_t(to[k])];
    }
    for (const int threads : {1, 3}) {
      const BlockedPermutation p(to.data(), n, threads);
      EXPECT_EQ(p.size(), n);
      std::vector<double> out(n, 7.0), sum = base, apart(n, 7.0), back(n, 7.0);
      p.scatter(in.data(), out.data(), nullptr, threads);
      p.scatter(in.data(), sum.data(), sum.data(), threads);
      p.scatter(in.data(), apart.data(), base.data(), threads);
      p.gather(in.data(), back.data(), threads);
      EXPECT_EQ(out, scattered) << "n " << n << ", threads " << threads;
      EXPECT_EQ(sum, added) << "n " << n << ", threads " << threads;
      EXPECT_EQ(apart, added) << "n " << n << ", threads " << threads;
      EXPECT_EQ(back, gathered) << "n " << n << ", threads " << threads;
    }
  }
}

TEST(ParallelSort, IsAStableSortCarryingIndexAndCoordinates) {
  // Keys with many repeats (stability shows) and spans from a few bits to 58, sizes around the
  // insertion-sort and single-bucket limits, every thread count: the same as std::stable_sort.
  std::mt19937_64 rng(5);
  for (const std::size_t n : {0, 1, 2, 31, 33, 700, 5000, 200000}) {
    for (const int bits : {0, 3, 20, 58}) {
      Array<std::uint64_t> keys;
      std::vector<double> x, y;
      for (std::size_t i = 0; i < n; ++i) {
        keys.push_back(bits == 0 ? 7 : rng() >> (64 - bits));
        x.push_back(double(keys.back()) + 0.5);
        y.push_back(-double(i));
      }
      std::vector<std::size_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
      for (const int threads : {1, 2, 3}) {
        SCOPED_TRACE("n " + std::to_string(n) + ", bits " + std::to_string(bits) + ", threads " +
                     std::to_string(threads));
        const KeyedPoints p = sort_points(keys, x.data(), y.data(), threads);
        ASSERT_EQ(p.key.size(), n);
        ASSERT_EQ(p.index.size(), n);
        for (std::size_t i = 0; i < n; ++i) {
          const std::size_t j = order[i];
          ASSERT_EQ(p.key[i], keys[j]) << i;
          ASSERT_EQ(p.index[i], std::int64_t(j)) << i;
          ASSERT_EQ(p.x[i], x[j]) << i;
          ASSERT_EQ(p.y[i], y[j]) << i;
        }
      }
    }
  }
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

// Every point lies in exactly one leaf, inside that leaf's square, and the leaves' ranges, in
// Morton order, partition the tree-ordered arrays; parents and children agree; keys are strictly
// increasing; no empty box is stored.
void expect_valid(const Tree& tree) {
  std::int64_t s_next = 0, t_next = 0;
  std::uint64_t last_key = 0;
  for (std::size_t i = 0; i < tree.leaves.size(); ++i) {
    const BoxRef r = tree.leaves[i];
    const Level& lv = tree.at(r);
    const std::size_t b = std::size_t(r.box);
    ASSERT_TRUE(lv.is_leaf(b));
    if (tree.kind == TreeKind::Uniform) ASSERT_EQ(r.level, tree.levels);
    const std::uint64_t deep = lv.key[b] << (2 * (kMaxLevels - r.level));
    if (i > 0) ASSERT_LT(last_key, deep) << "leaves in Morton order";
    last_key = deep;
    ASSERT_EQ(lv.src_begin[b], s_next);
    ASSERT_EQ(lv.tgt_begin[b], t_next);
    ASSERT_TRUE(lv.has_sources(b) || lv.has_targets(b)) << "empty box stored";
    s_next = lv.src_end[b];
    t_next = lv.tgt_end[b];
    const double s = tree.box_size(r.level);
    const BoxCoord c = morton_decode(lv.key[b]);
    const double x0 = tree.x0 + c.ix * s, y0 = tree.y0 + c.iy * s;
    const double slack = 1e-12 * tree.size;
    for (std::int64_t j = lv.src_begin[b]; j < lv.src_end[b]; ++j) {
      const bool inside = tree.sx[j] >= x0 - slack && tree.sx[j] <= x0 + s + slack &&
                          tree.sy[j] >= y0 - slack && tree.sy[j] <= y0 + s + slack;
      ASSERT_TRUE(inside) << "source " << j << " outside its leaf";
    }
  }
  EXPECT_EQ(std::size_t(s_next), tree.n_sources());
  EXPECT_EQ(std::size_t(t_next), tree.n_targets());
  // The permutation is a permutation.
  std::vector<int> seen(tree.n_sources(), 0);
  for (auto i : tree.src_index) ++seen[i];
  for (int v : seen) ASSERT_EQ(v, 1);
  std::size_t leaves = 0;
  for (int l = 1; l <= tree.levels; ++l) {
    const Level& lv = tree.level[l];
    ASSERT_EQ(lv.child_begin.size(), lv.size() + 1);
    for (std::size_t b = 0; b < lv.size(); ++b) {
      if (b > 0) ASSERT_LT(lv.key[b - 1], lv.key[b]);
      leaves += lv.is_leaf(b) ? 1 : 0;
      if (l == 1) continue;
      const Level& up = tree.level[l - 1];
      const std::int32_t p = lv.parent[b];
      ASSERT_GE(p, 0);
      EXPECT_EQ(up.key[p], lv.key[b] >> 2);
      EXPECT_GE(std::int32_t(b), up.child_begin[p]);
      EXPECT_LT(std::int32_t(b), up.child_begin[p + 1]);
    }
  }
  EXPECT_EQ(leaves, tree.leaves.size());
  EXPECT_EQ(tree.level[1].size(), 1u);
}

TEST(Tree, EveryPointInExactlyOneLeafOnAllShapes) {
  for (const std::string shape : point_set_shapes()) {
    SCOPED_TRACE(shape);
    const PointSet p = testing::make_points(shape, 5000);
    for (int ct : {1, 15, 200}) {
      expect_valid(tree_of(p, ct));
      expect_valid(adaptive_of(p, ct));
    }
  }
}

TEST(Tree, LeafCountsAtMostCTAndTAndDReported) {
  const PointSet p = testing::make_points("uniform", 20000);
  for (int ct : {1, 4, 15, 64, 200}) {
    for (TreeKind kind : {TreeKind::Uniform, TreeKind::Adaptive}) {
      SCOPED_TRACE(std::string(tree_kind_name(kind)) + ", ct " + std::to_string(ct));
      const Tree tree = tree_of(p, ct, 0, nullptr, kind);
      std::size_t most = 0;
      for (const BoxRef& r : tree.leaves)
        most = std::max<std::size_t>(most, std::size_t(tree.at(r).sources(r.box)));
      EXPECT_LE(most, std::size_t(ct));
      EXPECT_EQ(tree.t, most);
      EXPECT_DOUBLE_EQ(tree.mean_per_box, 20000.0 / std::pow(4.0, tree.levels - 1));
      if (kind == TreeKind::Uniform) {
        EXPECT_GE(tree.levels, 3);
        // L is the smallest height >= 3 that meets CT.
        if (tree.levels > 3) EXPECT_GT(tree_of(p, ct, -1).t, std::size_t(ct));
      } else {
        // A box is split exactly when it holds more than CT points.
        for (int l = 1; l <= tree.levels; ++l) {
          const Level& lv = tree.level[l];
          for (std::size_t b = 0; b < lv.size(); ++b)
            EXPECT_EQ(lv.is_leaf(b), std::max(lv.sources(b), lv.targets(b)) <= ct);
        }
      }
    }
  }
}

TEST(Tree, LevelOffsetPlusOneGivesFourTimesTheLeaves) {
  const PointSet p = testing::make_points("uniform", 50000);
  const Tree t0 = tree_of(p, 200), t1 = tree_of(p, 200, +1), tm = tree_of(p, 200, -1);
  ASSERT_EQ(t0.leaves.size(), std::size_t(1) << (2 * (t0.levels - 1))) << "all boxes filled";
  EXPECT_EQ(t1.levels, t0.levels + 1);
  EXPECT_EQ(t1.leaves.size(), 4 * t0.leaves.size());
  EXPECT_EQ(tm.leaves.size() * 4, t0.leaves.size());
  EXPECT_NEAR(t1.mean_per_box * 4, t0.mean_per_box, 1e-12);
  expect_valid(t1);
}

// On uniform points both trees give the same L and D at every offset -4..+3, and the adaptive
// tree's leaves sit within a level of L (above it, where a box already meets CT; a few boxes
// two levels up meet CT too: Poisson counts).
TEST(Tree, AdaptiveMatchesUniformOnUniformPoints) {
  const PointSet p = testing::make_points("uniform", 100000);
  for (int offset = -4; offset <= 3; ++offset) {
    SCOPED_TRACE("offset " + std::to_string(offset));
    const Tree u = tree_of(p, 15, offset), a = adaptive_of(p, 15, offset);
    expect_valid(a);
    EXPECT_EQ(a.levels, u.levels);
    EXPECT_EQ(a.levels_ct, u.levels_ct);
    EXPECT_DOUBLE_EQ(a.mean_per_box, u.mean_per_box);
    std::size_t below = 0;
    for (const BoxRef& r : a.leaves) {
      EXPECT_GE(r.level, a.levels - 2);
      below += r.level == a.levels - 2 ? 1 : 0;
    }
    EXPECT_LE(below, a.leaves.size() / 20) << "almost all leaves at L or L - 1";
    EXPECT_LE(a.t, 4 * u.t + 4) << "leaves one level up hold at most 4x";
  }
}

// +i splits every leaf i more times, -i makes every leaf i levels coarser.
TEST(Tree, AdaptiveOffsetsMoveEveryLeaf) {
  const PointSet p = testing::make_points("graded-polygon", 20000);
  const Tree a0 = adaptive_of(p, 15);
  for (int offset : {-3, -1, 1, 2}) {
    SCOPED_TRACE("offset " + std::to_string(offset));
    const Tree a = adaptive_of(p, 15, offset);
    expect_valid(a);
    EXPECT_EQ(a.levels_ct, a0.levels_ct);
    // Each new leaf relates to the old ones as the offset says: a finer leaf lies inside an old
    // leaf exactly `offset` levels up (or at the cap / where the points end), a coarser one
    // contains an old leaf exactly -offset levels below it.
    std::map<std::pair<int, std::uint64_t>, bool> old;
    for (const BoxRef& r : a0.leaves) old[{r.level, a0.at(r).key[r.box]}] = true;
    for (const BoxRef& r : a.leaves) {
      const std::uint64_t k = a.at(r).key[r.box];
      if (offset > 0) {
        bool found = false;
        for (int up = 0; up <= offset && !found; ++up)
          found = old.count({r.level - up, k >> (2 * up)}) > 0;
        EXPECT_TRUE(found) << "a leaf more than " << offset << " levels below the CT leaves";
      } else {
        bool contains = false;
        for (const auto& [lk, unused] : old)
          if (lk.first == r.level - offset && (lk.second >> (-2 * offset)) == k) contains = true;
        bool inside = false;  // or it is an old leaf's ancestor above -offset (a shallower one)
        for (const auto& [lk, unused] : old)
          if (lk.first >= r.level && lk.first < r.level - offset &&
              (lk.second >> (2 * (lk.first - r.level))) == k)
            inside = true;
        EXPECT_TRUE(contains || inside) << "level " << r.level;
      }
    }
  }
}

// The trees against their definitions, box by box, on shapes with leaves on many levels and
// with coincident points (the cap): the CT tree splits a box exactly while it holds more than CT
// points (below the deepest level); with offset -i a box stays split exactly while the CT
// tree's deepest leaf below it is more than i levels deeper; the uniform tree's L is the first
// level >= 3 whose boxes all hold at most CT. The trees are grown from the sorted keys' counts
// (tree.cpp, Crowding), this walks the grown CT tree.
TEST(Tree, TreesFollowTheirDefinitionsBoxByBox) {
  for (const char* shape : {"graded-polygon", "clusters", "multiscale-clusters", "uniform"}) {
    PointSet p = testing::make_points(shape, 6000, 5);
    for (std::size_t i = 0; i < 40; ++i) {  // coincident points: a capped cell
      p.x.push_back(p.x[7]);
      p.y.push_back(p.y[7]);
      p.q.push_back(1);
    }
    for (bool separate : {false, true}) {
      if (separate) {
        const PointSet t = testing::make_points("clusters", 3000, 6);
        p.tx = t.x;
        p.ty = t.y;
      }
      for (int ct : {1, 7, 40}) {
        SCOPED_TRACE(std::string(shape) + (separate ? ", targets" : ", self") + ", CT " +
                     std::to_string(ct));
        const Tree a0 = adaptive_of(p, ct);
        expect_valid(a0);
        // The CT tree, and its deepest leaf below each box (bottom-up).
        std::vector<std::vector<int>> deepest(a0.levels + 1);
        for (int l = a0.levels; l >= 1; --l) {
          const Level& lv = a0.level[l];
          deepest[l].assign(lv.size(), l);
          for (std::size_t b = 0; b < lv.size(); ++b) {
            const std::int64_t n = std::max(lv.sources(b), lv.targets(b));
            EXPECT_EQ(!lv.is_leaf(b), n > ct && l < kMaxLevels) << "level " << l;
            for (std::int32_t c = lv.child_begin[b]; c < lv.child_begin[b + 1]; ++c)
              deepest[l][b] = std::max(deepest[l][b], deepest[l + 1][c]);
          }
        }
        EXPECT_EQ(a0.levels_ct, a0.levels);
        for (int i = 1; i <= 3 && i < a0.levels_ct; ++i) {
          const Tree a = adaptive_of(p, ct, -i);
          expect_valid(a);
          EXPECT_EQ(a.levels_ct, a0.levels_ct);
          for (int l = 1; l <= a.levels; ++l)
            for (std::size_t b = 0; b < a.level[l].size(); ++b) {
              const std::int32_t k = a0.level[l].find(a.level[l].key[b]);
              ASSERT_GE(k, 0) << "a box the CT tree does not have";
              EXPECT_EQ(!a.level[l].is_leaf(b), deepest[l][k] - l > i) << "level " << l;
            }
        }
        const Tree u = tree_of(p, ct);
        expect_valid(u);
        auto most_in = [&](int l) {
          std::int64_t most = 0;
          for (std::size_t b = 0; b < u.level[l].size(); ++b)
            most = std::max({most, u.level[l].sources(b), u.level[l].targets(b)});
          return most;
        };
        if (u.levels < kMaxLevels) EXPECT_LE(most_in(u.levels), ct);
        if (u.levels > 3) EXPECT_GT(most_in(u.levels - 1), ct);
        EXPECT_GE(u.levels, 3);
        EXPECT_EQ(u.capped, a0.capped);
        EXPECT_TRUE(a0.capped || ct >= 41) << "41 coincident points";
      }
    }
  }
}

TEST(Tree, SeparateTargetsGetTheirOwnRanges) {
  PointSet p = testing::make_points("disk", 3000);
  const PointSet t = testing::make_points("uniform", 2000, 99);
  p.tx = t.x;
  p.ty = t.y;
  for (auto& v : p.tx) v = 2 * v - 0.5;  // partly outside the sources' box
  for (TreeKind kind : {TreeKind::Uniform, TreeKind::Adaptive}) {
    const Tree tree = tree_of(p, 15, 0, nullptr, kind);
    EXPECT_FALSE(tree.self);
    EXPECT_EQ(tree.n_targets(), 2000u);
    EXPECT_EQ(tree.separate_tx.size(), 2000u);
    EXPECT_EQ(tree.tx(), tree.separate_tx.data());
    expect_valid(tree);
  }
}

TEST(Tree, SelfEvaluationKeepsOneCopyOfThePoints) {
  const PointSet p = testing::make_points("disk", 3000);
  const Tree tree = tree_of(p, 15, 0, nullptr, TreeKind::Adaptive);
  ASSERT_TRUE(tree.self);
  // The targets are the sources: their arrays are read through the sources', not copied.
  EXPECT_TRUE(tree.separate_tx.empty() && tree.separate_ty.empty());
  EXPECT_TRUE(tree.separate_tgt_index.empty());
  EXPECT_EQ(tree.tx(), tree.sx.data());
  EXPECT_EQ(tree.ty(), tree.sy.data());
  EXPECT_EQ(tree.tgt_index(), tree.src_index.data());
  EXPECT_EQ(tree.n_targets(), tree.n_sources());
}

TEST(Tree, CoincidentPointsCapTheHeightWithAWarning) {
  PointSet p;
  p.x.assign(50, 0.25);
  p.y.assign(50, 0.75);
  p.x.push_back(0.9);
  p.y.push_back(0.1);
  for (TreeKind kind : {TreeKind::Uniform, TreeKind::Adaptive}) {
    std::string warning;
    const Tree tree = tree_of(p, 10, 0, &warning, kind);
    EXPECT_TRUE(tree.capped);
    EXPECT_EQ(tree.levels, kMaxLevels);
    EXPECT_NE(warning.find("capped"), std::string::npos) << warning;
    EXPECT_NE(warning.find("50 points share one box"), std::string::npos) << warning;
    expect_valid(tree);
    if (kind == TreeKind::Adaptive) EXPECT_LT(tree.boxes(), 4u * kMaxLevels) << "one chain";
  }
  // Separate targets: the fullest cell may be the targets' (70 coincident targets).
  p.tx.assign(70, 0.5);
  p.ty.assign(70, 0.5);
  std::string warning;
  EXPECT_TRUE(tree_of(p, 10, -2, &warning, TreeKind::Adaptive).capped);
  EXPECT_NE(warning.find("70 points share one box"), std::string::npos) << warning;
}

TEST(Tree, BadArgumentsThrowInvalidInput) {
  const PointSet p = testing::make_points("uniform", 100);
  EXPECT_THROW(tree_of(p, 0), InvalidInput);
  EXPECT_THROW(adaptive_of(p, 0), InvalidInput);
  EXPECT_THROW(tree_of(p, 15, -3), InvalidInput);  // L = 3 - 3 = 0: above the root
  EXPECT_THROW(tree_of(p, 15, 40), InvalidInput);
  EXPECT_THROW(parse_tree_kind("octree"), InvalidInput);
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

// Each (target, source) pair is covered exactly once: by the near ranges of the target's leaf,
// by one of its W boxes, or by one V box or X leaf of the leaf or one of its ancestors. Counted
// point by point, so it also checks that ranges, boxes and lists hold what they say.
void expect_exact_cover(const Tree& tree, const Plan& plan) {
  const NearField& nf = plan.near;
  ASSERT_EQ(nf.leaves(), plan.near_box.size());
  std::uint64_t near_pairs = 0;
  std::size_t i = 0;  // near leaf
  for (const BoxRef& leaf : tree.leaves) {
    const Level& ll = tree.at(leaf);
    if (!ll.has_targets(leaf.box)) continue;
    ASSERT_LT(i, nf.leaves());
    ASSERT_EQ(plan.near_box[i].level, leaf.level);
    ASSERT_EQ(plan.near_box[i].box, leaf.box);
    EXPECT_EQ(nf.leaf_tgt[i], ll.tgt_begin[leaf.box]);
    EXPECT_EQ(nf.leaf_tgt[i + 1], ll.tgt_end[leaf.box]);
    std::vector<int> count(tree.n_sources(), 0);
    auto add = [&](BoxRef r) {
      const Level& lv = tree.at(r);
      ASSERT_TRUE(lv.has_sources(r.box)) << "a list entry without sources";
      for (std::int64_t j = lv.src_begin[r.box]; j < lv.src_end[r.box]; ++j) ++count[j];
    };
    std::int64_t last = -1, sources = 0;
    for (std::int64_t k = nf.range_begin[i]; k < nf.range_begin[i + 1]; ++k) {
      const std::int64_t lo = nf.range[2 * k], hi = nf.range[2 * k + 1];
      ASSERT_LT(last, lo) << "ranges ascend, disjoint and merged";
      ASSERT_LT(lo, hi);
      for (std::int64_t j = lo; j < hi; ++j) ++count[j];
      sources += hi - lo;
      last = hi;
    }
    EXPECT_EQ(nf.sources[i], sources);
    near_pairs += std::uint64_t(sources) * std::uint64_t(ll.targets(leaf.box));
    for (std::int64_t k = plan.m2p.begin[i]; k < plan.m2p.begin[i + 1]; ++k) add(plan.m2p.box[k]);
    for (BoxRef a = leaf; a.level >= 1; a = BoxRef{a.level - 1, tree.at(a).parent[a.box]}) {
      const M2LLevel& v = plan.m2l[a.level];
      if (!v.target_begin.empty())
        for (std::int64_t k = v.target_begin[a.box]; k < v.target_begin[a.box + 1]; ++k)
          add(BoxRef{a.level, v.src[std::size_t(k)]});
      const BoxLists& x = plan.p2l[a.level];
      for (std::int64_t k = x.begin[a.box]; k < x.begin[a.box + 1]; ++k) {
        ASSERT_TRUE(tree.at(x.box[k]).is_leaf(x.box[k].box)) << "an X entry is a leaf";
        ASSERT_LT(x.box[k].level, a.level) << "an X entry is coarser";
        add(x.box[k]);
      }
      if (a.level == 1) break;
    }
    for (std::size_t j = 0; j < count.size(); ++j)
      ASSERT_EQ(count[j], 1) << "target leaf (" << leaf.level << ", " << leaf.box
                             << "), tree-ordered source " << j;
    ++i;
  }
  EXPECT_EQ(i, nf.leaves());
  EXPECT_EQ(near_pairs, nf.pairs);
}

TEST(Plan, NearAndFarCoverEveryPairExactlyOnce) {
  for (const std::string shape : {"uniform", "circle", "clusters"}) {
    SCOPED_TRACE(shape);
    const PointSet p = testing::make_points(shape, 600);
    for (int offset : {-1, 0, 1}) {
      const Tree tree = tree_of(p, 4, offset);
      const Plan plan = build_plan(tree, 2);
      expect_exact_cover(tree, plan);
      EXPECT_TRUE(plan.m2p.box.empty()) << "no W lists on the uniform tree";
      for (const BoxLists& x : plan.p2l) EXPECT_TRUE(x.box.empty()) << "no X lists";
    }
  }
  PointSet p = testing::make_points("uniform", 400);
  const PointSet t = testing::make_points("circle", 300, 5);
  p.tx = t.x;
  p.ty = t.y;
  const Tree tree = tree_of(p, 3);
  expect_exact_cover(tree, build_plan(tree, 2));
}

// Random adaptive trees: graded and clustered sets, separate targets, offsets, CT, threads, and
// with or without W boxes and X leaves moved to the near field.
TEST(Plan, AdaptiveListsCoverEveryPairExactlyOnce) {
  int trees_with_w = 0;
  for (const std::string shape :
       {"uniform", "circle", "clusters", "graded-strip", "graded-polygon", "multiscale-clusters"}) {
    for (std::uint64_t seed : {3, 4}) {
      PointSet p = testing::make_points(shape, 700, seed);
      if (seed == 4) {
        const PointSet t = testing::make_points("graded-polygon", 300, seed + 10);
        p.tx = t.x;
        p.ty = t.y;
      }
      for (int ct : {1, 5, 40}) {
        for (int offset : {-2, 0, 1}) {
          for (std::int64_t below : {0, 8}) {
            SCOPED_TRACE(shape + ", seed " + std::to_string(seed) + ", ct " + std::to_string(ct) +
                         ", offset " + std::to_string(offset) + ", p2p below " +
                         std::to_string(below));
            if (adaptive_of(p, ct).levels_ct + offset > kMaxLevels) {
              EXPECT_THROW(adaptive_of(p, ct, offset), InvalidInput) << "past the deepest level";
              continue;
            }
            const Tree tree = adaptive_of(p, ct, offset);
            PlanOptions o;
            o.p2p_below = below;
            const Plan plan = build_plan(tree, 1 + int(seed % 3), o);
            expect_exact_cover(tree, plan);
            trees_with_w += plan.m2p.box.empty() ? 0 : 1;
            if (HasFailure()) return;
          }
        }
      }
    }
  }
  EXPECT_GT(trees_with_w, 50) << "the cases exercise the W lists";
}

TEST(Plan, ListsDoNotDependOnTheThreadCount) {
  const PointSet p = testing::make_points("graded-polygon", 5000);
  const Tree tree = adaptive_of(p, 15);
  const Plan a = build_plan(tree, 1), b = build_plan(tree, 2);
  EXPECT_EQ(a.near.range, b.near.range);
  EXPECT_EQ(a.near.range_begin, b.near.range_begin);
  EXPECT_EQ(a.m2p.begin, b.m2p.begin);
  for (int l = 1; l <= tree.levels; ++l) {
    EXPECT_EQ(a.p2l[l].begin, b.p2l[l].begin);
    // Within an offset the pairs are sorted by target, each target at most once: the same set
    // is the same sequence.
    EXPECT_EQ(a.m2l[l].target_begin, b.m2l[l].target_begin);
    EXPECT_EQ(a.m2l[l].offset, b.m2l[l].offset);
    EXPECT_EQ(a.m2l[l].src, b.m2l[l].src);
  }
}

TEST(Plan, InteractionListsHaveAtMost27BoxesAndNearListsAtMost9) {
  const PointSet p = testing::make_points("uniform", 20000);
  const Tree tree = tree_of(p, 15);
  const Plan plan = build_plan(tree, 2);
  std::size_t ranges = 0;
  for (std::size_t b = 0; b < plan.near.leaves(); ++b) {
    EXPECT_LE(plan.near.range_begin[b + 1] - plan.near.range_begin[b], 9);
    EXPECT_LE(plan.near.sources[b], 9 * std::int64_t(tree.t));
    ranges += std::size_t(plan.near.range_begin[b + 1] - plan.near.range_begin[b]);
  }
  // Neighbours that follow one another in Morton order merge into one range.
  EXPECT_LT(ranges, 9 * plan.near.leaves() * 3 / 4);
  for (int l = 3; l <= tree.levels; ++l) {
    std::map<std::int32_t, int> per_box;
    for (std::size_t b = 0; b < tree.level[l].size(); ++b)
      if (plan.m2l[l].pairs_of(b) > 0) per_box[std::int32_t(b)] = int(plan.m2l[l].pairs_of(b));
    for (auto& kv : per_box) EXPECT_LE(kv.second, 27);
    if (l == tree.levels) {
      int most = 0;
      for (auto& kv : per_box) most = std::max(most, kv.second);
      EXPECT_EQ(most, 27) << "an interior box of a full level has 27";
    }
  }
}

// Every team of an evaluation has all its threads or one: libgomp ends the threads a smaller
// team leaves out and makes new ones for a larger team (which inherit a pinned caller's CPU).
TEST(Threads, ATeamIsAllThreadsOrOne) {
  for (int threads : {2, 3, 15, 16}) {
    for (long long items : {0LL, 1LL, 127LL, 128LL, 129LL, 300LL, 1000LL, 5000LL, 1LL << 40}) {
      EXPECT_EQ(team_size(threads, items, kParallelMinBoxes),
                items < kParallelMinBoxes ? 1 : threads)
          << threads << " threads, " << items << " items";
    }
  }
}

}  // namespace
}  // namespace mlfma2d
