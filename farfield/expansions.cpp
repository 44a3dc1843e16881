#include "farfield/expansions.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "tree/array.hpp"
#include "tree/threads.hpp"

namespace mlfma2d {
namespace {

// Binomial coefficients C(n, k) for n <= nmax, as doubles (exact up to n = 56, then rounded).
std::vector<std::vector<double>> binomials(int nmax) {
  std::vector<std::vector<double>> c(nmax + 1);
  for (int n = 0; n <= nmax; ++n) {
    c[n].assign(n + 1, 1.0);
    for (int k = 1; k < n; ++k) c[n][k] = c[n - 1][k - 1] + c[n - 1][k];
  }
  return c;
}

// Offset of a child's centre from its parent's, in units of the parent's side: (+-1/4, +-1/4).
Complex child_offset(int quadrant) {
  return {(quadrant & 1) ? 0.25 : -0.25, (quadrant & 2) ? 0.25 : -0.25};
}

}  // namespace

Operators::Operators(int terms) : p(terms) {
  const int n = p + 1;
  const auto C = binomials(2 * p);
  for (int q = 0; q < 4; ++q) {
    const Complex w = child_offset(q);
    // M2M, w = (c1 - c0)/s0, child side s1 = s0/2:
    //   B_0 = a_0,  B_l = -a_0 w^l / l + sum_{k=1..l} A_k 2^-k w^(l-k) C(l-1, k-1)
    CMatrix& m = m2m[q];
    m = CMatrix::Zero(n, n);
    m(0, 0) = 1.0;
    for (int l = 1; l <= p; ++l) {
      m(l, 0) = -std::pow(w, l) / double(l);
      for (int k = 1; k <= l; ++k)
        m(l, k) = std::pow(0.5, k) * std::pow(w, l - k) * C[l - 1][k - 1];
    }
    // L2L, u = (c - c0)/s0:  C_l = 2^-l sum_{k=l..p} B_k C(k, l) u^(k-l)
    CMatrix& t = l2l[q];
    t = CMatrix::Zero(n, n);
    for (int l = 0; l <= p; ++l)
      for (int k = l; k <= p; ++k) t(l, k) = std::pow(0.5, l) * C[k][l] * std::pow(w, k - l);
  }
  // M2L, w = (c_source - c_target)/s (an integer offset):
  //   B_0 = a_0 log(-w) + sum_k A_k (-1)^k / w^k            (+ a_0 log s, added per level)
  //   B_l = -a_0 / (l w^l) + w^-l sum_k A_k w^-k C(l+k-1, k-1) (-1)^k
  m2l.resize(kM2LOffsets);
  for (int o = 0; o < kM2LOffsets; ++o) {
    const auto d = m2l_offset(o);
    const Complex w(d[0], d[1]), wi = 1.0 / w;
    CMatrix& m = m2l[o];
    m = CMatrix::Zero(n, n);
    m(0, 0) = std::log(-w);
    for (int k = 1; k <= p; ++k) m(0, k) = (k % 2 ? -1.0 : 1.0) * std::pow(wi, k);
    for (int l = 1; l <= p; ++l) {
      m(l, 0) = -std::pow(wi, l) / double(l);
      for (int k = 1; k <= p; ++k)
        m(l, k) = (k % 2 ? -1.0 : 1.0) * C[l + k - 1][k - 1] * std::pow(wi, l + k);
    }
  }
}

void Expansions::reset(const Tree& tree, int p, int threads) {
  multipole.resize(tree.levels + 1);
  local.resize(tree.levels + 1);
  for (int l = 3; l <= tree.levels; ++l) {
    const Eigen::Index nb = Eigen::Index(tree.level[l].size());
    if (multipole[l].cols() != nb || multipole[l].rows() != p + 1) {
      multipole[l].resize(p + 1, nb);
      local[l].resize(p + 1, nb);
    }
    for (CMatrix* m : {&multipole[l], &local[l]})
      parallel_fill(m->data(), std::size_t(m->size()), Complex(0), threads);
  }
}

namespace {

// out[k] -= (1/k) sum_j q_j w_j^k for k = 1..p, vectorised across the m points: t_j = q_j w_j^k
// is advanced one power per k. (P2M with w = (z - c)/s; P2L with w = s/(z - c).) The scratch
// arrays w and t are overwritten.
void power_sums(std::int64_t m, double* wr, double* wi, double* tr, double* ti, int p,
                Complex* out) {
  for (int k = 1; k <= p; ++k) {
    double sr = 0, si = 0;
#pragma omp simd reduction(+ : sr, si)
    for (std::int64_t j = 0; j < m; ++j) {
      const double nr = tr[j] * wr[j] - ti[j] * wi[j];
      const double ni = tr[j] * wi[j] + ti[j] * wr[j];
      tr[j] = nr;
      ti[j] = ni;
      sr += nr;
      si += ni;
    }
    out[k] -= Complex(sr, si) / double(k);
  }
}

// The leaves on levels >= 3 that hold sources (with_sources) or targets.
template <class F>
void for_leaves(const Tree& tree, bool with_sources, int threads, F&& f) {
  const std::int64_t n = std::int64_t(tree.leaves.size());
  // A point costs p terms: the points, not the leaves, say whether a team pays.
  const int team = team_size(threads, with_sources ? tree.n_sources() : tree.n_targets());
  // Chunks small enough that every thread gets work on small trees (a few hundred leaves), large
  // enough that big trees do not queue for every leaf.
  const std::int64_t chunk = std::clamp<std::int64_t>(n / (8 * team), 1, 256);
#pragma omp parallel num_threads(team)
  {
    std::vector<double> scratch;
#pragma omp for schedule(dynamic, chunk)
    for (std::int64_t i = 0; i < n; ++i) {
      const BoxRef r = tree.leaves[i];
      if (r.level < 3) continue;
      const Level& lv = tree.at(r);
      if (with_sources ? !lv.has_sources(r.box) : !lv.has_targets(r.box)) continue;
      f(r, &scratch);
    }
  }
}

}  // namespace

void P2M(const Tree& tree, const Operators& ops, const double* q, Expansions* e, int threads) {
  const int p = ops.p;
  // A_0 = sum q_j,  A_k = -(1/k) sum q_j w_j^k,  w_j = (z_j - c)/s.
  for_leaves(tree, true, threads, [&](BoxRef r, std::vector<double>* scratch) {
    const Level& lv = tree.at(r);
    const double s = tree.box_size(r.level), inv_s = 1.0 / s;
    double hx, hy;  // centre = corner + (hx, hy) s; offsets without rounding the centre
    tree.centre_index(r.level, r.box, &hx, &hy);
    const std::int64_t j0 = lv.src_begin[r.box], m = lv.src_end[r.box] - j0;
    scratch->resize(4 * m);
    double *wr = scratch->data(), *wi = wr + m, *tr = wi + m, *ti = tr + m;
    double a0 = 0;
    for (std::int64_t j = 0; j < m; ++j) {
      wr[j] = Tree::offset(tree.sx[j0 + j], tree.x0, hx, s, inv_s);
      wi[j] = Tree::offset(tree.sy[j0 + j], tree.y0, hy, s, inv_s);
      tr[j] = q[j0 + j];
      ti[j] = 0;
      a0 += q[j0 + j];
    }
    Complex* a = &e->multipole[r.level](0, r.box);
    a[0] += a0;
    power_sums(m, wr, wi, tr, ti, p, a);
  });
}

void M2M(const Tree& tree, const Operators& ops, int l, Expansions* e, int threads) {
  const Level& parents = tree.level[l];
  const Level& children = tree.level[l + 1];
  const CMatrix& Mc = e->multipole[l + 1];
  CMatrix& Mp = e->multipole[l];
#pragma omp parallel for num_threads(team_size(threads, parents.size(), kParallelMinBoxes)) \
    schedule(static)
  for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(parents.size()); ++b) {
    for (std::int32_t c = parents.child_begin[b]; c < parents.child_begin[b + 1]; ++c)
      if (children.has_sources(c)) Mp.col(b).noalias() += ops.m2m[children.key[c] & 3] * Mc.col(c);
  }
}

