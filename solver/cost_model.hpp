#pragma once
// The cost model behind ct "auto" (issue 12, docs/math.md section 7): the seconds of one evaluation
// predicted from the work a tree and plan give (FarWork, near-field pairs), with per-unit constants
// for this machine, back end, thread count, p and shape (densities, kinds of sources, outputs)
// measured by a short calibration and cached on disk.
//
//   far  = m2l (p+1)^2 M2L + box (p+1)^2 boxes + point p (sources + k targets) + leaf p leaves
//          + wx p k W/X + far_point (sources + targets)   (k = the Horner passes: 1 + field +
//          Hessian)
//   near = fixed + near_point (sources + targets) + pair pairs
//   one evaluation = far + near, or max(far, near) when the near field runs on a device beside
//   the CPU far field.
#include <functional>
#include <string>
#include <vector>

#include "farfield/expansions.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {

/// \brief Seconds per unit of work on this machine, for one back end, thread count, p and shape
/// (densities, kinds of sources, outputs): each constant holds the cost of every density.
struct CostModel {
  double m2l = 0, box = 0, point = 0, wx = 0, far_point = 0;  ///< far field
  double fixed = 0, near_point = 0, pair = 0;                 ///< near field
  bool overlap = false;  ///< the near field runs on a device, beside the far field
  double leaf = 0;       ///< far field: P2M's and L2P's part per leaf (p each)
};

/// The most densities a calibration evaluates: a model for more is the one measured at this many
/// with every per-unit constant scaled by nd / kCalibrationDensities (the per-density work, the
/// multiply-adds of each pair and the far field's columns, is what grows; the shared terms of
/// each pair, its log and division, are then a small part). Calibrating at nd = 512 itself took
/// minutes (the Python module's matmat, docs/python.md).
constexpr int kCalibrationDensities = 16;
/// The model measured at `measured` densities made one for `nd` (unchanged when they agree).
CostModel scaled_to_densities(const CostModel& model, int measured, int nd);

/// \brief Predicted seconds of one evaluation.
struct Prediction {
  double far = 0, near = 0, total = 0;
};

Prediction predict(const CostModel& model, const FarWork& far, double near_pairs, double points,
                   int p, const FarShape& shape);

/// \brief What a calibration is for: it holds for this key only.
struct CalibrationKey {
  std::string device;  ///< CPU model (and GPU name for a device back end)
  std::string backend;
  int threads = 0, p = 0;
  FarShape shape;            ///< densities, kinds of sources, outputs
  bool placed = false;       ///< threads pinned (Options::place_threads): a faster far field
  std::string text() const;  ///< one line, no spaces
};
CalibrationKey calibration_key(const std::string& backend, int threads, int p,
                               const FarShape& shape, bool placed);

/// Measures the constants: three small uniform sets and a circle evaluated by the back end (a
/// fraction of a second). Throws what the Solver throws.
CostModel calibrate(const CalibrationKey& key, const Options& base);

/// The cache file: $MLFMA2D_CACHE_DIR, else $XDG_CACHE_HOME/mlfma2d, else ~/.cache/mlfma2d; the
/// library's version in its name, so a new version calibrates anew.
std::string default_calibration_cache();

/// The model for `key` from the cache file `path`; false when absent. A file that cannot be read
/// or parsed is ignored, with `note` saying so.
bool load_cost_model(const std::string& path, const CalibrationKey& key, CostModel* model,
                     std::string* note);
/// Stores (or replaces) the model for `key` in `path`, atomically; a failure only sets `note`.
void store_cost_model(const std::string& path, const CalibrationKey& key, const CostModel& model,
                      std::string* note);

/// The constants of a solver of these options with back end `backend`, `threads` threads (pinned
/// or not: `placed`) and p terms: the key's shape is the options' with at most
/// kCalibrationDensities densities; from the cache the options name
/// (Options::calibration_cache), else, when `measure`, measured now and cached; scaled to the
/// options' densities. `choice` gets where they came from (calibration, calibration_seconds),
/// `warnings` what went wrong with the cache. False when they are neither cached nor measured
/// (then `model` is left as it was).
bool cost_model_for(const Options& opt, const std::string& backend, int threads, int p, bool placed,
                    bool measure, CostModel* model, AutoChoice* choice,
                    std::vector<std::string>* warnings);

/// What was chosen automatically (back end, CT), in a sentence or two (empty when nothing was).
std::string choice_reason(const AutoChoice& choice, TreeKind kind);

/// \brief The choice of the leaf capacity: the tree and plan of the chosen candidate, and every
/// candidate considered.
struct CapacityChoice {
  int ct = 0, level_offset = 0;
  Tree tree;  ///< the chosen shape (no points attached yet)
  Plan plan;
  double plan_seconds = 0;  ///< building the chosen plan (part of the choice's time)
  std::string warning;      ///< grow_tree's, for the chosen tree
  Prediction predicted;
  std::vector<CapacityCandidate> candidates;
  std::int64_t p2p_below =
      0;  ///< the plan's PlanOptions::p2p_below (widen_near_field may raise it)
};

/// A device's near field beside a far field predicted to bound the evaluation (model.overlap,
/// far > near): the W boxes and X leaves with few points on the other side go to the near field
/// (docs/math.md 4.2), c's p2p_below doubled, its plan rebuilt on its tree and its prediction
/// replaced, while the predicted time falls. Nothing otherwise. choose_capacity ends with it.
void widen_near_field(const CostModel& model, int p, const FarShape& shape, double points,
                      int threads, CapacityChoice* c);

/// Builds one candidate (a leaf capacity, a level offset) and gives its figures; total =
/// INFINITY when no tree can be built for it (an offset past the root or the deepest level).
using CandidateBuilder = std::function<CapacityCandidate(int ct, int level_offset)>;

/// The local search over leaf capacities (adaptive tree: ct = 2^k, offset 0) or level offsets
/// (uniform tree: ct 15) from a balance estimate, downhill one step at a time: the candidate of
/// least predicted total. `considered` gets every candidate built, in order (not those for which
/// no tree could be built). Throws InvalidInput when no candidate could be built.
CapacityCandidate search_capacity(TreeKind kind, const CostModel& model, int p,
                                  const CandidateBuilder& build,
                                  std::vector<CapacityCandidate>* considered);

/// Chooses the leaf capacity (adaptive tree: ct, offset 0) or the level offset (uniform tree:
/// ct 15) of least predicted time by search_capacity, building each candidate's shape and plan
/// (exact counts).
CapacityChoice choose_capacity(const TreePoints& points, TreeKind kind, const CostModel& model,
                               int p, const FarShape& shape, const PlanOptions& plan_options,
                               int threads);

}  // namespace mlfma2d
