#include "electrostatics/operator.hpp"

#include <omp.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernel/pair.hpp"
#include "runtime/threads.hpp"
#include "runtime/timer.hpp"

namespace mlfma2d::es {

namespace {

// Loops over fewer items than this run on one thread: a parallel region would cost more.
constexpr std::size_t kParallelFrom = 20000;
constexpr double kPi = 3.14159265358979323846;

// Sources of the fast path: the Gauss-Legendre nodes of every column (panels, then images). On
// an arc the nodes lie on the arc (the chord is h^2 / (8 r) inside it: the interfaces' normal
// field would see that as a first-order error); the near corrections replace them near a target.
void gauss_nodes(const PanelSet& ps, std::size_t columns, const GaussRule& rule,
                 std::vector<double>* sx, std::vector<double>* sy, std::vector<double>* weight) {
  const std::size_t m = rule.t.size(), n = ps.size();
  sx->resize(columns * m);
  sy->resize(columns * m);
  weight->resize(columns * m);
  for (std::size_t j = 0; j < n; ++j) {
    const Segment& s = ps.seg[j];
    const int circle = ps.circle.empty() ? -1 : ps.circle[j];
    double a0 = 0, sweep = 0, length = ps.h[j];
    const double* c = circle >= 0 ? ps.circles[circle].data() : nullptr;
    if (c) {
      a0 = std::atan2(s.y0 - c[1], s.x0 - c[0]);
      sweep = std::remainder(std::atan2(s.y1 - c[1], s.x1 - c[0]) - a0, 2 * kPi);
      length = c[2] * std::abs(sweep);
    }
    for (std::size_t k = 0; k < m; ++k) {
      const double t = 0.5 * (1 + rule.t[k]);  // [-1, 1] -> [0, 1]
      double x = s.x0 + (s.x1 - s.x0) * t, y = s.y0 + (s.y1 - s.y0) * t;
      if (c) {
        x = c[0] + c[2] * std::cos(a0 + t * sweep);
        y = c[1] + c[2] * std::sin(a0 + t * sweep);
      }
      (*sx)[j * m + k] = x;
      (*sy)[j * m + k] = y;
      (*weight)[j * m + k] = 0.5 * length * rule.w[k];
      if (columns > n) {  // the image in the plane
        (*sx)[(j + n) * m + k] = x;
        (*sy)[(j + n) * m + k] = 2 * ps.mirror_y - y;
        (*weight)[(j + n) * m + k] = 0.5 * length * rule.w[k];
      }
    }
  }
}

}  // namespace

Segment column_segment(const PanelSet& ps, std::size_t j) {
  const std::size_t n = ps.size();
  if (j < n) return ps.seg[j];
  const Segment& s = ps.seg[j - n];
  const double y2 = 2 * ps.mirror_y;
  return {s.x0, y2 - s.y0, s.x1, y2 - s.y1};
}

SparseRows arc_corrections(const PanelSet& ps, double near_radius) {
  SparseRows rows;
  const std::size_t n = ps.size();
  rows.start.assign(1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const int circle = ps.circle.empty() ? -1 : ps.circle[i];
    const bool wanted = ps.is_interface(i) || ps.eps_left[i] != ps.eps_right[i];
    if (circle >= 0 && wanted) {
      const auto& c = ps.circles[circle];
      const double ex = ps.xm[i] - c[0], ey = ps.ym[i] - c[1], er = std::hypot(ex, ey);
      const double ne = (ps.nx[i] * ex + ps.ny[i] * ey) / er;  // n_i . e_r
      // The panels of the contour around i, both ways, while within the near radius.
      const std::size_t k = static_cast<std::size_t>(ps.contour[i]);
      const long first = static_cast<long>(ps.contour_start[k]);
      const long last = static_cast<long>(ps.contour_start[k + 1]), m = last - first;
      std::vector<std::uint32_t> cols;
      for (int dir : {-1, 1}) {
        for (long step = dir == 1 ? 0 : 1; step < m; ++step) {
          long t = static_cast<long>(i) + dir * step;
          if (t < first || t >= last) {
            if (!ps.closed[k]) break;
            t = first + ((t - first) % m + m) % m;
          }
          const std::size_t j = static_cast<std::size_t>(t);
          if (ps.circle[j] != circle) break;
          if (std::hypot(ps.xm[j] - ps.xm[i], ps.ym[j] - ps.ym[i]) > near_radius * ps.h[j]) break;
          cols.push_back(static_cast<std::uint32_t>(j));
        }
      }
      std::sort(cols.begin(), cols.end());
      cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      for (std::uint32_t j : cols) {
        double gx, gy;
        panel_log_gradient(ps.seg[j], ps.xm[i], ps.ym[i], &gx, &gy);
        const double arc = 2 * c[2] * std::asin(std::min(1.0, 0.5 * ps.h[j] / c[2]));
        rows.col.push_back(j);
        rows.val.push_back(ne * arc / (2 * c[2]) - (ps.nx[i] * gx + ps.ny[i] * gy));
      }
    }
    rows.start.push_back(rows.col.size());
  }
  return rows;
}

double system_entry(const PanelSet& ps, std::size_t i, std::size_t j, const SparseRows* arc) {
  const std::size_t n = ps.size();
  const double x = ps.xm[i], y = ps.ym[i];
  if (!ps.is_interface(i)) {
    double v = -panel_log_integral(ps.seg[j], x, y);
    if (ps.mirror) v += panel_log_integral(column_segment(ps, j + n), x, y);
    return v;
  }
  double gx, gy;
  panel_log_gradient(ps.seg[j], x, y, &gx, &gy);
  if (ps.mirror) {
    double hx, hy;
    panel_log_gradient(column_segment(ps, j + n), x, y, &hx, &hy);
    gx -= hx;
    gy -= hy;
  }
  double g = ps.nx[i] * gx + ps.ny[i] * gy;
  if (arc && arc->rows() == ps.size()) {
    const auto b = arc->col.begin() + static_cast<long>(arc->start[i]);
    const auto e = arc->col.begin() + static_cast<long>(arc->start[i + 1]);
    const auto it = std::lower_bound(b, e, static_cast<std::uint32_t>(j));
    if (it != e && *it == j) g += arc->val[static_cast<std::size_t>(it - arc->col.begin())];
  }
  const double lambda = (ps.eps_left[i] - ps.eps_right[i]) / (ps.eps_left[i] + ps.eps_right[i]);
  return (i == j ? kPi : 0.0) + lambda * g;
}

SingleLayer::SingleLayer(const PanelSet& ps, const std::vector<double>& tx,
                         const std::vector<double>& ty, const Options& fmm, int nodes,
                         double near_radius, bool field, const SolveRanks& ranks,
                         const PointRange& here, int block)
    : panels_(ps),
      columns_(ps.mirror ? 2 * ps.size() : ps.size()),
      targets_(tx.size()),
      nodes_(static_cast<std::size_t>(nodes)),
      field_(field),
      threads_(team_size(fmm.threads)),
      block_(std::max(1, block)),
      fmm_options_(fmm),
      ranks_(ranks) {
  fmm_options_.field = field;
  // This rank's columns: its panels, then their images.
  for (std::size_t j = here.first; j < here.first + here.count; ++j) here_.push_back(j);
  if (columns_ > ps.size()) {
    for (std::size_t j = here.first; j < here.first + here.count; ++j)
      here_.push_back(j + ps.size());
  }
  std::vector<double> sx, sy;  // every column's nodes: the near corrections read any of them
  timed(&seconds_setup_fmm, [&] {
    gauss_nodes(ps, columns_, gauss_legendre(nodes), &sx, &sy, &weight_);
    std::vector<double> hx, hy;
    rank_nodes(sx, sy, &hx, &hy);
    Options o = fmm_options_;
    o.densities = 1;
    fmm_ = ranks.field_sum(hx, hy, tx, ty, o);
  });
  if (block_ > 1) {
    tx_ = tx;  // for the block Solver, made again after release_block()
    ty_ = ty;
    make_block();
  }
  timed(&seconds_setup_near, [&] {
    std::vector<double> cx(columns_), cy(columns_), radius(columns_);
    for (std::size_t j = 0; j < columns_; ++j) {
      const Segment s = column_segment(ps, j);
      cx[j] = 0.5 * (s.x0 + s.x1);
      cy[j] = 0.5 * (s.y0 + s.y1);
      radius[j] = near_radius * ps.h[j % ps.size()];
    }
    near_ = near_pairs(tx, ty, cx, cy, radius, threads_);
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
        const Segment s = column_segment(ps, j);
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
  if (!batch_) work_arrays(1);
}

SingleLayer::~SingleLayer() = default;

void SingleLayer::work_arrays(int vectors) {
  const std::size_t b = static_cast<std::size_t>(vectors);
  u_.resize(b * columns_);
  // + 1: a rank without panels (or targets) still passes arrays.
  q_.resize(b * here_.size() * nodes_ + 1);
  if (field_) {
    ex_.resize(b * targets_ + 1);
    ey_.resize(b * targets_ + 1);
  }
  if (vectors == 1) {  // what the block needed goes back
    for (std::vector<double>* v : {&u_, &q_, &ex_, &ey_, &pad_}) v->shrink_to_fit();
  }
}

void SingleLayer::rank_nodes(const std::vector<double>& sx, const std::vector<double>& sy,
                             std::vector<double>* x, std::vector<double>* y) const {
  x->clear();
  y->clear();
  for (const std::size_t j : here_) {
    const auto from = std::ptrdiff_t(j * nodes_), to = std::ptrdiff_t((j + 1) * nodes_);
    x->insert(x->end(), sx.begin() + from, sx.begin() + to);
    y->insert(y->end(), sy.begin() + from, sy.begin() + to);
  }
}

void SingleLayer::make_block() {
  timed(&seconds_setup_fmm, [&] {
    std::vector<double> sx, sy, weight, hx, hy;
    gauss_nodes(panels_, columns_, gauss_legendre(static_cast<int>(nodes_)), &sx, &sy, &weight);
    rank_nodes(sx, sy, &hx, &hy);
    Options o = fmm_options_;
    o.densities = block_;
    batch_ = ranks_.field_sum(hx, hy, tx_, ty_, o);
  });
  work_arrays(block_);
}

void SingleLayer::release_block() {
  if (!batch_) return;
  batch_.reset();
  pad_.clear();
  work_arrays(1);
}

void SingleLayer::apply(const double* u, double* phi, double* gx, double* gy) {
  apply_block(1, u, phi, gx, gy);
}

void SingleLayer::apply_block(int k, const double* u, double* phi, double* gx, double* gy) {
  if (k < 1 || k > block_) {
    throw std::logic_error("SingleLayer::apply_block: " + std::to_string(k) +
                           " vectors for a block of " + std::to_string(block_));
  }
  if (k > 1 && !batch_) make_block();
  const bool field = field_ && gx != nullptr;
  const std::size_t n = panels_.size(), m = targets_;
  timed(&seconds_fmm, [&] {
    // Column densities: the panels', and over a ground plane their images', negated.
    for (int c = 0; c < k; ++c) {
      const double* uc = u + c * n;
      double* col = u_.data() + c * columns_;
      std::copy(uc, uc + n, col);
      for (std::size_t j = n; j < columns_; ++j) col[j] = -uc[j - n];
    }
    double* ex = field_ ? ex_.data() : nullptr;
    double* ey = field_ ? ey_.data() : nullptr;
    // Fewer vectors than the block: one evaluation each on the nd = 1 Solver when the times say
    // that is cheaper than the block with zero densities (t_1 unknown: measure it now).
    bool one_by_one = k < block_ && tail == Tail::one_by_one;
    if (k < block_ && tail == Tail::cheaper) one_by_one = one_by_one_cheaper(k);
    if (!batch_ || one_by_one) {
      for (int c = 0; c < k; ++c) {
        charges(c, 1, 1);
        evaluate(true, phi + c * m, ex ? ex + c * m : nullptr, ey ? ey + c * m : nullptr);
      }
    } else {
      charges(0, k, block_);
      pad_.resize(k < block_ ? block_ * m + 1 : 0);
      evaluate(false, k < block_ ? pad_.data() : phi, ex, ey);
      if (k < block_) std::copy(pad_.begin(), pad_.begin() + k * m, phi);
    }
  });
  timed(&seconds_near, [&] { near(k, phi, field ? gx : nullptr, field ? gy : nullptr); });
  products += static_cast<std::size_t>(k);
}

bool SingleLayer::one_by_one_cheaper(int k) const {
  if (count_one_ == 0 || count_batch_ == 0) return true;
  // Summed over the ranks: every rank must take the same way (the evaluations are collective).
  double t[2] = {k * seconds_one_ / count_one_, seconds_batch_ / count_batch_};
  ranks_.sum(t, 2);
  return t[0] < t[1];
}

void SingleLayer::charges(int first, int k, int slots) {
  // This rank's columns only: the FMM's sources are their nodes.
  const std::size_t m = nodes_, here = here_.size(), size = here * m;
  const std::size_t count = static_cast<std::size_t>(k) * here;
#pragma omp parallel for schedule(static) num_threads(threads_) if (count >= kParallelFrom)
  for (std::size_t e = 0; e < count; ++e) {
    const std::size_t c = e / here, l = e % here, j = here_[l];
    const double uj = u_[(first + c) * columns_ + j];
    double* q = q_.data() + c * size + l * m;
    for (std::size_t t = 0; t < m; ++t) q[t] = uj * weight_[j * m + t];
  }
  std::fill(q_.begin() + k * size, q_.begin() + slots * size, 0.0);
}

void SingleLayer::evaluate(bool one, double* phi, double* ex, double* ey) {
  FieldSum& solver = one ? *fmm_ : *batch_;
  const double t0 = now_seconds();
  solver.evaluate(q_.data(), phi, ex, ey);
  (one ? seconds_one_ : seconds_batch_) += now_seconds() - t0;
  ++(one ? count_one_ : count_batch_);
  ++evaluations;
}

void SingleLayer::near(int k, double* phi, double* gx, double* gy) {
  const bool field = gx != nullptr;
  const std::size_t rows = near_.rows(), m = targets_, kc = static_cast<std::size_t>(k);
#pragma omp parallel for schedule(static) num_threads(threads_) if (rows >= kParallelFrom)
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t c = 0; c < kc; ++c) {
      const double* u = u_.data() + c * columns_;
      double p = 0, x = 0, y = 0;
      for (std::size_t e = near_.start[i]; e < near_.start[i + 1]; ++e) {
        const double uj = u[near_.col[e]];
        p += near_.val[e] * uj;
        if (field) {
          x += near_gx_[e] * uj;
          y += near_gy_[e] * uj;
        }
      }
      phi[c * m + i] += p;
      if (field) {
        gx[c * m + i] = x - ex_[c * m + i];
        gy[c * m + i] = y - ey_[c * m + i];
      }
    }
  }
}

void dense_system(const PanelSet& ps, const SparseRows& arc, std::vector<double>* a, int threads) {
  const std::size_t n = ps.size();
  a->resize(n * n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = 0; i < n; ++i) (*a)[j * n + i] = system_entry(ps, i, j, &arc);
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

Preconditioner::Preconditioner(const PanelSet& ps, const SparseRows& arc, const std::string& kind,
                               int block_size, int overlap, bool bordered, double weight,
                               int threads, const SolveRanks& ranks, const PointRange& here,
                               bool border)
    : n_(ps.size()),
      bordered_(bordered),
      threads_(team_size(threads)),
      ranks_(ranks),
      here_(here),
      border_(border) {
  const std::size_t p0 = here.first, count = here.count;
  if (kind == "none") return;
  if (kind == "diagonal") {
    // A_jj: on a conductor the self integral at the centre, -h_j (log(h_j / 2) - 1).
    inverse_diagonal_.resize(count);
    for (std::size_t k = 0; k < count; ++k)
      inverse_diagonal_[k] = 1.0 / system_entry(ps, p0 + k, p0 + k, &arc);
    return;
  }
  // Runs of block_size panels along each contour (a contour's last run takes the rest when it
  // would be shorter than half a run), each with `overlap` panels either side; this rank keeps
  // those whose runs meet its panels.
  blocks_ = std::make_unique<Blocks>();
  auto& blocks = blocks_->blocks;
  const long b = block_size, v = overlap;
  for (std::size_t k = 0; k + 1 < ps.contour_start.size(); ++k) {
    const long first = static_cast<long>(ps.contour_start[k]);
    const long last = static_cast<long>(ps.contour_start[k + 1]), m = last - first;
    const bool closed = ps.closed[k];
    for (long p = first; p < last;) {
      const long end = last - (p + b) < b / 2 ? last : p + b;
      const bool mine = std::size_t(end) > p0 && std::size_t(p) < p0 + count;
      if (!mine) {
        p = end;
        continue;
      }
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
      for (std::size_t r = 0; r < m; ++r) a(r, c) = system_entry(ps, idx[r], idx[c], &arc);
    }
    blocks[k].lu.compute(a);
  }
  if (!bordered_) return;
  // The border's elimination needs g = B^-1 e and s = w h^T g (summed over the ranks).
  wh_.resize(count);
  for (std::size_t k = 0; k < count; ++k) wh_[k] = weight * ps.h[p0 + k];
  std::vector<double> e(n_);
  for (std::size_t j = 0; j < n_; ++j) e[j] = ps.is_interface(j) ? 0.0 : 1.0;
  g_.resize(count);
  apply_b(e.data(), g_.data());
  s_ = 0;
  for (std::size_t k = 0; k < count; ++k) s_ += wh_[k] * g_[k];
  ranks_.sum(&s_, 1);
}

Preconditioner::~Preconditioner() = default;

void Preconditioner::apply_b(const double* r, double* z) const {
  const std::size_t p0 = here_.first, p1 = here_.first + here_.count;
  const auto& blocks = blocks_->blocks;
  const std::size_t nb = blocks.size();
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads_) if (n_ >= kParallelFrom)
  for (std::size_t k = 0; k < nb; ++k) {
    const auto& blk = blocks[k];
    const std::size_t m = blk.panels.size();
    Eigen::VectorXd local(m);
    for (std::size_t i = 0; i < m; ++i) local[i] = r[blk.panels[i]];
    local = blk.lu.solve(local);
    for (std::size_t i = 0; i < m; ++i) {  // restricted: only the run's own panels, this rank's
      const std::size_t j = blk.panels[i];
      if (j >= blk.first && j < blk.last && j >= p0 && j < p1) z[j - p0] = local[i];
    }
  }
}

void Preconditioner::apply(const double* r, double* z) const {
  const std::size_t count = here_.count;
  if (!blocks_) {  // none, diagonal: this rank's entries alone; the border as it is
    for (std::size_t k = 0; k < count; ++k)
      z[k] = inverse_diagonal_.empty() ? r[k] : r[k] * inverse_diagonal_[k];
    if (bordered_ && border_) z[count] = r[count];
    return;
  }
  // The blocks' overlaps read other ranks' entries: every panel's (and the border's) first.
  const std::vector<double> all = ranks_.gather(r, count + (bordered_ && border_ ? 1 : 0));
  apply_b(all.data(), z);
  if (!bordered_) return;
  // [B 1; w h^T 0] [z; zeta] = [r; rho]:  z0 = B^-1 r,  zeta = (w h^T z0 - rho) / s,
  // z = z0 - zeta g.
  double wz = 0;
#pragma omp parallel for reduction(+ : wz) schedule(static) num_threads(threads_) \
    if (count >= kParallelFrom)
  for (std::size_t k = 0; k < count; ++k) wz += wh_[k] * z[k];
  ranks_.sum(&wz, 1);
  const double zeta = (wz - all[n_]) / s_;
#pragma omp parallel for schedule(static) num_threads(threads_) if (count >= kParallelFrom)
  for (std::size_t k = 0; k < count; ++k) z[k] -= zeta * g_[k];
  if (border_) z[count] = zeta;
}

}  // namespace mlfma2d::es
