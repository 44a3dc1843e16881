// Device copies shared by the resident back ends ('shared', 'repetition-gpu'): the gather of the
// strengths into tree order and the scatter of results into caller order, every channel or
// density one row of the grid.
#include <cuda_runtime.h>

#include "nearfield/cuda/common/backend_util.hpp"

namespace mlfma2d::cuda {

namespace {

constexpr int kBlock = 256;

__global__ void gather_kernel(const double* __restrict__ q, const std::int32_t* __restrict__ index,
                              std::int64_t n, double* __restrict__ q_tree) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t c = std::int64_t(blockIdx.y) * n;  // this channel's array
  if (i < n) q_tree[c + i] = q[c + index[i]];
}

// kField: ex, ey are copied; kHessian: hxx, hxy are.
template <bool kField, bool kHessian>
__global__ void scatter_kernel(NearFieldOut in, std::int64_t in_stride,
                               const std::int32_t* __restrict__ index, std::int64_t n,
                               NearFieldOut out, std::int64_t out_stride) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::int64_t from = std::int64_t(blockIdx.y) * in_stride + i;
  const std::int64_t to = std::int64_t(blockIdx.y) * out_stride + index[i];
  out.phi[to] = in.phi[from];
  if constexpr (kField) {
    out.ex[to] = in.ex[from];
    out.ey[to] = in.ey[from];
  }
  if constexpr (kHessian) {
    out.hxx[to] = in.hxx[from];
    out.hxy[to] = in.hxy[from];
  }
}

unsigned blocks_for(std::int64_t n) {
  return static_cast<unsigned>((n + kBlock - 1) / kBlock);
}

}  // namespace

void launch_gather(const double* q, const std::int32_t* index, std::int64_t n, int channels,
                   double* q_tree, void* stream) {
  if (n <= 0 || channels <= 0) return;
  const dim3 grid(blocks_for(n), static_cast<unsigned>(channels));
  gather_kernel<<<grid, kBlock, 0, static_cast<cudaStream_t>(stream)>>>(q, index, n, q_tree);
  check_launch("gather_kernel", __FILE__, __LINE__);
}

void launch_scatter(const NearFieldOut& in, std::int64_t in_stride, const std::int32_t* index,
                    std::int64_t n, int densities, const NearFieldOut& out, std::int64_t out_stride,
                    void* stream) {
  if (n <= 0 || densities <= 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  const dim3 grid(blocks_for(n), static_cast<unsigned>(densities));
  const bool field = out.ex != nullptr, hessian = out.hxx != nullptr;
  if (field && hessian) {
    scatter_kernel<true, true><<<grid, kBlock, 0, s>>>(in, in_stride, index, n, out, out_stride);
  } else if (field) {
    scatter_kernel<true, false><<<grid, kBlock, 0, s>>>(in, in_stride, index, n, out, out_stride);
  } else if (hessian) {
    scatter_kernel<false, true><<<grid, kBlock, 0, s>>>(in, in_stride, index, n, out, out_stride);
  } else {
    scatter_kernel<false, false><<<grid, kBlock, 0, s>>>(in, in_stride, index, n, out, out_stride);
  }
  check_launch("scatter_kernel", __FILE__, __LINE__);
}

}  // namespace mlfma2d::cuda
