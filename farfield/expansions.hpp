#pragma once
// Far field: Greengard-Rokhlin complex expansions, scaled by the box side s of their level
// (docs/math.md section 3). With c a box centre and p terms:
//   multipole  phi(z) ~ Re[ a_0 log(z - c) + sum_k A_k (s / (z - c))^k ],  A_k = a_k / s^k
//   local      phi(z) ~ Re[ sum_l B_l ((z - c) / s)^l ],                    B_l = b_l s^l
// Scaling makes every translation operator depend only on the relative position of the two
// boxes in units of s, so all operators are a few fixed (p+1)x(p+1) matrices, and keeps
// high-order coefficients O(1) so large p neither overflows nor underflows.
#include <Eigen/Dense>
#include <array>
#include <complex>
#include <vector>

#include "kernel/arrays.hpp"
#include "kernel/wide.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {

using Complex = std::complex<double>;
using CMatrix = Eigen::Matrix<Complex, Eigen::Dynamic, Eigen::Dynamic>;
using RMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;
/// Doubles on 64 bytes (EIGEN_MAX_ALIGN_BYTES, CMakeLists.txt): the translations' factors.
using AlignedDoubles = std::vector<double, Eigen::aligned_allocator<double>>;

/// \brief A translation factored as complex diagonal scalings around a real matrix that every
/// translation of its kind shares (docs/math.md section 3.4): out_l += after_l sum_k
/// R(l, k) before_k in_k. Only the scalings depend on the offset (or the quadrant).
struct Scaling {
  /// `before` (p + 1 terms) in the interleaved form the wide kernels scale interleaved complex
  /// columns by: re = (Re a_0, Re a_0, Re a_1, Re a_1, ...), im = (-Im a_0, Im a_0, -Im a_1,
  /// Im a_1, ...).
  struct Factor {
    AlignedDoubles re, im;
    Complex at(int j) const { return {re[std::size_t(2 * j)], im[std::size_t(2 * j + 1)]}; }
  };
  /// `after` as planes, re = (Re a_0, Re a_1, ...), im = (Im a_0, ...), padded with zeros to a
  /// multiple of kWideRows terms: the kernels scale the product's rows as they leave it, a row
  /// vector at a time (WideColumn).
  struct Planes {
    AlignedDoubles re, im;
    Complex at(int j) const { return {re[std::size_t(j)], im[std::size_t(j)]}; }
  };
  Factor before;
  Planes after;
  Scaling() = default;
  Scaling(const std::vector<Complex>& before, const std::vector<Complex>& after);
};

/// \brief The translation operators for p terms, built once.
struct Operators {
  int p = 0;
  // The dense complex operators: what the factored forms below compute (tests compare them).
  std::array<CMatrix, 4> m2m;  ///< child (quadrant q = key & 3) to parent
  std::array<CMatrix, 4> l2l;  ///< parent to child quadrant q
  std::vector<CMatrix> m2l;    ///< one per interaction-list offset (plan.hpp's 40 offsets)
  // The factored forms the far field runs: one real matrix per kind, a scaling per quadrant or
  // offset; M2L's B_0 also gains a_0 log(-w) (m2l_log) and a_0 log s per level. The real
  // matrices have `rows` rows, p + 1 padded with zero rows to a multiple of kWideRows, for the
  // wide kernels (kernel/wide.hpp).
  int rows = 0;
  RMatrix m2m_real, l2l_real, m2l_real;
  std::array<Scaling, 4> m2m_scale, l2l_scale;
  std::vector<Scaling> m2l_scale;
  std::vector<Complex> m2l_log;
  // M2L truncated per offset (m2l_terms below): offset o keeps the leading m2l_kind_terms[
  // m2l_kind[o]] coefficients; the kinds are the distinct counts, in the offsets' order.
  std::vector<int> m2l_kind, m2l_kind_terms;
  /// 1/k for k = 1..p (and 0 at k = 0): P2M multiplies by it in place of dividing by k.
  std::vector<double> inverse;
  explicit Operators(int terms);

 private:
  void factor(const std::vector<std::vector<double>>& binomials);
};

/// The coefficients (<= p + 1) an M2L translation of interaction-list offset `offset` keeps of
/// the multipole and of the local expansion (docs/math.md section 3.4): those whose truncation
/// bound rho_o^terms is that of the nearest offsets at p + 1 terms (rho_o the ratio of a box's
/// radius to the distance from its centre to the other box), and 3 more.
int m2l_terms(int p, int offset);

