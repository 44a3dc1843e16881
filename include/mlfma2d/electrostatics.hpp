#pragma once
/// \file electrostatics.hpp
/// The electrostatic solve: charges, fields and the capacitance matrix of 2D conductors held at
/// given potentials (infinitely long along z, cross-sections given as polygonal contours).
///
/// Convention (SI units: metres, volts, C/m^2, C/m, F/m). In a homogeneous medium of permittivity
/// eps = eps_r * kEpsilon0, the surface charge density sigma (C/m^2) on the contours gives
///     phi(x) = -1/(2 pi eps) * integral sigma(y) log|x - y| ds(y) + c
/// with phi = V_k on conductor k. For K >= 2 conductors the total charge is zero (c, the potential
/// at infinity, is the extra unknown fixed by that) and one conductor is the reference; Q = C V
/// with C the (K-1)x(K-1) capacitance matrix per unit length, reference excluded. A single
/// conductor (K = 1) carries a given total charge. A closed contour is a zero-thickness shell: its
/// sigma is the charge of both faces together (the inner face carries none when nothing is
/// inside).
///
/// Discretisation: straight panels, one density per panel, collocation at panel centres; the
/// self and near panel integrals are analytic, everything else goes through the fast multipole
/// Solver, built once per geometry. docs/solve.md has the formulation, the choices and the
/// measured accuracy.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mlfma2d/errors.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d {

/// Vacuum permittivity (F/m), CODATA 2018.
constexpr double kEpsilon0 = 8.8541878128e-12;

/// \brief Conductor cross-sections: polygonal contours in the plane (metres).
struct Contours {
  std::vector<double> x, y;              ///< vertices of every contour, contour after contour (m)
  std::vector<std::int64_t> offsets{0};  ///< first vertex of each contour; contours + 1 entries,
                                         ///< offsets[0] = 0, the last = the vertex count
  std::vector<int> closed;               ///< per contour: 1 = closed polygon (the last vertex joins
                                         ///< the first; do not repeat it), 0 = open polyline
  std::vector<int> conductor;            ///< per contour: its conductor, 0-based; several contours
                                         ///< may form one conductor

  std::size_t contours() const { return closed.size(); }
  /// Number of conductors: the largest conductor index + 1 (0 when there are no contours).
  int conductors() const;
  /// Appends one contour.
  void add(const std::vector<double>& cx, const std::vector<double>& cy, bool is_closed,
           int conductor_index);
};

/// \brief Checks a contour set; throws InvalidInput with a one-line message naming the contour,
/// vertex or segment: array lengths, offsets, closed flags (0/1), conductor indices (>= 0, none
/// without a contour), vertex counts (open >= 2, closed >= 3), non-finite coordinates,
/// zero-length segments (a closed contour must not repeat its first vertex), and segments that
/// cross or touch, within one contour or between contours (conductors must be apart: touching
/// conductors would be one conductor, and a contour through itself is no cross-section).
void validate(const Contours& contours);

/// \brief Settings of the electrostatic solve. Every field has a default.
struct ElectrostaticOptions {
  double eps_r = 1.0;  ///< relative permittivity of the medium, > 0
  /// Potential of each conductor (V); empty = 0 V on the reference and 1 V on every other.
  std::vector<double> potentials;
  int reference = 0;           ///< reference (ground) conductor, 0-based (K >= 2)
  double total_charge = 1e-9;  ///< K = 1 only: the conductor's charge per unit length (C/m)
  /// K >= 2: solve the K-1 unit-potential right-hand sides, return C, and build sigma for
  /// `potentials` from them; false: one solve for `potentials`, no C.
  bool capacitance = true;

  std::size_t panels = 0;    ///< total panel count (>= the number of contour segments); 0 = from
                             ///< panel_size, or the default max(4096, segments)
  double panel_size = 0;     ///< largest panel length (m), instead of `panels`; 0 = unused
  double grading = 3;        ///< exponent q of the panel grading toward open ends and corners,
                             ///< >= 1 (1 = uniform); see docs/solve.md
  double corner_angle = 10;  ///< a vertex where the contour turns by more (degrees) is a corner

  double tol = 1e-10;         ///< GMRES: relative residual ||b - A x|| / ||b|| to reach, in (0, 1)
  int restart = 50;           ///< GMRES: Krylov vectors per cycle, >= 1
  int max_iterations = 5000;  ///< GMRES: iterations per right-hand side at most
  /// "block" (restricted additive Schwarz on runs of block_size neighbouring panels, each solved
  /// with block_overlap more on either side), "diagonal", "none", or "auto": block where panels
  /// are graded (open ends or corners), else none, the faster of the two on each kind of
  /// mesh (docs/solve.md).
  std::string preconditioner = "auto";
  int block_size = 32;    ///< panels per preconditioner block, >= 1
  int block_overlap = 8;  ///< block: panels solved with each block on either side, >= 0
  /// "fmm" (the fast path) or "dense" (the full analytic matrix and an LU: small N, reference).
  std::string method = "fmm";

