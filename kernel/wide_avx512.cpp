// The wide kernels at 512 bits (AVX-512 F/DQ/VL/BW: this unit alone is compiled for
// x86-64-v4; kernel/wide.cpp calls it only where the CPU has them).
#include <immintrin.h>

#include "kernel/half_log.hpp"
#include "kernel/pair_constants.hpp"
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
  static reg first(double x) { return _mm512_set_pd(0, 0, 0, 0, 0, 0, 0, x); }
  static reg fma(reg a, reg b, reg c) { return _mm512_fmadd_pd(a, b, c); }
  static reg fms(reg a, reg b, reg c) { return _mm512_fmsub_pd(a, b, c); }
  static reg add(reg a, reg b) { return _mm512_add_pd(a, b); }
  static reg sub(reg a, reg b) { return _mm512_sub_pd(a, b); }
  static reg mul(reg a, reg b) { return _mm512_mul_pd(a, b); }
  static reg div(reg a, reg b) { return _mm512_div_pd(a, b); }
  // half_log_of's operations (kernel/half_log.hpp): the table's 16 entries in two registers,
  // looked up by one two-source permute
  struct Parts {
    reg k, m;
    __m512i i;
  };
  // (shifts through the zero-masking form: GCC 12 warns of the plain one's undefined source)
  static __m512i shift_right(__m512i b, unsigned n) {
    return _mm512_maskz_srli_epi64(__mmask8(0xff), b, n);
  }
  static Parts parts(reg x) {
    const __m512i b = _mm512_castpd_si512(x);
    const __m512i e = _mm512_or_si512(shift_right(b, 52), _mm512_set1_epi64(0x4330000000000000));
    const __m512i f = _mm512_and_si512(b, _mm512_set1_epi64(0x000fffffffffffff));
    return {_mm512_sub_pd(_mm512_castsi512_pd(e), _mm512_set1_pd(4503599627371519.0)),
            _mm512_castsi512_pd(_mm512_or_si512(f, _mm512_set1_epi64(0x3ff0000000000000))),
            _mm512_and_si512(shift_right(b, 48), _mm512_set1_epi64(15))};
  }
  static reg lookup(const double* table, __m512i i) {
    return _mm512_permutex2var_pd(_mm512_loadu_pd(table), i, _mm512_loadu_pd(table + 8));
  }
  static reg invc(__m512i i) { return lookup(kHalfLogInvc, i); }
  static reg hlogc(__m512i i) { return lookup(kHalfLogC, i); }
  static double hsum(reg v) {
    alignas(64) double t[8];
    _mm512_store_pd(t, v);
    return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
  }
  // out[i] = hsum(v[i]) for i < n, the same sums in the same order, 8 at a time by shuffles
  // (pairs, then quads, then halves: 7 adds for 8 sums where hsum takes 7 for one; the
  // zero-masking forms, as in shift_right).
  static void hsums(const reg* v, int n, double* out) {
    const __mmask8 all = 0xff;
    const __m512i lo = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
    const __m512i hi = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    for (int i = 0; i < n; i += 8) {
      reg x[8], y[4], z[2];
      for (int k = 0; k < 8; ++k) x[k] = i + k < n ? v[i + k] : zero();
      for (int k = 0; k < 4; ++k)
        y[k] = add(_mm512_maskz_unpacklo_pd(all, x[2 * k], x[2 * k + 1]),
                   _mm512_maskz_unpackhi_pd(all, x[2 * k], x[2 * k + 1]));
      for (int k = 0; k < 2; ++k)
        z[k] = add(_mm512_permutex2var_pd(y[2 * k], lo, y[2 * k + 1]),
                   _mm512_permutex2var_pd(y[2 * k], hi, y[2 * k + 1]));
      const reg s = add(_mm512_maskz_shuffle_f64x2(all, z[0], z[1], 0x44),
                        _mm512_maskz_shuffle_f64x2(all, z[0], z[1], 0xee));
      if (n - i >= 8)
        store(out + i, s);
      else
        store_first(out + i, s, n - i);
    }
  }
  using mask = __mmask8;
  static mask lt(reg a, reg b) { return _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ); }
  static mask ne(reg a, reg b) { return _mm512_cmp_pd_mask(a, b, _CMP_NEQ_UQ); }
  static mask mand(mask a, mask b) { return mask(a & b); }
  static mask mor(mask a, mask b) { return mask(a | b); }
  static bool any(mask m) { return m != 0; }
  static reg blend(mask m, reg a, reg b) { return _mm512_mask_blend_pd(m, b, a); }
  static void interleave(reg re, reg im, reg* lo, reg* hi) {
    *lo = _mm512_permutex2var_pd(re, _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11), im);
    *hi = _mm512_permutex2var_pd(re, _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15), im);
  }
  static reg swap(reg r) { return _mm512_shuffle_pd(r, r, 0x55); }
  static reg load_first(const double* p, int c) {
    return _mm512_maskz_loadu_pd(__mmask8((1u << c) - 1), p);
  }
  static void store_first(double* p, reg r, int c) {
    _mm512_mask_storeu_pd(p, __mmask8((1u << c) - 1), r);
  }
};
constexpr int kRowVectors = 4;  // 4 x 6 accumulators of 32 registers

#include "kernel/wide_impl.hpp"

}  // namespace

const WideKernels& wide_kernels_512() {
  static const WideKernels k = kernels_of<V, kRowVectors, 24>(512);
  return k;
}

}  // namespace mlfma2d
