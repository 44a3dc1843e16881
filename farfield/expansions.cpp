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
  factor(C);
}

Scaling::Scaling(const std::vector<Complex>& before, const std::vector<Complex>& after) {
  for (const Complex& b : before) before_re.push_back(b.real()), before_im.push_back(b.imag());
  for (const Complex& a : after) after_re.push_back(a.real()), after_im.push_back(a.imag());
}

// The factored forms (docs/math.md section 3.4): every operator above is
// diag(after) R diag(before) with R real and the same for every quadrant or offset:
//   M2M  R(0,0) = 1, R(l,0) = -1/l, R(l,k) = 2^-k C(l-1, k-1) (1 <= k <= l);  before_k = w^-k,
//        after_l = w^l
//   L2L  R(l,k) = C(k, l) (k >= l);  before_k = w^k,  after_l = (2w)^-l
//   M2L  R(0,k) = 1, R(l,0) = -1/l, R(l,k) = C(l+k-1, k-1) (l, k >= 1), R(0,0) = 0;
//        before_k = (-1/w)^k,  after_l = w^-l;  B_0 += a_0 log(-w) apart.
void Operators::factor(const std::vector<std::vector<double>>& C) {
  const int n = p + 1;
  rows = (n + kWideRows - 1) / kWideRows * kWideRows;
  m2m_real = RMatrix::Zero(rows, n);
  l2l_real = RMatrix::Zero(rows, n);
  m2l_real = RMatrix::Zero(rows, n);
  m2m_real(0, 0) = 1;
  for (int l = 1; l <= p; ++l) {
    m2m_real(l, 0) = -1.0 / l;
    m2l_real(l, 0) = -1.0 / l;
    m2l_real(0, l) = 1;
    for (int k = 1; k <= l; ++k) m2m_real(l, k) = std::ldexp(C[l - 1][k - 1], -k);
    for (int k = 1; k <= p; ++k) m2l_real(l, k) = C[l + k - 1][k - 1];
  }
  for (int l = 0; l <= p; ++l)
    for (int k = l; k <= p; ++k) l2l_real(l, k) = C[k][l];
  auto powers = [n](Complex base) {
    std::vector<Complex> v(std::size_t(n), 1.0);
    for (int k = 1; k < n; ++k) v[std::size_t(k)] = v[std::size_t(k - 1)] * base;
    return v;
  };
  for (int q = 0; q < 4; ++q) {
    const Complex w = child_offset(q);
    m2m_scale[q] = Scaling(powers(1.0 / w), powers(w));
    l2l_scale[q] = Scaling(powers(w), powers(1.0 / (2.0 * w)));
  }
  m2l_scale.resize(kM2LOffsets);
  m2l_log.resize(kM2LOffsets);
  for (int o = 0; o < kM2LOffsets; ++o) {
    const auto d = m2l_offset(o);
    const Complex w(d[0], d[1]);
    m2l_scale[o] = Scaling(powers(-1.0 / w), powers(1.0 / w));
    m2l_log[o] = std::log(-w);
  }
}

void Expansions::reset(const Tree& tree, int p, int densities, int threads) {
  nd = densities;
  multipole.resize(tree.levels + 1);
  local.resize(tree.levels + 1);
  for (int l = 3; l <= tree.levels; ++l) {
    const Eigen::Index cols = Eigen::Index(tree.level[l].size()) * nd;
    if (multipole[l].cols() != cols || multipole[l].rows() != p + 1) {
      multipole[l].resize(p + 1, cols);
      local[l].resize(p + 1, cols);
    }
    for (CMatrix* m : {&multipole[l], &local[l]})
      parallel_fill(m->data(), std::size_t(m->size()), Complex(0), threads);
  }
}

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
    const std::size_t slots = std::size_t(4 * nd * (top + 1));
    out.resize(slots);
    scratch.resize(slots * kWideLanes);
    wide_kernels().power_sums(int(m), wr, wi, top, nd, charges ? s.q + j0 : nullptr,
                              dipoles ? s.mx + j0 : nullptr, dipoles ? s.my + j0 : nullptr,
                              long(stride), out.data(), scratch.data());
  }
  Complex sum(int d, int k, int kind) const {
    const double* a = out.data() + ((std::size_t(d) * (top + 1) + k) * 2 + kind) * 2;
    return {a[0], a[1]};
  }
};

