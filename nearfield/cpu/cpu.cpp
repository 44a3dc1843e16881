// The cpu back end, the reference for every other: near leaves in Morton order; for each target of
// a leaf, the sum over the sources of its near list (its source ranges), in tree order, for every
// density at once. A leaf's near sources are gathered into contiguous arrays; a target's sum runs
// over them 4 or 8 at a time (the wide kernels' near_batch, kernel/wide.hpp), each pair's terms
// (kernel/pair.hpp: 0.5 log r2 by the table of kernel/half_log.hpp, g = 1/d and its powers)
// computed once for a batch of up to 8 densities whose sums stay in registers. In
// self-evaluation with charges alone, adjacent leaves are summed both ways at once (MutualPlan,
// near_mutual; docs/math.md 6.5).
#include <algorithm>
#include <memory>
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

// Sources copied into contiguous arrays, padded with zero strengths to a multiple of the widest
// vector, so every vector is whole.
struct Gathered {
  std::vector<double> x, y, w;  // w: channel c of source j at c * cap + j
  std::size_t n = 0, cap = 0;

  /// Empty, with room for `sources` and the padding of two parts.
  void reset(const Channels& ch, std::int64_t sources) {
    const std::size_t need = std::size_t(sources) + 2 * kWideLanes;
    if (need > cap) {
      cap = need;
      x.resize(cap);
      y.resize(cap);
      w.resize(cap * std::size_t(ch.count()));
    }
    n = 0;
  }
  /// The sources of `count` ranges [range[2k], range[2k+1]) appended.
  void append(const NearFieldProblem& p, const Channels& ch,
              const std::vector<const double*>& tree_channels, const std::int64_t* range,
              std::int64_t count) {
    for (std::int64_t k = 0; k < count; ++k) {  // each array a run at a time
      const std::int64_t lo = range[2 * k], len = range[2 * k + 1] - lo;
      std::copy_n(p.sx + lo, len, x.data() + n);
      std::copy_n(p.sy + lo, len, y.data() + n);
      for (int c = 0; c < ch.count(); ++c)
        std::copy_n(tree_channels[std::size_t(c)] + lo, len, w.data() + c * cap + n);
      n += std::size_t(len);
    }
  }
  /// Padded to whole vectors: strength 0 at the first source's place contributes exactly 0, and
  /// is no nearer any target than that source is.
  void pad(const Channels& ch) {
    for (; n % kWideLanes; ++n) {
      x[n] = n ? x[0] : 0;
      y[n] = n ? y[0] : 0;
      for (int c = 0; c < ch.count(); ++c) w[c * cap + n] = 0;
    }
  }
  const double* channel(int c) const { return w.data() + std::size_t(c) * cap; }
};

// Self-evaluation with charges alone (potential, field, Hessian): two leaves each in the
// other's near list (the U lists: adjacency is mutual) are summed once for both directions, the
// pair's log and 1/d computed once (WideKernels::near_mutual; docs/math.md 6.5). Leaf b sums
// its mutual leaves c > b; the sums c's targets gain from b go to c's slot of `back`, which c
// adds after every leaf is done, in increasing b: the same order whatever the threads.
struct MutualPlan {
  /// Per near leaf b: the source ranges of its near list outside its mutual leaves (itself
  /// included: its own pairs skip the coincident one).
  NearField one;
  /// Per near leaf b: the target ranges of its mutual leaves c > b (ascending), 2 per leaf,
  /// whose targets are consecutive in `back` from slot[b] on (up_sources of them).
  std::vector<std::int64_t> up_begin, up_range, slot, up_sources;
  /// Per near leaf c: where its targets' sums from each mutual leaf b < c start in `back`,
  /// ascending b.
  std::vector<std::int64_t> down_begin, down_slot;
  std::int64_t slots = 0;  ///< all of `back`, per sum

