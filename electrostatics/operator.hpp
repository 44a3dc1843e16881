#pragma once
// The discretised single-layer operator, in normalised coordinates (docs/math.md section 8.8):
//   (S u)_i = sum_j u_j I_j(x_i),    I_j(x) = integral over panel j of log|x - y| ds(y),
// for targets x_i (the panel centres, or extra points).
//
// Fast path: I_j(x) ~ sum_k (h_j / 2) w_k log|x - y_jk| at the panel's Gauss-Legendre nodes y_jk
// for all pairs, through one FMM Solver built once (sources: every node, charges u_j (h_j/2) w_k);
// then, for the near pairs (|x_i - centre_j| <= near_radius * h_j), the quadrature is replaced
// by the closed form: a sparse correction C_ij = I_j(x_i) - sum_k (h_j / 2) w_k log|x_i - y_jk|,
// the second term being exactly what the FMM's direct near field added (same pair formula, same
// coincident-point rule). docs/solve.md gives the quadrature error that fixes the two numbers.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "electrostatics/geometry.hpp"
#include "electrostatics/near.hpp"
#include "electrostatics/ranks.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d::es {

class SingleLayer {
 public:
  /// Targets (tx, ty) in normalised coordinates; `field`: also grad (S u). Over a ground plane
  /// (panels.mirror) every panel has a negated image: S then means S - S*. Over ranks
  /// (electrostatics/ranks.hpp) (tx, ty) are this rank's targets, and the FMM takes the nodes of
  /// this rank's panels `here` (and their images): the others' come from their ranks. `block` >
  /// 1: a second FMM for that many densities (Options::densities), for apply_block.
  SingleLayer(const PanelSet& panels, const std::vector<double>& tx, const std::vector<double>& ty,
              const Options& fmm, int nodes, double near_radius, bool field,
              const SolveRanks& ranks, const PointRange& here, int block = 1);
  ~SingleLayer();
  /// phi = S u at the targets; with field, gx, gy = grad_x (S u) (else may be null). u: the
  /// densities of every panel (every rank passes the same). Collective over ranks.
  void apply(const double* u, double* phi, double* gx, double* gy);
  /// apply() on k <= block() vectors at once: u holds k densities (panels each), phi, gx, gy
  /// k vectors of the targets, one after the other. k = block(): one evaluation of the block
  /// Solver. Fewer (columns of a lockstep solve have converged): the block Solver with zero
  /// densities in the free places, or one evaluation of the nd = 1 Solver per vector, whichever
  /// the times measured so far say is cheaper (k t_1 against t_block; t_1 measured once here
  /// when not yet known; over ranks the times summed over the ranks, so that every rank takes
  /// the same way). The near corrections run over all k vectors per entry. Collective.
  void apply_block(int k, const double* u, double* phi, double* gx, double* gy);

  /// How apply_block serves fewer than block() vectors: as above, or always one way (tests and
  /// the measurement of the two, docs/solve.md).
  enum class Tail { cheaper, keep_in_block, one_by_one };
  Tail tail = Tail::cheaper;

  /// Frees the block Solver and the block's work arrays (a second FMM's memory) until an
  /// apply_block of more than one vector makes them again.
  void release_block();

  int block() const { return block_; }
  const TreeStats& stats() const { return fmm_->stats(); }
  const AutoChoice& auto_choice() const { return fmm_->auto_choice(); }
  std::size_t near_entries() const { return near_.col.size(); }
  bool field() const { return field_; }
  std::size_t products = 0;     ///< vectors multiplied (a block of k counts k)
  std::size_t evaluations = 0;  ///< FMM evaluations (a block of k in one evaluation counts 1)
  double seconds_fmm = 0, seconds_near = 0;  ///< all products together
  double seconds_setup_near = 0, seconds_setup_fmm = 0;

 private:
  void make_block();  // the block FMM and its work arrays
  // The nodes of this rank's columns (here_) of every column's (sx, sy): its FMMs' sources.
  void rank_nodes(const std::vector<double>& sx, const std::vector<double>& sy,
                  std::vector<double>* x, std::vector<double>* y) const;
  // Fewer than block() vectors: k evaluations of the nd = 1 FMM cheaper than one of the block's
  // (the times measured so far; collective over ranks).
  bool one_by_one_cheaper(int k) const;
  void work_arrays(int vectors);  // sized for that many vectors
  // The densities of k vectors of u_ (from vector `first`) at the FMM's sources into q_, as
  // `slots` >= k densities (the free ones zero).
  void charges(int first, int k, int slots);
  // One evaluation of the nd = 1 FMM (one = true) or the block FMM on q_: the potential
  // into phi, the FMM's field into ex, ey (null without the field); timed per Solver.
  void evaluate(bool one, double* phi, double* ex, double* ey);
  // Adds the near corrections of k vectors (densities in u_) to phi; gx, gy from ex_, ey_.
  void near(int k, double* phi, double* gx, double* gy);

