#include "electrostatics/panel_integrals.hpp"

namespace mlfma2d::es {

GaussRule gauss_legendre(int n) {
  constexpr double kPi = 3.14159265358979323846;
  GaussRule rule;
  rule.t.resize(n);
  rule.w.resize(n);
  for (int i = 0; i < (n + 1) / 2; ++i) {
    // Newton on P_n from the Chebyshev-like first guess; P_n by the three-term recurrence
    // (k P_k = (2k - 1) t P_{k-1} - (k - 1) P_{k-2}), P_n' = n (t P_n - P_{n-1}) / (t^2 - 1).
    double t = std::cos(kPi * (i + 0.75) / (n + 0.5)), dp = 1;
    for (int iter = 0; iter < 100; ++iter) {
      double p0 = 1, p1 = t;
      for (int k = 2; k <= n; ++k) {
        const double p2 = ((2 * k - 1) * t * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      dp = n * (t * p1 - p0) / (t * t - 1);
      const double step = p1 / dp;
      t -= step;
      if (std::abs(step) < 1e-16) break;
    }
    const double w = 2 / ((1 - t * t) * dp * dp);
    rule.t[i] = -t;
    rule.t[n - 1 - i] = t;
    rule.w[i] = rule.w[n - 1 - i] = w;
  }
  if (n % 2 == 1) rule.t[n / 2] = 0;  // exactly
  return rule;
}

}  // namespace mlfma2d::es
