// The far field's expansions and translations (docs/math.md section 3): the operators built
// once (dense, and factored as scalings around one real matrix per kind), M2M, M2L, L2L in
// blocks of factored translations, and the far field's work and flops. The point operators
// (P2M, P2L, L2P, M2P) are in point_operators.cpp.
#include "farfield/expansions.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "mlfma2d/mlfma2d.hpp"
#include "runtime/array.hpp"
#include "runtime/threads.hpp"

namespace mlfma2d {

static_assert(kMaxTerms + 1 <= kWideMaxTerms, "a translation's columns fit the kernels' tiles");

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

Operators::Operators(int terms) : p(terms), inverse(std::size_t(terms) + 1, 0.0) {
  const int n = p + 1;
  for (int k = 1; k <= p; ++k) inverse[std::size_t(k)] = 1.0 / k;
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
  for (int o = 0; o < kM2LOffsets; ++o) {
    const int t = m2l_terms(p, o);
    auto at = std::find(m2l_kind_terms.begin(), m2l_kind_terms.end(), t);
    if (at == m2l_kind_terms.end()) at = m2l_kind_terms.insert(m2l_kind_terms.end(), t);
    m2l_kind.push_back(int(at - m2l_kind_terms.begin()));
  }
}

int m2l_terms(int p, int offset) {
  // Sources within radius r = sqrt(2)/2 of a box centre (side 1): the multipole series converges
  // at a point z as (r / |z - c|)^k, the local series of the source box's field as
  // (|z - c'| / r')^l by symmetry; over the other box the ratio is at most rho = r / dist, dist
  // from the centre to the nearest point of the other box. The nearest offsets, (2, 0), have
  // rho_0 = r / 1.5; p + 1 terms there bound the truncation by rho_0^(p+1), which offset o
  // reaches with (p + 1) log rho_0 / log rho_o terms. That bound is reached only at the facing
  // corners; at the points of a real set the nearest offsets' error falls faster than it, the
  // farther ones' less so, and kMargin more terms keep every measured error as it was without
  // the truncation (docs/math.md section 3.4).
  constexpr int kMargin = 3;
  const auto d = m2l_offset(offset);
  const double r = std::sqrt(0.5);
  const double ex = std::max(std::abs(d[0]) - 0.5, 0.0), ey = std::max(std::abs(d[1]) - 0.5, 0.0);
  const double ratio = std::log(r / 1.5) / std::log(r / std::hypot(ex, ey));
  return std::min(p + 1, int(std::ceil(double(p + 1) * ratio - 1e-9)) + kMargin);
}

Scaling::Scaling(const std::vector<Complex>& b, const std::vector<Complex>& a) {
  for (const Complex& c : b) {
    before.re.insert(before.re.end(), {c.real(), c.real()});
    before.im.insert(before.im.end(), {-c.imag(), c.imag()});
  }
  const std::size_t rows = std::size_t(wide_rows(int(a.size())));
  after.re.assign(rows, 0.0);
  after.im.assign(rows, 0.0);
  for (std::size_t l = 0; l < a.size(); ++l) {
    after.re[l] = a[l].real();
    after.im[l] = a[l].imag();
  }
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
  rows = wide_rows(n);
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
    const Eigen::Index rows = expansion_rows(p);
    if (multipole[l].cols() != cols || multipole[l].rows() != rows) {
      multipole[l].resize(rows, cols);
      local[l].resize(rows, cols);
      for (CMatrix* m : {&multipole[l], &local[l]})
        parallel_fill(m->data(), std::size_t(m->size()), Complex(0), threads);
    }
  }
}

void zero_columns(CMatrix* m, std::int64_t box, int nd) {
  Complex* c = &(*m)(0, Eigen::Index(box) * nd);
  std::fill(c, c + m->rows() * nd, Complex(0));
}