void M2L(const Tree& tree, const Plan& plan, const Operators& ops, int l, Expansions* e,
         int threads) {
  constexpr std::int64_t kBlock = 128;  // pairs per matrix product
  const M2LLevel& pairs = plan.m2l[l];
  const double log_s = std::log(tree.box_size(l));
  const CMatrix& M = e->multipole[l];
  CMatrix& Lc = e->local[l];
  const int n = ops.p + 1;
  const std::int64_t nb = std::int64_t(tree.level[l].size());
  const std::int64_t count = std::int64_t(pairs.tgt.size());  // a pair costs what a box's M2M does
  // Each thread owns a contiguous range of target boxes and, offset by offset, multiplies the
  // operator with blocks of its gathered source multipoles. Within an offset the pairs are
  // sorted by target, so a thread's pairs are one contiguous run: no races, no atomics, and
  // every target adds its offsets in the same order whatever the thread count.
#pragma omp parallel num_threads(team_size(threads, count, kParallelMinBoxes))
  {
    const int nth = omp_get_num_threads(), me = omp_get_thread_num();
    const std::int32_t b0 = std::int32_t(nb * me / nth), b1 = std::int32_t(nb * (me + 1) / nth);
    CMatrix S(n, kBlock), R(n, kBlock);
    for (int o = 0; o < kM2LOffsets; ++o) {
      const std::int32_t* first = pairs.tgt.data() + pairs.begin[o];
      const std::int32_t* last = pairs.tgt.data() + pairs.begin[o + 1];
      const std::int64_t lo = std::lower_bound(first, last, b0) - pairs.tgt.data();
      const std::int64_t hi = std::lower_bound(first, last, b1) - pairs.tgt.data();
      for (std::int64_t i0 = lo; i0 < hi; i0 += kBlock) {
        const Eigen::Index m = Eigen::Index(std::min(kBlock, hi - i0));
        for (Eigen::Index i = 0; i < m; ++i) S.col(i) = M.col(pairs.src[i0 + i]);
        R.leftCols(m).noalias() = ops.m2l[o] * S.leftCols(m);
        R.row(0).head(m) += log_s * S.row(0).head(m);  // a_0 log s: log(-z0) = log(-w) + log s
        for (Eigen::Index i = 0; i < m; ++i) Lc.col(pairs.tgt[i0 + i]) += R.col(i);
      }
    }
  }
}

