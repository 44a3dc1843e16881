// The point operators of the far field (docs/math.md section 3): P2M and P2L put sources into
// expansions (power sums), L2P and M2P evaluate expansions at targets (Horner chains); the loops
// that set their speed are the wide kernels' (kernel/wide.hpp). The translations are in
// expansions.cpp.
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "farfield/expansions.hpp"
#include "kernel/vector_log.hpp"
#include "kernel/wide.hpp"
#include "runtime/threads.hpp"

namespace mlfma2d {

namespace {

// Power sums of m points w_j (complex) for nd densities of strengths (tree order, nd x n, read
// at offset j0 + j of each density's row), by the wide kernels (kernel/wide.hpp):
//   charges: sum(d, k, 0) = sum_j q_dj w_j^k       (k = 0..top)
//   dipoles: sum(d, k, 1) = sum_j m_dj w_j^k       (k = 0..top, m = mx + i my)
// P2M uses them with w = (z - c)/s, P2L with w = s/(z - c).
struct PowerSums {
  int nd = 1, top = 0;
  bool charges = true, dipoles = false;
  std::vector<double> out, scratch;

  void run(std::int64_t m, const double* wr, const double* wi, const FarSources& s,
           std::size_t stride, std::int64_t j0) {
    const int channels = nd * ((charges ? 1 : 0) + (dipoles ? 2 : 0));
    out.resize(std::size_t(4 * nd * (top + 1)));
    scratch.resize(std::size_t(power_sums_scratch(int(m), top, channels)));
    wide_kernels().power_sums(int(m), wr, wi, top, nd, charges ? s.q + j0 : nullptr,
                              dipoles ? s.mx + j0 : nullptr, dipoles ? s.my + j0 : nullptr,
                              long(stride), out.data(), scratch.data());
  }
  Complex sum(int d, int k, int kind) const {
    const double* a = out.data() + ((std::size_t(d) * (top + 1) + k) * 2 + kind) * 2;
    return {a[0], a[1]};
  }
};

// Up to three polynomials f_s(z) = sum_{l=0..top} C_sl z^l (C_sl = cr[s][l] + i ci[s][l]) at m
// points z_j = zr[j] + i zi[j], in one pass by the wide kernels' Horner chains (kernel/wide.hpp):
// value(s, h)[j] = Re f_s(z_j) (h = 0) or Im (h = 1). The first is the potential's polynomial,
// whose imaginary part no caller uses: not written.
struct HornerSets {
  int sets = 1, top = 0;
  std::vector<double> coefficients, values;
  // Sized for `sets` polynomials of top + 1 terms at m points; the coefficients zeroed.
  void reset(int s, int t, std::int64_t m) {
    sets = s, top = t, m_ = std::size_t(m);
    coefficients.assign(std::size_t(2 * sets * (top + 1)), 0.0);
    values.resize(std::size_t(2 * sets) * m_);
  }
  double* re(int s) { return coefficients.data() + std::size_t(2 * s) * std::size_t(top + 1); }
  double* im(int s) { return re(s) + (top + 1); }
  void run(std::int64_t m, const double* zr, const double* zi) {
    const double* cr[3] = {};
    const double* ci[3] = {};
    double* out[6] = {};
    for (int s = 0; s < sets; ++s) {
      cr[s] = re(s), ci[s] = im(s);
      for (int h = 0; h < 2; ++h)
        if (s > 0 || h == 0) out[2 * s + h] = values.data() + std::size_t(2 * s + h) * m_;
    }
    wide_kernels().horner(int(m), zr, zi, sets, cr, ci, top, out);
  }
  const double* value(int s, int h) const { return values.data() + std::size_t(2 * s + h) * m_; }

 private:
  std::size_t m_ = 0;
};

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
  const double *bx = x + begin, *by = y + begin;
  const double x0 = tree.x0, y0 = tree.y0;
#pragma omp simd
  for (std::int64_t j = 0; j < m; ++j) {
    wr[j] = Tree::offset(bx[j], x0, hx, s, inv_s);
    wi[j] = Tree::offset(by[j], y0, hy, s, inv_s);
  }
}

}  // namespace

