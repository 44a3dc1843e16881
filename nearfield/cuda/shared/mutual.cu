// The shared back end's mutual path (mutual.hpp): adjacent leaves summed both ways, one thread
// block per mutual pair, then each target's slots added to what the one-way kernel wrote.
#include <cuda_runtime.h>

#include "nearfield/cuda/common/cuda_common.hpp"
#include "nearfield/cuda/shared/mutual.hpp"

namespace mlfma2d::cuda {

namespace {

constexpr int kWarps = kMutualBlock / kMutualLanes;

// The sums a pair adds to (phi; phi, ex, ey) as an array, for the shuffles and slots.
template <int kSums>
__device__ void as_array(const PairSums& s, double* v) {
  v[0] = s.phi;
  if (kSums == 3) {
    v[1] = s.ex;
    v[2] = s.ey;
  }
}

// Block = task (b, c): b's targets in rounds of kMutualBlock, a thread each; c's sources in
// chunks of 32 staged in shared memory. 8 blocks of 4 warps per SM, as the classic shared kernel.
template <int kOrder>
__global__ void __launch_bounds__(kMutualBlock, 8)
    mutual_kernel(MutualArrays a, const double* __restrict__ q) {
  constexpr int kSums = kOrder == kPotential ? 1 : 3;
  __shared__ double s_x[kMutualLanes], s_y[kMutualLanes], s_q[kMutualLanes];
  __shared__ double s_part[kWarps][kSums][kMutualLanes];
  __shared__ double s_log[2 * kHalfLogTable];  // read after the first barrier below
  const int tid = threadIdx.x, lane = tid % kMutualLanes, warp = tid / kMutualLanes;
  const std::int64_t task = blockIdx.x;
  const std::int32_t b0 = __ldg(a.task_b0 + task), nb = __ldg(a.task_nb + task);
  const std::int32_t c0 = __ldg(a.task_c0 + task), nc = __ldg(a.task_nc + task);
  const std::int64_t fwd = __ldg(a.task_fwd + task), back = __ldg(a.task_back + task);
  stage_half_log_table(s_log, tid);
  const TableHalfLog log{s_log, s_log + kHalfLogTable};
  for (std::int32_t r0 = 0; r0 < nb; r0 += kMutualBlock) {
    const std::int32_t i = r0 + tid;
    const bool active = i < nb;
    // An idle lane pairs b's first target, charge 0, with the chunk: it adds nothing.
    const std::int32_t ti = b0 + (active ? i : 0);
    const double x = __ldg(a.sx + ti), y = __ldg(a.sy + ti), qi = active ? __ldg(q + ti) : 0.0;
    const int left = nb - r0 < kMutualBlock ? nb - r0 : kMutualBlock;
    const int warps = (left + kMutualLanes - 1) / kMutualLanes;  // with a target this round
    PairSums acc;
    for (std::int32_t j0 = 0; j0 < nc; j0 += kMutualLanes) {
      __syncthreads();  // the last chunk and its partial sums consumed (the log's table staged)
      if (tid < kMutualLanes) {
        // past c's end: its first source, charge 0
        const bool real = j0 + tid < nc;
        const std::int32_t j = c0 + (real ? j0 + tid : 0);
        s_x[tid] = __ldg(a.sx + j);
        s_y[tid] = __ldg(a.sy + j);
        s_q[tid] = real ? __ldg(q + j) : 0.0;
      }
      __syncthreads();
      if (warp < warps) {
        PairSums back_sum;  // at step k: element mutual_element(lane, k)'s
#pragma unroll 8
        for (int k = 0; k < kMutualLanes; ++k) {
          const int e = mutual_element(lane, k);
          mutual_step<kOrder>(x, y, qi, s_x[e], s_y[e], s_q[e], log, &acc, &back_sum);
          const int from = mutual_from_lane(lane);
          back_sum.phi = __shfl_sync(0xffffffffu, back_sum.phi, from);
          if (kSums == 3) {
            back_sum.ex = __shfl_sync(0xffffffffu, back_sum.ex, from);
            back_sum.ey = __shfl_sync(0xffffffffu, back_sum.ey, from);
          }
        }
        // after 32 steps lane l holds element l's sums
        double v[kSums];
        as_array<kSums>(back_sum, v);
        for (int s = 0; s < kSums; ++s) s_part[warp][s][lane] = v[s];
      }
      __syncthreads();
      if (tid < kMutualLanes && j0 + tid < nc) {
        double v[kSums];
        for (int s = 0; s < kSums; ++s) {
          v[s] = s_part[0][s][tid];
          for (int w = 1; w < warps; ++w) v[s] += s_part[w][s][tid];
        }
        // c's target j0 + tid: the first round writes its slot, the next ones add to it (the
        // same thread, in order)
        const std::int64_t at = back + j0 + tid;
        for (int s = 0; s < kSums; ++s) {
          double* to = a.slot + s * a.slots + at;
          *to = r0 == 0 ? v[s] : *to + v[s];
        }
      }
    }
    if (active) {
      double v[kSums];
      as_array<kSums>(acc, v);
      for (int s = 0; s < kSums; ++s) a.slot[s * a.slots + fwd + i] = v[s];
    }
  }
}

// Block = leaf with mutual leaves: each target's slots, in order, added to its output.
template <int kOrder>
__global__ void __launch_bounds__(kMutualBlock) mutual_combine(MutualArrays a, NearFieldOut out) {
  constexpr int kSums = kOrder == kPotential ? 1 : 3;
  const std::int64_t leaf = blockIdx.x;
  const std::int32_t t0 = __ldg(a.comb_t0 + leaf), n = __ldg(a.comb_n + leaf);
  const std::int32_t partners = __ldg(a.comb_partners + leaf);
  const std::int64_t slot0 = __ldg(a.comb_slot + leaf);
  for (std::int32_t i = threadIdx.x; i < n; i += kMutualBlock) {
    double v[kSums] = {};
    for (std::int32_t m = 0; m < partners; ++m)
      for (int s = 0; s < kSums; ++s) v[s] += a.slot[s * a.slots + slot0 + std::int64_t(m) * n + i];
    const std::int32_t to = __ldg(a.tgt_out + t0 + i);
    out.phi[to] += v[0];
    if (kSums == 3) {
      out.ex[to] += v[1];
      out.ey[to] += v[2];
    }
  }
}

template <int kOrder>
void launch(const MutualArrays& a, const double* q, const NearFieldOut& out, cudaStream_t s) {
  mutual_kernel<kOrder><<<static_cast<unsigned>(a.tasks), kMutualBlock, 0, s>>>(a, q);
  check_launch("mutual_kernel", __FILE__, __LINE__);
  mutual_combine<kOrder><<<static_cast<unsigned>(a.leaves), kMutualBlock, 0, s>>>(a, out);
  check_launch("mutual_combine", __FILE__, __LINE__);
}

}  // namespace

void launch_mutual(const MutualArrays& arrays, const double* q, const NearFieldOut& out, int order,
                   void* stream) {
  if (arrays.tasks <= 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  if (order == kPotential)
    launch<kPotential>(arrays, q, out, s);
  else
    launch<kField>(arrays, q, out, s);
}

}  // namespace mlfma2d::cuda
