// Host-side layouts of the back ends 'shared' and 'repetition-gpu' (see fast_layout.hpp).
#include "nearfield/cuda/fast_layout.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <numeric>

#include "mlfma2d/errors.hpp"
#include "nearfield/cuda/collect.hpp"

namespace mlfma2d::cuda {

namespace {

int team_size(int threads) {
  return threads > 0 ? threads : omp_get_max_threads();
}

/// Groups are formed greedily inside runs of this many leaves, independently (in parallel).
constexpr std::int64_t kLeavesPerRun = 4096;

/// \brief One group: leaves [leaf_begin, leaf_end) (those with targets take part), the size of
/// its union, and whether it is a one-leaf (dense) group.
struct GroupInfo {
  std::int64_t leaf_begin = 0, leaf_end = 0;
  std::int64_t unions = 0;
  bool dense = false;
};

/// The sorted, distinct E1 boxes of the target-holding leaves in [lb, le).
void union_boxes(const Tree& tree, const Plan& plan, std::int64_t lb, std::int64_t le,
                 std::vector<std::int32_t>* boxes) {
  const Level& leaves = tree.leaves();
  boxes->clear();
  for (std::int64_t b = lb; b < le; ++b) {
    if (!leaves.has_targets(b)) continue;
    for (std::int64_t e = plan.near_begin[b]; e < plan.near_begin[b + 1]; ++e) {
      boxes->push_back(plan.near_box[e]);
    }
  }
  std::sort(boxes->begin(), boxes->end());
  boxes->erase(std::unique(boxes->begin(), boxes->end()), boxes->end());
}

/// Greedy grouping of leaves [lb, le) (one run): a leaf joins the open group while the group
/// stays within `block` targets and `tile` union sources.
void group_run(const Tree& tree, const Plan& plan, const std::vector<std::int32_t>& leaf_n,
               SharedMode mode, int block, int tile, std::int64_t lb, std::int64_t le,
               std::vector<GroupInfo>* out) {
  const Level& leaves = tree.leaves();
  std::vector<std::int32_t> boxes;  // sorted union boxes of the open group
  GroupInfo cur;
  std::int64_t targets = 0, members = 0;
  auto close = [&] {
    if (members == 0) return;
    cur.dense = members == 1;
    out->push_back(cur);
    boxes.clear();
    targets = members = 0;
  };
  for (std::int64_t b = lb; b < le; ++b) {
    const std::int64_t nt = leaves.tgt_end[b] - leaves.tgt_begin[b];
    if (nt == 0) continue;
    if (mode == SharedMode::kLeaves) {
      out->push_back(GroupInfo{b, b + 1, leaf_n[b], true});
      continue;
    }
    std::int64_t added = 0;  // union sources this leaf would add
    for (std::int64_t e = plan.near_begin[b]; e < plan.near_begin[b + 1]; ++e) {
      const std::int32_t nb = plan.near_box[e];
      if (!std::binary_search(boxes.begin(), boxes.end(), nb)) {
        added += leaves.src_end[nb] - leaves.src_begin[nb];
      }
    }
    if (members > 0 && (targets + nt > block || cur.unions + added > tile)) {
      close();
      added = leaf_n[b];
    }
    if (members == 0) cur = GroupInfo{b, b, 0, false};
    for (std::int64_t e = plan.near_begin[b]; e < plan.near_begin[b + 1]; ++e) {
      const std::int32_t nb = plan.near_box[e];
      const auto it = std::lower_bound(boxes.begin(), boxes.end(), nb);
      if (it == boxes.end() || *it != nb) boxes.insert(it, nb);
    }
    cur.leaf_end = b + 1;
    cur.unions += added;
    targets += nt;
    ++members;
  }
  close();
}

}  // namespace

void check_int32_points(const Tree& tree, const std::string& backend) {
  constexpr std::size_t kMax = std::numeric_limits<std::int32_t>::max();
  if (tree.n_sources() > kMax || tree.n_targets() > kMax) {
    throw InvalidInput("back end '" + backend + "' stores point indices as int32: at most " +
                       std::to_string(kMax) + " sources and targets, got " +
                       std::to_string(tree.n_sources()) + " and " +
                       std::to_string(tree.n_targets()));
  }
}

LeafSegments leaf_segments(const Tree& tree, const Plan& plan, int threads) {
  near_source_counts(tree, plan);  // throws if the leaves do not tile the targets
  const Level& leaves = tree.leaves();
  const auto n_leaves = static_cast<std::int64_t>(leaves.size());
  LeafSegments s;
  s.begin.assign(n_leaves + 1, 0);
  s.count.assign(n_leaves, 0);
  // Walks leaf b's E1 boxes, calling emit(lo, hi) once per merged range.
  auto walk = [&](std::int64_t b, auto&& emit) {
    std::int64_t lo = -1, hi = -1;
    for (std::int64_t e = plan.near_begin[b]; e < plan.near_begin[b + 1]; ++e) {
      const std::int32_t nb = plan.near_box[e];
      const std::int64_t a = leaves.src_begin[nb], z = leaves.src_end[nb];
      if (a == z) continue;
      if (a == hi) {
        hi = z;  // follows the previous range in tree order: merge
      } else {
        if (hi > lo) emit(lo, hi);
        lo = a;
        hi = z;
      }
    }
    if (hi > lo) emit(lo, hi);
  };
#pragma omp parallel for schedule(dynamic, 1024) num_threads(team_size(threads))
  for (std::int64_t b = 0; b < n_leaves; ++b) {
    std::int64_t segs = 0, n = 0;
    walk(b, [&](std::int64_t lo, std::int64_t hi) {
      ++segs;
      n += hi - lo;
    });
    s.begin[b + 1] = segs;
    s.count[b] = static_cast<std::int32_t>(n);
  }
  for (std::int64_t b = 0; b < n_leaves; ++b) s.begin[b + 1] += s.begin[b];
  s.seg.resize(2 * std::size_t(s.begin[n_leaves]));
#pragma omp parallel for schedule(dynamic, 1024) num_threads(team_size(threads))
  for (std::int64_t b = 0; b < n_leaves; ++b) {
    std::int32_t* out = s.seg.data() + 2 * s.begin[b];
    walk(b, [&](std::int64_t lo, std::int64_t hi) {
      *out++ = static_cast<std::int32_t>(lo);
      *out++ = static_cast<std::int32_t>(hi);
    });
  }
  return s;
}

std::vector<std::int32_t> target_leaves(const Tree& tree, int threads) {
  const Level& leaves = tree.leaves();
  const auto n_leaves = static_cast<std::int64_t>(leaves.size());
  std::vector<std::int32_t> leaf(tree.n_targets(), 0);
#pragma omp parallel for schedule(dynamic, 1024) num_threads(team_size(threads))
  for (std::int64_t b = 0; b < n_leaves; ++b) {
    for (std::int64_t i = leaves.tgt_begin[b]; i < leaves.tgt_end[b]; ++i) {
      leaf[i] = static_cast<std::int32_t>(b);
    }
  }
  return leaf;
}

const char* shared_mode_name(SharedMode mode) {
  switch (mode) {
    case SharedMode::kGroups:
      return "groups";
    case SharedMode::kGroupsUnsorted:
      return "groups-unsorted";
    case SharedMode::kLeaves:
      return "leaves";
  }
  return "?";
}

SharedLayout shared_layout(const Tree& tree, const Plan& plan, const LeafSegments& segments,
                           SharedMode mode, int block, int tile, int threads) {
  const Level& leaves = tree.leaves();
  const auto n_leaves = static_cast<std::int64_t>(leaves.size());
  const int team = team_size(threads);
  SharedLayout l;
  l.block = block;
  l.tile = tile;
  l.mode = mode;

  // 1. Groups, run by run (in parallel), then concatenated in leaf order.
  const std::int64_t runs = (n_leaves + kLeavesPerRun - 1) / kLeavesPerRun;
  std::vector<std::vector<GroupInfo>> per_run(runs);
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
  for (std::int64_t r = 0; r < runs; ++r) {
    group_run(tree, plan, segments.count, mode, block, tile, r * kLeavesPerRun,
              std::min(n_leaves, (r + 1) * kLeavesPerRun), &per_run[r]);
  }
  std::vector<GroupInfo> groups;
  for (auto& v : per_run) groups.insert(groups.end(), v.begin(), v.end());
  per_run.clear();
  const auto n_groups = static_cast<std::int64_t>(groups.size());

  l.group_slot.resize(n_groups + 1);
  l.group_union.resize(n_groups + 1);
  l.group_dense.resize(n_groups);
  l.group_union[0] = 0;
  for (std::int64_t g = 0; g < n_groups; ++g) {
    // The first leaf of a group holds targets; the leaves' target ranges tile the targets, so
    // consecutive groups' slot ranges follow one another.
    l.group_slot[g] = leaves.tgt_begin[groups[g].leaf_begin];
    l.group_union[g + 1] = l.group_union[g] + groups[g].unions;
    l.group_dense[g] = groups[g].dense ? 1 : 0;
  }
  l.group_slot[n_groups] = static_cast<std::int64_t>(tree.n_targets());

  l.leaf_seg = segments.begin;
  l.leaf_n = segments.count;
  l.seg.assign(segments.seg.size(), 0);
  l.union_src.resize(std::size_t(l.group_union[n_groups]));
  l.slot_tgt.resize(tree.n_targets());
  l.slot_leaf.resize(tree.n_targets());

  // 2. Per group: its union list, its leaves' segments in union coordinates, its slots.
  const bool sorted = mode == SharedMode::kGroups;
  std::atomic<bool> miscounted{false};
#pragma omp parallel num_threads(team)
  {
    std::vector<std::int32_t> boxes, order;
    std::vector<std::int64_t> box_src, box_off;  // tree-order start, union offset of each box
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t g = 0; g < n_groups; ++g) {
      const GroupInfo& gi = groups[g];
      union_boxes(tree, plan, gi.leaf_begin, gi.leaf_end, &boxes);
      box_src.resize(boxes.size());
      box_off.resize(boxes.size());
      std::int32_t* u = l.union_src.data() + l.group_union[g];
      std::int64_t off = 0;
      for (std::size_t k = 0; k < boxes.size(); ++k) {
        const std::int32_t nb = boxes[k];
        box_src[k] = leaves.src_begin[nb];
        box_off[k] = off;
        for (std::int64_t j = leaves.src_begin[nb]; j < leaves.src_end[nb]; ++j, ++off) {
          if (off < gi.unions) u[off] = static_cast<std::int32_t>(j);
        }
      }
      if (off != gi.unions) miscounted = true;  // no throw inside the parallel region
      order.clear();
      for (std::int64_t b = gi.leaf_begin; b < gi.leaf_end; ++b) {
        if (!leaves.has_targets(b)) continue;
        order.push_back(static_cast<std::int32_t>(b));
        // Each merged tree-order range lies in consecutive union boxes: map its start.
        for (std::int64_t s = segments.begin[b]; s < segments.begin[b + 1]; ++s) {
          const std::int32_t lo = segments.seg[2 * s], hi = segments.seg[2 * s + 1];
          const auto k = std::upper_bound(box_src.begin(), box_src.end(), std::int64_t(lo)) -
                         box_src.begin() - 1;
          const std::int64_t ulo = box_off[k] + (lo - box_src[k]);
          l.seg[2 * s] = static_cast<std::int32_t>(ulo);
          l.seg[2 * s + 1] = static_cast<std::int32_t>(ulo + (hi - lo));
        }
      }
      if (sorted && !gi.dense) {
        std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
          return segments.count[a] > segments.count[b];
        });
      }
      std::int64_t slot = l.group_slot[g];
      for (const std::int32_t b : order) {
        for (std::int64_t i = leaves.tgt_begin[b]; i < leaves.tgt_end[b]; ++i, ++slot) {
          l.slot_tgt[slot] = static_cast<std::int32_t>(i);
          l.slot_leaf[slot] = b;
        }
      }
    }
  }
  if (miscounted) {
    throw RuntimeFailure("internal error: back end 'shared': a group's union size was miscounted");
  }
  return l;
}

}  // namespace mlfma2d::cuda