// For each j < m, with z_j = zr[j] + i zi[j] and C_l = cr[l] + i ci[l]:
//   f_j = sum_{l=0..top} C_l z_j^l = C_0 + z (C_1 + z (C_2 + ...)),
// then use(j, Re f_j, Im f_j). Horner by the wide kernels (several chains of dependent complex
// multiply-adds in flight).
template <class F>
void horner(std::int64_t m, const double* zr, const double* zi, const double* cr, const double* ci,
            int top, F&& use) {
  thread_local std::vector<double> fr, fi;
  fr.resize(std::size_t(m));
  fi.resize(std::size_t(m));
  wide_kernels().horner(int(m), zr, zi, cr, ci, top, fr.data(), fi.data());
  for (std::int64_t j = 0; j < m; ++j) use(j, fr[std::size_t(j)], fi[std::size_t(j)]);
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

// Adds f, f', f'' (f's derivatives already scaled to the caller's units) to the outputs of
// density d at targets i0 + j: phi += Re f, E = (-Re f', Im f'), H = (Re f'', -Im f'').
struct OutputAt {
  const FarOutputs& out;
  std::size_t nt;
  void potential(int d, std::int64_t i, double v) const { out.phi[std::size_t(d) * nt + i] += v; }
  void field(int d, std::int64_t i, double fr, double fi) const {
    out.ex[std::size_t(d) * nt + i] -= fr;
    out.ey[std::size_t(d) * nt + i] += fi;
  }
  void hessian(int d, std::int64_t i, double hr, double hi) const {
    out.hxx[std::size_t(d) * nt + i] += hr;
    out.hxy[std::size_t(d) * nt + i] -= hi;
  }
};

}  // namespace

namespace {

// Blocks of factored translations (Operators::m2m_real etc., docs/math.md section 3.4): each
// item's nd columns `in` scaled by `before`, then every item of the block multiplied by the one
// real matrix R at once (a real matrix product: half the flops of the complex one, and one
// product for every offset or quadrant), scaled by `after` and added to `out` in the order the
// items came, whatever the block size (the sums' order does not depend on the threads).
class FactoredBlock {
 public:
  FactoredBlock(const Operators& ops, int nd)
      : n_(ops.p + 1),
        rows_(ops.rows),
        nd_(nd),
        cap_(std::max(1, kColumns / (2 * nd))),
        cols_((2 * nd * cap_ + kWideCols - 1) / kWideCols * kWideCols),
        S_(std::size_t(n_) * cols_, 0.0),
        V_(std::size_t(rows_) * cols_),
        gemm_(wide_kernels().gemm) {
    items_.reserve(std::size_t(cap_));
  }

  /// Adds out += diag(after) R diag(before) in (+ b0 in_0 to out_0); multiplies when full.
  void add(const RMatrix& R, const Complex* in, Complex* out, const Scaling& sc, Complex b0 = 0) {
    const int i = int(items_.size());
    const double* br = sc.before_re.data();
    const double* bi = sc.before_im.data();
    for (int d = 0; d < nd_; ++d) {
      const double* a = reinterpret_cast<const double*>(in + std::ptrdiff_t(d) * n_);
      double* re = S_.data() + std::size_t(2 * (i * nd_ + d)) * n_;
      double* im = re + n_;
#pragma omp simd
      for (int k = 0; k < n_; ++k) {
        const double ar = a[2 * k], ai = a[2 * k + 1];
        re[k] = br[k] * ar - bi[k] * ai;
        im[k] = br[k] * ai + bi[k] * ar;
      }
    }
    items_.push_back({in, out, &sc, b0});
    if (int(items_.size()) == cap_) flush(R);
  }

