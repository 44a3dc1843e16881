// Auto-selection by the papers' model (tuning/tuning.hpp): the choice over candidate times, and
// the selection run end to end on a small geometry with the back ends available here.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlfma2d/errors.hpp"
#include "tests/test_util.hpp"
#include "tuning/model.hpp"
#include "tuning/tuning.hpp"

namespace fs = std::filesystem;
using namespace mlfma2d::tuning;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Candidate candidate(const std::string& backend, int offset, double near, double total,
                    bool usable = true) {
  return {backend, offset, 0, usable, "", near, kNaN, total};
}

// Chooses the back end by the model in `model`, on one thread.
AutoSelection select(const mlfma2d::PointSet& p, const std::string& model,
                     const std::vector<std::string>& backends = {}) {
  mlfma2d::Options o;
  o.threads = 1;
  return auto_select(p, o, {true, model, backends});
}

// A coefficients file whose time models make 'cpu' cheap and 'indexing' dear.
std::string model_file() {
  nlohmann::json j;
  j["format"] = "mlfma2d-model-1";
  j["speedup_fitted"] = false;
  j["time_models"]["cpu"] = {{"intercept_seconds", 1e-4},
                             {"seconds_per_point", 0.0},
                             {"seconds_per_pair", 1e-9},
                             {"seconds_per_leaf_box", 0.0}};
  j["time_models"]["indexing"] = {{"intercept_seconds", 1.0},
                                  {"seconds_per_point", 0.0},
                                  {"seconds_per_pair", 0.0},
                                  {"seconds_per_leaf_box", 0.0}};
  const std::string file = (fs::path(mlfma2d::testing::temp_dir()) / "auto_model.json").string();
  std::ofstream(file) << j.dump();
  return file;
}

}  // namespace

TEST(Auto, PicksTheFasterOfTwoBackEnds) {
  const std::vector<Candidate> c = {candidate("cpu", 0, 0.030, 0.050),
                                    candidate("repetition", 0, 0.010, 0.030)};
  EXPECT_EQ(pick_fastest(c, Criterion::Near), 1);
  EXPECT_EQ(pick_fastest(c, Criterion::Total), 1);
  const std::vector<Candidate> d = {candidate("indexing", 0, 0.002, 0.02),
                                    candidate("repetition", 0, 0.004, 0.02)};
  EXPECT_EQ(pick_fastest(d, Criterion::Near), 0);
}

TEST(Auto, NearAndTotalCanDisagree) {
  // Offset +1 makes the near field cheaper but the far field dearer.
  const std::vector<Candidate> c = {candidate("cpu", 0, 0.020, 0.050),
                                    candidate("cpu", 1, 0.010, 0.070)};
  EXPECT_EQ(pick_fastest(c, Criterion::Near), 1);
  EXPECT_EQ(pick_fastest(c, Criterion::Total), 0);
}

TEST(Auto, UnavailableAndUnmeasuredAreSkipped) {
  const std::vector<Candidate> c = {candidate("indexing", 0, 0.001, 0.001, false),
                                    candidate("repetition", 0, kNaN, kNaN),
                                    candidate("cpu", 0, -1, -1), candidate("cpu", 1, 0.5, 0.7)};
  EXPECT_EQ(pick_fastest(c, Criterion::Near), 3);
  EXPECT_EQ(pick_fastest({}, Criterion::Near), -1);
  EXPECT_EQ(pick_fastest({candidate("indexing", 0, 1, 1, false)}, Criterion::Total), -1);
}

TEST(Auto, TiesPreferTheSmallerOffsetThenTheEarlierCandidate) {
  const std::vector<Candidate> c = {
      candidate("cpu", 2, 0.01, 0.02), candidate("cpu", -1, 0.01, 0.02),
      candidate("cpu", 0, 0.01, 0.02), candidate("repetition", 0, 0.01, 0.02)};
  EXPECT_EQ(pick_fastest(c, Criterion::Total), 2);
  const std::vector<Candidate> d = {candidate("indexing", 1, 0.01, 0.02),
                                    candidate("repetition", 1, 0.01, 0.02)};
  EXPECT_EQ(pick_fastest(d, Criterion::Near), 0);
}

TEST(Auto, ModelPredictsWithoutTimingTheNearField) {
  // 'cpu' cheap, 'indexing' dear (and not available here without a GPU): the choice must be cpu,
  // from the predictions, on the papers' tree (CT 15 when CT is automatic).
  const mlfma2d::PointSet p = mlfma2d::testing::make_points("uniform", 2000, 5);
  const std::string file = model_file();
  const AutoSelection s = select(p, file, {"indexing", "cpu"});
  EXPECT_EQ(s.method, "model");
  EXPECT_EQ(s.backend, "cpu");
  ASSERT_EQ(s.candidates.size(), 2u);
  const Candidate& cpu = s.candidates[1];
  ASSERT_TRUE(cpu.usable) << cpu.note;
  EXPECT_EQ(cpu.ct, mlfma2d::kPapersCapacity);
  EXPECT_GT(cpu.near_seconds, 1e-4);         // intercept + pairs * 1e-9
  EXPECT_TRUE(std::isnan(cpu.far_seconds));  // not predicted: the back end alone is chosen
  EXPECT_NE(s.reason.find("predicted"), std::string::npos) << s.reason;
}

TEST(Auto, WithoutACoefficientsFileIsAnError) {
  const mlfma2d::PointSet p = mlfma2d::testing::make_points("uniform", 500, 5);
  EXPECT_THROW(select(p, ""), mlfma2d::InvalidInput);
}

TEST(Auto, NoCandidateIsAnError) {
  const mlfma2d::PointSet p = mlfma2d::testing::make_points("uniform", 500, 5);
  AutoRequest request;
  request.backend_auto = true;
  request.model_path = model_file();
  request.backends = {"indexing", "repetition"};
  bool gpu = mlfma2d::near_field_backend_available("indexing") ||
             mlfma2d::near_field_backend_available("repetition");
  if (gpu) GTEST_SKIP() << "a GPU back end is available here";
  EXPECT_THROW(auto_select(p, mlfma2d::Options{}, request), mlfma2d::BackendUnavailable);
}
