// The coefficients file (tuning/model.hpp): written by `model fit --output` and `mlfma2d sweep`,
// read back by `--backend auto --model FILE`.
#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "io/io_internal.hpp"
#include "mlfma2d/errors.hpp"
#include "tuning/model.hpp"

namespace mlfma2d::tuning {

namespace {

constexpr const char* kFormat = "mlfma2d-model-1";

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

}  // namespace mlfma2d::tuning