  /// Multiplies and scatters what the block holds.
  void flush(const RMatrix& R) {
    if (items_.empty()) return;
    // Whole tiles of columns: the columns past the items' hold zeros or earlier items' values,
    // whose products are not read.
    const int m = (int(items_.size()) * 2 * nd_ + kWideCols - 1) / kWideCols * kWideCols;
    gemm_(n_, rows_, m, R.data(), S_.data(), V_.data());
    for (std::size_t i = 0; i < items_.size(); ++i) {
      const Item& it = items_[i];
      const double* ar = it.sc->after_re.data();
      const double* ai = it.sc->after_im.data();
      for (int d = 0; d < nd_; ++d) {
        const double* re = V_.data() + std::size_t(2 * (int(i) * nd_ + d)) * rows_;
        const double* im = re + rows_;
        double* out = reinterpret_cast<double*>(it.out + std::ptrdiff_t(d) * n_);
#pragma omp simd
        for (int l = 0; l < n_; ++l) {
          out[2 * l] += ar[l] * re[l] - ai[l] * im[l];
          out[2 * l + 1] += ar[l] * im[l] + ai[l] * re[l];
        }
        if (it.b0 != Complex(0))
          it.out[std::ptrdiff_t(d) * n_] += it.in[std::ptrdiff_t(d) * n_] * it.b0;
      }
    }
    items_.clear();
  }

 private:
  // Real columns per product: enough for an efficient product, few enough to stay in cache.
  static constexpr int kColumns = 256;
  struct Item {
    const Complex* in;
    Complex* out;
    const Scaling* sc;
    Complex b0;
  };
  int n_, rows_, nd_, cap_, cols_;
  // S: n x cols (column 2 (i nd + d) + c, c = 0 real, 1 imaginary), V = R S: rows x cols.
  std::vector<double> S_, V_;
  void (*gemm_)(int, int, int, const double*, const double*, double*);
  std::vector<Item> items_;
};

}  // namespace

void P2M(const Tree& tree, const Operators& ops, const FarSources& s, Expansions* e, int threads) {
  const int p = ops.p, nd = e->nd;
  const std::size_t ns = tree.n_sources();
  // A_0 = sum q_j,  A_k = -(1/k) sum q_j w_j^k + (1/s) sum m_j w_j^(k-1),  w_j = (z_j - c)/s
  // (docs/math.md section 3).
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
    for (int d = 0; d < nd; ++d) {
      Complex* a = &e->multipole[r.level](0, r.box * nd + d);
      if (ps.charges) {
        a[0] += ps.sum(d, 0, 0);
        for (int k = 1; k <= p; ++k) a[k] -= ps.sum(d, k, 0) / double(k);
      }
      if (ps.dipoles)
        for (int k = 1; k <= p; ++k) a[k] += ps.sum(d, k - 1, 1) * inv_s;
    }
  });
}

void M2M(const Tree& tree, const Operators& ops, int l, Expansions* e, int threads) {
  const Level& parents = tree.level[l];
  const Level& children = tree.level[l + 1];
  const CMatrix& Mc = e->multipole[l + 1];
  CMatrix& Mp = e->multipole[l];
  const Eigen::Index nd = e->nd;
  const std::int64_t nb = std::int64_t(parents.size());
  // Each thread owns a contiguous range of parents (one writer per parent).
#pragma omp parallel num_threads(team_size(threads, parents.size(), kParallelMinBoxes))
  {
    const int nth = omp_get_num_threads(), me = omp_get_thread_num();
    FactoredBlock block(ops, int(nd));
    for (std::int64_t b = nb * me / nth; b < nb * (me + 1) / nth; ++b)
      for (std::int32_t c = parents.child_begin[b]; c < parents.child_begin[b + 1]; ++c)
        if (children.has_sources(c))
          block.add(ops.m2m_real, &Mc(0, Eigen::Index(c) * nd), &Mp(0, b * nd),
                    ops.m2m_scale[children.key[c] & 3]);
    block.flush(ops.m2m_real);
  }
}

