#include "electrostatics/operator.hpp"

#include <omp.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "nearfield/pair.hpp"
#include "tree/threads.hpp"
#include "tree/timer.hpp"

namespace mlfma2d::es {

namespace {

// Loops over fewer items than this run on one thread: a parallel region would cost more.
constexpr std::size_t kParallelFrom = 20000;

// Sources of the fast path: the Gauss-Legendre nodes of every panel.
void gauss_nodes(const PanelSet& ps, const GaussRule& rule, std::vector<double>* sx,
                 std::vector<double>* sy, std::vector<double>* weight) {
  const std::size_t n = ps.size(), m = rule.t.size();
  sx->resize(n * m);
  sy->resize(n * m);
  weight->resize(n * m);
  for (std::size_t j = 0; j < n; ++j) {
    const Segment& s = ps.seg[j];
    for (std::size_t k = 0; k < m; ++k) {
      const double t = 0.5 * (1 + rule.t[k]);  // [-1, 1] -> [0, 1]
      (*sx)[j * m + k] = s.x0 + (s.x1 - s.x0) * t;
      (*sy)[j * m + k] = s.y0 + (s.y1 - s.y0) * t;
      (*weight)[j * m + k] = 0.5 * ps.h[j] * rule.w[k];
    }
  }
}

}  // namespace

SingleLayer::SingleLayer(const PanelSet& ps, const std::vector<double>& tx,
                         const std::vector<double>& ty, const Options& fmm, int nodes,
                         double near_radius, bool field)
    : panels_(ps),
      nodes_(static_cast<std::size_t>(nodes)),
      field_(field),
      threads_(team_size(fmm.threads)) {
  std::vector<double> sx, sy;
  timed(&seconds_setup_fmm, [&] {
    gauss_nodes(ps, gauss_legendre(nodes), &sx, &sy, &weight_);
    Options o = fmm;
    o.field = field;
    fmm_ = std::make_unique<Solver>(sx, sy, tx, ty, o);
  });
  timed(&seconds_setup_near, [&] {
    std::vector<double> radius(ps.size());
    for (std::size_t j = 0; j < ps.size(); ++j) radius[j] = near_radius * ps.h[j];
    near_ = near_pairs(tx, ty, ps.xm, ps.ym, radius, threads_);
    if (field) {
      near_gx_.assign(near_.col.size(), 0.0);
      near_gy_.assign(near_.col.size(), 0.0);
    }
    const std::size_t m = nodes_;
    const std::size_t rows = near_.rows();
#pragma omp parallel for schedule(dynamic, 1024) num_threads(threads_) if (rows >= kParallelFrom)
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t e = near_.start[i]; e < near_.start[i + 1]; ++e) {
        const std::size_t j = near_.col[e];
        // What the FMM adds for this pair: the same nodes, charges and pair formula.
        double phi = 0, ex = 0, ey = 0;
        for (std::size_t k = j * m; k < (j + 1) * m; ++k) {
          if (field) {
            log_pair_field(tx[i], ty[i], sx[k], sy[k], weight_[k], &phi, &ex, &ey);
          } else {
            log_pair(tx[i], ty[i], sx[k], sy[k], weight_[k], &phi);
          }
        }
        const Segment& s = ps.seg[j];
        near_.val[e] = panel_log_integral(s, tx[i], ty[i]) - phi;
        if (field) {
          double gx = 0, gy = 0;
          panel_log_gradient(s, tx[i], ty[i], &gx, &gy);
          near_gx_[e] = gx + ex;  // the FMM's E is -grad
          near_gy_[e] = gy + ey;
        }
      }
    }
  });
  q_.resize(ps.size() * nodes_);
  if (field) {
    ex_.resize(tx.size());
    ey_.resize(tx.size());
  }
}

void SingleLayer::apply(const double* u, double* phi, double* gx, double* gy) {
  const bool field = field_;
  timed(&seconds_fmm, [&] {
    const std::size_t m = nodes_, n = panels_.size();
#pragma omp parallel for schedule(static) num_threads(threads_) if (n >= kParallelFrom)
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t k = 0; k < m; ++k) q_[j * m + k] = u[j] * weight_[j * m + k];
    }
    fmm_->evaluate(q_.data(), phi, field ? ex_.data() : nullptr, field ? ey_.data() : nullptr);
  });
  timed(&seconds_near, [&] {
    const std::size_t rows = near_.rows();
#pragma omp parallel for schedule(static) num_threads(threads_) if (rows >= kParallelFrom)
    for (std::size_t i = 0; i < rows; ++i) {
      double p = 0, x = 0, y = 0;
      for (std::size_t e = near_.start[i]; e < near_.start[i + 1]; ++e) {
        const double uj = u[near_.col[e]];
        p += near_.val[e] * uj;
        if (field) {
          x += near_gx_[e] * uj;
          y += near_gy_[e] * uj;
        }
      }
      phi[i] += p;
      if (field) {
        gx[i] = x - ex_[i];
        gy[i] = y - ey_[i];
      }
    }
  });
  ++products;
}

void dense_single_layer(const PanelSet& ps, std::vector<double>* a, int threads) {
  const std::size_t n = ps.size();
  a->resize(n * n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = 0; i < n; ++i)
      (*a)[j * n + i] = panel_log_integral(ps.seg[j], ps.xm[i], ps.ym[i]);
  }
}

// ---- Preconditioner

