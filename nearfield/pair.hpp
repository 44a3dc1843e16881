#pragma once
// The pair formula, written once for every back end (host and device).
//
//   phi += q log|x - y| = 0.5 q log(r2),           r2 = |x - y|^2
//   E   += -q (x - y) / r2      (E = -grad phi)
// A pair with r2 == 0 (coincident points, the self pair) is skipped.
// Cost: potential 5 flops + 1 log; with field 10 flops + 1 log + 1 division.
#if defined(__CUDACC__)
#define MLFMA2D_HD __host__ __device__ __forceinline__
#else
#define MLFMA2D_HD inline
#endif

#include <cmath>

namespace mlfma2d {

/// Accumulate the potential of source (sx, sy, q) at target (x, y) into *phi.
MLFMA2D_HD void log_pair(double x, double y, double sx, double sy, double q, double* phi) {
  const double dx = x - sx, dy = y - sy;
  const double r2 = dx * dx + dy * dy;
  if (r2 > 0.0) *phi += 0.5 * q * log(r2);
}

/// Accumulate potential and field of source (sx, sy, q) at target (x, y).
MLFMA2D_HD void log_pair_field(double x, double y, double sx, double sy, double q, double* phi,
                               double* ex, double* ey) {
  const double dx = x - sx, dy = y - sy;
  const double r2 = dx * dx + dy * dy;
  if (r2 > 0.0) {
    *phi += 0.5 * q * log(r2);
    const double s = -q / r2;
    *ex += s * dx;
    *ey += s * dy;
  }
}

}  // namespace mlfma2d
