// The papers' performance model (tuning/model.hpp): each equation on a hand example, the quality
// measures, the sweep CSV round trip, and the fit recovering known coefficients from synthetic
// sweep data.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "mlfma2d/errors.hpp"
#include "tests/test_util.hpp"
#include "tuning/model.hpp"

namespace fs = std::filesystem;
using namespace mlfma2d::tuning;

namespace {

// The true coefficients of the synthetic data (deliberately not the paper's; lambda_RAM small
// enough that the transfer term is not drowned by the collection term, so gamma is identifiable).
constexpr double kLambdaRam = 6, kLambdaGpu = 500;
constexpr double kAlpha = 0.8, kBeta = 0.12, kGamma = 0.25;

// Rows of indexing and repetition runs whose speedups follow the model exactly, times a
// lognormal noise of relative size `noise` per measured quantity.
std::vector<SweepRow> synthetic_rows(int configs, double noise, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> g(0, noise);
  Paper1Coefficients truth;
  truth.lambda_ram = kLambdaRam;
  truth.lambda_gpu = kLambdaGpu;
  truth.alpha = kAlpha;
  truth.beta = kBeta;
  truth.gamma = kGamma;
  std::vector<SweepRow> rows;
  for (int c = 1; c <= configs; ++c) {
    SweepRow base;
    base.sweep = c % 2 ? "collection" : "kernel";
    base.config = c;
    base.n = std::round(std::pow(10.0, 3 + 3 * u(rng)));  // 1e3 .. 1e6
    base.t = std::round(2 + 13 * u(rng));                 // 2 .. 15
    base.D = 0.05 + 2 * u(rng);
    base.levels = int(std::round(1 + std::log(base.n / base.D) / std::log(4.0)));
    base.ct = 15;
    base.leaf_boxes = base.n / base.D;
    base.near_pairs = 9 * base.n * base.D;
    base.repeat = 3;
    SweepRow idx = base, rep = base;
    idx.backend = "indexing";
    rep.backend = "repetition";
    idx.phase = {1e-3 * (1 + u(rng)), 1e-3 * (1 + u(rng)), 1e-3 * (1 + u(rng)), 1e-4};
    const TreeFigures f = base.figures();
    rep.phase.collect = idx.phase.collect / (x_collect_model(f, kLambdaRam) * std::exp(g(rng)));
    rep.phase.transfer = idx.phase.transfer / (0.5 * std::exp(g(rng)));
    rep.phase.kernel = idx.phase.kernel / (x_kernel_model(f, kLambdaGpu) * std::exp(g(rng)));
    rep.phase.ret = idx.phase.ret;
    idx.near_total = idx.phase.sum();
    rep.near_total = idx.near_total / (x_overall_model(f, truth) * std::exp(g(rng)));
    rows.push_back(idx);
    rows.push_back(rep);
  }
  return rows;
}

}  // namespace

TEST(Model, EquationsOnHandExamples) {
  TreeFigures f;
  f.n = 100000;
  f.t = 10;
  f.D = 2;
  f.levels = 9;
  f.ct = 15;
  EXPECT_NEAR(x_collect_model(f, 108), 108 / (21.6 * 10 * 2), 1e-15);             // eq. 14
  EXPECT_NEAR(x_transfer_model(f), 1 / 43.2, 1e-15);                              // eq. 13
  EXPECT_NEAR(x_kernel_model(f, 640), 55.3 * 640 * 10 / (100000.0 * 2), 1e-12);   // eq. 26
  EXPECT_NEAR(memory_indexing(f), 40 * 100000.0 + std::pow(4.0, 9) * 102, 1e-6);  // eq. 2
  EXPECT_NEAR(memory_repetition(f), 8 * 100000.0 * (3 + 27 * 15), 1e-6);          // eq. 9
  const Paper1Coefficients paper;                                                 // eq. 31's values
  EXPECT_NEAR(
      x_overall_model(f, paper),
      0.82 * x_collect_model(f, 108) + 0.18 * x_transfer_model(f) + 0.09 * x_kernel_model(f, 640),
      1e-12);  // eq. 27
  // eq. 33: +1 level is "more than 13 times" (0.82 * 16 + 0.18 * 4 + 0.09 = 13.93).
  EXPECT_NEAR(x_after_level_change_shorthand(1, paper), 13.93, 1e-12);
  EXPECT_NEAR(x_after_level_change_shorthand(0, paper), 1.09, 1e-12);
  // eq. 32-33 on actual figures: the collection term grows 16x, transfer 4x, kernel unchanged.
  TreeFigures g = f;
  g.t = f.t / 4;
  g.D = f.D / 4;
  EXPECT_NEAR(x_after_level_change(f, 1, paper), x_overall_model(g, paper), 1e-12);
  EXPECT_NEAR(x_kernel_model(g, 640), x_kernel_model(f, 640), 1e-12);
  EXPECT_NEAR(kernel_break_even_n(640, 15, 1), 55.3 * 640 * 15, 1e-9);  // eq. 29
}

