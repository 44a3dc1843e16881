// The wide kernels at 256 bits (AVX2 + FMA: the portable build's x86-64-v3), or scalar where the
// build has no AVX2.
#include "kernel/wide.hpp"

#ifdef __AVX2__
#include <immintrin.h>
extern "C" __m256d _ZGVdN4v_log(__m256d);  // glibc libmvec: 4-wide double log
#else
#include <cmath>
#endif

#include "kernel/pair_constants.hpp"

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
  static reg fms(reg a, reg b, reg c) { return _mm256_fmsub_pd(a, b, c); }
  static reg add(reg a, reg b) { return _mm256_add_pd(a, b); }
  static reg sub(reg a, reg b) { return _mm256_sub_pd(a, b); }
  static reg mul(reg a, reg b) { return _mm256_mul_pd(a, b); }
  static reg div(reg a, reg b) { return _mm256_div_pd(a, b); }
  static reg log(reg a) { return _ZGVdN4v_log(a); }
  static double hsum(reg v) {
    const __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
  }
  using mask = __m256d;
  static mask lt(reg a, reg b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
  static mask ne(reg a, reg b) { return _mm256_cmp_pd(a, b, _CMP_NEQ_UQ); }
  static mask mand(mask a, mask b) { return _mm256_and_pd(a, b); }
  static mask mor(mask a, mask b) { return _mm256_or_pd(a, b); }
  static bool any(mask m) { return _mm256_movemask_pd(m) != 0; }
  static reg blend(mask m, reg a, reg b) { return _mm256_blendv_pd(b, a, m); }
  static void interleave(reg re, reg im, reg* lo, reg* hi) {
    const reg a = _mm256_unpacklo_pd(re, im), b = _mm256_unpackhi_pd(re, im);  // 0 2, 1 3
    *lo = _mm256_permute2f128_pd(a, b, 0x20);
    *hi = _mm256_permute2f128_pd(a, b, 0x31);
  }
  static reg swap(reg r) { return _mm256_permute_pd(r, 0x5); }
  static __m256i first(int c) {
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(c), _mm256_setr_epi64x(0, 1, 2, 3));
  }
  static reg load_first(const double* p, int c) { return _mm256_maskload_pd(p, first(c)); }
  static void store_first(double* p, reg r, int c) { _mm256_maskstore_pd(p, first(c), r); }
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
  static reg fms(reg a, reg b, reg c) { return __builtin_fma(a, b, -c); }
  static reg add(reg a, reg b) { return a + b; }
  static reg sub(reg a, reg b) { return a - b; }
  static reg mul(reg a, reg b) { return a * b; }
  static reg div(reg a, reg b) { return a / b; }
  static reg log(reg a) { return std::log(a); }
  static double hsum(reg v) { return v; }
  using mask = bool;
  static mask lt(reg a, reg b) { return a < b; }
  static mask ne(reg a, reg b) { return a != b; }
  static mask mand(mask a, mask b) { return a && b; }
  static mask mor(mask a, mask b) { return a || b; }
  static bool any(mask m) { return m; }
  static reg blend(mask m, reg a, reg b) { return m ? a : b; }
  static void interleave(reg re, reg im, reg* lo, reg* hi) { *lo = re, *hi = im; }
};
constexpr int kRowVectors = 4;
constexpr int kBits = 64;
#endif

#include "kernel/wide_impl.hpp"

}  // namespace

const WideKernels& wide_kernels_256() {
  static const WideKernels k = kernels_of<V, kRowVectors, 12>(kBits);
  return k;
}

}  // namespace mlfma2d