  explicit MutualPlan(const NearField& near) {
    const std::int64_t leaves = std::int64_t(near.leaves());
    const std::vector<std::int64_t>& t = near.leaf_tgt;
    const MutualLeaves m = mutual_leaves(near);
    one = one_way_near_field(near, m);
    std::vector<std::int64_t> up_leaf, starts;  // each (b, c > b)'s c, where its sums start
    up_begin.push_back(0);
    for (std::int64_t b = 0; b < leaves; ++b) {
      slot.push_back(slots);
      for (std::int64_t k = m.begin[b]; k < m.begin[b + 1]; ++k) {
        const std::int64_t c = m.leaf[std::size_t(k)];
        if (c < b) continue;
        up_leaf.push_back(c);
        up_range.push_back(t[c]);
        up_range.push_back(t[c + 1]);
        starts.push_back(slots);
        slots += t[c + 1] - t[c];
      }
      up_sources.push_back(slots - slot.back());
      up_begin.push_back(std::int64_t(up_leaf.size()));
    }
    // The starts by the leaf whose targets they hold, each leaf's in ascending b.
    down_begin.assign(std::size_t(leaves) + 1, 0);
    for (std::int64_t c : up_leaf) ++down_begin[std::size_t(c) + 1];
    for (std::int64_t c = 0; c < leaves; ++c) down_begin[c + 1] += down_begin[c];
    down_slot.resize(starts.size());
    std::vector<std::int64_t> fill(down_begin.begin(), down_begin.end() - 1);
    for (std::size_t k = 0; k < starts.size(); ++k)
      down_slot[std::size_t(fill[std::size_t(up_leaf[k])]++)] = starts[k];
  }
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
    // (the field's sums as well where the pairs both ways sum the Hessian: near_mutual writes
    // every sum of its order)
    if (p.field || (p.hessian && mutual_applies(p))) {
      ex_.resize(out);
      ey_.resize(out);
    }
    if (p.hessian) {
      hxx_.resize(out);
      hxy_.resize(out);
    }
    mutual_.reset();
    back_.clear();
    if (mutual_applies(p)) {
      mutual_ = std::make_unique<MutualPlan>(*p.near);
      back_.resize(std::size_t(cpu_mutual_sums(p.shape(), true)) * std::size_t(mutual_->slots));
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
      if (mutual_) add_mutual_slots(threads);
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

  static bool mutual_applies(const NearFieldProblem& p) {
    return cpu_mutual_sums(p.shape(), p.self()) > 0;
  }

  void gather_channel(const double* caller, int c, int threads,
                      std::vector<const double*>* tree_ch) {
    const NearFieldProblem& p = problem();
    double* to = w_.data() + std::size_t(c) * p.n_sources;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t j = 0; j < p.n_sources; ++j) to[j] = caller[p.src_index[j]];
    (*tree_ch)[std::size_t(c)] = to;
  }

  // The densities in batches of the widest the order allows: 8, 4, 2, 1 (a remainder of 3 runs
  // as 2 + 1).
  static std::vector<int> batches(int nd, int order) {
    std::vector<int> out;
    for (int left = nd; left > 0;) {
      int b = kWideBatch[order];
      while (b > left) b /= 2;
      out.push_back(b);
      left -= b;
    }
    return out;
  }

