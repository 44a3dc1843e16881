// The wide kernels at 256 bits (AVX2 + FMA: the portable build's x86-64-v3), or scalar where the
// build has no AVX2.
#include "kernel/wide.hpp"

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "kernel/half_log.hpp"
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
  static reg first(double x) { return _mm256_set_pd(0, 0, 0, x); }
  static reg fma(reg a, reg b, reg c) { return _mm256_fmadd_pd(a, b, c); }
  static reg fms(reg a, reg b, reg c) { return _mm256_fmsub_pd(a, b, c); }
  static reg add(reg a, reg b) { return _mm256_add_pd(a, b); }
  static reg sub(reg a, reg b) { return _mm256_sub_pd(a, b); }
  static reg mul(reg a, reg b) { return _mm256_mul_pd(a, b); }
  static reg div(reg a, reg b) { return _mm256_div_pd(a, b); }
  // half_log_of's operations (kernel/half_log.hpp): the table's entries gathered
  struct Parts {
    reg k, m;
    __m256i i;
  };
  static Parts parts(reg x) {
    const __m256i b = _mm256_castpd_si256(x);
    const __m256i e =
        _mm256_or_si256(_mm256_srli_epi64(b, 52), _mm256_set1_epi64x(0x4330000000000000));
    const __m256i f = _mm256_and_si256(b, _mm256_set1_epi64x(0x000fffffffffffff));
    return {_mm256_sub_pd(_mm256_castsi256_pd(e), _mm256_set1_pd(4503599627371519.0)),
            _mm256_castsi256_pd(_mm256_or_si256(f, _mm256_set1_epi64x(0x3ff0000000000000))),
            _mm256_and_si256(_mm256_srli_epi64(b, 48), _mm256_set1_epi64x(15))};
  }
  static reg invc(__m256i i) { return _mm256_i64gather_pd(kHalfLogInvc, i, 8); }
  static reg hlogc(__m256i i) { return _mm256_i64gather_pd(kHalfLogC, i, 8); }
  static double hsum(reg v) {
    const __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
  }
  // out[i] = hsum(v[i]) for i < n, the same sums in the same order, 4 at a time by shuffles.
  static void hsums(const reg* v, int n, double* out) {
    for (int i = 0; i < n; i += 4) {
      reg x[4];
      for (int k = 0; k < 4; ++k) x[k] = i + k < n ? v[i + k] : zero();
      // (a0 + a2, a1 + a3, c0 + c2, c1 + c3) and the same of b and d
      const reg ac =
          add(_mm256_permute2f128_pd(x[0], x[2], 0x20), _mm256_permute2f128_pd(x[0], x[2], 0x31));
      const reg bd =
          add(_mm256_permute2f128_pd(x[1], x[3], 0x20), _mm256_permute2f128_pd(x[1], x[3], 0x31));
      const reg s = add(_mm256_unpacklo_pd(ac, bd), _mm256_unpackhi_pd(ac, bd));
      if (n - i >= 4)
        store(out + i, s);
      else
        store_first(out + i, s, n - i);
    }
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
  struct Parts {
    double k, m;
    int i;
  };
  static Parts parts(reg x) {
    unsigned long long b = 0;
    __builtin_memcpy(&b, &x, sizeof b);
    const unsigned long long e = (b >> 52) | 0x4330000000000000ull;
    const unsigned long long f = (b & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
    double k = 0, m = 0;
    __builtin_memcpy(&k, &e, sizeof k);
    __builtin_memcpy(&m, &f, sizeof m);
    return {k - 4503599627371519.0, m, int((b >> 48) & 15)};
  }
  static reg invc(int i) { return kHalfLogInvc[i]; }
  static reg hlogc(int i) { return kHalfLogC[i]; }
  static double hsum(reg v) { return v; }
  static void hsums(const reg* v, int n, double* out) {
    for (int i = 0; i < n; ++i) out[i] = v[i];
  }
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
