#pragma once
/// \file electrostatics.hpp
/// The electrostatic solve of transmission-line cross-sections: charges, fields, the capacitance
/// matrix and the line parameters (L, Z0, eps_eff, modes) of 2D conductors held at given
/// potentials (infinitely long along z), in piecewise-constant dielectrics, optionally over an
/// infinite ground plane.
///
/// Convention (SI units: metres, volts, C/m^2, C/m, F/m, H/m, ohm). The unknown is the total
/// surface charge sigma_t (free + polarisation) on every conductor panel and every dielectric
/// interface panel, all in vacuum (docs/solve.md, "Formulation"):
///     phi(x) = -1/(2 pi eps0) * integral sigma_t(y) G(x, y) ds(y) + c,
/// G = log|x - y| (minus log|x - y*|, y* the mirror image of y, over a ground plane).
/// phi = V_k on conductor k; on an interface between eps- and eps+ (normal from - to +)
/// eps+ E_n(+) = eps- E_n(-). Without a ground plane the total charge is zero for K >= 2
/// conductors (c, the potential at infinity, is the unknown fixed by that), one conductor is the
/// reference and C is (K-1)x(K-1); a single conductor (K = 1) carries a given charge. Over a
/// ground plane (the reference, 0 V) every conductor is a signal conductor, C is K x K and c = 0.
/// A closed conductor contour is a zero-thickness shell: its sigma is the charge of both faces.
///
/// Discretisation: straight panels (on circular arcs: chords with their ends on the arc), one
/// density per panel, collocation at panel centres; self and near panel integrals analytic,
/// everything else through the fast multipole Solver, built once per mesh. With an accuracy
/// target the mesh is refined until the estimated error of C is below it. docs/solve.md has the
/// formulation, the choices and the measured accuracy.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mlfma2d/errors.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d {

/// Vacuum permittivity (F/m), CODATA 2018.
constexpr double kEpsilon0 = 8.8541878128e-12;

/// The `conductor` entry of a contour that bounds a dielectric region.
constexpr int kDielectric = -1;

/// \brief Cross-sections: conductor contours and dielectric region boundaries in the plane (m).
///
/// Segment i of a contour joins vertex i to vertex i + 1 (the last of a closed contour joins it
/// to vertex 0). It is straight, or a circular arc when bulge[i] != 0: bulge = tan(theta / 4),
/// theta the arc's included angle, positive when the arc turns counter-clockwise from vertex i
/// to vertex i + 1 (the DXF/LWPOLYLINE convention; 1 = a half circle). A full circle is a closed
/// contour of two vertices with bulge 1 on both segments.
///
/// A dielectric region (conductor = kDielectric) is the inside of a closed contour with relative
/// permittivity eps_r[contour]; regions may nest (a sleeve inside a larger region) and touch
/// each other or conductors (a trace on a substrate, a conductor inside a coating) but not
/// cross; outside every region the background eps_r applies (ElectrostaticOptions::eps_r).
/// Where a region boundary runs along a conductor or the ground plane it is no interface: those
/// pieces are dropped; a boundary shared by two regions is one interface.
struct Contours {
  std::vector<double> x, y;              ///< vertices of every contour, contour after contour (m)
  std::vector<std::int64_t> offsets{0};  ///< first vertex of each contour; contours + 1 entries,
                                         ///< offsets[0] = 0, the last = the vertex count
  std::vector<int> closed;               ///< per contour: 1 = closed (the last vertex joins the
                                         ///< first; do not repeat it), 0 = open polyline
  std::vector<int> conductor;            ///< per contour: its conductor, 0-based (several contours
                                         ///< may form one conductor), or kDielectric
  std::vector<double> bulge;  ///< per vertex: the arc of the segment it starts (see above);
                              ///< empty = every segment straight
  std::vector<double> eps_r;  ///< per contour: relative permittivity inside a dielectric
                              ///< region (> 0); ignored for conductors; empty = no region

