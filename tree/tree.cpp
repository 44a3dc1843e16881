#include "tree/tree.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <sstream>

#include "mlfma2d/errors.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "tree/parallel_sort.hpp"
#include "tree/threads.hpp"

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

// Points in Morton order of their deepest-level keys: keys, caller indices and coordinates.
KeyedPoints sorted_points(PointsRef pts, double x0, double y0, double size, int threads) {
  const double* x = pts.x;
  const double* y = pts.y;
  const std::int64_t n = std::int64_t(pts.n);
  const double cells = double(std::uint64_t(1) << kDeepBits);
  const std::uint32_t last = (std::uint32_t(1) << kDeepBits) - 1;
  Array<std::uint64_t> key(n);
#pragma omp parallel for num_threads(team_size(threads, n)) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    // floor((x - x0) / size * 2^29), clamped: the top and right edges belong to the last box.
    const double fx = std::floor((x[i] - x0) / size * cells);
    const double fy = std::floor((y[i] - y0) / size * cells);
    const std::uint32_t ix = fx < 0 ? 0 : (fx > last ? last : std::uint32_t(fx));
    const std::uint32_t iy = fy < 0 ? 0 : (fy > last ? last : std::uint32_t(fy));
    key[i] = morton_encode(ix, iy);
  }
  return sort_points(std::move(key), x, y, threads);
}

// Runs of two or more equal keys in sorted keys, as [begin, end) pairs. In parallel: each chunk
// reports the runs that start in it (a run starts at s when key[s] == key[s + 1] and s is 0 or
// key[s - 1] differs).
std::vector<std::int64_t> equal_key_runs(const Array<std::uint64_t>& key, int threads) {
  const std::int64_t n = std::int64_t(key.size());
  const int team = team_size(threads);
  std::vector<std::vector<std::int64_t>> found(team);
#pragma omp parallel for num_threads(team) schedule(static, 1)
  for (int c = 0; c < team; ++c) {
    const std::int64_t hi = n * (c + 1) / team;
    for (std::int64_t s = n * c / team; s < hi && s + 1 < n; ++s) {
      if (key[s] != key[s + 1] || (s > 0 && key[s - 1] == key[s])) continue;
      std::int64_t e = s + 2;
      while (e < n && key[e] == key[s]) ++e;
      found[c].push_back(s);
      found[c].push_back(e);
      s = e - 1;
    }
  }
  std::vector<std::int64_t> runs;
  for (const auto& f : found) runs.insert(runs.end(), f.begin(), f.end());
  return runs;
}

// The sorted deepest-level keys of the sources and of the targets (the same array when self).
struct Keys {
  const Array<std::uint64_t>& src;
  const Array<std::uint64_t>& tgt;
};

// First position in [lo, hi) of `keys` whose key at level l is >= k (keys sorted).
std::int64_t first_at_or_after(const Array<std::uint64_t>& keys, std::int64_t lo, std::int64_t hi,
                               int l, std::uint64_t k) {
  const int shift = 2 * (kMaxLevels - l);
  const std::uint64_t bound = k << shift;
  return std::lower_bound(keys.begin() + lo, keys.begin() + hi, bound) - keys.begin();
}

