#include "solver/tree.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <sstream>

#include "mlfma2d/errors.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "solver/parallel_sort.hpp"

namespace mlfma2d {
namespace {

// Bits per coordinate of the deepest level's keys: level l has 2^(l-1) boxes per side.
constexpr int kDeepBits = kMaxLevels - 1;

// Smallest root box: its deepest boxes are 2^4 times the smallest normal double (about 4e-298).
const double kMinRootSize = std::ldexp(DBL_MIN, kMaxLevels + 3);

// Spread the bits of v to the even positions of a 64-bit word.
std::uint64_t spread_bits(std::uint32_t v) {
  std::uint64_t x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFull;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x << 2)) & 0x3333333333333333ull;
  x = (x | (x << 1)) & 0x5555555555555555ull;
  return x;
}

std::uint32_t compact_bits(std::uint64_t x) {
  x &= 0x5555555555555555ull;
  x = (x | (x >> 1)) & 0x3333333333333333ull;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFull;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFull;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFull;
  return std::uint32_t(x);
}

void check_finite(const std::vector<double>& x, const std::vector<double>& y, const char* what) {
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) {
      std::ostringstream m;
      m << what << " " << i << " has a non-finite coordinate (" << x[i] << ", " << y[i] << ")";
      throw InvalidInput(m.str());
    }
  }
}

// Deepest-level Morton keys of points, sorted; `order` gets the caller index of each.
void sorted_keys(const std::vector<double>& x, const std::vector<double>& y, double x0, double y0,
                 double size, int threads, std::vector<std::uint64_t>* keys,
                 std::vector<std::int64_t>* order) {
  const std::size_t n = x.size();
  const double cells = double(std::uint64_t(1) << kDeepBits);
  const std::uint32_t last = (std::uint32_t(1) << kDeepBits) - 1;
  keys->resize(n);
  order->resize(n);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    // floor((x - x0) / size * 2^29), clamped: the top and right edges belong to the last box.
    const double fx = std::floor((x[i] - x0) / size * cells);
    const double fy = std::floor((y[i] - y0) / size * cells);
    const std::uint32_t ix = fx < 0 ? 0 : (fx > last ? last : std::uint32_t(fx));
    const std::uint32_t iy = fy < 0 ? 0 : (fy > last ? last : std::uint32_t(fy));
    (*keys)[i] = morton_encode(ix, iy);
    (*order)[i] = std::int64_t(i);
  }
  sort_keys_with_index(keys, order, threads);
}

// Most points sharing one box at level l (keys sorted).
std::size_t max_per_box(const std::vector<std::uint64_t>& keys, int l) {
  const int shift = 2 * (kMaxLevels - l);
  std::size_t best = 0, run = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    run = (i > 0 && (keys[i] >> shift) == (keys[i - 1] >> shift)) ? run + 1 : 1;
    best = std::max(best, run);
  }
  return best;
}

}  // namespace

std::uint64_t morton_encode(std::uint32_t ix, std::uint32_t iy) {
  return spread_bits(ix) | (spread_bits(iy) << 1);
}

BoxCoord morton_decode(std::uint64_t key) { return {compact_bits(key), compact_bits(key >> 1)}; }

std::int32_t Level::find(std::uint64_t k) const {
  auto it = std::lower_bound(key.begin(), key.end(), k);
  return (it != key.end() && *it == k) ? std::int32_t(it - key.begin()) : -1;
}

void Tree::centre(int l, std::size_t b, double* cx, double* cy) const {
  const BoxCoord c = morton_decode(level[l].key[b]);
  const double s = box_size(l);
  *cx = x0 + (c.ix + 0.5) * s;
  *cy = y0 + (c.iy + 0.5) * s;
}

void Tree::centre_index(int l, std::size_t b, double* hx, double* hy) const {
  const BoxCoord c = morton_decode(level[l].key[b]);
  *hx = double(c.ix) + 0.5;
  *hy = double(c.iy) + 0.5;
}