  int quadrature_nodes = 4;  ///< Gauss-Legendre nodes per panel for the far interactions, 1..16
  double near_radius = 6;    ///< analytic for targets within near_radius * panel length of a
                             ///< panel's centre, > 0
  /// FMM settings: backend, threads, ct, level_offset, terms (Options' defaults: back end and
  /// leaf capacity chosen by the library's cost model). eps = 0 (the default here) derives the
  /// FMM accuracy from tol: eps = min(1e-6, max(1e-14, tol / 100)). `field` is ignored.
  Options fmm = default_fmm();

  static Options default_fmm() {
    Options o;
    o.eps = 0;
    return o;
  }
};

/// \brief The panels of the discretisation, in metres.
struct Panels {
  std::vector<double> x0, y0, x1, y1;  ///< end points of each panel (m)
  std::vector<double> x, y;            ///< centres: the collocation points (m)
  std::vector<double> length;          ///< panel lengths (m)
  std::vector<int> contour;            ///< contour of each panel (0-based)
  std::vector<int> conductor;          ///< conductor of each panel (0-based)
  std::size_t size() const { return x.size(); }
};

/// \brief Convergence of one GMRES solve.
struct SolveStats {
  int iterations = 0;           ///< GMRES iterations (one operator product each)
  double residual = 0;          ///< final true relative residual ||b - A x|| / ||b||
  std::vector<double> history;  ///< relative residual after each iteration (GMRES estimate)
};

/// \brief Wall-clock seconds of the phases.
struct ElectrostaticTimings {
  double discretise = 0;      ///< validation and panels
  double near = 0;            ///< near lists and analytic near corrections
  double fmm_setup = 0;       ///< the FMM Solver: tree, plan, back end
  double preconditioner = 0;  ///< blocks and their LU factors
  double solve = 0;           ///< every GMRES solve and the final residual
  std::size_t products = 0;   ///< operator products (FMM evaluation + near correction)
  double product = 0;         ///< mean seconds of one product
  double product_fmm = 0;     ///< of which the FMM evaluation (mean)
  double product_near = 0;    ///< of which the near correction (mean)
  double total = 0;           ///< set-up and solves
};

/// \brief What the solve returns.
struct ElectrostaticSolution {
  Panels panels;
  std::vector<double> sigma;       ///< C/m^2 at each panel centre, for `potentials`
  std::vector<double> charge;      ///< Q per conductor (C/m), for `potentials`
  std::vector<double> potentials;  ///< V per conductor (K = 1: V relative to the offset gauge)
  double offset = 0;               ///< c above (V); K >= 2: the potential at infinity
  double eps_r = 1;
  int reference = 0;
  /// (K-1)x(K-1), F/m, row-major: rows and columns are the conductors other than the reference,
  /// in order (`capacitance_conductors`); Q_i = sum_j C_ij V_j with V relative to the reference.
  std::vector<std::vector<double>> capacitance;
  std::vector<int> capacitance_conductors;
  std::vector<SolveStats> solves;  ///< one per right-hand side, in order
  int iterations = 0;              ///< all solves together
  double residual = 0;  ///< true relative residual of sigma for `potentials` (one more product)
  ElectrostaticTimings timings;
  TreeStats fmm_stats;         ///< the FMM tree (method fmm); fmm_stats.ct: the CT used
  std::string fmm_backend;     ///< the near-field back end used (auto resolved)
  double fmm_eps = 0;          ///< the FMM accuracy used
  std::string preconditioner;  ///< the one used ("auto" resolved)
};

/// \brief Potential and field at points, from a solution.
struct FieldAtTargets {
  std::vector<double> potential;         ///< V
  std::vector<double> field_x, field_y;  ///< E = -grad phi (V/m); on a panel (not at its ends):
                                         ///< the mean of the two sides
};

/// \brief The electrostatic solver: contours discretised and the operator (FMM Solver, near
/// corrections, preconditioner) built once, then solved for any number of right-hand sides.
class ElectrostaticSolver {
 public:
  /// Validates the contours and options (InvalidInput), discretises, builds the operator.
  ElectrostaticSolver(const Contours& contours, const ElectrostaticOptions& options = {});
  ~ElectrostaticSolver();
  ElectrostaticSolver(ElectrostaticSolver&&) noexcept;
  ElectrostaticSolver& operator=(ElectrostaticSolver&&) noexcept;

  /// sigma, Q and (K >= 2, options.capacitance) C for options.potentials.
  /// Throws RuntimeFailure when GMRES does not reach tol within max_iterations.
  ElectrostaticSolution solve();

  /// Potential and field at targets (m) for a solution of this solver. Targets exactly on a
  /// panel end point have no field: InvalidInput.
  FieldAtTargets evaluate(const ElectrostaticSolution& solution, const std::vector<double>& tx,
                          const std::vector<double>& ty);

