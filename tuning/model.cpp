#include "tuning/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <variant>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "io/io_internal.hpp"
#include "mlfma2d/errors.hpp"
#include "runtime/text.hpp"

namespace mlfma2d::tuning {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kFormat = "mlfma2d-model-1";

double ratio(double num, double den) {
  return (num > 0 && den > 0 && std::isfinite(num) && std::isfinite(den)) ? num / den : kNaN;
}

bool finite_all(std::initializer_list<double> values) {
  for (double v : values)
    if (!std::isfinite(v)) return false;
  return true;
}

double pow4(double e) {
  return std::pow(4.0, e);
}

}  // namespace

// ---- Paper 1's equations.

double memory_indexing(const TreeFigures& f) {
  return 40 * f.n + pow4(f.levels) * (2 + 10 * f.t);  // eq. 2
}

double memory_repetition(const TreeFigures& f) {
  return 8 * f.n * (3 + 27.0 * f.ct);  // eq. 9 (reserves CT, not t, sources per E1 box)
}

bool replicates_sources(const std::string& backend) {
  return backend.rfind(kRestructuredBackend, 0) == 0;  // repetition, repetition-gpu
}

double x_collect_model(const TreeFigures& f, double lambda_ram) {
  // eq. 14 = eq. 11 (X_m / t) with eq. 13 (X_m ~ 1 / (21.6 D)); 21.6 = 2 * 27 / 2.5 (eq. 13).
  return lambda_ram / (21.6 * f.t * f.D);
}

double x_transfer_model(const TreeFigures& f) {
  return 1.0 / (21.6 * f.D);  // eq. 13: the data-volume ratio; its lambda is left to gamma
}

double x_kernel_model(const TreeFigures& f, double lambda_gpu) {
  // eq. 26: (4/3) X_mem t 4^(L-1) / N with X_mem ~ lambda_GPU 44 / N (eq. 25). The paper prints
  // 55.3 for (4/3) * 44 (= 58.7); we keep its 55.3 so that its lambda_GPU (~640) is comparable.
  return 55.3 * lambda_gpu * f.t / (f.n * f.D);
}

double x_overall_model(const TreeFigures& f, const Paper1Coefficients& c) {
  return c.alpha * x_collect_model(f, c.lambda_ram) + c.gamma * x_transfer_model(f) +
         c.beta * x_kernel_model(f, c.lambda_gpu);  // eq. 27
}

double x_after_level_change(const TreeFigures& f, int i, const Paper1Coefficients& c) {
  TreeFigures g = f;  // eq. 32: t' = t / 4^i, D' = D / 4^i, N unchanged
  g.t = f.t / pow4(i);
  g.D = f.D / pow4(i);
  g.levels = f.levels + i;
  return x_overall_model(g, c);  // eq. 33
}

double x_after_level_change_shorthand(int i, const Paper1Coefficients& c) {
  return c.alpha * pow4(2 * i) + c.gamma * pow4(i) + c.beta;  // eq. 33, last line
}

double kernel_break_even_n(double lambda_gpu, double t, double D) {
  return 55.3 * lambda_gpu * t / D;  // eq. 29
}

// ---- Paper 2.

double x_share_weighted(const Phases& shares, const Phases& x) {
  const double total = shares.sum();
  if (!(total > 0)) return kNaN;
  double sum = 0;
  const double s[4] = {shares.collect, shares.transfer, shares.kernel, shares.ret};
  const double v[4] = {x.collect, x.transfer, x.kernel, x.ret};
  for (int c = 0; c < 4; ++c) {
    if (s[c] <= 0) continue;
    if (!(v[c] > 0)) return kNaN;
    sum += (s[c] / total) / v[c];  // paper 2 eq. 6
  }
  return sum > 0 ? 1.0 / sum : kNaN;
}

