// The repetition kernel (paper Alg. 4): one thread per target, each reading its own padded
// record of replicated E1 sources. No shared-memory tiling: this is the paper's reference point.
#include <cuda_runtime.h>

#include "nearfield/cuda/common/cuda_common.hpp"
#include "nearfield/cuda/repetition/repetition.hpp"

namespace mlfma2d::cuda {

namespace {

constexpr int kBlock = 256;  // threads per block; one thread per target

template <bool kField>
__global__ void repetition_kernel(const double* __restrict__ records, std::int64_t n_records,
                                  std::int64_t stride, NearFieldOut out) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n_records) repetition_target<kField>(records, stride, i, out);
}

}  // namespace

void launch_repetition(const double* records, std::int64_t n_records, std::int64_t stride,
                       const NearFieldOut& out, bool field, void* stream) {
  if (n_records <= 0) return;
  const auto blocks = static_cast<unsigned>((n_records + kBlock - 1) / kBlock);
  auto s = static_cast<cudaStream_t>(stream);
  if (field) {
    repetition_kernel<true><<<blocks, kBlock, 0, s>>>(records, n_records, stride, out);
  } else {
    repetition_kernel<false><<<blocks, kBlock, 0, s>>>(records, n_records, stride, out);
  }
  check_launch("repetition_kernel", __FILE__, __LINE__);
}

}  // namespace mlfma2d::cuda
