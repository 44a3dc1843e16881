// Host collection of the indexing layout (paper Alg. 1), one chunk of near leaves at a time.
#include "nearfield/cuda/indexing/indexing.hpp"
#include "runtime/threads.hpp"

namespace mlfma2d::cuda {

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

// Paper Alg. 1, one chunk. allTargets is tgt_index over the chunk's leaves' target ranges
// (which follow one another), so the boxes' starts are their tree-order target offsets.
void collect_indexing_chunk(const NearFieldProblem& p, const Chunk& c, std::int32_t* all_targets,
                            std::int64_t* all_targets_index, std::int32_t* all_neighbors,
                            std::int64_t* all_neighbors_index) {
  const NearField& near = *p.near;
  const std::int64_t n_boxes = c.leaves();
  // The two second-order indices: prefix sums over the chunk's boxes (O(boxes), serial).
  std::int64_t pos = 0;
  for (std::int64_t k = 0; k < n_boxes; ++k) {
    all_targets_index[k] = near.leaf_tgt[c.leaf_begin + k] - c.tgt_begin;
    all_neighbors_index[k] = pos;
    pos += near.sources[c.leaf_begin + k];
  }
  all_targets_index[n_boxes] = c.targets();
  all_neighbors_index[n_boxes] = pos;

  const std::int64_t n_targets = c.targets();
  const std::int64_t* tgt_index = p.tgt_index + c.tgt_begin;
#pragma omp parallel num_threads(team_size(p.threads))
  {
#pragma omp for schedule(static) nowait
    for (std::int64_t i = 0; i < n_targets; ++i) {
      all_targets[i] = static_cast<std::int32_t>(tgt_index[i]);
    }
#pragma omp for schedule(dynamic, 64)
    for (std::int64_t k = 0; k < n_boxes; ++k) {
      const std::int64_t b = c.leaf_begin + k;
      std::int32_t* out = all_neighbors + all_neighbors_index[k];
      for (std::int64_t r = near.range_begin[b]; r < near.range_begin[b + 1]; ++r) {
        for (std::int64_t j = near.range[2 * r]; j < near.range[2 * r + 1]; ++j) {
          *out++ = static_cast<std::int32_t>(p.src_index[j]);
        }
      }
    }
  }
}

}  // namespace mlfma2d::cuda
