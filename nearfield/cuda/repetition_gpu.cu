// 'repetition-gpu': the padded per-target records of paper Alg. 3 built on the GPU from the
// resident compact arrays (one warp per record), and the scatter of chunk results to caller
// order. The sums themselves run the 'repetition' kernel unchanged (launch_repetition).
#include <cuda_runtime.h>

#include "nearfield/cuda/cuda_common.hpp"
#include "nearfield/cuda/fast_kernels.hpp"

namespace mlfma2d::cuda {

namespace {

constexpr int kRecordBlock = 256;  // 8 warps: 8 records per block
constexpr int kScatterBlock = 256;

__global__ void records_kernel(RecordArrays a, std::int64_t first, std::int64_t count,
                               std::int64_t stride, double* __restrict__ records) {
  const std::int64_t r = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (r < count) fill_record(a, first + r, threadIdx.x % 32, 32, records + r * stride);
}

template <bool kField>
__global__ void scatter_kernel(NearFieldOut in, const std::int32_t* __restrict__ index,
                               std::int64_t n, NearFieldOut out) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::int32_t to = index[i];
  out.phi[to] = in.phi[i];
  if constexpr (kField) {
    out.ex[to] = in.ex[i];
    out.ey[to] = in.ey[i];
  }
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

void launch_scatter(const NearFieldOut& in, const std::int32_t* index, std::int64_t n,
                    const NearFieldOut& out, bool field, void* stream) {
  if (n <= 0) return;
  const auto blocks = static_cast<unsigned>((n + kScatterBlock - 1) / kScatterBlock);
  auto s = static_cast<cudaStream_t>(stream);
  if (field) {
    scatter_kernel<true><<<blocks, kScatterBlock, 0, s>>>(in, index, n, out);
  } else {
    scatter_kernel<false><<<blocks, kScatterBlock, 0, s>>>(in, index, n, out);
  }
  check_launch("scatter_kernel", __FILE__, __LINE__);
}

}  // namespace mlfma2d::cuda
