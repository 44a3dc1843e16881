// Host-side layout of the 'shared' back end (shared.hpp), built once per geometry in setup().
#include <algorithm>
#include <atomic>

#include "nearfield/cuda/shared/shared.hpp"
#include "runtime/threads.hpp"

namespace mlfma2d::cuda {

namespace {

/// Groups are formed greedily inside runs of this many leaves, independently (in parallel).
constexpr std::int64_t kLeavesPerRun = 4096;

/// \brief A set of tree-order source indices as sorted, disjoint intervals [lo, hi), merged
/// where one ends where the next starts (so each of a leaf's ranges lies inside one interval).
class IntervalSet {
 public:
  void clear() { iv_.clear(); }
  /// How many of [lo, hi) are not in the set yet.
  std::int64_t missing(std::int64_t lo, std::int64_t hi) const {
    std::int64_t covered = 0;
    for (auto it = first_touching(lo); it != iv_.end() && it->first < hi; ++it)
      covered += std::min(hi, it->second) - std::max(lo, it->first);
    return (hi - lo) - covered;
  }
  void insert(std::int64_t lo, std::int64_t hi) {
    auto it = first_touching(lo);
    auto last = it;
    while (last != iv_.end() && last->first <= hi) {
      lo = std::min(lo, last->first);
      hi = std::max(hi, last->second);
      ++last;
    }
    it = iv_.erase(it, last);
    iv_.insert(it, {lo, hi});
  }
  const std::vector<std::pair<std::int64_t, std::int64_t>>& intervals() const { return iv_; }