Phases paper2_component_model(const TreeFigures& f, const Paper1Coefficients& c,
                              double lambda_transfer) {
  Phases x;
  x.collect = x_collect_model(f, c.lambda_ram);
  // Prop. 4: transfer speedup ~ V_base / V_restr, with eq. 12's volumes (layout + 8N results).
  x.transfer = lambda_transfer * (memory_indexing(f) + 8 * f.n) / (memory_repetition(f) + 8 * f.n);
  x.kernel = x_kernel_model(f, c.lambda_gpu);
  x.ret = 1;  // conj. 1: same complexity and volume (N doubles back) in both layouts
  return x;
}

// ---- Sweep CSV.

namespace {

// A cell of a sweep row: where its value lives.
using Cell = std::variant<std::string*, long*, int*, double*>;

// One CSV column: its name, whether a sweep CSV must have it, the printf conversion of a real
// value ("" for text and integers, written as they are), and its cell in a row.
struct Column {
  const char* name;
  bool required;
  const char* real;
  Cell (*cell)(SweepRow&);
};

// clang-format off
const std::vector<Column>& columns() {
  using S = SweepRow&;
  static const std::vector<Column> c = {
      {"sweep", true, "", [](S r) -> Cell { return &r.sweep; }},
      {"config", true, "", [](S r) -> Cell { return &r.config; }},
      {"backend", true, "", [](S r) -> Cell { return &r.backend; }},
      {"n", true, "%.0f", [](S r) -> Cell { return &r.n; }},
      {"ct", true, "", [](S r) -> Cell { return &r.ct; }},
      {"level_offset", true, "", [](S r) -> Cell { return &r.level_offset; }},
      {"levels_ct", false, "", [](S r) -> Cell { return &r.levels_ct; }},
      {"levels", true, "", [](S r) -> Cell { return &r.levels; }},
      {"grid_levels", false, "", [](S r) -> Cell { return &r.grid_levels; }},
      {"t", true, "%.0f", [](S r) -> Cell { return &r.t; }},
      {"D", true, "%.9g", [](S r) -> Cell { return &r.D; }},
      {"leaf_boxes", true, "%.0f", [](S r) -> Cell { return &r.leaf_boxes; }},
      {"boxes", false, "%.0f", [](S r) -> Cell { return &r.boxes; }},
      {"near_pairs", true, "%.0f", [](S r) -> Cell { return &r.near_pairs; }},
      {"repeat", false, "", [](S r) -> Cell { return &r.repeat; }},
      {"collect", true, "%.9g", [](S r) -> Cell { return &r.phase.collect; }},
      {"transfer", true, "%.9g", [](S r) -> Cell { return &r.phase.transfer; }},
      {"kernel", true, "%.9g", [](S r) -> Cell { return &r.phase.kernel; }},
      {"return", true, "%.9g", [](S r) -> Cell { return &r.phase.ret; }},
      {"near_total", true, "%.9g", [](S r) -> Cell { return &r.near_total; }},
      {"near_total_mean", false, "%.9g", [](S r) -> Cell { return &r.near_total_mean; }},
      {"near_total_min", false, "%.9g", [](S r) -> Cell { return &r.near_total_min; }},
      {"far_total", false, "%.9g", [](S r) -> Cell { return &r.far_total; }},
      {"device_bytes", false, "%.0f", [](S r) -> Cell { return &r.device_bytes; }},
      {"chunks", false, "%.0f", [](S r) -> Cell { return &r.chunks; }},
      {"pairs_per_second", false, "%.9g", [](S r) -> Cell { return &r.pairs_per_second; }},
      {"rel_l2_vs_cpu", false, "%.3g", [](S r) -> Cell { return &r.rel_l2_vs_cpu; }},
      {"threads", false, "", [](S r) -> Cell { return &r.threads; }},
  };
  return c;
}
// clang-format on

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream s(line);
  while (std::getline(s, cell, sep)) out.push_back(cell);
  if (!line.empty() && line.back() == sep) out.emplace_back();
  return out;
}

}  // namespace

const std::vector<std::string>& sweep_csv_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Column& c : columns()) n.emplace_back(c.name);
    return n;
  }();
  return names;
}