  template <int kOrder, bool kCharge, bool kDipole>
  void sums(const std::vector<const double*>& tree_ch, int threads) {
    const NearFieldProblem& p = problem();
    const NearField& near = *p.near;
    const std::size_t nt = p.n_targets;
    const Channels ch = ch_;
    const auto near_batch = wide_kernels().near_batch;
    const auto near_mutual = wide_kernels().near_mutual;
    const std::vector<int> batch = batches(ch.nd, kOrder);
    constexpr bool kMutual = kCharge && !kDipole;
    constexpr int kSums = kPairSums[kOrder];
    const MutualPlan* mu = kMutual ? mutual_.get() : nullptr;
    const std::size_t slots = mu ? std::size_t(mu->slots) : 0;
#pragma omp parallel num_threads(threads)
    {
      Gathered g;
      std::vector<PairSums> acc(std::size_t(ch.nd));
      std::vector<double> back;
      double res[5 * 8];
      const double *q[8], *mx[8], *my[8], *qt[8];
      double *to[5 * 8], *out[5 * 8];  // kSums x batch <= 3 x 8, 5 x 2
#pragma omp for schedule(dynamic, 64)
      for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(near.leaves()); ++b) {
        // The near list; or its one-sided part, then the mutual leaves after b from `from` on.
        int from = 0;
        std::size_t ups = 0;
        if (mu) {
          ups = std::size_t(mu->up_sources[b]);
          const NearField& one = mu->one;
          g.reset(ch, one.sources[b] + mu->up_sources[b]);
          g.append(p, ch, tree_ch, one.range.data() + 2 * one.range_begin[b],
                   one.range_begin[b + 1] - one.range_begin[b]);
          g.pad(ch);
          from = int(g.n);
          g.append(p, ch, tree_ch, mu->up_range.data() + 2 * mu->up_begin[b],
                   mu->up_begin[b + 1] - mu->up_begin[b]);
          g.pad(ch);
          back.assign(std::size_t(ch.nd * kSums) * (g.n - from), 0.0);
        } else {
          g.reset(ch, near.sources[b]);
          g.append(p, ch, tree_ch, near.range.data() + 2 * near.range_begin[b],
                   near.range_begin[b + 1] - near.range_begin[b]);
          g.pad(ch);
        }
        const std::size_t width = g.n - std::size_t(from);  // back's length per sum
        const std::int64_t i0 = near.leaf_tgt[b], m = near.leaf_tgt[b + 1] - i0;
        bool tiny = false;
        if (mu) {
          int d0 = 0;
          for (int nb : batch) {
            for (int k = 0; k < nb; ++k) {
              q[k] = g.channel(ch.q(d0 + k));
              qt[k] = tree_ch[std::size_t(ch.q(d0 + k))] + i0;
              double* o[5] = {phi_.data(), ex_.data(), ey_.data(), hxx_.data(), hxy_.data()};
              for (int s = 0; s < kSums; ++s) {
                to[kSums * k + s] = back.data() + std::size_t((d0 + k) * kSums + s) * width;
                out[kSums * k + s] = o[s] + std::size_t(d0 + k) * nt + std::size_t(i0);
              }
            }
            tiny = tiny || !near_mutual(int(m), p.tx + i0, p.ty + i0, qt, int(g.n), g.x.data(),
                                        g.y.data(), from, nb, kOrder, q, to, out);
            d0 += nb;
          }
        }
        if (!mu) {  // each pair one way, target by target
          for (std::int64_t i = i0; i < i0 + m; ++i) {
            int d0 = 0;
            for (int nb : batch) {
              for (int k = 0; k < nb; ++k) {
                q[k] = kCharge ? g.channel(ch.q(d0 + k)) : nullptr;
                mx[k] = kDipole ? g.channel(ch.mx(d0 + k)) : nullptr;
                my[k] = kDipole ? g.channel(ch.my(d0 + k)) : nullptr;
              }
              tiny = !near_batch(int(g.n), g.x.data(), g.y.data(), nb, kOrder,
                                 kCharge ? q : nullptr, kDipole ? mx : nullptr,
                                 kDipole ? my : nullptr, p.tx[i], p.ty[i], res);
              if (tiny) break;
              for (int k = 0; k < nb; ++k)
                acc[std::size_t(d0 + k)] = {res[5 * k], res[5 * k + 1], res[5 * k + 2],
                                            res[5 * k + 3], res[5 * k + 4]};
              d0 += nb;
            }
            if (tiny) scalar_sums<kOrder, kCharge, kDipole>(g, ch, p.tx[i], p.ty[i], &acc);
            store(i, acc);
          }
          continue;
        }
        if (tiny) both_ways_again<kOrder>(g, tree_ch, i0, m, from, &acc, &back);
        for (int s = 0; s < ch.nd * kSums; ++s)
          std::copy_n(back.data() + std::size_t(s) * width, ups,
                      back_.data() + std::size_t(s) * slots + std::size_t(mu->slot[b]));
      }
    }
  }

  // A leaf of the mutual path with a pair too close for the wide kernel: again through
  // pair.hpp, both ways (its targets' sums stored, the mutual sources' in `back`, kPairSums[kOrder]
  // rows of g.n - from each).
  template <int kOrder>
  void both_ways_again(const Gathered& g, const std::vector<const double*>& tree_ch,
                       std::int64_t i0, std::int64_t m, int from, std::vector<PairSums>* acc,
                       std::vector<double>* back) {
    const NearFieldProblem& p = problem();
    constexpr int kSums = kPairSums[kOrder];
    const std::size_t width = g.n - std::size_t(from);
    std::fill(back->begin(), back->end(), 0.0);
    for (std::int64_t i = i0; i < i0 + m; ++i) {
      scalar_sums<kOrder, true, false>(g, ch_, p.tx[i], p.ty[i], acc);
      store(i, *acc);
      for (int d = 0; d < ch_.nd; ++d)
        for (std::size_t j = std::size_t(from); j < g.n; ++j) {
          PairSums z;
          accumulate_pair<kOrder, true, false>(g.x[j], g.y[j], p.tx[i], p.ty[i],
                                               tree_ch[std::size_t(ch_.q(d))][i], 0, 0, &z);
          const double zj[5] = {z.phi, z.ex, z.ey, z.hxx, z.hxy};
          for (int s = 0; s < kSums; ++s)
            (*back)[std::size_t(d * kSums + s) * width + (j - from)] += zj[s];
        }
    }
  }

  // Target i's sums of every density into the tree-ordered outputs.
  void store(std::int64_t i, const std::vector<PairSums>& acc) {
    const NearFieldProblem& p = problem();
    const std::size_t nt = p.n_targets;
    for (int d = 0; d < ch_.nd; ++d) {
      const std::size_t k = std::size_t(d) * nt + std::size_t(i);
      const PairSums& a = acc[std::size_t(d)];
      phi_[k] = a.phi;
      if (p.field) {
        ex_[k] = a.ex;
        ey_[k] = a.ey;
      }
      if (p.hessian) {
        hxx_[k] = a.hxx;
        hxy_[k] = a.hxy;
      }
    }
  }

  // Each leaf's sums from its mutual leaves before it, from their slots, in increasing order of
  // those leaves.
  void add_mutual_slots(int threads) {
    const NearFieldProblem& p = problem();
    const NearField& near = *p.near;
    const MutualPlan& mu = *mutual_;
    const std::size_t nt = p.n_targets, slots = std::size_t(mu.slots);
    const int sums = kPairSums[p.order()];
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64)
    for (std::ptrdiff_t c = 0; c < std::ptrdiff_t(near.leaves()); ++c) {
      const std::int64_t i0 = near.leaf_tgt[c], m = near.leaf_tgt[c + 1] - i0;
      for (std::int64_t k = mu.down_begin[c]; k < mu.down_begin[c + 1]; ++k) {
        const std::size_t slot = std::size_t(mu.down_slot[k]);
        for (int d = 0; d < ch_.nd; ++d) {
          double* out[5] = {phi_.data(), ex_.data(), ey_.data(), hxx_.data(), hxy_.data()};
          for (int s = 0; s < sums; ++s) {
            const double* from = back_.data() + std::size_t(d * sums + s) * slots + slot;
            double* to = out[s] + std::size_t(d) * nt + std::size_t(i0);
            for (std::int64_t i = 0; i < m; ++i) to[i] += from[i];
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
  std::unique_ptr<MutualPlan> mutual_;             // pairs summed both ways, or null
  std::vector<double> back_;                       // its slots: sums x slots
  std::vector<double> w_;                          // channels, tree order
  std::vector<double> phi_, ex_, ey_, hxx_, hxy_;  // nd x targets, tree order
};

}  // namespace

int cpu_mutual_sums(const EvaluationShape& s, bool self) {
  // Pairs summed both ways (MutualPlan) where the targets are the sources and the sources are
  // charges alone, while the slots stay within 3 sums a target and mutual neighbour (about 4
  // neighbours' targets a target at CT 32, 6.7 at CT 16), or 5 for one density's Hessian: with
  // more densities the log is already shared by a batch, and the slots would grow with them.
  const int sums = s.densities * kPairSums[s.order()];
  const bool fits = sums <= 3 || (s.densities == 1 && s.order() == kHessian);
  return self && s.charges && !s.dipoles && fits ? sums : 0;
}

std::unique_ptr<NearFieldBackend> make_cpu_backend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace mlfma2d
