#pragma once
// The quadtree: square bounding box, Morton (Z-order) box numbering, level 1 = root, only
// non-empty boxes stored. Two kinds (docs/math.md sections 2.2 and 2.3):
//   uniform  -- Wang-style: every leaf on the last level L, L fixed by CT (then +- the offset);
//   adaptive -- a box is split while it holds more than CT points, so leaves sit at different
//               levels and the depth follows the points, not the finest spacing everywhere.
// Plain data, built once per geometry; every array is flat so it can be uploaded as it is.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/parallel_sort.hpp"

namespace mlfma2d {

/// Box coordinates at a level: ix, iy in [0, 2^(level-1)).
struct BoxCoord {
  std::uint32_t ix, iy;
};

/// Morton key of (ix, iy): bits of ix on even positions, iy on odd positions.
std::uint64_t morton_encode(std::uint32_t ix, std::uint32_t iy);
BoxCoord morton_decode(std::uint64_t key);

/// \brief Which tree.
enum class TreeKind { Uniform, Adaptive };
/// "uniform" / "adaptive".
const char* tree_kind_name(TreeKind kind);
/// Parses "uniform" / "adaptive"; throws InvalidInput naming the valid ones.
TreeKind parse_tree_kind(const std::string& name);

/// \brief A box anywhere in the tree: its level and its index in that level.
struct BoxRef {
  std::int32_t level = 0, box = 0;
};

/// \brief The non-empty boxes of one level, in Morton order.
/// Box b holds sources [src_begin[b], src_end[b]) and targets [tgt_begin[b], tgt_end[b]) of the
/// tree-ordered arrays; an empty range sits at the position where its points would be.
struct Level {
  std::vector<std::uint64_t> key;  ///< Morton key at this level, strictly increasing
  std::vector<std::int64_t> src_begin, src_end;
  std::vector<std::int64_t> tgt_begin, tgt_end;
  std::vector<std::int32_t> parent;       ///< index of the parent in the level above (-1 at root)
  std::vector<std::int32_t> child_begin;  ///< children are [child_begin[b], child_begin[b+1]) of
                                          ///< the level below (size boxes+1)
  std::size_t size() const { return key.size(); }
  bool has_sources(std::size_t b) const { return src_end[b] > src_begin[b]; }
  bool has_targets(std::size_t b) const { return tgt_end[b] > tgt_begin[b]; }
  bool is_leaf(std::size_t b) const { return child_begin[b] == child_begin[b + 1]; }
  std::int64_t sources(std::size_t b) const { return src_end[b] - src_begin[b]; }
  std::int64_t targets(std::size_t b) const { return tgt_end[b] - tgt_begin[b]; }
  /// Index of the box with `k` at this level, or -1 (binary search).
  std::int32_t find(std::uint64_t k) const;
};

/// \brief The quadtree: geometry, point permutation and levels 1..L.
struct Tree {
  TreeKind kind = TreeKind::Uniform;
  double x0 = 0, y0 = 0;  ///< lower-left corner of the root box
  double size = 1;        ///< side of the (square) root box
  int levels = 0;         ///< L: the deepest level (every leaf's on the uniform tree)
  int levels_ct = 0;      ///< L fixed by CT, before the offset
  bool capped = false;    ///< CT could not be met below kMaxLevels
  int ct = 0;
  int level_offset = 0;
  bool self = true;         ///< targets are the sources
  std::size_t t = 0;        ///< most sources or targets in one leaf
  double mean_per_box = 0;  ///< D = N / 4^(L-1)

  /// Tree order to caller order: the i-th tree-ordered source is caller source src_index[i].
  Array<std::int64_t> src_index;
  /// Source coordinates in tree order.
  Array<double> sx, sy;
  /// The targets' permutation and coordinates, when they are not the sources (empty when self:
  /// at 1e7 points three copies would cost 240 MB and the time to write them). Read them through
  /// tgt_index(), tx(), ty().
  Array<std::int64_t> separate_tgt_index;
  Array<double> separate_tx, separate_ty;

  /// Tree order to caller order of the targets: tree-ordered target i is caller target
  /// tgt_index()[i]; and their coordinates in tree order.
  const std::int64_t* tgt_index() const {
    return self ? src_index.data() : separate_tgt_index.data();
  }
  const double* tx() const { return self ? sx.data() : separate_tx.data(); }
  const double* ty() const { return self ? sy.data() : separate_ty.data(); }
  /// Runs of tree-ordered sources sharing one deepest-level cell, 2 entries per run [begin, end),
  /// runs of two or more only: the only places where coincident sources can be.
  std::vector<std::int64_t> shared_cells;

