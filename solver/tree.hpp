#pragma once
// The quadtree of DESIGN.md section 2: square bounding box, Morton (Z-order) box numbering,
// level 1 = root, all leaves on the last level L, only non-empty boxes stored.
// Plain data, built once per geometry; every array is flat so it can be uploaded as it is.
#include <cstdint>
#include <string>
#include <vector>

namespace mlfma2d {

/// Box coordinates at a level: ix, iy in [0, 2^(level-1)).
struct BoxCoord {
  std::uint32_t ix, iy;
};

/// Morton key of (ix, iy): bits of ix on even positions, iy on odd positions.
std::uint64_t morton_encode(std::uint32_t ix, std::uint32_t iy);
BoxCoord morton_decode(std::uint64_t key);

/// \brief The non-empty boxes of one level, in Morton order.
/// Box b holds sources [src_begin[b], src_end[b]) and targets [tgt_begin[b], tgt_end[b]) of the
/// tree-ordered arrays; an empty range sits at the position where its points would be.
struct Level {
  std::vector<std::uint64_t> key;      ///< Morton key at this level, strictly increasing
  std::vector<std::int64_t> src_begin, src_end;
  std::vector<std::int64_t> tgt_begin, tgt_end;
  std::vector<std::int32_t> parent;       ///< index of the parent in the level above (-1 at root)
  std::vector<std::int32_t> child_begin;  ///< children are [child_begin[b], child_begin[b+1]) of
                                          ///< the level below (size boxes+1; empty on the leaves)
  std::size_t size() const { return key.size(); }
  bool has_sources(std::size_t b) const { return src_end[b] > src_begin[b]; }
  bool has_targets(std::size_t b) const { return tgt_end[b] > tgt_begin[b]; }
  /// Index of the box with `k` at this level, or -1 (binary search).
  std::int32_t find(std::uint64_t k) const;
};

/// \brief The quadtree: geometry, point permutation and levels 1..L.
struct Tree {
  double x0 = 0, y0 = 0;  ///< lower-left corner of the root box
  double size = 1;        ///< side of the (square) root box
  int levels = 0;         ///< L: the last level (leaves); level 1 is the root
  int levels_ct = 0;      ///< L fixed by CT, before the offset
  bool capped = false;    ///< CT could not be met below kMaxLevels
  int ct = 0;
  bool self = true;       ///< targets are the sources
  std::size_t t = 0;      ///< most sources or targets in one leaf
  double mean_per_box = 0;  ///< D = N / 4^(L-1)

  /// Tree order to caller order: the i-th tree-ordered source is caller source src_index[i].
  std::vector<std::int64_t> src_index, tgt_index;
  /// Coordinates in tree order (targets alias sources when self, but are stored anyway).
  std::vector<double> sx, sy, tx, ty;

  /// level[l] for l = 1..L (level[0] unused and empty).
  std::vector<Level> level;
  const Level& leaves() const { return level[levels]; }

  std::size_t n_sources() const { return sx.size(); }
  std::size_t n_targets() const { return tx.size(); }
  /// Side of a box at level l.
  double box_size(int l) const { return size / double(std::uint64_t(1) << (l - 1)); }
  /// Centre of box b at level l, as (cx, cy).
  void centre(int l, std::size_t b, double* cx, double* cy) const;
  /// The centre of box b at level l as (x0 + hx s, y0 + hy s), s = box_size(l): hx = ix + 1/2.
  /// Offsets from the centre are best formed as fma(-hx, s, x - x0), which rounds once on the
  /// scale of the box; x - cx rounds the centre to the coordinates' magnitude first and loses
  /// the offset's digits when the points sit far from the origin (around 1e6 with an extent of
  /// 1e-3: relative errors of 1e-5 in P2M and L2P).
  void centre_index(int l, std::size_t b, double* hx, double* hy) const;
};

/// Build the tree. Targets empty = self-evaluation. Throws InvalidInput for bad ct, an offset
/// that would go above the root or below kMaxLevels, or non-finite coordinates. Sets `warning`
/// (if non-null) when L had to be capped.
Tree build_tree(const std::vector<double>& x, const std::vector<double>& y,
                const std::vector<double>& tx, const std::vector<double>& ty, int ct,
                int level_offset, std::string* warning, int threads);

}  // namespace mlfma2d
