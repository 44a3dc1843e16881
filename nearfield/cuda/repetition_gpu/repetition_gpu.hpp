#pragma once
// 'repetition-gpu': the papers' repetition records built on the GPU from resident compact arrays
// (the near lists as tree-order source ranges), one warp per record. One density of charges,
// potential or field (the classic case): the records [x, y, n, (sx, sy, q) * n] of paper Alg. 3,
// summed by the papers' 'repetition' kernel unchanged. Several densities, dipoles or the
// Hessian: records with every strength of a batch of densities beside each source,
// [x, y, n, (sx, sy, w_0 .. w_{K-1}) * n], summed by this back end's own kernel, which computes
// each pair's terms once and applies them to every density of the batch
// (cuda/common/densities.hpp). The record writer and the kernel's per-thread body are plain
// MLFMA2D_HD functions so tests/test_fast_layout.cpp checks them on the host.
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "kernel/pair.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/densities.hpp"

namespace mlfma2d::cuda {

/// Strengths a record carries per source at most: kMaxBatch densities x (q, mx, my).
constexpr int kMaxRecordChannels = kMaxBatch * 3;

/// \brief Device arrays from which 'repetition-gpu' builds the padded records.
struct RecordArrays {
  const double* tx = nullptr;  ///< target x, tree order
  const double* ty = nullptr;
  const double* sx = nullptr;  ///< source x, tree order
  const double* sy = nullptr;
  /// The strengths a record carries beside each source, in its order, each an array in tree
  /// order: one density's charges (the classic records), or density by density q, mx, my (the
  /// kinds carried) of a batch's active densities.
  const double* channel[kMaxRecordChannels] = {};
  int channels = 1;                        ///< K: how many of `channel`
  const std::int32_t* tgt_leaf = nullptr;  ///< near leaf of each tree-ordered target
  const std::int64_t* leaf_seg = nullptr;  ///< near leaves + 1, into seg (NearField::range_begin)
  const std::int64_t* leaf_n = nullptr;    ///< near sources of each leaf (NearField::sources)
  const std::int64_t* seg = nullptr;  ///< [lo, hi) pairs, tree-order sources (NearField::range)
};

/// The records' arguments for one pass: `geometry`'s arrays and, as channels, the strengths of
/// densities [b.first, b.first + b.count), density by density q, mx, my of the kinds carried
/// (those not null; each kind nd arrays of n_sources in tree order).
inline RecordArrays batch_records(RecordArrays geometry, const DensityBatch& b, const double* q,
                                  const double* mx, const double* my, std::int64_t n_sources) {
  geometry.channels = 0;
  for (int d = b.first; d < b.first + b.count; ++d)
    for (const double* kind : {q, mx, my})
      if (kind) geometry.channel[geometry.channels++] = kind + std::int64_t(d) * n_sources;
  return geometry;
}

/// Record stride in doubles for K strengths a source: 3 + (2 + K) n_max, n_max the longest near
/// list (the general records; the classic ones keep repetition_stride(), the paper's).
std::int64_t record_stride(const NearFieldProblem& p, int channels);

/// Write elements lane, lane + lanes, ... of tree-ordered target i's record
///   [x, y, n, (sx, sy, channel[0][j] .. channel[K-1][j]) * n]
/// (K = 1, the charges: the layout of paper Alg. 3, repetition.hpp) into `record`. A warp writes
/// one record with lanes = 32: consecutive lanes, consecutive doubles (coalesced). The padding
/// after 3 + (2 + K) n is not written.
MLFMA2D_HD void fill_record(const RecordArrays& a, std::int64_t i, int lane, int lanes,
                            double* record) {
  const std::int32_t leaf = a.tgt_leaf[i];
  const std::int64_t n = a.leaf_n[leaf];
  const std::int64_t* seg = a.seg + 2 * a.leaf_seg[leaf];
  const std::int64_t w = 2 + a.channels;  // doubles a source
  const std::int64_t size = 3 + w * n;
  std::int64_t e = lane;
  for (; e < 3 && e < size; e += lanes)
    record[e] = e == 0 ? a.tx[i] : e == 1 ? a.ty[i] : static_cast<double>(n);
  if (e >= size) return;
  // Element e is part c of source k; both move on by lanes elements a step, without division.
  std::int64_t k = (e - 3) / w, c = (e - 3) - k * w;
  const std::int64_t dk = lanes / w, dc = lanes - dk * w;
  // Cursor over the ranges: source k is seg[0] + (k - base) while k < base + len. k grows with
  // e, so the cursor only moves forward.
  std::int64_t base = 0, lo = seg[0], len = seg[1] - seg[0];
  for (; e < size; e += lanes) {
    while (k >= base + len) {
      base += len;
      seg += 2;
      lo = seg[0];
      len = seg[1] - seg[0];
    }
    const std::int64_t j = lo + (k - base);
    // (one channel: its array without an indexed parameter load, as the papers' records had)
    record[e] = c == 0   ? a.sx[j]
                : c == 1 ? a.sy[j]
                         : (a.channels == 1 ? a.channel[0] : a.channel[c - 2])[j];
    k += dk;
    c += dc;
    if (c >= w) {
      c -= w;
      ++k;
    }
  }
}

/// The general kernel's body: thread i reads its own record [x, y, n, (sx, sy, strengths) * n]
/// at records + i * stride, the strengths of `count` densities (count <= kNd), density by
/// density q, mx, my of the kinds carried, and writes their sums at out.X[d * out_stride + i].
/// The log by `hl`'s table (the kernel's in shared memory).
template <int kOrder, bool kCharge, bool kDipole, int kNd>
MLFMA2D_HD void record_sums(const double* records, std::int64_t stride, std::int64_t i, int count,
                            const NearFieldOut& out, std::int64_t out_stride,
                            const TableHalfLog& hl) {
  const double* r = records + i * stride;
  const double x = r[0], y = r[1];
  const auto n = static_cast<std::int64_t>(r[2]);  // n is stored as a double (exact < 2^53)
  const std::int64_t w = 2 + std::int64_t(count) * channels_per_density(kCharge, kDipole);
  PairSums acc[kNd];
  for (const double* s = r + 3; s < r + 3 + n * w; s += w)
    add_source<kOrder, kCharge, kDipole, kNd>(x, y, s[0], s[1], s + 2, 1, count, hl, acc);
  store_sums<kOrder, kNd>(acc, out, out_stride, i, count);
}

/// tgt_leaf[i] = the near leaf holding tree-ordered target i.
std::vector<std::int32_t> target_leaves(const NearFieldProblem& p);

/// Build the records of tree-ordered targets [first, first + count) at records + (i - first) *
/// stride: one warp per record.
void launch_records(const RecordArrays& arrays, std::int64_t first, std::int64_t count,
                    std::int64_t stride, double* records, void* stream);

/// The general kernel, one thread per record of the chunk: `count` densities (the kernel of
/// width `width`) of the kinds carried at `order`, sums at out.X[d * out_stride + i].
void launch_record_sums(const double* records, std::int64_t n_records, std::int64_t stride,
                        int count, const NearFieldOut& out, std::int64_t out_stride, int order,
                        bool charges, bool dipoles, int width, void* stream);

}  // namespace mlfma2d::cuda
