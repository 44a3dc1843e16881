#pragma once
/// \file mlfma2d.hpp
/// Public API of mlfma2d: a Wang-style multilevel fast multipole method for the 2D log kernel.
///
/// Convention (units-free): for targets x_i and sources y_j with real charges q_j and dipoles of
/// strength d_j and orientation v_j (docs/math.md section 1),
///     phi(x_i) = sum_j q_j log|x_i - y_j| + sum_j d_j v_j . (x_i - y_j) / |x_i - y_j|^2
///     E(x_i)   = -grad phi(x_i),   H(x_i) = the Hessian of phi (d2/dx2, d2/dxdy, d2/dy2)
/// No 1/(2 pi) factor. A pair whose two points coincide exactly (x_i == y_j) is skipped, so in
/// self-evaluation (targets = sources) the self pair contributes nothing.
///
/// Typical use: build a Solver once for a geometry, then evaluate many charge vectors on it --
/// or Options::densities of them at once, in one pass over the tree.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mlfma2d/errors.hpp"

namespace mlfma2d {

/// \brief Library version, "major.minor.patch".
const char* version();

/// \brief Options::ct for "choose it by the cost model".
constexpr int kAutoCapacity = 0;
/// \brief The papers' clustering threshold: Options::ct when a level offset is given without ct.
constexpr int kPapersCapacity = 15;

/// \brief Solver settings. Every field has a sensible default.
struct Options {
  /// The tree: "adaptive" (a box is split while it holds more than ct points; leaves on any
  /// level) or "uniform" (the papers' Wang-style tree: every leaf on the last level L).
  std::string tree = "adaptive";
  /// Leaf capacity CT: most points in a leaf box (>= 1). 0 ("auto", the default): chosen by the
  /// cost model for this machine and back end when level_offset is 0, else the papers' 15.
  int ct = kAutoCapacity;
  /// Moves the leaves after CT placed them: +i = i levels finer, -i = i levels coarser (the
  /// CLI's --levels +-i; on the uniform tree the change of its height L).
  int level_offset = 0;
  double eps = 1e-6;  ///< target relative L2 error vs direct summation, 0 < eps < 1
  int terms = 0;      ///< expansion terms p; 0 derives p from eps
  /// Near-field back end (see near_field_backends()), or "auto" (the default): the fastest
  /// available here, the GPU back end when a device is found, else cpu.
  std::string backend = "auto";
  int threads = 0;  ///< OpenMP threads; 0 = the OpenMP default
  /// Pin an evaluation's threads: the OpenMP team on distinct cores (one hardware thread per
  /// core first), a resident GPU back end's host thread (shared, repetition-gpu) on the cores
  /// the team leaves; the caller's thread gets its mask back after each evaluation. Only when the
  /// threads cover every core the process may use (fewer leave the cores to the system, which
  /// spreads several processes better than fixed CPUs), and never when OMP_PLACES,
  /// OMP_PROC_BIND, GOMP_CPU_AFFINITY or KMP_AFFINITY is set or the process has fewer CPUs than
  /// threads.
  bool place_threads = true;
  bool field = false;  ///< also compute the field E = -grad phi
  /// Also compute the Hessian of phi at the targets: d2phi/dx2, d2phi/dxdy, d2phi/dy2.
  bool hessian = false;
  /// nd: the density vectors one evaluation takes and returns together (one pass over the tree;
  /// the near field computes each pair's kernel once for all of them). Arrays are nd x N,
  /// row-major: density d's value for source j at d * N + j.
  int densities = 1;
  bool charges = true;         ///< the sources carry charges q
  bool dipoles = false;        ///< the sources carry dipoles (strength d, orientation v)
  std::size_t gpu_memory = 0;  ///< device-memory budget in bytes for GPU back ends; 0 = free memory
  std::size_t chunk_targets = 0;  ///< GPU back ends: at most this many targets per chunk; 0 = auto
  /// ct auto: the file caching the cost model's constants per machine ("" = the default place,
  /// $XDG_CACHE_HOME/mlfma2d; "none" = no cache, calibrate every time).
  std::string calibration_cache;
  bool recalibrate = false;  ///< ct auto: measure the constants anew even if the cache has them
};

/// \brief Wall-clock seconds of each phase of the last evaluation (0 where a phase did not run).
struct Timings {
  double tree = 0, plan = 0, setup = 0;  ///< geometry set-up (tree, plan, back-end set-up)
  /// ct auto: the cost model (its calibration when not cached, every candidate's tree and plan).
  /// The chosen plan is built within it: `plan` is then that plan's part of `choose`, not time
  /// beside it (and `tree` the points' preparation and sorting only).
  double choose = 0;
  double device_wait = 0;  ///< of setup: waiting for the device's start (first use in a
                           ///< process) and the pinned buffers made beside the tree
  double p2m = 0, m2m = 0, m2l = 0, l2l = 0, l2p = 0;  ///< far field, by operator
  double p2l = 0, m2p = 0;  ///< the adaptive tree's X (P2L) and W (M2P) lists
  /// The strengths made ready (merged sources summed, dipoles' moments) and the outputs finished
  /// (back from scaled coordinates, d2phi/dy2).
  double strengths = 0;
  double near_collect = 0, near_transfer = 0, near_kernel = 0, near_return = 0;  ///< P2P phases
  double near = 0;   ///< P2P wall time, all phases
  double far = 0;    ///< far field wall time, all operators
  double total = 0;  ///< one evaluation, wall time (excludes tree/plan/setup)
};

/// \brief Figures of the tree and interaction plan, fixed when the Solver is built.
struct TreeStats {
  std::size_t n_sources = 0, n_targets = 0;
  bool self = true;            ///< targets are the sources
  std::string tree;            ///< "adaptive" or "uniform"
  int levels = 0;              ///< tree height L used (level 1 = root): the deepest leaf's level
  int levels_ct = 0;           ///< L fixed by CT, before level_offset
  bool levels_capped = false;  ///< CT could not be met: L hit the deepest supported level
  int ct = 0;
  std::size_t t = 0;             ///< most points (sources or targets) in a leaf box
  double D = 0;                  ///< N / 4^(L-1): mean points per last-level box of a full tree
  std::size_t leaf_boxes = 0;    ///< non-empty leaf boxes (all on level L on the uniform tree)
  std::size_t boxes = 0;         ///< non-empty boxes, all levels
  std::uint64_t near_pairs = 0;  ///< (target, source) pairs evaluated in the near field
  std::uint64_t m2l_pairs = 0;   ///< M2L translations, all levels
  std::uint64_t m2p_terms = 0;   ///< targets x boxes of the W lists (M2P; adaptive tree)
  std::uint64_t p2l_terms = 0;   ///< sources x boxes of the X lists (P2L; adaptive tree)
  double far_flops = 0;          ///< floating-point operations of one far-field evaluation
  int terms = 0;                 ///< expansion terms p
  double box_size = 0;           ///< side of the root box (in the coordinates the tree uses)
  /// Sources merged into another at the same position (their charges summed): n_sources minus
  /// the distinct source positions. 0 when all are distinct.
  std::size_t merged_sources = 0;
  /// The tree works on the caller's coordinates divided by this power of two (1 unless their
  /// extent would overflow r^2, about 1e154); results are exact for any extent doubles hold.
  double coordinate_scale = 1;
  /// Relative accuracy this evaluation can attain when it is worse than the eps asked (eps
  /// below what double arithmetic attains); 0 when eps is met.
  double accuracy_floor = 0;
  std::size_t device_memory = 0;  ///< peak device bytes of the near-field back end (0 on the CPU)
  bool threads_placed = false;    ///< the last evaluation pinned its threads (place_threads)
};

/// \brief One leaf capacity (or, on the uniform tree, level offset) the cost model considered.
struct CapacityCandidate {
  int ct = 0, level_offset = 0, levels = 0;
  std::size_t leaf_boxes = 0;
  std::uint64_t near_pairs = 0, m2l_pairs = 0;
  double far = 0, near = 0, total = 0;  ///< predicted seconds per evaluation
};

/// \brief What the Solver chose by itself (Options::ct and Options::backend "auto"), and why.
struct AutoChoice {
  bool backend_chosen = false;     ///< backend was "auto"
  bool ct_chosen = false;          ///< ct (the uniform tree: its level offset) chosen by the model
  std::string backend;             ///< the back end used
  int ct = 0, level_offset = 0;    ///< used
  double predicted_seconds = 0;    ///< the model's time per evaluation for the choice
  double choose_seconds = 0;       ///< choosing: the candidates' trees and plans
  double calibration_seconds = 0;  ///< measuring the constants now (0: from the cache)
  std::string calibration;         ///< where the constants came from (cache file, or measured)
  std::vector<CapacityCandidate> candidates;  ///< in the order considered
  std::string reason;                         ///< one sentence for reports
};

/// \brief One evaluation's source strengths: Options::densities (nd) vectors, each array nd x N
/// row-major (density d's value for source j at d * N + j). Those the options ask for must be
/// given; the others are ignored.
struct Densities {
  const double* charges = nullptr;           ///< q: nd x N (Options::charges)
  const double* dipole_strengths = nullptr;  ///< d: nd x N (Options::dipoles)
  /// v: 2 x N (the x components, then the y components), one orientation per source shared by
  /// every density; or, with vectors_per_density, nd x 2 x N (FMM2D's dipvec). The dipole's
  /// moment is d v: v need not have unit length.
  const double* dipole_vectors = nullptr;
  bool vectors_per_density = false;
};

/// \brief Where one evaluation writes, in the caller's target order: each array nd x M
/// row-major (density d's value at target i at d * M + i). The potential is always written; the
/// field with Options::field, the Hessian with Options::hessian (null otherwise).
struct Outputs {
  double* potential = nullptr;
  double *field_x = nullptr, *field_y = nullptr;
  double *hessian_xx = nullptr, *hessian_xy = nullptr, *hessian_yy = nullptr;
};

/// \brief Output of one evaluation, in the caller's target order: each vector nd x M
/// row-major (nd = Options::densities; M targets).
struct Result {
  std::vector<double> potential;         ///< phi at each target
  std::vector<double> field_x, field_y;  ///< E at each target, empty unless Options::field
  /// The Hessian of phi, empty unless Options::hessian (hessian_yy = -hessian_xx: phi is
  /// harmonic away from the sources).
  std::vector<double> hessian_xx, hessian_xy, hessian_yy;
};

/// \brief The fast multipole solver: a tree and an interaction plan built once for a geometry,
/// evaluated for any number of charge vectors.
class Solver {
 public:
  /// Self-evaluation: targets are the sources (x, y), self pairs skipped.
  Solver(const std::vector<double>& x, const std::vector<double>& y, const Options& options = {});
  /// Separate targets (tx, ty).
  Solver(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& tx,
         const std::vector<double>& ty, const Options& options = {});
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;

