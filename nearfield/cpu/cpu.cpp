// The cpu back end, the reference for every other: near leaves in Morton order; for each target of
// a leaf, the sum over the sources of its near list (its source ranges), in tree order, for every
// density at once. A leaf's near sources are gathered into contiguous arrays; a target's sum runs
// over them in blocks: first the terms every density shares (kernel/pair.hpp: log r2, g = 1/d and
// its powers; 4 or 8 sources at a time through glibc's vector log, kernel/wide.hpp), then,
// density by density, one straight vector loop over the block applying them.
#include <algorithm>
#include <vector>

#include "kernel/pair.hpp"
#include "kernel/wide.hpp"
#include "nearfield/backend.hpp"
#include "runtime/threads.hpp"
#include "runtime/timer.hpp"

namespace mlfma2d {
namespace {

// Sources per block: the shared terms of one block stay in L1 (7 arrays of 64 doubles).
constexpr int kBlock = 64;

// The strengths' channels per density: q, then mx, my.
struct Channels {
  int nd = 1, per = 1;  // densities; channels per density
  bool charges = true, dipoles = false;
  int q(int d) const { return d * per; }
  int mx(int d) const { return d * per + (charges ? 1 : 0); }
  int my(int d) const { return mx(d) + 1; }
  int count() const { return nd * per; }
};

// The shared terms of one block of sources for one target.
struct BlockTerms {
  alignas(64) double hl[kBlock], gx[kBlock], gy[kBlock], g2x[kBlock], g2y[kBlock], g3x[kBlock],
      g3y[kBlock];
};

// The sources of one leaf's near list copied into contiguous arrays, padded with zero strengths
// to a multiple of the block (or of the vector, for the fused kernel), so each block is whole.
struct Gathered {
  std::vector<double> x, y, w;  // w: channel c of source j at c * cap + j
  std::size_t n = 0, cap = 0;

  /// The sources of near leaf b, padded to a multiple of `multiple`.
  void gather(const NearFieldProblem& p, const Channels& ch,
              const std::vector<const double*>& tree_channels, std::size_t b, int multiple) {
    const NearField& near = *p.near;
    const std::size_t count = std::size_t(near.sources[b]);
    const std::size_t padded = (count + multiple - 1) / multiple * multiple;
    if (padded > cap) {
      cap = padded;
      x.resize(cap);
      y.resize(cap);
      w.resize(cap * std::size_t(ch.count()));
    }
    n = 0;
    for (std::int64_t k = near.range_begin[b]; k < near.range_begin[b + 1]; ++k) {
      for (std::int64_t j = near.range[2 * k]; j < near.range[2 * k + 1]; ++j, ++n) {
        x[n] = p.sx[j];
        y[n] = p.sy[j];
        for (int c = 0; c < ch.count(); ++c) w[c * cap + n] = tree_channels[c][j];
      }
    }
    // Strength 0 at the first source's place: contributes exactly 0, and is no nearer any target
    // than that source is.
    for (; n < padded; ++n) {
      x[n] = x[0];
      y[n] = y[0];
      for (int c = 0; c < ch.count(); ++c) w[c * cap + n] = 0;
    }
  }
  const double* channel(int c) const { return w.data() + std::size_t(c) * cap; }
};

// The terms of sources [j0, j0 + kBlock) for target (tx, ty); false when a pair is closer than
// the smallest normal r2 allows (the target is then summed again by the scalar pair.hpp). The
// log and g by the wide kernels (kernel/wide.hpp: 4 or 8 pairs at a time, glibc's vector log),
// their powers here.
template <int kOrder, bool kCharge, bool kDipole>
bool block_terms(const Gathered& g, std::size_t j0, double tx, double ty, BlockTerms* t) {
  constexpr bool kG = kDipole || kOrder >= kField;
  constexpr bool kG2 = (kDipole && kOrder >= kField) || kOrder >= kHessian;
  constexpr bool kG3 = kDipole && kOrder >= kHessian;
  if (!wide_kernels().near_terms(kBlock, g.x.data() + j0, g.y.data() + j0, tx, ty, kCharge, kG,
                                 t->hl, t->gx, t->gy))
    return false;
  if (kG2) {
#pragma omp simd
    for (int j = 0; j < kBlock; ++j) {
      const double gx = t->gx[j], gy = t->gy[j];
      t->g2x[j] = gx * gx - gy * gy;
      t->g2y[j] = 2.0 * gx * gy;
      if (kG3) {
        t->g3x[j] = t->g2x[j] * gx - t->g2y[j] * gy;
        t->g3y[j] = t->g2x[j] * gy + t->g2y[j] * gx;
      }
    }
  }
  return true;
}

// One density's sums over a block, the terms applied as add_pair does (kernel/pair.hpp).
template <int kOrder, bool kCharge, bool kDipole>
void block_sums(const BlockTerms& t, const double* q, const double* mx, const double* my,
                PairSums* s) {
  double phi = 0, ex = 0, ey = 0, hxx = 0, hxy = 0;
#pragma omp simd reduction(+ : phi, ex, ey, hxx, hxy)
  for (int j = 0; j < kBlock; ++j) {
    PairTerms p;
    p.half_log = t.hl[j];
    p.gx = t.gx[j];
    p.gy = t.gy[j];
    p.g2x = t.g2x[j];
    p.g2y = t.g2y[j];
    p.g3x = t.g3x[j];
    p.g3y = t.g3y[j];
    PairSums a;
    add_pair<kOrder, kCharge, kDipole>(p, kCharge ? q[j] : 0.0, kDipole ? mx[j] : 0.0,
                                       kDipole ? my[j] : 0.0, &a);
    phi += a.phi;
    ex += a.ex;
    ey += a.ey;
    hxx += a.hxx;
    hxy += a.hxy;
  }
  s->phi += phi;
  s->ex += ex;
  s->ey += ey;
  s->hxx += hxx;
  s->hxy += hxy;
}

class CpuBackend final : public NearFieldBackend {
 private:
  void prepare() override {
    const NearFieldProblem& p = problem();
    ch_.nd = p.densities;
    ch_.charges = p.charges;
    ch_.dipoles = p.dipoles;
    ch_.per = (p.charges ? 1 : 0) + (p.dipoles ? 2 : 0);
    w_.resize(std::size_t(ch_.count()) * p.n_sources);
    const std::size_t out = std::size_t(p.densities) * p.n_targets;
    phi_.resize(out);
    if (p.field) {
      ex_.resize(out);
      ey_.resize(out);
    }
    if (p.hessian) {
      hxx_.resize(out);
      hxy_.resize(out);
    }
  }

