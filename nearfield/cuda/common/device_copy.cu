// Device copies shared by the resident back ends ('shared', 'repetition-gpu'): the gather of the
// charges into tree order and the scatter of results into caller order.
#include <cuda_runtime.h>

#include "nearfield/cuda/common/backend_util.hpp"

namespace mlfma2d::cuda {

namespace {

constexpr int kBlock = 256;

__global__ void gather_kernel(const double* __restrict__ q, const std::int32_t* __restrict__ index,
                              std::int64_t n, double* __restrict__ q_tree) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) q_tree[i] = q[index[i]];
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

unsigned blocks_for(std::int64_t n) {
  return static_cast<unsigned>((n + kBlock - 1) / kBlock);
}

}  // namespace

void launch_gather(const double* q, const std::int32_t* index, std::int64_t n, double* q_tree,
                   void* stream) {
  if (n <= 0) return;
  gather_kernel<<<blocks_for(n), kBlock, 0, static_cast<cudaStream_t>(stream)>>>(q, index, n,
                                                                                 q_tree);
  check_launch("gather_kernel", __FILE__, __LINE__);
}

void launch_scatter(const NearFieldOut& in, const std::int32_t* index, std::int64_t n,
                    const NearFieldOut& out, bool field, void* stream) {
  if (n <= 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  if (field) {
    scatter_kernel<true><<<blocks_for(n), kBlock, 0, s>>>(in, index, n, out);
  } else {
    scatter_kernel<false><<<blocks_for(n), kBlock, 0, s>>>(in, index, n, out);
  }
  check_launch("scatter_kernel", __FILE__, __LINE__);
}

}  // namespace mlfma2d::cuda
