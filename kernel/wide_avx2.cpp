// The wide kernels at 256 bits (AVX2 + FMA: the portable build's x86-64-v3), or scalar where the
// build has no AVX2.
#include "kernel/wide.hpp"

#ifdef __AVX2__
#include <immintrin.h>
#endif

namespace mlfma2d {
namespace {

#ifdef __AVX2__
struct V {
  static constexpr int W = 4;
  using reg = __m256d;
  static reg zero() { return _mm256_setzero_pd(); }
  static reg load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, reg r) { _mm256_storeu_pd(p, r); }
  static reg set1(double x) { return _mm256_set1_pd(x); }
  static reg fma(reg a, reg b, reg c) { return _mm256_fmadd_pd(a, b, c); }
};
constexpr int kRowVectors = 2;  // 2 x 6 accumulators of 16 registers
constexpr int kBits = 256;
#else
struct V {
  static constexpr int W = 1;
  using reg = double;
  static reg zero() { return 0.0; }
  static reg load(const double* p) { return *p; }
  static void store(double* p, reg r) { *p = r; }
  static reg set1(double x) { return x; }
  static reg fma(reg a, reg b, reg c) { return __builtin_fma(a, b, c); }
};
constexpr int kRowVectors = 4;
constexpr int kBits = 64;
#endif

#include "kernel/wide_impl.hpp"

void gemm(int n, int rows, int cols, const double* R, const double* S, double* Vout) {
  gemm_impl<V, kRowVectors>(n, rows, cols, R, S, Vout);
}

}  // namespace

const WideKernels& wide_kernels_256() {
  static const WideKernels k{kBits, gemm};
  return k;
}

}  // namespace mlfma2d
