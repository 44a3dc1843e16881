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

// Index of the box at (ix + dx, iy + dy) on a level with `side` boxes per side, or -1.
std::int32_t neighbour(const Level& lv, BoxCoord c, int dx, int dy, std::int64_t side) {
  const std::int64_t nx = std::int64_t(c.ix) + dx, ny = std::int64_t(c.iy) + dy;
  if (nx < 0 || ny < 0 || nx >= side || ny >= side) return -1;
  return lv.find(morton_encode(std::uint32_t(nx), std::uint32_t(ny)));
}

// The E1 lists: for leaf b with targets, its adjacent leaves (and itself) that hold sources.
void build_near(const Tree& tree, int threads, Plan* plan) {
  const Level& leaf = tree.leaves();
  const std::int64_t side = std::int64_t(1) << (tree.levels - 1);
  const std::size_t nb = leaf.size();
  std::vector<std::array<std::int32_t, 9>> lists(nb);
  std::vector<std::int64_t> counts(nb + 1, 0);
  std::uint64_t pairs = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : pairs)
  for (std::size_t b = 0; b < nb; ++b) {
    if (!leaf.has_targets(b)) continue;
    const BoxCoord c = morton_decode(leaf.key[b]);
    int n = 0;
    std::int64_t sources = 0;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const std::int32_t k = neighbour(leaf, c, dx, dy, side);
        if (k >= 0 && leaf.has_sources(k)) {
          lists[b][n++] = k;
          sources += leaf.src_end[k] - leaf.src_begin[k];
        }
      }
    std::sort(lists[b].begin(), lists[b].begin() + n);  // Morton order: reads sweep forward
    counts[b + 1] = n;
    pairs += std::uint64_t(sources) * std::uint64_t(leaf.tgt_end[b] - leaf.tgt_begin[b]);
  }
  for (std::size_t b = 0; b < nb; ++b) counts[b + 1] += counts[b];
  plan->near_begin = counts;
  plan->near_box.resize(counts[nb]);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t b = 0; b < nb; ++b)
    std::copy(lists[b].begin(), lists[b].begin() + (counts[b + 1] - counts[b]),
              plan->near_box.begin() + counts[b]);
  plan->near_pairs = pairs;
}

// Interaction list of box b at level l: children of the neighbours of b's parent that are not
// adjacent to b, kept only where b has targets and the child has sources.
void build_m2l_level(const Tree& tree, int l, int threads, M2LLevel* out) {
  const Level& lv = tree.level[l];
  const Level& up = tree.level[l - 1];
  const std::int64_t up_side = std::int64_t(1) << (l - 2);
  const int nthreads = std::max(1, threads > 0 ? threads : omp_get_max_threads());
  // Per-chunk buckets per offset, concatenated in chunk order: deterministic for a thread count.
  std::vector<std::vector<std::vector<std::int32_t>>> tgt(
      nthreads, std::vector<std::vector<std::int32_t>>(kM2LOffsets)),
      src = tgt;
  const std::size_t nb = lv.size();
#pragma omp parallel for num_threads(nthreads) schedule(static, 1)
  for (int c = 0; c < nthreads; ++c) {
    for (std::size_t b = nb * c / nthreads; b < nb * (c + 1) / nthreads; ++b) {
      if (!lv.has_targets(b)) continue;
      const BoxCoord bc = morton_decode(lv.key[b]);
      const std::int32_t p = lv.parent[b];
      const BoxCoord pc = morton_decode(up.key[p]);
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const std::int32_t q = neighbour(up, pc, dx, dy, up_side);
          if (q < 0) continue;
          for (std::int32_t k = up.child_begin[q]; k < up.child_begin[q + 1]; ++k) {
            if (!lv.has_sources(k)) continue;
            const BoxCoord kc = morton_decode(lv.key[k]);
            const int ox = int(kc.ix) - int(bc.ix), oy = int(kc.iy) - int(bc.iy);
            const int o = m2l_offset_index(ox, oy);
            if (o < 0) continue;  // adjacent: near field
            tgt[c][o].push_back(std::int32_t(b));
            src[c][o].push_back(k);
          }
        }
    }
  }
  out->begin.assign(kM2LOffsets + 1, 0);
  for (int o = 0; o < kM2LOffsets; ++o) {
    std::int64_t n = 0;
    for (int c = 0; c < nthreads; ++c) n += std::int64_t(tgt[c][o].size());
    out->begin[o + 1] = out->begin[o] + n;
  }
  out->tgt.resize(out->begin[kM2LOffsets]);
  out->src.resize(out->begin[kM2LOffsets]);
  for (int o = 0; o < kM2LOffsets; ++o) {
    std::int64_t at = out->begin[o];
    for (int c = 0; c < nthreads; ++c) {
      std::copy(tgt[c][o].begin(), tgt[c][o].end(), out->tgt.begin() + at);
      std::copy(src[c][o].begin(), src[c][o].end(), out->src.begin() + at);
      at += std::int64_t(tgt[c][o].size());
    }
  }
}

}  // namespace

Plan build_plan(const Tree& tree, int threads) {
  Plan plan;
  build_near(tree, threads, &plan);
  plan.m2l.resize(tree.levels + 1);
  for (int l = 3; l <= tree.levels; ++l) {
    build_m2l_level(tree, l, threads, &plan.m2l[l]);
    plan.m2l_pairs += plan.m2l[l].tgt.size();
  }
  return plan;
}

}  // namespace mlfma2d