std::string sweep_csv_header() {
  std::string h;
  for (const std::string& name : sweep_csv_columns()) h += (h.empty() ? "" : ",") + name;
  return h;
}

std::string sweep_csv_line(const SweepRow& row) {
  SweepRow r = row;  // the cells are reached through a mutable row
  std::string line;
  for (const Column& c : columns()) {
    line += line.empty() ? "" : ",";
    std::visit(
        [&](auto* v) {
          using T = std::decay_t<decltype(*v)>;
          if constexpr (std::is_same_v<T, std::string>) {
            line += *v;
          } else if constexpr (std::is_same_v<T, double>) {
            line += format(c.real, *v);
          } else {
            line += std::to_string(*v);
          }
        },
        c.cell(r));
  }
  return line;
}

std::vector<SweepRow> read_sweep_csv(const std::string& path) {
  io_detail::require_readable(path);  // missing, a folder, a FIFO that would block: said plainly
  std::ifstream in(path);
  if (!in) throw IoError("cannot read '" + path + "': no such file or not readable");
  std::string line;
  std::vector<int> at(columns().size(), -1);
  bool have_header = false;
  std::vector<SweepRow> rows;
  long line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> cells = split(line, ',');
    if (!have_header) {
      for (std::size_t i = 0; i < cells.size(); ++i) {
        for (std::size_t c = 0; c < columns().size(); ++c)
          if (cells[i] == columns()[c].name) at[c] = static_cast<int>(i);
      }
      for (std::size_t c = 0; c < columns().size(); ++c) {
        if (columns()[c].required && at[c] < 0) {
          throw IoError(path + ": not a sweep CSV: no column '" + columns()[c].name +
                        "' in the header (line " + std::to_string(line_no) + ")");
        }
      }
      have_header = true;
      continue;
    }
    auto text = [&](std::size_t c) -> std::string {
      if (at[c] < 0) return "";
      if (static_cast<std::size_t>(at[c]) >= cells.size()) {
        throw IoError(path + ": line " + std::to_string(line_no) + ": missing column '" +
                      columns()[c].name + "'");
      }
      return cells[at[c]];
    };
    auto number = [&](std::size_t c) -> double {
      const std::string s = text(c);
      if (s.empty() && !columns()[c].required) return 0;
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size()) {
        throw IoError(path + ": line " + std::to_string(line_no) + ", column '" +
                      columns()[c].name + "': not a number: '" + excerpt(s) + "'");
      }
      return v;
    };
    SweepRow r;
    for (std::size_t c = 0; c < columns().size(); ++c) {
      std::visit(
          [&](auto* v) {
            using T = std::decay_t<decltype(*v)>;
            if constexpr (std::is_same_v<T, std::string>) {
              *v = text(c);
            } else {
              *v = static_cast<T>(number(c));
            }
          },
          columns()[c].cell(r));
    }
    r.source = path;
    rows.push_back(std::move(r));
  }
  if (!have_header) throw IoError(path + ": empty: no header line");
  return rows;
}

// ---- Quality and least squares.

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  if (n < 2) return kNaN;
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ma += a[i];
    mb += b[i];
  }
  ma /= double(n);
  mb /= double(n);
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return (saa > 0 && sbb > 0) ? sab / std::sqrt(saa * sbb) : kNaN;
}

double mean_relative_error(const std::vector<double>& predicted,
                           const std::vector<double>& measured) {
  const std::size_t n = std::min(predicted.size(), measured.size());
  double sum = 0;
  std::size_t used = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (measured[i] == 0) continue;
    sum += std::abs(predicted[i] - measured[i]) / std::abs(measured[i]);
    ++used;
  }
  return used ? sum / double(used) : kNaN;
}