void L2L(const Tree& tree, const Operators& ops, int l, Expansions* e, int threads) {
  const Level& children = tree.level[l];
  const CMatrix& Lp = e->local[l - 1];
  CMatrix& Lc = e->local[l];
#pragma omp parallel for num_threads(team_size(threads, children.size(), kParallelMinBoxes)) \
    schedule(static)
  for (std::ptrdiff_t c = 0; c < std::ptrdiff_t(children.size()); ++c) {
    if (children.has_targets(c))
      Lc.col(c).noalias() += ops.l2l[children.key[c] & 3] * Lp.col(children.parent[c]);
  }
}

void L2P(const Tree& tree, const Operators& ops, const Expansions& e, double* phi, double* ex,
         double* ey, int threads) {
  const int p = ops.p;
  // Horner across the box's targets (vectorised over targets):
  //   f = sum_l B_l z^l,  f' = (1/s) sum_l l B_l z^(l-1),  z = (x - c)/s
  //   phi = Re f,  E_x = -Re f',  E_y = +Im f'   (E = -grad phi)
  for_leaves(tree, false, threads, [&](BoxRef r, std::vector<double>* scratch) {
    const Level& lv = tree.at(r);
    const double s = tree.box_size(r.level), inv_s = 1.0 / s;
    double hx, hy;  // centre = corner + (hx, hy) s; offsets without rounding the centre
    tree.centre_index(r.level, r.box, &hx, &hy);
    const std::int64_t i0 = lv.tgt_begin[r.box], m = lv.tgt_end[r.box] - i0;
    scratch->resize(4 * m);
    double *pzr = scratch->data(), *pzi = pzr + m, *pfr = pzi + m, *pfi = pfr + m;
    for (std::int64_t i = 0; i < m; ++i) {
      pzr[i] = Tree::offset(tree.tx()[i0 + i], tree.x0, hx, s, inv_s);
      pzi[i] = Tree::offset(tree.ty()[i0 + i], tree.y0, hy, s, inv_s);
    }
    const Complex* c = &e.local[r.level](0, r.box);
    auto horner = [&](auto coefficient, int top, int bottom) {
      const Complex ct = coefficient(top);
      for (std::int64_t i = 0; i < m; ++i) pfr[i] = ct.real(), pfi[i] = ct.imag();
      for (int l = top - 1; l >= bottom; --l) {
        const Complex cl = coefficient(l);
#pragma omp simd
        for (std::int64_t i = 0; i < m; ++i) {
          const double re = pfr[i] * pzr[i] - pfi[i] * pzi[i] + cl.real();
          pfi[i] = pfr[i] * pzi[i] + pfi[i] * pzr[i] + cl.imag();
          pfr[i] = re;
        }
      }
    };
    horner([&](int l) { return c[l]; }, p, 0);
    for (std::int64_t i = 0; i < m; ++i) phi[i0 + i] += pfr[i];
    if (ex && p >= 1) {
      horner([&](int l) { return double(l) * c[l]; }, p, 1);
      for (std::int64_t i = 0; i < m; ++i) {
        ex[i0 + i] -= pfr[i] * inv_s;
        ey[i0 + i] += pfi[i] * inv_s;
      }
    }
  });
}