void P2M(const Tree& tree, const Operators& ops, const FarSources& s, Expansions* e, int threads) {
  const int p = ops.p, nd = e->nd;
  const std::size_t ns = tree.n_sources();
  // A_0 = sum q_j,  A_k = -(1/k) sum q_j w_j^k + (1/s) sum m_j w_j^(k-1),  w_j = (z_j - c)/s
  // (docs/math.md section 3); 1/k from the operators' table, in place of two divisions a term in
  // every leaf.
  const std::vector<double>& inv = ops.inverse;
  for_leaves(tree, true, threads, [&](BoxRef r, std::vector<double>* scratch) {
    const Level& lv = tree.at(r);
    const std::int64_t j0 = lv.src_begin[r.box], m = lv.src_end[r.box] - j0;
    scratch->resize(2 * m);
    double *wr = scratch->data(), *wi = wr + m;
    box_offsets(tree, r, tree.sx.data(), tree.sy.data(), j0, m, wr, wi);
    thread_local PowerSums ps;
    ps.nd = nd;
    ps.top = p;
    ps.charges = s.q != nullptr;
    ps.dipoles = s.mx != nullptr;
    ps.run(m, wr, wi, s, ns, j0);
    const double inv_s = 1.0 / tree.box_size(r.level);
    zero_columns(&e->multipole[r.level], r.box, nd);
    for (int d = 0; d < nd; ++d) {
      Complex* a = &e->multipole[r.level](0, r.box * nd + d);
      if (ps.charges) {
        a[0] += ps.sum(d, 0, 0);
        for (int k = 1; k <= p; ++k) a[k] -= ps.sum(d, k, 0) * inv[std::size_t(k)];
      }
      if (ps.dipoles)
        for (int k = 1; k <= p; ++k) a[k] += ps.sum(d, k - 1, 1) * inv_s;
    }
  });
}

void L2P(const Tree& tree, const Operators& ops, const Expansions& e, const FarOutputs& out,
         int threads) {
  const int p = ops.p, nd = e.nd;
  const std::size_t nt = tree.n_targets();
  // L2P is the first to write each target of a leaf on levels >= 3 (EvaluationArrays::
  // far_outputs zeroes the rest): it sets the outputs, M2P adds after.
  // Horner across the box's targets (vectorised over targets), z = (x - c)/s, the potential's,
  // the field's and the Hessian's polynomials in one pass:
  //   f = sum_l B_l z^l,  f' = (1/s) sum_l l B_l z^(l-1),  f'' = (1/s^2) sum_l l (l-1) B_l z^(l-2)
  //   phi = Re f,  E = (-Re f', Im f'),  H = (Re f'', -Im f'')
  const int sets = 1 + (out.ex ? 1 : 0) + (out.hxx ? 1 : 0);
  const int field = out.ex ? 1 : 0, hessian = out.hxx ? sets - 1 : 0;
  for_leaves(tree, false, threads, [&](BoxRef r, std::vector<double>* scratch) {
    const Level& lv = tree.at(r);
    const double inv_s = 1.0 / tree.box_size(r.level), inv_s2 = inv_s * inv_s;
    const std::int64_t i0 = lv.tgt_begin[r.box], m = lv.tgt_end[r.box] - i0;
    scratch->resize(2 * m);
    double *pzr = scratch->data(), *pzi = pzr + m;
    box_offsets(tree, r, tree.tx(), tree.ty(), i0, m, pzr, pzi);
    thread_local HornerSets h;
    h.reset(sets, p, m);
    for (int d = 0; d < nd; ++d) {
      const Complex* c = &e.local[r.level](0, r.box * nd + d);
      for (int l = 0; l <= p; ++l) h.re(0)[l] = c[l].real(), h.im(0)[l] = c[l].imag();
      // f' s = sum_{l=0..p-1} (l+1) B_{l+1} z^l  (0 with one term)
      if (field)
        for (int l = 0; l < p; ++l)
          h.re(1)[l] = (l + 1) * c[l + 1].real(), h.im(1)[l] = (l + 1) * c[l + 1].imag();
      // f'' s^2 = sum_{l=0..p-2} (l+2)(l+1) B_{l+2} z^l  (0 with fewer than three terms)
      if (hessian)
        for (int l = 0; l + 2 <= p; ++l) {
          const double f = double(l + 2) * double(l + 1);
          h.re(hessian)[l] = f * c[l + 2].real(), h.im(hessian)[l] = f * c[l + 2].imag();
        }
      h.run(m, pzr, pzi);
      const std::size_t at = std::size_t(d) * nt + std::size_t(i0);
      std::copy_n(h.value(0, 0), m, out.phi + at);
      if (field) {
        const double *fr = h.value(1, 0), *fi = h.value(1, 1);
        double *ex = out.ex + at, *ey = out.ey + at;
#pragma omp simd
        for (std::int64_t i = 0; i < m; ++i) ex[i] = -(fr[i] * inv_s), ey[i] = fi[i] * inv_s;
      }
      if (hessian) {
        const double *hr = h.value(hessian, 0), *hi = h.value(hessian, 1);
        double *hxx = out.hxx + at, *hxy = out.hxy + at;
#pragma omp simd
        for (std::int64_t i = 0; i < m; ++i) hxx[i] = hr[i] * inv_s2, hxy[i] = -(hi[i] * inv_s2);
      }
    }
  });
}

