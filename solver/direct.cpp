// Direct O(N M) summation: the reference every result is checked against.
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "kernel/pair.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "solver/points.hpp"

namespace mlfma2d {

void direct_sum(const std::vector<double>& x, const std::vector<double>& y,
                const std::vector<double>& q, const std::vector<double>& tx,
                const std::vector<double>& ty, const std::vector<std::size_t>& which,
                std::vector<double>* potential, std::vector<double>* fx, std::vector<double>* fy,
                int threads) {
  if (x.size() != y.size() || x.size() != q.size())
    throw InvalidInput("direct_sum: source x, y and q must have equal lengths");
  if (tx.size() != ty.size()) throw InvalidInput("direct_sum: target x and y differ in length");
  // The reference refuses what the Solver refuses, rather than returning NaN.
  check_finite_points(x, y, "source");
  check_finite_points(tx, ty, "target");
  check_finite_charges(q.data(), q.size());
  const bool all = which.empty();
  const std::size_t m = all ? tx.size() : which.size();
  for (std::size_t k = 0; k < which.size(); ++k)
    if (which[k] >= tx.size())
      throw InvalidInput("direct_sum: target index " + std::to_string(which[k]) + " out of range");
  const bool field = fx && fy;
  potential->assign(m, 0.0);
  if (field) {
    fx->assign(m, 0.0);
    fy->assign(m, 0.0);
  }
  // Coordinates scaled by 2^-k when their extent would overflow r^2 (as the Solver does,
  // solver/points.hpp): log|x - y| = log S + log|u - v|, E = E_u / S.
  // Views of the caller's arrays unless scaled (then copies): no copy of N points for a sample.
  const PreparedPoints pts = prepare_points(x, y, tx, ty, threads);
  const double* sx = pts.src.x;
  const double* sy = pts.src.y;
  const double* gx = pts.targets().x;
  const double* gy = pts.targets().y;
  const double log_s = pts.log_scale(), inv_s = 1.0 / pts.scale();
  const std::size_t n = x.size();
#pragma omp parallel for num_threads(threads > 0 ? threads : omp_get_max_threads()) \
    schedule(dynamic, 16)
  for (std::size_t k = 0; k < m; ++k) {
    const std::size_t i = all ? k : which[k];
    double phi = 0, ex = 0, ey = 0, paired = 0;  // paired: the charge of the sources not skipped
    for (std::size_t j = 0; j < n; ++j) {
      if (field)
        log_pair_field(gx[i], gy[i], sx[j], sy[j], q[j], &phi, &ex, &ey);
      else
        log_pair(gx[i], gy[i], sx[j], sy[j], q[j], &phi);
      if (pts.scaled() && (gx[i] != sx[j] || gy[i] != sy[j])) paired += q[j];
    }
    (*potential)[k] = phi + log_s * paired;
    if (field) {
      (*fx)[k] = ex * inv_s;
      (*fy)[k] = ey * inv_s;
    }
  }
}

namespace {

// The larger of a and b, NaN once either is NaN (std::max(0.0, NaN) is 0).
double max_or_nan(double a, double b) {
  if (std::isnan(a)) return a;
  return std::isnan(b) || b > a ? b : a;
}

// Errors over n values of k components (1: a potential, 2: a field), difference and reference
// magnitudes from `magnitudes(i, &d, &r)`. The sums of squares are taken of the magnitudes
// divided by the largest (as LAPACK's dnrm2 scales), so values near 1e-200 or 1e200 neither
// underflow nor overflow when squared; NaN and inf propagate.
template <class Magnitudes>
ErrorNorms scaled_norms(std::size_t n, Magnitudes magnitudes) {
  double dmax = 0, rmax = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double d, r;
    magnitudes(i, &d, &r);
    dmax = max_or_nan(dmax, d);
    rmax = max_or_nan(rmax, r);
  }
  ErrorNorms e;
  e.max_abs = dmax;
  if (!std::isfinite(dmax) || !std::isfinite(rmax)) {
    // An infinite reference has an infinite or NaN difference: inf / inf, NaN; an infinite
    // difference from a finite reference, inf.
    e.rel_l2 = std::isnan(dmax) || !std::isfinite(rmax) ? NAN : INFINITY;
    return e;
  }
  if (dmax == 0) return e;
  double sd = 0, sr = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double d, r;
    magnitudes(i, &d, &r);
    sd += (d / dmax) * (d / dmax);
    if (rmax > 0) sr += (r / rmax) * (r / rmax);
  }
  // A reference of zeros: the absolute L2 error.
  e.rel_l2 = rmax > 0 ? dmax / rmax * std::sqrt(sd / sr) : dmax * std::sqrt(sd);
  return e;
}

}  // namespace

ErrorNorms error_norms(const std::vector<double>& value, const std::vector<double>& reference) {
  if (value.size() != reference.size()) throw InvalidInput("error_norms: lengths differ");
  return scaled_norms(value.size(), [&](std::size_t i, double* d, double* r) {
    *d = std::abs(value[i] - reference[i]);
    *r = std::abs(reference[i]);
  });
}

ErrorNorms error_norms(const std::vector<double>& value_x, const std::vector<double>& value_y,
                       const std::vector<double>& reference_x,
                       const std::vector<double>& reference_y) {
  const std::size_t n = value_x.size();
  if (value_y.size() != n || reference_x.size() != n || reference_y.size() != n)
    throw InvalidInput("error_norms: lengths differ");
  return scaled_norms(n, [&](std::size_t i, double* d, double* r) {
    *d = std::hypot(value_x[i] - reference_x[i], value_y[i] - reference_y[i]);
    *r = std::hypot(reference_x[i], reference_y[i]);
  });
}

}  // namespace mlfma2d
