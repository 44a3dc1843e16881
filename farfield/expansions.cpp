#include "farfield/expansions.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

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
      for (int k = 1; k <= l; ++k) m(l, k) = std::pow(0.5, k) * std::pow(w, l - k) * C[l - 1][k - 1];
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

void Expansions::reset(const Tree& tree, int p) {
  multipole.resize(tree.levels + 1);
  local.resize(tree.levels + 1);
  for (int l = 3; l <= tree.levels; ++l) {
    const Eigen::Index nb = Eigen::Index(tree.level[l].size());
    if (multipole[l].cols() != nb || multipole[l].rows() != p + 1) {
      multipole[l].resize(p + 1, nb);
      local[l].resize(p + 1, nb);
    }
    multipole[l].setZero();
    local[l].setZero();
  }
}

void P2M(const Tree& tree, const Operators& ops, const double* q, Expansions* e, int threads) {
  const int L = tree.levels, p = ops.p;
  const Level& leaf = tree.leaves();
  const double s = tree.box_size(L), inv_s = 1.0 / s;
  CMatrix& M = e->multipole[L];
  // A_0 = sum q_j,  A_k = -(1/k) sum q_j w_j^k,  w_j = (z_j - c)/s.
  // Vectorised across the box's sources: t_j = q_j w_j^k is advanced one power per k.
#pragma omp parallel num_threads(threads)
  {
    std::vector<double> wr, wi, tr, ti;
#pragma omp for schedule(dynamic, 256)
    for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(leaf.size()); ++b) {
      if (!leaf.has_sources(b)) continue;
      double hx, hy;  // centre = corner + (hx, hy) s; offsets without rounding the centre
      tree.centre_index(L, b, &hx, &hy);
      const std::int64_t j0 = leaf.src_begin[b], m = leaf.src_end[b] - j0;
      wr.resize(m), wi.resize(m), tr.resize(m), ti.resize(m);
      double a0 = 0;
      for (std::int64_t j = 0; j < m; ++j) {
        wr[j] = std::fma(-hx, s, tree.sx[j0 + j] - tree.x0) * inv_s;
        wi[j] = std::fma(-hy, s, tree.sy[j0 + j] - tree.y0) * inv_s;
        tr[j] = q[j0 + j];
        ti[j] = 0;
        a0 += q[j0 + j];
      }
      Complex* a = &M(0, b);
      a[0] += a0;
      double *pwr = wr.data(), *pwi = wi.data(), *ptr = tr.data(), *pti = ti.data();
      for (int k = 1; k <= p; ++k) {
        double sr = 0, si = 0;
#pragma omp simd reduction(+ : sr, si)
        for (std::int64_t j = 0; j < m; ++j) {
          const double nr = ptr[j] * pwr[j] - pti[j] * pwi[j];
          const double ni = ptr[j] * pwi[j] + pti[j] * pwr[j];
          ptr[j] = nr;
          pti[j] = ni;
          sr += nr;
          si += ni;
        }
        a[k] -= Complex(sr, si) / double(k);
      }
    }
  }
}

void M2M(const Tree& tree, const Operators& ops, int l, Expansions* e, int threads) {
  const Level& parents = tree.level[l];
  const Level& children = tree.level[l + 1];
  const CMatrix& Mc = e->multipole[l + 1];
  CMatrix& Mp = e->multipole[l];
#pragma omp parallel for num_threads(threads) schedule(static)
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
  // Each thread owns a contiguous range of target boxes and, offset by offset, multiplies the
  // operator with blocks of its gathered source multipoles. Within an offset the pairs are
  // sorted by target, so a thread's pairs are one contiguous run: no races, no atomics, and
  // every target adds its offsets in the same order whatever the thread count.
#pragma omp parallel num_threads(threads)
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
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::ptrdiff_t c = 0; c < std::ptrdiff_t(children.size()); ++c) {
    if (children.has_targets(c))
      Lc.col(c).noalias() += ops.l2l[children.key[c] & 3] * Lp.col(children.parent[c]);
  }
}

void L2P(const Tree& tree, const Operators& ops, const Expansions& e, double* phi, double* ex,
         double* ey, int threads) {
  const int L = tree.levels, p = ops.p;
  const Level& leaf = tree.leaves();
  const double s = tree.box_size(L), inv_s = 1.0 / s;
  const CMatrix& B = e.local[L];
  // Horner across the box's targets (vectorised over targets):
  //   f = sum_l B_l z^l,  f' = (1/s) sum_l l B_l z^(l-1),  z = (x - c)/s
  //   phi = Re f,  E_x = -Re f',  E_y = +Im f'   (E = -grad phi)
#pragma omp parallel num_threads(threads)
  {
    std::vector<double> zr, zi, fr, fi;
#pragma omp for schedule(dynamic, 256)
    for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(leaf.size()); ++b) {
      if (!leaf.has_targets(b)) continue;
      double hx, hy;  // centre = corner + (hx, hy) s; offsets without rounding the centre
      tree.centre_index(L, b, &hx, &hy);
      const std::int64_t i0 = leaf.tgt_begin[b], m = leaf.tgt_end[b] - i0;
      zr.resize(m), zi.resize(m), fr.resize(m), fi.resize(m);
      for (std::int64_t i = 0; i < m; ++i) {
        zr[i] = std::fma(-hx, s, tree.tx[i0 + i] - tree.x0) * inv_s;
        zi[i] = std::fma(-hy, s, tree.ty[i0 + i] - tree.y0) * inv_s;
      }
      const Complex* c = &B(0, b);
      double *pzr = zr.data(), *pzi = zi.data(), *pfr = fr.data(), *pfi = fi.data();
      auto horner = [&](auto coefficient, int top, int bottom) {
        const Complex ct = coefficient(top);
        for (std::int64_t i = 0; i < m; ++i) pfr[i] = ct.real(), pfi[i] = ct.imag();
        for (int l = top - 1; l >= bottom; --l) {
          const Complex cl = coefficient(l);
#pragma omp simd
          for (std::int64_t i = 0; i < m; ++i) {
            const double r = pfr[i] * pzr[i] - pfi[i] * pzi[i] + cl.real();
            pfi[i] = pfr[i] * pzi[i] + pfi[i] * pzr[i] + cl.imag();
            pfr[i] = r;
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
    }
  }
}

double far_field_flops(const Tree& tree, const Plan& plan, int p, bool field) {
  if (tree.levels < 3) return 0;
  const double n = p + 1;
  const double cmul = 8;  // complex multiply-add: 4 mul + 4 add
  double boxes = 0;
  for (int l = 3; l <= tree.levels; ++l) boxes += double(tree.level[l].size());
  return cmul * n * n * (double(plan.m2l_pairs) + 2 * boxes) +
         cmul * p * (double(tree.n_sources()) + (field ? 2 : 1) * double(tree.n_targets()));
}

}  // namespace mlfma2d
