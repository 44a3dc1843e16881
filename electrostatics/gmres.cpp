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

// One right-hand side's GMRES as a sequence of products: input() is the vector it needs
// multiplied next (M v_k during a cycle, x for the true residual at its end), consume() takes
// A times it and runs until the next product is needed; done() when converged or out of
// iterations. Driven one product at a time this is the classic loop; several columns driven
// together are the lockstep solve. The Krylov vectors are allocated as a cycle needs them.
class Column {
 public:
  Column(int index, const LinearMap& precondition, const std::vector<double>& b,
         std::vector<double>* x, const GmresOptions& o)
      : index_(index), n_(b.size()), m_(o.restart), b_(b), x_(x), pre_(precondition), o_(o) {
    x_->assign(n_, 0.0);
    bnorm_ = std::sqrt(global_dot(b.data(), b.data()));
    if (bnorm_ == 0) {
      result_.converged = true;
      done_ = true;
      return;
    }
    h_.resize(static_cast<std::size_t>(m_ + 1) * m_);
    g_.resize(m_ + 1);
    cs_.resize(m_);
    sn_.resize(m_);
    y_.resize(m_);
    z_.resize(n_);
    w_.resize(n_);
    r_ = b;  // b - A x for x = 0
    begin_cycle();
  }

  bool done() const { return done_; }
  const double* input() const { return in_cycle_ ? z_.data() : x_->data(); }
  const GmresResult& result() const { return result_; }

  void consume(const double* ax) {
    if (!in_cycle_) {  // the true residual: the estimate drifts from it when products are inexact
      for (std::size_t i = 0; i < n_; ++i) r_[i] = b_[i] - ax[i];
      begin_cycle();
      return;
    }
    std::copy(ax, ax + n_, w_.begin());
    const int k = k_;
    for (int i = 0; i <= k; ++i) {  // modified Gram-Schmidt
      H(i, k) = global_dot(v_[i].data(), w_.data());
      axpy(-H(i, k), v_[i].data(), w_.data(), n_, o_.threads);
    }
    const double next = std::sqrt(global_dot(w_.data(), w_.data()));
    H(k + 1, k) = next;
    if (next > 0) {
      double* v = vector(k + 1);
      for (std::size_t i = 0; i < n_; ++i) v[i] = w_[i] / H(k + 1, k);
    }
    for (int i = 0; i < k; ++i) {  // earlier rotations on the new column
      const double t = cs_[i] * H(i, k) + sn_[i] * H(i + 1, k);
      H(i + 1, k) = -sn_[i] * H(i, k) + cs_[i] * H(i + 1, k);
      H(i, k) = t;
    }
    const double d = std::hypot(H(k, k), H(k + 1, k));
    cs_[k] = H(k, k) / d;
    sn_[k] = H(k + 1, k) / d;
    H(k, k) = d;
    H(k + 1, k) = 0;
    g_[k + 1] = -sn_[k] * g_[k];
    g_[k] = cs_[k] * g_[k];
    ++k_;
    ++result_.iterations;
    result_.history.push_back(std::abs(g_[k_]) / bnorm_);
    if (o_.on_iteration) o_.on_iteration(index_, result_.iterations, result_.history.back());
    // The cycle ends at the tolerance, on breakdown (the Krylov space is invariant: exact), when
    // full, or out of iterations.
    if (result_.history.back() <= o_.tol || next == 0 || k_ == m_ ||
        result_.iterations >= o_.max_iterations) {
      end_cycle();
    } else {
      precondition(v_[k_].data(), z_.data());
    }
  }

 private:
  double& H(int i, int k) { return h_[static_cast<std::size_t>(k) * (m_ + 1) + i]; }

  // Over every rank's entries: the same on every rank, so every rank takes the same steps.
  double global_dot(const double* a, const double* c) const {
    double s = dot(a, c, n_, o_.threads);
    if (o_.sum) o_.sum(&s, 1);
    return s;
  }

  double* vector(int k) {
    if (v_.size() <= static_cast<std::size_t>(k)) v_.resize(k + 1);
    v_[k].resize(n_);
    return v_[k].data();
  }