  /// The operator every solve inverts, for a caller's own iterative solver: the potential (V) at
  /// the panel centres of the surface charge `sigma` (C/m^2, one per panel) with nothing added,
  ///     phi_i = -1/(2 pi eps) sum_j sigma_j integral over panel j of log|x_i - y| ds(y),
  /// computed as in solve() (one FMM product and the analytic near corrections; method dense: the
  /// stored matrix). The potential of a solution is this plus its `offset`.
  std::vector<double> potential_at_panels(const std::vector<double>& sigma);

  const Panels& panels() const;
  int conductors() const;
  const ElectrostaticOptions& options() const;
  /// Set-up timings (discretise, near, fmm_setup, preconditioner), then those of the last solve.
  const ElectrostaticTimings& timings() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// \brief One call: ElectrostaticSolver(contours, options).solve().
ElectrostaticSolution solve_conductors(const Contours& contours,
                                       const ElectrostaticOptions& options = {});

// ---- Closed forms (F/m) for the test geometries; eps = eps_r * kEpsilon0. Each throws
// InvalidInput, naming the argument, where the geometry is impossible (b <= a, touching wires...).

/// Coaxial line, radii a < b: 2 pi eps / ln(b/a).
double coax_capacitance(double a, double b, double eps_r = 1);
/// Eccentric coax, centres e apart (e < b - a): 2 pi eps / acosh((a^2 + b^2 - e^2) / (2ab)).
double eccentric_coax_capacitance(double a, double b, double e, double eps_r = 1);
/// Two-wire line, radius a, centre distance d > 2a: pi eps / acosh(d / (2a)).
double two_wire_capacitance(double a, double d, double eps_r = 1);
/// Lone flat strip |x| < w/2 with charge Q (C/m): sigma(x) = Q / (pi sqrt((w/2)^2 - x^2)).
double strip_sigma(double x, double w, double charge);

// ---- Contour generators (deterministic; circles are inscribed regular polygons).

/// \brief Parameters of the generated geometries (metres); each shape uses some of them.
struct ContourShape {
  double a = 1e-3;        ///< inner radius (coax), wire radius (two-wire)
  double b = 3e-3;        ///< outer radius (coax)
  double e = 1e-3;        ///< centre offset (eccentric coax)
  double d = 4e-3;        ///< centre distance (two-wire)
  double w = 1e-3;        ///< strip width (strip, microstrip), rectangle width
  double h = 0.5e-3;      ///< height of the strips above the ground (microstrip), rectangle height
  double s = 1e-3;        ///< gap between the two strips (microstrip)
  double ground = 10e-3;  ///< ground strip width (microstrip)
  std::size_t vertices = 256;  ///< vertices per circle
};

/// Names generate_contours knows: coax, eccentric-coax, two-wire, strip, microstrip, rectangle.
std::vector<std::string> contour_shapes();
/// \brief A named geometry. coax: the shield, a circle of radius b (conductor 0), around the
/// inner circle of radius a (1); eccentric-coax: the same with the inner circle moved by e along
/// x; two-wire: circles of radius a at x = -d/2 (0) and +d/2 (1); strip: one open strip of width
/// w (K = 1); microstrip: a ground strip (0) of width `ground` at y = 0 and two strips of width w
/// at height h with gap s (1 left, 2 right); rectangle: a closed w x h rectangle (K = 1).
/// Throws InvalidInput for an unknown name (listing the valid ones) or bad parameters.
Contours generate_contours(const std::string& shape, const ContourShape& p = {});

// ---- Files (HDF5, SI units; every failure an IoError naming the file, dataset and index).

/// \brief A contour input file.
struct ContourFile {
  Contours contours;
  std::vector<double> potentials;  ///< /conductors/potential if present (V), else empty
  double eps_r = 1;                ///< attribute eps_r on / if present, else 1
  bool has_eps_r = false;
};

/// Reads /contours/x, /contours/y (float64), /contours/offsets (int64, contours + 1),
/// /contours/closed (int 0/1), /contours/conductor (int), optional /conductors/potential and
/// attribute eps_r on /; checks everything validate() checks, naming the file and dataset.
ContourFile read_contours(const std::string& path);
/// Writes a contour file (atomically: temporary file + rename).
void write_contours(const std::string& path, const ContourFile& file);
/// Writes /capacitance ((K-1)x(K-1), F/m), /charge (C/m), /conductors/potential (V),
/// /panels/x, /panels/y, /panels/length, /panels/conductor, /panels/sigma (C/m^2), and with
/// `field` /targets/x, /targets/y, /targets/potential, /targets/field_x, /targets/field_y;
/// root attributes for the settings and figures. Atomic (temporary file + rename).
void write_solution(const std::string& path, const ElectrostaticSolution& solution,
                    const std::vector<double>& tx = {}, const std::vector<double>& ty = {},
                    const FieldAtTargets* field = nullptr);

}  // namespace mlfma2d