namespace {

// Blocks of factored translations (Operators::m2m_real etc., docs/math.md section 3.4): each
// item's nd columns scaled by `before`, multiplied by the one real matrix R (a real matrix
// product: half the flops of the complex one, and one matrix for every offset or quadrant), each
// column scaled by its `after` and added to `out` as it leaves the product
// (WideKernels::translate: the scalings fused around the product, tile by tile in L1). Items come
// in kinds by the terms they keep (M2L's truncation per offset, section 3.4): a kind's items are
// one call with R's leading rows x n block, n the kind's terms. The columns stay complex, real
// and imaginary parts interleaved as the expansions hold them: no shuffles into planes and back.
// A block is multiplied only between outputs (close()), so each output's sums come in one call
// per kind, kind by kind in the order its items came: the same order whatever the threads.
class FactoredBlock {
 public:
  /// terms[c]: the coefficients kind c keeps (<= p + 1, the expansions' terms).
  FactoredBlock(const RMatrix& R, int p, const std::vector<int>& terms, int nd)
      : R_(R),
        wide_(wide_kernels()),
        stride_(2 * expansion_rows(p)),
        nd_(nd),
        cap_(std::max(1, kColumns / nd) * nd) {
    const int room = cap_ + kPerOutput * nd;
    kinds_.resize(terms.size());
    for (std::size_t c = 0; c < terms.size(); ++c) {
      Kind& k = kinds_[c];
      k.n = terms[c];
      k.rows = wide_rows(k.n);
      k.cols.resize(std::size_t(room));
    }
  }

  /// Adds out += diag(after) R diag(before) in (+ g in_0 to out_0), the kind's terms of each,
  /// when the block is next multiplied.
  void add(int kind, const Complex* in, Complex* out, const Scaling& sc, Complex g = 0) {
    Kind& k = kinds_[std::size_t(kind)];
    if (k.count + nd_ > int(k.cols.size())) flush();  // more than kPerOutput for one output
    const double* x = reinterpret_cast<const double*>(in);
    double* y = reinterpret_cast<double*>(out);
    for (int d = 0; d < nd_; ++d)
      k.cols[std::size_t(k.count++)] = {x + std::ptrdiff_t(d) * stride_,
                                        sc.before.re.data(),
                                        sc.before.im.data(),
                                        sc.after.re.data(),
                                        sc.after.im.data(),
                                        y + std::ptrdiff_t(d) * stride_,
                                        g.real(),
                                        g.imag()};
  }

  /// The current output's items are all added: multiplies when a kind's block is full.
  void close() {
    for (const Kind& k : kinds_)
      if (k.count >= cap_) return flush();
  }

  /// Multiplies and adds what the block holds.
  void flush() {
    for (Kind& k : kinds_) {
      if (k.count > 0)
        wide_.translate(k.n, k.rows, int(R_.rows()), R_.data(), k.count, k.cols.data());
      k.count = 0;
    }
  }

 private:
  // Complex columns per call and kind: enough that the last partial tile of each call costs
  // little (a tile is kWideItems columns); and room past them for one output's items (M2L's 27
  // at most, M2M's 4, L2L's 1).
  static constexpr int kColumns = 96, kPerOutput = 32;
  struct Kind {
    int n = 0, rows = 0, count = 0;
    std::vector<WideColumn> cols;
  };
  const RMatrix& R_;
  const WideKernels& wide_;
  int stride_;    // doubles between a box's density columns: 2 expansion_rows(p)
  int nd_, cap_;  // cap_: columns a kind holds before the block is multiplied
  std::vector<Kind> kinds_;
};

}  // namespace

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
    FactoredBlock block(ops.m2m_real, ops.p, {ops.p + 1}, int(nd));
    for (std::int64_t b = nb * me / nth; b < nb * (me + 1) / nth; ++b) {
      // A box with children: its multipole is theirs alone (its first write, in cache).
      if (parents.child_begin[b] < parents.child_begin[b + 1]) zero_columns(&Mp, b, int(nd));
      for (std::int32_t c = parents.child_begin[b]; c < parents.child_begin[b + 1]; ++c)
        if (children.has_sources(c))
          block.add(0, &Mc(0, Eigen::Index(c) * nd), &Mp(0, b * nd),
                    ops.m2m_scale[children.key[c] & 3]);
      block.close();
    }
    block.flush();
  }
}