struct Preconditioner::Blocks {
  struct Block {
    std::vector<std::uint32_t> panels;  // the run and its overlap, ascending
    std::size_t first, last;            // the run itself: panels [first, last)
    Eigen::PartialPivLU<Eigen::MatrixXd> lu;
  };
  std::vector<Block> blocks;
};

Preconditioner::Preconditioner(const PanelSet& ps, const std::string& kind, int block_size,
                               int overlap, double weight, int threads)
    : n_(ps.size()), threads_(team_size(threads)) {
  if (kind == "none") return;
  if (kind == "diagonal") {
    // (-S)_jj = -h_j (log(h_j / 2) - 1), the self integral at the centre.
    inverse_diagonal_.resize(n_);
    for (std::size_t j = 0; j < n_; ++j) {
      inverse_diagonal_[j] = -1.0 / (ps.h[j] * (std::log(0.5 * ps.h[j]) - 1));
    }
    return;
  }
  // Runs of block_size panels along each contour (a contour's last run takes the rest when it
  // would be shorter than half a run), each with `overlap` panels either side.
  blocks_ = std::make_unique<Blocks>();
  auto& blocks = blocks_->blocks;
  const long b = block_size, v = overlap;
  for (std::size_t k = 0; k + 1 < ps.contour_start.size(); ++k) {
    const long first = static_cast<long>(ps.contour_start[k]);
    const long last = static_cast<long>(ps.contour_start[k + 1]), m = last - first;
    const bool closed = ps.closed[k];
    for (long p = first; p < last;) {
      const long end = last - (p + b) < b / 2 ? last : p + b;
      Blocks::Block blk;
      blk.first = static_cast<std::size_t>(p);
      blk.last = static_cast<std::size_t>(end);
      for (long t = p - v; t < end + v; ++t) {
        if (closed) {
          blk.panels.push_back(static_cast<std::uint32_t>(first + ((t - first) % m + m) % m));
        } else if (t >= first && t < last) {
          blk.panels.push_back(static_cast<std::uint32_t>(t));
        }
      }
      // A closed contour shorter than the extended run: each panel once.
      std::sort(blk.panels.begin(), blk.panels.end());
      blk.panels.erase(std::unique(blk.panels.begin(), blk.panels.end()), blk.panels.end());
      blocks.push_back(std::move(blk));
      p = end;
    }
  }
  const std::size_t nb = blocks.size();
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads_) if (n_ >= kParallelFrom)
  for (std::size_t k = 0; k < nb; ++k) {
    const std::vector<std::uint32_t>& idx = blocks[k].panels;
    const std::size_t m = idx.size();
    Eigen::MatrixXd a(m, m);
    for (std::size_t c = 0; c < m; ++c) {
      for (std::size_t r = 0; r < m; ++r) {
        a(r, c) = -panel_log_integral(ps.seg[idx[c]], ps.xm[idx[r]], ps.ym[idx[r]]);
      }
    }
    blocks[k].lu.compute(a);
  }
  // The border's elimination needs g = B^-1 1 and s = w h^T g.
  wh_.resize(n_);
  for (std::size_t j = 0; j < n_; ++j) wh_[j] = weight * ps.h[j];
  const std::vector<double> ones(n_, 1.0);
  g_.resize(n_);
  apply_b(ones.data(), g_.data());
  s_ = 0;
  for (std::size_t j = 0; j < n_; ++j) s_ += wh_[j] * g_[j];
}

Preconditioner::~Preconditioner() = default;

void Preconditioner::apply_b(const double* r, double* z) const {
  if (blocks_) {
    const auto& blocks = blocks_->blocks;
    const std::size_t nb = blocks.size();
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads_) if (n_ >= kParallelFrom)
    for (std::size_t k = 0; k < nb; ++k) {
      const auto& blk = blocks[k];
      const std::size_t m = blk.panels.size();
      Eigen::VectorXd local(m);
      for (std::size_t i = 0; i < m; ++i) local[i] = r[blk.panels[i]];
      local = blk.lu.solve(local);
      for (std::size_t i = 0; i < m; ++i) {  // restricted: only the run's own panels
        const std::size_t j = blk.panels[i];
        if (j >= blk.first && j < blk.last) z[j] = local[i];
      }
    }
  } else if (!inverse_diagonal_.empty()) {
    for (std::size_t j = 0; j < n_; ++j) z[j] = r[j] * inverse_diagonal_[j];
  } else {
    std::copy(r, r + n_, z);
  }
}

void Preconditioner::apply(const double* r, double* z) const {
  if (!blocks_) {  // none, diagonal: the border as it is
    apply_b(r, z);
    z[n_] = r[n_];
    return;
  }
  // [B 1; w h^T 0] [z; zeta] = [r; rho]:  z0 = B^-1 r,  zeta = (w h^T z0 - rho) / s,
  // z = z0 - zeta g.
  apply_b(r, z);
  double wz = 0;
#pragma omp parallel for reduction(+ : wz) schedule(static) num_threads(threads_) \
    if (n_ >= kParallelFrom)
  for (std::size_t j = 0; j < n_; ++j) wz += wh_[j] * z[j];
  const double zeta = (wz - r[n_]) / s_;
#pragma omp parallel for schedule(static) num_threads(threads_) if (n_ >= kParallelFrom)
  for (std::size_t j = 0; j < n_; ++j) z[j] -= zeta * g_[j];
  z[n_] = zeta;
}

}  // namespace mlfma2d::es