  std::size_t contours() const { return closed.size(); }
  /// Number of conductors: the largest conductor index + 1 (0 when there are no conductors).
  int conductors() const;
  /// Whether some contour bounds a dielectric region.
  bool has_dielectrics() const;
  /// Appends one conductor contour; `arc_bulge`: one per vertex, or empty (straight).
  void add(const std::vector<double>& cx, const std::vector<double>& cy, bool is_closed,
           int conductor_index, const std::vector<double>& arc_bulge = {});
  /// Appends the closed boundary of a dielectric region of relative permittivity `region_eps_r`.
  void add_region(const std::vector<double>& cx, const std::vector<double>& cy, double region_eps_r,
                  const std::vector<double>& arc_bulge = {});
};

/// \brief Checks a contour set; throws InvalidInput with a one-line message naming the contour,
/// vertex or segment: array lengths, offsets, closed flags (0/1), conductor indices (>= 0 or
/// kDielectric, none without a contour), region permittivities (> 0, finite; regions closed),
/// bulges (finite, |bulge| <= 1e3), vertex counts (open >= 2, closed >= 3, or 2 with arcs),
/// non-finite coordinates, zero-length segments (a closed contour must not repeat its first
/// vertex), segments that cross or touch within one contour or between conductors (touching
/// conductors would be one conductor), regions that cross each other or a conductor, and with a
/// ground plane at y0 (ground_plane_y non-NaN) any contour below it or a conductor touching it.
void validate(const Contours& contours, double ground_plane_y = std::nan(""));

/// \brief Settings of the electrostatic solve. Every field has a default.
struct ElectrostaticOptions {
  double eps_r = 1.0;  ///< relative permittivity of the background medium (outside every
                       ///< dielectric region), > 0
  /// An infinite perfect ground plane y = ground_plane_y (m), metal below, the reference at 0 V
  /// (images); false: none.
  bool ground_plane = false;
  double ground_plane_y = 0;
  /// Potential of each conductor (V); empty = 0 V on the reference and 1 V on every other.
  std::vector<double> potentials;
  int reference = 0;           ///< reference (ground) conductor, 0-based (K >= 2)
  double total_charge = 1e-9;  ///< K = 1 only: the conductor's charge per unit length (C/m)
  /// K >= 2: solve the K-1 unit-potential right-hand sides, return C, and build sigma for
  /// `potentials` from them; false: one solve for `potentials`, no C.
  bool capacitance = true;

  /// Relative accuracy wanted on C and the figures derived from it (> 0): solve() refines the
  /// mesh (every panel count doubled) until its error estimate is below it, starting from the
  /// mesh below; 0 = one solve on that mesh, no estimate.
  double accuracy = 0;
  std::size_t max_panels = 4000000;  ///< refinement stops (estimate above accuracy) past this
  /// Called during solve() with what it is doing (mesh, right-hand side, iteration, residual),
  /// at every GMRES iteration: a caller throttles it; empty = silent.
  std::function<void(const std::string&)> progress;

  std::size_t panels = 0;    ///< total panel count (>= 1 per contour segment); 0 = from
                             ///< panel_size, or the default: 4096 shared by length, at least
                             ///< 8 on a segment with a graded end (open end, corner, junction)
                             ///< and panels no longer than half the gap to the nearest other
                             ///< contour
  double panel_size = 0;     ///< largest panel length (m), instead of `panels`; 0 = unused
  double grading = 3;        ///< exponent q of the panel grading toward open ends and corners,
                             ///< >= 1 (1 = uniform); see docs/solve.md
  double corner_angle = 10;  ///< a vertex where the contour turns by more (degrees) is a corner

