// Direct O(N M) summation: the reference every result is checked against.
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "kernel/pair.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "solver/points.hpp"
#include "solver/strengths.hpp"

namespace mlfma2d {

DirectOptions direct_options(const Options& o) {
  return {o.densities, o.charges, o.dipoles, o.field, o.hessian, o.threads};
}

void direct_sum(const std::vector<double>& x, const std::vector<double>& y,
                const std::vector<double>& tx, const std::vector<double>& ty, const Densities& in,
                const DirectOptions& o, const std::vector<std::size_t>& which, const Outputs& out) {
  if (x.size() != y.size()) throw InvalidInput("direct_sum: source x and y differ in length");
  if (tx.size() != ty.size()) throw InvalidInput("direct_sum: target x and y differ in length");
  if (o.densities < 1) throw InvalidInput("direct_sum: densities must be >= 1");
  if (!o.charges && !o.dipoles) throw InvalidInput("direct_sum: neither charges nor dipoles");
  const std::size_t n = x.size();
  const int nd = o.densities;
  // The reference refuses what the Solver refuses, rather than returning NaN.
  check_finite_points(x, y, "source");
  check_finite_points(tx, ty, "target");
  check_strengths(SourceKinds{nd, o.charges, o.dipoles, o.field, o.hessian}, n, in, "direct_sum: ");
  check_outputs(o.field, o.hessian, out, "direct_sum: ");
  const bool all = which.empty();
  const std::size_t m = all ? tx.size() : which.size();
  for (std::size_t k = 0; k < which.size(); ++k)
    if (which[k] >= tx.size())
      throw InvalidInput("direct_sum: target index " + std::to_string(which[k]) + " out of range");
  // Coordinates scaled by 2^-k when their extent would overflow r^2 (as the Solver does,
  // solver/points.hpp): log|x - y| = log S + log|u - v|, a dipole's m . d / |d|^2 gains 1/S,
  // each derivative 1/S. Views of the caller's arrays unless scaled (then copies): no copy of N
  // points for a sample.
  const PreparedPoints pts = prepare_points(x, y, tx, ty, o.threads);
  const double* sx = pts.src.x;
  const double* sy = pts.src.y;
  const double* gx = pts.targets().x;
  const double* gy = pts.targets().y;
  const double log_s = pts.log_scale(), inv_s = 1.0 / pts.scale();
  std::vector<double> mx, my;
  if (o.dipoles)
    dipole_moments(pts, in.dipole_strengths, in.dipole_vectors, in.vectors_per_density, nd, &mx,
                   &my, o.threads);
  const int order = o.hessian ? kHessian : o.field ? kField : kPotential;
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  dispatch_pair(order, o.charges, o.dipoles, [&](auto o_, auto c_, auto d_) {
    constexpr int kOrder = decltype(o_)::value;
    constexpr bool kCharge = decltype(c_)::value, kDipole = decltype(d_)::value;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
    for (std::size_t k = 0; k < m; ++k) {
      const std::size_t i = all ? k : which[k];
      for (int d = 0; d < nd; ++d) {
        const double* q = kCharge ? in.charges + std::size_t(d) * n : nullptr;
        const double* ax = kDipole ? mx.data() + std::size_t(d) * n : nullptr;
        const double* ay = kDipole ? my.data() + std::size_t(d) * n : nullptr;
        PairSums s;
        double paired = 0;  // the charge of the sources not skipped
        for (std::size_t j = 0; j < n; ++j) {
          accumulate_pair<kOrder, kCharge, kDipole>(gx[i], gy[i], sx[j], sy[j],
                                                    kCharge ? q[j] : 0.0, kDipole ? ax[j] : 0.0,
                                                    kDipole ? ay[j] : 0.0, &s);
          if (kCharge && pts.scaled() && (gx[i] != sx[j] || gy[i] != sy[j])) paired += q[j];
        }
        const std::size_t at = std::size_t(d) * m + k;
        out.potential[at] = s.phi + log_s * paired;
        if (kOrder >= kField && o.field) {
          out.field_x[at] = s.ex * inv_s;
          out.field_y[at] = s.ey * inv_s;
        }
        if (kOrder >= kHessian) {
          out.hessian_xx[at] = s.hxx * inv_s * inv_s;
          out.hessian_xy[at] = s.hxy * inv_s * inv_s;
          out.hessian_yy[at] = -out.hessian_xx[at];
        }
      }
    }
  });
}

void direct_sum(const std::vector<double>& x, const std::vector<double>& y,
                const std::vector<double>& q, const std::vector<double>& tx,
                const std::vector<double>& ty, const std::vector<std::size_t>& which,
                std::vector<double>* potential, std::vector<double>* fx, std::vector<double>* fy,
                int threads) {
  if (x.size() != y.size() || x.size() != q.size())
    throw InvalidInput("direct_sum: source x, y and q must have equal lengths");
  const std::size_t m = which.empty() ? tx.size() : which.size();
  DirectOptions o;
  o.field = fx && fy;
  o.threads = threads;
  Densities in;
  in.charges = q.data();
  potential->assign(m, 0.0);
  Outputs out;
  out.potential = potential->data();
  if (o.field) {
    fx->assign(m, 0.0);
    fy->assign(m, 0.0);
    out.field_x = fx->data();
    out.field_y = fy->data();
  }
  direct_sum(x, y, tx, ty, in, o, which, out);
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