TEST(Model, ShareWeightedForm) {
  // paper 2 eq. 6: 1 / (0.5/2 + 0.25/1 + 0.25/0.5) = 1.
  EXPECT_NEAR(x_share_weighted({0.5, 0.25, 0.25, 0}, {2, 1, 0.5, 123}), 1.0, 1e-15);
  // Shares are normalised, and with measured phase speedups the form is exactly
  // T_base / T_rest.
  const Phases base{3, 1, 4, 2}, rest{1, 2, 1, 2};
  const Phases x{3, 0.5, 4, 1};
  EXPECT_NEAR(x_share_weighted(base, x), base.sum() / rest.sum(), 1e-14);
  EXPECT_TRUE(std::isnan(x_share_weighted({0, 0, 0, 0}, x)));
}

TEST(Model, CorrelationAndMeanRelativeErrorByHand) {
  // a = (1, 2, 3), b = (2, 4, 7): s_ab = 5, s_aa = 2, s_bb = 38/3, r = 5 / sqrt(76/3).
  EXPECT_NEAR(pearson({1, 2, 3}, {2, 4, 7}), 5 / std::sqrt(76.0 / 3), 1e-14);
  EXPECT_NEAR(pearson({1, 2, 3}, {3, 2, 1}), -1, 1e-14);
  EXPECT_TRUE(std::isnan(pearson({1, 1, 1}, {1, 2, 3})));
  // |1-2|/2, |2-4|/4, |3-6|/6: 0.5 each.
  EXPECT_NEAR(mean_relative_error({1, 2, 3}, {2, 4, 6}), 0.5, 1e-15);
  EXPECT_NEAR(mean_relative_error({1.1, 0.9}, {1, 1}), 0.1, 1e-14);
  const FitQuality q = fit_quality({1, 2, NAN, 4}, {1, 2, 3, 4});
  EXPECT_EQ(q.n, 3u);
  EXPECT_NEAR(q.correlation, 1, 1e-14);
  EXPECT_NEAR(q.mean_relative_error, 0, 1e-15);
}

TEST(Model, LeastSquaresWithTermsOfVerySize) {
  // b = 2 * a0 + 3e-6 * a1, columns 1e6 times apart: the scaling keeps both exact.
  std::vector<std::vector<double>> a;
  std::vector<double> b;
  for (int i = 1; i <= 6; ++i) {
    a.push_back({double(i), 1e6 * double(i * i)});
    b.push_back(2 * i + 3e-6 * 1e6 * i * i);
  }
  const auto x = least_squares(a, b);
  EXPECT_NEAR(x[0], 2, 1e-9);
  EXPECT_NEAR(x[1], 3e-6, 1e-15);
  EXPECT_THROW(least_squares({{1, 2}}, {1}), mlfma2d::InvalidInput);
}

TEST(Model, FitRecoversKnownCoefficientsFromNoisySyntheticData) {
  const std::vector<SweepRow> rows = synthetic_rows(200, 0.002, 11);
  const ModelFit fit = fit_model(rows);
  ASSERT_TRUE(fit.speedup_fitted) << fit.note;
  EXPECT_EQ(fit.runs.size(), 200u);
  EXPECT_NEAR(fit.paper1.lambda_ram / kLambdaRam, 1, 0.01);
  EXPECT_NEAR(fit.paper1.lambda_gpu / kLambdaGpu, 1, 0.01);
  EXPECT_NEAR(fit.paper1.alpha / kAlpha, 1, 0.03);
  EXPECT_NEAR(fit.paper1.beta / kBeta, 1, 0.03);
  EXPECT_NEAR(fit.paper1.gamma / kGamma, 1, 0.05);
  EXPECT_EQ(fit.training_sweeps, (std::vector<std::string>{"collection", "kernel"}));
  // The model is the truth here: predictions follow the measurements.
  const FitQuality& q = fit.quality.at("eq27").at("all");
  EXPECT_EQ(q.n, 200u);
  EXPECT_GT(q.correlation, 0.999);
  EXPECT_LT(q.mean_relative_error, 0.01);
  EXPECT_GT(fit.quality.at("collect").at("collection").correlation, 0.999);
  // Time models exist for both back ends; the report prints.
  EXPECT_EQ(fit.time_models.count("indexing"), 1u);
  EXPECT_EQ(fit.time_models.count("repetition"), 1u);
  const std::string text = fit_report(fit);
  EXPECT_NE(text.find("lambda_RAM"), std::string::npos);
  EXPECT_NE(text.find("correlation"), std::string::npos);
}

