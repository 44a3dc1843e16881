// --backend auto with --model: the papers' fitted time models predict every candidate back end's
// near field on the tree of the given options; the fastest wins. (Without --model the library
// chooses: Options::backend "auto"; the depth is the cost model's, Options::ct kAutoCapacity.)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ostream>

#include "runtime/text.hpp"
#include "tuning/model.hpp"
#include "tuning/tuning.hpp"

namespace mlfma2d::tuning {

namespace {

double value_of(const Candidate& c, Criterion criterion) {
  return criterion == Criterion::Near ? c.near_seconds : c.total_seconds;
}

std::string describe(const Candidate& c) {
  return format("%s at %+d (L = %d)", c.backend.c_str(), c.level_offset, c.levels);
}

}  // namespace

int pick_fastest(const std::vector<Candidate>& candidates, Criterion criterion) {
  int best = -1;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    const double v = value_of(c, criterion);
    if (!c.usable || !std::isfinite(v) || v < 0) continue;
    if (best < 0) {
      best = int(i);
      continue;
    }
    const double b = value_of(candidates[best], criterion);
    if (v < b || (v == b && std::abs(c.level_offset) < std::abs(candidates[best].level_offset))) {
      best = int(i);
    }
  }
  return best;
}

AutoSelection auto_select(const PointSet& points, const Options& options,
                          const AutoRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  AutoSelection sel;
  sel.done = true;
  sel.backend_auto = request.backend_auto;
  std::vector<std::string> backends = {options.backend};
  if (request.backend_auto) {
    backends = request.backends.empty() ? near_field_backends() : request.backends;
  }
  const Criterion criterion = Criterion::Near;  // the papers' model is of the near field

  if (request.model_path.empty())
    throw InvalidInput("auto-selection by the papers' model needs the coefficients file (--model)");
  const ModelCoefficients model = read_model_coefficients(request.model_path);
  sel.method = "model";
  sel.model_path = request.model_path;

  // The tree of the options (the papers' CT 15 when CT is automatic): the model's figures.
  Options tree_options = options;
  if (tree_options.ct == kAutoCapacity) tree_options.ct = kPapersCapacity;
  if (tree_options.backend == "auto") tree_options.backend = kReferenceBackend;
  const NearFieldBench bench(points.x, points.y, points.tx, points.ty, tree_options);
  const TreeStats& f = bench.stats();
  for (const std::string& b : backends) {
    Candidate c;
    c.backend = b;
    c.level_offset = tree_options.level_offset;
    c.levels = f.levels;
    c.ct = f.ct;
    std::string why;
    if (!near_field_backend_available(b, &why)) {
      c.usable = false;
      c.note = "not available here: " + why;
    } else if (!model.time_models.count(b)) {
      c.usable = false;
      c.note = "no time model for '" + b + "' in " + request.model_path;
    } else {
      c.near_seconds = model.time_models.at(b).predict(double(f.n_targets), double(f.near_pairs),
                                                       double(f.leaf_boxes));
      c.total_seconds = c.near_seconds;
      c.note = "near field predicted by the time model";
    }
    sel.candidates.push_back(c);
  }

  const int best = pick_fastest(sel.candidates, criterion);
  if (best < 0) {
    std::string why;
    for (const Candidate& c : sel.candidates)
      why += (why.empty() ? "" : "; ") + c.backend + " " + format("%+d", c.level_offset) + ": " +
             c.note;
    throw BackendUnavailable("auto-selection found no candidate that can run (" + why + ")");
  }
  const Candidate& win = sel.candidates[best];
  sel.backend = win.backend;
  sel.level_offset = win.level_offset;
  sel.levels = win.levels;

  // Reason: the winner, its time, and the runner-up.
  const char* what = criterion == Criterion::Near ? "near-field time" : "total time";
  std::vector<Candidate> others = sel.candidates;
  others.erase(others.begin() + best);
  const int second = pick_fastest(others, criterion);
  std::string reason = format("%s has the least %s per evaluation, %.4g ms", describe(win).c_str(),
                              what, 1e3 * value_of(win, criterion));
  if (second >= 0) {
    const double v = value_of(others[second], criterion);
    reason += format("; next: %s, %.4g ms (%.2fx slower)", describe(others[second]).c_str(),
                     1e3 * v, v / value_of(win, criterion));
  } else {
    reason += "; it was the only candidate that could run";
  }
  reason += "; near-field times predicted by the time models in " + request.model_path;
  if (model.speedup_fitted) {
    // For information: paper 1's eq. 27 for this tree, with the fitted coefficients.
    const TreeFigures t{double(f.n_targets), double(f.t), f.D, f.levels, f.ct};
    reason += format(" (paper 1 eq. 27 predicts %s %.3gx as fast as %s here)", kRestructuredBackend,
                     x_overall_model(t, model.paper1), kBaselineBackend);
  }
  sel.reason = reason;
  sel.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return sel;
}

AutoSelection auto_selection(const Solver& solver) {
  return auto_selection(solver.auto_choice(), solver.stats().levels);
}

AutoSelection auto_selection(const AutoChoice& c, int levels) {
  AutoSelection sel;
  sel.done = c.backend_chosen || c.ct_chosen;
  sel.backend_auto = c.backend_chosen;
  sel.levels_auto = c.ct_chosen;
  sel.method = "cost model";
  sel.backend = c.backend;
  sel.level_offset = c.level_offset;
  sel.levels = levels;
  sel.ct = c.ct;
  sel.reason = c.reason;
  if (c.ct_chosen) sel.predicted_seconds = c.predicted_seconds;
  sel.seconds = c.choose_seconds;
  sel.calibration_seconds = c.calibration_seconds;
  for (const CapacityCandidate& k : c.candidates) {
    Candidate d;
    d.backend = c.backend;
    d.level_offset = k.level_offset;
    d.levels = k.levels;
    d.ct = k.ct;
    d.note = "predicted by the cost model";
    d.near_seconds = k.near;
    d.far_seconds = k.far;
    d.total_seconds = k.total;
    sel.candidates.push_back(d);
  }
  return sel;
}

}  // namespace mlfma2d::tuning
