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
  int block = 1;  ///< right-hand sides one product takes (the FMM's densities)
  std::string preconditioner;
  std::unique_ptr<SingleLayer> op;
  std::unique_ptr<Preconditioner> pre;
  std::unique_ptr<Eigen::MatrixXd> dense_a;                     ///< the dense method's matrix
  std::unique_ptr<Eigen::PartialPivLU<Eigen::MatrixXd>> dense;  ///< and its LU
  std::vector<double> phi, gx, gy;  ///< work, block x this rank's panels
  std::vector<double> work;         ///< the panel densities of a block of system vectors
  SparseRows arc;                   ///< the normal derivative's correction on arcs (operator.hpp)
  ElectrostaticTimings setup;

  /// The panels of `contours` at refinement `level` (`vacuum`: conductors only, every eps_r 1),
  /// the FMM at `fmm_eps` (block > 1: also for that many right-hand sides at once), or the
  /// dense method's matrix and LU; over `ranks` (null: this process alone).
  Mesh(const Contours& contours, const ElectrostaticOptions& o, int level, bool vacuum,
       double fmm_eps, int threads, int block = 1,
       std::shared_ptr<const SolveRanks> ranks = nullptr);

  std::size_t n() const { return ps.size(); }
  std::size_t size() const { return n() + (bordered ? 1 : 0); }

  /// y = A x: x, y this rank's entries (collective).
  void system(const double* x, double* y);
  /// y_c = A x_c for k vectors of this rank's entries one after the other (k <= the block), one
  /// product (collective).
  void system_block(int k, const double* x, double* y);
  /// y = A x: x every entry, y this rank's (collective).
  void product(const double* x, double* y);
  /// product() of k vectors: x k vectors of every entry, y k of this rank's, one after the other.
  void product_block(int k, const double* x, double* y);
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
  /// A x_c = b_c for every column by GMRES in lockstep (gmres_block), each step one product of
  /// the columns not yet converged (at most the block). `what` names the block in progress
  /// lines. b and x as in solve(). The dense method: the LU per column.
  std::vector<SolveStats> solve_block(const std::vector<std::vector<double>>& b,
                                      std::vector<std::vector<double>>* x,
                                      const ElectrostaticOptions& o, const std::string& what);
  /// Free charge per conductor (C/m) of the densities x (every entry), and with `sigma` the free
  /// charge density of each conductor panel (C/m^2; interface panels: the total, i.e. the
  /// polarisation charge), every panel's. Collective.
  std::vector<double> free_charges(const std::vector<double>& x, int conductors,
                                   std::vector<double>* sigma = nullptr);
  /// free_charges of several densities (at most the block), their normal fields in one product
  /// (without sigma).
  std::vector<std::vector<double>> free_charges_block(const std::vector<std::vector<double>>& x,
                                                      int conductors);
  /// Frees what only blocks of vectors need (the block's FMM Solver, work arrays) until a block
  /// product needs them again.
  void release_block();

 private:
  /// grad (S u) at panel i, analytic (the dense method).
  void dense_gradient(const double* u, std::size_t i, double* x, double* y) const;
  /// Adds the arcs' correction to n . grad (S u) in g (this rank's panels); u: every panel's.
  void add_arc(const double* u, double* g) const;
  /// The work arrays phi, gx, gy for k vectors.
  void work_for(int k);
  /// k vectors of this rank's entries (x) gathered: k vectors of every entry.
  std::vector<double> gather_block(int k, const double* x) const;
  /// This rank's panel rows of A x (y) from x (every entry), S x (phi) and grad S x (gx, gy;
  /// interface rows only) at its panels; returns its part of the charge row's sum h_j x_j.
  double assemble(const double* x, const double* phi, const double* gx, const double* gy,
                  double* y) const;
  /// n . grad (S u) where the two sides of a conductor panel differ (else 0), k densities (every
  /// panel's), at this rank's panels.
  void normal_fields(int k, const double* u, double* ngrad);
  /// This rank's part of the free charges per conductor of x (every entry) with its normal field
  /// ngrad (this rank's panels), and its panels' sigma (free_charges).
  std::vector<double> charges(const double* x, const double* ngrad, int conductors,
                              std::vector<double>* sigma) const;
  GmresOptions gmres_options(const ElectrostaticOptions& o) const;
  /// The RuntimeFailure of a solve that did not converge.
  [[noreturn]] void not_converged(const GmresResult& r, const ElectrostaticOptions& o) const;
};

}  // namespace mlfma2d::es