 private:
  // The first interval that ends at or after `lo` (it may touch or overlap [lo, ...)).
  std::vector<std::pair<std::int64_t, std::int64_t>>::iterator first_touching(std::int64_t lo) {
    return std::lower_bound(iv_.begin(), iv_.end(), lo,
                            [](const auto& v, std::int64_t x) { return v.second < x; });
  }
  std::vector<std::pair<std::int64_t, std::int64_t>>::const_iterator first_touching(
      std::int64_t lo) const {
    return std::lower_bound(iv_.begin(), iv_.end(), lo,
                            [](const auto& v, std::int64_t x) { return v.second < x; });
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> iv_;
};

/// \brief One group: near leaves [leaf_begin, leaf_end), the size of its union, and whether it
/// is a one-leaf (dense) group.
struct GroupInfo {
  std::int64_t leaf_begin = 0, leaf_end = 0;
  std::int64_t unions = 0;
  bool dense = false;
};

/// The union of the near lists of leaves [lb, le).
void union_of(const NearField& near, std::int64_t lb, std::int64_t le, IntervalSet* set) {
  set->clear();
  for (std::int64_t b = lb; b < le; ++b)
    for (std::int64_t r = near.range_begin[b]; r < near.range_begin[b + 1]; ++r)
      set->insert(near.range[2 * r], near.range[2 * r + 1]);
}

/// Greedy grouping of leaves [lb, le) (one run): a leaf joins the open group while the group
/// stays within `block` targets and `tile` union sources.
void group_run(const NearField& near, int block, int tile, std::int64_t lb, std::int64_t le,
               std::vector<GroupInfo>* out) {
  IntervalSet set;  // union of the open group
  GroupInfo cur;
  std::int64_t targets = 0, members = 0;
  auto close = [&] {
    if (members == 0) return;
    cur.dense = members == 1;
    out->push_back(cur);
    set.clear();
    targets = members = 0;
  };
  for (std::int64_t b = lb; b < le; ++b) {
    const std::int64_t nt = near.targets(b);
    std::int64_t added = 0;  // union sources this leaf would add
    for (std::int64_t r = near.range_begin[b]; r < near.range_begin[b + 1]; ++r)
      added += set.missing(near.range[2 * r], near.range[2 * r + 1]);
    if (members > 0 && (targets + nt > block || cur.unions + added > tile)) {
      close();
      added = near.sources[b];
    }
    if (members == 0) cur = GroupInfo{b, b, 0, false};
    for (std::int64_t r = near.range_begin[b]; r < near.range_begin[b + 1]; ++r)
      set.insert(near.range[2 * r], near.range[2 * r + 1]);
    cur.leaf_end = b + 1;
    cur.unions += added;
    targets += nt;
    ++members;
  }
  close();
}

// 1. Groups, run by run (in parallel), then concatenated in leaf order.
std::vector<GroupInfo> make_groups(const NearField& near, int block, int tile, int team) {
  const auto n_leaves = static_cast<std::int64_t>(near.leaves());
  const std::int64_t runs = (n_leaves + kLeavesPerRun - 1) / kLeavesPerRun;
  std::vector<std::vector<GroupInfo>> per_run(runs);
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
  for (std::int64_t r = 0; r < runs; ++r) {
    group_run(near, block, tile, r * kLeavesPerRun, std::min(n_leaves, (r + 1) * kLeavesPerRun),
              &per_run[r]);
  }
  std::vector<GroupInfo> groups;
  for (auto& v : per_run) groups.insert(groups.end(), v.begin(), v.end());
  return groups;
}

// Each group's union offset (returned, one past the last too); a dense group of more than `block`
// targets becomes that many blocks' worth of chunks, consecutive in slots, sharing the union.
std::vector<std::int64_t> place_chunks(const NearField& near, const std::vector<GroupInfo>& groups,
                                       std::size_t n_targets, SharedLayout* l) {
  const auto n_groups = static_cast<std::int64_t>(groups.size());
  const int block = l->block;
  std::vector<std::int64_t> group_union(n_groups + 1, 0), first_chunk(n_groups + 1, 0);
  for (std::int64_t g = 0; g < n_groups; ++g) {
    const GroupInfo& gi = groups[g];
    const std::int64_t nt = near.leaf_tgt[gi.leaf_end] - near.leaf_tgt[gi.leaf_begin];
    group_union[g + 1] = group_union[g] + gi.unions;
    first_chunk[g + 1] = first_chunk[g] + (gi.dense ? (nt + block - 1) / block : 1);
  }
  const std::int64_t n_chunks = first_chunk[n_groups];
  l->group_slot.resize(n_chunks + 1);
  l->union_begin.resize(n_chunks);
  l->union_end.resize(n_chunks);
  l->group_dense.resize(n_chunks);
  for (std::int64_t g = 0; g < n_groups; ++g) {
    // The near leaves' target ranges tile the targets, so consecutive groups' slot ranges
    // follow one another.
    const std::int64_t slot0 = near.leaf_tgt[groups[g].leaf_begin];
    for (std::int64_t c = first_chunk[g]; c < first_chunk[g + 1]; ++c) {
      l->group_slot[c] = slot0 + (c - first_chunk[g]) * block;
      l->union_begin[c] = group_union[g];
      l->union_end[c] = group_union[g + 1];
      l->group_dense[c] = groups[g].dense ? 1 : 0;
    }
  }
  l->group_slot[n_chunks] = static_cast<std::int64_t>(n_targets);
  return group_union;
}

// 2. Per group: its union list, its leaves' ranges in union coordinates, its slots (in
// parallel). Returns false when a union's size was miscounted (no throw inside the region).
bool fill_groups(const NearField& near, const std::vector<GroupInfo>& groups,
                 const std::vector<std::int64_t>& group_union, int team, SharedLayout* l) {
  const auto n_groups = static_cast<std::int64_t>(groups.size());
  std::atomic<bool> miscounted{false};
#pragma omp parallel num_threads(team)
  {
    IntervalSet set;
    std::vector<std::int64_t> iv_lo, iv_off;  // each union interval's start and union offset
    std::vector<std::int32_t> order;
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t g = 0; g < n_groups; ++g) {
      const GroupInfo& gi = groups[g];
      union_of(near, gi.leaf_begin, gi.leaf_end, &set);
      std::int32_t* u = l->union_src.data() + group_union[g];
      std::int64_t off = 0;
      iv_lo.clear();
      iv_off.clear();
      for (const auto& [lo, hi] : set.intervals()) {
        iv_lo.push_back(lo);
        iv_off.push_back(off);
        for (std::int64_t j = lo; j < hi; ++j, ++off)
          if (off < gi.unions) u[off] = static_cast<std::int32_t>(j);
      }
      if (off != gi.unions) miscounted = true;
      order.clear();
      for (std::int64_t b = gi.leaf_begin; b < gi.leaf_end; ++b) {
        order.push_back(static_cast<std::int32_t>(b));
        // Each range lies inside one union interval: map its start.
        for (std::int64_t r = near.range_begin[b]; r < near.range_begin[b + 1]; ++r) {
          const std::int64_t lo = near.range[2 * r], hi = near.range[2 * r + 1];
          const auto k = std::upper_bound(iv_lo.begin(), iv_lo.end(), lo) - iv_lo.begin() - 1;
          const std::int64_t ulo = iv_off[k] + (lo - iv_lo[k]);
          l->seg[2 * r] = static_cast<std::int32_t>(ulo);
          l->seg[2 * r + 1] = static_cast<std::int32_t>(ulo + (hi - lo));
        }
      }
      if (!gi.dense) {
        std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
          return near.sources[a] > near.sources[b];
        });
      }
      std::int64_t slot = near.leaf_tgt[gi.leaf_begin];
      for (const std::int32_t b : order) {
        for (std::int64_t i = near.leaf_tgt[b]; i < near.leaf_tgt[b + 1]; ++i, ++slot) {
          l->slot_tgt[slot] = static_cast<std::int32_t>(i);
          l->slot_leaf[slot] = b;
        }
      }
    }
  }
  return !miscounted;
}

}  // namespace

SharedLayout shared_layout(const NearFieldProblem& p, int block, int tile) {
  return shared_layout(p, *p.near, block, tile);
}

SharedLayout shared_layout(const NearFieldProblem& p, const NearField& near, int block, int tile) {
  const auto n_leaves = static_cast<std::int64_t>(near.leaves());
  const int team = team_size(p.threads);
  SharedLayout l;
  l.block = block;
  l.tile = tile;
  const std::vector<GroupInfo> groups = make_groups(near, block, tile, team);
  const std::vector<std::int64_t> group_union = place_chunks(near, groups, p.n_targets, &l);
  l.leaf_seg = near.range_begin;
  l.leaf_n.resize(n_leaves);
  for (std::int64_t b = 0; b < n_leaves; ++b) l.leaf_n[b] = std::int32_t(near.sources[b]);
  l.seg.resize(near.range.size());  // every range is in one group: all written below
  l.union_src.resize(std::size_t(group_union.back()));
  l.slot_tgt.resize(p.n_targets);
  l.slot_leaf.resize(p.n_targets);
  if (!fill_groups(near, groups, group_union, team, &l)) {
    throw RuntimeFailure("internal error: back end 'shared': a group's union size was miscounted");
  }
  return l;
}

}  // namespace mlfma2d::cuda
