#pragma once
// The pair formula, written once for every back end (host and device; docs/math.md section 6.3).
//
//   phi += q log|x - y| = 0.5 q log(r2),           r2 = |x - y|^2
//   E   += -q (x - y) / r2      (E = -grad phi)
// A pair with x == y (coincident points, the self pair) is skipped.
// Cost: potential 5 flops + 1 log; with field 10 flops + 1 log + 1 division.
// Points closer than about 1.5e-154 (r2 below the smallest normal double: it lost precision or
// underflowed to 0 although x != y) take a slower scaled path, so that point sets at any scale
// (coordinates around 1e-300) are summed right; the common path costs the same comparison.
#if defined(__CUDACC__)
#define MLFMA2D_HD __host__ __device__ __forceinline__
#else
#define MLFMA2D_HD inline
#endif

#include <cmath>

namespace mlfma2d {

/// The smallest normal double (DBL_MIN), spelled out for device code.
constexpr double kPairMinR2 = 2.2250738585072014e-308;
/// 2^600 and log(2^600): the scale of the tiny-distance path (exact powers of two).
constexpr double kPairScale = 4.149515568880993e180;
constexpr double kPairLogScale = 415.88830833596717;

/// Accumulate the potential of source (sx, sy, q) at target (x, y) into *phi.
MLFMA2D_HD void log_pair(double x, double y, double sx, double sy, double q, double* phi) {
  const double dx = x - sx, dy = y - sy;
  const double r2 = dx * dx + dy * dy;
  if (r2 >= kPairMinR2) {
    *phi += 0.5 * q * log(r2);
  } else if (dx != 0.0 || dy != 0.0) {  // tiny distance: scale up by 2^600 exactly
    const double ux = dx * kPairScale, uy = dy * kPairScale;
    *phi += q * (0.5 * log(ux * ux + uy * uy) - kPairLogScale);
  }
}

/// Accumulate potential and field of source (sx, sy, q) at target (x, y).
MLFMA2D_HD void log_pair_field(double x, double y, double sx, double sy, double q, double* phi,
                               double* ex, double* ey) {
  const double dx = x - sx, dy = y - sy;
  const double r2 = dx * dx + dy * dy;
  if (r2 >= kPairMinR2) {
    *phi += 0.5 * q * log(r2);
    const double s = -q / r2;
    *ex += s * dx;
    *ey += s * dy;
  } else if (dx != 0.0 || dy != 0.0) {  // tiny distance: scale up by 2^600 exactly
    const double ux = dx * kPairScale, uy = dy * kPairScale;
    const double u2 = ux * ux + uy * uy;
    *phi += q * (0.5 * log(u2) - kPairLogScale);
    // d / r2 = (u / u2) 2^600, in this order: q / u2 alone may overflow
    *ex -= q * ((ux / u2) * kPairScale);
    *ey -= q * ((uy / u2) * kPairScale);
  }
}

}  // namespace mlfma2d
