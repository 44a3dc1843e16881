#pragma once
// The near-field (P2P) back-end interface. A back end is set up once for a geometry and then
// evaluates the near-field sums for any number of charge vectors, timing four phases apart:
//   collect  -- restructure data on the host
//   transfer -- host to device
//   kernel   -- the pair sums
//   return   -- device to host and scatter into the caller's target order
// A back end may leave a phase empty (the cpu back end has no transfer).
//
// The base class owns what every back end shares: the argument checks, the phase timings'
// reset and the wall time (evaluate() is not virtual; it calls the back end's own run()).
// Back ends are made by name from the one registry table (nearfield/registry.cpp).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernel/arrays.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {

/// \brief The geometry a back end works on: plain arrays, nothing of the tree. All pointers
/// outlive the back end. make_near_field_problem() fills it from a tree and plan.
struct NearFieldProblem {
  const NearField* near = nullptr;  ///< near leaves and their source ranges
  std::size_t n_sources = 0, n_targets = 0;
  /// Tree-ordered coordinates (the indices of NearField's ranges point into these).
  const double *sx = nullptr, *sy = nullptr, *tx = nullptr, *ty = nullptr;
  /// Tree order to caller order: tree-ordered source i is caller source src_index[i].
  const std::int64_t *src_index = nullptr, *tgt_index = nullptr;
  /// Caller-order coordinates (the papers' "sourcePoints"/"targetPoints", used by the layout of
  /// paper Alg. 1). When targets are the sources, caller_tx/ty equal caller_sx/sy. Valid only
  /// during setup(): the Solver frees them after it (a back end that reads them later copies
  /// them).
  const double *caller_sx = nullptr, *caller_sy = nullptr;
  const double *caller_tx = nullptr, *caller_ty = nullptr;
  std::size_t t = 0;     ///< most sources or targets in one leaf (the paper's t)
  bool field = false;    ///< the field E is wanted
  bool hessian = false;  ///< the Hessian of phi is wanted
  int densities = 1;     ///< nd: density vectors per evaluation
  bool charges = true;   ///< the sources carry charges
  bool dipoles = false;  ///< the sources carry dipole moments
  /// What an evaluation of this problem carries and computes.
  EvaluationShape shape() const { return {densities, charges, dipoles, field, hessian}; }
  /// The pair sums' order (kernel/pair.hpp): 2 with the Hessian, 1 with the field, else 0.
  int order() const { return shape().order(); }
  /// Self-evaluation: the targets are the sources (the same tree-ordered arrays and permutation).
  bool self() const {
    return sx == tx && sy == ty && src_index == tgt_index && n_sources == n_targets;
  }
  int threads = 0;                ///< host threads for collect/return; 0 = OpenMP default
  std::size_t gpu_memory = 0;     ///< device-memory budget, bytes; 0 = what is free
  std::size_t chunk_targets = 0;  ///< at most this many targets per chunk; 0 = automatic
};

/// The problem of a tree and plan; (x, y) are the caller's sources, (tx, ty) the caller's
/// targets (the sources again in self-evaluation).
NearFieldProblem make_near_field_problem(const Tree& tree, const Plan& plan, const double* x,
                                         const double* y, const double* tx, const double* ty);

/// One evaluation's strengths (kernel/arrays.hpp), in the caller's source numbering (merged
/// sources summed), nd x n_sources each; null for a kind the problem does not carry.
using NearSources = StrengthArrays;
/// \brief A staging back end's pinned strength arrays (NearFieldBackend::staging_buffers).
struct StagingBuffers {
  double *q = nullptr, *mx = nullptr, *my = nullptr;
};
/// Caller-order outputs, nd x n_targets each (overwritten): phi always; ex, ey when the problem
/// wants the field, hxx, hxy when it wants the Hessian, else null.
using NearOutputs = OutputArrays;

/// \brief Seconds per phase of one evaluation, plus what it used.
struct NearFieldTimings {
  double collect = 0, transfer = 0, kernel = 0, ret = 0;
  double total = 0;              ///< wall time of evaluate()
  std::size_t device_bytes = 0;  ///< peak device memory allocated
  std::size_t chunks = 0;        ///< number of target chunks (GPU back ends)
};