// Splits the boxes of level l for which split[b] is set into their non-empty children, which
// become level l + 1; sets level l's child_begin and level l + 1's parent. Children follow
// their parents' order, so level l + 1 is in Morton order. Parallel over boxes.
void split_level(const Keys& keys, int l, const std::vector<char>& split, int threads,
                 Level* parents, Level* children) {
  const std::int64_t nb = std::int64_t(parents->size());
  // Child q's ranges: [bound(q), bound(q + 1)) with the parent's range cut at the 3 inner keys.
  auto bounds = [&](std::int64_t b, const Array<std::uint64_t>& k, std::int64_t lo, std::int64_t hi,
                    std::int64_t* out) {
    out[0] = lo;
    for (std::uint64_t q = 1; q < 4; ++q)
      out[q] = first_at_or_after(k, out[q - 1], hi, l + 1, (parents->key[b] << 2) | q);
    out[4] = hi;
  };
  // Both point sets' child ranges of box b.
  auto quadrants = [&](std::int64_t b, std::int64_t* src, std::int64_t* tgt) {
    bounds(b, keys.src, parents->src_begin[b], parents->src_end[b], src);
    bounds(b, keys.tgt, parents->tgt_begin[b], parents->tgt_end[b], tgt);
  };
  std::vector<std::int32_t> count(nb + 1, 0);
#pragma omp parallel for num_threads(team_size(threads, nb)) schedule(dynamic, 256)
  for (std::int64_t b = 0; b < nb; ++b) {
    if (!split[b]) continue;
    std::int64_t s[5], t[5];
    quadrants(b, s, t);
    int n = 0;
    for (int q = 0; q < 4; ++q) n += (s[q + 1] > s[q] || t[q + 1] > t[q]) ? 1 : 0;
    count[b + 1] = n;
  }
  parents->child_begin.assign(nb + 1, 0);
  for (std::int64_t b = 0; b < nb; ++b)
    parents->child_begin[b + 1] = parents->child_begin[b] + count[b + 1];
  const std::size_t nc = std::size_t(parents->child_begin[nb]);
  Level& c = *children;
  c.key.resize(nc);
  c.src_begin.resize(nc);
  c.src_end.resize(nc);
  c.tgt_begin.resize(nc);
  c.tgt_end.resize(nc);
  c.parent.resize(nc);
#pragma omp parallel for num_threads(team_size(threads, nb)) schedule(dynamic, 256)
  for (std::int64_t b = 0; b < nb; ++b) {
    if (!split[b]) continue;
    std::int64_t s[5], t[5];
    quadrants(b, s, t);
    std::int32_t at = parents->child_begin[b];
    for (int q = 0; q < 4; ++q) {
      if (!(s[q + 1] > s[q] || t[q + 1] > t[q])) continue;
      c.key[at] = (parents->key[b] << 2) | std::uint64_t(q);
      c.src_begin[at] = s[q];
      c.src_end[at] = s[q + 1];
      c.tgt_begin[at] = t[q];
      c.tgt_end[at] = t[q + 1];
      c.parent[at] = std::int32_t(b);
      ++at;
    }
  }
}

std::int64_t points_in(const Level& lv, std::size_t b) {
  return std::max(lv.sources(b), lv.targets(b));
}

// Levels 1..: the root, then every box split while `split_box(level, l, b)` says so, down to
// kMaxLevels at most. `begin_level(level, l)` runs first on each level, the deepest included
// (serially: per-level state); `split_box` runs in parallel over the level's boxes and may write
// only box b's state.
template <class BeginLevel, class SplitBox>
std::vector<Level> grow(const Keys& keys, std::int64_t ns, std::int64_t nt, int threads,
                        BeginLevel&& begin_level, SplitBox&& split_box) {
  std::vector<Level> level(2);
  Level& root = level[1];
  root.key = {0};
  root.src_begin = {0};
  root.src_end = {ns};
  root.tgt_begin = {0};
  root.tgt_end = {nt};
  root.parent = {-1};
  for (int l = 1;; ++l) {
    const std::int64_t nb = std::int64_t(level[l].size());
    std::vector<char> split(nb, 0);
    bool any = false;
    begin_level(level, l);
    if (l < kMaxLevels) {
#pragma omp parallel for num_threads(team_size(threads, nb)) schedule(static) reduction(|| : any)
      for (std::int64_t b = 0; b < nb; ++b) {
        split[b] = split_box(level, l, b) ? 1 : 0;
        any = any || split[b];
      }
    }
    if (!any) {
      level[l].child_begin.assign(nb + 1, 0);
      break;
    }
    level.emplace_back();
    split_level(keys, l, split, threads, &level[l], &level[l + 1]);
  }
  return level;
}

