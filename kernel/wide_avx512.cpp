// The wide kernels at 512 bits (AVX-512 F/DQ/VL/BW: this unit alone is compiled for
// x86-64-v4; kernel/wide.cpp calls it only where the CPU has them).
#include <immintrin.h>

#include "kernel/wide.hpp"

namespace mlfma2d {
namespace {

struct V {
  static constexpr int W = 8;
  using reg = __m512d;
  static reg zero() { return _mm512_setzero_pd(); }
  static reg load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, reg r) { _mm512_storeu_pd(p, r); }
  static reg set1(double x) { return _mm512_set1_pd(x); }
  static reg fma(reg a, reg b, reg c) { return _mm512_fmadd_pd(a, b, c); }
};
constexpr int kRowVectors = 4;  // 4 x 6 accumulators of 32 registers

#include "kernel/wide_impl.hpp"

void gemm(int n, int rows, int cols, const double* R, const double* S, double* Vout) {
  gemm_impl<V, kRowVectors>(n, rows, cols, R, S, Vout);
}

}  // namespace

const WideKernels& wide_kernels_512() {
  static const WideKernels k{512, gemm};
  return k;
}

}  // namespace mlfma2d
