// Host collection of the repetition records (paper Alg. 3), one chunk of near leaves at a time.
#include <algorithm>

#include "nearfield/cuda/repetition/repetition.hpp"
#include "runtime/threads.hpp"

namespace mlfma2d::cuda {

std::int64_t repetition_stride(const NearFieldProblem& p) {
  const std::int64_t longest = p.near ? p.near->max_sources() : 0;
  return 3 + 3 * std::max(9 * static_cast<std::int64_t>(p.t), longest);
}

// Paper Alg. 3, one chunk: for every box and every target in it, its coordinates, then every
// source of the box's near list appended as (sx, sy, q), then the count n.
void collect_repetition_chunk(const NearFieldProblem& p, const Chunk& c, const double* q_tree,
                              std::int64_t stride, double* records) {
  const NearField& near = *p.near;
#pragma omp parallel for schedule(dynamic, 16) num_threads(team_size(p.threads))
  for (std::int64_t b = c.leaf_begin; b < c.leaf_end; ++b) {
    for (std::int64_t i = near.leaf_tgt[b]; i < near.leaf_tgt[b + 1]; ++i) {
      double* r = records + (i - c.tgt_begin) * stride;
      r[0] = p.tx[i];
      r[1] = p.ty[i];
      double* s = r + 3;
      std::int64_t n = 0;
      for (std::int64_t k = near.range_begin[b]; k < near.range_begin[b + 1]; ++k) {
        for (std::int64_t j = near.range[2 * k]; j < near.range[2 * k + 1]; ++j, ++n) {
          s[3 * n] = p.sx[j];
          s[3 * n + 1] = p.sy[j];
          s[3 * n + 2] = q_tree[j];
        }
      }
      r[2] = static_cast<double>(n);
    }
  }
}

}  // namespace mlfma2d::cuda
