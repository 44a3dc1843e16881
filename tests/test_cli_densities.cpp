// The program on several densities, dipoles and Hessians (issue 22): generate writes them,
// evaluate computes and --verify checks every output of every density (the report's lines, the
// JSON's fields, the result file against direct sums computed here), --sources chooses the
// kinds, compare takes nd densities of charges and refuses what it cannot compare; each wrong
// input or option is its exit code and one line naming it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "tests/h5_writer.hpp"
#include "tests/test_util.hpp"

namespace fs = std::filesystem;
using namespace mlfma2d::testing;
using nlohmann::json;

namespace {

// Two OpenMP threads and the cpu back end (the GPU back ends have their own tests).
AppRun run(const std::string& args) {
  return run_app(args + " --backend cpu", "OMP_NUM_THREADS=2");
}

// A point set made by `generate` once per name: n points, `extra` its options.
std::string generated(const std::string& name, const std::string& extra, int n = 2000) {
  const std::string file = temp_path(name);
  if (!fs::exists(file)) {
    const AppRun r = run_app("generate --shape uniform --n " + std::to_string(n) +
                             " --seed 5 --output '" + file + "' --quiet " + extra);
    EXPECT_EQ(r.code, 0) << describe(r);
  }
  return file;
}

std::string three_both() {
  return generated("nd3_both.h5", "--densities 3 --sources both");
}

json run_json(const std::string& args) {
  const AppRun r = run(args + " --report json --quiet");
  EXPECT_EQ(r.code, 0) << describe(r);
  return r.code == 0 ? json::parse(r.out) : json::object();
}

double rel_l2(const std::vector<double>& a, const std::vector<double>& b, std::size_t from,
              std::size_t m) {
  double num = 0, den = 0;
  for (std::size_t i = from; i < from + m; ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / den);
}

}  // namespace

TEST(CliDensities, GenerateWritesTheDensitiesAndDipolesAsked) {
  const std::string file = temp_path("gen_nd4.csv");
  const AppRun r = run_app(
      "generate --shape disk --n 100 --seed 2 --densities 4 --sources both "
      "--orientations per-density --output '" +
      file + "'");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(r.out,
            "wrote 100 points (disk, seed 2; 4 densities of charges and dipoles, "
            "orientations per density) to " +
                file + "\n");
  const mlfma2d::PointSet p = mlfma2d::read_points(file);
  EXPECT_EQ(p.densities, 4);
  EXPECT_EQ(p.q.size(), 400u);
  EXPECT_EQ(p.dipole_strengths.size(), 400u);
  EXPECT_EQ(p.dipole_vectors.size(), 800u);
  EXPECT_TRUE(p.vectors_per_density);
  // The points and density 0's charges are those of one density.
  const mlfma2d::PointSet one = mlfma2d::generate_points("disk", 100, 2);
  EXPECT_TRUE(same_bits(p.x, one.x));
  EXPECT_TRUE(same_bits(std::vector<double>(p.q.begin(), p.q.begin() + 100), one.q));
}