  void precondition(const double* in, double* out) const {
    if (pre_) {
      pre_(in, out);
    } else {
      std::copy(in, in + n_, out);
    }
  }

  // From the residual r: converged, out of iterations, or a new cycle from v_0 = r / beta.
  void begin_cycle() {
    in_cycle_ = false;
    const double beta = std::sqrt(global_dot(r_.data(), r_.data()));
    result_.residual = beta / bnorm_;
    if (result_.residual <= o_.tol) {
      result_.converged = true;
      done_ = true;
      return;
    }
    if (result_.iterations >= o_.max_iterations) {
      done_ = true;
      return;
    }
    double* v = vector(0);
    for (std::size_t i = 0; i < n_; ++i) v[i] = r_[i] / beta;
    std::fill(g_.begin(), g_.end(), 0.0);
    g_[0] = beta;
    k_ = 0;
    in_cycle_ = true;
    precondition(v, z_.data());
  }

  // x += M V y with H y = g (upper triangular, k x k); then the product for the true residual.
  void end_cycle() {
    const int k = k_;
    for (int i = k - 1; i >= 0; --i) {
      double s = g_[i];
      for (int j = i + 1; j < k; ++j) s -= H(i, j) * y_[j];
      y_[i] = s / H(i, i);
    }
    std::fill(w_.begin(), w_.end(), 0.0);
    for (int i = 0; i < k; ++i) axpy(y_[i], v_[i].data(), w_.data(), n_, o_.threads);
    precondition(w_.data(), z_.data());
    axpy(1.0, z_.data(), x_->data(), n_, o_.threads);
    in_cycle_ = false;
  }

  int index_;
  std::size_t n_;
  int m_;
  const std::vector<double>& b_;
  std::vector<double>* x_;
  const LinearMap& pre_;
  const GmresOptions& o_;
  double bnorm_ = 0;
  std::vector<std::vector<double>> v_;  // the Krylov vectors of the cycle
  std::vector<double> r_, z_, w_, h_, g_, cs_, sn_, y_;
  int k_ = 0;              // iterations in this cycle
  bool in_cycle_ = false;  // else the next product is the true residual's
  bool done_ = false;
  GmresResult result_;
};

}  // namespace

GmresResult gmres(const LinearMap& a, const LinearMap& precondition, const std::vector<double>& b,
                  std::vector<double>* x, const GmresOptions& o) {
  Column c(0, precondition, b, x, o);
  std::vector<double> ax(b.size());
  while (!c.done()) {
    a(c.input(), ax.data());
    c.consume(ax.data());
  }
  return c.result();
}

std::vector<GmresResult> gmres_block(const BlockMap& a, const LinearMap& precondition,
                                     const std::vector<std::vector<double>>& b,
                                     std::vector<std::vector<double>>* x, const GmresOptions& o) {
  const std::size_t k = b.size();
  x->resize(k);
  std::vector<Column> columns;
  columns.reserve(k);
  for (std::size_t c = 0; c < k; ++c) {
    columns.emplace_back(static_cast<int>(c), precondition, b[c], &(*x)[c], o);
  }
  const std::size_t n = k > 0 ? b[0].size() : 0;
  std::vector<double> in, out;
  std::vector<Column*> active;
  for (;;) {
    active.clear();
    for (Column& c : columns) {
      if (!c.done()) active.push_back(&c);
    }
    if (active.empty()) break;
    in.resize(active.size() * n);
    out.resize(active.size() * n);
    for (std::size_t i = 0; i < active.size(); ++i) {
      std::copy(active[i]->input(), active[i]->input() + n, in.begin() + i * n);
    }
    a(static_cast<int>(active.size()), in.data(), out.data());
    for (std::size_t i = 0; i < active.size(); ++i) active[i]->consume(out.data() + i * n);
  }
  std::vector<GmresResult> results;
  for (const Column& c : columns) results.push_back(c.result());
  return results;
}

}  // namespace mlfma2d::es