  /// level[l] for l = 1..L (level[0] unused and empty).
  std::vector<Level> level;
  /// Every leaf, in Morton order: their source ranges tile the tree-ordered sources and their
  /// target ranges the tree-ordered targets.
  std::vector<BoxRef> leaves;

  std::size_t n_sources() const { return std::size_t(level[1].src_end[0]); }
  std::size_t n_targets() const { return std::size_t(level[1].tgt_end[0]); }
  std::size_t boxes() const;
  const Level& at(BoxRef r) const { return level[r.level]; }
  /// Side of a box at level l.
  double box_size(int l) const { return size / double(std::uint64_t(1) << (l - 1)); }
  /// Centre of box b at level l, as (cx, cy) (rounded to doubles: for reports and tests).
  void centre(int l, std::size_t b, double* cx, double* cy) const;
  /// The centre of box b at level l as (x0 + hx s, y0 + hy s), s = box_size(l): hx = ix + 1/2.
  void centre_index(int l, std::size_t b, double* hx, double* hy) const;
  /// The offset x - cx of coordinate x from the centre x0 + hx s, in units of s, formed without
  /// cancellation: x - x0 is split into its rounded value and rounding error (TwoSum), so the
  /// result is accurate relative to the box, not to the root (points far from the origin, or
  /// boxes many levels below the root). Same in y with (y0, hy).
  static double offset(double x, double origin, double h, double s, double inv_s) {
    // TwoSum: d + e = x - origin exactly. h s is exact (h has at most 30 bits, s is a power of
    // two times the root side), so fma(-h, s, d) rounds once, on the scale of the box.
    const double d = x - origin;
    const double bb = d - x;
    const double e = (x - (d - bb)) + (-origin - bb);
    return (__builtin_fma(-h, s, d) + e) * inv_s;
  }
};

/// \brief Points sorted for a tree: the root box and both point sets in Morton order. Sorting is
/// most of a tree's cost: trees of several leaf capacities (the cost model) share one.
struct TreePoints {
  bool self = true;
  double x0 = 0, y0 = 0, size = 1;         ///< the root box
  KeyedPoints sources, targets;            ///< targets empty when self
  std::vector<std::int64_t> shared_cells;  ///< as Tree::shared_cells
};

/// \brief n points as two borrowed coordinate arrays.
struct PointsRef {
  const double* x = nullptr;
  const double* y = nullptr;
  std::size_t n = 0;
};

/// \brief The rectangle points span (empty: min above max).
struct Bounds {
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
};
/// `b` grown to hold the n points of `p`.
Bounds grow_bounds(Bounds b, PointsRef p, int threads);

/// \brief The square root box: its lower-left corner and side.
struct RootBox {
  double x0 = 0, y0 = 0, size = 1;
};
/// The root box of points spanning [xmin, xmax] x [ymin, ymax] (sources and targets together):
/// the side is the larger extent, kept above the smallest box the deepest level allows. One rule
/// for one process and for every rank of the distributed solver (whose keys then agree with the
/// one-process tree's). Throws InvalidInput when the extent overflows a double.
RootBox root_box(double xmin, double xmax, double ymin, double ymax);
/// Points sorted by their Morton keys at the deepest level of `box` (stable: equal keys keep
/// their input order; index holds each point's input position).
KeyedPoints sort_keyed_points(PointsRef points, const RootBox& box, int threads);
/// Where the four children of box `key` of level l begin in its points [lo, hi) of sorted
/// deepest-level keys: child q (quadrant key & 3) holds [out[q], out[q + 1]), out[0] = lo and
/// out[4] = hi.
void quadrant_bounds(const Array<std::uint64_t>& keys, std::int64_t lo, std::int64_t hi, int l,
                     std::uint64_t key, std::int64_t* out);
/// Every leaf of levels 1..L (level[0] unused) in Morton order.
std::vector<BoxRef> morton_leaves(const std::vector<Level>& level, int threads);

/// The root box and the sorted points, of checked points (check_points, solver/points.hpp): at
/// least one source,
/// finite coordinates. Targets with n = 0: self-evaluation.
TreePoints sort_tree_points(PointsRef sources, PointsRef targets, int threads);
/// The tree's shape on sorted points: its levels, leaves, t and D, without the points (a Tree
/// whose coordinate and permutation arrays are empty: enough for a plan's counts). Throws
/// InvalidInput for bad ct or an offset past the root or the deepest level. Sets `warning` (if
/// non-null) when L had to be capped. The uniform kind is the papers' tree.
Tree grow_tree(const TreePoints& points, int ct, int level_offset, TreeKind kind,
               std::string* warning, int threads);

/// Moves the sorted points into a tree grown on them; what the tree does not keep (the keys) is
/// freed. `points` is empty after.
void attach_points(Tree* tree, TreePoints&& points);

}  // namespace mlfma2d
