// The fit (tuning/model.hpp): runs paired across the two layouts, each back end's time model,
// paper 1's lambdas and weights, and the predictions with their quality.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

#include "mlfma2d/errors.hpp"
#include "tuning/model.hpp"

namespace mlfma2d::tuning {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double ratio(double num, double den) {
  return (num > 0 && den > 0 && std::isfinite(num) && std::isfinite(den)) ? num / den : kNaN;
}

bool finite_all(std::initializer_list<double> values) {
  for (double v : values)
    if (!std::isfinite(v)) return false;
  return true;
}

}  // namespace

std::vector<PairedRun> pair_runs(const std::vector<SweepRow>& rows, const std::string& base,
                                 const std::string& rest) {
  using Key = std::tuple<std::string, std::string, long>;
  std::map<Key, const SweepRow*> rest_rows;
  for (const SweepRow& r : rows)
    if (r.backend == rest) rest_rows[Key(r.source, r.sweep, r.config)] = &r;
  std::vector<PairedRun> runs;
  for (const SweepRow& r : rows) {
    if (r.backend != base) continue;
    const auto it = rest_rows.find(Key(r.source, r.sweep, r.config));
    if (it == rest_rows.end()) continue;
    PairedRun p;
    p.base = r;
    p.rest = *it->second;
    p.x.collect = ratio(p.base.phase.collect, p.rest.phase.collect);
    p.x.transfer = ratio(p.base.phase.transfer, p.rest.phase.transfer);
    p.x.kernel = ratio(p.base.phase.kernel, p.rest.phase.kernel);
    p.x.ret = ratio(p.base.phase.ret, p.rest.phase.ret);
    p.x_total = ratio(p.base.near_total, p.rest.near_total);
    p.shares = p.base.phase;  // x_share_weighted normalises
    runs.push_back(std::move(p));
  }
  return runs;
}

TimeModel fit_time_model(const std::vector<SweepRow>& rows) {
  std::vector<std::vector<double>> features;
  std::vector<double> seconds;
  for (const SweepRow& r : rows) {
    if (!(r.near_total > 0)) continue;
    features.push_back({1.0, r.n, r.near_pairs, r.leaf_boxes});
    seconds.push_back(r.near_total);
  }
  if (features.size() < 2) {
    throw InvalidInput("time model: " + std::to_string(features.size()) +
                       " usable rows, at least 2 needed");
  }
  // Relative least squares (each row divided by its time: small and large N weigh alike),
  // non-negative by elimination: a negative coefficient is fixed at 0 and the rest refitted, so
  // the model never predicts a negative time outside the measured range.
  std::vector<bool> active(4, true);
  std::vector<double> coef(4, 0.0);
  for (int round = 0; round < 4; ++round) {
    std::vector<int> cols;
    for (int j = 0; j < 4; ++j)
      if (active[j]) cols.push_back(j);
    if (cols.empty()) break;
    const std::size_t use = std::min(cols.size(), features.size());
    cols.resize(use);
    std::vector<std::vector<double>> a;
    std::vector<double> b;
    for (std::size_t i = 0; i < features.size(); ++i) {
      std::vector<double> row;
      for (int j : cols) row.push_back(features[i][j] / seconds[i]);
      a.push_back(row);
      b.push_back(1.0);
    }
    const std::vector<double> x = least_squares(a, b);
    std::fill(coef.begin(), coef.end(), 0.0);
    // Drop the term whose negative contribution is largest (coefficient times its largest value).
    int worst = -1;
    double worst_share = 0;
    for (std::size_t k = 0; k < cols.size(); ++k) {
      coef[cols[k]] = x[k];
      double largest = 0;
      for (const auto& f : features) largest = std::max(largest, std::abs(f[cols[k]]));
      const double share = x[k] * largest;
      if (share < worst_share) {
        worst_share = share;
        worst = cols[k];
      }
    }
    if (worst < 0) break;
    active[worst] = false;
    coef[worst] = 0;
  }
  for (double& c : coef) c = std::max(c, 0.0);
  TimeModel m;
  m.intercept = coef[0];
  m.per_point = coef[1];
  m.per_pair = coef[2];
  m.per_leaf_box = coef[3];
  std::vector<double> predicted;
  for (const auto& f : features) predicted.push_back(m.predict(f[1], f[2], f[3]));
  m.quality = fit_quality(predicted, seconds);
  return m;
}