FitQuality fit_quality(const std::vector<double>& predicted, const std::vector<double>& measured) {
  // Only the pairs where both are finite count.
  std::vector<double> p, m;
  for (std::size_t i = 0; i < std::min(predicted.size(), measured.size()); ++i) {
    if (std::isfinite(predicted[i]) && std::isfinite(measured[i])) {
      p.push_back(predicted[i]);
      m.push_back(measured[i]);
    }
  }
  FitQuality q;
  q.n = p.size();
  q.correlation = pearson(p, m);
  q.mean_relative_error = mean_relative_error(p, m);
  return q;
}

std::vector<double> least_squares(const std::vector<std::vector<double>>& a,
                                  const std::vector<double>& b) {
  const std::size_t rows = a.size();
  const std::size_t cols = rows ? a[0].size() : 0;
  if (rows < cols || cols == 0) {
    throw InvalidInput("least squares: " + std::to_string(rows) + " rows for " +
                       std::to_string(cols) + " unknowns");
  }
  Eigen::MatrixXd m(rows, cols);
  Eigen::VectorXd v(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) m(i, j) = a[i][j];
    v(i) = b[i];
  }
  // Scale each column to unit max so that a term of 1e-6 weighs as much as one of 1e3.
  Eigen::VectorXd scale(cols);
  for (std::size_t j = 0; j < cols; ++j) {
    const double s = m.col(j).cwiseAbs().maxCoeff();
    scale(j) = s > 0 ? s : 1;
    m.col(j) /= scale(j);
  }
  const Eigen::VectorXd x = m.colPivHouseholderQr().solve(v);
  std::vector<double> out(cols);
  for (std::size_t j = 0; j < cols; ++j) out[j] = x(j) / scale(j);
  return out;
}

// ---- The fit.

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

}  // namespace

