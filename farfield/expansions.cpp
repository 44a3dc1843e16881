#include "farfield/expansions.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "kernel/vector_log.hpp"
#include "runtime/array.hpp"
#include "runtime/threads.hpp"

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

// out[k] -= (1/k) sum_j q_j w_j^k for k = 1..p. (P2M with w = (z - c)/s; P2L with w = s/(z - c).)
// Blocks of kPowerLanes points hold their powers t_j = q_j w_j^k in registers while k advances;
// each power adds into four lanes per k (acc: 8 (p + 1) doubles), summed at the end.
constexpr int kPowerLanes = 16;
void power_sums(std::int64_t m, const double* wr, const double* wi, const double* q, int p,
                Complex* out) {
  constexpr int B = kPowerLanes, R = 4;  // R accumulator lanes per k (one AVX2 register)
  thread_local std::vector<double> acc_store;
  acc_store.assign(2 * R * std::size_t(p + 1), 0.0);
  double* acc = acc_store.data();
  for (std::int64_t j0 = 0; j0 < m; j0 += B) {
    const int nb = int(std::min<std::int64_t>(B, m - j0));
    double tr[B], ti[B], ar[B], ai[B];
    for (int b = 0; b < B; ++b) {
      const bool in = b < nb;  // past the end: q = 0, every power 0
      tr[b] = in ? q[j0 + b] : 0.0;
      ti[b] = 0;
      ar[b] = in ? wr[j0 + b] : 0.0;
      ai[b] = in ? wi[j0 + b] : 0.0;
    }
    for (int k = 1; k <= p; ++k) {
      double sr[R] = {}, si[R] = {};
      for (int g = 0; g < B; g += R) {
#pragma omp simd
        for (int b = g; b < g + R; ++b) {
          const double nr = tr[b] * ar[b] - ti[b] * ai[b];
          ti[b] = tr[b] * ai[b] + ti[b] * ar[b];
          tr[b] = nr;
          sr[b - g] += nr;
          si[b - g] += ti[b];
        }
      }
      double* a = acc + 2 * R * k;
      for (int r = 0; r < R; ++r) a[r] += sr[r], a[R + r] += si[r];
    }
  }
  for (int k = 1; k <= p; ++k) {
    const double* a = acc + 2 * R * k;
    out[k] -= Complex((a[0] + a[1]) + (a[2] + a[3]), (a[4] + a[5]) + (a[6] + a[7])) / double(k);
  }
}

