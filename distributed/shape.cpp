#include "distributed/shape.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "mlfma2d/errors.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "runtime/threads.hpp"
#include "solver/points.hpp"

namespace mlfma2d {

LocalPoints sort_local_points(const Comm& comm, PointsRef sources, PointsRef targets, bool self,
                              int threads, Traffic* t) {
  LocalPoints pts;
  pts.self = self;
  Bounds b = grow_bounds(Bounds{}, sources, threads);
  if (!self) b = grow_bounds(b, targets, threads);
  // One reduction for the four extents: max x = -min(-x).
  double low[4] = {b.xmin, b.ymin, -b.xmax, -b.ymax};
  comm.allreduce(low, 4, MPI_MIN, t);
  std::int64_t counts[2] = {std::int64_t(sources.n), std::int64_t(self ? sources.n : targets.n)};
  comm.allreduce(counts, 2, MPI_SUM, t);
  if (counts[0] == 0) throw InvalidInput("no sources on any rank: at least one source is needed");
  if (counts[1] == 0) throw InvalidInput("no targets on any rank: at least one target is needed");
  pts.total_sources = counts[0];
  pts.total_targets = counts[1];
  // The one-process Solver scales such extents (solver/points.hpp); the distributed one does not
  // yet: refused rather than overflowing r^2.
  const double extent = std::max(-low[2] - low[0], -low[3] - low[1]);
  if (extent_needs_scaling(extent))
    throw InvalidInput("the points span " + std::to_string(extent) +
                       ": the distributed solver takes extents up to 2^500 (the one-process "
                       "Solver scales larger ones)");
  pts.box = root_box(low[0], -low[2], low[1], -low[3]);
  pts.sources = sort_keyed_points(sources, pts.box, threads);
  if (!self) pts.targets = sort_keyed_points(targets, pts.box, threads);
  return pts;
}

namespace {

// Levels grown from counts reduced over the ranks: level[l] the global boxes (global ranges),
// local[l] this rank's ranges in them.
class Grower {
 public:
  Grower(const Comm& comm, const LocalPoints& pts, int threads, Traffic* t)
      : comm_(comm), pts_(pts), threads_(threads), t_(t), level_(2), local_(2) {
    Level& root = level_[1];
    root.key = {0};
    root.src_begin = {0};
    root.src_end = {pts.total_sources};
    root.tgt_begin = {0};
    root.tgt_end = {pts.total_targets};
    root.parent = {-1};
    Level& mine = local_[1];
    mine.src_begin = {0};
    mine.src_end = {std::int64_t(pts.sources.key.size())};
    mine.tgt_begin = {0};
    mine.tgt_end = {pts.n_targets()};
  }

  const Level& level(int l) const { return level_[l]; }
  int deepest() const { return int(level_.size()) - 1; }
  std::int64_t count(int l, std::size_t b) const {
    const Level& lv = level_[l];
    return std::max(lv.sources(b), lv.targets(b));
  }

  // Splits the boxes b of level `deepest()` with split[b] into their children that hold points
  // on any rank (level deepest() + 1); the last level's child_begin when none is split.
  void split(const std::vector<char>& split) {
    const int l = deepest();
    Level& parents = level_[l];
    const Level& mine = local_[l];
    const std::int64_t nb = std::int64_t(parents.size());
    std::vector<std::int64_t> which;
    for (std::int64_t b = 0; b < nb; ++b)
      if (split[b]) which.push_back(b);
    parents.child_begin.assign(nb + 1, 0);
    if (which.empty()) return;
    // This rank's quadrant ranges (5 bounds of sources, 5 of targets) and their counts, reduced.
    const std::int64_t ns = std::int64_t(which.size());
    const bool self = pts_.self;
    const int width = self ? 4 : 8;
    std::vector<std::int64_t> bounds(std::size_t(ns) * 10), counts(std::size_t(ns) * width);
#pragma omp parallel for num_threads(team_size(threads_, ns)) schedule(static)
    for (std::int64_t i = 0; i < ns; ++i) {
      const std::int64_t b = which[i];
      std::int64_t* s = &bounds[10 * i];
      quadrant_bounds(pts_.sources.key, mine.src_begin[b], mine.src_end[b], l, parents.key[b], s);
      if (!self)
        quadrant_bounds(pts_.targets.key, mine.tgt_begin[b], mine.tgt_end[b], l, parents.key[b],
                        s + 5);
      for (int q = 0; q < 4; ++q) {
        counts[width * i + q] = s[q + 1] - s[q];
        if (!self) counts[width * i + 4 + q] = s[5 + q + 1] - s[5 + q];
      }
    }
    comm_.allreduce(counts.data(), counts.size(), MPI_SUM, t_);
    make_children(which, bounds, counts, width);
  }