Tree build_tree(const std::vector<double>& x, const std::vector<double>& y,
                const std::vector<double>& tx, const std::vector<double>& ty, int ct,
                int level_offset, std::string* warning, int threads) {
  if (ct < 1) throw InvalidInput("clustering threshold CT must be >= 1, got " + std::to_string(ct));
  if (x.size() != y.size())
    throw InvalidInput("source x and y have different lengths (" + std::to_string(x.size()) +
                       " and " + std::to_string(y.size()) + ")");
  if (tx.size() != ty.size())
    throw InvalidInput("target x and y have different lengths (" + std::to_string(tx.size()) +
                       " and " + std::to_string(ty.size()) + ")");
  if (x.empty()) throw InvalidInput("no sources: at least one source point is needed");
  check_finite(x, y, "source");
  check_finite(tx, ty, "target");

  Tree tree;
  tree.ct = ct;
  tree.self = tx.empty();
  const std::vector<double>& gx = tree.self ? x : tx;
  const std::vector<double>& gy = tree.self ? y : ty;

  // Square bounding box of sources and targets.
  double xmin = x[0], xmax = x[0], ymin = y[0], ymax = y[0];
  for (int pass = 0; pass < (tree.self ? 1 : 2); ++pass) {
    const std::vector<double>& px = pass ? gx : x;
    const std::vector<double>& py = pass ? gy : y;
    for (std::size_t i = 0; i < px.size(); ++i) {
      xmin = std::min(xmin, px[i]);
      xmax = std::max(xmax, px[i]);
      ymin = std::min(ymin, py[i]);
      ymax = std::max(ymax, py[i]);
    }
  }
  double size = std::max(xmax - xmin, ymax - ymin);
  // All points identical (or one point): any positive size works; keep it on the data's scale.
  if (!(size > 0)) size = std::max(std::abs(xmin), std::abs(ymin)) * 1e-6;
  if (!std::isfinite(size)) throw InvalidInput("the points' extent overflows a double");
  // The deepest boxes, size / 2^(kMaxLevels - 1), must be normal numbers, or 1/box and the scaled
  // expansions overflow (points around 1e-300, or identical points at 0): a floor on the root
  // box, far below any extent but a tiny one, which only makes the root box larger than needed.
  size = std::max(size, kMinRootSize);
  tree.x0 = xmin;
  tree.y0 = ymin;
  tree.size = size;

  std::vector<std::uint64_t> skeys, tkeys;
  sorted_keys(x, y, xmin, ymin, size, threads, &skeys, &tree.src_index);
  if (!tree.self) sorted_keys(gx, gy, xmin, ymin, size, threads, &tkeys, &tree.tgt_index);
  const std::vector<std::uint64_t>& tk = tree.self ? skeys : tkeys;

  // L starts at 3 and grows until no last-level box holds more than CT sources or targets.
  int L = 3;
  auto fullest = [&](int l) {
    return tree.self ? max_per_box(skeys, l) : std::max(max_per_box(skeys, l), max_per_box(tk, l));
  };
  while (L < kMaxLevels && fullest(L) > std::size_t(ct)) ++L;
  if (fullest(L) > std::size_t(ct)) {
    tree.capped = true;
    if (warning) {
      std::ostringstream m;
      m << "CT = " << ct << " cannot be met: " << fullest(L)
        << " points share one box at the deepest supported level; L capped at " << kMaxLevels;
      *warning = m.str();
    }
  }
  tree.levels_ct = L;
  L += level_offset;
  if (L < 1 || L > kMaxLevels) {
    std::ostringstream m;
    m << "level offset " << (level_offset > 0 ? "+" : "") << level_offset
      << " (--levels) puts the last level at L = " << L << " (CT fixed L = " << tree.levels_ct << "); L must be"
      << (L < 1 ? " >= 1 (level 1 is the root)" : " <= " + std::to_string(kMaxLevels));
    throw InvalidInput(m.str());
  }
  tree.levels = L;
  tree.level.resize(L + 1);

  // Tree-ordered coordinates.
  const std::size_t ns = x.size(), nt = gx.size();
  tree.sx.resize(ns);
  tree.sy.resize(ns);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < ns; ++i) {
    tree.sx[i] = x[tree.src_index[i]];
    tree.sy[i] = y[tree.src_index[i]];
  }
  if (tree.self) {
    tree.tgt_index = tree.src_index;
    tree.tx = tree.sx;
    tree.ty = tree.sy;
  } else {
    tree.tx.resize(nt);
    tree.ty.resize(nt);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < nt; ++i) {
      tree.tx[i] = gx[tree.tgt_index[i]];
      tree.ty[i] = gy[tree.tgt_index[i]];
    }
  }

  // Leaves: the union of source and target boxes, with both ranges (merge of sorted keys).
  {
    Level& leaf = tree.level[L];
    const int shift = 2 * (kMaxLevels - L);
    std::size_t i = 0, j = 0;
    while (i < ns || j < nt) {
      const std::uint64_t k = std::min(i < ns ? skeys[i] >> shift : ~0ull,
                                       j < nt ? tk[j] >> shift : ~0ull);
      leaf.key.push_back(k);
      leaf.src_begin.push_back(std::int64_t(i));
      while (i < ns && (skeys[i] >> shift) == k) ++i;
      leaf.src_end.push_back(std::int64_t(i));
      leaf.tgt_begin.push_back(std::int64_t(j));
      while (j < nt && (tk[j] >> shift) == k) ++j;
      leaf.tgt_end.push_back(std::int64_t(j));
      tree.t = std::max<std::size_t>(
          tree.t, std::max(leaf.src_end.back() - leaf.src_begin.back(),
                           leaf.tgt_end.back() - leaf.tgt_begin.back()));
    }
  }
  // Coarser levels: a parent's ranges span its first to its last child (ranges are contiguous
  // in Morton order, and empty ranges sit where their points would be).
  for (int l = L - 1; l >= 1; --l) {
    Level& fine = tree.level[l + 1];
    Level& coarse = tree.level[l];
    fine.parent.resize(fine.size());
    for (std::size_t c = 0; c < fine.size(); ++c) {
      const std::uint64_t k = fine.key[c] >> 2;
      if (coarse.key.empty() || coarse.key.back() != k) {
        coarse.key.push_back(k);
        coarse.src_begin.push_back(fine.src_begin[c]);
        coarse.tgt_begin.push_back(fine.tgt_begin[c]);
        coarse.src_end.push_back(fine.src_end[c]);
        coarse.tgt_end.push_back(fine.tgt_end[c]);
        coarse.child_begin.push_back(std::int32_t(c));
      } else {
        coarse.src_end.back() = fine.src_end[c];
        coarse.tgt_end.back() = fine.tgt_end[c];
      }
      fine.parent[c] = std::int32_t(coarse.key.size() - 1);
    }
    coarse.child_begin.push_back(std::int32_t(fine.size()));
  }
  tree.level[1].parent.assign(tree.level[1].size(), -1);

  const double npts = double(std::max(ns, nt));
  tree.mean_per_box = npts / std::pow(4.0, L - 1);
  return tree;
}

}  // namespace mlfma2d