void M2L(const Tree& tree, const Plan& plan, const Operators& ops, int first, int last,
         Expansions* e, int threads) {
  // The levels are independent (each reads its multipoles, writes its locals): one team for all
  // of them, no barrier between (a deep adaptive tree has 15-30 levels of a few hundred pairs,
  // and a team per level spent more time waking than translating: the graded polygon's M2L at
  // 1e5 points took 3.9-5.2 ms on two threads that way, 0.45 ms this way, rows gp1e5 of
  // results/dev-machine/wave2c/operators_ab.txt). In each level each thread owns a contiguous
  // range of target boxes and adds their pairs (M2LLevel: target by target, each target's in
  // the order of their offsets) to blocks of factored translations: every offset and level
  // shares the real matrix, so a block mixes them. No races, no atomics, and every target adds
  // its offsets in the same order whatever the thread count. The sources' multipoles are read
  // when a block is multiplied, and WideKernels::translate asks for each tile's next columns
  // meanwhile; a prefetch of the next target's sources here as well made M2L slower (1e6
  // uniform points, CT 32, 16 threads of the H200 host: medians 28.0-31.4 ms with it, 25.6-29.5
  // without; call 3 of results/h200/session-2026-11-29c).
  const Eigen::Index nd = e->nd;
  std::int64_t count = 0;  // a pair costs what a box's M2M does
  for (int l = first; l <= last; ++l) count += std::int64_t(plan.m2l[l].pairs());
#pragma omp parallel num_threads(team_size(threads, count* nd, kParallelMinBoxes))
  {
    const int nth = omp_get_num_threads(), me = omp_get_thread_num();
    FactoredBlock block(ops.m2l_real, ops.p, ops.m2l_kind_terms, int(nd));
    for (int l = first; l <= last; ++l) {
      const M2LLevel& pairs = plan.m2l[l];
      const double log_s = std::log(tree.box_size(l));
      const CMatrix& M = e->multipole[l];
      CMatrix& Lc = e->local[l];
      const std::int64_t nb = std::int64_t(tree.level[l].size());
      const std::int64_t b0 = nb * me / nth, b1 = nb * (me + 1) / nth;
      const std::int64_t* begin = pairs.target_begin.data();
      for (std::int64_t t = b0; t < b1; ++t) {
        zero_columns(&Lc, t, int(nd));  // every local of the level: M2L writes it first
        for (std::int64_t i = begin[t]; i < begin[t + 1]; ++i) {
          const int o = pairs.offset[i];
          // B_0 also gains a_0 log(-z0) = a_0 (log(-w) + log s).
          block.add(ops.m2l_kind[o], &M(0, Eigen::Index(pairs.src[i]) * nd),
                    &Lc(0, Eigen::Index(t) * nd), ops.m2l_scale[o], ops.m2l_log[o] + log_s);
        }
        block.close();
      }
    }
    block.flush();
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
    FactoredBlock block(ops.l2l_real, ops.p, {ops.p + 1}, int(nd));
    for (std::int64_t c = nc * me / nth; c < nc * (me + 1) / nth; ++c)
      if (children.has_targets(c)) {
        block.add(0, &Lp(0, Eigen::Index(children.parent[c]) * nd), &Lc(0, c * nd),
                  ops.l2l_scale[children.key[c] & 3]);
        block.close();
      }
    block.flush();
  }
}

FarWork far_field_work(const Tree& tree, const Plan& plan) {
  FarWork w;
  for (int l = 3; l <= tree.levels; ++l) w.boxes += double(tree.level[l].size());
  for (const BoxRef& r : tree.leaves) {
    if (r.level < 3) continue;
    w.sources += double(tree.at(r).sources(r.box));
    w.targets += double(tree.at(r).targets(r.box));
    w.leaves += 1;
  }
  w.m2l = double(plan.m2l_pairs);
  w.wx = double(plan.p2l_terms) + double(plan.m2p_terms);
  return w;
}

double far_field_flops(const Tree& tree, const Plan& plan, int p, const FarShape& shape) {
  const FarWork w = far_field_work(tree, plan);
  const double n = p + 1, nd = shape.densities;
  const double cmul = 8;  // complex multiply-add: 4 mul + 4 add
  // A translation of t terms (M2L, M2M, L2L; docs/math.md section 3.4): the real product of two
  // real columns, 4 t^2, and the scalings around it, 6 t before and 8 t after; M2L's t per offset.
  auto translation = [](double t) { return 4 * t * t + 14 * t; };
  double per_offset[kM2LOffsets];
  for (int o = 0; o < kM2LOffsets; ++o) per_offset[o] = translation(m2l_terms(p, o));
  double m2l = 0;
  for (const M2LLevel& level : plan.m2l)
    for (std::uint8_t o : level.offset) m2l += per_offset[o];
  // Power sums per source and term: the power (6 flops) once, then per density 4 for a charge and
  // 8 for a dipole; Horner passes per target: one complex multiply-add per term, density and pass.
  const double per_source = 6 + nd * ((shape.charges ? 4 : 0) + (shape.dipoles ? 8 : 0));
  return nd * (m2l + translation(n) * 2 * w.boxes) + p * per_source * w.sources +
         cmul * p * nd * shape.passes() * (w.targets + w.wx);
}

}  // namespace mlfma2d