// For each j < m, with z_j = zr[j] + i zi[j] and C_l = cr[l] + i ci[l]:
//   f_j = sum_{l=0..top} C_l z_j^l = C_0 + z (C_1 + z (C_2 + ...)),
// then use(j, Re f_j, Im f_j). Horner for kHornerLanes points at a time held in registers (a
// chain of dependent complex multiply-adds per point, several chains in flight).
constexpr int kHornerLanes = 16;
template <class F>
void horner(std::int64_t m, const double* zr, const double* zi, const double* cr, const double* ci,
            int top, F&& use) {
  constexpr int B = kHornerLanes;
  for (std::int64_t j0 = 0; j0 < m; j0 += B) {
    const int nb = int(std::min<std::int64_t>(B, m - j0));
    double fr[B], fi[B], tr[B], ti[B];
    for (int b = 0; b < B; ++b) {
      tr[b] = b < nb ? zr[j0 + b] : 0.0;
      ti[b] = b < nb ? zi[j0 + b] : 0.0;
      fr[b] = cr[top];
      fi[b] = ci[top];
    }
    for (int l = top - 1; l >= 0; --l) {
#pragma omp simd
      for (int b = 0; b < B; ++b) {
        const double re = fr[b] * tr[b] - fi[b] * ti[b] + cr[l];
        fi[b] = fr[b] * ti[b] + fi[b] * tr[b] + ci[l];
        fr[b] = re;
      }
    }
    for (int b = 0; b < nb; ++b) use(j0 + b, fr[b], fi[b]);
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

// Box r's points x[begin, begin + m), y[...] relative to its centre in units of its side: (wr,
// wi) = (z - c)/s, computed from the box's integer corner (the centre is not rounded first).
void box_offsets(const Tree& tree, BoxRef r, const double* x, const double* y, std::int64_t begin,
                 std::int64_t m, double* wr, double* wi) {
  const double s = tree.box_size(r.level), inv_s = 1.0 / s;
  double hx, hy;  // centre = corner + (hx, hy) s
  tree.centre_index(r.level, r.box, &hx, &hy);
  for (std::int64_t j = 0; j < m; ++j) {
    wr[j] = Tree::offset(x[begin + j], tree.x0, hx, s, inv_s);
    wi[j] = Tree::offset(y[begin + j], tree.y0, hy, s, inv_s);
  }
}

}  // namespace

void P2M(const Tree& tree, const Operators& ops, const double* q, Expansions* e, int threads) {
  const int p = ops.p;
  // A_0 = sum q_j,  A_k = -(1/k) sum q_j w_j^k,  w_j = (z_j - c)/s.
  for_leaves(tree, true, threads, [&](BoxRef r, std::vector<double>* scratch) {
    const Level& lv = tree.at(r);
    const std::int64_t j0 = lv.src_begin[r.box], m = lv.src_end[r.box] - j0;
    scratch->resize(2 * m);
    double *wr = scratch->data(), *wi = wr + m;
    box_offsets(tree, r, tree.sx.data(), tree.sy.data(), j0, m, wr, wi);
    double a0 = 0;
    for (std::int64_t j = 0; j < m; ++j) a0 += q[j0 + j];
    Complex* a = &e->multipole[r.level](0, r.box);
    a[0] += a0;
    power_sums(m, wr, wi, q + j0, p, a);
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

void M2L(const Tree& tree, const Plan& plan, const Operators& ops, int first, int last,
         Expansions* e, int threads) {
  constexpr std::int64_t kBlock = 128;  // pairs per matrix product
  // The levels are independent (each reads its multipoles, writes its locals): one team for all
  // of them, no barrier between (a deep adaptive tree has 15-30 levels of a few hundred pairs,
  // and a team per level spent more time waking than translating: the graded polygon's M2L at
  // 1e5 points took 3.9-5.2 ms on two threads that way, 0.45 ms this way, rows gp1e5 of
  // results/dev-machine/wave2c/operators_ab.txt). In each level each thread owns a contiguous
  // range of target boxes and, offset by offset, multiplies the operator with blocks of its
  // gathered source multipoles. Within an offset the pairs are sorted by target, so a thread's
  // pairs are one contiguous run: no races, no atomics, and every target adds its offsets in the
  // same order whatever the thread count.
  const int n = ops.p + 1;
  std::int64_t count = 0;  // a pair costs what a box's M2M does
  for (int l = first; l <= last; ++l) count += std::int64_t(plan.m2l[l].tgt.size());
#pragma omp parallel num_threads(team_size(threads, count, kParallelMinBoxes))
  {
    const int nth = omp_get_num_threads(), me = omp_get_thread_num();
    CMatrix S(n, kBlock), R(n, kBlock);
    for (int l = first; l <= last; ++l) {
      const M2LLevel& pairs = plan.m2l[l];
      const double log_s = std::log(tree.box_size(l));
      const CMatrix& M = e->multipole[l];
      CMatrix& Lc = e->local[l];
      const std::int64_t nb = std::int64_t(tree.level[l].size());
      const std::int32_t b0 = std::int32_t(nb * me / nth), b1 = std::int32_t(nb * (me + 1) / nth);
      for (int o = 0; o < kM2LOffsets; ++o) {
        const std::int32_t* lo_it = pairs.tgt.data() + pairs.begin[o];
        const std::int32_t* hi_it = pairs.tgt.data() + pairs.begin[o + 1];
        const std::int64_t lo = std::lower_bound(lo_it, hi_it, b0) - pairs.tgt.data();
        const std::int64_t hi = std::lower_bound(lo_it, hi_it, b1) - pairs.tgt.data();
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
    const double inv_s = 1.0 / tree.box_size(r.level);
    const std::int64_t i0 = lv.tgt_begin[r.box], m = lv.tgt_end[r.box] - i0;
    scratch->resize(2 * m + 2 * (p + 1));
    double *pzr = scratch->data(), *pzi = pzr + m, *cr = pzi + m, *ci = cr + p + 1;
    box_offsets(tree, r, tree.tx(), tree.ty(), i0, m, pzr, pzi);
    const Complex* c = &e.local[r.level](0, r.box);
    for (int l = 0; l <= p; ++l) cr[l] = c[l].real(), ci[l] = c[l].imag();
    horner(m, pzr, pzi, cr, ci, p, [&](std::int64_t i, double fr, double) { phi[i0 + i] += fr; });
    if (ex && p >= 1) {
      // f' s = sum_{l=0..p-1} (l+1) B_{l+1} z^l
      for (int l = 0; l < p; ++l)
        cr[l] = (l + 1) * c[l + 1].real(), ci[l] = (l + 1) * c[l + 1].imag();
      horner(m, pzr, pzi, cr, ci, p - 1, [&](std::int64_t i, double fr, double fi) {
        ex[i0 + i] -= fr * inv_s;
        ey[i0 + i] += fi * inv_s;
      });
    }
  });
}

void P2L(const Tree& tree, const Plan& plan, const Operators& ops, const double* q, Expansions* e,
         int threads) {
  const std::vector<BoxRef>& boxes = plan.p2l_boxes;
  const int p = ops.p;
  // A source z_j outside box b (v = (z_j - c)/s, |v| > the box's reach):
  //   B_0 += q_j (log|v| + log s),  B_k += -(q_j / k) v^-k   (docs/math.md section 3.7).
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
      double *wr = scratch.data(), *wi = wr + m, *tr = wi + m, *lg = tr + m;
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
          lg[at] = v2;
        }
      }
      log_in_place(lg, std::size_t(m));
      double b0 = 0;
      for (std::int64_t j = 0; j < m; ++j) b0 += tr[j] * (0.5 * lg[j] + log_s);
      Complex* out = &e->local[l](0, b);
      out[0] += b0;
      power_sums(m, wr, wi, tr, p, out);
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
  // (the cost model's CT 512-1024 at 1e5 points) make a few hundred heavy items, which chunks
  // of 16 would hand to a few threads of a team of 15.
  const int team = team_size(threads, std::int64_t(plan.m2p_terms));
  const std::int64_t chunk = std::clamp<std::int64_t>(n / (8 * team), 1, 16);
#pragma omp parallel num_threads(team)
  {
    std::vector<double> scratch;
#pragma omp for schedule(dynamic, chunk)
    for (std::int64_t i = 0; i < n; ++i) {
      if (w.begin[i] == w.begin[i + 1]) continue;
      const std::int64_t i0 = near.leaf_tgt[i], m = near.leaf_tgt[i + 1] - i0;
      scratch.resize(3 * m + 2 * (p + 1));
      double *pur = scratch.data(), *pui = pur + m, *lg = pui + m, *cr = lg + m, *ci = cr + p + 1;
      for (std::int64_t k = w.begin[i]; k < w.begin[i + 1]; ++k) {
        const BoxRef c = w.box[k];
        const double s = tree.box_size(c.level), inv_s = 1.0 / s, log_s = std::log(s);
        double hx, hy;
        tree.centre_index(c.level, c.box, &hx, &hy);
        const Complex* a = &e.multipole[c.level](0, c.box);
        const double a0 = a[0].real();
        const double* tx = tree.tx() + i0;
        const double* ty = tree.ty() + i0;
#pragma omp simd
        for (std::int64_t j = 0; j < m; ++j) {
          const double ur = Tree::offset(tx[j], tree.x0, hx, s, inv_s);
          const double ui = Tree::offset(ty[j], tree.y0, hy, s, inv_s);
          const double u2 = ur * ur + ui * ui;
          pur[j] = ur / u2;  // t = 1/u
          pui[j] = -ui / u2;
          lg[j] = u2;
        }
        log_in_place(lg, std::size_t(m));
        // f = sum_{k=1..p} A_k t^k
        cr[0] = ci[0] = 0;
        for (int l = 1; l <= p; ++l) cr[l] = a[l].real(), ci[l] = a[l].imag();
        horner(m, pur, pui, cr, ci, p, [&](std::int64_t j, double fr, double) {
          phi[i0 + j] += fr + a0 * (0.5 * lg[j] + log_s);
        });
        if (ex) {
          // g = a_0 - sum_k k A_k t^k, then phi' = (t/s) g
          cr[0] = a0;
          ci[0] = 0;
          for (int l = 1; l <= p; ++l) cr[l] = -l * a[l].real(), ci[l] = -l * a[l].imag();
          horner(m, pur, pui, cr, ci, p, [&](std::int64_t j, double gr, double gi) {
            ex[i0 + j] -= (gr * pur[j] - gi * pui[j]) * inv_s;
            ey[i0 + j] += (gr * pui[j] + gi * pur[j]) * inv_s;
          });
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