void P2L(const Tree& tree, const Plan& plan, const Operators& ops, const FarSources& s,
         Expansions* e, int threads) {
  const std::vector<BoxRef>& boxes = plan.p2l_boxes;
  const int p = ops.p, nd = e->nd;
  // A source z_j outside box b (v = (z_j - c)/s, |v| > the box's reach, t = 1/v):
  //   B_0 += q_j (log|v| + log s),  B_k += -(q_j / k) t^k,  B_l += -(m_j / s) t^(l+1)
  // (docs/math.md section 3.7). Only Re B_0 matters for the charges (phi = Re sum B_l w^l): the
  // imaginary part of log(-v) is dropped. One loop over the boxes of every level: on deep trees
  // most levels hold few such boxes, each with up to thousands of sources, so the work, not the
  // box count, sets the team.
  const std::int64_t n = std::int64_t(boxes.size());
#pragma omp parallel num_threads(team_size(threads, std::int64_t(plan.p2l_terms) * nd))
  {
    std::vector<double> scratch;
    PowerSums ps;
    ps.nd = nd;
    ps.top = p + 1;
    ps.charges = s.q != nullptr;
    ps.dipoles = s.mx != nullptr;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t i = 0; i < n; ++i) {
      const int l = boxes[i].level;
      const std::int64_t b = boxes[i].box;
      const BoxLists& x = plan.p2l[l];
      const double sz = tree.box_size(l), inv_s = 1.0 / sz, log_s = std::log(sz);
      double hx, hy;
      tree.centre_index(l, b, &hx, &hy);
      std::int64_t m = 0;
      for (std::int64_t k = x.begin[b]; k < x.begin[b + 1]; ++k)
        m += tree.at(x.box[k]).sources(x.box[k].box);
      // The X leaves' sources gathered: 1/v, log|v|^2, and each channel of each density.
      const int channels = nd * ((ps.charges ? 1 : 0) + (ps.dipoles ? 2 : 0));
      scratch.resize(std::size_t(3 + channels) * m);
      double *wr = scratch.data(), *wi = wr + m, *lg = wi + m, *ch = lg + m;
      // The gathered strengths: nd x m each.
      double* gq = ps.charges ? ch : nullptr;
      double* gmx = ps.dipoles ? ch + (ps.charges ? nd * m : 0) : nullptr;
      double* gmy = ps.dipoles ? gmx + nd * m : nullptr;
      const std::size_t ns = tree.n_sources();
      std::int64_t at = 0;
      for (std::int64_t k = x.begin[b]; k < x.begin[b + 1]; ++k) {
        const BoxRef c = x.box[k];
        const Level& lc = tree.at(c);
        const std::int64_t j0 = lc.src_begin[c.box], mc = lc.src_end[c.box] - j0;
        const double *sx = tree.sx.data() + j0, *sy = tree.sy.data() + j0;
#pragma omp simd
        for (std::int64_t j = 0; j < mc; ++j) {
          const double vr = Tree::offset(sx[j], tree.x0, hx, sz, inv_s);
          const double vi = Tree::offset(sy[j], tree.y0, hy, sz, inv_s);
          const double v2 = vr * vr + vi * vi;
          wr[at + j] = vr / v2;  // 1/v
          wi[at + j] = -vi / v2;
          lg[at + j] = v2;
        }
        for (int d = 0; d < nd; ++d) {
          if (gq) std::copy_n(s.q + d * ns + j0, mc, gq + d * m + at);
          if (gmx) {
            std::copy_n(s.mx + d * ns + j0, mc, gmx + d * m + at);
            std::copy_n(s.my + d * ns + j0, mc, gmy + d * m + at);
          }
        }
        at += mc;
      }
      if (ps.charges) log_in_place(lg, std::size_t(m));
      ps.run(m, wr, wi, FarSources{gq, gmx, gmy}, std::size_t(m), 0);
      for (int d = 0; d < nd; ++d) {
        Complex* out = &e->local[l](0, b * nd + d);
        if (ps.charges) {
          // A sum in vector lanes (this unit's width, fixed at build: the same bits every run).
          double b0 = 0;
          const double* qd = gq + d * m;
#pragma omp simd reduction(+ : b0)
          for (std::int64_t j = 0; j < m; ++j) b0 += qd[j] * (0.5 * lg[j] + log_s);
          out[0] += b0;
          for (int k = 1; k <= p; ++k) out[k] -= ps.sum(d, k, 0) / double(k);
        }
        if (ps.dipoles)
          for (int k = 0; k <= p; ++k) out[k] -= ps.sum(d, k + 1, 1) * inv_s;
      }
    }
  }
}

