// Line parameters from C and C0. With voltages V and currents I on the signal conductors, a TEM
// line obeys dV/dz = -L dI/dt, dI/dz = -C dV/dt, L = mu0 eps0 C0^-1 (the inductance does not see
// the dielectric). A mode V e^{j(wt - z/v)} needs (L C) V = V / v^2, i.e. the symmetric-definite
// problem C V = eps_eff C0 V with eps_eff = (c / v)^2 (C and C0 symmetric positive definite),
// and carries I = v C V: its impedance V.V / V.I = 1 / (v V^T C V / V^T V). For a symmetric pair
// the modes are even (V = (1, 1)) and odd (V = (1, -1)), Z = sqrt((L11 +- L12) / (C11 +- C12)).
#include "electrostatics/lines.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

namespace mlfma2d::es {

LineParameters line_parameters(const std::vector<std::vector<double>>& c,
                               const std::vector<std::vector<double>>& c0) {
  LineParameters p;
  const std::size_t n = c.size();
  p.capacitance_vacuum = c0;
  if (n == 0) return p;
  Eigen::MatrixXd cm(n, n), c0m(n, n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      // The solves give C to their accuracy; its symmetric part is the matrix.
      cm(i, j) = 0.5 * (c[i][j] + c[j][i]);
      c0m(i, j) = 0.5 * (c0[i][j] + c0[j][i]);
    }
  }
  const double mu0eps0 = 1 / (kLightSpeed * kLightSpeed);
  const Eigen::MatrixXd l = mu0eps0 * c0m.inverse();
  p.inductance.assign(n, std::vector<double>(n));
  p.capacitance_mutual.assign(n, std::vector<double>(n));
  p.capacitance_to_ground.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      p.inductance[i][j] = l(i, j);
      p.capacitance_mutual[i][j] = i == j ? 0.0 : -c[i][j];
      p.capacitance_to_ground[i] += c[i][j];
    }
  }
  const double nan = std::nan("");
  p.z0 = p.eps_eff = p.velocity = nan;
  if (n == 1) {
    p.eps_eff = c[0][0] / c0[0][0];
    p.z0 = 1 / (kLightSpeed * std::sqrt(c[0][0] * c0[0][0]));
    p.velocity = kLightSpeed / std::sqrt(p.eps_eff);
  }
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> eig(cm, c0m);
  if (eig.info() != Eigen::Success) return p;  // C or C0 not positive definite: no modes
  p.symmetric_pair = n == 2 && std::abs(c[0][0] - c[1][1]) <= 1e-6 * std::max(c[0][0], c[1][1]) &&
                     std::abs(c0[0][0] - c0[1][1]) <= 1e-6 * std::max(c0[0][0], c0[1][1]);
  for (std::size_t m = n; m-- > 0;) {  // eigenvalues ascending: slowest (largest) first
    LineMode mode;
    mode.eps_eff = eig.eigenvalues()[m];
    mode.velocity = kLightSpeed / std::sqrt(mode.eps_eff);
    Eigen::VectorXd v = eig.eigenvectors().col(m);
    if (p.symmetric_pair) {  // exactly even or odd, not what the rounding of C makes of them
      const double sign = std::abs(v[0] + v[1]) > std::abs(v[0] - v[1]) ? 1.0 : -1.0;
      v << 1.0, sign;
      mode.eps_eff = (c[0][0] + sign * c[0][1]) / (c0[0][0] + sign * c0[0][1]);
      mode.velocity = kLightSpeed / std::sqrt(mode.eps_eff);
    }
    const Eigen::Index big = [&] {
      Eigen::Index k;
      v.cwiseAbs().maxCoeff(&k);
      return k;
    }();
    v /= v[big];
    mode.impedance = v.squaredNorm() / (mode.velocity * v.dot(cm * v));
    mode.voltage.assign(v.data(), v.data() + n);
    p.modes.push_back(mode);
  }
  return p;
}

}  // namespace mlfma2d::es
