// The 'shared' kernel: one thread block per group of consecutive near leaves (shared.hpp), the
// union of the group's near sources staged once through shared memory, one thread per target
// summing its own leaf's near list from there in registers.
#include <cuda_runtime.h>

#include "nearfield/cuda/common/cuda_common.hpp"
#include "nearfield/cuda/shared/shared.hpp"

namespace mlfma2d::cuda {

namespace {

// 8 blocks of 128 threads per SM: 32 warps to hide the latency of the double log's dependent
// FMA chain; 64 registers per thread at most.
template <bool kField>
__global__ void __launch_bounds__(kSharedBlock, 8) shared_kernel(SharedArrays a, NearFieldOut out) {
  __shared__ double s_x[kSharedTile], s_y[kSharedTile], s_q[kSharedTile];
  const std::int64_t g = blockIdx.x;
  const int tid = threadIdx.x;
  const std::int64_t sb = a.group_slot[g], se = a.group_slot[g + 1];  // <= kSharedBlock slots
  const std::int64_t ub = a.union_begin[g];
  const std::int64_t u_size = a.union_end[g] - ub;

  // Union elements [from, from + count) into s_*[0, count): coalesced where the union is a run.
  auto stage = [&](std::int64_t from, int count) {
    const std::int32_t* src = a.union_src + ub + from;
    for (int e = tid; e < count; e += kSharedBlock) {
      const std::int32_t j = __ldg(src + e);
      s_x[e] = __ldg(a.sx + j);
      s_y[e] = __ldg(a.sy + j);
      s_q[e] = __ldg(a.q + j);
    }
  };
  const std::int64_t slot = sb + tid;
  const bool active = slot < se;
  double phi = 0, ex = 0, ey = 0;

  if (!a.group_dense[g]) {
    // Several leaves: union <= kSharedTile sources (one tile); each thread walks its own leaf's
    // ranges in union coordinates.
    stage(0, int(u_size));
    __syncthreads();
    if (!active) return;
    const std::int32_t leaf = __ldg(a.slot_leaf + slot);
    segment_sum<kField>(s_x, s_y, s_q, __ldg(a.slot_x + slot), __ldg(a.slot_y + slot),
                        a.seg + 2 * __ldg(a.leaf_seg + leaf), __ldg(a.leaf_n + leaf), &phi, &ex,
                        &ey);
  } else {
    // (A chunk of) one leaf: every thread sums every union source (broadcast reads, as in an
    // all-pairs kernel), tile by tile. The loop bounds are the same for every thread of the
    // block, so every thread reaches every barrier.
    const double x = active ? __ldg(a.slot_x + slot) : 0.0;
    const double y = active ? __ldg(a.slot_y + slot) : 0.0;
    for (std::int64_t t0 = 0; t0 < u_size; t0 += kSharedTile) {
      const int n = int(u_size - t0 < kSharedTile ? u_size - t0 : kSharedTile);
      if (t0 > 0) __syncthreads();  // the previous tile is consumed
      stage(t0, n);
      __syncthreads();
      if (active) dense_sum<kField>(s_x, s_y, s_q, x, y, n, &phi, &ex, &ey);
    }
    if (!active) return;
  }
  const std::int32_t to = __ldg(a.slot_out + slot);
  out.phi[to] = phi;
  if constexpr (kField) {
    out.ex[to] = ex;
    out.ey[to] = ey;
  }
}

}  // namespace

void launch_shared(const SharedArrays& arrays, const NearFieldOut& out, bool field, void* stream) {
  if (arrays.groups <= 0) return;
  const auto blocks = static_cast<unsigned>(arrays.groups);  // <= leaves < 2^31
  auto s = static_cast<cudaStream_t>(stream);
  // 8 blocks x 24 KiB of tiles per SM need the largest shared-memory carveout; ask for it so
  // the driver does not trade occupancy for L1.
  if (field) {
    MLFMA2D_CUDA_CHECK(cudaFuncSetAttribute(shared_kernel<true>,
                                            cudaFuncAttributePreferredSharedMemoryCarveout,
                                            int(cudaSharedmemCarveoutMaxShared)));
    shared_kernel<true><<<blocks, kSharedBlock, 0, s>>>(arrays, out);
  } else {
    MLFMA2D_CUDA_CHECK(cudaFuncSetAttribute(shared_kernel<false>,
                                            cudaFuncAttributePreferredSharedMemoryCarveout,
                                            int(cudaSharedmemCarveoutMaxShared)));
    shared_kernel<false><<<blocks, kSharedBlock, 0, s>>>(arrays, out);
  }
  check_launch("shared_kernel", __FILE__, __LINE__);
}

}  // namespace mlfma2d::cuda
