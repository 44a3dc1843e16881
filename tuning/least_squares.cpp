// Fit quality and the scaled least squares the fit solves with (tuning/model.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <Eigen/Dense>

#include "mlfma2d/errors.hpp"
#include "tuning/model.hpp"

namespace mlfma2d::tuning {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  if (n < 2) return kNaN;
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ma += a[i];
    mb += b[i];
  }
  ma /= double(n);
  mb /= double(n);
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return (saa > 0 && sbb > 0) ? sab / std::sqrt(saa * sbb) : kNaN;
}

double mean_relative_error(const std::vector<double>& predicted,
                           const std::vector<double>& measured) {
  const std::size_t n = std::min(predicted.size(), measured.size());
  double sum = 0;
  std::size_t used = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (measured[i] == 0) continue;
    sum += std::abs(predicted[i] - measured[i]) / std::abs(measured[i]);
    ++used;
  }
  return used ? sum / double(used) : kNaN;
}

FitQuality fit_quality(const std::vector<double>& predicted, const std::vector<double>& measured) {
  // Only the pairs where both are finite count.
  std::vector<double> p, m;
  for (std::size_t i = 0; i < std::min(predicted.size(), measured.size()); ++i) {
    if (std::isfinite(predicted[i]) && std::isfinite(measured[i])) {
      p.push_back(predicted[i]);
      m.push_back(measured[i]);
    }
  }
  FitQuality q;
  q.n = p.size();
  q.correlation = pearson(p, m);
  q.mean_relative_error = mean_relative_error(p, m);
  return q;
}

std::vector<double> least_squares(const std::vector<std::vector<double>>& a,
                                  const std::vector<double>& b) {
  const std::size_t rows = a.size();
  const std::size_t cols = rows ? a[0].size() : 0;
  if (rows < cols || cols == 0) {
    throw InvalidInput("least squares: " + std::to_string(rows) + " rows for " +
                       std::to_string(cols) + " unknowns");
  }
  Eigen::MatrixXd m(rows, cols);
  Eigen::VectorXd v(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) m(i, j) = a[i][j];
    v(i) = b[i];
  }
  // Scale each column to unit max so that a term of 1e-6 weighs as much as one of 1e3.
  Eigen::VectorXd scale(cols);
  for (std::size_t j = 0; j < cols; ++j) {
    const double s = m.col(j).cwiseAbs().maxCoeff();
    scale(j) = s > 0 ? s : 1;
    m.col(j) /= scale(j);
  }
  const Eigen::VectorXd x = m.colPivHouseholderQr().solve(v);
  std::vector<double> out(cols);
  for (std::size_t j = 0; j < cols; ++j) out[j] = x(j) / scale(j);
  return out;
}

}  // namespace mlfma2d::tuning
