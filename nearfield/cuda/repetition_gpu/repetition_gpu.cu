// 'repetition-gpu': the padded per-target records of paper Alg. 3 built on the GPU from the
// resident compact arrays (one warp per record), and this back end's general kernel over
// records of several densities' strengths (repetition_gpu.hpp). The classic records are summed
// by the 'repetition' kernel unchanged (launch_repetition); the scatter to caller order is
// nearfield/cuda/common/device_copy.cu's.
#include <cuda_runtime.h>

#include "nearfield/cuda/common/cuda_common.hpp"
#include "nearfield/cuda/repetition_gpu/repetition_gpu.hpp"

namespace mlfma2d::cuda {

namespace {

constexpr int kRecordBlock = 256;  // 8 warps: 8 records per block
// One thread per record, as the papers' kernel, in blocks of 128 (a wide batch's sums take up to
// 122 registers a thread: smaller blocks fill the SM's registers in finer steps), at least 4 of
// them an SM: at most 128 registers, under which ptxas (CUDA 13, sm_90) spills in none of the
// kernels; with no bound it spilled 8-24 bytes in some.
constexpr int kSumsBlock = 128;
constexpr int kSumsBlocksPerSm = 4;

__global__ void records_kernel(RecordArrays a, std::int64_t first, std::int64_t count,
                               std::int64_t stride, double* __restrict__ records) {
  const std::int64_t r = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (r < count) fill_record(a, first + r, threadIdx.x % 32, 32, records + r * stride);
}

template <int kOrder, bool kCharge, bool kDipole, int kNd>
__global__ void __launch_bounds__(kSumsBlock, kSumsBlocksPerSm)
    record_sums_kernel(const double* __restrict__ records, std::int64_t n_records,
                       std::int64_t stride, int count, NearFieldOut out, std::int64_t out_stride) {
  __shared__ double s_log[2 * kHalfLogTable];
  stage_half_log_table(s_log, int(threadIdx.x));
  __syncthreads();
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n_records)
    record_sums<kOrder, kCharge, kDipole, kNd>(records, stride, i, count, out, out_stride,
                                               TableHalfLog{s_log, s_log + kHalfLogTable});
}

}  // namespace

void launch_records(const RecordArrays& arrays, std::int64_t first, std::int64_t count,
                    std::int64_t stride, double* records, void* stream) {
  if (count <= 0) return;
  constexpr std::int64_t kPerBlock = kRecordBlock / 32;
  const auto blocks = static_cast<unsigned>((count + kPerBlock - 1) / kPerBlock);
  records_kernel<<<blocks, kRecordBlock, 0, static_cast<cudaStream_t>(stream)>>>(
      arrays, first, count, stride, records);
  check_launch("records_kernel", __FILE__, __LINE__);
}

void launch_record_sums(const double* records, std::int64_t n_records, std::int64_t stride,
                        int count, const NearFieldOut& out, std::int64_t out_stride, int order,
                        bool charges, bool dipoles, int width, void* stream) {
  if (n_records <= 0) return;
  const auto blocks = static_cast<unsigned>((n_records + kSumsBlock - 1) / kSumsBlock);
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_batch(order, charges, dipoles, width, [&](auto o, auto c, auto d, auto w) {
    record_sums_kernel<decltype(o)::value, decltype(c)::value, decltype(d)::value,
                       decltype(w)::value>
        <<<blocks, kSumsBlock, 0, s>>>(records, n_records, stride, count, out, out_stride);
  });
  check_launch("record_sums_kernel", __FILE__, __LINE__);
}

}  // namespace mlfma2d::cuda