  void run(const NearSources& s, const NearOutputs& o, NearFieldTimings* t) override {
    const NearFieldProblem& p = problem();
    const int threads = team_size(p.threads);
    const std::size_t ns = p.n_sources, nt = p.n_targets;
    // collect: every channel into tree order
    std::vector<const double*> tree_ch(std::size_t(ch_.count()));
    timed(&t->collect, [&] {
      for (int d = 0; d < ch_.nd; ++d) {
        if (ch_.charges) gather_channel(s.q + d * ns, ch_.q(d), threads, &tree_ch);
        if (ch_.dipoles) {
          gather_channel(s.mx + d * ns, ch_.mx(d), threads, &tree_ch);
          gather_channel(s.my + d * ns, ch_.my(d), threads, &tree_ch);
        }
      }
    });
    timed(&t->kernel, [&] {
      dispatch_pair(p.order(), p.charges, p.dipoles, [&](auto o_, auto c_, auto d_) {
        sums<decltype(o_)::value, decltype(c_)::value, decltype(d_)::value>(tree_ch, threads);
      });
    });
    // return: scatter into the caller's target order
    timed(&t->ret, [&] {
      const std::size_t all = std::size_t(ch_.nd) * nt;
#pragma omp parallel for num_threads(threads) schedule(static)
      for (std::size_t k = 0; k < all; ++k) {
        const std::size_t d = k / nt, i = k - d * nt;
        const std::size_t to = d * nt + std::size_t(p.tgt_index[i]);
        o.phi[to] = phi_[k];
        if (p.field) {
          o.ex[to] = ex_[k];
          o.ey[to] = ey_[k];
        }
        if (p.hessian) {
          o.hxx[to] = hxx_[k];
          o.hxy[to] = hxy_[k];
        }
      }
    });
  }

  void gather_channel(const double* caller, int c, int threads,
                      std::vector<const double*>* tree_ch) {
    const NearFieldProblem& p = problem();
    double* to = w_.data() + std::size_t(c) * p.n_sources;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t j = 0; j < p.n_sources; ++j) to[j] = caller[p.src_index[j]];
    (*tree_ch)[std::size_t(c)] = to;
  }