TEST(CliDensities, EveryOutputOfThreeDensitiesOfChargesAndDipolesIsVerified) {
  const std::string in = three_both();
  const std::string out = temp_path("nd3_both_result.h5");
  const AppRun r = run("--input '" + in + "' --output '" + out +
                       "' --field --hessian --eps 1e-8 --verify --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  for (const char* line :
       {"\nsources         charges and dipoles, orientations per source, nd = 3\n",
        "\noutputs         potential, field, hessian\n", "every output of the 3 densities\n",
        "\n  potential     rel L2 ", "\n  field         rel L2 ", "\n  Hessian       rel L2 ",
        ", worst density ", "\n  tolerance     1e-08, met: yes\n", "\n  near total ",
        "\n  far total "}) {
    EXPECT_TRUE(contains(r.out, line)) << line << "\n" << r.out;
  }
  // The file: nd x M of each output, and what was computed in its attributes; the values within
  // eps of direct sums computed here.
  const mlfma2d::ResultFile f = mlfma2d::read_result(out);
  const std::size_t m = 2000;
  ASSERT_EQ(f.densities, 3);
  ASSERT_EQ(f.potential.size(), 3 * m);
  ASSERT_EQ(f.hessian_xx.size(), 3 * m);
  EXPECT_EQ(f.attributes.at("densities").integer, 3);
  EXPECT_EQ(f.attributes.at("sources").text, "charges and dipoles");
  EXPECT_EQ(f.attributes.at("outputs").text, "potential, field, hessian");
  EXPECT_EQ(f.attributes.at("dipole_orientations").text, "per source");
  EXPECT_EQ(f.attributes.at("hessian").integer, 1);
  EXPECT_EQ(f.attributes.at("error_passed").integer, 1);
  EXPECT_TRUE(f.attributes.count("error_hessian_rel_l2"));
  const mlfma2d::PointSet p = mlfma2d::read_points(in);
  mlfma2d::Densities d;
  d.charges = p.q.data();
  d.dipole_strengths = p.dipole_strengths.data();
  d.dipole_vectors = p.dipole_vectors.data();
  mlfma2d::DirectOptions o;
  o.densities = 3;
  o.dipoles = o.field = o.hessian = true;
  std::vector<double> phi(3 * m), ex(3 * m), ey(3 * m), hxx(3 * m), hxy(3 * m), hyy(3 * m);
  mlfma2d::direct_sum(p.x, p.y, p.x, p.y, d, o, {},
                      {phi.data(), ex.data(), ey.data(), hxx.data(), hxy.data(), hyy.data()});
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_LE(rel_l2(f.potential, phi, k * m, m), 1e-8) << k;
    EXPECT_LE(rel_l2(f.field_x, ex, k * m, m), 1e-7) << k;
    EXPECT_LE(rel_l2(f.hessian_xy, hxy, k * m, m), 1e-7) << k;
    EXPECT_LE(rel_l2(f.hessian_yy, hyy, k * m, m), 1e-7) << k;
  }
}

TEST(CliDensities, TheJsonReportSaysWhatWasComputedAndEachDensitysErrors) {
  const json j = run_json("--input '" + three_both() + "' --hessian --verify --eps 1e-7");
  EXPECT_EQ(j["densities"], 3);
  EXPECT_EQ(j["sources"], "charges and dipoles");
  EXPECT_EQ(j["dipole_orientations"], "per source");
  EXPECT_EQ(j["outputs"], "potential, hessian");
  EXPECT_EQ(j["charges"], true);
  EXPECT_EQ(j["dipoles"], true);
  EXPECT_EQ(j["field"], false);
  EXPECT_EQ(j["hessian"], true);
  for (const char* key : {"p2m", "m2l", "l2p", "near", "far", "total"}) {
    EXPECT_TRUE(j["timings"].contains(key)) << key;
  }
  const json& e = j["error"];
  EXPECT_EQ(e["passed"], true);
  EXPECT_DOUBLE_EQ(e["tolerance"].get<double>(), 1e-7);
  EXPECT_LE(e["hessian_rel_l2"].get<double>(), 1e-7);
  EXPECT_FALSE(e.contains("field_rel_l2"));
  ASSERT_TRUE(e.contains("worst_density") && e.contains("hessian_worst_density"));
  ASSERT_EQ(e["per_density"].size(), 3u);
  double worst = 0;
  for (const json& d : e["per_density"]) {
    ASSERT_TRUE(d.contains("hessian_rel_l2")) << d;
    EXPECT_FALSE(d.contains("field_rel_l2")) << d;
    worst = std::max(worst, d["rel_l2"].get<double>());
  }
  EXPECT_EQ(e["rel_l2"].get<double>(), worst);
  EXPECT_EQ(e["per_density"][e["worst_density"].get<int>()]["rel_l2"], e["rel_l2"]);
  // One density of charges, as before: no worst density, the keys of the files before.
  const json one = run_json("--input '" + generated("nd1.h5", "") + "' --verify");
  EXPECT_EQ(one["densities"], 1);
  EXPECT_EQ(one["sources"], "charges");
  EXPECT_TRUE(one["dipole_orientations"].is_null());
  EXPECT_EQ(one["outputs"], "potential");
  EXPECT_FALSE(one["error"].contains("worst_density"));
  EXPECT_EQ(one["error"]["per_density"].size(), 1u);
}

