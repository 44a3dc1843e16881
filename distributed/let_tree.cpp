// The locally essential tree (distributed/let.hpp): the boxes of the global shape a rank's work
// touches, planned again on their own, then moved from global positions to the local array.
#include <algorithm>
#include <numeric>

#include "distributed/let.hpp"
#include "mlfma2d/errors.hpp"

namespace mlfma2d {
namespace {

// The boxes to keep: the own leaves, the ghost leaves, every box of the plan's lists, the root,
// and all their ancestors.
std::vector<std::vector<char>> kept_boxes(const Tree& shape, const Plan& plan, std::int64_t first,
                                          std::int64_t end,
                                          const std::vector<std::int64_t>& ghost_leaves) {
  const int L = shape.levels;
  std::vector<std::vector<char>> keep(std::size_t(L) + 1);
  for (int l = 1; l <= L; ++l) keep[l].assign(shape.level[l].size(), 0);
  auto mark = [&](BoxRef r) { keep[r.level][r.box] = 1; };
  keep[1][0] = 1;
  for (std::int64_t g = first; g < end; ++g) mark(shape.leaves[g]);
  for (std::int64_t g : ghost_leaves) mark(shape.leaves[g]);
  for (int l = 1; l <= L; ++l) {
    for (std::int32_t b : plan.m2l[l].src) keep[l][b] = 1;
    const M2LLevel& v = plan.m2l[l];
    for (std::size_t b = 0; b + 1 < v.target_begin.size(); ++b)
      if (v.pairs_of(b) > 0) keep[l][b] = 1;
    const BoxLists& x = plan.p2l[l];
    for (std::size_t b = 0; b < x.items(); ++b)
      if (x.begin[b + 1] > x.begin[b]) keep[l][b] = 1;
    for (const BoxRef& r : x.box) mark(r);
  }
  for (const BoxRef& r : plan.m2p.box) mark(r);
  for (const BoxRef& r : plan.near_box) mark(r);
  for (int l = L; l >= 2; --l) {
    const Level& lv = shape.level[l];
    for (std::size_t b = 0; b < lv.size(); ++b)
      if (keep[l][b]) keep[l - 1][lv.parent[b]] = 1;
  }
  return keep;
}

// The kept boxes as a tree of their own (global source ranges, the restricted target ranges),
// its leaves the own leaves.
Tree compact_tree(const Tree& shape, const std::vector<std::vector<char>>& keep, std::int64_t first,
                  std::int64_t end) {
  const int L = shape.levels;
  // before[l][b]: kept boxes of level l before box b (b's index in the compact level, if kept).
  std::vector<std::vector<std::int32_t>> before(std::size_t(L) + 1);
  for (int l = 1; l <= L; ++l) {
    before[l].assign(keep[l].size() + 1, 0);
    for (std::size_t b = 0; b < keep[l].size(); ++b) before[l][b + 1] = before[l][b] + keep[l][b];
  }
  Tree t;
  t.kind = shape.kind;
  t.x0 = shape.x0;
  t.y0 = shape.y0;
  t.size = shape.size;
  t.levels = L;
  t.levels_ct = shape.levels_ct;
  t.capped = shape.capped;
  t.ct = shape.ct;
  t.level_offset = shape.level_offset;
  t.self = false;
  t.t = shape.t;
  t.mean_per_box = shape.mean_per_box;
  t.level.resize(std::size_t(L) + 1);
  for (int l = 1; l <= L; ++l) {
    const Level& g = shape.level[l];
    Level& c = t.level[l];
    for (std::size_t b = 0; b < g.size(); ++b) {
      if (!keep[l][b]) continue;
      c.key.push_back(g.key[b]);
      c.src_begin.push_back(g.src_begin[b]);
      c.src_end.push_back(g.src_end[b]);
      c.tgt_begin.push_back(g.tgt_begin[b]);
      c.tgt_end.push_back(g.tgt_end[b]);
      c.parent.push_back(l > 1 ? before[l - 1][g.parent[b]] : -1);
      c.child_begin.push_back(l < L ? before[l + 1][g.child_begin[b]] : 0);
    }
    c.child_begin.push_back(l < L ? before[l + 1].back() : 0);
  }
  for (std::int64_t g = first; g < end; ++g) {
    const BoxRef r = shape.leaves[g];
    t.leaves.push_back(BoxRef{r.level, before[r.level][r.box]});
  }
  return t;
}

// Global source positions to local ones: the local array holds runs of the global order
// (segments), in order.
class LocalPositions {
 public:
  void add(std::int64_t begin, std::int64_t end) {
    if (end <= begin) return;
    if (!begin_.empty() && end_.back() == begin) {
      end_.back() = end;
    } else {
      begin_.push_back(begin);
      end_.push_back(end);
      local_.push_back(size_);
    }
    size_ += end - begin;
  }
  std::int64_t size() const { return size_; }
  // The local position of the first global position >= p held here (size() when none).
  std::int64_t at_or_after(std::int64_t p) const {
    const std::size_t s = std::size_t(std::upper_bound(end_.begin(), end_.end(), p) - end_.begin());
    if (s == end_.size()) return size_;
    return local_[s] + std::max<std::int64_t>(0, p - begin_[s]);
  }

