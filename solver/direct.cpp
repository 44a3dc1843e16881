// Direct O(N M) summation: the reference every result is checked against.
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "mlfma2d/mlfma2d.hpp"
#include "nearfield/pair.hpp"
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

ErrorNorms error_norms(const std::vector<double>& value, const std::vector<double>& reference) {
  if (value.size() != reference.size()) throw InvalidInput("error_norms: lengths differ");
  double num = 0, den = 0, mx = 0;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const double d = value[i] - reference[i];
    num += d * d;
    den += reference[i] * reference[i];
    mx = std::max(mx, std::abs(d));
  }
  ErrorNorms e;
  e.rel_l2 = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  e.max_abs = mx;
  return e;
}

}  // namespace mlfma2d