TEST(CliDensities, WithTermsNoToleranceIsClaimedForTheHessianEither) {
  const AppRun r = run("--input '" + three_both() + "' --terms 8 --hessian --verify --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains_all(r.out, {"\n  Hessian       rel L2 ",
                                   "tolerance     not checked (--terms given, no tolerance)"}));
  EXPECT_FALSE(contains(r.out, "met: yes")) << r.out;
  const json j = run_json("--input '" + three_both() + "' --terms 8 --hessian --verify");
  EXPECT_TRUE(j["error"]["passed"].is_null());
  EXPECT_TRUE(j["error"]["tolerance"].is_null());
}

TEST(CliDensities, SourcesChoosesTheKindsTheInputHolds) {
  const json charges = run_json("--input '" + three_both() + "' --sources charges");
  EXPECT_EQ(charges["sources"], "charges");
  EXPECT_EQ(charges["densities"], 3);
  const json dipoles = run_json("--input '" + three_both() + "' --sources dipoles --verify");
  EXPECT_EQ(dipoles["sources"], "dipoles");
  EXPECT_EQ(dipoles["error"]["passed"], true);
  const std::string plain = generated("nd1.h5", "");
  AppRun r = run("--input '" + plain + "' --sources dipoles");
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "mlfma2d: error: --sources dipoles: " + plain + " holds no dipoles"))
      << r.err;
  r = run("--input '" + plain + "' --sources both");
  EXPECT_EQ(r.code, 2) << describe(r);
  r = run("--input '" + plain + "' --sources quadrupoles");
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err,
                       "--sources: invalid value 'quadrupoles' (expected charges, dipoles "
                       "or both)"))
      << r.err;
}

TEST(CliDensities, CsvInAndOutWithSeveralDensities) {
  const std::string in = temp_path("nd2_dipoles.csv");
  write_file(in,
             "x,y,q0,q1,d0,d1,vx,vy\n"
             "0.1,0.2,1,-1,0.5,0.25,1,0\n"
             "0.7,0.4,2,0.5,0.1,0.2,0,1\n"
             "0.3,0.9,-1,1,0.3,0.3,0.6,0.8\n");
  const std::string out = temp_path("nd2_dipoles_result.csv");
  const AppRun r = run("--input '" + in + "' --output '" + out + "' --hessian --verify --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  const std::string text = read_file(out);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "x,y,potential0,potential1,hessian_xx0,hessian_xx1,hessian_xy0,hessian_xy1,"
            "hessian_yy0,hessian_yy1");
  const mlfma2d::ResultFile f = mlfma2d::read_result(out);
  EXPECT_EQ(f.densities, 2);
  EXPECT_EQ(f.attributes.at("sources").text, "charges and dipoles");
  // Source 0 at target 0 is skipped (self pair); density 1 at target 0 from sources 1 and 2.
  const double dx1 = 0.1 - 0.7, dy1 = 0.2 - 0.4, dx2 = 0.1 - 0.3, dy2 = 0.2 - 0.9;
  const double expected = 0.5 * std::log(std::hypot(dx1, dy1)) +
                          1.0 * std::log(std::hypot(dx2, dy2)) +
                          0.2 * (0 * dx1 + 1 * dy1) / (dx1 * dx1 + dy1 * dy1) +
                          0.3 * (0.6 * dx2 + 0.8 * dy2) / (dx2 * dx2 + dy2 * dy2);
  EXPECT_NEAR(f.potential[3], expected, 1e-12 * std::abs(expected));
}

