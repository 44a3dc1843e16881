// 'repetition-gpu': the padded per-target records of paper Alg. 3 built on the GPU from the
// resident compact arrays (one warp per record). The sums themselves run the 'repetition' kernel
// unchanged (launch_repetition); the scatter to caller order is
// nearfield/cuda/common/device_copy.cu's.
#include <cuda_runtime.h>

#include "nearfield/cuda/common/cuda_common.hpp"
#include "nearfield/cuda/repetition_gpu/repetition_gpu.hpp"

namespace mlfma2d::cuda {

namespace {

constexpr int kRecordBlock = 256;  // 8 warps: 8 records per block

__global__ void records_kernel(RecordArrays a, std::int64_t first, std::int64_t count,
                               std::int64_t stride, double* __restrict__ records) {
  const std::int64_t r = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (r < count) fill_record(a, first + r, threadIdx.x % 32, 32, records + r * stride);
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

}  // namespace mlfma2d::cuda