/// \brief A near-field back end.
class NearFieldBackend {
 public:
  virtual ~NearFieldBackend() = default;
  /// The registry name.
  const std::string& name() const { return name_; }
  /// True when evaluate() mostly waits on a device: the solver then runs it on its own host
  /// thread, overlapped with the far field on the CPU (the registry's runs_on_device).
  bool runs_on_device() const { return on_device_; }
  /// Called once per geometry, before any evaluate(). Throws InvalidInput for an incomplete
  /// problem, then whatever the back end's own set-up throws.
  void setup(const NearFieldProblem& problem);
  /// Near-field sums of every density. `timings` (may be null) is reset, then filled (a back
  /// end that sums one density at a time runs once per density: the phases are their sums).
  void evaluate(const NearSources& sources, const NearOutputs& outputs, NearFieldTimings* timings);
  /// The same for charges q of every density (a problem of charges alone, no Hessian).
  void evaluate(const double* q, double* potential, double* fx, double* fy,
                NearFieldTimings* timings);
  /// The host copies of the next evaluation done by the caller's threads (a resident GPU back
  /// end's pinned staging; the others do nothing and return false): the strengths go into the
  /// back end's pinned buffers now, on `threads` threads; the next evaluate() takes them from
  /// there (its `sources` are not read) and leaves its caller-order results in pinned memory,
  /// staged_result(), instead of writing `outputs`. A caller with a team to spare so moves both
  /// at the memory's speed while the back end's host thread only waits on the device: one
  /// thread moving 8 densities of 1e6 points took 13 ms each way on the H200 host
  /// (results/h200/session-2026-11-28c/call1). With `strengths_back`, that evaluation also
  /// copies its strengths back in tree order where the back end does so for this size
  /// (strengths_back(ChargeShape) below; tree_order_strengths()).
  bool stage_in(const NearSources& sources, int threads, bool strengths_back = false);
  /// Output k (0 phi, 1 ex, 2 ey, 3 hxx, 4 hxy; nd x targets, caller order) of the last
  /// evaluation stage_in() began; null where it did not compute it.
  const double* staged_result(int k) const { return staged_output(k); }
  /// Where stage_in() puts each kind of strength (pinned memory, caller order, nd x sources; null
  /// for a kind not carried, and every kind of a back end that does not stage). A caller may
  /// write a kind there itself, and pass these same pointers to stage_in() and evaluate(): such a
  /// kind is then not copied (the dipoles' moments computed in place: one pass over 2 x 8 bytes
  /// a source the fewer).
  StagingBuffers staging_buffers() { return ready_ ? staging_area() : StagingBuffers{}; }
  /// Called on another thread while an evaluation stage_in(..., true) began runs: its
  /// strengths in tree order (Tree::src_index; nd x sources a kind, null for a kind not carried)
  /// as the device gathered them, copied back into pinned memory beside its kernels; waits for
  /// them. All null where the back end has none (it does not stage, or the evaluation ended
  /// without them): the caller then puts them in tree order itself. They stay until the next
  /// stage_in().
  StrengthArrays tree_order_strengths();

 protected:
  const NearFieldProblem& problem() const { return problem_; }
  /// The densities one run() sums: problem().densities, or 1 for a back end whose row does not
  /// take several at once (the base class then calls run() once per density).
  int run_densities() const { return run_densities_; }
  /// "back end 'NAME': " -- the start of every message a back end throws.
  std::string who() const { return "back end '" + name_ + "': "; }

 private:
  /// The back end's own set-up for problem() (already checked).
  virtual void prepare() = 0;
  /// The back end's own evaluation of run_densities() densities (arguments checked, at least
  /// one target); it fills the four phases and device_bytes / chunks of `t`.
  virtual void run(const NearSources& sources, const NearOutputs& outputs, NearFieldTimings* t) = 0;
  /// stage_in() and staged_result() of a back end that stages (checked arguments).
  virtual bool stage_strengths(const NearSources&, int /*threads*/, bool /*back*/) { return false; }
  virtual const double* staged_output(int /*k*/) const { return nullptr; }
  virtual StagingBuffers staging_area() { return {}; }
  /// tree_order_strengths() of a back end that stages; the end of every evaluation (a caller
  /// still waiting for tree-order strengths that will not come gets nulls).
  virtual StrengthArrays staged_tree_order() { return {}; }
  virtual void staged_evaluation_over() {}
  /// Throws InvalidInput when a kind of strength the problem carries is missing.
  void check_sources(const NearSources& s) const;

  friend std::unique_ptr<NearFieldBackend> make_near_field_backend(const std::string& name);
  std::string name_;
  bool on_device_ = false;
  bool multi_density_ = false;  ///< the registry's densities column
  int run_densities_ = 1;
  bool ready_ = false;
  NearFieldProblem problem_;
};