namespace {

// Mean and range of measured / modelled(lambda = 1) over the runs with both finite and > 0.
struct Lambda {
  double mean = kNaN, min = kNaN, max = kNaN;
  std::size_t n = 0;
};
template <class Measured, class Modelled>
Lambda average_lambda(const std::vector<const PairedRun*>& runs, Measured measured,
                      Modelled modelled) {
  Lambda l;
  double sum = 0;
  for (const PairedRun* r : runs) {
    const double v = ratio(measured(*r), modelled(*r));
    if (!std::isfinite(v)) continue;
    sum += v;
    l.min = l.n ? std::min(l.min, v) : v;
    l.max = l.n ? std::max(l.max, v) : v;
    ++l.n;
  }
  if (l.n) l.mean = sum / double(l.n);
  return l;
}

std::vector<const PairedRun*> runs_of(const std::vector<PairedRun>& runs,
                                      const std::set<std::string>& sweeps) {
  std::vector<const PairedRun*> out;
  for (const PairedRun& r : runs)
    if (sweeps.empty() || sweeps.count(r.base.sweep)) out.push_back(&r);
  return out;
}

// The time model of every back end with enough rows, and the files the rows came from.
void fit_time_models(const std::vector<SweepRow>& rows, ModelFit* fit) {
  std::set<std::string> sources, backends;
  for (const SweepRow& r : rows) {
    sources.insert(r.source);
    backends.insert(r.backend);
  }
  fit->sources.assign(sources.begin(), sources.end());
  for (const std::string& b : backends) {
    std::vector<SweepRow> mine;
    for (const SweepRow& r : rows)
      if (r.backend == b) mine.push_back(r);
    try {
      fit->time_models[b] = fit_time_model(mine);
    } catch (const InvalidInput&) {
      // Too few rows for this back end: no time model; auto-selection says so.
    }
  }
}

// lambda_RAM from the collection sweep and lambda_GPU from the kernel sweep when present (as in
// the paper), else from every run; lambda_transfer from every run. False, with a note, when the
// runs have no times to fit them on.
bool fit_lambdas(const std::set<std::string>& sweeps, ModelFit* fit) {
  auto pick = [&](const char* preferred) {
    return sweeps.count(preferred) ? runs_of(fit->runs, {preferred}) : runs_of(fit->runs, {});
  };
  Paper1Coefficients& c = fit->paper1;
  const Lambda lr = average_lambda(
      pick("collection"), [](const PairedRun& r) { return r.x.collect; },
      [](const PairedRun& r) { return x_collect_model(r.base.figures(), 1.0); });
  const Lambda lg = average_lambda(
      pick("kernel"), [](const PairedRun& r) { return r.x.kernel; },
      [](const PairedRun& r) { return x_kernel_model(r.base.figures(), 1.0); });
  const Lambda lt = average_lambda(
      runs_of(fit->runs, {}), [](const PairedRun& r) { return r.x.transfer; },
      [](const PairedRun& r) {
        const TreeFigures f = r.base.figures();
        return (memory_indexing(f) + 8 * f.n) / (memory_repetition(f) + 8 * f.n);
      });
  if (lr.n == 0 || lg.n == 0) {
    fit->note = "the paired runs have no positive collect or kernel times to fit the lambdas";
    return false;
  }
  // The lambdas are means, as in the paper; their ranges go to the report.
  std::tie(c.lambda_ram, fit->lambda_ram_min, fit->lambda_ram_max) =
      std::tie(lr.mean, lr.min, lr.max);
  std::tie(c.lambda_gpu, fit->lambda_gpu_min, fit->lambda_gpu_max) =
      std::tie(lg.mean, lg.min, lg.max);
  fit->lambda_transfer = lt.n ? lt.mean : 1.0;
  return true;
}

// alpha, gamma, beta by least squares, on the collection and kernel sweeps as the paper did: of
// eq. 27 (modelled phases) and of eq. 8 (measured phases). False, with a note, when fewer than 3
// training runs can be used.
bool fit_weights(const std::set<std::string>& sweeps, ModelFit* fit) {
  Paper1Coefficients& c = fit->paper1;
  std::set<std::string> training;
  for (const char* s : {"collection", "kernel"})
    if (sweeps.count(s)) training.insert(s);
  const std::vector<const PairedRun*> train = runs_of(fit->runs, training);
  fit->training_sweeps.assign(training.begin(), training.end());
  if (training.empty()) fit->training_sweeps = {"all"};
  std::vector<std::vector<double>> a27, a8;
  std::vector<double> b27, b8;
  for (const PairedRun* r : train) {
    const TreeFigures f = r->base.figures();
    const double xc = x_collect_model(f, c.lambda_ram), xt = x_transfer_model(f),
                 xk = x_kernel_model(f, c.lambda_gpu);
    // Relative least squares (each equation divided by the measured X): speedups span orders
    // of magnitude, and a 10% miss at X = 0.1 matters as much as one at X = 10.
    const double w = r->x_total > 0 ? 1 / r->x_total : kNaN;
    if (finite_all({xc, xt, xk, w})) {
      a27.push_back({w * xc, w * xt, w * xk});  // eq. 27: alpha, gamma, beta
      b27.push_back(1);
    }
    if (finite_all({r->x.collect, r->x.transfer, r->x.kernel, w})) {
      a8.push_back({w * r->x.collect, w * r->x.transfer, w * r->x.kernel});  // eq. 8, measured
      b8.push_back(1);
    }
  }
  if (a27.size() < 3) {
    fit->note = "fewer than 3 usable paired runs in the training sweeps";
    return false;
  }
  const std::vector<double> x27 = least_squares(a27, b27);
  c.alpha = x27[0];
  c.gamma = x27[1];
  c.beta = x27[2];
  if (a8.size() >= 3) {
    const std::vector<double> x8 = least_squares(a8, b8);
    fit->eq8_alpha = x8[0];
    fit->eq8_gamma = x8[1];
    fit->eq8_beta = x8[2];
  } else {
    fit->eq8_alpha = fit->eq8_beta = fit->eq8_gamma = kNaN;
  }
  return true;
}

// Predictions for every run (the training ones and, e.g., the levels sweep held out).
void predict_runs(ModelFit* fit) {
  const Paper1Coefficients& c = fit->paper1;
  for (const PairedRun& r : fit->runs) {
    const TreeFigures f = r.base.figures();
    Prediction p;
    p.run = &r;
    p.collect_model = x_collect_model(f, c.lambda_ram);
    p.kernel_model = x_kernel_model(f, c.lambda_gpu);
    p.eq27 = x_overall_model(f, c);
    p.eq8 =
        fit->eq8_alpha * r.x.collect + fit->eq8_gamma * r.x.transfer + fit->eq8_beta * r.x.kernel;
    p.paper2 = x_share_weighted(r.shares, paper2_component_model(f, c, fit->lambda_transfer));
    fit->predictions.push_back(p);
  }
}

// The quality of every prediction, over all runs and sweep by sweep.
void rate_predictions(const std::set<std::string>& sweeps, ModelFit* fit) {
  std::vector<std::string> groups = {"all"};
  groups.insert(groups.end(), sweeps.begin(), sweeps.end());
  for (const std::string& g : groups) {
    std::vector<double> mc, pc, mk, pk, mt, p27, p8, p2;
    for (const Prediction& p : fit->predictions) {
      if (g != "all" && p.run->base.sweep != g) continue;
      mc.push_back(p.run->x.collect);
      pc.push_back(p.collect_model);
      mk.push_back(p.run->x.kernel);
      pk.push_back(p.kernel_model);
      mt.push_back(p.run->x_total);
      p27.push_back(p.eq27);
      p8.push_back(p.eq8);
      p2.push_back(p.paper2);
    }
    fit->quality["collect"][g] = fit_quality(pc, mc);
    fit->quality["kernel"][g] = fit_quality(pk, mk);
    fit->quality["eq27"][g] = fit_quality(p27, mt);
    fit->quality["eq8"][g] = fit_quality(p8, mt);
    fit->quality["paper2"][g] = fit_quality(p2, mt);
  }
}

}  // namespace

ModelFit fit_model(const std::vector<SweepRow>& rows) {
  ModelFit fit;
  fit_time_models(rows, &fit);
  fit.runs = pair_runs(rows);
  std::set<std::string> sweeps;
  for (const PairedRun& r : fit.runs) sweeps.insert(r.base.sweep);
  if (fit.runs.size() < 3) {
    fit.note = std::to_string(fit.runs.size()) +
               " configuration(s) measured with both indexing and repetition; the speedup model "
               "needs at least 3 (run the sweeps where the GPU back ends are available)";
    return fit;
  }
  if (!fit_lambdas(sweeps, &fit) || !fit_weights(sweeps, &fit)) return fit;
  fit.speedup_fitted = true;
  predict_runs(&fit);
  rate_predictions(sweeps, &fit);
  return fit;
}

}  // namespace mlfma2d::tuning
