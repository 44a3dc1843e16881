#pragma once
// 'repetition-gpu': the papers' repetition records built on the GPU from resident compact arrays
// (the near lists as tree-order source ranges), one warp per record; the sums then run the
// 'repetition' kernel unchanged. The record writer is a plain MLFMA2D_HD function so
// tests/test_fast_layout.cpp checks it on the host.
#include <cstdint>
#include <vector>

#include "kernel/pair.hpp"
#include "nearfield/backend.hpp"

namespace mlfma2d::cuda {

/// \brief Device arrays from which 'repetition-gpu' builds the padded records.
struct RecordArrays {
  const double* tx = nullptr;  ///< target x, tree order
  const double* ty = nullptr;
  const double* sx = nullptr;  ///< source x, tree order
  const double* sy = nullptr;
  const double* q = nullptr;               ///< charges, tree order
  const std::int32_t* tgt_leaf = nullptr;  ///< near leaf of each tree-ordered target
  const std::int64_t* leaf_seg = nullptr;  ///< near leaves + 1, into seg (NearField::range_begin)
  const std::int64_t* leaf_n = nullptr;    ///< near sources of each leaf (NearField::sources)
  const std::int64_t* seg = nullptr;  ///< [lo, hi) pairs, tree-order sources (NearField::range)
};

/// Write elements lane, lane + lanes, ... of tree-ordered target i's record
///   [x, y, n, (sx, sy, q) * n]            (the layout of paper Alg. 3, repetition.hpp)
/// into `record`. A warp writes one record with lanes = 32: consecutive lanes, consecutive
/// doubles (coalesced). The padding after 3 + 3n is not written.
MLFMA2D_HD void fill_record(const RecordArrays& a, std::int64_t i, int lane, int lanes,
                            double* record) {
  const std::int32_t leaf = a.tgt_leaf[i];
  const std::int64_t n = a.leaf_n[leaf];
  const std::int64_t* seg = a.seg + 2 * a.leaf_seg[leaf];
  // Cursor over the ranges: source k is seg[0] + (k - base) while k < base + len. k grows with
  // e, so the cursor only moves forward.
  std::int64_t base = 0, lo = 0, len = 0;
  if (n > 0) {
    lo = seg[0];
    len = seg[1] - seg[0];
  }
  const std::int64_t size = 3 + 3 * n;
  for (std::int64_t e = lane; e < size; e += lanes) {
    if (e < 3) {
      record[e] = e == 0 ? a.tx[i] : e == 1 ? a.ty[i] : static_cast<double>(n);
      continue;
    }
    const std::int64_t k = (e - 3) / 3, c = (e - 3) - 3 * k;
    while (k >= base + len) {
      base += len;
      seg += 2;
      lo = seg[0];
      len = seg[1] - seg[0];
    }
    const std::int64_t j = lo + (k - base);
    record[e] = c == 0 ? a.sx[j] : c == 1 ? a.sy[j] : a.q[j];
  }
}

/// tgt_leaf[i] = the near leaf holding tree-ordered target i.
std::vector<std::int32_t> target_leaves(const NearFieldProblem& p);

/// Build the records of tree-ordered targets [first, first + count) at records + (i - first) *
/// stride: one warp per record.
void launch_records(const RecordArrays& arrays, std::int64_t first, std::int64_t count,
                    std::int64_t stride, double* records, void* stream);

}  // namespace mlfma2d::cuda
