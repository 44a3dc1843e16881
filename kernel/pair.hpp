#pragma once
// The pair formula, written once for every back end (host and device; docs/math.md section 6.3).
//
// With d = x - y as a complex number (target x, source y), r2 = |d|^2 and g = 1/d = conj(d)/r2,
// a charge q and a dipole of moment m = mx + i my (strength times orientation) give the
// analytic function f whose real part is the potential, and its derivatives:
//   charge:  f = q log d,       f' = q g,        f'' = -q g^2
//   dipole:  f = m g,           f' = -m g^2,     f'' = 2 m g^3
//   phi = Re f = 0.5 q log r2 + (mx dx + my dy) / r2
//   E   = -grad phi = (-Re f', Im f'),   H = Hessian of phi = (Re f'', -Im f'', -Re f'')
// A pair with x == y (coincident points, the self pair) is skipped. The terms that depend on the
// pair alone (log r2, g, g^2, g^3) are computed once and applied to every density.
// Cost (charges): potential 5 flops + 1 log; with field 10 flops + 1 log + 1 division.
// Points closer than about 1.5e-154 (r2 below the smallest normal double: it lost precision or
// underflowed to 0 although x != y) take a slower scaled path, so that point sets at any scale
// (coordinates around 1e-300) are summed right; the common path costs the same comparison.
// There g^2 and g^3 may exceed the largest double: the field of a dipole and the Hessian at such
// distances are infinite in doubles, as their true values are beyond its range.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernel/half_log.hpp"
#include "kernel/hd.hpp"
#include "kernel/pair_constants.hpp"

namespace mlfma2d {

/// What a sum computes: 0 the potential, 1 also the field, 2 also the Hessian.
enum PairOrder : int { kPotential = 0, kField = 1, kHessian = 2 };

/// \brief The terms of one pair that every density shares.
struct PairTerms {
  double half_log = 0;      ///< 0.5 log r2 (charges)
  double gx = 0, gy = 0;    ///< g = 1/d (dipoles, or the field)
  double g2x = 0, g2y = 0;  ///< g^2 (the field of dipoles, the Hessian)
  double g3x = 0, g3y = 0;  ///< g^3 (the Hessian of dipoles)
};

/// \brief One target's sums for one density.
struct PairSums {
  double phi = 0, ex = 0, ey = 0, hxx = 0, hxy = 0;
};

/// 0.5 log r2 by the C library's log (CUDA's on the device).
struct LibraryHalfLog {
  MLFMA2D_HD double operator()(double r2) const { return 0.5 * log(r2); }
};

/// 0.5 log r2 by kernel/half_log.hpp's table, its entries at ic and hc (kHalfLogTable each; in a
/// kernel, shared memory: stage_half_log_table). The resident GPU back ends' log: half the
/// double operations of CUDA's, where the pair's log is most of the near field's work.
struct TableHalfLog {
  const double* ic = nullptr;  ///< invc
  const double* hc = nullptr;  ///< hlogc

  // The operations half_log_of asks for, on one double.
  using reg = double;
  struct Parts {
    double k, m;
    int i;
  };
  MLFMA2D_HD static void words(double x, std::uint32_t* hi, std::uint32_t* lo) {
#if defined(__CUDA_ARCH__)
    *hi = std::uint32_t(__double2hiint(x));
    *lo = std::uint32_t(__double2loint(x));
#else
    std::uint64_t b = 0;
    std::memcpy(&b, &x, sizeof b);
    *hi = std::uint32_t(b >> 32);
    *lo = std::uint32_t(b);
#endif
  }
  MLFMA2D_HD static double from_words(std::uint32_t hi, std::uint32_t lo) {
#if defined(__CUDA_ARCH__)
    return __hiloint2double(int(hi), int(lo));
#else
    const std::uint64_t b = (std::uint64_t(hi) << 32) | lo;
    double x = 0;
    std::memcpy(&x, &b, sizeof x);
    return x;
#endif
  }
  /// x = 2^k m: k + 1023 (the biased exponent) in the low bits of 2^52's fraction, less 2^52 +
  /// 1023, gives k exactly; m takes x's fraction under 1's exponent.
  MLFMA2D_HD static Parts parts(double x) {
    std::uint32_t hi = 0, lo = 0;
    words(x, &hi, &lo);
    return {from_words(0x43300000u, hi >> 20) - 4503599627371519.0,  // 2^52 + 1023
            from_words((hi & 0x000fffffu) | 0x3ff00000u, lo), int((hi >> 16) & 15u)};
  }
  MLFMA2D_HD double invc(int i) const {
    return ic[i];
  }
  MLFMA2D_HD double hlogc(int i) const {
    return hc[i];
  }
  MLFMA2D_HD static double set1(double v) {
    return v;
  }
  MLFMA2D_HD static double fma(double a, double b, double c) {
    return ::fma(a, b, c);
  }
  MLFMA2D_HD static double mul(double a, double b) {
    return a * b;
  }
  MLFMA2D_HD static double add(double a, double b) {
    return a + b;
  }

