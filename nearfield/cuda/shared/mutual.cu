// The shared back end's mutual path (mutual.hpp): adjacent leaves summed both ways, one thread
// block per mutual pair, then each target's slots added to what the one-way kernel wrote.
#include <cuda_runtime.h>

#include "nearfield/cuda/common/cuda_common.hpp"
#include "nearfield/cuda/shared/mutual.hpp"

namespace mlfma2d::cuda {

namespace {

constexpr int kWarps = kMutualBlock / kMutualLanes;

// Point j's strengths, those of the kinds carried.
template <bool kCharge, bool kDipole>
__device__ PointStrengths strengths_of(const double* __restrict__ q, const double* __restrict__ mx,
                                       const double* __restrict__ my, std::int32_t j) {
  PointStrengths s;
  if (kCharge) s.q = __ldg(q + j);
  if (kDipole) {
    s.mx = __ldg(mx + j);
    s.my = __ldg(my + j);
  }
  return s;
}

// Block = task (b, c): b's targets in rounds of kMutualBlock, a thread each; c's sources in
// chunks of 32 staged in shared memory; mutual_blocks_per_sm blocks of 4 warps per SM.
template <int kOrder, bool kCharge, bool kDipole>
__global__ void __launch_bounds__(kMutualBlock, mutual_blocks_per_sm(kOrder, kCharge, kDipole))
    mutual_kernel(MutualArrays a, const double* __restrict__ q, const double* __restrict__ mx,
                  const double* __restrict__ my) {
  constexpr int kSums = kPairSums[kOrder];
  __shared__ PointStrengths s_w[kMutualLanes];
  __shared__ double s_x[kMutualLanes], s_y[kMutualLanes];
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
    // An idle lane pairs b's first target, strengths 0, with the chunk: it adds nothing.
    const std::int32_t ti = b0 + (active ? i : 0);
    const double x = __ldg(a.sx + ti), y = __ldg(a.sy + ti);
    const PointStrengths own =
        active ? strengths_of<kCharge, kDipole>(q, mx, my, ti) : PointStrengths{};
    const int left = nb - r0 < kMutualBlock ? nb - r0 : kMutualBlock;
    const int warps = (left + kMutualLanes - 1) / kMutualLanes;  // with a target this round
    PairSums acc;
    for (std::int32_t j0 = 0; j0 < nc; j0 += kMutualLanes) {
      __syncthreads();  // the last chunk and its partial sums consumed (the log's table staged)
      if (tid < kMutualLanes) {
        // past c's end: its first source, strengths 0
        const bool real = j0 + tid < nc;
        const std::int32_t j = c0 + (real ? j0 + tid : 0);
        s_x[tid] = __ldg(a.sx + j);
        s_y[tid] = __ldg(a.sy + j);
        s_w[tid] = real ? strengths_of<kCharge, kDipole>(q, mx, my, j) : PointStrengths{};
      }
      __syncthreads();
      if (warp < warps) {
        PairSums back_sum;  // at step k: element mutual_element(lane, k)'s
#pragma unroll 8
        for (int k = 0; k < kMutualLanes; ++k) {
          const int e = mutual_element(lane, k);
          mutual_step<kOrder, kCharge, kDipole>(x, y, own, s_x[e], s_y[e], s_w[e], log, &acc,
                                                &back_sum);
          const int from = mutual_from_lane(lane);
#pragma unroll
          for (int s = 0; s < kSums; ++s)
            mutual_sum(back_sum, s) = __shfl_sync(0xffffffffu, mutual_sum(back_sum, s), from);
        }
        // after 32 steps lane l holds element l's sums
#pragma unroll
        for (int s = 0; s < kSums; ++s) s_part[warp][s][lane] = mutual_sum(back_sum, s);
      }
      __syncthreads();
      if (tid < kMutualLanes && j0 + tid < nc) {
        // c's target j0 + tid: the first round writes its slot, the next ones add to it (the
        // same thread, in order)
        const std::int64_t at = back + j0 + tid;
        for (int s = 0; s < kSums; ++s) {
          double v = s_part[0][s][tid];
          for (int w = 1; w < warps; ++w) v += s_part[w][s][tid];
          double* to = a.slot + s * a.slots + at;
          *to = r0 == 0 ? v : *to + v;
        }
      }
    }
    if (active) {
#pragma unroll
      for (int s = 0; s < kSums; ++s) a.slot[s * a.slots + fwd + i] = mutual_sum(acc, s);
    }
  }
}

// Block = leaf with mutual leaves: each target's slots, in order, added to its outputs (those
// wanted: with the Hessian the field is summed but may not be asked for).
template <int kOrder>
__global__ void __launch_bounds__(kMutualBlock) mutual_combine(MutualArrays a, NearFieldOut out) {
  constexpr int kSums = kPairSums[kOrder];
  const std::int64_t leaf = blockIdx.x;
  const std::int32_t t0 = __ldg(a.comb_t0 + leaf), n = __ldg(a.comb_n + leaf);
  const std::int32_t partners = __ldg(a.comb_partners + leaf);
  const std::int64_t slot0 = __ldg(a.comb_slot + leaf);
  double* const to_out[5] = {out.phi, out.ex, out.ey, out.hxx, out.hxy};
  for (std::int32_t i = threadIdx.x; i < n; i += kMutualBlock) {
    double v[kSums] = {};
    for (std::int32_t m = 0; m < partners; ++m)
      for (int s = 0; s < kSums; ++s) v[s] += a.slot[s * a.slots + slot0 + std::int64_t(m) * n + i];
    const std::int32_t to = __ldg(a.tgt_out + t0 + i);
    for (int s = 0; s < kSums; ++s)
      if (to_out[s]) to_out[s][to] += v[s];
  }
}

template <int kOrder, bool kCharge, bool kDipole>
void launch(const MutualArrays& a, const double* q, const double* mx, const double* my,
            const NearFieldOut& out, cudaStream_t s) {
  mutual_kernel<kOrder, kCharge, kDipole>
      <<<static_cast<unsigned>(a.tasks), kMutualBlock, 0, s>>>(a, q, mx, my);
  check_launch("mutual_kernel", __FILE__, __LINE__);
  mutual_combine<kOrder><<<static_cast<unsigned>(a.leaves), kMutualBlock, 0, s>>>(a, out);
  check_launch("mutual_combine", __FILE__, __LINE__);
}

}  // namespace

void launch_mutual(const MutualArrays& arrays, const double* q, const double* mx, const double* my,
                   const NearFieldOut& out, int order, void* stream) {
  if (arrays.tasks <= 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_pair(order, q != nullptr, mx != nullptr, [&](auto o, auto c, auto d) {
    launch<decltype(o)::value, decltype(c)::value, decltype(d)::value>(arrays, q, mx, my, out, s);
  });
}

}  // namespace mlfma2d::cuda
