#include "app/auto_select.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <ostream>
#include <random>

#include "app/model.hpp"
#include "nearfield/backend.hpp"
#include "solver/plan.hpp"
#include "solver/timer.hpp"
#include "solver/tree.hpp"

namespace mlfma2d::app {

namespace {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  char buffer[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  return buffer;
}

double value_of(const Candidate& c, Criterion criterion) {
  return criterion == Criterion::Near ? c.near_seconds : c.total_seconds;
}

std::string describe(const Candidate& c) {
  return format("%s at %+d (L = %d)", c.backend.c_str(), c.level_offset, c.levels);
}

// A window of the domain: the points of one square cell of side size / 2^k around a random
// source point, k chosen so the cell holds about `want` points. Local density, hence t, D and
// the work per point, stay as in the full set.
struct Window {
  PointSet points;
  double scale = 1;  ///< (full sources + targets) / (window sources + targets)
  int depth = 0;     ///< the cell's level below the root: the full tree is about this much taller
  std::string description;
};

Window calibration_window(const PointSet& all, std::size_t want, std::uint64_t seed) {
  const bool self = !all.has_targets();
  double x0 = all.x[0], x1 = all.x[0], y0 = all.y[0], y1 = all.y[0];
  auto grow = [&](const std::vector<double>& xs, const std::vector<double>& ys) {
    for (std::size_t i = 0; i < xs.size(); ++i) {
      x0 = std::min(x0, xs[i]);
      x1 = std::max(x1, xs[i]);
      y0 = std::min(y0, ys[i]);
      y1 = std::max(y1, ys[i]);
    }
  };
  grow(all.x, all.y);
  if (!self) grow(all.tx, all.ty);
  const double size = std::max(x1 - x0, y1 - y0) * (1 + 1e-12) + 1e-300;
  const double total = double(all.x.size() + (self ? 0 : all.tx.size()));
  int k = std::max(0, int(std::floor(std::log(total / double(want)) / std::log(4.0))));
  std::mt19937_64 rng(seed);
  const std::size_t pick = std::uniform_int_distribution<std::size_t>(0, all.x.size() - 1)(rng);
  for (;; --k) {
    const double cell = size / std::ldexp(1.0, k);
    const double cx = x0 + cell * std::floor((all.x[pick] - x0) / cell);
    const double cy = y0 + cell * std::floor((all.y[pick] - y0) / cell);
    auto inside = [&](double x, double y) {
      return x >= cx && x < cx + cell && y >= cy && y < cy + cell;
    };
    Window w;
    for (std::size_t i = 0; i < all.x.size(); ++i) {
      if (!inside(all.x[i], all.y[i])) continue;
      w.points.x.push_back(all.x[i]);
      w.points.y.push_back(all.y[i]);
      w.points.q.push_back(all.q[i]);
    }
    if (!self) {
      for (std::size_t i = 0; i < all.tx.size(); ++i) {
        if (!inside(all.tx[i], all.ty[i])) continue;
        w.points.tx.push_back(all.tx[i]);
        w.points.ty.push_back(all.ty[i]);
      }
    }
    const double in = double(w.points.x.size() + w.points.tx.size());
    const bool enough =
        in >= double(want) / 4 && !w.points.x.empty() && (self || !w.points.tx.empty());
    if (enough || k == 0) {
      w.scale = in > 0 ? total / in : 1;
      w.depth = k;
      w.description = format(
          "a window of %.0f points (a 1/4^%d cell of the domain around a random "
          "point), times scaled by %.3g",
          in, k, w.scale);
      return w;
    }
  }
}

Options with(const Options& base, const std::string& backend, int offset) {
  Options o = base;
  o.backend = backend;
  o.level_offset = offset;
  return o;
}

// The faster of two evaluations (the first also pays first-touch and device warm-up), or the
// first alone when it took a second or more.
template <class Evaluate>
double faster_of_two(Evaluate&& evaluate) {
  const double first = evaluate();
  return first < 1.0 ? std::min(first, evaluate()) : first;
}

// Seconds of one near-field evaluation of back end `name` on `tree`, as a Solver would run it.
double time_near_field(const std::string& name, const Tree& tree, const Plan& plan,
                       const PointSet& p, const Options& o) {
  const bool separate = p.has_targets();
  NearFieldProblem problem;
  problem.tree = &tree;
  problem.plan = &plan;
  problem.x = p.x.data();
  problem.y = p.y.data();
  problem.tx = separate ? p.tx.data() : p.x.data();
  problem.ty = separate ? p.ty.data() : p.y.data();
  problem.field = o.field;
  problem.threads = o.threads;
  problem.gpu_memory = o.gpu_memory;
  problem.chunk_targets = o.chunk_targets;
  auto backend = make_near_field_backend(name);
  backend->setup(problem);
  const std::size_t nt = tree.n_targets();
  std::vector<double> phi(nt), fx(o.field ? nt : 0), fy(o.field ? nt : 0);
  return faster_of_two([&] {
    NearFieldTimings t;
    const double t0 = now_seconds();
    backend->evaluate(p.q.data(), phi.data(), o.field ? fx.data() : nullptr,
                      o.field ? fy.data() : nullptr, &t);
    return now_seconds() - t0;
  });
}

// Seconds of the far field of one evaluation by a Solver with options `o`.
double time_far_field(const PointSet& p, const Options& o) {
  Solver s = p.has_targets() ? Solver(p.x, p.y, p.tx, p.ty, o) : Solver(p.x, p.y, o);
  return faster_of_two([&] {
    (void)s.evaluate(p.q);
    return s.timings().far;
  });
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
                          const AutoRequest& request, std::ostream* progress) {
  const auto start = std::chrono::steady_clock::now();
  AutoSelection sel;
  sel.done = true;
  sel.backend_auto = request.backend_auto;
  sel.levels_auto = request.levels_auto;
  std::vector<std::string> backends = {options.backend};
  if (request.backend_auto) {
    backends = request.backends.empty() ? near_field_backends() : request.backends;
  }
  std::vector<int> offsets = {options.level_offset};
  if (request.levels_auto) {
    offsets.clear();
    for (int i = -kAutoLevelRange; i <= kAutoLevelRange; ++i) offsets.push_back(i);
  }
  const Criterion criterion = request.levels_auto ? Criterion::Total : Criterion::Near;

  std::optional<ModelCoefficients> model;
  if (!request.model_path.empty()) {
    model = read_model_coefficients(request.model_path);
    sel.method = "model";
    sel.model_path = request.model_path;
  } else {
    sel.method = "calibration";
  }

  // What the timings run on: every point, or a window of the domain when N is large.
  const std::size_t n_all = points.x.size() + (points.has_targets() ? points.tx.size() : 0);
  std::optional<Window> window;
  if (n_all > kCalibrateAllUpTo) window = calibration_window(points, kCalibrationWindowPoints, 1);
  const PointSet& timed_points = window ? window->points : points;
  const double scale = window ? window->scale : 1.0;
  sel.calibration_points = timed_points.x.size() + timed_points.tx.size();
  auto note_progress = [&](const std::string& line) {
    if (progress) *progress << "auto: " << line << std::endl;
  };

  const int threads = options.threads;
  for (int offset : offsets) {
    // One tree and plan per offset: the model's figures (on all points), or the tree the near
    // field is timed on (on the timed points).
    const PointSet& tree_points = model ? points : timed_points;
    std::optional<Tree> tree;
    std::optional<Plan> plan;
    std::string tree_error;
    try {
      std::string warning;
      const std::vector<double> none;
      const bool separate = tree_points.has_targets();
      tree = build_tree(tree_points.x, tree_points.y, separate ? tree_points.tx : none,
                        separate ? tree_points.ty : none, options.ct, offset, &warning, threads);
      plan = build_plan(*tree, threads);
    } catch (const InvalidInput& e) {  // e.g. an offset above the root
      tree_error = e.what();
    }
    const int levels = tree ? tree->levels + (window && !model ? window->depth : 0) : 0;
    const std::size_t first = sel.candidates.size();
    for (const std::string& b : backends) {
      Candidate c;
      c.backend = b;
      c.level_offset = offset;
      c.levels = levels;
      std::string why;
      if (!near_field_backend_available(b, &why)) {
        c.usable = false;
        c.note = "not available here: " + why;
      } else if (!tree_error.empty()) {
        c.usable = false;
        c.note = tree_error;
      } else if (model) {
        if (!model->time_models.count(b)) {
          c.usable = false;
          c.note = "no time model for '" + b + "' in " + request.model_path;
        } else {
          c.near_seconds = model->time_models.at(b).predict(
              double(tree->n_targets()), double(plan->near_pairs), double(tree->leaves().size()));
          c.note = "near field predicted by the time model";
        }
      } else {
        note_progress(format("timing %s's near field at level offset %+d...", b.c_str(), offset));
        try {
          c.near_seconds = scale * time_near_field(b, *tree, *plan, timed_points, options);
          c.note = window ? "near field measured on " + window->description
                          : "near field measured on all points";
        } catch (const Error& e) {  // e.g. device memory exhausted
          c.usable = false;
          c.note = e.what();
        }
      }
      sel.candidates.push_back(c);
    }
    // The far field does not depend on the back end: with --levels auto it is timed once per
    // offset, by a Solver with the back end that is fastest there; otherwise it is left out
    // (the same for every candidate).
    std::vector<Candidate> here(sel.candidates.begin() + long(first), sel.candidates.end());
    const int fastest = pick_fastest(here, Criterion::Near);
    double far = 0;
    if (request.levels_auto && fastest >= 0) {
      note_progress(format("timing the far field at level offset %+d...", offset));
      far = scale * time_far_field(timed_points, with(options, here[fastest].backend, offset));
    }
    for (std::size_t i = first; i < sel.candidates.size(); ++i) {
      Candidate& c = sel.candidates[i];
      if (!c.usable) continue;
      if (request.levels_auto) {
        c.far_seconds = far;
        c.note += window ? ", far field measured on " + window->description
                         : ", far field measured on all points";
      }
      c.total_seconds = c.near_seconds + (request.levels_auto ? far : 0.0);
    }
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
  if (criterion == Criterion::Total && std::isfinite(win.near_seconds)) {
    reason += format(" (near %.4g + far %.4g)", 1e3 * win.near_seconds, 1e3 * win.far_seconds);
  }
  if (second >= 0) {
    const double v = value_of(others[second], criterion);
    reason += format("; next: %s, %.4g ms (%.2fx slower)", describe(others[second]).c_str(),
                     1e3 * v, v / value_of(win, criterion));
  } else {
    reason += "; it was the only candidate that could run";
  }
  if (model) {
    reason += "; near-field times predicted by the time models in " + request.model_path;
    if (model->speedup_fitted && win.levels > 0) {
      // For information: paper 1's eq. 27 for this tree, with the fitted coefficients.
      try {
        std::string warning;
        const std::vector<double> none;
        const Tree t = build_tree(points.x, points.y, points.has_targets() ? points.tx : none,
                                  points.has_targets() ? points.ty : none, options.ct,
                                  win.level_offset, &warning, threads);
        const TreeFigures f{double(t.n_targets()), double(t.t), t.mean_per_box, t.levels, t.ct};
        reason += format(" (paper 1 eq. 27 predicts repetition %.3gx as fast as indexing here)",
                         x_overall_model(f, model->paper1));
      } catch (const Error&) {
      }
    }
  } else {
    reason += window
                  ? "; timed on " + window->description
                  : "; each back end's near field timed on all points" +
                        std::string(request.levels_auto ? ", the far field once per offset" : "");
  }
  sel.reason = reason;
  sel.calibration_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return sel;
}

}  // namespace mlfma2d::app