  /// r2 positive and normal (pair_terms' paths); infinity and NaN through log.
  MLFMA2D_HD double operator()(double r2) const {
    std::uint32_t hi = 0, lo = 0;
    words(r2, &hi, &lo);
    return hi < 0x7ff00000u ? half_log_of(*this, r2) : 0.5 * log(r2);
  }
};

/// Thread `tid` of a block (tid < 2 kHalfLogTable: more do nothing) writes its entry of the
/// table into `to`; read as TableHalfLog{to, to + kHalfLogTable} after the block's barrier.
MLFMA2D_HD void stage_half_log_table(double* to, int tid) {
  // (static: one copy in the device's global memory, not one on every thread's stack)
  static constexpr double table[2 * kHalfLogTable] = {MLFMA2D_HALF_LOG_INVC,
                                                      MLFMA2D_HALF_LOG_HLOGC};
  if (tid >= 0 && tid < 2 * kHalfLogTable) to[tid] = table[tid];
}

/// The terms of the pair d = (dx, dy) = target - source; false (terms untouched) for a skipped
/// pair (d = 0). 0.5 log r2 by `half_log` (LibraryHalfLog or TableHalfLog).
template <int kOrder, bool kCharge, bool kDipole, class HalfLog = LibraryHalfLog>
MLFMA2D_HD bool pair_terms(double dx, double dy, PairTerms* t, const HalfLog& half_log = {}) {
  const double r2 = dx * dx + dy * dy;
  constexpr bool kG = kDipole || kOrder >= kField;
  constexpr bool kG2 = (kDipole && kOrder >= kField) || kOrder >= kHessian;
  constexpr bool kG3 = kDipole && kOrder >= kHessian;
  double gx = 0, gy = 0;
  if (r2 >= kPairMinR2) {
    if (kCharge) t->half_log = half_log(r2);
    if (kG) {
      const double inv = 1.0 / r2;
      gx = dx * inv;
      gy = -dy * inv;
    }
  } else if (dx != 0.0 || dy != 0.0) {  // tiny distance: scale up by 2^600 exactly
    const double ux = dx * kPairScale, uy = dy * kPairScale;
    const double u2 = ux * ux + uy * uy;
    if (kCharge) t->half_log = half_log(u2) - kPairLogScale;
    if (kG) {
      // g = conj(u) / u2 * 2^600, in this order: 1 / u2 alone may overflow
      gx = (ux / u2) * kPairScale;
      gy = -(uy / u2) * kPairScale;
    }
  } else {
    return false;
  }
  if (kG) {
    t->gx = gx;
    t->gy = gy;
  }
  if (kG2) {
    t->g2x = gx * gx - gy * gy;
    t->g2y = 2.0 * gx * gy;
  }
  if (kG3) {
    t->g3x = t->g2x * gx - t->g2y * gy;
    t->g3y = t->g2x * gy + t->g2y * gx;
  }
  return true;
}

/// Adds one pair's contribution for charge q and moment (mx, my) to the sums.
template <int kOrder, bool kCharge, bool kDipole>
MLFMA2D_HD void add_pair(const PairTerms& t, double q, double mx, double my, PairSums* s) {
  if (kCharge) s->phi += q * t.half_log;
  if (kDipole) s->phi += mx * t.gx - my * t.gy;  // Re(m g)
  if (kOrder >= kField) {
    // f' = q g - m g^2;  E = (-Re f', Im f')
    double fr = 0, fi = 0;
    if (kCharge) {
      fr += q * t.gx;
      fi += q * t.gy;
    }
    if (kDipole) {
      fr -= mx * t.g2x - my * t.g2y;
      fi -= mx * t.g2y + my * t.g2x;
    }
    s->ex -= fr;
    s->ey += fi;
  }
  if (kOrder >= kHessian) {
    // f'' = -q g^2 + 2 m g^3;  H = (Re f'', -Im f'')
    double hr = 0, hi = 0;
    if (kCharge) {
      hr -= q * t.g2x;
      hi -= q * t.g2y;
    }
    if (kDipole) {
      hr += 2.0 * (mx * t.g3x - my * t.g3y);
      hi += 2.0 * (mx * t.g3y + my * t.g3x);
    }
    s->hxx += hr;
    s->hxy -= hi;
  }
}

/// Adds the reverse pair's contribution, the target's strengths (q, mx, my) at the source, to
/// the source's sums (self-evaluation): the same terms with d -> -d, the log and g^2 even, g and
/// g^3 odd (docs/math.md 6.5). add_pair on the negated odd terms (negation is exact, and so is
/// every product of them): each direction's contribution is the one-way pair's, bit for bit;
/// only the order of the sums differs.
template <int kOrder, bool kCharge, bool kDipole>
MLFMA2D_HD void add_pair_back(const PairTerms& t, double q, double mx, double my, PairSums* s) {
  PairTerms r = t;
  r.gx = -t.gx;
  r.gy = -t.gy;
  r.g3x = -t.g3x;
  r.g3y = -t.g3y;
  add_pair<kOrder, kCharge, kDipole>(r, q, mx, my, s);
}

/// One pair, one density: the terms and their contribution.
template <int kOrder, bool kCharge, bool kDipole>
MLFMA2D_HD void accumulate_pair(double x, double y, double sx, double sy, double q, double mx,
                                double my, PairSums* s) {
  PairTerms t;
  if (pair_terms<kOrder, kCharge, kDipole>(x - sx, y - sy, &t))
    add_pair<kOrder, kCharge, kDipole>(t, q, mx, my, s);
}

/// Accumulate the potential of source (sx, sy, q) at target (x, y) into *phi.
MLFMA2D_HD void log_pair(double x, double y, double sx, double sy, double q, double* phi) {
  PairSums s;
  accumulate_pair<kPotential, true, false>(x, y, sx, sy, q, 0.0, 0.0, &s);
  *phi += s.phi;
}

/// Accumulate potential and field of source (sx, sy, q) at target (x, y).
MLFMA2D_HD void log_pair_field(double x, double y, double sx, double sy, double q, double* phi,
                               double* ex, double* ey) {
  PairSums s;
  accumulate_pair<kField, true, false>(x, y, sx, sy, q, 0.0, 0.0, &s);
  *phi += s.phi;
  *ex += s.ex;
  *ey += s.ey;
}

/// Calls f(order, charges, dipoles) with std::integral_constant arguments: the compile-time form
/// of the run-time kinds (charges, dipoles or both) and outputs, for a generic lambda
///   [&](auto o, auto c, auto d) { sum<decltype(o)::value, decltype(c)::value, ...>(...); }
template <class F>
inline void dispatch_pair(int order, bool charges, bool dipoles, F&& f) {
  auto kinds = [&](auto o) {
    if (charges && dipoles)
      f(o, std::true_type{}, std::true_type{});
    else if (dipoles)
      f(o, std::false_type{}, std::true_type{});
    else
      f(o, std::true_type{}, std::false_type{});
  };
  if (order >= kHessian)
    kinds(std::integral_constant<int, kHessian>{});
  else if (order == kField)
    kinds(std::integral_constant<int, kField>{});
  else
    kinds(std::integral_constant<int, kPotential>{});
}

}  // namespace mlfma2d
