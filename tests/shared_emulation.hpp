#pragma once
// The 'shared' back end's kernel walked on the host (tests/test_fast_layout.cpp,
// tests/test_mutual_layout.cpp): the layout block by block, staged as the kernel stages it,
// each thread's body (shared.hpp, cuda/common/densities.hpp) called as the kernel calls it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernel/pair.hpp"
#include "nearfield/cuda/common/backend_util.hpp"
#include "nearfield/cuda/common/densities.hpp"
#include "nearfield/cuda/shared/shared.hpp"
#include "tests/near_field_geometry.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d::testing {

/// The strengths of s in tree order, each kind nd arrays of n_sources (density d at d * ns).
struct TreeStrengths {
  std::vector<double> q, mx, my;
  TreeStrengths(const Geometry& g, const Strengths& s, int nd) {
    const std::size_t ns = g.tree.n_sources();
    auto gather = [&](const std::vector<double>& caller, std::vector<double>* tree) {
      if (caller.empty()) return;
      tree->resize(caller.size());
      for (int d = 0; d < nd; ++d)
        cuda::gather_tree_order(g.problem, caller.data() + d * ns, tree->data() + d * ns);
    };
    gather(s.q, &q);
    gather(s.mx, &mx);
    gather(s.my, &my);
  }
};

/// The outputs of s moved on to density `first` (NearFieldOut's arrays; null where not asked).
inline cuda::NearFieldOut outputs_from(DensitySums* s, std::size_t first) {
  auto at = [&](std::vector<double>& v) { return v.empty() ? nullptr : v.data() + first; };
  return {at(s->phi), at(s->ex), at(s->ey), at(s->hxx), at(s->hxy)};
}

/// One pass of the shared kernel on the host: block by block, the union staged as the kernel
/// stages it (x, y, then the batch's strengths, channel d * per + k at w[c * tile + e]), each
/// thread's body called as the kernel calls it, dense groups in tiles of `tile` (the kernel's
/// kTile); the sums stored by the kernel's store_sums.
template <int kOrder, bool kCharge, bool kDipole, int kNd>
void emulate_pass(const Geometry& g, const cuda::SharedLayout& l, const TreeStrengths& w,
                  const cuda::DensityBatch& b, int tile, DensitySums* out) {
  constexpr int kPer = cuda::channels_per_density(kCharge, kDipole);
  const Tree& tree = g.tree;
  const std::size_t ns = tree.n_sources(), nt = tree.n_targets();
  ASSERT_LE(l.tile, tile);
  std::vector<double> sx(tile), sy(tile), sw(std::size_t(kNd * kPer * tile), NAN);
  // The pass's strengths from its first density on, as the back end launches it.
  auto from = [&](const std::vector<double>& v) {
    return v.empty() ? nullptr : v.data() + std::size_t(b.first) * ns;
  };
  const cuda::SharedPass pass{from(w.q),        from(w.mx),       from(w.my),
                              std::int64_t(ns), std::int64_t(nt), b.count};
  auto stage = [&](std::int64_t ub, std::int64_t first, std::int64_t count) {
    for (std::int64_t e = 0; e < count; ++e) {
      const std::int32_t j = l.union_src[ub + first + e];
      sx[e] = tree.sx[j];
      sy[e] = tree.sy[j];
      cuda::stage_strengths<kCharge, kDipole, kNd>(pass, j, sw.data(), tile, int(e));
    }
  };
  const cuda::Staged staged{sx.data(), sy.data(), sw.data(), tile, staged_half_log_table()};
  const cuda::NearFieldOut to = outputs_from(out, std::size_t(b.first) * nt);
  auto store = [&](std::int64_t slot, const PairSums* acc) {
    const std::int64_t i = tree.tgt_index()[l.slot_tgt[slot]];
    EXPECT_TRUE(std::isnan(to.phi[i])) << "target " << i << " written twice";
    cuda::store_sums<kOrder, kNd>(acc, to, std::int64_t(nt), i, b.count);
  };
  for (std::int64_t g_ = 0; g_ < l.groups(); ++g_) {
    const std::int64_t sb = l.group_slot[g_], se = l.group_slot[g_ + 1];
    const std::int64_t ub = l.union_begin[g_], u = l.union_end[g_] - ub;
    EXPECT_LE(se - sb, l.block);  // one thread per slot
    if (!l.group_dense[g_]) {
      EXPECT_LE(u, l.tile);
      stage(ub, 0, u);
      for (std::int64_t slot = sb; slot < se; ++slot) {
        const std::int32_t i = l.slot_tgt[slot], leaf = l.slot_leaf[slot];
        PairSums acc[kNd];
        cuda::segment_sum<kOrder, kCharge, kDipole, kNd>(staged, tree.tx()[i], tree.ty()[i],
                                                         l.seg.data() + 2 * l.leaf_seg[leaf],
                                                         l.leaf_n[leaf], b.count, acc);
        store(slot, acc);
      }
      continue;
    }
    EXPECT_EQ(u, l.leaf_n[l.slot_leaf[sb]]);  // a dense group's union is its leaf's near list
    EXPECT_EQ(l.slot_leaf[sb], l.slot_leaf[se - 1]);
    for (std::int64_t slot = sb; slot < se; ++slot) {
      const std::int32_t i = l.slot_tgt[slot];
      PairSums acc[kNd];
      for (std::int64_t t0 = 0; t0 < u; t0 += tile) {
        const std::int64_t n = std::min<std::int64_t>(tile, u - t0);
        stage(ub, t0, n);
        cuda::dense_sum<kOrder, kCharge, kDipole, kNd>(staged, tree.tx()[i], tree.ty()[i],
                                                       std::int32_t(n), b.count, acc);
      }
      store(slot, acc);
    }
  }
}

/// The shared back end's evaluation on the host: pass by pass as its pipeline launches them,
/// each in dense tiles of the kernel's tile, or of the layout's (`kernel_tiles` false: a layout
/// built for a tiny tile).
inline DensitySums emulate_shared(const Geometry& g, const cuda::SharedLayout& l,
                                  const DensityCase& c, const Strengths& s,
                                  bool kernel_tiles = true) {
  const TreeStrengths w(g, s, c.nd);
  DensitySums out(std::size_t(c.nd) * g.tree.n_targets(), c);
  const int order = c.hessian ? kHessian : c.field ? kField : kPotential;
  const int per = cuda::channels_per_density(c.charges, c.dipoles);
  for (const cuda::DensityBatch& b : cuda::density_batches(c.nd)) {
    const int tile = kernel_tiles ? cuda::shared_tile(order, per, b.width) : l.tile;
    cuda::dispatch_batch(order, c.charges, c.dipoles, b.width, [&](auto o, auto q, auto d, auto n) {
      emulate_pass<decltype(o)::value, decltype(q)::value, decltype(d)::value, decltype(n)::value>(
          g, l, w, b, tile, &out);
    });
  }
  return out;
}

}  // namespace mlfma2d::testing
