// Host-side data collection of the CUDA back ends (paper Alg. 1 and 3) and the chunk planner.
#include "nearfield/cuda/collect.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdio>

#include "mlfma2d/errors.hpp"

namespace mlfma2d::cuda {

namespace {

int team_size(int threads) {
  return threads > 0 ? threads : omp_get_max_threads();
}

std::string mb(std::size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", double(bytes) / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

std::vector<std::int64_t> near_source_counts(const Tree& tree, const Plan& plan) {
  const Level& leaves = tree.leaves();
  const auto n_leaves = static_cast<std::int64_t>(leaves.size());
  // Chunks are contiguous target ranges only if the leaves tile the tree-ordered targets.
  std::int64_t next = 0;
  for (std::int64_t b = 0; b < n_leaves; ++b) {
    if (leaves.tgt_begin[b] != next || leaves.tgt_end[b] < leaves.tgt_begin[b]) {
      throw RuntimeFailure("internal error: the leaves' target ranges do not tile the targets");
    }
    next = leaves.tgt_end[b];
  }
  if (next != static_cast<std::int64_t>(tree.n_targets())) {
    throw RuntimeFailure("internal error: the leaves hold " + std::to_string(next) + " of " +
                         std::to_string(tree.n_targets()) + " targets");
  }
  if (plan.near_begin.size() != leaves.size() + 1) {
    throw RuntimeFailure("internal error: the plan's near lists do not match the tree's leaves");
  }
  std::vector<std::int64_t> counts(n_leaves, 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < n_leaves; ++b) {
    std::int64_t n = 0;
    for (std::int64_t k = plan.near_begin[b]; k < plan.near_begin[b + 1]; ++k) {
      const std::int32_t nb = plan.near_box[k];
      n += leaves.src_end[nb] - leaves.src_begin[nb];
    }
    counts[b] = n;
  }
  return counts;
}

ChunkPlan plan_chunks(const Tree& tree, const std::vector<std::int64_t>& near_sources,
                      const ChunkCost& cost, std::size_t budget, std::size_t max_targets,
                      const std::string& backend) {
  const Level& leaves = tree.leaves();
  const auto n_leaves = static_cast<std::int64_t>(leaves.size());
  const std::string who = "back end '" + backend + "': ";
  if (cost.fixed > budget) {
    throw RuntimeFailure(who + "the arrays kept on the device for the whole evaluation need " +
                         mb(cost.fixed) + " MB of device memory but only " + mb(budget) +
                         " MB are available");
  }
  ChunkPlan plan;
  auto close = [&](const Chunk& c) {
    plan.max_targets = std::max(plan.max_targets, c.targets());
    plan.chunk_bytes = std::max(plan.chunk_bytes, cost.bytes(c) - cost.fixed);
    plan.chunks.push_back(c);
  };
  if (max_targets == 0) max_targets = 1;
  Chunk cur;
  for (std::int64_t b = 0; b < n_leaves; ++b) {
    Chunk grown = cur;
    if (cur.leaves() == 0) grown = Chunk{b, b, leaves.tgt_begin[b], leaves.tgt_begin[b], 0};
    grown.leaf_end = b + 1;
    grown.tgt_end = leaves.tgt_end[b];
    grown.neighbors += near_sources[b];
    const bool fits = cost.bytes(grown) <= budget && std::size_t(grown.targets()) <= max_targets;
    if (!fits && cur.leaves() > 0) {
      close(cur);
      grown = Chunk{b, b + 1, leaves.tgt_begin[b], leaves.tgt_end[b], near_sources[b]};
    }
    if (cost.bytes(grown) > budget) {
      throw RuntimeFailure(who + "one chunk of " + std::to_string(grown.targets()) +
                           " targets needs " + mb(cost.bytes(grown)) +
                           " MB of device memory but only " + mb(budget) +
                           " MB are available (a chunk holds at least one whole leaf box)");
    }
    cur = grown;
  }
  if (cur.leaves() > 0) close(cur);
  plan.bytes = cost.fixed + plan.chunk_bytes;
  return plan;
}

void copy_parallel(const double* src, std::size_t n, double* dst, int threads) {
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static) num_threads(team_size(threads))
  for (std::int64_t i = 0; i < count; ++i) dst[i] = src[i];
}

IndexingChunkLayout indexing_chunk_layout(const Chunk& c) {
  IndexingChunkLayout l;
  const std::size_t starts = sizeof(std::int64_t) * std::size_t(c.leaves() + 1);
  l.all_targets_index = 0;
  l.all_neighbors_index = starts;
  l.all_targets = 2 * starts;
  l.all_neighbors = l.all_targets + sizeof(std::int32_t) * std::size_t(c.targets());
  l.bytes = l.all_neighbors + sizeof(std::int32_t) * std::size_t(c.neighbors);
  return l;
}

ChunkCost indexing_chunk_cost() {
  ChunkCost cost;
  cost.per_chunk = 2 * sizeof(std::int64_t);  // the "+1" entries of the two start arrays
  cost.per_leaf = 2 * sizeof(std::int64_t);
  cost.per_target = sizeof(std::int32_t);
  cost.per_neighbor = sizeof(std::int32_t);
  return cost;
}

// Paper Alg. 1, one chunk. allTargets is tree.tgt_index over the chunk's leaves' target ranges
// (which follow one another), so the boxes' starts are their tree-order target offsets.
void collect_indexing_chunk(const Tree& tree, const Plan& plan,
                            const std::vector<std::int64_t>& near_sources, const Chunk& c,
                            int threads, std::int32_t* all_targets, std::int64_t* all_targets_index,
                            std::int32_t* all_neighbors, std::int64_t* all_neighbors_index) {
  const Level& leaves = tree.leaves();
  const std::int64_t n_boxes = c.leaves();
  // The two second-order indices: prefix sums over the chunk's boxes (O(boxes), serial).
  std::int64_t pos = 0;
  for (std::int64_t k = 0; k < n_boxes; ++k) {
    all_targets_index[k] = leaves.tgt_begin[c.leaf_begin + k] - c.tgt_begin;
    all_neighbors_index[k] = pos;
    pos += near_sources[c.leaf_begin + k];
  }
  all_targets_index[n_boxes] = c.targets();
  all_neighbors_index[n_boxes] = pos;

  const int nt = team_size(threads);
  const std::int64_t n_targets = c.targets();
  const std::int64_t* tgt_index = tree.tgt_index.data() + c.tgt_begin;
#pragma omp parallel num_threads(nt)
  {
#pragma omp for schedule(static) nowait
    for (std::int64_t i = 0; i < n_targets; ++i) {
      all_targets[i] = static_cast<std::int32_t>(tgt_index[i]);
    }
#pragma omp for schedule(dynamic, 64)
    for (std::int64_t k = 0; k < n_boxes; ++k) {
      const std::int64_t b = c.leaf_begin + k;
      std::int32_t* out = all_neighbors + all_neighbors_index[k];
      for (std::int64_t e = plan.near_begin[b]; e < plan.near_begin[b + 1]; ++e) {
        const std::int32_t nb = plan.near_box[e];
        for (std::int64_t j = leaves.src_begin[nb]; j < leaves.src_end[nb]; ++j) {
          *out++ = static_cast<std::int32_t>(tree.src_index[j]);
        }
      }
    }
  }
}

std::int64_t repetition_stride(const Tree& tree) {
  return 3 + 27 * static_cast<std::int64_t>(tree.t);  // [x, y, n] + 9 boxes * t * (sx, sy, q)
}

void gather_tree_order(const Tree& tree, const double* q, double* q_tree, int threads) {
  const auto n = static_cast<std::int64_t>(tree.n_sources());
  const std::int64_t* idx = tree.src_index.data();
#pragma omp parallel for schedule(static) num_threads(team_size(threads))
  for (std::int64_t i = 0; i < n; ++i) q_tree[i] = q[idx[i]];
}

// Paper Alg. 3, one chunk: for every box and every target in it, its coordinates, then every
// source of the box's E1 boxes appended as (sx, sy, q), then the count n.
void collect_repetition_chunk(const Tree& tree, const Plan& plan, const Chunk& c,
                              const double* q_tree, std::int64_t stride, int threads,
                              double* records) {
  const Level& leaves = tree.leaves();
  const double* sx = tree.sx.data();
  const double* sy = tree.sy.data();
#pragma omp parallel for schedule(dynamic, 16) num_threads(team_size(threads))
  for (std::int64_t b = c.leaf_begin; b < c.leaf_end; ++b) {
    for (std::int64_t i = leaves.tgt_begin[b]; i < leaves.tgt_end[b]; ++i) {
      double* r = records + (i - c.tgt_begin) * stride;
      r[0] = tree.tx[i];
      r[1] = tree.ty[i];
      double* s = r + 3;
      std::int64_t n = 0;
      for (std::int64_t e = plan.near_begin[b]; e < plan.near_begin[b + 1]; ++e) {
        const std::int32_t nb = plan.near_box[e];
        for (std::int64_t j = leaves.src_begin[nb]; j < leaves.src_end[nb]; ++j, ++n) {
          s[3 * n] = sx[j];
          s[3 * n + 1] = sy[j];
          s[3 * n + 2] = q_tree[j];
        }
      }
      r[2] = static_cast<double>(n);
    }
  }
}

void scatter_to_caller(const Tree& tree, const Chunk& c, const double* in, double* out,
                       int threads) {
  const std::int64_t n = c.targets();
  const std::int64_t* idx = tree.tgt_index.data() + c.tgt_begin;
#pragma omp parallel for schedule(static) num_threads(team_size(threads))
  for (std::int64_t i = 0; i < n; ++i) out[idx[i]] = in[i];
}

}  // namespace mlfma2d::cuda