  double tol = 1e-10;         ///< GMRES: relative residual ||b - A x|| / ||b|| to reach, in (0, 1)
  int restart = 50;           ///< GMRES: Krylov vectors per cycle, >= 1
  int max_iterations = 5000;  ///< GMRES: iterations per right-hand side at most
  /// "block" (restricted additive Schwarz on runs of block_size neighbouring panels, each solved
  /// with block_overlap more on either side), "diagonal", "none", or "auto" (= block: never far
  /// from the best, where none can take many times its iterations; docs/solve.md).
  std::string preconditioner = "auto";
  int block_size = 32;    ///< panels per preconditioner block, >= 1
  int block_overlap = 8;  ///< block: panels solved with each block on either side, >= 0
  /// Two or more signal conductors (method fmm): the unit-potential right-hand sides of C (and
  /// of C0) solved as one block, GMRES in lockstep on all of them (each its own Krylov space and
  /// convergence test), each step one FMM evaluation of every column not yet converged
  /// (Options::densities); false: one right-hand side after the other. The same C to within tol.
  bool batched = true;
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
  std::vector<int> conductor;          ///< conductor of each panel (0-based), or kDielectric
  /// Relative permittivity on either side: eps_left on the left of the direction x0 -> x1, the
  /// side the normal (-(y1 - y0), x1 - x0) / length points to.
  std::vector<double> eps_left, eps_right;
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
  double discretise = 0;        ///< validation and panels
  double near = 0;              ///< near lists and analytic near corrections
  double fmm_setup = 0;         ///< the FMM Solvers (nd = 1, and the block's): tree, plan, back end
  double preconditioner = 0;    ///< blocks and their LU factors
  double solve = 0;             ///< every GMRES solve and the final residual
  std::size_t products = 0;     ///< operator products (FMM + near correction), one per vector
  std::size_t evaluations = 0;  ///< FMM evaluations: one per product, or per block of them
  double product = 0;       ///< mean seconds of one product (a block's time shared by its vectors)
  double product_fmm = 0;   ///< of which the FMM evaluation (mean)
  double product_near = 0;  ///< of which the near correction (mean)
  double total = 0;         ///< set-up and solves
};

/// \brief One propagation mode of a multiconductor line (TEM, lossless).
struct LineMode {
  double velocity = 0;          ///< m/s
  double eps_eff = 0;           ///< (c / velocity)^2
  double impedance = 0;         ///< ohm: V.V / (V.I) for the mode's voltages V and currents I
  std::vector<double> voltage;  ///< the mode's voltages on the signal conductors (max |.| = 1)
};

/// \brief Line parameters per unit length from C and C0 (docs/solve.md): the signal conductors
/// are those of capacitance_conductors.
struct LineParameters {
  std::vector<std::vector<double>> capacitance_vacuum;  ///< C0: every eps_r = 1 (F/m)
  std::vector<std::vector<double>> inductance;          ///< L = mu0 eps0 C0^-1 (H/m)
  /// The mutual (SPICE) form of C: mutual[i][j] = -C_ij (i != j), to ground: sum_j C_ij (F/m).
  std::vector<std::vector<double>> capacitance_mutual;
  std::vector<double> capacitance_to_ground;
  /// One signal conductor: sqrt(L/C) (ohm), C/C0, c / sqrt(eps_eff) (m/s); else NaN.
  double z0 = 0, eps_eff = 0, velocity = 0;
  /// Modes (eigenvectors of L C), slowest first; for a symmetric pair the even mode (voltages
  /// equal) and the odd mode (opposite).
  std::vector<LineMode> modes;
  bool symmetric_pair = false;  ///< two signal conductors with C11 = C22 within 1e-6
};

/// \brief One mesh of an accuracy-driven solve.
struct MeshLevel {
  std::size_t panels = 0;
  double change = 0;  ///< max_ij |C_ij - C_ij(previous)| / sqrt(C_ii C_jj), NaN on the first
  double seconds = 0;
  int iterations = 0;
};