ModelFit fit_model(const std::vector<SweepRow>& rows) {
  ModelFit fit;
  std::set<std::string> sources, backends, sweeps;
  for (const SweepRow& r : rows) {
    sources.insert(r.source);
    backends.insert(r.backend);
  }
  fit.sources.assign(sources.begin(), sources.end());
  for (const std::string& b : backends) {
    std::vector<SweepRow> mine;
    for (const SweepRow& r : rows)
      if (r.backend == b) mine.push_back(r);
    try {
      fit.time_models[b] = fit_time_model(mine);
    } catch (const InvalidInput&) {
      // Too few rows for this back end: no time model; auto-selection says so.
    }
  }

  fit.runs = pair_runs(rows);
  for (const PairedRun& r : fit.runs) sweeps.insert(r.base.sweep);
  if (fit.runs.size() < 3) {
    fit.note = std::to_string(fit.runs.size()) +
               " configuration(s) measured with both indexing and repetition; the speedup model "
               "needs at least 3 (run the sweeps where the GPU back ends are available)";
    return fit;
  }
  auto pick = [&](const char* preferred) {
    return sweeps.count(preferred) ? runs_of(fit.runs, {preferred}) : runs_of(fit.runs, {});
  };
  Paper1Coefficients& c = fit.paper1;
  const Lambda lr = average_lambda(
      pick("collection"), [](const PairedRun& r) { return r.x.collect; },
      [](const PairedRun& r) { return x_collect_model(r.base.figures(), 1.0); });
  const Lambda lg = average_lambda(
      pick("kernel"), [](const PairedRun& r) { return r.x.kernel; },
      [](const PairedRun& r) { return x_kernel_model(r.base.figures(), 1.0); });
  const Lambda lt = average_lambda(
      runs_of(fit.runs, {}), [](const PairedRun& r) { return r.x.transfer; },
      [](const PairedRun& r) {
        const TreeFigures f = r.base.figures();
        return (memory_indexing(f) + 8 * f.n) / (memory_repetition(f) + 8 * f.n);
      });
  if (lr.n == 0 || lg.n == 0) {
    fit.note = "the paired runs have no positive collect or kernel times to fit the lambdas";
    return fit;
  }
  // The lambdas are means, as in the paper; their ranges go to the report.
  std::tie(c.lambda_ram, fit.lambda_ram_min, fit.lambda_ram_max) =
      std::tie(lr.mean, lr.min, lr.max);
  std::tie(c.lambda_gpu, fit.lambda_gpu_min, fit.lambda_gpu_max) =
      std::tie(lg.mean, lg.min, lg.max);
  fit.lambda_transfer = lt.n ? lt.mean : 1.0;

  // alpha, gamma, beta by least squares, on the collection and kernel sweeps as the paper did.
  std::set<std::string> training;
  for (const char* s : {"collection", "kernel"})
    if (sweeps.count(s)) training.insert(s);
  const std::vector<const PairedRun*> train = runs_of(fit.runs, training);
  fit.training_sweeps.assign(training.begin(), training.end());
  if (training.empty()) fit.training_sweeps = {"all"};
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
    fit.note = "fewer than 3 usable paired runs in the training sweeps";
    return fit;
  }
  const std::vector<double> x27 = least_squares(a27, b27);
  c.alpha = x27[0];
  c.gamma = x27[1];
  c.beta = x27[2];
  if (a8.size() >= 3) {
    const std::vector<double> x8 = least_squares(a8, b8);
    fit.eq8_alpha = x8[0];
    fit.eq8_gamma = x8[1];
    fit.eq8_beta = x8[2];
  } else {
    fit.eq8_alpha = fit.eq8_beta = fit.eq8_gamma = kNaN;
  }
  fit.speedup_fitted = true;

  // Predictions for every run (the training ones and, e.g., the levels sweep held out).
  for (const PairedRun& r : fit.runs) {
    const TreeFigures f = r.base.figures();
    Prediction p;
    p.run = &r;
    p.collect_model = x_collect_model(f, c.lambda_ram);
    p.kernel_model = x_kernel_model(f, c.lambda_gpu);
    p.eq27 = x_overall_model(f, c);
    p.eq8 = fit.eq8_alpha * r.x.collect + fit.eq8_gamma * r.x.transfer + fit.eq8_beta * r.x.kernel;
    p.paper2 = x_share_weighted(r.shares, paper2_component_model(f, c, fit.lambda_transfer));
    fit.predictions.push_back(p);
  }
  std::vector<std::string> groups = {"all"};
  groups.insert(groups.end(), sweeps.begin(), sweeps.end());
  for (const std::string& g : groups) {
    std::vector<double> mc, pc, mk, pk, mt, p27, p8, p2;
    for (const Prediction& p : fit.predictions) {
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
    fit.quality["collect"][g] = fit_quality(pc, mc);
    fit.quality["kernel"][g] = fit_quality(pk, mk);
    fit.quality["eq27"][g] = fit_quality(p27, mt);
    fit.quality["eq8"][g] = fit_quality(p8, mt);
    fit.quality["paper2"][g] = fit_quality(p2, mt);
  }
  return fit;
}

// ---- JSON.

namespace {

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json to_json(const FitQuality& q) {
  return {{"n", q.n},
          {"correlation", number_or_null(q.correlation)},
          {"mean_relative_error", number_or_null(q.mean_relative_error)}};
}

double get_number(const nlohmann::json& j, const char* key, const std::string& path,
                  const std::string& where) {
  if (!j.contains(key) || !j[key].is_number()) {
    throw IoError(path + ": not an mlfma2d model file: no number '" + where + key + "'");
  }
  return j[key].get<double>();
}

}  // namespace