  /// Potential (and field, Hessian as the options ask) for charges q: nd x N (one per source
  /// and density). Options::dipoles needs the overloads with Densities.
  Result evaluate(const std::vector<double>& q);
  /// Same, writing into caller arrays of nd x n_targets entries; fx, fy may be null when no
  /// field (Options::hessian needs the overload with Outputs).
  void evaluate(const double* q, double* potential, double* fx, double* fy);
  /// The general evaluation: charges and/or dipoles of nd densities.
  Result evaluate(const Densities& sources);
  void evaluate(const Densities& sources, const Outputs& outputs);

  const Options& options() const;
  const TreeStats& stats() const;
  /// Timings of the last evaluate(); tree, plan and setup are filled from construction on.
  const Timings& timings() const;
  /// Human-readable notes about the geometry (e.g. "L capped at 30: CT cannot be met").
  const std::vector<std::string>& warnings() const;
  /// What was chosen automatically (backend, ct) and why.
  const AutoChoice& auto_choice() const;

 private:
  struct Impl;
  Impl& impl() const;  ///< throws InvalidInput on a moved-from Solver
  std::unique_ptr<Impl> impl_;
};

/// \brief Expansion terms p that meet relative error eps (the contract of Options::eps).
int terms_for_eps(double eps);
/// \brief The most expansion terms supported.
constexpr int kMaxTerms = 60;
/// \brief The deepest supported tree level (64-bit Morton keys, double coordinates).
constexpr int kMaxLevels = 30;
/// \brief The most densities (Options::densities) one evaluation takes.
constexpr int kMaxDensities = 1024;

/// \brief Names of the near-field back ends this build knows, e.g. {"cpu","indexing","repetition"}.
std::vector<std::string> near_field_backends();
/// \brief Whether back end `name` can run here; if not, `why` says why.
bool near_field_backend_available(const std::string& name, std::string* why = nullptr);

/// \brief A near-field back end as the registry describes it.
struct BackendInfo {
  std::string name;
  std::string summary;          ///< one line: what it is
  bool runs_on_device = false;  ///< a GPU back end (runs overlapped with the CPU far field)
  bool available = false;       ///< it can run here
  std::string why;              ///< why not, when not available
};
/// \brief Every back end this build knows, in the registry's order, with its availability here.
std::vector<BackendInfo> near_field_backend_info();

/// \brief Starts what a GPU back end needs before its first use in a process -- the CUDA driver
/// and context -- on a thread of its own, and returns at once.
/// `backend` is a back-end name or "auto"; nothing is started for a CPU back end, without CUDA
/// or without a device, or a second time. A Solver with a GPU back end starts it itself at
/// construction, beside its tree; starting it earlier (a program: before reading its input)
/// hides more of it. Errors are reported when the back end is made. Any thread.
void start_device(const std::string& backend = "auto");
/// \brief Blocks until a start begun by start_device() has finished (at once if none was).
/// A program that started the device calls it before it exits (a Solver that needs the device
/// waits for it anyway).
void wait_for_device();

/// \brief What a direct sum computes: the kinds of sources and the outputs (the Options'
/// fields of the same names).
struct DirectOptions {
  int densities = 1;
  bool charges = true, dipoles = false;
  bool field = false, hessian = false;
  int threads = 0;
};
/// \brief The direct sum of what a Solver with options `o` computes (its densities, kinds of
/// sources, outputs and threads).
DirectOptions direct_options(const Options& o);

/// \brief Direct O(N M) summation of charges and/or dipoles of nd densities, the reference for
/// accuracy: outputs at the targets listed in `which` (indices into tx/ty) or at all targets
/// when `which` is empty, nd x (evaluated targets) each; outputs.potential must be given, the
/// field and Hessian arrays when `o` asks for them.
void direct_sum(const std::vector<double>& x, const std::vector<double>& y,
                const std::vector<double>& tx, const std::vector<double>& ty,
                const Densities& sources, const DirectOptions& o,
                const std::vector<std::size_t>& which, const Outputs& outputs);

/// \brief Direct O(N M) summation (OpenMP), the reference for accuracy.
/// Evaluates at the targets listed in `which` (indices into tx/ty), or at all targets when
/// `which` is empty. Outputs have one entry per evaluated target; fx/fy may be null.
/// InvalidInput, as the Solver's, for a coordinate or charge that is not finite.
void direct_sum(const std::vector<double>& x, const std::vector<double>& y,
                const std::vector<double>& q, const std::vector<double>& tx,
                const std::vector<double>& ty, const std::vector<std::size_t>& which,
                std::vector<double>* potential, std::vector<double>* fx, std::vector<double>* fy,
                int threads = 0);

/// \brief Relative L2 and max absolute error of `value` against `reference` (the absolute L2
/// error when the reference is all zeros). The sums of squares are scaled, so values near
/// 1e-200 or 1e200 neither underflow nor overflow; a NaN anywhere gives NaN in both.
struct ErrorNorms {
  double rel_l2 = 0;
  double max_abs = 0;
};
ErrorNorms error_norms(const std::vector<double>& value, const std::vector<double>& reference);
/// \brief The same for a field: the L2 norms over the 2-vectors (x, y), max_abs the largest
/// Euclidean difference. InvalidInput if the lengths differ.
ErrorNorms error_norms(const std::vector<double>& value_x, const std::vector<double>& value_y,
                       const std::vector<double>& reference_x,
                       const std::vector<double>& reference_y);

}  // namespace mlfma2d