/// The sums the cpu back end keeps per target of each mutual neighbour leaf (nearfield/cpu: in
/// self-evaluation with charges alone, a pair of adjacent leaves is summed once for both), or 0
/// where it sums each pair one way: its memory beyond the outputs is about 4-7 x this many
/// doubles a target.
int cpu_mutual_sums(const EvaluationShape& shape, bool self);

/// \brief One row of the registry (nearfield/registry.cpp): a back end's name, how to make it
/// (a CUDA factory throws in a build without CUDA: the availability check says so first), what
/// it needs, and how much "auto" prefers it.
struct BackendRow {
  const char* name;
  std::unique_ptr<NearFieldBackend> (*make)();
  bool runs_on_device;
  bool needs_cuda;
  bool resident;        ///< geometry kept on the device, charges through cuda::ChargeIo
  bool densities;       ///< sums several densities in one pass (else one run per density)
  bool dipoles;         ///< takes dipole sources
  bool hessian;         ///< computes the Hessian
  int auto_preference;  ///< backend "auto" takes the available row with the highest; 0 = never
  const char* summary;  ///< one line for --help
};
/// The registry table, in the order back ends are listed.
const std::vector<BackendRow>& backend_rows();

/// Whether back end `name` runs on a device (the registry's column; false for an unknown name).
bool backend_runs_on_device(const std::string& name);
/// Whether back end `name` keeps its geometry on the device (the registry's column): its host
/// work per evaluation is the charge path's copies on the calling thread, no OpenMP team.
bool backend_is_resident(const std::string& name);
/// The device a back end runs on ("NVIDIA H100 80GB HBM3 (sm_90)"), or "" for a CPU back end or
/// when no device can be asked.
std::string backend_device_name(const std::string& name);

/// What a problem needs of a back end beyond charges, potential and field.
struct BackendNeeds {
  bool dipoles = false, hessian = false;
};
/// Whether back end `name` takes what `needs` asks; if not, `why` names what it cannot do and
/// the back ends that can.
bool backend_takes(const std::string& name, const BackendNeeds& needs, std::string* why = nullptr);

/// The back end "auto" means here: the available row with the highest auto_preference (the
/// fastest GPU back end when a device is found, else cpu) among those that take `needs`.
std::string auto_backend(const BackendNeeds& needs = {});

/// Whether start_device() has begun a start in this process (a CUDA build, asked for "auto" or a
/// GPU back end): work on the device's behalf may be running beside the caller.
bool device_start_begun();

/// \brief What one evaluation carries in and out, by which a resident GPU back end sizes its
/// charge path (pinned staging and device copies): the point counts, the densities, the kinds of
/// source and the outputs wanted.
struct ChargeShape : EvaluationShape {
  std::size_t n_sources = 0, n_targets = 0;
  ChargeShape() = default;
  ChargeShape(std::size_t sources, std::size_t targets, const EvaluationShape& shape)
      : EvaluationShape(shape), n_sources(sources), n_targets(targets) {}
};
/// A problem's charge shape.
ChargeShape charge_shape(const NearFieldProblem& p);
/// Whether a resident GPU back end's staged evaluation of this shape copies its strengths back in
/// tree order for the far field when asked (NearFieldBackend::stage_in, tree_order_strengths):
/// from 2^21 strengths on (nd x kinds x sources). At 1e6 points (one density of charges) the copy
/// beside the near field, the longer half there, slowed the evaluation 1.5-8 %; from 2e6 points
/// on the evaluation took 0.94-1.01 of the time with the host's blocked gather, at 4e6 0.97-1.00,
/// 1e7 0.89-0.97, 1e8 0.82-0.87 (H200 host, docs/performance.md section 5.13). Pinned memory for
/// them is taken at set-up only then.
bool strengths_back(const ChargeShape& shape);

/// Makes now, on the calling thread, the pinned host buffers that back end `backend`'s set-up
/// will take for this shape (a resident GPU back end's charge path), once the device has
/// started; nothing for other back ends. A Solver calls it beside its tree; the set-up takes the
/// buffers, release_reserved_buffers() frees what it did not. Errors are left to the set-up.
void reserve_device_buffers(const std::string& backend, const ChargeShape& shape);
void release_reserved_buffers() noexcept;

/// Create a back end by name. Throws BackendUnavailable for an unknown name (listing the valid
/// ones), for a CUDA back end in a build without CUDA ("... was not compiled with CUDA"), or
/// when no CUDA device is found ("back end 'X' needs a CUDA device; none was found").
std::unique_ptr<NearFieldBackend> make_near_field_backend(const std::string& name);

}  // namespace mlfma2d