TEST(CliDensities, ThePreviewIsDensityZerosAndSaysHowManyThereAre) {
  const AppRun r = run("--input '" + three_both() + "' --hessian --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains_all(r.out, {"the first:\n                density 0 of 3: phi[0] = ",
                                   "H[0] = (", "\n                phi[2] = "}));
}

TEST(CliDensities, CompareTakesDensitiesOfChargesAndRefusesTheRest) {
  const std::string charges = generated("nd2_charges.h5", "--densities 2", 1500);
  const AppRun ok =
      run_app("compare --input '" + charges + "' --backends cpu --quiet", "OMP_NUM_THREADS=2");
  ASSERT_EQ(ok.code, 0) << describe(ok);
  EXPECT_TRUE(contains(ok.out, "sources         charges, nd = 2")) << ok.out;
  AppRun r = run_app("compare --input '" + three_both() + "' --backends cpu --quiet");
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "holds dipoles, which the papers' back ends do not take")) << r.err;
  r = run_app("compare --input '" + three_both() + "' --sources charges --backends cpu --quiet",
              "OMP_NUM_THREADS=2");
  EXPECT_EQ(r.code, 0) << describe(r);
  r = run_app("compare --input '" + charges + "' --hessian --quiet");
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "--hessian: compare does not take it")) << r.err;
}

TEST(CliDensities, WrongInputsAndOptionsAreRefusedNamingThem) {
  const std::string bad = temp_path("nd_mismatch.h5");
  {
    H5Writer w(bad);
    w.numbers("/sources/x", {0, 1});
    w.numbers("/sources/y", {0, 1});
    w.numbers("/sources/q", {1, 2, 3, 4}, {2, 2});
    w.numbers("/sources/dipole_strength", {1, 2, 3, 4, 5, 6}, {3, 2});
    w.numbers("/sources/dipole_vector", {1, 0, 0, 1}, {2, 2});
  }
  AppRun r = run_app("--input '" + bad + "' --quiet");
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_TRUE(contains(r.err, bad + ": /sources/q holds 2 densities but "
                                    "/sources/dipole_strength holds 3"))
      << r.err;
  EXPECT_EQ(r.out, "");
  const std::string csv = temp_path("nd_missing.csv");
  write_file(csv, "x,y,q0,q2\n0,0,1,1\n");
  r = run_app("--input '" + csv + "' --quiet");
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_TRUE(contains(r.err, csv + ": line 1: column 'q1' missing")) << r.err;
  const std::string out = temp_path("never.h5");
  for (const std::string& args :
       {"generate --shape disk --n 10 --densities 0 --output '" + out + "'",
        "generate --shape disk --n 10 --densities 1025 --output '" + out + "'",
        "generate --shape disk --n 10 --orientations per-density --output '" + out + "'",
        "generate --shape disk --n 10 --sources both --orientations each --output '" + out + "'",
        "generate --shape coax --densities 2 --output '" + out + "'"}) {
    r = run_app(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << describe(r);
    EXPECT_TRUE(contains(r.err, "mlfma2d: error: --")) << r.err;
  }
  EXPECT_FALSE(fs::exists(out));
}

TEST(CliDensities, HelpNamesTheNewOptionsAndDatasets) {
  const AppRun e = run_app("--help");
  ASSERT_EQ(e.code, 0) << describe(e);
  for (const char* part :
       {"--hessian", "--sources", "/sources/dipole_strength", "/sources/dipole_vector",
        "/hessian/xx", "hessian_rel_l2", "per_density", "dipole_orientations"}) {
    EXPECT_TRUE(contains(e.out, part)) << part;
  }
  const AppRun g = run_app("generate --help");
  ASSERT_EQ(g.code, 0) << describe(g);
  for (const char* part : {"--densities", "--sources", "--orientations"}) {
    EXPECT_TRUE(contains(g.out, part)) << part;
  }
  const AppRun c = run_app("compare --help");
  EXPECT_TRUE(contains(c.out, "dipoles and --hessian are refused")) << c.out;
}
