#pragma once
// The kernels of the back ends 'shared' (shared.cu) and 'repetition-gpu' (repetition_gpu.cu):
// their plain launchers and the per-thread bodies they run. The bodies are MLFMA2D_HD functions
// so tests/test_fast_layout.cpp walks the layouts on the host exactly as the kernels do.
// Plain C++: no CUDA types.
#include <cstdint>

#include "nearfield/cuda/kernels.hpp"
#include "nearfield/pair.hpp"

namespace mlfma2d::cuda {

/// Threads per block of the shared kernel: the most targets of a multi-leaf group.
constexpr int kSharedBlock = 128;
/// Sources staged per tile: x, y, q doubles, 24 KiB of shared memory, so 8 blocks (32 warps)
/// fit on one SM's 228 KiB.
constexpr int kSharedTile = 1024;

/// \brief Device arrays of the 'shared' layout (fast_layout.hpp SharedLayout) plus the sources.
struct SharedArrays {
  const double* sx = nullptr;                 ///< source x, tree order
  const double* sy = nullptr;                 ///< source y, tree order
  const double* q = nullptr;                  ///< charges, tree order (gathered per evaluation)
  const std::int64_t* group_slot = nullptr;   ///< groups + 1
  const std::int64_t* group_union = nullptr;  ///< groups + 1
  const std::uint8_t* group_dense = nullptr;  ///< groups
  const std::int32_t* union_src = nullptr;    ///< tree-order source of each union element
  const double* slot_x = nullptr;             ///< target x of each slot
  const double* slot_y = nullptr;             ///< target y of each slot
  const std::int32_t* slot_out = nullptr;     ///< caller index of each slot's target
  const std::int32_t* slot_leaf = nullptr;    ///< leaf of each slot's target
  const std::int64_t* leaf_seg = nullptr;     ///< leaves + 1, into seg
  const std::int32_t* leaf_n = nullptr;       ///< E1 sources of each leaf
  const std::int32_t* seg = nullptr;          ///< [lo, hi) pairs, union coordinates
  std::int64_t groups = 0;
};

/// Sum over one leaf's E1 for target (x, y), the sources staged in (sx, sy, sq) (union
/// coordinates): its n sources lie in the ranges seg[0..1), seg[2..3), ... One flat loop over
/// the n sources (not a loop per range), so threads of one warp with equal n run in lockstep.
template <bool kField>
MLFMA2D_HD void segment_sum(const double* sx, const double* sy, const double* sq, double x,
                            double y, const std::int32_t* seg, std::int32_t n, double* phi,
                            double* ex, double* ey) {
  std::int32_t pos = 0, end = 0;
  for (std::int32_t k = 0; k < n; ++k) {
    while (pos >= end) {  // next range (ranges are non-empty)
      pos = seg[0];
      end = seg[1];
      seg += 2;
    }
    if constexpr (kField) {
      log_pair_field(x, y, sx[pos], sy[pos], sq[pos], phi, ex, ey);
    } else {
      log_pair(x, y, sx[pos], sy[pos], sq[pos], phi);
    }
    ++pos;
  }
}

/// Sum over all n staged sources (a dense group: the union is the leaf's E1).
template <bool kField>
MLFMA2D_HD void dense_sum(const double* sx, const double* sy, const double* sq, double x, double y,
                          std::int32_t n, double* phi, double* ex, double* ey) {
  for (std::int32_t j = 0; j < n; ++j) {
    if constexpr (kField) {
      log_pair_field(x, y, sx[j], sy[j], sq[j], phi, ex, ey);
    } else {
      log_pair(x, y, sx[j], sy[j], sq[j], phi);
    }
  }
}

/// \brief Device arrays from which 'repetition-gpu' builds the padded records.
struct RecordArrays {
  const double* tx = nullptr;  ///< target x, tree order
  const double* ty = nullptr;
  const double* sx = nullptr;  ///< source x, tree order
  const double* sy = nullptr;
  const double* q = nullptr;               ///< charges, tree order
  const std::int32_t* tgt_leaf = nullptr;  ///< leaf of each tree-ordered target
  const std::int64_t* leaf_seg = nullptr;  ///< leaves + 1, into seg
  const std::int32_t* leaf_n = nullptr;    ///< E1 sources of each leaf
  const std::int32_t* seg = nullptr;       ///< [lo, hi) pairs, tree-order source indices
};

/// Write elements lane, lane + lanes, ... of tree-ordered target i's record
///   [x, y, n, (sx, sy, q) * n]            (the layout of paper Alg. 3, collect.hpp)
/// into `record`. A warp writes one record with lanes = 32: consecutive lanes, consecutive
/// doubles (coalesced). The padding after 3 + 3n is not written.
MLFMA2D_HD void fill_record(const RecordArrays& a, std::int64_t i, int lane, int lanes,
                            double* record) {
  const std::int32_t leaf = a.tgt_leaf[i];
  const std::int32_t n = a.leaf_n[leaf];
  const std::int32_t* seg = a.seg + 2 * a.leaf_seg[leaf];
  // Cursor over the ranges: source k is seg[0] + (k - base) while k < base + len. k grows with
  // e, so the cursor only moves forward.
  std::int64_t base = 0, lo = 0, len = 0;
  if (n > 0) {
    lo = seg[0];
    len = seg[1] - seg[0];
  }
  const std::int64_t size = 3 + 3 * std::int64_t(n);
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

/// q_tree[i] = q[index[i]], i < n (charges into tree order), on `stream` (a cudaStream_t).
void launch_gather(const double* q, const std::int32_t* index, std::int64_t n, double* q_tree,
                   void* stream);

/// The shared kernel: one block of kSharedBlock threads per group. Writes each target's sums at
/// its caller index (the scatter to caller order is fused into the kernel).
void launch_shared(const SharedArrays& arrays, const NearFieldOut& out, bool field, void* stream);

/// Build the records of tree-ordered targets [first, first + count) at records + (i - first) *
/// stride: one warp per record.
void launch_records(const RecordArrays& arrays, std::int64_t first, std::int64_t count,
                    std::int64_t stride, double* records, void* stream);

/// out[index[i]] = in[i], i < n, for phi and (with the field) ex, ey: chunk results, tree order,
/// into caller order.
void launch_scatter(const NearFieldOut& in, const std::int32_t* index, std::int64_t n,
                    const NearFieldOut& out, bool field, void* stream);

}  // namespace mlfma2d::cuda
