#pragma once
// One evaluation's strengths and outputs as plain arrays, the one shape every room passes them in
// (the far field in tree order, a near-field back end in the caller's source numbering, the
// solver between them): nd densities of n values each, density d's value at point j at d n + j.

namespace mlfma2d {

/// \brief What one evaluation carries and computes: its densities, the kinds of its sources, its
/// outputs beyond the potential.
struct EvaluationShape {
  int densities = 1;
  bool charges = true, dipoles = false;
  bool field = false, hessian = false;
  /// The pair sums' order (kernel/pair.hpp): 2 with the Hessian, 1 with the field, else 0.
  int order() const { return hessian ? 2 : field ? 1 : 0; }
  /// Horner passes per target: the potential, the field, the Hessian.
  int passes() const { return 1 + (field ? 1 : 0) + (hessian ? 1 : 0); }
};

/// \brief Strengths: null for a kind that is absent.
struct StrengthArrays {
  const double* q = nullptr;   ///< charges
  const double* mx = nullptr;  ///< dipole moments (strength times orientation), x
  const double* my = nullptr;  ///< dipole moments, y
};

/// \brief Outputs: null for one that is not wanted. hxx, hxy are d2phi/dx2 and d2phi/dxdy
/// (d2phi/dy2 = -d2phi/dx2).
struct OutputArrays {
  double* phi = nullptr;
  double *ex = nullptr, *ey = nullptr;
  double *hxx = nullptr, *hxy = nullptr;
};

}  // namespace mlfma2d