/// \brief Expansions of every level for nd densities: column b * nd + d of multipole[l]
/// (local[l]) holds box b's p+1 scaled coefficients of density d, so a box's densities are
/// contiguous columns that every translation multiplies at once. Allocated once per geometry.
/// Not zeroed per evaluation: each operator zeroes what it accumulates into just before (one
/// pass over memory fewer; at 1e8 points the expansions are gigabytes): P2M every leaf with
/// sources, M2M every box with children, M2L every local of its levels (the caller zeroes the
/// multipoles of the other leaves: solver/far_field.hpp). So an evaluation runs P2M, M2M down
/// to level 3 and M2L over levels 3..L before anything reads them.
struct Expansions {
  int nd = 1;
  /// Column b nd + d: box b's expansion for density d, expansion_rows(p) complex terms of which
  /// the first p + 1 are the expansion's and the rest stay zero (every column on 64 bytes).
  std::vector<CMatrix> multipole, local;
  /// Sized for the tree and nd densities; zeroed (in parallel: first touch) when allocated.
  void reset(const Tree& tree, int p, int densities, int threads);
};

/// Zeroes box `box`'s nd columns of m.
void zero_columns(CMatrix* m, std::int64_t box, int nd);

/// The sources' strengths in tree order (kernel/arrays.hpp), nd x n_sources each.
using FarSources = StrengthArrays;
/// Tree-order outputs the far field adds to, nd x n_targets each.
using FarOutputs = OutputArrays;

// The operators of the method, by name. Strengths and outputs are in tree order, nd densities
// (Expansions::nd) each. Expansions exist on levels 3..L: M2L starts at level 3, and W boxes and
// X targets are at level 3 or below.
/// Leaves (on every level >= 3): multipole expansions of their sources.
void P2M(const Tree& tree, const Operators& ops, const FarSources& s, Expansions* e, int threads);
/// Level l+1 multipoles to level l.
void M2M(const Tree& tree, const Operators& ops, int l, Expansions* e, int threads);
/// Levels first..last: multipoles of interaction-list boxes to local expansions (blocks of
/// factored translations, one real matrix product per kind of truncation).
void M2L(const Tree& tree, const Plan& plan, const Operators& ops, int first, int last,
         Expansions* e, int threads);
/// Every level at once (plan.p2l_boxes): the sources of each box's X-list leaves into its local
/// expansion.
void P2L(const Tree& tree, const Plan& plan, const Operators& ops, const FarSources& s,
         Expansions* e, int threads);
/// Level l-1 locals to level l.
void L2L(const Tree& tree, const Operators& ops, int l, Expansions* e, int threads);
/// Leaves (on every level >= 3): add the local expansions' potential (and field, Hessian, where
/// their outputs are given) at the targets.
void L2P(const Tree& tree, const Operators& ops, const Expansions& e, const FarOutputs& out,
         int threads);
/// Near leaves: add the multipole expansions of their W-list boxes at their targets.
void M2P(const Tree& tree, const Plan& plan, const Operators& ops, const Expansions& e,
         const FarOutputs& out, int threads);

/// \brief The far field's work, by kind: what its time and its operation count follow.
struct FarWork {
  double m2l = 0;      ///< M2L translations: (p+1)^2 each
  double boxes = 0;    ///< boxes on levels >= 3: an M2M and an L2L, (p+1)^2 each
  double sources = 0;  ///< P2M points (leaves on levels >= 3): p each
  double targets = 0;  ///< L2P points: p each (twice with the field)
  double wx = 0;       ///< P2L sources x boxes + M2P targets x boxes: p each
  double leaves = 0;   ///< leaves on levels >= 3 (all hold points): P2M's and L2P's per-leaf part
};
FarWork far_field_work(const Tree& tree, const Plan& plan);

/// What one evaluation carries and computes (kernel/arrays.hpp): what its work is multiplied by.
using FarShape = EvaluationShape;

/// Floating-point operations of one evaluation of the far field (for GFLOP/s figures).
double far_field_flops(const Tree& tree, const Plan& plan, int p, const FarShape& shape);

}  // namespace mlfma2d