void M2P(const Tree& tree, const Plan& plan, const Operators& ops, const Expansions& e,
         const FarOutputs& out, int threads) {
  const BoxLists& w = plan.m2p;
  if (w.box.empty()) return;
  const int p = ops.p, nd = e.nd;
  const NearField& near = plan.near;
  const std::size_t nt = tree.n_targets();
  // The multipole of box c (side s) at z, u = (z - c)/s, t = 1/u:
  //   phi   = a_0 (log|u| + log s) + Re sum_k A_k t^k          (a_0 is real: the charges are)
  //   phi'  = (t/s) (a_0 - sum_k k A_k t^k),          E = (-Re phi', Im phi')
  //   phi'' = (t/s)^2 (-a_0 + sum_k k (k+1) A_k t^k),  H = (Re phi'', -Im phi'')
  const std::int64_t n = std::int64_t(w.items());
  // The team by the work (targets x W boxes), and chunks that feed every thread: large leaves
  // (the cost model's CT 512-1024 at 1e5 points) make a few hundred heavy items, which chunks
  // of 16 would hand to a few threads of a team of 15.
  const int team = team_size(threads, std::int64_t(plan.m2p_terms) * nd);
  const std::int64_t chunk = std::clamp<std::int64_t>(n / (8 * team), 1, 16);
  // The potential's, the field's and the Hessian's polynomials in t, in one pass:
  const int sets = 1 + (out.ex ? 1 : 0) + (out.hxx ? 1 : 0);
  const int field = out.ex ? 1 : 0, hessian = out.hxx ? sets - 1 : 0;
#pragma omp parallel num_threads(team)
  {
    std::vector<double> scratch;
    HornerSets h;
#pragma omp for schedule(dynamic, chunk)
    for (std::int64_t i = 0; i < n; ++i) {
      if (w.begin[i] == w.begin[i + 1]) continue;
      const std::int64_t i0 = near.leaf_tgt[i], m = near.leaf_tgt[i + 1] - i0;
      scratch.resize(3 * m);
      double *pur = scratch.data(), *pui = pur + m, *lg = pui + m;
      h.reset(sets, p, m);
      for (std::int64_t k = w.begin[i]; k < w.begin[i + 1]; ++k) {
        const BoxRef c = w.box[k];
        const double s = tree.box_size(c.level), inv_s = 1.0 / s, log_s = std::log(s);
        const double inv_s2 = inv_s * inv_s;
        double hx, hy;
        tree.centre_index(c.level, c.box, &hx, &hy);
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
        for (int d = 0; d < nd; ++d) {
          const Complex* a = &e.multipole[c.level](0, c.box * nd + d);
          const double a0 = a[0].real();
          // f = sum_{k=1..p} A_k t^k
          h.re(0)[0] = h.im(0)[0] = 0;
          for (int l = 1; l <= p; ++l) h.re(0)[l] = a[l].real(), h.im(0)[l] = a[l].imag();
          // g = a_0 - sum_k k A_k t^k, then phi' = (t/s) g
          if (field) {
            h.re(1)[0] = a0, h.im(1)[0] = 0;
            for (int l = 1; l <= p; ++l)
              h.re(1)[l] = -l * a[l].real(), h.im(1)[l] = -l * a[l].imag();
          }
          // h = -a_0 + sum_k k (k+1) A_k t^k, then phi'' = (t/s)^2 h
          if (hessian) {
            h.re(hessian)[0] = -a0, h.im(hessian)[0] = 0;
            for (int l = 1; l <= p; ++l) {
              const double f = double(l) * double(l + 1);
              h.re(hessian)[l] = f * a[l].real(), h.im(hessian)[l] = f * a[l].imag();
            }
          }
          h.run(m, pur, pui);
          const std::size_t at = std::size_t(d) * nt + std::size_t(i0);
          const double* fr = h.value(0, 0);
          double* phi = out.phi + at;
#pragma omp simd
          for (std::int64_t j = 0; j < m; ++j) phi[j] += fr[j] + a0 * (0.5 * lg[j] + log_s);
          if (field) {
            const double *gr = h.value(1, 0), *gi = h.value(1, 1);
            double *ex = out.ex + at, *ey = out.ey + at;
#pragma omp simd
            for (std::int64_t j = 0; j < m; ++j) {
              ex[j] += -((gr[j] * pur[j] - gi[j] * pui[j]) * inv_s);
              ey[j] += (gr[j] * pui[j] + gi[j] * pur[j]) * inv_s;
            }
          }
          if (hessian) {
            const double *hr = h.value(hessian, 0), *hi = h.value(hessian, 1);
            double *hxx = out.hxx + at, *hxy = out.hxy + at;
#pragma omp simd
            for (std::int64_t j = 0; j < m; ++j) {
              const double t2r = pur[j] * pur[j] - pui[j] * pui[j], t2i = 2 * pur[j] * pui[j];
              hxx[j] += (hr[j] * t2r - hi[j] * t2i) * inv_s2;
              hxy[j] += -((hr[j] * t2i + hi[j] * t2r) * inv_s2);
            }
          }
        }
      }
    }
  }
}

}  // namespace mlfma2d
