// The 'shared' kernel: one thread block per group of consecutive near leaves (shared.hpp), the
// union of the group's near sources staged once through shared memory, one thread per target
// summing its own leaf's near list from there in registers, for every density of a batch.
#include <cuda_runtime.h>

#include "nearfield/cuda/common/cuda_common.hpp"
#include "nearfield/cuda/shared/shared.hpp"

namespace mlfma2d::cuda {

namespace {

// The kernel for a batch of kNd densities of the kinds (kCharge, kDipole) at order kOrder. The
// classic one (kNd = 1, charges, potential or field): 8 blocks of 128 threads per SM, 32 warps
// to hide the latency of the double log's dependent FMA chain, 64 registers per thread at most,
// 1024-source tiles of (x, y, q). A wider batch: the blocks its registers allow and the tile
// its shared memory then holds (shared_blocks_per_sm, shared_tile).
template <int kOrder, bool kCharge, bool kDipole, int kNd>
__global__ void __launch_bounds__(kSharedBlock,
                                  shared_blocks_per_sm(kOrder,
                                                       channels_per_density(kCharge, kDipole), kNd))
    shared_kernel(SharedArrays a, SharedPass b, NearFieldOut out) {
  constexpr int kPer = channels_per_density(kCharge, kDipole);
  constexpr int kTile = shared_tile(kOrder, kPer, kNd);
  // channel c = d * kPer + k of element e at s_w[c * kTile + e]
  __shared__ double s_x[kTile], s_y[kTile], s_w[kNd * kPer * kTile];
  __shared__ double s_log[2 * kHalfLogTable];  // read after the first barrier below
  const std::int64_t g = blockIdx.x;
  const int tid = threadIdx.x;
  const std::int64_t sb = a.group_slot[g], se = a.group_slot[g + 1];  // <= kSharedBlock slots
  const std::int64_t ub = a.union_begin[g];
  const std::int64_t u_size = a.union_end[g] - ub;
  const int count = b.count;
  // Union elements [from, from + n) into s_*[0, n): coalesced where the union is a run.
  auto stage = [&](std::int64_t from, int n) {
    const std::int32_t* src = a.union_src + ub + from;
    for (int e = tid; e < n; e += kSharedBlock) {
      const std::int32_t j = __ldg(src + e);
      s_x[e] = __ldg(a.sx + j);
      s_y[e] = __ldg(a.sy + j);
      stage_strengths<kCharge, kDipole, kNd>(b, j, s_w, kTile, e);
    }
  };
  stage_half_log_table(s_log, tid);
  const Staged staged{s_x, s_y, s_w, kTile, TableHalfLog{s_log, s_log + kHalfLogTable}};
  const std::int64_t slot = sb + tid;
  const bool active = slot < se;
  PairSums acc[kNd];

  if (!a.group_dense[g]) {
    // Several leaves: union <= the layout's tile <= kTile sources (one tile); each thread walks
    // its own leaf's ranges in union coordinates.
    stage(0, int(u_size));
    __syncthreads();
    if (!active) return;
    const std::int32_t leaf = __ldg(a.slot_leaf + slot);
    segment_sum<kOrder, kCharge, kDipole, kNd>(
        staged, __ldg(a.slot_x + slot), __ldg(a.slot_y + slot),
        a.seg + 2 * __ldg(a.leaf_seg + leaf), __ldg(a.leaf_n + leaf), count, acc);
  } else {
    // (A chunk of) one leaf: every thread sums every union source (broadcast reads, as in an
    // all-pairs kernel), tile by tile. The loop bounds are the same for every thread of the
    // block, so every thread reaches every barrier.
    const double x = active ? __ldg(a.slot_x + slot) : 0.0;
    const double y = active ? __ldg(a.slot_y + slot) : 0.0;
    for (std::int64_t t0 = 0; t0 < u_size; t0 += kTile) {
      const int n = int(u_size - t0 < kTile ? u_size - t0 : kTile);
      if (t0 > 0) __syncthreads();  // the previous tile is consumed
      stage(t0, n);
      __syncthreads();
      if (active) dense_sum<kOrder, kCharge, kDipole, kNd>(staged, x, y, n, count, acc);
    }
    if (!active) return;
  }
  store_sums<kOrder, kNd>(acc, out, b.out_stride, __ldg(a.slot_out + slot), count);
}

template <int kOrder, bool kCharge, bool kDipole, int kNd>
void launch(const SharedArrays& arrays, const SharedPass& pass, const NearFieldOut& out,
            cudaStream_t s) {
  const auto blocks = static_cast<unsigned>(arrays.groups);  // <= leaves < 2^31
  auto kernel = shared_kernel<kOrder, kCharge, kDipole, kNd>;
  // 8 blocks x 24 KiB of tiles per SM (the classic kernel; the others as many as fit) need the
  // largest shared-memory carveout; ask for it so the driver does not trade occupancy for L1.
  MLFMA2D_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                          int(cudaSharedmemCarveoutMaxShared)));
  kernel<<<blocks, kSharedBlock, 0, s>>>(arrays, pass, out);
}

}  // namespace

void launch_shared(const SharedArrays& arrays, const SharedPass& pass, const NearFieldOut& out,
                   int order, bool charges, bool dipoles, int width, void* stream) {
  if (arrays.groups <= 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_batch(order, charges, dipoles, width, [&](auto o, auto c, auto d, auto w) {
    launch<decltype(o)::value, decltype(c)::value, decltype(d)::value, decltype(w)::value>(
        arrays, pass, out, s);
  });
  check_launch("shared_kernel", __FILE__, __LINE__);
}

}  // namespace mlfma2d::cuda