 private:
  std::vector<std::int64_t> begin_, end_, local_;
  std::int64_t size_ = 0;
};

// The tree's source ranges and the plan's near ranges in local positions; a near range must be
// held whole (its sources are own or ghosts).
void to_local_positions(const LocalPositions& at, Tree* tree, Plan* plan) {
  for (int l = 1; l <= tree->levels; ++l) {
    Level& lv = tree->level[l];
    for (std::size_t b = 0; b < lv.size(); ++b) {
      lv.src_begin[b] = at.at_or_after(lv.src_begin[b]);
      lv.src_end[b] = at.at_or_after(lv.src_end[b]);
    }
  }
  NearField& nf = plan->near;
  std::vector<std::int64_t> range, range_begin(1, 0);
  for (std::size_t i = 0; i < nf.leaves(); ++i) {
    const std::size_t first = range.size();
    for (std::int64_t k = nf.range_begin[i]; k < nf.range_begin[i + 1]; ++k) {
      const std::int64_t lo = at.at_or_after(nf.range[2 * k]);
      const std::int64_t hi = at.at_or_after(nf.range[2 * k + 1]);
      if (hi - lo != nf.range[2 * k + 1] - nf.range[2 * k])
        throw RuntimeFailure("internal: a near range's sources are not all held by the rank");
      if (range.size() > first && range.back() == lo) {
        range.back() = hi;  // ranges the remote sources between kept apart meet here
      } else {
        range.push_back(lo);
        range.push_back(hi);
      }
    }
    range_begin.push_back(std::int64_t(range.size() / 2));
  }
  nf.range = std::move(range);
  nf.range_begin = std::move(range_begin);
}

}  // namespace

Let build_let(const Tree& shape, const Plan& plan, const Partition& part, int rank,
              OwnedPoints* own, Ghosts* ghosts, int threads, const PlanOptions& options) {
  const std::int64_t first = part.begin(rank), end = part.end(rank);
  Let let;
  let.tree = compact_tree(shape, kept_boxes(shape, plan, first, end, ghosts->leaves), first, end);
  let.plan = build_plan(let.tree, threads, options);
  const Plan& a = plan;
  const Plan& b = let.plan;
  if (a.m2l_pairs != b.m2l_pairs || a.p2l_terms != b.p2l_terms || a.m2p_terms != b.m2p_terms ||
      a.near.pairs != b.near.pairs || a.near.leaves() != b.near.leaves())
    throw RuntimeFailure(
        "internal: the rank's locally essential tree plans other lists than the global tree");
  // The local array: ghosts of lower ranks, own sources, ghosts of higher ranks (global order).
  LocalPositions at;
  const std::int64_t n_own = std::int64_t(own->n_sources());
  const std::vector<std::int64_t>& gl = ghosts->leaves;
  auto leaf_range = [&](std::int64_t g) {
    const BoxRef r = shape.leaves[g];
    at.add(shape.at(r).src_begin[r.box], shape.at(r).src_end[r.box]);
  };
  std::size_t k = 0;
  for (; k < gl.size() && gl[k] < first; ++k) leaf_range(gl[k]);
  at.add(own->source_offset, own->source_offset + n_own);
  for (; k < gl.size(); ++k) leaf_range(gl[k]);
  if (at.size() != n_own + std::int64_t(ghosts->size()))
    throw RuntimeFailure("internal: the rank's ghost and own sources do not add up");
  to_local_positions(at, &let.tree, &let.plan);
  let.own_begin = ghosts->before;
  // The points: sources in local order, targets the own ones (the own sources when self).
  Tree& t = let.tree;
  const std::size_t ns = std::size_t(at.size()), gb = std::size_t(ghosts->before);
  t.sx.resize(ns);
  t.sy.resize(ns);
  std::copy(ghosts->x.begin(), ghosts->x.begin() + gb, t.sx.begin());
  std::copy(ghosts->y.begin(), ghosts->y.begin() + gb, t.sy.begin());
  std::copy(own->sx.begin(), own->sx.end(), t.sx.begin() + gb);
  std::copy(own->sy.begin(), own->sy.end(), t.sy.begin() + gb);
  std::copy(ghosts->x.begin() + gb, ghosts->x.end(), t.sx.begin() + gb + n_own);
  std::copy(ghosts->y.begin() + gb, ghosts->y.end(), t.sy.begin() + gb + n_own);
  t.src_index.resize(ns);
  std::iota(t.src_index.begin(), t.src_index.end(), 0);
  const bool self = shape.self;
  t.separate_tx = self ? own->sx : std::move(own->tx);
  t.separate_ty = self ? own->sy : std::move(own->ty);
  t.separate_tgt_index.resize(t.separate_tx.size());
  std::iota(t.separate_tgt_index.begin(), t.separate_tgt_index.end(), 0);
  Array<double>().swap(ghosts->x);
  Array<double>().swap(ghosts->y);
  return let;
}

}  // namespace mlfma2d