  template <int kOrder, bool kCharge, bool kDipole>
  void sums(const std::vector<const double*>& tree_ch, int threads) {
    const NearFieldProblem& p = problem();
    const NearField& near = *p.near;
    const std::size_t nt = p.n_targets;
    const Channels ch = ch_;
    // One density of charges without the Hessian: the fused kernel (the terms are shared by no
    // other density).
    const bool kFused = ch.nd == 1 && kCharge && !kDipole && kOrder <= kField;
    const auto fused = wide_kernels().near_charges;
#pragma omp parallel num_threads(threads)
    {
      Gathered g;
      BlockTerms terms;
      std::vector<PairSums> acc(std::size_t(ch.nd));
#pragma omp for schedule(dynamic, 64)
      for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(near.leaves()); ++b) {
        g.gather(p, ch, tree_ch, std::size_t(b), kFused ? kWideLanes : kBlock);
        for (std::int64_t i = near.leaf_tgt[b]; i < near.leaf_tgt[b + 1]; ++i) {
          std::fill(acc.begin(), acc.end(), PairSums{});
          bool tiny = false;
          if (kFused) {
            // One density of charges, potential (and field): the fused kernel, nothing stored.
            double sums[3] = {0, 0, 0};
            tiny = !fused(int(g.n), g.x.data(), g.y.data(), g.channel(0), p.tx[i], p.ty[i],
                          kOrder == kField, sums);
            acc[0].phi = sums[0];
            acc[0].ex = sums[1];
            acc[0].ey = sums[2];
          }
          for (std::size_t j0 = 0; j0 < g.n && !tiny && !kFused; j0 += kBlock) {
            tiny = !block_terms<kOrder, kCharge, kDipole>(g, j0, p.tx[i], p.ty[i], &terms);
            if (tiny) break;
            for (int d = 0; d < ch.nd; ++d) {
              const double* q = kCharge ? g.channel(ch.q(d)) + j0 : nullptr;
              const double* mx = kDipole ? g.channel(ch.mx(d)) + j0 : nullptr;
              const double* my = kDipole ? g.channel(ch.my(d)) + j0 : nullptr;
              block_sums<kOrder, kCharge, kDipole>(terms, q, mx, my, &acc[std::size_t(d)]);
            }
          }
          if (tiny) scalar_sums<kOrder, kCharge, kDipole>(g, ch, p.tx[i], p.ty[i], &acc);
          for (int d = 0; d < ch.nd; ++d) {
            const std::size_t k = std::size_t(d) * nt + std::size_t(i);
            const PairSums& a = acc[std::size_t(d)];
            phi_[k] = a.phi;
            if (kOrder >= kField && p.field) {
              ex_[k] = a.ex;
              ey_[k] = a.ey;
            }
            if (kOrder >= kHessian) {
              hxx_[k] = a.hxx;
              hxy_[k] = a.hxy;
            }
          }
        }
      }
    }
  }

  // A target with a pair closer than about 1.5e-154: every pair through pair.hpp's scaled path.
  template <int kOrder, bool kCharge, bool kDipole>
  static void scalar_sums(const Gathered& g, const Channels& ch, double tx, double ty,
                          std::vector<PairSums>* acc) {
    std::fill(acc->begin(), acc->end(), PairSums{});
    for (int d = 0; d < ch.nd; ++d) {
      const double* q = kCharge ? g.channel(ch.q(d)) : nullptr;
      const double* mx = kDipole ? g.channel(ch.mx(d)) : nullptr;
      const double* my = kDipole ? g.channel(ch.my(d)) : nullptr;
      for (std::size_t j = 0; j < g.n; ++j)
        accumulate_pair<kOrder, kCharge, kDipole>(tx, ty, g.x[j], g.y[j], kCharge ? q[j] : 0.0,
                                                  kDipole ? mx[j] : 0.0, kDipole ? my[j] : 0.0,
                                                  &(*acc)[std::size_t(d)]);
    }
  }

  Channels ch_;
  std::vector<double> w_;                          // channels, tree order
  std::vector<double> phi_, ex_, ey_, hxx_, hxy_;  // nd x targets, tree order
};

}  // namespace

std::unique_ptr<NearFieldBackend> make_cpu_backend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace mlfma2d