  const PanelSet& panels_;
  std::size_t columns_;  ///< panels, and their images over a ground plane
  std::size_t targets_;
  std::vector<double> weight_;  ///< (h_j / 2) w_k, node after node, column after column
  std::size_t nodes_;
  bool field_;
  int threads_;
  int block_;
  Options fmm_options_;
  const SolveRanks& ranks_;
  std::vector<std::size_t> here_;    ///< the columns whose nodes this rank's FMMs take
  std::vector<double> tx_, ty_;      ///< the targets (block > 1: the block FMM is made again)
  std::unique_ptr<FieldSum> fmm_;    ///< nd = 1
  std::unique_ptr<FieldSum> batch_;  ///< nd = block (block > 1, until release_block)
  double seconds_one_ = 0, seconds_batch_ = 0;  ///< evaluation times of each FMM, summed
  std::size_t count_one_ = 0, count_batch_ = 0;
  SparseRows near_;                        ///< C_ij for the potential (columns: as above)
  std::vector<double> near_gx_, near_gy_;  ///< the same for the gradient (field only)
  /// Work arrays, each for up to block vectors: u_ the densities of every column, q_ at the
  /// sources, ex_, ey_ the FMM's field and pad_ its potential in the free places.
  std::vector<double> u_, q_, ex_, ey_, pad_;
};

/// The segment of column j of the system (j >= n: the image of panel j - n in the plane).
Segment column_segment(const PanelSet& panels, std::size_t j);

/// \brief The normal derivative of S on arcs, corrected near the target. A chord carries the
/// kernel n_x . (x - y) / |x - y|^2 of its neighbours on the same circle with an O(h) error (the
/// polygon's corners), which the second-kind rows would keep as a first-order error; on the
/// circle the kernel is the constant (n_x . e_r) / (2 r). Row i (an interface panel, or a conductor
/// panel with different sides, on an arc) holds, for the panels j of its circle within
/// near_radius h_j, (n_i . e_r) l_j / (2 r) - n_i . grad I_j(x_i), l_j the panel's arc length.
SparseRows arc_corrections(const PanelSet& panels, double near_radius);

/// One entry of the system's panel block, analytic: row i, unknown j (images included),
///   conductor row:  -(I_j(x_i) - I_j*(x_i))
///   interface row:  pi delta_ij + lambda_i [n_i . grad (I_j - I_j*)(x_i) + arc_ij],
///                   lambda = (eps_left - eps_right) / (eps_left + eps_right),
/// arc_ij from arc_corrections (may be null: none).
double system_entry(const PanelSet& panels, std::size_t i, std::size_t j,
                    const SparseRows* arc = nullptr);

/// The system's panel block (every entry analytic: the dense method). Column-major n x n in `a`.
void dense_system(const PanelSet& panels, const SparseRows& arc, std::vector<double>* a,
                  int threads);

/// \brief Right preconditioner of the system [A e; w h^T 0] (A the panel block of system_entry,
/// e = 1 on conductor rows: the constant c; the weighted total-charge row), or of A alone over a
/// ground plane (no border). B ~ A is one of:
///  - "block": restricted additive Schwarz (Cai & Sarkis 1999) on runs of block_size neighbouring
///    panels of one contour: each run is solved together with `overlap` panels on either side
///    (wrapping around closed contours; its LU factored once) and only the run's own values are
///    kept. The overlap matters: plain block-Jacobi inverts each run as if it were a strip of its
///    own, with sigma ~ d^-1/2 at the run's ends, which costs many iterations (docs/solve.md).
///    The border is then eliminated exactly for B: z = B^-1 (r - 1 zeta), zeta from
///    w h^T z = rho, so the constant and the charge row cost no iterations;
///  - "diagonal": the self integrals, the border left as it is (eliminating it through the
///    diagonal, which underestimates the potential of a uniform charge a thousandfold, loses
///    digits to cancellation: GMRES's residual estimate then drifts from the true residual);
///  - "none": the identity.
class Preconditioner {
 public:
  /// bordered: with the constant and charge row (weight w); else A alone. Over ranks: this
  /// rank's rows are the panels `here` (and the border when `border`); it factors the blocks
  /// whose runs meet them.
  Preconditioner(const PanelSet& panels, const SparseRows& arc, const std::string& kind,
                 int block_size, int overlap, bool bordered, double weight, int threads,
                 const SolveRanks& ranks, const PointRange& here, bool border);
  ~Preconditioner();
  /// r, z: this rank's entries (its panels, then the border when it holds it); one process:
  /// n + 1 entries (panels, then the border), or n without the border. Collective over ranks.
  void apply(const double* r, double* z) const;

 private:
  void apply_b(const double* r, double* z) const;  // z = B^-1 r at this rank's panels; r: all
  struct Blocks;
  std::unique_ptr<Blocks> blocks_;
  std::vector<double> inverse_diagonal_;  ///< this rank's panels'
  std::vector<double> wh_;                ///< w h_j: the border row (block), this rank's panels
  std::vector<double> g_;                 ///< B^-1 e (block), this rank's panels
  double s_ = 1;                          ///< w h^T B^-1 1
  std::size_t n_;
  bool bordered_;
  int threads_;
  const SolveRanks& ranks_;
  PointRange here_;
  bool border_;  ///< this rank holds the border's entry (the last of its entries)
};

}  // namespace mlfma2d::es