// Keeps the boxes whose parent is kept and internal; `internal(l, b)` says which stay split.
// Children stay contiguous and in order, so indices are remapped level by level.
template <class Internal>
std::vector<Level> prune(const std::vector<Level>& in, Internal&& internal) {
  std::vector<Level> out(2);
  out[1] = in[1];
  std::vector<std::int32_t> map = {0};  // index in `out` of each box of `in` at this level, or -1
  for (int l = 1; l < int(in.size()); ++l) {
    const Level& src = in[l];
    Level& dst = out[l];
    const std::int64_t nb = std::int64_t(dst.size());
    dst.child_begin.assign(nb + 1, 0);
    if (l + 1 >= int(in.size())) break;
    Level next;
    std::vector<std::int32_t> next_map(in[l + 1].size(), -1);
    for (std::int64_t ob = 0; ob < std::int64_t(src.size()); ++ob) {
      const std::int32_t b = map[ob];
      if (b < 0) continue;
      dst.child_begin[b + 1] = dst.child_begin[b];
      if (!internal(l, ob)) continue;
      for (std::int32_t c = src.child_begin[ob]; c < src.child_begin[ob + 1]; ++c) {
        const Level& f = in[l + 1];
        next_map[c] = std::int32_t(next.key.size());
        next.key.push_back(f.key[c]);
        next.src_begin.push_back(f.src_begin[c]);
        next.src_end.push_back(f.src_end[c]);
        next.tgt_begin.push_back(f.tgt_begin[c]);
        next.tgt_end.push_back(f.tgt_end[c]);
        next.parent.push_back(b);
        ++dst.child_begin[b + 1];
      }
    }
    if (next.key.empty()) break;
    out.push_back(std::move(next));
    map.swap(next_map);
  }
  return out;
}

// The leaves of the tree in Morton order: each box's first leaf index is its parent's plus the
// leaves of its earlier siblings (bottom-up counts, then top-down offsets).
std::vector<BoxRef> morton_leaves(const std::vector<Level>& level, int threads) {
  const int L = int(level.size()) - 1;
  std::vector<std::vector<std::int64_t>> count(L + 1), first(L + 1);
  for (int l = L; l >= 1; --l) {
    const Level& lv = level[l];
    const std::int64_t nb = std::int64_t(lv.size());
    count[l].assign(nb, 0);
#pragma omp parallel for num_threads(team_size(threads, nb)) schedule(static)
    for (std::int64_t b = 0; b < nb; ++b) {
      if (lv.is_leaf(b)) {
        count[l][b] = 1;
      } else {
        std::int64_t n = 0;
        for (std::int32_t c = lv.child_begin[b]; c < lv.child_begin[b + 1]; ++c)
          n += count[l + 1][c];
        count[l][b] = n;
      }
    }
  }
  std::vector<BoxRef> leaves(static_cast<std::size_t>(count[1][0]));
  first[1] = {0};
  for (int l = 1; l <= L; ++l) {
    const Level& lv = level[l];
    const std::int64_t nb = std::int64_t(lv.size());
    if (l < L) first[l + 1].assign(level[l + 1].size(), 0);
#pragma omp parallel for num_threads(team_size(threads, nb)) schedule(static)
    for (std::int64_t b = 0; b < nb; ++b) {
      std::int64_t at = first[l][b];
      if (lv.is_leaf(b)) {
        leaves[at] = BoxRef{l, std::int32_t(b)};
        continue;
      }
      for (std::int32_t c = lv.child_begin[b]; c < lv.child_begin[b + 1]; ++c) {
        first[l + 1][c] = at;
        at += count[l + 1][c];
      }
    }
  }
  return leaves;
}

std::string cap_warning(int ct, std::int64_t most) {
  std::ostringstream m;
  m << "CT = " << ct << " cannot be met: " << most
    << " points share one box at the deepest supported level; L capped at " << kMaxLevels;
  return m.str();
}

}  // namespace

