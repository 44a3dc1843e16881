#include "tree/tree.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <sstream>

#include "mlfma2d/errors.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "runtime/parallel_sort.hpp"
#include "runtime/threads.hpp"

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

// Splits the boxes of level l for which split[b] is set into their non-empty children, which
// become level l + 1; sets level l's child_begin and level l + 1's parent. Children follow
// their parents' order, so level l + 1 is in Morton order. Parallel over boxes.
void split_level(const Keys& keys, int l, const std::vector<char>& split, int threads,
                 Level* parents, Level* children) {
  const std::int64_t nb = std::int64_t(parents->size());
  // Both point sets' child ranges of box b: [s[q], s[q + 1]) and [t[q], t[q + 1]).
  auto quadrants = [&](std::int64_t b, std::int64_t* src, std::int64_t* tgt) {
    quadrant_bounds(keys.src, parents->src_begin[b], parents->src_end[b], l, parents->key[b], src);
    quadrant_bounds(keys.tgt, parents->tgt_begin[b], parents->tgt_end[b], l, parents->key[b], tgt);
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

// The deepest level whose box holds both deepest-level keys a and b (level l's key is the top
// 2(l - 1) of the 2 kDeepBits bits): kMaxLevels for equal keys, 1 (the root) for keys that
// differ in their top bit.
int shared_level(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t x = a ^ b;
  if (x == 0) return kMaxLevels;
  const int differing = 64 - __builtin_clzll(x);  // the highest differing bit, plus one
  return (2 * kDeepBits - differing) / 2 + 1;
}

// Where boxes hold more than CT points, read off the sorted keys without building a level:
// depth[i] = shared_level(key[i], key[i + CT]), so a box of level l holds more than CT points
// exactly when some i with both i and i + CT in its range has depth[i] >= l (and every i in its
// range with i + CT in its range has depth[i] >= l). For sources and targets apart; a box's
// count is the larger of the two.
class Crowding {
 public:
  Crowding(const Keys& keys, int ct, bool self, int threads)
      : ct_(ct),
        src_(keys.src, ct, threads),
        tgt_(self ? Depths() : Depths(keys.tgt, ct, threads)),
        self_(self) {
    for (const Depths* d : {&src_, &tgt_})
      for (std::uint8_t m : d->block) deepest_ = std::max(deepest_, int(m));
  }
  /// The deepest level with a box of more than CT points (0: none, the root holds at most CT).
  int deepest() const { return deepest_; }
  /// The deepest level with a box of more than CT points inside box b of `lv` (b included), or
  /// 0 when b holds at most CT.
  int deepest_in(const Level& lv, std::size_t b) const {
    return std::max(src_.max(lv.src_begin[b], lv.src_end[b] - ct_),
                    self_ ? 0 : tgt_.max(lv.tgt_begin[b], lv.tgt_end[b] - ct_));
  }

 private:
  // depth[i] for i < n - CT, and its maximum over blocks of kBlock: a box's maximum reads its
  // blocks, not its points (the top levels' few boxes span every point).
  struct Depths {
    static constexpr std::int64_t kBlock = 1024;
    Array<std::uint8_t> depth, block;
    Depths() = default;
    Depths(const Array<std::uint64_t>& key, int ct, int threads) {
      const std::int64_t n = std::max<std::int64_t>(std::int64_t(key.size()) - ct, 0);
      depth.resize(std::size_t(n));
      block.resize(std::size_t((n + kBlock - 1) / kBlock));
      const std::int64_t blocks = std::int64_t(block.size());
#pragma omp parallel for num_threads(team_size(threads, n)) schedule(static)
      for (std::int64_t k = 0; k < blocks; ++k) {
        std::uint8_t most = 0;
        for (std::int64_t i = k * kBlock; i < std::min(n, (k + 1) * kBlock); ++i) {
          depth[i] = std::uint8_t(shared_level(key[i], key[i + ct]));
          most = std::max(most, depth[i]);
        }
        block[k] = most;
      }
    }
    // The maximum of depth[begin, end), 0 when empty.
    int max(std::int64_t begin, std::int64_t end) const {
      int most = 0;
      while (begin < end && begin % kBlock != 0) most = std::max(most, int(depth[begin++]));
      for (; begin + kBlock <= end; begin += kBlock)
        most = std::max(most, int(block[begin / kBlock]));
      for (; begin < end; ++begin) most = std::max(most, int(depth[begin]));
      return most;
    }
  };
  std::int64_t ct_;
  Depths src_, tgt_;
  bool self_;
  int deepest_ = 0;
};

// The most points sharing one deepest-level cell, from its runs of equal keys (equal_key_runs).
std::int64_t most_in_one_cell(const std::vector<std::int64_t>& runs) {
  std::int64_t most = 1;
  for (std::size_t r = 0; r < runs.size(); r += 2) most = std::max(most, runs[r + 1] - runs[r]);
  return most;
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

KeyedPoints sort_keyed_points(PointsRef pts, const RootBox& box, int threads) {
  const double* x = pts.x;
  const double* y = pts.y;
  const std::int64_t n = std::int64_t(pts.n);
  const double cells = double(std::uint64_t(1) << kDeepBits);
  const std::uint32_t last = (std::uint32_t(1) << kDeepBits) - 1;
  Array<std::uint64_t> key(n);
#pragma omp parallel for num_threads(team_size(threads, n)) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    // floor((x - x0) / size * 2^29), clamped: the top and right edges belong to the last box.
    const double fx = std::floor((x[i] - box.x0) / box.size * cells);
    const double fy = std::floor((y[i] - box.y0) / box.size * cells);
    const std::uint32_t ix = fx < 0 ? 0 : (fx > last ? last : std::uint32_t(fx));
    const std::uint32_t iy = fy < 0 ? 0 : (fy > last ? last : std::uint32_t(fy));
    key[i] = morton_encode(ix, iy);
  }
  return sort_points(std::move(key), x, y, threads);
}

void quadrant_bounds(const Array<std::uint64_t>& keys, std::int64_t lo, std::int64_t hi, int l,
                     std::uint64_t key, std::int64_t* out) {
  // Child q starts at the first key at or after its own, shifted to the deepest level.
  const int shift = 2 * (kMaxLevels - (l + 1));
  out[0] = lo;
  for (std::uint64_t q = 1; q < 4; ++q) {
    const std::uint64_t bound = ((key << 2) | q) << shift;
    out[q] = std::lower_bound(keys.begin() + out[q - 1], keys.begin() + hi, bound) - keys.begin();
  }
  out[4] = hi;
}

// The leaves in Morton order: each box's first leaf index is its parent's plus the
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

Bounds grow_bounds(Bounds b, PointsRef p, int threads) {
  double xmin = b.xmin, xmax = b.xmax, ymin = b.ymin, ymax = b.ymax;
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
  return Bounds{xmin, xmax, ymin, ymax};
}

RootBox root_box(double xmin, double xmax, double ymin, double ymax) {
  double size = std::max(xmax - xmin, ymax - ymin);
  // All points identical (or one point): any positive size works; keep it on the data's scale.
  if (!(size > 0)) size = std::max(std::abs(xmin), std::abs(ymin)) * 1e-6;
  if (!std::isfinite(size)) throw InvalidInput("the points' extent overflows a double");
  // The deepest boxes, size / 2^(kMaxLevels - 1), must be normal numbers, or 1/box and the scaled
  // expansions overflow (points around 1e-300, or identical points at 0): a floor on the root
  // box, far below any extent but a tiny one, which only makes the root box larger than needed.
  return RootBox{xmin, ymin, std::max(size, kMinRootSize)};
}

TreePoints sort_tree_points(PointsRef sources, PointsRef targets, int threads) {
  TreePoints pts;
  pts.self = targets.n == 0;
  const PointsRef g = pts.self ? sources : targets;

  // Square bounding box of sources and targets.
  Bounds b = grow_bounds(Bounds{}, sources, threads);
  if (!pts.self) b = grow_bounds(b, g, threads);
  const RootBox box = root_box(b.xmin, b.xmax, b.ymin, b.ymax);
  pts.x0 = box.x0;
  pts.y0 = box.y0;
  pts.size = box.size;
  pts.sources = sort_keyed_points(sources, box, threads);
  pts.shared_cells = equal_key_runs(pts.sources.key, threads);
  if (!pts.self) pts.targets = sort_keyed_points(g, box, threads);
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

  // The tree CT asks for, its depth levels_ct read off the keys first (Crowding); then the level
  // offset moves every leaf. Uniform: every box split down to L = levels_ct + offset, levels_ct
  // the first level >= 3 whose boxes all hold at most CT points. Adaptive: a box split while it
  // holds more than CT; with offset -i a box stays split only while the CT tree's deepest leaf
  // below it is more than i levels deeper (a new leaf holds CT leaves at most i levels below it,
  // and its deepest one exactly i: on a full tree, the uniform tree's L - i); with +i, i levels
  // more below each CT leaf. Nothing below the level a tree keeps is built.
  const Crowding crowd(keys, ct, pts.self, threads);
  // The CT tree splits no box of kMaxLevels: its deepest split is above.
  const int deepest_split = std::min(crowd.deepest(), kMaxLevels - 1);
  std::vector<Level> level;
  if (kind == TreeKind::Uniform) {
    tree.levels_ct = std::min(std::max(3, crowd.deepest() + 1), kMaxLevels);
    const int L = tree.levels_ct + level_offset;  // checked below
    level = grow(
        keys, ns, nt, threads, [](const std::vector<Level>&, int) {},
        [&](const std::vector<Level>&, int l, std::int64_t) { return l < L; });
  } else if (level_offset < 0) {
    tree.levels_ct = crowd.deepest() > 0 ? deepest_split + 1 : 1;
    level = grow(
        keys, ns, nt, threads, [](const std::vector<Level>&, int) {},
        [&](const std::vector<Level>& lv, int l, std::int64_t b) {
          return std::min(crowd.deepest_in(lv[l], std::size_t(b)), kMaxLevels - 1) >=
                 l - level_offset;
        });
  } else {
    // Below each leaf of the CT tree, level_offset more levels ("stop": the level a CT leaf's
    // subtree may reach, inherited by its descendants; 0 while the CT rule still decides).
    std::vector<std::vector<int>> stop(2, std::vector<int>(1, 0));
    tree.levels_ct = crowd.deepest() > 0 ? deepest_split + 1 : 1;
    level = grow(
        keys, ns, nt, threads,
        [&](const std::vector<Level>& lv, int l) {
          if (l == 1) return;
          const std::int64_t nb = std::int64_t(lv[l].size());
          stop.resize(l + 1);
          stop[l].resize(nb);
#pragma omp parallel for num_threads(team_size(threads, nb)) schedule(static)
          for (std::int64_t k = 0; k < nb; ++k) stop[l][k] = stop[l - 1][lv[l].parent[k]];
        },
        [&](const std::vector<Level>& lv, int l, std::int64_t b) {
          int& s = stop[l][b];
          if (s == 0 && points_in(lv[l], b) > ct) return true;
          if (s == 0) s = l + level_offset;  // a leaf of the CT tree
          return l < s;
        });
  }
  // The cap: a cell of kMaxLevels with more than CT points (coincident or nearly so).
  if (crowd.deepest() == kMaxLevels) {
    tree.capped = true;
    const std::int64_t most =
        std::max(most_in_one_cell(pts.shared_cells),
                 pts.self ? 0 : most_in_one_cell(equal_key_runs(keys.tgt, threads)));
    if (warning) *warning = cap_warning(ct, most);
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

void attach_points(Tree* tree, TreePoints&& points) {
  // Taken whole, so that the keys (8 bytes a point, the tree needs them no more) are freed here,
  // not when the caller's TreePoints goes: the back end's set-up comes before that.
  TreePoints pts = std::move(points);
  if (!pts.self) {
    tree->separate_tgt_index = std::move(pts.targets.index);
    tree->separate_tx = std::move(pts.targets.x);
    tree->separate_ty = std::move(pts.targets.y);
  }
  tree->src_index = std::move(pts.sources.index);
  tree->sx = std::move(pts.sources.x);
  tree->sy = std::move(pts.sources.y);
}

}  // namespace mlfma2d