std::string model_json(const ModelFit& fit) {
  using nlohmann::json;
  json j;
  j["format"] = kFormat;
  j["sources"] = fit.sources;
  j["baseline"] = kBaselineBackend;
  j["restructured"] = kRestructuredBackend;
  j["paired_runs"] = fit.runs.size();
  j["speedup_fitted"] = fit.speedup_fitted;
  if (!fit.note.empty()) j["note"] = fit.note;
  if (fit.speedup_fitted) {
    const Paper1Coefficients& c = fit.paper1;
    j["paper1"] = {{"lambda_ram", c.lambda_ram},
                   {"lambda_ram_min", fit.lambda_ram_min},
                   {"lambda_ram_max", fit.lambda_ram_max},
                   {"lambda_gpu", c.lambda_gpu},
                   {"lambda_gpu_min", fit.lambda_gpu_min},
                   {"lambda_gpu_max", fit.lambda_gpu_max},
                   {"alpha", c.alpha},
                   {"beta", c.beta},
                   {"gamma", c.gamma},
                   {"training_sweeps", fit.training_sweeps}};
    j["paper1_eq8_measured_phases"] = {{"alpha", number_or_null(fit.eq8_alpha)},
                                       {"beta", number_or_null(fit.eq8_beta)},
                                       {"gamma", number_or_null(fit.eq8_gamma)}};
    j["paper2"] = {{"lambda_transfer", fit.lambda_transfer}};
    json q = json::object();
    for (const auto& [quantity, by_sweep] : fit.quality)
      for (const auto& [sweep, quality] : by_sweep) q[quantity][sweep] = to_json(quality);
    j["quality"] = q;
  }
  json tm = json::object();
  for (const auto& [backend, m] : fit.time_models) {
    tm[backend] = {{"intercept_seconds", m.intercept},
                   {"seconds_per_point", m.per_point},
                   {"seconds_per_pair", m.per_pair},
                   {"seconds_per_leaf_box", m.per_leaf_box},
                   {"quality", to_json(m.quality)}};
  }
  j["time_models"] = tm;
  return j.dump(2);
}

ModelCoefficients read_model_coefficients(const std::string& path) {
  io_detail::require_readable(path);  // missing, a folder, a FIFO that would block: said plainly
  std::ifstream in(path);
  if (!in) throw IoError("cannot read '" + path + "': no such file or not readable");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) {
    throw IoError(path + ": not JSON: " + e.what());
  }
  if (!j.is_object() || j.value("format", "") != kFormat) {
    throw IoError(path + ": not an mlfma2d model file (no \"format\": \"" + kFormat + "\")");
  }
  ModelCoefficients m;
  m.speedup_fitted = j.value("speedup_fitted", false);
  if (m.speedup_fitted) {
    if (!j.contains("paper1")) throw IoError(path + ": no 'paper1' coefficients");
    const auto& p = j["paper1"];
    m.paper1.lambda_ram = get_number(p, "lambda_ram", path, "paper1.");
    m.paper1.lambda_gpu = get_number(p, "lambda_gpu", path, "paper1.");
    m.paper1.alpha = get_number(p, "alpha", path, "paper1.");
    m.paper1.beta = get_number(p, "beta", path, "paper1.");
    m.paper1.gamma = get_number(p, "gamma", path, "paper1.");
  }
  if (!j.contains("time_models") || !j["time_models"].is_object()) {
    throw IoError(path + ": not an mlfma2d model file: no 'time_models'");
  }
  for (const auto& [backend, t] : j["time_models"].items()) {
    const std::string where = "time_models." + backend + ".";
    TimeModel tm;
    tm.intercept = get_number(t, "intercept_seconds", path, where);
    tm.per_point = get_number(t, "seconds_per_point", path, where);
    tm.per_pair = get_number(t, "seconds_per_pair", path, where);
    tm.per_leaf_box = get_number(t, "seconds_per_leaf_box", path, where);
    m.time_models[backend] = tm;
  }
  return m;
}

// ---- Text report.

