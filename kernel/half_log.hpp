#pragma once
// 0.5 log x for the near field's charges (docs/math.md 6.4), written once over an operations
// type: the scalar one of host and device (TableHalfLog, kernel/pair.hpp) and the wide kernels'
// vectors (kernel/wide_impl.hpp). A table of 16 entries and a polynomial of degree 10: 15 double
// operations where CUDA's log takes about 30 and a reciprocal, within 2 ulps of the result plus
// 2^-54 (tests/test_half_log.cpp). A template and constants only (no inline function that is
// not a template of the includer's own types), so that the 512-bit unit may include it.
//   x = 2^k m, m in [1, 2), i = the top 4 bits of m's fraction, r = fma(m, invc[i], -1),
//   0.5 log x = k log(2)/2 + hlogc[i] + r/2 + r^2 P(r)
#include "kernel/half_log_table.hpp"
#include "kernel/hd.hpp"

namespace mlfma2d {

/// The table for host code (device code stages its own copy from the macros: it cannot index a
/// host array).
constexpr double kHalfLogInvc[kHalfLogTable] = {MLFMA2D_HALF_LOG_INVC};
constexpr double kHalfLogC[kHalfLogTable] = {MLFMA2D_HALF_LOG_HLOGC};

/// 0.5 log x for x positive, normal and finite. Ops (o) provides `reg`; `parts(x)` with members
/// k (k as a reg), m (a reg) and i (an index of Ops's own type); `invc(i)` and `hlogc(i)` (the
/// table's entries); `set1`, `fma`, `mul` and `add`.
template <class Ops>
MLFMA2D_HD typename Ops::reg half_log_of(const Ops& o, typename Ops::reg x) {
  using reg = typename Ops::reg;
  const double c[kHalfLogTerms] = {MLFMA2D_HALF_LOG_POLY};
  const auto p = o.parts(x);
  const reg r = o.fma(p.m, o.invc(p.i), o.set1(-1.0));  // |r| <= 1/32
  reg poly = o.set1(c[0]);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int j = 1; j < kHalfLogTerms; ++j) poly = o.fma(poly, r, o.set1(c[j]));
  const reg low = o.fma(o.mul(r, r), poly, o.mul(o.set1(0.5), r));  // log(1 + r) / 2
  return o.add(o.fma(p.k, o.set1(kHalfLn2), o.hlogc(p.i)), low);
}

}  // namespace mlfma2d