void P2L(const Tree& tree, const Plan& plan, const Operators& ops, const double* q, Expansions* e,
         int threads) {
  const std::vector<BoxRef>& boxes = plan.p2l_boxes;
  const int p = ops.p;
  // A source z_j outside box b (v = (z_j - c)/s, |v| > the box's reach):
  //   B_0 += q_j (log|v| + log s),  B_k += -(q_j / k) v^-k   (DESIGN.md section 7, scaled).
  // Only Re B_0 matters (phi = Re sum B_l w^l): the imaginary part of log(-v) is dropped.
  // One loop over the boxes of every level: on deep trees most levels hold few such boxes, each
  // with up to thousands of sources, so the work, not the box count, sets the team.
  const std::int64_t n = std::int64_t(boxes.size());
#pragma omp parallel num_threads(team_size(threads, std::int64_t(plan.p2l_terms)))
  {
    std::vector<double> scratch;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t i = 0; i < n; ++i) {
      const int l = boxes[i].level;
      const std::int64_t b = boxes[i].box;
      const BoxLists& x = plan.p2l[l];
      const double s = tree.box_size(l), inv_s = 1.0 / s, log_s = std::log(s);
      double hx, hy;
      tree.centre_index(l, b, &hx, &hy);
      std::int64_t m = 0;
      for (std::int64_t k = x.begin[b]; k < x.begin[b + 1]; ++k)
        m += tree.at(x.box[k]).sources(x.box[k].box);
      scratch.resize(4 * m);
      double *wr = scratch.data(), *wi = wr + m, *tr = wi + m, *ti = tr + m;
      double b0 = 0;
      std::int64_t at = 0;
      for (std::int64_t k = x.begin[b]; k < x.begin[b + 1]; ++k) {
        const BoxRef c = x.box[k];
        const Level& lc = tree.at(c);
        for (std::int64_t j = lc.src_begin[c.box]; j < lc.src_end[c.box]; ++j, ++at) {
          const double vr = Tree::offset(tree.sx[j], tree.x0, hx, s, inv_s);
          const double vi = Tree::offset(tree.sy[j], tree.y0, hy, s, inv_s);
          const double v2 = vr * vr + vi * vi;
          wr[at] = vr / v2;  // 1/v
          wi[at] = -vi / v2;
          tr[at] = q[j];
          ti[at] = 0;
          b0 += q[j] * (0.5 * std::log(v2) + log_s);
        }
      }
      Complex* out = &e->local[l](0, b);
      out[0] += b0;
      power_sums(m, wr, wi, tr, ti, p, out);
    }
  }
}

