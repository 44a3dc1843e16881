#pragma once
// Host-side data collection of the CUDA back ends (paper Alg. 1 and 3) and the chunk planner.
// Plain C++ with OpenMP, apart from the CUDA code so it can be tested without a GPU.
//
// Chunks: each evaluation processes the targets in chunks of whole leaves, in Morton order, so
// that the device arrays of one chunk fit the device-memory budget. The leaves' target ranges
// tile the tree-ordered targets, so a chunk's targets are one contiguous tree-order range.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "solver/plan.hpp"
#include "solver/tree.hpp"

namespace mlfma2d::cuda {

/// \brief Leaves [leaf_begin, leaf_end) and their targets [tgt_begin, tgt_end) (tree order);
/// `neighbors` = the length of the chunk's allNeighbors (sum of the leaves' E1 source counts).
struct Chunk {
  std::int64_t leaf_begin = 0, leaf_end = 0;
  std::int64_t tgt_begin = 0, tgt_end = 0;
  std::int64_t neighbors = 0;
  std::int64_t leaves() const { return leaf_end - leaf_begin; }
  std::int64_t targets() const { return tgt_end - tgt_begin; }
};

/// \brief Device bytes of a back end as a function of its chunk shape:
///   fixed + per_chunk + per_target * targets + per_leaf * leaves + per_neighbor * neighbors.
/// `fixed` are the arrays resident for the whole evaluation; the rest is the chunk's own arrays.
struct ChunkCost {
  std::size_t fixed = 0, per_chunk = 0, per_target = 0, per_leaf = 0, per_neighbor = 0;
  std::size_t bytes(const Chunk& c) const {
    return fixed + per_chunk + per_target * std::size_t(c.targets()) +
           per_leaf * std::size_t(c.leaves()) + per_neighbor * std::size_t(c.neighbors);
  }
};

/// \brief The chunks of one evaluation. The per-chunk arrays live in one buffer of
/// `chunk_bytes` = the largest chunk's own bytes, reused by every chunk, so the device memory
/// allocated, `bytes` = fixed + chunk_bytes, is within the budget.
struct ChunkPlan {
  std::vector<Chunk> chunks;
  std::int64_t max_targets = 0;  ///< most targets in one chunk
  std::size_t chunk_bytes = 0;
  std::size_t bytes = 0;
};

/// E1 source count of every leaf (the length of its allNeighbors list, and the n of each of its
/// targets' repetition records). Throws RuntimeFailure if the leaves' target ranges do not tile
/// the tree-ordered targets (an internal inconsistency of the tree).
std::vector<std::int64_t> near_source_counts(const Tree& tree, const Plan& plan);

/// Split the leaves, in order, into chunks: greedily add leaves while the chunk's cost stays
/// <= budget and it holds <= max_targets targets (a chunk always holds at least one leaf, so a
/// leaf with more targets than max_targets is a chunk of its own). Throws RuntimeFailure
/// "back end '<backend>': one chunk of K targets needs X MB of device memory but only Y MB are
/// available" when one leaf cannot fit.
ChunkPlan plan_chunks(const Tree& tree, const std::vector<std::int64_t>& near_sources,
                      const ChunkCost& cost, std::size_t budget, std::size_t max_targets,
                      const std::string& backend);

/// dst[i] = src[i], i < n, in parallel (the collection of the caller-order coordinate and charge
/// arrays into pinned staging).
void copy_parallel(const double* src, std::size_t n, double* dst, int threads);

// --- indexing (paper Alg. 1)

/// \brief Byte offsets of a chunk's four index arrays in one contiguous buffer (int64 arrays
/// first, so every array is aligned to its element size); uploaded with one copy.
struct IndexingChunkLayout {
  std::size_t all_targets_index = 0, all_neighbors_index = 0, all_targets = 0, all_neighbors = 0;
  std::size_t bytes = 0;  ///< = indexing_chunk_cost().bytes(c) - fixed
};
IndexingChunkLayout indexing_chunk_layout(const Chunk& c);
/// The per-chunk part of the indexing cost (matches indexing_chunk_layout); fixed = 0.
ChunkCost indexing_chunk_cost();

/// Fill the four index arrays of one chunk (local to the chunk):
///   all_targets[c.targets()]          caller target indices, box by box (= tree.tgt_index)
///   all_targets_index[c.leaves() + 1] start of each box in all_targets
///   all_neighbors[c.neighbors]        caller source indices of each box's E1 boxes
///   all_neighbors_index[c.leaves()+1] start of each box in all_neighbors
/// Point indices are int32: the caller checks n_sources, n_targets < 2^31.
void collect_indexing_chunk(const Tree& tree, const Plan& plan,
                            const std::vector<std::int64_t>& near_sources, const Chunk& c,
                            int threads, std::int32_t* all_targets, std::int64_t* all_targets_index,
                            std::int32_t* all_neighbors, std::int64_t* all_neighbors_index);

// --- repetition (paper Alg. 3)

/// Record stride in doubles: 3 + 27 t. A leaf's E1 has at most 9 boxes of at most t sources,
/// so a record [x, y, n, (sx, sy, q) * n] needs at most 3 + 3 * 9t doubles. (The paper uses
/// 3 + 27 CT; t <= CT unless the level offset is negative, and t is what bounds n.)
std::int64_t repetition_stride(const Tree& tree);

/// q_tree[i] = q[tree.src_index[i]]: charges in tree order, next to tree.sx/sy.
void gather_tree_order(const Tree& tree, const double* q, double* q_tree, int threads);

/// Write the records of the chunk's targets, in tree order, at records + (i - c.tgt_begin) *
/// stride: [x, y, n, (sx, sy, q) * n]. The padding after 3 + 3n is not written.
void collect_repetition_chunk(const Tree& tree, const Plan& plan, const Chunk& c,
                              const double* q_tree, std::int64_t stride, int threads,
                              double* records);

/// out[tree.tgt_index[c.tgt_begin + i]] = in[i] for i < c.targets(): tree-ordered chunk results
/// into caller order.
void scatter_to_caller(const Tree& tree, const Chunk& c, const double* in, double* out,
                       int threads);

}  // namespace mlfma2d::cuda