void M2L(const Tree& tree, const Plan& plan, const Operators& ops, int first, int last,
         Expansions* e, int threads) {
  // The levels are independent (each reads its multipoles, writes its locals): one team for all
  // of them, no barrier between (a deep adaptive tree has 15-30 levels of a few hundred pairs,
  // and a team per level spent more time waking than translating: the graded polygon's M2L at
  // 1e5 points took 3.9-5.2 ms on two threads that way, 0.45 ms this way, rows gp1e5 of
  // results/dev-machine/wave2c/operators_ab.txt). In each level each thread owns a contiguous
  // range of target boxes and adds their pairs, target by target and each target's offset by
  // offset, to blocks of factored translations: every offset and level shares the real matrix, so
  // a block mixes them. Within an offset the pairs are sorted by target (each target at most
  // once), so a thread's pairs are one contiguous run per offset: no races, no atomics, and
  // every target adds its offsets in the same order whatever the thread count.
  const Eigen::Index nd = e->nd;
  std::int64_t count = 0;  // a pair costs what a box's M2M does
  for (int l = first; l <= last; ++l) count += std::int64_t(plan.m2l[l].tgt.size());
#pragma omp parallel num_threads(team_size(threads, count* nd, kParallelMinBoxes))
  {
    const int nth = omp_get_num_threads(), me = omp_get_thread_num();
    FactoredBlock block(ops, int(nd));
    for (int l = first; l <= last; ++l) {
      const M2LLevel& pairs = plan.m2l[l];
      const double log_s = std::log(tree.box_size(l));
      const CMatrix& M = e->multipole[l];
      CMatrix& Lc = e->local[l];
      const std::int64_t nb = std::int64_t(tree.level[l].size());
      const std::int32_t b0 = std::int32_t(nb * me / nth), b1 = std::int32_t(nb * (me + 1) / nth);
      // Target by target (its local stays in cache for its pairs, and neighbouring targets share
      // most sources), each target's pairs offset by offset.
      std::int64_t pos[kM2LOffsets], end[kM2LOffsets];
      for (int o = 0; o < kM2LOffsets; ++o) {
        const std::int32_t* lo_it = pairs.tgt.data() + pairs.begin[o];
        const std::int32_t* hi_it = pairs.tgt.data() + pairs.begin[o + 1];
        pos[o] = std::lower_bound(lo_it, hi_it, b0) - pairs.tgt.data();
        end[o] = std::lower_bound(lo_it, hi_it, b1) - pairs.tgt.data();
      }
      const std::size_t column_bytes = std::size_t(M.rows()) * nd * sizeof(Complex);
      for (std::int32_t t = b0; t < b1; ++t) {
        // The next target's sources asked for now: gathering them is what waits on memory.
        for (int o = 0; o < kM2LOffsets; ++o) {
          std::int64_t q = pos[o];
          if (q < end[o] && pairs.tgt[q] == t) ++q;
          if (q < end[o] && pairs.tgt[q] == t + 1) {
            const char* c = reinterpret_cast<const char*>(&M(0, Eigen::Index(pairs.src[q]) * nd));
            for (std::size_t b = 0; b < column_bytes; b += 64) __builtin_prefetch(c + b);
          }
        }
        for (int o = 0; o < kM2LOffsets; ++o) {
          if (pos[o] == end[o] || pairs.tgt[pos[o]] != t) continue;
          // B_0 also gains a_0 log(-z0) = a_0 (log(-w) + log s).
          block.add(ops.m2l_real, &M(0, Eigen::Index(pairs.src[pos[o]]) * nd),
                    &Lc(0, Eigen::Index(t) * nd), ops.m2l_scale[o], ops.m2l_log[o] + log_s);
          ++pos[o];
        }
      }
    }
    block.flush(ops.m2l_real);
  }
}