TEST(Model, WithoutPairedRunsOnlyTimeModels) {
  std::vector<SweepRow> rows;
  for (int i = 1; i <= 5; ++i) {
    SweepRow r;
    r.sweep = "collection";
    r.config = i;
    r.backend = "cpu";
    r.n = 1000.0 * i;
    r.near_pairs = 30000.0 * i;
    r.leaf_boxes = 300.0 * i;
    // Exactly 1e-4 s + 2e-8 s per point + 5e-9 s per pair.
    r.near_total = 1e-4 + 2e-8 * r.n + 5e-9 * r.near_pairs;
    rows.push_back(r);
  }
  const ModelFit fit = fit_model(rows);
  EXPECT_FALSE(fit.speedup_fitted);
  EXPECT_NE(fit.note.find("at least 3"), std::string::npos);
  ASSERT_EQ(fit.time_models.count("cpu"), 1u);
  const TimeModel& m = fit.time_models.at("cpu");
  for (const SweepRow& r : rows) {
    EXPECT_NEAR(m.predict(r.n, r.near_pairs, r.leaf_boxes) / r.near_total, 1, 1e-6);
  }
  EXPECT_GE(m.intercept, 0);
  EXPECT_GE(m.per_point, 0);
  EXPECT_GE(m.per_pair, 0);
  EXPECT_GE(m.per_leaf_box, 0);
}

TEST(Model, CsvAndCoefficientsRoundTrip) {
  const std::vector<SweepRow> rows = synthetic_rows(6, 0.0, 3);
  const std::string csv = (fs::path(mlfma2d::testing::temp_dir()) / "model_rows.csv").string();
  {
    std::ofstream out(csv);
    out << "# a comment line\n" << sweep_csv_header() << "\n";
    for (const SweepRow& r : rows) out << sweep_csv_line(r) << "\n";
  }
  const std::vector<SweepRow> back = read_sweep_csv(csv);
  ASSERT_EQ(back.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(back[i].backend, rows[i].backend);
    EXPECT_EQ(back[i].config, rows[i].config);
    EXPECT_NEAR(back[i].phase.collect / rows[i].phase.collect, 1, 1e-8);
    EXPECT_NEAR(back[i].near_total / rows[i].near_total, 1, 1e-8);
    EXPECT_NEAR(back[i].D / rows[i].D, 1, 1e-8);
    EXPECT_EQ(back[i].source, csv);
  }
  const ModelFit fit = fit_model(back);
  ASSERT_TRUE(fit.speedup_fitted);
  const std::string json = (fs::path(mlfma2d::testing::temp_dir()) / "coeffs.json").string();
  std::ofstream(json) << model_json(fit);
  const ModelCoefficients c = read_model_coefficients(json);
  EXPECT_TRUE(c.speedup_fitted);
  EXPECT_DOUBLE_EQ(c.paper1.alpha, fit.paper1.alpha);
  EXPECT_DOUBLE_EQ(c.paper1.lambda_gpu, fit.paper1.lambda_gpu);
  EXPECT_EQ(c.time_models.size(), fit.time_models.size());

  // A file that is not a sweep's, or not a model's, is an IoError naming what is missing.
  const std::string bad = (fs::path(mlfma2d::testing::temp_dir()) / "not_sweep.csv").string();
  std::ofstream(bad) << "x,y,q\n1,2,3\n";
  try {
    read_sweep_csv(bad);
    FAIL() << "no error";
  } catch (const mlfma2d::IoError& e) {
    EXPECT_NE(std::string(e.what()).find("sweep"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_model_coefficients(bad), mlfma2d::IoError);
}