void M2P(const Tree& tree, const Plan& plan, const Operators& ops, const Expansions& e, double* phi,
         double* ex, double* ey, int threads) {
  const BoxLists& w = plan.m2p;
  if (w.box.empty()) return;
  const int p = ops.p;
  const NearField& near = plan.near;
  // The multipole of box c (side s) at z, u = (z - c)/s, t = 1/u:
  //   phi  = a_0 (log|u| + log s) + Re sum_k A_k t^k          (a_0 is real: the charges are)
  //   phi' = (t/s) (a_0 - sum_k k A_k t^k),  E_x = -Re phi',  E_y = +Im phi'
  const std::int64_t n = std::int64_t(w.items());
  // The team by the work (targets x W boxes), and chunks that feed every thread: large leaves
  // (the cost model's CT 512-1024 at 1e5 points) make few, heavy items, and chunks of 16 of
  // them left most of a team of 15 waiting (clustered sets, docs/auto.md).
  const int team = team_size(threads, std::int64_t(plan.m2p_terms));
  const std::int64_t chunk = std::clamp<std::int64_t>(n / (8 * team), 1, 16);
#pragma omp parallel num_threads(team)
  {
    std::vector<double> scratch;
#pragma omp for schedule(dynamic, chunk)
    for (std::int64_t i = 0; i < n; ++i) {
      if (w.begin[i] == w.begin[i + 1]) continue;
      const std::int64_t i0 = near.leaf_tgt[i], m = near.leaf_tgt[i + 1] - i0;
      scratch.resize(4 * m);
      double *pur = scratch.data(), *pui = pur + m, *pfr = pui + m, *pfi = pfr + m;
      for (std::int64_t k = w.begin[i]; k < w.begin[i + 1]; ++k) {
        const BoxRef c = w.box[k];
        const double s = tree.box_size(c.level), inv_s = 1.0 / s, log_s = std::log(s);
        double hx, hy;
        tree.centre_index(c.level, c.box, &hx, &hy);
        const Complex* a = &e.multipole[c.level](0, c.box);
        const double a0 = a[0].real();
        for (std::int64_t j = 0; j < m; ++j) {
          const double ur = Tree::offset(tree.tx()[i0 + j], tree.x0, hx, s, inv_s);
          const double ui = Tree::offset(tree.ty()[i0 + j], tree.y0, hy, s, inv_s);
          const double u2 = ur * ur + ui * ui;
          pur[j] = ur / u2;  // t = 1/u
          pui[j] = -ui / u2;
          phi[i0 + j] += a0 * (0.5 * std::log(u2) + log_s);
        }
        // f = sum_{k=1..p} A_k t^k = t (A_1 + t (A_2 + ...)), Horner across the targets.
        auto horner = [&](auto coefficient) {
          const Complex top = coefficient(p);
          for (std::int64_t j = 0; j < m; ++j) pfr[j] = top.real(), pfi[j] = top.imag();
          for (int l = p - 1; l >= 0; --l) {
            const Complex cl = coefficient(l);
#pragma omp simd
            for (std::int64_t j = 0; j < m; ++j) {
              const double re = pfr[j] * pur[j] - pfi[j] * pui[j] + cl.real();
              pfi[j] = pfr[j] * pui[j] + pfi[j] * pur[j] + cl.imag();
              pfr[j] = re;
            }
          }
        };
        horner([&](int l) { return l == 0 ? Complex(0) : a[l]; });
        for (std::int64_t j = 0; j < m; ++j) phi[i0 + j] += pfr[j];
        if (ex) {
          // g = a_0 - sum_k k A_k t^k, then phi' = (t/s) g
          horner([&](int l) { return l == 0 ? Complex(a0) : -double(l) * a[l]; });
          for (std::int64_t j = 0; j < m; ++j) {
            const double dr = (pfr[j] * pur[j] - pfi[j] * pui[j]) * inv_s;
            const double di = (pfr[j] * pui[j] + pfi[j] * pur[j]) * inv_s;
            ex[i0 + j] -= dr;
            ey[i0 + j] += di;
          }
        }
      }
    }
  }
}

FarWork far_field_work(const Tree& tree, const Plan& plan) {
  FarWork w;
  for (int l = 3; l <= tree.levels; ++l) w.boxes += double(tree.level[l].size());
  for (const BoxRef& r : tree.leaves) {
    if (r.level < 3) continue;
    w.sources += double(tree.at(r).sources(r.box));
    w.targets += double(tree.at(r).targets(r.box));
  }
  w.m2l = double(plan.m2l_pairs);
  w.wx = double(plan.p2l_terms) + double(plan.m2p_terms);
  return w;
}

double far_field_flops(const Tree& tree, const Plan& plan, int p, bool field) {
  const FarWork w = far_field_work(tree, plan);
  const double n = p + 1;
  const double cmul = 8;             // complex multiply-add: 4 mul + 4 add
  const double out = field ? 2 : 1;  // Horner passes per target: potential, and the field
  return cmul * n * n * (w.m2l + 2 * w.boxes) + cmul * p * (w.sources + out * (w.targets + w.wx));
}

}  // namespace mlfma2d