std::string fit_report(const ModelFit& fit) {
  std::string out;
  out += format("model fit: %zu configuration(s) measured with both indexing and repetition\n",
                fit.runs.size());
  out += "  from " + join(fit.sources, ", ") + "\n";
  if (!fit.speedup_fitted) {
    out += "speedup model not fitted: " + fit.note + "\n";
  } else {
    const Paper1Coefficients& c = fit.paper1;
    const Paper1Coefficients paper;
    out += "\ncoefficients (paper 1)                 fitted        paper (GTX 1050)\n";
    out += format("  lambda_RAM  (eq. 14, mean)   %14.4g        %g (75 .. 180)\n", c.lambda_ram,
                  paper.lambda_ram);
    out += format("              range            %6.3g .. %-6.3g\n", fit.lambda_ram_min,
                  fit.lambda_ram_max);
    out += format("  lambda_GPU  (eq. 26, mean)   %14.4g        ~%g\n", c.lambda_gpu,
                  paper.lambda_gpu);
    out += format("              range            %6.3g .. %-6.3g\n", fit.lambda_gpu_min,
                  fit.lambda_gpu_max);
    out += format("  alpha (collect,  eq. 27)     %14.4g        %g\n", c.alpha, paper.alpha);
    out += format("  beta  (kernel,   eq. 27)     %14.4g        %g\n", c.beta, paper.beta);
    out += format("  gamma (transfer, eq. 27)     %14.4g        %g\n", c.gamma, paper.gamma);
    out += "  (alpha, beta, gamma by least squares on sweeps: " + join(fit.training_sweeps, ", ") +
           ")\n";
    out += format("  eq. 8 on measured phase speedups: alpha %.4g, beta %.4g, gamma %.4g\n",
                  fit.eq8_alpha, fit.eq8_beta, fit.eq8_gamma);
    out += format("  paper 2 transfer: lambda_transfer %.4g (measured / eq. 12 volume ratio)\n",
                  fit.lambda_transfer);

    out +=
        "\npredicted vs measured speedup of repetition over indexing (X > 1: repetition faster)\n";
    out += format("%-10s %9s %3s %4s %6s %6s | %8s %8s | %8s %8s | %8s %8s %8s %8s\n", "sweep", "N",
                  "L", "t", "D", "", "collect", "eq.14", "kernel", "eq.26", "total", "eq.27",
                  "eq.8", "paper2");
    for (const Prediction& p : fit.predictions) {
      const SweepRow& r = p.run->base;
      out += format(
          "%-10s %9.0f %3d %4.0f %6.3g %+6d | %8.3g %8.3g | %8.3g %8.3g | %8.3g %8.3g "
          "%8.3g %8.3g\n",
          r.sweep.c_str(), r.n, r.levels, r.t, r.D, r.level_offset, p.run->x.collect,
          p.collect_model, p.run->x.kernel, p.kernel_model, p.run->x_total, p.eq27, p.eq8,
          p.paper2);
    }
    out += "\nquality               sweeps        correlation   mean rel. error      n\n";
    const std::vector<std::pair<const char*, const char*>> quantities = {
        {"collect", "X_collect eq. 14"},
        {"kernel", "X_kernel eq. 26"},
        {"eq27", "total eq. 27"},
        {"eq8", "total eq. 8"},
        {"paper2", "total paper 2"}};
    for (const auto& [key, label] : quantities) {
      const auto it = fit.quality.find(key);
      if (it == fit.quality.end()) continue;
      for (const auto& [sweep, q] : it->second) {
        out += format("  %-19s %-12s %12.3f %16.1f%% %6zu\n", label, sweep.c_str(), q.correlation,
                      100 * q.mean_relative_error, q.n);
      }
    }
  }
  if (!fit.time_models.empty()) {
    out += "\ntime models (near-field seconds = c0 + c1 N + c2 pairs + c3 leaf boxes)\n";
    out += format("  %-12s %11s %11s %11s %11s %8s %9s %5s\n", "back end", "c0 (s)", "c1 (s/pt)",
                  "c2 (s/pair)", "c3 (s/box)", "corr.", "rel. err", "n");
    for (const auto& [backend, m] : fit.time_models) {
      out += format("  %-12s %11.3e %11.3e %11.3e %11.3e %8.3f %8.1f%% %5zu\n", backend.c_str(),
                    m.intercept, m.per_point, m.per_pair, m.per_leaf_box, m.quality.correlation,
                    100 * m.quality.mean_relative_error, m.quality.n);
    }
  }
  return out;
}

}  // namespace mlfma2d::tuning