  // Keeps levels 1..L (the uniform tree's negative level offset): level L's boxes become leaves.
  void truncate(int L) {
    level_.resize(std::size_t(L) + 1);
    local_.resize(std::size_t(L) + 1);
    level_[L].child_begin.assign(level_[L].size() + 1, 0);
  }

  std::vector<Level> take_levels() {
    return std::move(level_);
  }
  std::vector<Level> take_local() {
    return std::move(local_);
  }

 private:
  // Level l + 1 from the split boxes of level l: a child for each quadrant with points on any
  // rank, its global ranges after its earlier siblings', its local ranges from the bounds.
  void make_children(const std::vector<std::int64_t>& which,
                     const std::vector<std::int64_t>& bounds,
                     const std::vector<std::int64_t>& counts, int width) {
    const int l = deepest();
    const bool self = pts_.self;
    level_.emplace_back();
    local_.emplace_back();
    Level& parents = level_[l];
    Level& c = level_.back();
    Level& cm = local_.back();
    std::size_t k = 0;
    for (std::size_t i = 0; i < which.size(); ++i) {
      const std::int64_t b = which[i];
      std::int64_t s_at = parents.src_begin[b], t_at = parents.tgt_begin[b];
      parents.child_begin[b] = std::int32_t(c.size());
      for (int q = 0; q < 4; ++q) {
        const std::int64_t gs = counts[width * i + q], gt = self ? gs : counts[width * i + 4 + q];
        const std::int64_t* s = &bounds[10 * i];
        if (gs > 0 || gt > 0) {
          c.key.push_back((parents.key[b] << 2) | std::uint64_t(q));
          c.src_begin.push_back(s_at);
          c.src_end.push_back(s_at + gs);
          c.tgt_begin.push_back(t_at);
          c.tgt_end.push_back(t_at + gt);
          c.parent.push_back(std::int32_t(b));
          cm.src_begin.push_back(s[q]);
          cm.src_end.push_back(s[q + 1]);
          cm.tgt_begin.push_back(self ? s[q] : s[5 + q]);
          cm.tgt_end.push_back(self ? s[q + 1] : s[5 + q + 1]);
          ++k;
        }
        s_at += gs;
        t_at += gt;
      }
    }
    // child_begin: each box's first child, the next box's for those not split (no children).
    const std::int64_t nb = std::int64_t(parents.size());
    std::int32_t next = std::int32_t(k);
    for (std::int64_t b = nb - 1; b >= 0; --b) {
      const bool split = std::binary_search(which.begin(), which.end(), b);
      if (!split) parents.child_begin[b] = next;
      next = parents.child_begin[b];
    }
    parents.child_begin[nb] = std::int32_t(k);
  }

