#pragma once
/// \file tuning.hpp
/// Choosing and measuring: the near-field timing harness (a back end alone on a geometry, phase
/// by phase, as `mlfma2d sweep` and the benchmarks time it) and the automatic choice of back end
/// and tree height (`backend = "auto"`, `--levels auto`). The papers' performance model that can
/// drive the choice is in model.hpp.
#include <cstddef>
#include <iosfwd>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d::tuning {

/// \brief The reference back end: every other one is checked against it, and speedups are over it.
inline constexpr const char* kReferenceBackend = "cpu";

/// \brief Name of the CUDA device the GPU back ends run on, or "none".
std::string device_name();
/// \brief Why the GPU back ends cannot run here, in plain words, or "" when they can: "no GPU was
/// found (the driver's reason)" or "this build has no GPU back ends (...)". The driver is asked
/// once per process.
std::string gpu_unavailable();

/// \brief This machine's memory as Linux reports it, in bytes (0 where it is not known).
struct HostMemory {
  std::size_t total = 0;          ///< MemTotal
  std::size_t available = 0;      ///< MemAvailable: what can be allocated without swapping
  std::size_t resident = 0;       ///< this process's resident memory now (VmRSS)
  std::size_t peak_resident = 0;  ///< this process's peak resident memory (VmHWM)
  /// What this process may still map under its address-space limit (ulimit -v: RLIMIT_AS less
  /// VmSize); 0 when there is no limit.
  std::size_t address_space_left = 0;
};
HostMemory host_memory();

/// The sums the cpu back end keeps a target for each mutual neighbour leaf in an evaluation of
/// `o`'s shape (self: targets are the sources; nearfield/backend.hpp cpu_mutual_sums), 0 where
/// it sums each pair one way: for the memory estimate.
int cpu_mutual_sums(const Options& o, bool self);

/// Whether a resident GPU back end's evaluation of `o`'s shape over `sources` sources copies its
/// strengths back in tree order for the far field (nearfield/backend.hpp strengths_back; pinned
/// memory in place of the far field's own array): for the memory estimate.
bool device_strengths_back(const Options& o, std::size_t sources);

// ---- The near-field timing harness.

/// \brief One near-field evaluation: seconds per phase (the back end's clocks) and in all (the
/// harness's clock, the same for every back end), and what it used.
struct NearFieldSample {
  double collect = 0, transfer = 0, kernel = 0, ret = 0;
  double total = 0;
  std::size_t device_bytes = 0;  ///< peak device memory
  std::size_t chunks = 0;        ///< target chunks (GPU back ends)
};

/// \brief Timed evaluations summarised: per-phase medians, the spread of the totals, the peaks.
struct NearFieldMeasurement {
  int repeat = 0;                                         ///< timed evaluations
  double collect = 0, transfer = 0, kernel = 0, ret = 0;  ///< medians
  double total = 0, total_mean = 0, total_min = 0;        ///< of the totals
  std::size_t device_bytes = 0, chunks = 0;               ///< largest
  std::vector<NearFieldSample> samples;                   ///< every timed evaluation, in order
};

/// The median of `values` (the mean of the middle two for an even count; 0 when empty).
double median(std::vector<double> values);

/// Medians (the mean of the middle two for an even count), mean, minimum and peaks of `samples`.
NearFieldMeasurement summarize(const std::vector<NearFieldSample>& samples);

/// \brief A geometry's tree and interaction plan, built once, on which near-field back ends are
/// set up and evaluated alone (no far field), as a Solver would run them.
class NearFieldBench {
 public:
  /// Sources (x, y) and targets (tx, ty; both empty = the sources). From `options`: ct,
  /// level_offset and threads build the tree; field, threads, gpu_memory and chunk_targets go to
  /// the back ends. Throws InvalidInput as Solver does for a tree that cannot be built.
  NearFieldBench(const std::vector<double>& x, const std::vector<double>& y,
                 const std::vector<double>& tx, const std::vector<double>& ty,
                 const Options& options);
  ~NearFieldBench();
  NearFieldBench(NearFieldBench&&) noexcept;
  NearFieldBench& operator=(NearFieldBench&&) noexcept;

  /// Figures of the tree and plan (terms, far_flops and device_memory are 0).
  const TreeStats& stats() const;
  /// Notes about the tree (e.g. L capped at the deepest level).
  const std::vector<std::string>& warnings() const;

