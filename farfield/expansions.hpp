#pragma once
// Far field: Greengard-Rokhlin complex expansions, scaled by the box side s of their level
// (DESIGN.md section 3). With c a box centre and p terms:
//   multipole  phi(z) ~ Re[ a_0 log(z - c) + sum_k A_k (s / (z - c))^k ],  A_k = a_k / s^k
//   local      phi(z) ~ Re[ sum_l B_l ((z - c) / s)^l ],                    B_l = b_l s^l
// Scaling makes every translation operator depend only on the relative position of the two
// boxes in units of s, so all operators are a few fixed (p+1)x(p+1) matrices, and keeps
// high-order coefficients O(1) so large p neither overflows nor underflows.
#include <Eigen/Dense>
#include <array>
#include <complex>
#include <vector>

#include "solver/plan.hpp"
#include "solver/tree.hpp"

namespace mlfma2d {

using Complex = std::complex<double>;
using CMatrix = Eigen::Matrix<Complex, Eigen::Dynamic, Eigen::Dynamic>;

/// \brief The translation operators for p terms, built once.
struct Operators {
  int p = 0;
  std::array<CMatrix, 4> m2m;  ///< child (quadrant q = key & 3) to parent
  std::array<CMatrix, 4> l2l;  ///< parent to child quadrant q
  std::vector<CMatrix> m2l;    ///< one per interaction-list offset (plan.hpp's 40 offsets)
  explicit Operators(int terms);
};

/// \brief Expansions of every level: column b of multipole[l] (local[l]) holds box b's p+1
/// scaled coefficients. Allocated once per geometry, zeroed per evaluation.
struct Expansions {
  std::vector<CMatrix> multipole, local;
  void reset(const Tree& tree, int p);
};

// The operators of the method, by name. Charges and outputs are in tree order.
/// Leaves: multipole expansions of their sources.
void P2M(const Tree& tree, const Operators& ops, const double* q, Expansions* e, int threads);
/// Level l+1 multipoles to level l.
void M2M(const Tree& tree, const Operators& ops, int l, Expansions* e, int threads);
/// Level l: multipoles of interaction-list boxes to local expansions (grouped by offset into
/// dense matrix products).
void M2L(const Tree& tree, const Plan& plan, const Operators& ops, int l, Expansions* e,
         int threads);
/// Level l-1 locals to level l.
void L2L(const Tree& tree, const Operators& ops, int l, Expansions* e, int threads);
/// Leaves: add the local expansions' potential (and field, if ex/ey non-null) at the targets.
void L2P(const Tree& tree, const Operators& ops, const Expansions& e, double* phi, double* ex,
         double* ey, int threads);

/// Floating-point operations of one evaluation of the far field (for GFLOP/s figures).
double far_field_flops(const Tree& tree, const Plan& plan, int p, bool field);

}  // namespace mlfma2d
