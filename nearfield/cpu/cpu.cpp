// The cpu back end, the reference for every other: near leaves in Morton order; for each target of
// a leaf, the sum over the sources of its near list (its source ranges), in tree order, for every
// density at once. A leaf's near sources are gathered into contiguous arrays; a target's sum runs
// over them 4 or 8 at a time (the wide kernels' near_batch, kernel/wide.hpp), each pair's terms
// (kernel/pair.hpp: log r2 through glibc's vector log, g = 1/d and its powers) computed once for a
// batch of up to 8 densities whose sums stay in registers.
#include <algorithm>
#include <vector>

#include "kernel/pair.hpp"
#include "kernel/wide.hpp"
#include "nearfield/backend.hpp"
#include "runtime/threads.hpp"
#include "runtime/timer.hpp"

namespace mlfma2d {
namespace {

// The strengths' channels per density: q, then mx, my.
struct Channels {
  int nd = 1, per = 1;  // densities; channels per density
  bool charges = true, dipoles = false;
  int q(int d) const { return d * per; }
  int mx(int d) const { return d * per + (charges ? 1 : 0); }
  int my(int d) const { return mx(d) + 1; }
  int count() const { return nd * per; }
};

// The sources of one leaf's near list copied into contiguous arrays, padded with zero strengths
// to a multiple of the widest vector, so every vector is whole.
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
    const auto near_batch = wide_kernels().near_batch;
    // The densities in batches of the widest the order allows: 8, 4, 2, 1 (a remainder of 3
    // runs as 2 + 1).
    std::vector<int> batches;
    for (int left = ch.nd; left > 0;) {
      int b = kWideBatch[kOrder];
      while (b > left) b /= 2;
      batches.push_back(b);
      left -= b;
    }
#pragma omp parallel num_threads(threads)
    {
      Gathered g;
      std::vector<PairSums> acc(std::size_t(ch.nd));
      double out[5 * 8];
      const double *q[8], *mx[8], *my[8];
#pragma omp for schedule(dynamic, 64)
      for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(near.leaves()); ++b) {
        g.gather(p, ch, tree_ch, std::size_t(b), kWideLanes);
        for (std::int64_t i = near.leaf_tgt[b]; i < near.leaf_tgt[b + 1]; ++i) {
          bool tiny = false;
          int d0 = 0;
          for (int batch : batches) {
            for (int k = 0; k < batch; ++k) {
              q[k] = kCharge ? g.channel(ch.q(d0 + k)) : nullptr;
              mx[k] = kDipole ? g.channel(ch.mx(d0 + k)) : nullptr;
              my[k] = kDipole ? g.channel(ch.my(d0 + k)) : nullptr;
            }
            tiny =
                !near_batch(int(g.n), g.x.data(), g.y.data(), batch, kOrder, kCharge ? q : nullptr,
                            kDipole ? mx : nullptr, kDipole ? my : nullptr, p.tx[i], p.ty[i], out);
            if (tiny) break;
            for (int k = 0; k < batch; ++k)
              acc[std::size_t(d0 + k)] = {out[5 * k], out[5 * k + 1], out[5 * k + 2],
                                          out[5 * k + 3], out[5 * k + 4]};
            d0 += batch;
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