/// \brief What the solve returns.
struct ElectrostaticSolution {
  Panels panels;
  /// C/m^2 at each panel centre, for `potentials`: the free charge on conductor panels (both
  /// faces), the polarisation charge on interface panels.
  std::vector<double> sigma;
  /// C/m^2: the total charge (free + polarisation) whose field in vacuum is the field.
  std::vector<double> sigma_total;
  std::vector<double> charge;      ///< free Q per conductor (C/m), for `potentials`
  std::vector<double> potentials;  ///< V per conductor (K = 1: V relative to the offset gauge)
  double offset = 0;  ///< c above (V); K >= 2: the potential at infinity; ground plane: 0
  double eps_r = 1;   ///< the background's
  bool ground_plane = false;
  double ground_plane_y = 0;
  int reference = 0;  ///< the reference conductor; -1: the ground plane
  /// Maxwell matrix, F/m, row-major: rows and columns are the signal conductors (all but the
  /// reference), in order (`capacitance_conductors`); Q_i = sum_j C_ij V_j, V relative to the
  /// reference.
  std::vector<std::vector<double>> capacitance;
  std::vector<int> capacitance_conductors;
  LineParameters line;  ///< from C (empty when capacitance is off)
  /// Accuracy-driven solves: the estimated relative error of C (and of the figures derived from
  /// C and C0), an upper bound where the meshes converge at first order or better; NaN without.
  double accuracy_estimate = std::nan("");
  double accuracy_target = 0;      ///< options.accuracy
  bool accuracy_met = false;       ///< accuracy_estimate <= accuracy_target (false if not checked)
  std::vector<MeshLevel> meshes;   ///< every mesh solved, coarse to fine (the last is `panels`)
  std::vector<SolveStats> solves;  ///< one per right-hand side, in order
  int iterations = 0;              ///< all solves together
  double residual = 0;  ///< true relative residual of sigma for `potentials` (one more product)
  ElectrostaticTimings timings;
  TreeStats fmm_stats;         ///< the FMM tree (method fmm); fmm_stats.ct: the CT used
  std::string fmm_backend;     ///< the near-field back end used (auto resolved)
  double fmm_eps = 0;          ///< the FMM accuracy used
  std::string preconditioner;  ///< the one used ("auto" resolved)
  double tol = 0;              ///< the GMRES tolerance used (tightened below an accuracy target)
  bool batched = false;        ///< C's (and C0's) right-hand sides were solved as one block
};

/// \brief Potential and field at points, from a solution.
struct FieldAtTargets {
  std::vector<double> potential;         ///< V (at a panel's end: the limit, finite)
  std::vector<double> field_x, field_y;  ///< E = -grad phi (V/m); on a panel (not at its ends):
                                         ///< the mean of the two sides; at a panel end: NaN
  std::size_t undefined_field = 0;       ///< targets on a panel end (field NaN)
};

/// \brief The processes a solve runs over: made by solve_ranks(MPI_Comm) (mlfma2d/distributed.hpp,
/// a build with MPI); opaque here.
class SolveRanks;

/// \brief The electrostatic solver: contours discretised and the operator (FMM Solver, near
/// corrections, preconditioner) built once, then solved for any number of right-hand sides.
class ElectrostaticSolver {
 public:
  /// Validates the contours and options (InvalidInput), discretises, builds the operator.
  ElectrostaticSolver(const Contours& contours, const ElectrostaticOptions& options = {});
  /// The same over the ranks of an MPI communicator, `ranks` = solve_ranks(comm)
  /// (mlfma2d/distributed.hpp; null: this process alone). Collective: every rank passes the same
  /// contours and options and calls every member in the same order; each holds the panels and
  /// applies its contiguous part of the system's rows (its panels' FMM sources and targets
  /// through the DistributedSolver, their near corrections and preconditioner blocks), GMRES's
  /// dot products and norms summed over the ranks; every rank gets the whole solution
  /// (docs/distributed.md, "The solve over ranks"). The dense method runs whole on every rank.
  ElectrostaticSolver(const Contours& contours, const ElectrostaticOptions& options,
                      std::shared_ptr<const SolveRanks> ranks);
  ~ElectrostaticSolver();
  ElectrostaticSolver(ElectrostaticSolver&&) noexcept;
  ElectrostaticSolver& operator=(ElectrostaticSolver&&) noexcept;