  const Comm& comm_;
  const LocalPoints& pts_;
  int threads_;
  Traffic* t_;
  std::vector<Level> level_, local_;
};

std::string cap_warning(int ct, std::int64_t most) {
  std::ostringstream m;
  m << "CT = " << ct << " cannot be met: " << most
    << " points share one box at the deepest supported level; L capped at " << kMaxLevels;
  return m.str();
}

void check_levels(int levels_ct, int level_offset) {
  const int L = levels_ct + level_offset;
  if (L >= 1 && L <= kMaxLevels) return;
  std::ostringstream m;
  m << "level offset " << (level_offset > 0 ? "+" : "") << level_offset
    << " (--levels) puts the last level at L = " << L << " (CT fixed L = " << levels_ct
    << "); L must be"
    << (L < 1 ? " >= 1 (level 1 is the root)" : " <= " + std::to_string(kMaxLevels));
  throw InvalidInput(m.str());
}

// The adaptive tree: a box split while it holds more than CT points, then level_offset more
// levels below each such leaf (grow_tree's rule). Returns the deepest level with a box of more
// than CT points (0: none).
int grow_adaptive(Grower* g, int ct, int level_offset) {
  int crowded = 0;
  std::vector<int> stop(1, 0);  // per box of the current level: 0 while CT decides
  for (int l = 1;; ++l) {
    const Level& lv = g->level(l);
    const std::int64_t nb = std::int64_t(lv.size());
    std::vector<char> split(nb, 0);
    for (std::int64_t b = 0; b < nb; ++b) {
      int& s = stop[b];
      const bool over = g->count(l, std::size_t(b)) > ct;
      if (s == 0 && over) crowded = l;
      if (l == kMaxLevels) continue;
      if (s == 0 && over) {
        split[b] = 1;
        continue;
      }
      if (s == 0) s = l + level_offset;
      split[b] = l < s ? 1 : 0;
    }
    g->split(split);
    if (g->deepest() == l) return crowded;
    const Level& next = g->level(l + 1);
    std::vector<int> below(next.size());
    for (std::size_t c = 0; c < next.size(); ++c) below[c] = stop[next.parent[c]];
    stop.swap(below);
  }
}

// The uniform tree: every box split down to levels_ct (the first level >= 3 whose boxes hold at
// most CT points), then to levels_ct + level_offset. Returns levels_ct and the deepest crowded
// level.
int grow_uniform(Grower* g, int ct, int level_offset, int* crowded) {
  int levels_ct = 0;
  for (int l = 1;; ++l) {
    const Level& lv = g->level(l);
    bool over = false;
    for (std::size_t b = 0; b < lv.size() && !over; ++b) over = g->count(l, b) > ct;
    if (over) *crowded = l;
    if (levels_ct == 0 && ((l >= 3 && !over) || l == kMaxLevels)) {
      levels_ct = l;
      check_levels(levels_ct, level_offset);
    }
    const int L = levels_ct == 0 ? kMaxLevels : levels_ct + level_offset;
    if (l > L) {
      g->truncate(L);
      return levels_ct;
    }
    g->split(std::vector<char>(lv.size(), l < L ? 1 : 0));
    if (l == L) return levels_ct;
  }
}

}  // namespace

GlobalShape grow_global_shape(const Comm& comm, const LocalPoints& pts, int ct, int level_offset,
                              TreeKind kind, std::string* warning, int threads, Traffic* t) {
  if (ct < 1) throw InvalidInput("clustering threshold CT must be >= 1, got " + std::to_string(ct));
  if (kind == TreeKind::Adaptive && level_offset < 0)
    throw InvalidInput(
        "the distributed solver takes level offsets >= 0 on the adaptive tree (got " +
        std::to_string(level_offset) + "); the uniform tree takes any");
  Grower g(comm, pts, threads, t);
  int crowded = 0, levels_ct = 0;
  if (kind == TreeKind::Adaptive) {
    crowded = grow_adaptive(&g, ct, level_offset);
    levels_ct = crowded > 0 ? std::min(crowded, kMaxLevels - 1) + 1 : 1;
    check_levels(levels_ct, level_offset);
  } else {
    levels_ct = grow_uniform(&g, ct, level_offset, &crowded);
  }
  GlobalShape shape;
  Tree& tree = shape.tree;
  tree.kind = kind;
  tree.ct = ct;
  tree.level_offset = level_offset;
  tree.self = pts.self;
  tree.x0 = pts.box.x0;
  tree.y0 = pts.box.y0;
  tree.size = pts.box.size;
  tree.levels_ct = levels_ct;
  const int L = g.deepest();
  if (crowded == kMaxLevels) {
    tree.capped = true;
    std::int64_t most = 0;
    for (std::size_t b = 0; b < g.level(L).size(); ++b) most = std::max(most, g.count(L, b));
    if (warning) *warning = cap_warning(ct, most);
  }
  tree.level = g.take_levels();
  shape.local = g.take_local();
  tree.levels = L;
  tree.leaves = morton_leaves(tree.level, threads);
  for (const BoxRef& r : tree.leaves) {
    const Level& lv = tree.at(r);
    tree.t =
        std::max<std::size_t>(tree.t, std::size_t(std::max(lv.sources(r.box), lv.targets(r.box))));
  }
  tree.mean_per_box = double(std::max(pts.total_sources, pts.total_targets)) / std::pow(4.0, L - 1);
  return shape;
}

}  // namespace mlfma2d
