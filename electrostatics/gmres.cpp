#include "electrostatics/gmres.hpp"

#include <algorithm>
#include <cmath>

namespace mlfma2d::es {

namespace {

// Vectors shorter than this are not worth a parallel region (and its barrier).
constexpr std::size_t kParallelFrom = 50000;

double dot(const double* a, const double* b, std::size_t n, int threads) {
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static) num_threads(threads) \
    if (n >= kParallelFrom)
  for (std::size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

// y += alpha x
void axpy(double alpha, const double* x, double* y, std::size_t n, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) if (n >= kParallelFrom)
  for (std::size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

}  // namespace

GmresResult gmres(const LinearMap& a, const LinearMap& precondition, const std::vector<double>& b,
                  std::vector<double>* x, const GmresOptions& o) {
  const std::size_t n = b.size();
  const int m = o.restart;
  GmresResult result;
  x->assign(n, 0.0);
  // Every dot product over every rank's entries: the same on every rank, so every rank takes
  // the same steps.
  auto global_dot = [&](const double* a, const double* c) {
    double s = dot(a, c, n, o.threads);
    if (o.sum) o.sum(&s, 1);
    return s;
  };
  const double bnorm = std::sqrt(global_dot(b.data(), b.data()));
  if (bnorm == 0) {
    result.converged = true;
    return result;
  }
  std::vector<double> r = b;  // b - A x for x = 0
  std::vector<double> v(static_cast<std::size_t>(m + 1) * n), z(n), w(n);
  std::vector<double> h(static_cast<std::size_t>(m + 1) * m), g(m + 1), cs(m), sn(m), y(m);
  auto V = [&](int k) { return v.data() + static_cast<std::size_t>(k) * n; };
  auto H = [&](int i, int k) -> double& { return h[static_cast<std::size_t>(k) * (m + 1) + i]; };
  auto M = [&](const double* in, double* out) {
    if (precondition) {
      precondition(in, out);
    } else {
      std::copy(in, in + n, out);
    }
  };
  for (;;) {
    const double beta = std::sqrt(global_dot(r.data(), r.data()));
    result.residual = beta / bnorm;
    if (result.residual <= o.tol) {
      result.converged = true;
      break;
    }
    if (result.iterations >= o.max_iterations) break;
    for (std::size_t i = 0; i < n; ++i) V(0)[i] = r[i] / beta;
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = beta;
    int k = 0;
    while (k < m && result.iterations < o.max_iterations) {
      M(V(k), z.data());
      a(z.data(), w.data());
      for (int i = 0; i <= k; ++i) {  // modified Gram-Schmidt
        H(i, k) = global_dot(V(i), w.data());
        axpy(-H(i, k), V(i), w.data(), n, o.threads);
      }
      const double next = std::sqrt(global_dot(w.data(), w.data()));
      H(k + 1, k) = next;
      if (next > 0) {
        for (std::size_t i = 0; i < n; ++i) V(k + 1)[i] = w[i] / H(k + 1, k);
      }
      for (int i = 0; i < k; ++i) {  // earlier rotations on the new column
        const double t = cs[i] * H(i, k) + sn[i] * H(i + 1, k);
        H(i + 1, k) = -sn[i] * H(i, k) + cs[i] * H(i + 1, k);
        H(i, k) = t;
      }
      const double d = std::hypot(H(k, k), H(k + 1, k));
      cs[k] = H(k, k) / d;
      sn[k] = H(k + 1, k) / d;
      H(k, k) = d;
      H(k + 1, k) = 0;
      g[k + 1] = -sn[k] * g[k];
      g[k] = cs[k] * g[k];
      ++k;
      ++result.iterations;
      result.history.push_back(std::abs(g[k]) / bnorm);
      if (o.on_iteration) o.on_iteration(result.iterations, result.history.back());
      // Stop the cycle at the tolerance, or on breakdown (the Krylov space is invariant: exact).
      if (result.history.back() <= o.tol || next == 0) break;
    }
    // x += M V y with H y = g (upper triangular, k x k).
    for (int i = k - 1; i >= 0; --i) {
      double s = g[i];
      for (int j = i + 1; j < k; ++j) s -= H(i, j) * y[j];
      y[i] = s / H(i, i);
    }
    std::fill(w.begin(), w.end(), 0.0);
    for (int i = 0; i < k; ++i) axpy(y[i], V(i), w.data(), n, o.threads);
    M(w.data(), z.data());
    axpy(1.0, z.data(), x->data(), n, o.threads);
    // The true residual: the estimate drifts from it when products are inexact (FMM).
    a(x->data(), w.data());
    for (std::size_t i = 0; i < n; ++i) r[i] = b[i] - w[i];
  }
  return result;
}

}  // namespace mlfma2d::es
