#include "solver/plan.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>

namespace mlfma2d {

int m2l_offset_index(int dx, int dy) {
  // Row-major over the 7x7 square [-3,3]^2 with the 3x3 centre (the near field) left out.
  static const auto table = [] {
    std::array<int, 49> t{};
    int next = 0;
    for (int j = -3; j <= 3; ++j)
      for (int i = -3; i <= 3; ++i)
        t[(j + 3) * 7 + (i + 3)] = (std::abs(i) <= 1 && std::abs(j) <= 1) ? -1 : next++;
    return t;
  }();
  if (dx < -3 || dx > 3 || dy < -3 || dy > 3) return -1;
  return table[(dy + 3) * 7 + (dx + 3)];
}

std::array<int, 2> m2l_offset(int index) {
  for (int j = -3; j <= 3; ++j)
    for (int i = -3; i <= 3; ++i)
      if (m2l_offset_index(i, j) == index) return {i, j};
  return {0, 0};
}

namespace {

// Colleagues of every box of one level: the box itself and its up to 8 adjacent boxes at the
// same level (stored boxes only), in Morton order; unused slots are -1.
using Colleagues = std::vector<std::array<std::int32_t, 9>>;

// Walks level l top-down from the colleagues of level l-1: the colleagues of b and its
// interaction list are exactly the children of its parent's colleagues -- adjacent ones are
// colleagues, the others (at most 27) the interaction list. No searching is needed.
// Interaction pairs (b with targets, child with sources) go to per-chunk buckets per offset,
// concatenated in chunk order: deterministic for a thread count.
void walk_level(const Tree& tree, int l, const Colleagues& up_coll, int threads,
                Colleagues* coll, M2LLevel* m2l) {
  const Level& lv = tree.level[l];
  const Level& up = tree.level[l - 1];
  const int chunks = std::max(1, threads > 0 ? threads : omp_get_max_threads());
  const bool lists = m2l != nullptr;
  std::vector<std::vector<std::vector<std::int32_t>>> tgt(
      lists ? chunks : 0, std::vector<std::vector<std::int32_t>>(kM2LOffsets)),
      src = tgt;
  const std::size_t nb = lv.size();
  coll->assign(nb, {});
#pragma omp parallel for num_threads(chunks) schedule(static, 1)
  for (int c = 0; c < chunks; ++c) {
    for (std::size_t b = nb * c / chunks; b < nb * (c + 1) / chunks; ++b) {
      const BoxCoord bc = morton_decode(lv.key[b]);
      auto& mine = (*coll)[b];
      mine.fill(-1);
      int n = 0;
      for (std::int32_t q : up_coll[lv.parent[b]]) {
        if (q < 0) break;
        for (std::int32_t k = up.child_begin[q]; k < up.child_begin[q + 1]; ++k) {
          const BoxCoord kc = morton_decode(lv.key[k]);
          const int ox = int(kc.ix) - int(bc.ix), oy = int(kc.iy) - int(bc.iy);
          const int o = m2l_offset_index(ox, oy);
          if (o < 0) {
            mine[n++] = k;  // adjacent (or b itself): near field
          } else if (lists && lv.has_targets(b) && lv.has_sources(k)) {
            tgt[c][o].push_back(std::int32_t(b));
            src[c][o].push_back(k);
          }
        }
      }
      std::sort(mine.begin(), mine.begin() + n);  // Morton order: reads sweep forward
    }
  }
  if (!lists) return;
  m2l->begin.assign(kM2LOffsets + 1, 0);
  for (int o = 0; o < kM2LOffsets; ++o) {
    std::int64_t n = 0;
    for (int c = 0; c < chunks; ++c) n += std::int64_t(tgt[c][o].size());
    m2l->begin[o + 1] = m2l->begin[o] + n;
  }
  m2l->tgt.resize(m2l->begin[kM2LOffsets]);
  m2l->src.resize(m2l->begin[kM2LOffsets]);
  for (int o = 0; o < kM2LOffsets; ++o) {
    std::int64_t at = m2l->begin[o];
    for (int c = 0; c < chunks; ++c) {
      std::copy(tgt[c][o].begin(), tgt[c][o].end(), m2l->tgt.begin() + at);
      std::copy(src[c][o].begin(), src[c][o].end(), m2l->src.begin() + at);
      at += std::int64_t(tgt[c][o].size());
    }
  }
}

// The E1 lists: for each leaf with targets, its colleagues that hold sources.
void build_near(const Tree& tree, const Colleagues& coll, int threads, Plan* plan) {
  const Level& leaf = tree.leaves();
  const std::size_t nb = leaf.size();
  std::vector<std::int64_t> counts(nb + 1, 0);
  std::uint64_t pairs = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : pairs)
  for (std::size_t b = 0; b < nb; ++b) {
    if (!leaf.has_targets(b)) continue;
    std::int64_t n = 0, sources = 0;
    for (std::int32_t k : coll[b]) {
      if (k < 0) break;
      if (!leaf.has_sources(k)) continue;
      ++n;
      sources += leaf.src_end[k] - leaf.src_begin[k];
    }
    counts[b + 1] = n;
    pairs += std::uint64_t(sources) * std::uint64_t(leaf.tgt_end[b] - leaf.tgt_begin[b]);
  }
  for (std::size_t b = 0; b < nb; ++b) counts[b + 1] += counts[b];
  plan->near_begin = counts;
  plan->near_box.resize(counts[nb]);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t b = 0; b < nb; ++b) {
    if (!leaf.has_targets(b)) continue;
    std::int64_t at = counts[b];
    for (std::int32_t k : coll[b]) {
      if (k < 0) break;
      if (leaf.has_sources(k)) plan->near_box[at++] = k;
    }
  }
  plan->near_pairs = pairs;
}

}  // namespace

Plan build_plan(const Tree& tree, int threads) {
  Plan plan;
  plan.m2l.resize(tree.levels + 1);
  Colleagues up(1), here;
  up[0].fill(-1);
  up[0][0] = 0;  // the root is its own only colleague
  for (int l = 2; l <= tree.levels; ++l) {
    walk_level(tree, l, up, threads, &here, l >= 3 ? &plan.m2l[l] : nullptr);
    plan.m2l_pairs += plan.m2l[l].tgt.size();
    up.swap(here);
  }
  build_near(tree, up, threads, &plan);
  return plan;
}

}  // namespace mlfma2d
