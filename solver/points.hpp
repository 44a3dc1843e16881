#pragma once
// The caller's points as the tree sees them (docs/math.md section 6). Two exact transformations
// keep every input cheap and right:
//   scale  -- when the extent would overflow r^2 = dx^2 + dy^2 (about 1e154), the coordinates
//             are multiplied by 2^-k (exact): with x = S u, log|x - y| = log S + log|u - v| and
//             E(x) = E_u(u) / S, so each potential gains log S times the charge of the sources
//             it pairs with (all but those at its own position);
//   merge  -- coincident sources become one source with the summed charge; a target at that
//             point skips it as it skipped each of them, so a million copies of one point cost
//             what one does (the targets are all kept: each still gets its value).
#include <cstdint>
#include <string>
#include <vector>

#include "kernel/arrays.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {

// ---- The input checks: every caller's point set and charge vector passes through these.

/// Throws InvalidInput for sources or targets whose x and y lengths differ, or a non-finite
/// coordinate (naming the point); none is allowed (a rank of the distributed solver may hold
/// none).
void check_point_arrays(const std::vector<double>& x, const std::vector<double>& y,
                        const std::vector<double>& tx, const std::vector<double>& ty);
/// check_point_arrays, and InvalidInput for no sources.
void check_points(const std::vector<double>& x, const std::vector<double>& y,
                  const std::vector<double>& tx, const std::vector<double>& ty);
/// Throws InvalidInput naming the first point with a coordinate that is not finite: "source 7
/// has a non-finite coordinate (nan, 0.3)" (`what` = "source" or "target"; equal lengths).
void check_finite_points(const std::vector<double>& x, const std::vector<double>& y,
                         const char* what);
/// Throws InvalidInput naming the first charge that is not finite: "charge 1 is not finite".
void check_finite_charges(const double* q, std::size_t n);
/// The same for nd rows of n values: "`what` 7 of density 2 is not finite" (nd > 1), or "`what`
/// 7 is not finite".
void check_finite_rows(const double* v, int nd, std::size_t n, const char* what);

/// \brief One evaluation's strengths as the tree's sources carry them: nd x sources() each, in
/// the caller's order (merged sources summed), the moments d v divided by the coordinates'
/// scale; null for an absent kind.
using Strengths = StrengthArrays;

/// A tree of the caller's points: check_points, then sort_tree_points, grow_tree,
/// attach_points (what the tests and the timing harness build; the Solver prepares its points
/// first).
Tree build_tree(const std::vector<double>& x, const std::vector<double>& y,
                const std::vector<double>& tx, const std::vector<double>& ty, int ct,
                int level_offset, std::string* warning, int threads,
                TreeKind kind = TreeKind::Uniform);

/// Whether points spanning `extent` (the larger side of their bounding box) must be scaled so
/// that r^2 cannot overflow (above 2^500, or not finite).
bool extent_needs_scaling(double extent);

struct PreparedPoints {
  int scale_exponent = 0;  ///< the tree's coordinates are the caller's times 2^-scale_exponent
  bool self = true;        ///< the caller's targets are the caller's sources
  std::size_t caller_sources = 0, caller_targets = 0;
  std::size_t n_sources = 0;  ///< the tree's sources (caller_sources less the merged)
  /// The tree's sources and targets (scaled; sources merged), tgt.n = 0: the targets are the
  /// sources. They view the caller's arrays when nothing is scaled or merged (no copy: 16 bytes
  /// a point, two copies in general), else the arrays below; valid while those live and until
  /// release().
  PointsRef src, tgt;
  /// Copies, made only when scaled or merged; otherwise empty.
  Array<double> sx, sy, tx, ty;
  /// When sources were merged: tree source u is made of caller sources
  /// member[member_begin[u] .. member_begin[u + 1]); both empty when none was.
  std::vector<std::int64_t> member_begin, member;
  /// When scaled: the tree source at each target's position, or -1 (for the log S term).
  std::vector<std::int64_t> coincident;

  bool scaled() const { return scale_exponent != 0; }
  bool merged() const { return !member_begin.empty(); }
  std::size_t sources() const { return n_sources; }
  /// The tree's sources and targets (targets n = 0: the sources), for sort_tree_points.
  PointsRef source_points() const { return src; }
  PointsRef target_points() const { return tgt; }
  /// The targets as points, the sources in self-evaluation.
  PointsRef targets() const { return tgt.n ? tgt : src; }
  /// Frees the coordinates (copies and views) once the tree and the back end hold theirs; the
  /// counts, merge and scale stay for merged_rows and unscale.
  void release_coordinates();
  double log_scale() const;
  double scale() const;
};

/// The caller's points as the tree sees them: views of them, or scaled copies if the extent
/// needs it (then the views point at the copies); tx, ty empty = self. The caller's arrays must
/// outlive the views. Throws
/// InvalidInput if scaling would make two different points one (they differ by less than the
/// smallest double at the scaled size: the potential would depend on digits doubles lack).
PreparedPoints prepare_points(const std::vector<double>& x, const std::vector<double>& y,
                              const std::vector<double>& tx, const std::vector<double>& ty,
                              int threads);

/// Merges the coincident sources the sorted points reveal: they sit in shared cells. Returns
/// whether any were merged; then `points` holds the merged sources and all the targets, and they
/// must be sorted again. (x, y) are the caller's sources: two that differ but became one by
/// scaling are an InvalidInput.
bool merge_coincident_sources(const TreePoints& sorted, const std::vector<double>& x,
                              const std::vector<double>& y, PreparedPoints* points);

/// When scaled: fills points->coincident (the tree source at each target's position, or -1).
/// (x, y, tx, ty) are the caller's points: a target and a source that differ but became one by
/// scaling are an InvalidInput.
void find_coincident_sources(const std::vector<double>& x, const std::vector<double>& y,
                             const std::vector<double>& tx, const std::vector<double>& ty,
                             PreparedPoints* points);

/// The tree's values of nd rows of the caller's (nd x caller_sources): summed over merged
/// sources (out: nd x sources()), or `v` itself when none were merged.
const double* merged_rows(const PreparedPoints& points, const double* v, int nd,
                          std::vector<double>* out, int threads);

/// The dipoles' moments m = d v of nd densities (nd x caller_sources each, into mx and my; v:
/// 2 x n, or nd x 2 x n per density), divided by the coordinates' scale S (exact: a power of
/// two): in the tree's coordinates a dipole's potential is (m / S) . (u - v) / |u - v|^2.
void dipole_moments(const PreparedPoints& points, const double* strength, const double* vectors,
                    bool per_density, int nd, double* mx, double* my, int threads);
/// The same into vectors sized for them.
void dipole_moments(const PreparedPoints& points, const double* strength, const double* vectors,
                    bool per_density, int nd, std::vector<double>* mx, std::vector<double>* my,
                    int threads);

/// When scaled, for one density: potential += log S * (sum of the charges - the charge at the
/// target's position) (q, the tree's charges, may be null: dipoles alone have no log S term),
/// field /= S, Hessian /= S^2 (caller target order; null outputs are skipped).
void unscale(const PreparedPoints& points, const double* q, double* potential, double* fx,
             double* fy, double* hxx, double* hxy, int threads);

}  // namespace mlfma2d
