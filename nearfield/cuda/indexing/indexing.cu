// The indexing kernel (paper Alg. 2): one thread per leaf box, data reached through the
// index arrays of the seven-array SoA layout. No shared-memory tiling: this is the paper's
// reference point.
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>

#include "nearfield/cuda/common/cuda_common.hpp"
#include "nearfield/cuda/indexing/indexing.hpp"

namespace mlfma2d::cuda {

namespace {

constexpr int kBlock = 128;  // threads per block; one thread per box

// Fault injection for the tests of error handling (tests/test_gpu_errors.cpp): with
// MLFMA2D_FAULT_INJECT=kernel-launch the launch asks for more threads per block than any GPU
// has, a real CUDA error in the middle of a run.
int block_size() {
  const char* f = std::getenv("MLFMA2D_FAULT_INJECT");
  return (f && std::strcmp(f, "kernel-launch") == 0) ? 4096 : kBlock;
}

template <bool kField>
__global__ void indexing_kernel(IndexingArrays a, NearFieldOut out) {
  const std::int64_t box = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (box < a.boxes) indexing_box<kField>(a, box, out);
}

}  // namespace

void launch_indexing(const IndexingArrays& arrays, const NearFieldOut& out, bool field,
                     void* stream) {
  if (arrays.boxes <= 0) return;
  const int threads = block_size();
  const auto blocks = static_cast<unsigned>((arrays.boxes + threads - 1) / threads);
  auto s = static_cast<cudaStream_t>(stream);
  if (field) {
    indexing_kernel<true><<<blocks, threads, 0, s>>>(arrays, out);
  } else {
    indexing_kernel<false><<<blocks, threads, 0, s>>>(arrays, out);
  }
  check_launch("indexing_kernel", __FILE__, __LINE__);
}

}  // namespace mlfma2d::cuda