std::uint64_t morton_encode(std::uint32_t ix, std::uint32_t iy) {
  return spread_bits(ix) | (spread_bits(iy) << 1);
}

BoxCoord morton_decode(std::uint64_t key) {
  return {compact_bits(key), compact_bits(key >> 1)};
}

const char* tree_kind_name(TreeKind kind) {
  return kind == TreeKind::Adaptive ? "adaptive" : "uniform";
}

TreeKind parse_tree_kind(const std::string& name) {
  if (name == "adaptive") return TreeKind::Adaptive;
  if (name == "uniform") return TreeKind::Uniform;
  throw InvalidInput("unknown tree '" + name + "'; valid: adaptive, uniform");
}

std::int32_t Level::find(std::uint64_t k) const {
  auto it = std::lower_bound(key.begin(), key.end(), k);
  return (it != key.end() && *it == k) ? std::int32_t(it - key.begin()) : -1;
}

std::size_t Tree::boxes() const {
  std::size_t n = 0;
  for (const Level& lv : level) n += lv.size();
  return n;
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

void check_points(const std::vector<double>& x, const std::vector<double>& y,
                  const std::vector<double>& tx, const std::vector<double>& ty) {
  if (x.size() != y.size())
    throw InvalidInput("source x and y have different lengths (" + std::to_string(x.size()) +
                       " and " + std::to_string(y.size()) + ")");
  if (tx.size() != ty.size())
    throw InvalidInput("target x and y have different lengths (" + std::to_string(tx.size()) +
                       " and " + std::to_string(ty.size()) + ")");
  if (x.empty()) throw InvalidInput("no sources: at least one source point is needed");
  for (int set = 0; set < 2; ++set) {
    const std::vector<double>& px = set ? tx : x;
    const std::vector<double>& py = set ? ty : y;
    // In parallel whether any is not finite; then the first such point, for the message.
    const std::int64_t n = std::int64_t(px.size());
    bool bad = false;
#pragma omp parallel for num_threads(team_size(0, n)) schedule(static) reduction(|| : bad)
    for (std::int64_t i = 0; i < n; ++i)
      bad = bad || !(std::isfinite(px[i]) && std::isfinite(py[i]));
    if (!bad) continue;
    for (std::size_t i = 0; i < px.size(); ++i) {
      if (std::isfinite(px[i]) && std::isfinite(py[i])) continue;
      std::ostringstream m;
      m << (set ? "target " : "source ") << i << " has a non-finite coordinate (" << px[i] << ", "
        << py[i] << ")";
      throw InvalidInput(m.str());
    }
  }
}

TreePoints sort_tree_points(const std::vector<double>& x, const std::vector<double>& y,
                            const std::vector<double>& tx, const std::vector<double>& ty,
                            int threads) {
  check_points(x, y, tx, ty);
  return sort_tree_points(PointsRef{x.data(), y.data(), x.size()},
                          PointsRef{tx.data(), ty.data(), tx.size()}, threads);
}

TreePoints sort_tree_points(PointsRef sources, PointsRef targets, int threads) {
  TreePoints pts;
  pts.self = targets.n == 0;
  const PointsRef g = pts.self ? sources : targets;

  // Square bounding box of sources and targets.
  double xmin = sources.x[0], xmax = sources.x[0], ymin = sources.y[0], ymax = sources.y[0];
  for (int pass = 0; pass < (pts.self ? 1 : 2); ++pass) {
    const PointsRef p = pass ? g : sources;
    const std::int64_t n = std::int64_t(p.n);
#pragma omp parallel for num_threads(team_size(threads, n)) schedule(static) \
    reduction(min                                                            \
              : xmin, ymin) reduction(max                                    \
                                      : xmax, ymax)
    for (std::int64_t i = 0; i < n; ++i) {
      xmin = std::min(xmin, p.x[i]);
      xmax = std::max(xmax, p.x[i]);
      ymin = std::min(ymin, p.y[i]);
      ymax = std::max(ymax, p.y[i]);
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
  pts.x0 = xmin;
  pts.y0 = ymin;
  pts.size = size;
  pts.sources = sorted_points(sources, xmin, ymin, size, threads);
  pts.shared_cells = equal_key_runs(pts.sources.key, threads);
  if (!pts.self) pts.targets = sorted_points(g, xmin, ymin, size, threads);
  return pts;
}

Tree grow_tree(const TreePoints& pts, int ct, int level_offset, TreeKind kind, std::string* warning,
               int threads) {
  if (ct < 1) throw InvalidInput("clustering threshold CT must be >= 1, got " + std::to_string(ct));
  Tree tree;
  tree.kind = kind;
  tree.ct = ct;
  tree.level_offset = level_offset;
  tree.self = pts.self;
  tree.x0 = pts.x0;
  tree.y0 = pts.y0;
  tree.size = pts.size;
  tree.shared_cells = pts.shared_cells;
  const Keys keys{pts.sources.key, pts.self ? pts.sources.key : pts.targets.key};
  const std::int64_t ns = std::int64_t(keys.src.size()), nt = std::int64_t(keys.tgt.size());

  // The tree CT asks for. Uniform: every box split until the first level >= 3 whose boxes all
  // hold at most CT points; adaptive: each box split while it holds more than CT.
  std::int64_t most_capped = 0;  // points in the fullest box that had to stay a leaf at the cap
  std::vector<Level> level;
  if (kind == TreeKind::Uniform) {
    int full_level = 0;  // the first level >= 3 with every box within CT
    level = grow(
        keys, ns, nt, threads,
        [&](const std::vector<Level>& lv, int l) {  // is this level within CT?
          if (full_level > 0 || l < 3) return;
          std::int64_t most = 0;
          const std::int64_t nb = std::int64_t(lv[l].size());
#pragma omp parallel for num_threads(team_size(threads, nb)) schedule(static) reduction(max : most)
          for (std::int64_t k = 0; k < nb; ++k) most = std::max(most, points_in(lv[l], k));
          if (most <= ct) full_level = l;
        },
        // Past L_ct only with a positive offset; a negative one cuts the levels afterwards.
        [&](const std::vector<Level>&, int l, std::int64_t) {
          return full_level == 0 || l < full_level + level_offset;
        });
    tree.levels_ct = full_level > 0 ? full_level : kMaxLevels;
  } else {
    // Split while a box holds more than CT (the CT tree, whose depth is levels_ct); below each
    // of its leaves, level_offset > 0 more levels ("stop": the level a CT leaf's subtree may
    // reach, inherited by its descendants; 0 while the CT rule still decides).
    const int extra = std::max(level_offset, 0);
    std::vector<std::vector<int>> stop(2, std::vector<int>(1, 0));
    int ct_depth = 1;
    level = grow(
        keys, ns, nt, threads,
        [&](const std::vector<Level>& lv, int l) {
          if (l == 1) return;
          const std::int64_t nb = std::int64_t(lv[l].size());
          stop.resize(l + 1);
          stop[l].resize(nb);
          bool ct_box = false;  // a box here whose ancestors the CT rule split: the CT tree
#pragma omp parallel for num_threads(team_size(threads, nb)) schedule(static) reduction(|| : ct_box)
          for (std::int64_t k = 0; k < nb; ++k) {
            stop[l][k] = stop[l - 1][lv[l].parent[k]];
            ct_box = ct_box || stop[l][k] == 0;
          }
          if (ct_box) ct_depth = l;
        },
        [&](const std::vector<Level>& lv, int l, std::int64_t b) {
          int& s = stop[l][b];
          if (s == 0 && points_in(lv[l], b) > ct) return true;
          if (s == 0) s = l + extra;  // a leaf of the CT tree
          return l < s;
        });
    tree.levels_ct = ct_depth;
  }
  // The cap: boxes at kMaxLevels that still hold more than CT points.
  {
    const Level& deepest = level.back();
    if (int(level.size()) - 1 == kMaxLevels) {
      for (std::size_t b = 0; b < deepest.size(); ++b)
        most_capped = std::max(most_capped, points_in(deepest, b));
      if (most_capped <= ct) most_capped = 0;
    }
  }
  if (most_capped > 0) {
    tree.capped = true;
    if (warning) *warning = cap_warning(ct, most_capped);
  }

  // The level offset: on both trees it moves the deepest level L fixed by CT.
  const int L_wanted = tree.levels_ct + level_offset;
  if (L_wanted < 1 || L_wanted > kMaxLevels) {
    std::ostringstream m;
    m << "level offset " << (level_offset > 0 ? "+" : "") << level_offset
      << " (--levels) puts the last level at L = " << L_wanted
      << " (CT fixed L = " << tree.levels_ct << "); L must be"
      << (L_wanted < 1 ? " >= 1 (level 1 is the root)" : " <= " + std::to_string(kMaxLevels));
    throw InvalidInput(m.str());
  }
  if (kind == TreeKind::Uniform) {
    const int L = L_wanted;
    if (L < int(level.size()) - 1) {
      level.resize(L + 1);
      level[L].child_begin.assign(level[L].size() + 1, 0);
    }
    // Grown past L_ct by the predicate above when level_offset > 0.
  } else if (level_offset < 0) {
    // Every leaf i levels coarser: a box stays split only while the deepest leaf below it is
    // more than i levels deeper (bottom-up depths). A new leaf then holds old leaves at most i
    // levels below it, and its deepest one exactly i (so on a full tree: the uniform tree's
    // L - i).
    const int L = int(level.size()) - 1;
    std::vector<std::vector<int>> deepest(L + 1);
    for (int l = L; l >= 1; --l) {
      const Level& lv = level[l];
      deepest[l].assign(lv.size(), l);
      for (std::size_t b = 0; b < lv.size(); ++b)
        for (std::int32_t c = lv.child_begin[b]; c < lv.child_begin[b + 1]; ++c)
          deepest[l][b] = std::max(deepest[l][b], deepest[l + 1][c]);
    }
    level = prune(level, [&](int l, std::int64_t b) { return deepest[l][b] + level_offset > l; });
  }

  const int L = int(level.size()) - 1;
  tree.levels = L;
  tree.level = std::move(level);
  tree.level[1].parent.assign(tree.level[1].size(), -1);
  tree.leaves = morton_leaves(tree.level, threads);
  for (const BoxRef& r : tree.leaves)
    tree.t = std::max<std::size_t>(tree.t, std::size_t(points_in(tree.level[r.level], r.box)));

  const double npts = double(std::max(ns, nt));
  tree.mean_per_box = npts / std::pow(4.0, L - 1);
  return tree;
}

void attach_points(Tree* tree, TreePoints&& pts) {
  if (!pts.self) {
    tree->separate_tgt_index = std::move(pts.targets.index);
    tree->separate_tx = std::move(pts.targets.x);
    tree->separate_ty = std::move(pts.targets.y);
  }
  tree->src_index = std::move(pts.sources.index);
  tree->sx = std::move(pts.sources.x);
  tree->sy = std::move(pts.sources.y);
}

Tree build_tree(const std::vector<double>& x, const std::vector<double>& y,
                const std::vector<double>& tx, const std::vector<double>& ty, int ct,
                int level_offset, std::string* warning, int threads, TreeKind kind) {
  if (ct < 1) throw InvalidInput("clustering threshold CT must be >= 1, got " + std::to_string(ct));
  TreePoints pts = sort_tree_points(x, y, tx, ty, threads);
  Tree tree = grow_tree(pts, ct, level_offset, kind, warning, threads);
  attach_points(&tree, std::move(pts));
  return tree;
}

}  // namespace mlfma2d