  /// sigma, Q and (K >= 2 or a ground plane, options.capacitance) C and the line parameters for
  /// options.potentials. With options.accuracy > 0 the mesh is refined (this solver then holds
  /// the final mesh). Throws RuntimeFailure when GMRES does not reach tol within max_iterations
  /// (naming the closest gap between contours when it is far below the panels there).
  ElectrostaticSolution solve();

  /// Potential and field at targets (m) for a solution of this solver (the final mesh of an
  /// accuracy-driven solve). Targets exactly on a panel end point: the potential's limit and a
  /// NaN field (counted in undefined_field).
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

/// \brief How far capacitance matrix `a` is from `reference` relative to the diagonal:
/// max_ij |a_ij - reference_ij| / sqrt(|reference_ii reference_jj|), the figure
/// ElectrostaticSolution::change reports between meshes (0 for two empty matrices). Throws
/// InvalidInput where the sizes differ.
double capacitance_difference(const std::vector<std::vector<double>>& a,
                              const std::vector<std::vector<double>>& reference);

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
/// Coax with a dielectric sleeve: radii a < r1 < b, eps1 for a < r < r1, eps2 for r1 < r < b:
/// 2 pi eps0 / (ln(r1/a)/eps1 + ln(b/r1)/eps2).
double coax_sleeve_capacitance(double a, double r1, double b, double eps1, double eps2);
/// Wire of radius a, centre at height h > a over an infinite ground plane: 2 pi eps / acosh(h/a).
double wire_over_ground_capacitance(double a, double h, double eps_r = 1);
/// Centred zero-thickness stripline of width w between planes b apart (Cohn):
/// Z0 = (30 pi / sqrt(eps_r)) K(k) / K(k'), k = sech(pi w / (2b)), k' = tanh(pi w / (2b)) (ohm).
double stripline_impedance(double w, double b, double eps_r = 1);
/// \brief Microstrip by Hammerstad and Jensen (1980), zero thickness: width w, substrate height h.
struct MicrostripFormula {
  double z0 = 0;  ///< ohm (stated accuracy: better than 0.01 % for w/h <= 1000 in air)
  double eps_eff =
      0;  ///< (stated accuracy: better than 0.2 % for eps_r <= 128, 0.01 <= w/h <= 100)
};
MicrostripFormula hammerstad_jensen(double w, double h, double eps_r);

// ---- Contour generators (deterministic).

/// \brief Parameters of the generated geometries (metres); each shape uses some of them.
struct ContourShape {
  double a = 1e-3;        ///< inner radius (coax), wire radius (two-wire, wire shapes)
  double b = 3e-3;        ///< outer radius (coax); plate spacing (stripline)
  double e = 1e-3;        ///< centre offset (eccentric coax)
  double d = 4e-3;        ///< centre distance (two-wire)
  double w = 1e-3;        ///< strip width (strip, microstrip, lines), rectangle width
  double h = 0.5e-3;      ///< height of the strips above the ground (microstrip shapes: the
                          ///< substrate height), rectangle height; wire centre height (wire shapes)
  double s = 1e-3;        ///< gap between two strips (coupled lines), slot width (cpwg)
  double t = 0;           ///< trace thickness (0: a zero-thickness strip)
  double r1 = 2e-3;       ///< outer radius of a dielectric sleeve or coating
  double eps_r = 4.4;     ///< the dielectric's relative permittivity (substrate, sleeve, coating)
  double ground = 10e-3;  ///< ground strip width (the old `microstrip`); substrate width of the
                          ///< line shapes (0 = 20 (w + s + h)), box width of stripline (0: 10 b)
  std::size_t vertices = 256;  ///< vertices per circle of the polygonal shapes (coax,
                               ///< eccentric-coax, two-wire); the line shapes use exact arcs
};

/// Names generate_contours knows: coax, eccentric-coax, two-wire, strip, microstrip, rectangle
/// (polygons, one medium), and the line shapes over an infinite ground plane at y = 0 (set
/// ElectrostaticOptions::ground_plane; ContourFile carries it): microstrip-line,
/// coupled-microstrip, cpwg, coated-wire; and stripline (a closed shield), coax-sleeve.
std::vector<std::string> contour_shapes();
/// Whether a named shape is meant to be solved over the ground plane y = 0.
bool contour_shape_has_ground_plane(const std::string& shape);
/// \brief A named geometry. coax: the shield, a circle of radius b (conductor 0), around the
/// inner circle of radius a (1); eccentric-coax: the same with the inner circle moved by e along
/// x; two-wire: circles of radius a at x = -d/2 (0) and +d/2 (1); strip: one open strip of width
/// w (K = 1); microstrip: a ground strip (0) of width `ground` at y = 0 and two strips of width w
/// at height h with gap s (1 left, 2 right); rectangle: a closed w x h rectangle (K = 1).
/// Line shapes (docs/solve.md has pictures): microstrip-line: a trace of width w, thickness t on
/// a substrate (eps_r, height h, width `ground`) over the plane y = 0; coupled-microstrip: two such
/// traces with gap s; cpwg: a trace with coplanar grounds (conductor 0, width `ground`/2 - ...)
/// at gap s each side, on the substrate over the plane; coated-wire: a wire of radius a,
/// centre height h, coated to radius r1 (eps_r) over the plane; stripline: a trace (1) of width
/// w, thickness t centred in a closed shield (0) of height b and width `ground`, filled with
/// eps_r; coax-sleeve: coax (shield b: 0, inner a: 1) with a sleeve of radius r1 (eps_r) around
/// the inner conductor, exact circles.
/// Throws InvalidInput for an unknown name (listing the valid ones) or bad parameters.
Contours generate_contours(const std::string& shape, const ContourShape& p = {});

// ---- Files (HDF5, SI units; every failure an IoError naming the file, dataset and index).

/// \brief A contour input file.
struct ContourFile {
  Contours contours;
  std::vector<double> potentials;  ///< /conductors/potential if present (V), else empty
  double eps_r = 1;                ///< attribute eps_r on / if present (background), else 1
  bool has_eps_r = false;
  /// attribute ground_plane_y on / (m): an infinite ground plane there; absent: none.
  bool ground_plane = false;
  double ground_plane_y = 0;
};

/// Reads /contours/x, /contours/y (float64), /contours/offsets (int64, contours + 1),
/// /contours/closed (int 0/1), /contours/conductor (int, -1 for a dielectric region), optional
/// /contours/bulge (float64, per vertex), /contours/eps_r (float64, per contour; needed with
/// regions), /conductors/potential, attributes eps_r and ground_plane_y on /; checks everything
/// validate() checks, naming the file and dataset.
ContourFile read_contours(const std::string& path);
/// Writes a contour file (atomically: temporary file + rename).
void write_contours(const std::string& path, const ContourFile& file);
/// Writes the solution (docs/solve.md, "Files"): the Maxwell /capacitance of the signal
/// conductors (F/m), C0, L, the mutual form and the modes, /conductors/{potential,charge,kind},
/// the panels (ends, centres, lengths, contour, conductor, both sides' eps_r, sigma, sigma_total),
/// the meshes and solves, and with `field` /targets/x, /targets/y, /targets/potential,
/// /targets/field_x, /targets/field_y; every dataset with a description and units; root
/// attributes for the settings, the accuracy and the figures. Atomic (temporary file + rename).
void write_solution(const std::string& path, const ElectrostaticSolution& solution,
                    const std::vector<double>& tx = {}, const std::vector<double>& ty = {},
                    const FieldAtTargets* field = nullptr);
/// Writes L and C (signal conductors) in the HSPICE W-element RLGC text format with R = G = 0
/// (N, then the lower triangles of L0 and C0, rows of R0 and G0 as zeros), atomically.
/// Throws InvalidInput when the solution has no capacitance matrix.
void write_rlgc(const std::string& path, const ElectrostaticSolution& solution);

}  // namespace mlfma2d
