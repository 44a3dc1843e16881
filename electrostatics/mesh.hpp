#pragma once
// The collocation system on one mesh (docs/math.md sections 8.2-8.3).
//
// Normalised units (x' = (x - centre) / L, L = the contours' extent). The unknown is the total
// charge (free + polarisation) in vacuum, u = L sigma_t / (2 pi eps0) (volts), on every conductor
// and interface panel; the potential is phi(x) = -(S u)(x') - log(L) T + c, S the single-layer
// operator of operator.hpp (S - S* over a ground plane, where T = 0 and c = 0), T = sum h'_j u_j.
// Rows (system_entry has them entry by entry):
//   conductor panel i:   -(S u)_i + c'                         = V_i
//   interface panel i:   pi u_i + lambda_i n_i . grad (S u)_i  = 0
//   without ground plane: w sum_j h'_j u_j = w Q / (2 pi eps0 eps_b)  (the total; 0 for K >= 2)
// c' = c - log(L) T. The charge row is weighted by w = sqrt(N) / perimeter' so that it counts like
// the N rows above in ||b - A x||. The free charge density of a conductor panel (both faces):
//   sigma_f = (2 pi eps0 / L) [(eps_l + eps_r) / 2 u + (eps_l - eps_r) / (2 pi) n . grad (S u)].
#include <Eigen/Dense>
#include <memory>
#include <string>
#include <vector>

#include "electrostatics/geometry.hpp"
#include "electrostatics/gmres.hpp"
#include "electrostatics/near.hpp"
#include "electrostatics/operator.hpp"
#include "electrostatics/ranks.hpp"
#include "mlfma2d/electrostatics.hpp"

namespace mlfma2d::es {

/// \brief One mesh: its panels, the operator (or the dense method's LU), the preconditioner, and
/// the system on them. Over ranks (electrostatics/ranks.hpp) every rank holds the panels, and
/// the system's unknowns (panels, then the border) are cut into contiguous ranges: this rank's
/// [first, first + local) -- its panels `here`, and the border when `border_here` -- whose rows it
/// applies; GMRES runs on these ranges, its sums over the ranks. The dense method runs whole on
/// every rank.
struct Mesh {
  PanelSet ps;
  std::shared_ptr<const SolveRanks> ranks;
  std::size_t first = 0, local = 0;  ///< this rank's entries of the system's vectors
  PointRange here;                   ///< this rank's panels
  bool border_here = false;          ///< this rank holds the border's entry (its last)
  bool bordered = true;              ///< the constant c and the charge row (no ground plane)
  double row_weight = 1;
  int threads = 1;
  std::string preconditioner;
  std::unique_ptr<SingleLayer> op;
  std::unique_ptr<Preconditioner> pre;
  std::unique_ptr<Eigen::MatrixXd> dense_a;                     ///< the dense method's matrix
  std::unique_ptr<Eigen::PartialPivLU<Eigen::MatrixXd>> dense;  ///< and its LU
  std::vector<double> phi, gx, gy;                              ///< work
  SparseRows arc;  ///< the normal derivative's correction on arcs (operator.hpp)
  ElectrostaticTimings setup;

  /// The panels of `contours` at refinement `level` (`vacuum`: conductors only, every eps_r 1),
  /// the FMM at `fmm_eps`, or the dense method's matrix and LU; over `ranks`.
  Mesh(const Contours& contours, const ElectrostaticOptions& o, int level, bool vacuum,
       double fmm_eps, int threads, std::shared_ptr<const SolveRanks> ranks);

  std::size_t n() const { return ps.size(); }
  std::size_t size() const { return n() + (bordered ? 1 : 0); }

  /// y = A x: x, y this rank's entries (collective).
  void system(const double* x, double* y);
  /// y = A x: x every entry, y this rank's (collective).
  void product(const double* x, double* y);
  /// V_i on the panels of conductor i, 0 on interfaces, and the weighted total charge (every
  /// entry).
  std::vector<double> rhs(const std::vector<double>& potentials, double charge_n) const;
  /// ||b - A x|| / ||b|| (every entry of b and x; collective).
  double residual(const std::vector<double>& b, const std::vector<double>& x);
  /// A x = b by GMRES (the dense method: the LU); `what` names the solve in progress lines.
  /// b and x: every entry (on every rank). RuntimeFailure, naming a narrow gap where there is
  /// one, when GMRES does not converge.
  SolveStats solve(const std::vector<double>& b, std::vector<double>* x,
                   const ElectrostaticOptions& o, const std::string& what);
  /// Free charge per conductor (C/m) of the densities x (every entry), and with `sigma` the free
  /// charge density of each conductor panel (C/m^2; interface panels: the total, i.e. the
  /// polarisation charge), every panel's.
  std::vector<double> free_charges(const std::vector<double>& x, int conductors,
                                   std::vector<double>* sigma = nullptr);

 private:
  /// grad (S u) at panel i, analytic (the dense method).
  void dense_gradient(const double* u, std::size_t i, double* x, double* y) const;
  /// Adds the arcs' correction to n . grad (S u) in g (this rank's panels); u: every panel's.
  void add_arc(const double* u, double* g) const;
};

}  // namespace mlfma2d::es