  /// Sets up back end `backend` for this geometry, replacing the one set up before; returns the
  /// seconds it took. Throws BackendUnavailable (see near_field_backend_available()).
  double setup(const std::string& backend);
  /// One evaluation of the back end set up last, for caller-order charges q (n_sources); the
  /// caller-order potential goes to *potential when it is not null.
  NearFieldSample evaluate(const std::vector<double>& q, std::vector<double>* potential = nullptr);
  /// `warmup` untimed evaluations, then `repeat` timed ones (>= 1), summarised; *potential (if
  /// not null) is the first timed evaluation's.
  NearFieldMeasurement measure(const std::vector<double>& q, int warmup, int repeat,
                               std::vector<double>* potential = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The tree height L that CT fixes for these sources and targets (tx, ty empty: the sources),
/// before any level offset.
int levels_by_ct(const std::vector<double>& x, const std::vector<double>& y,
                 const std::vector<double>& tx, const std::vector<double>& ty, int ct,
                 int threads = 0);

// ---- Automatic choice of back end and level offset.

/// \brief One (back end, level offset) the selection considered, with its times per evaluation.
struct Candidate {
  std::string backend;
  int level_offset = 0;
  int levels = 0;      ///< tree height L of this candidate (0 when its tree was not built)
  bool usable = true;  ///< false: not available here, or its tree could not be built
  std::string note;    ///< why it is not usable, or how its times were obtained
  double near_seconds = std::numeric_limits<double>::quiet_NaN();
  double far_seconds = std::numeric_limits<double>::quiet_NaN();
  double total_seconds = std::numeric_limits<double>::quiet_NaN();
  int ct = 0;  ///< leaf capacity of this candidate's tree
};

/// \brief What the choice compares: the near field alone (only the back end changes, the far field
/// is the same) or near + far (the level offset changes both).
enum class Criterion { Near, Total };

/// Index of the fastest usable candidate with a finite, non-negative time by `criterion`, or -1
/// when there is none. Equal times: the smaller |level_offset| wins, then the earlier candidate.
int pick_fastest(const std::vector<Candidate>& candidates, Criterion criterion);

/// \brief The outcome of a selection, with what was compared and why it won: the library's own
/// choice (Solver::auto_choice(), by its cost model) or the papers' fitted model (auto_select).
struct AutoSelection {
  bool done = false;
  bool backend_auto = false;  ///< the back end was chosen
  bool levels_auto = false;  ///< the depth was chosen (leaf capacity, or the uniform tree's offset)
  std::string method;        ///< "cost model" (the library's) or "model" (the papers', --model)
  std::string model_path;    ///< coefficients file of the "model" method
  std::string backend;       ///< chosen
  int level_offset = 0;      ///< chosen
  int levels = 0;            ///< L of the chosen tree
  int ct = 0;                ///< leaf capacity of the chosen tree
  std::string reason;        ///< one or two sentences: what won, by how much, measured how
  /// Cost model: its time per evaluation for the choice (NaN for the papers' model).
  double predicted_seconds = std::numeric_limits<double>::quiet_NaN();
  double seconds = 0;              ///< wall time the choosing took
  double calibration_seconds = 0;  ///< cost model: measuring its constants now (0: cached)
  std::vector<Candidate> candidates;
};

/// The choice a Solver made by itself (backend "auto", ct automatic), as a selection.
AutoSelection auto_selection(const Solver& solver);
/// The same of any solver's choice (the distributed one's too), its tree of `levels` levels.
AutoSelection auto_selection(const AutoChoice& choice, int levels);

/// \brief What to choose with the papers' model.
struct AutoRequest {
  bool backend_auto = false;
  std::string model_path;             ///< fitted coefficients (model fit --output)
  std::vector<std::string> backends;  ///< candidate back ends; empty = every known one
};

/// Chooses the back end for `points` with `options` (its tree: CT 15 when ct is automatic) by
/// the near-field times the fitted models in request.model_path predict. Throws
/// BackendUnavailable when no candidate can run.
AutoSelection auto_select(const PointSet& points, const Options& options,
                          const AutoRequest& request);

/// \brief The widest vectors the kernels run at on this CPU (kernel/wide.hpp): 512 or 256 bits.
int widest_vector_bits();
/// The complex terms the far field stores per box, density and expansion for `terms` = p: p + 1
/// padded to whole cache lines (kernel/wide.hpp expansion_rows).
int stored_expansion_terms(int terms);
/// The double-precision FMA peak measured by the wide kernels' probe at `bits` (256 or the
/// widest) on `threads` threads, GFLOP/s: the best of three runs of about 0.1 s; 0 when this CPU
/// or build has no kernels of that width.
double fma_peak_gflops(int bits, int threads);
/// The far field's translation kernel alone (WideKernels::translate, the scalings and the
/// product that M2L, M2M and L2L run), on data in cache: R of p + 1 = 31 terms (32 rows) on 129
/// complex columns, at `bits` on `threads` threads, GFLOP/s counted as docs/math.md 3.4 counts a
/// translation (4 t^2 + 14 t a column): what M2L would run at if gathering its sources from the
/// expansions cost nothing. Best of three runs of 0.1 s.
double translation_gflops(int bits, int threads);

}  // namespace mlfma2d::tuning