void L2L(const Tree& tree, const Operators& ops, int l, Expansions* e, int threads) {
  const Level& children = tree.level[l];
  const CMatrix& Lp = e->local[l - 1];
  CMatrix& Lc = e->local[l];
  const Eigen::Index nd = e->nd;
  const std::int64_t nc = std::int64_t(children.size());
#pragma omp parallel num_threads(team_size(threads, children.size(), kParallelMinBoxes))
  {
    const int nth = omp_get_num_threads(), me = omp_get_thread_num();
    FactoredBlock block(ops, int(nd));
    for (std::int64_t c = nc * me / nth; c < nc * (me + 1) / nth; ++c)
      if (children.has_targets(c))
        block.add(ops.l2l_real, &Lp(0, Eigen::Index(children.parent[c]) * nd), &Lc(0, c * nd),
                  ops.l2l_scale[children.key[c] & 3]);
    block.flush(ops.l2l_real);
  }
}

void L2P(const Tree& tree, const Operators& ops, const Expansions& e, const FarOutputs& out,
         int threads) {
  const int p = ops.p, nd = e.nd;
  const OutputAt at{out, tree.n_targets()};
  // Horner across the box's targets (vectorised over targets), z = (x - c)/s:
  //   f = sum_l B_l z^l,  f' = (1/s) sum_l l B_l z^(l-1),  f'' = (1/s^2) sum_l l (l-1) B_l z^(l-2)
  //   phi = Re f,  E = (-Re f', Im f'),  H = (Re f'', -Im f'')
  for_leaves(tree, false, threads, [&](BoxRef r, std::vector<double>* scratch) {
    const Level& lv = tree.at(r);
    const double inv_s = 1.0 / tree.box_size(r.level);
    const std::int64_t i0 = lv.tgt_begin[r.box], m = lv.tgt_end[r.box] - i0;
    scratch->resize(2 * m + 2 * (p + 1));
    double *pzr = scratch->data(), *pzi = pzr + m, *cr = pzi + m, *ci = cr + p + 1;
    box_offsets(tree, r, tree.tx(), tree.ty(), i0, m, pzr, pzi);
    for (int d = 0; d < nd; ++d) {
      const Complex* c = &e.local[r.level](0, r.box * nd + d);
      for (int l = 0; l <= p; ++l) cr[l] = c[l].real(), ci[l] = c[l].imag();
      horner(m, pzr, pzi, cr, ci, p,
             [&](std::int64_t i, double fr, double) { at.potential(d, i0 + i, fr); });
      if (out.ex && p >= 1) {
        // f' s = sum_{l=0..p-1} (l+1) B_{l+1} z^l
        for (int l = 0; l < p; ++l)
          cr[l] = (l + 1) * c[l + 1].real(), ci[l] = (l + 1) * c[l + 1].imag();
        horner(m, pzr, pzi, cr, ci, p - 1, [&](std::int64_t i, double fr, double fi) {
          at.field(d, i0 + i, fr * inv_s, fi * inv_s);
        });
      }
      if (out.hxx && p >= 2) {
        // f'' s^2 = sum_{l=0..p-2} (l+2)(l+1) B_{l+2} z^l
        const double inv_s2 = inv_s * inv_s;
        for (int l = 0; l + 2 <= p; ++l) {
          const double f = double(l + 2) * double(l + 1);
          cr[l] = f * c[l + 2].real(), ci[l] = f * c[l + 2].imag();
        }
        horner(m, pzr, pzi, cr, ci, p - 2, [&](std::int64_t i, double hr, double hi) {
          at.hessian(d, i0 + i, hr * inv_s2, hi * inv_s2);
        });
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
        for (std::int64_t j = lc.src_begin[c.box]; j < lc.src_end[c.box]; ++j, ++at) {
          const double vr = Tree::offset(tree.sx[j], tree.x0, hx, sz, inv_s);
          const double vi = Tree::offset(tree.sy[j], tree.y0, hy, sz, inv_s);
          const double v2 = vr * vr + vi * vi;
          wr[at] = vr / v2;  // 1/v
          wi[at] = -vi / v2;
          lg[at] = v2;
          for (int d = 0; d < nd; ++d) {
            if (gq) gq[d * m + at] = s.q[d * ns + j];
            if (gmx) {
              gmx[d * m + at] = s.mx[d * ns + j];
              gmy[d * m + at] = s.my[d * ns + j];
            }
          }
        }
      }
      if (ps.charges) log_in_place(lg, std::size_t(m));
      ps.run(m, wr, wi, FarSources{gq, gmx, gmy}, std::size_t(m), 0);
      for (int d = 0; d < nd; ++d) {
        Complex* out = &e->local[l](0, b * nd + d);
        if (ps.charges) {
          double b0 = 0;
          for (std::int64_t j = 0; j < m; ++j) b0 += gq[d * m + j] * (0.5 * lg[j] + log_s);
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
  const OutputAt at{out, tree.n_targets()};
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
          cr[0] = ci[0] = 0;
          for (int l = 1; l <= p; ++l) cr[l] = a[l].real(), ci[l] = a[l].imag();
          horner(m, pur, pui, cr, ci, p, [&](std::int64_t j, double fr, double) {
            at.potential(d, i0 + j, fr + a0 * (0.5 * lg[j] + log_s));
          });
          if (out.ex) {
            // g = a_0 - sum_k k A_k t^k, then phi' = (t/s) g
            cr[0] = a0;
            ci[0] = 0;
            for (int l = 1; l <= p; ++l) cr[l] = -l * a[l].real(), ci[l] = -l * a[l].imag();
            horner(m, pur, pui, cr, ci, p, [&](std::int64_t j, double gr, double gi) {
              at.field(d, i0 + j, (gr * pur[j] - gi * pui[j]) * inv_s,
                       (gr * pui[j] + gi * pur[j]) * inv_s);
            });
          }
          if (out.hxx) {
            // h = -a_0 + sum_k k (k+1) A_k t^k, then phi'' = (t/s)^2 h
            cr[0] = -a0;
            ci[0] = 0;
            for (int l = 1; l <= p; ++l) {
              const double f = double(l) * double(l + 1);
              cr[l] = f * a[l].real(), ci[l] = f * a[l].imag();
            }
            const double inv_s2 = inv_s * inv_s;
            horner(m, pur, pui, cr, ci, p, [&](std::int64_t j, double hr, double hi) {
              const double t2r = pur[j] * pur[j] - pui[j] * pui[j], t2i = 2 * pur[j] * pui[j];
              at.hessian(d, i0 + j, (hr * t2r - hi * t2i) * inv_s2, (hr * t2i + hi * t2r) * inv_s2);
            });
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

double far_field_flops(const Tree& tree, const Plan& plan, int p, const FarShape& shape) {
  const FarWork w = far_field_work(tree, plan);
  const double n = p + 1, nd = shape.densities;
  const double cmul = 8;  // complex multiply-add: 4 mul + 4 add
  // A translation (M2L, M2M, L2L; docs/math.md section 3.4): the real product of two real
  // columns, 4 (p+1)^2, and the scalings around it, 6 (p+1) before and 8 (p+1) after.
  const double translation = 4 * n * n + 14 * n;
  // Power sums per source and term: the power (6 flops) once, then per density 4 for a charge and
  // 8 for a dipole; Horner passes per target: one complex multiply-add per term, density and pass.
  const double per_source = 6 + nd * ((shape.charges ? 4 : 0) + (shape.dipoles ? 8 : 0));
  return translation * nd * (w.m2l + 2 * w.boxes) + p * per_source * w.sources +
         cmul * p * nd * shape.passes() * (w.targets + w.wx);
}

}  // namespace mlfma2d
