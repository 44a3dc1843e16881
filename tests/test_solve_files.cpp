// Contour and solution files of the electrostatic solve (io/contours_io.cpp), and the
// `mlfma2d solve` / `mlfma2d generate` commands end to end: reports, files, exit codes.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlfma2d/electrostatics.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::AppRun;
using testing::contains;
using testing::describe;
using testing::fresh_path;
using testing::run_app;

// ---- A minimal HDF5 writer for malformed files (every call checked).

struct File {
  hid_t id;
  explicit File(const std::string& path)
      : id(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) {
    EXPECT_GE(id, 0);
  }
  ~File() { H5Fclose(id); }
  void dataset(const std::string& name, hid_t type, const void* data, std::vector<hsize_t> dims) {
    const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t ds = H5Dcreate2(id, name.c_str(), type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(ds, 0) << name;
    ASSERT_GE(H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0) << name;
    H5Dclose(ds);
    H5Sclose(space);
    H5Pclose(lcpl);
  }
  void doubles(const std::string& name, const std::vector<double>& v) {
    dataset(name, H5T_NATIVE_DOUBLE, v.data(), {v.size()});
  }
  void int64s(const std::string& name, const std::vector<std::int64_t>& v) {
    dataset(name, H5T_NATIVE_INT64, v.data(), {v.size()});
  }
  void ints(const std::string& name, const std::vector<int>& v) {
    dataset(name, H5T_NATIVE_INT, v.data(), {v.size()});
  }
  void attribute(const std::string& key, double value) {
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate2(id, key.c_str(), H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_DOUBLE, &value);
    H5Aclose(a);
    H5Sclose(space);
  }
  void text_attribute(const std::string& key, const char* value) {
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, std::strlen(value) + 1);
    const hid_t a = H5Acreate2(id, key.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, type, value);
    H5Aclose(a);
    H5Tclose(type);
    H5Sclose(space);
  }
};

// Two unit squares side by side (conductors 0 and 1), with hooks to spoil one dataset.
struct Layout {
  std::vector<double> x{0, 1, 1, 0, 2, 3, 3, 2}, y{0, 0, 1, 1, 0, 0, 1, 1};
  std::vector<std::int64_t> offsets{0, 4, 8};
  std::vector<int> closed{1, 1}, conductor{0, 1};
};

void write_layout(const std::string& path, const Layout& l,
                  const std::function<void(File&)>& extra = {}) {
  File f(path);
  f.doubles("/contours/x", l.x);
  f.doubles("/contours/y", l.y);
  f.int64s("/contours/offsets", l.offsets);
  f.ints("/contours/closed", l.closed);
  f.ints("/contours/conductor", l.conductor);
  if (extra) extra(f);
}

std::string io_error(const std::string& path) {
  try {
    read_contours(path);
  } catch (const IoError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong type: ") + e.what();
  }
  return "no error";
}

TEST(ContourFiles, RoundTrip) {
  const std::string p = fresh_path("round.h5");
  ContourFile f;
  f.contours = generate_contours("microstrip");
  f.potentials = {0, 1, -1};
  f.eps_r = 4.4;
  f.has_eps_r = true;
  write_contours(p, f);
  const ContourFile g = read_contours(p);
  EXPECT_EQ(g.contours.x, f.contours.x);
  EXPECT_EQ(g.contours.y, f.contours.y);
  EXPECT_EQ(g.contours.offsets, f.contours.offsets);
  EXPECT_EQ(g.contours.closed, f.contours.closed);
  EXPECT_EQ(g.contours.conductor, f.contours.conductor);
  EXPECT_EQ(g.potentials, f.potentials);
  EXPECT_TRUE(g.has_eps_r);
  EXPECT_EQ(g.eps_r, 4.4);
  // Without the optional parts.
  write_layout(p, Layout{});
  const ContourFile h = read_contours(p);
  EXPECT_TRUE(h.potentials.empty());
  EXPECT_FALSE(h.has_eps_r);
  EXPECT_EQ(h.contours.conductors(), 2);
}

TEST(ContourFiles, EveryMalformedFileIsNamed) {
  const std::string p = fresh_path("bad.h5");
  auto expect = [&](const std::string& part) {
    const std::string m = io_error(p);
    EXPECT_NE(m.find(p + ": "), std::string::npos) << m;
    EXPECT_NE(m.find(part), std::string::npos) << m;
  };
  {
    File f(p);
    f.doubles("/contours/x", {0, 1});
  }
  expect("dataset /contours/y not found");
  Layout l;
  write_layout(p, l, [](File& f) { f.doubles("/conductors/potential", {0, 1, 2}); });
  expect("/conductors/potential has 3 entries but /contours/conductor names 2 conductors");
  write_layout(p, l, [](File& f) { f.attribute("eps_r", -1); });
  expect("attribute eps_r on / is -1: expected > 0");
  write_layout(p, l, [](File& f) { f.text_attribute("eps_r", "4.4"); });
  expect("attribute eps_r on / is not a number");
  {
    File f(p);
    f.doubles("/contours/x", l.x);
    f.doubles("/contours/y", l.y);
    f.doubles("/contours/offsets", {0, 4, 8});
    f.ints("/contours/closed", l.closed);
    f.ints("/contours/conductor", l.conductor);
  }
  expect("/contours/offsets has floating-point type, expected integers");
  {
    File f(p);
    const double xy[2][8] = {{0, 1, 1, 0, 2, 3, 3, 2}, {0, 0, 1, 1, 0, 0, 1, 1}};
    f.dataset("/contours/x", H5T_NATIVE_DOUBLE, xy, {2, 8});
  }
  expect("/contours/x is 2-dimensional, expected 1-dimensional");
  auto spoiled = [&](const std::function<void(Layout&)>& spoil, const std::string& part) {
    Layout bad;
    spoil(bad);
    write_layout(p, bad);
    expect(part);
  };
  spoiled([](Layout& b) { b.y.pop_back(); }, "/contours/x has 8 entries but /contours/y has 7");
  spoiled([](Layout& b) { b.x[2] = NAN; }, "/contours/x[2] is NaN");
  spoiled([](Layout& b) { b.y[5] = -INFINITY; }, "/contours/y[5] is infinite");
  spoiled(
      [](Layout& b) {
        b.offsets = {0, 8};
      },
      "/contours/closed has 2 entries, expected one per contour (1, from /contours/offsets)");
  spoiled([](Layout& b) { b.offsets = {1, 4, 8}; }, "/contours/offsets[0] is 1, expected 0");
  spoiled(
      [](Layout& b) {
        b.offsets = {0, 4, 7};
      },
      "/contours/offsets[2] is 7, expected the "
      "vertex count of /contours/x (8)");
  spoiled(
      [](Layout& b) {
        b.offsets = {0, 5, 4, 8}, b.closed = {1, 1, 1}, b.conductor = {0, 1, 1};
      },
      "/contours/offsets[2] = 4 is less than the entry before it (5)");
  spoiled([](Layout& b) { b.offsets = {0}; }, "/contours/offsets has 1 entries");
  spoiled([](Layout& b) { b.closed[1] = 2; }, "/contours/closed[1] is 2, expected 0 or 1");
  spoiled([](Layout& b) { b.conductor[0] = -1; }, "/contours/conductor[0] is -1");
  spoiled([](Layout& b) { b.conductor[1] = 5; }, "/contours/conductor[1] is 5");
  spoiled([](Layout& b) { b.conductor = {1, 1}; }, "conductor 0 has no contour");
  // The geometry checks of validate(), prefixed with the file.
  spoiled(
      [](Layout& b) {
        b.offsets = {0, 1, 8}, b.closed = {0, 1};
      },
      "contour 0 is open with 1 vertex: an open contour needs at least 2");
  spoiled([](Layout& b) { b.x[2] = 1, b.y[2] = 0; }, "contour 0: segment 1 has zero length");
  spoiled([](Layout& b) { b.y[1] = 1, b.y[2] = 0; },  // (0,0) (1,1) (1,0) (0,1): a bow tie
          "contour 0 crosses or touches itself");
  spoiled([](Layout& b) { b.x[4] = 1, b.x[7] = 1; }, "conductors 0 and 1 cross or touch");
  // Not HDF5 at all.
  std::ofstream(p) << "x,y\n0,0\n";
  expect("not an HDF5 file");
  EXPECT_THROW(read_contours(fresh_path("missing.h5")), IoError);
  EXPECT_THROW(read_contours(fresh_path("geometry.csv")), InvalidInput);
}

// Reads a float64 dataset and its dimensions.
std::vector<double> read_dataset(const std::string& path, const std::string& name,
                                 std::vector<hsize_t>* dims) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t ds = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  EXPECT_GE(ds, 0) << name;
  const hid_t space = H5Dget_space(ds);
  dims->assign(H5Sget_simple_extent_ndims(space), 0);
  H5Sget_simple_extent_dims(space, dims->data(), nullptr);
  std::vector<double> v(H5Sget_simple_extent_npoints(space));
  if (!v.empty()) H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(space);
  H5Dclose(ds);
  H5Fclose(f);
  return v;
}

TEST(SolutionFiles, HoldTheSolution) {
  ElectrostaticOptions o;
  o.panels = 600;
  ElectrostaticSolver solver(generate_contours("microstrip"), o);
  const ElectrostaticSolution s = solver.solve();
  const std::vector<double> tx{0, 1e-3}, ty{2e-3, -1e-3};
  const FieldAtTargets f = solver.evaluate(s, tx, ty);
  const std::string p = fresh_path("solution.h5");
  write_solution(p, s, tx, ty, &f);
  std::vector<hsize_t> dims;
  const std::vector<double> c = read_dataset(p, "/capacitance", &dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{2, 2}));
  EXPECT_EQ(c, (std::vector<double>{s.capacitance[0][0], s.capacitance[0][1], s.capacitance[1][0],
                                    s.capacitance[1][1]}));
  EXPECT_EQ(read_dataset(p, "/charge", &dims), s.charge);
  EXPECT_EQ(read_dataset(p, "/panels/sigma", &dims), s.sigma);
  EXPECT_EQ(read_dataset(p, "/panels/x", &dims), s.panels.x);
  EXPECT_EQ(read_dataset(p, "/panels/y", &dims), s.panels.y);
  EXPECT_EQ(read_dataset(p, "/targets/potential", &dims), f.potential);
  EXPECT_EQ(read_dataset(p, "/targets/field_y", &dims), f.field_y);
  // No partial file when the write cannot happen.
  EXPECT_THROW(write_solution(fresh_path("no/such/folder/s.h5"), s), IoError);
}

// ---- The program

std::string generated(const std::string& shape, const std::string& more = "") {
  const std::string p = fresh_path(shape + ".h5");
  const AppRun r = run_app("generate --shape " + shape + " --n 256 --output " + p + " " + more);
  EXPECT_EQ(r.code, 0) << describe(r);
  return p;
}

TEST(SolveCommand, JsonReportOfATwoWireLine) {
  const std::string geom = generated("two-wire", "--params a=1e-3,d=5e-3");
  const std::string out = fresh_path("tw_solution.h5");
  const AppRun r =
      run_app("solve --input " + geom + " --panels 1024 --report json --quiet --output " + out);
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(r.err, "");
  const json j = json::parse(r.out);
  for (const char* key : {"capacitance", "charge", "panels", "iterations", "residual", "solves",
                          "timings", "potentials", "fmm"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  ASSERT_EQ(j["capacitance"].size(), 1u);
  ASSERT_EQ(j["capacitance"][0].size(), 1u);
  const double c = j["capacitance"][0][0];
  EXPECT_NEAR(c / two_wire_capacitance(1e-3, 5e-3), 1, 1e-4);
  EXPECT_EQ(j["charge"].size(), 2u);
  EXPECT_NEAR(j["charge"][1].get<double>(), c, 1e-9 * c);  // 1 V on conductor 1, 0 V on 0
  EXPECT_EQ(j["panels"], 1024);
  EXPECT_LE(j["residual"].get<double>(), 1e-10 * 1.0001);
  EXPECT_EQ(j["solves"][0]["residual_history"].size(),
            j["solves"][0]["iterations"].get<std::size_t>());
  EXPECT_GT(j["timings"]["product"].get<double>(), 0);
  EXPECT_TRUE(fs::exists(out));
}

TEST(SolveCommand, TextReportPotentialsFromTheFileAndTargets) {
  const std::string geom = fresh_path("ms.h5");
  ContourFile f;
  f.contours = generate_contours("microstrip");
  f.potentials = {0, 1, -1};  // odd mode
  f.eps_r = 2;
  f.has_eps_r = true;
  write_contours(geom, f);
  const std::string targets = fresh_path("targets.csv");
  std::ofstream(targets) << "x,y\n0,1e-3\n0,2.5e-4\n";
  AppRun r = run_app("solve --input " + geom + " --panels 900 --targets " + targets + " --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "Capacitance matrix (pF/m)")) << r.out;
  EXPECT_TRUE(contains(r.out, "eps_r 2")) << r.out;
  EXPECT_TRUE(contains(r.out, "Targets:")) << r.out;
  r = run_app("solve --input " + geom + " --panels 900 --targets " + targets +
              " --quiet --report json");
  ASSERT_EQ(r.code, 0) << describe(r);
  const json j = json::parse(r.out);
  EXPECT_EQ(j["potentials"], (std::vector<double>{0, 1, -1}));
  EXPECT_EQ(j["eps_r"], 2.0);
  // Odd mode: the strips' charges are opposite; on the symmetry plane x = 0 the potential is 0.
  EXPECT_NEAR(j["charge"][1].get<double>() / j["charge"][2].get<double>(), -1, 1e-6);
  EXPECT_NEAR(j["targets"]["potential"][0].get<double>(), 0, 1e-9);
  EXPECT_NEAR(j["targets"]["potential"][1].get<double>(), 0, 1e-9);
  // --potentials and --eps-r win over the file.
  r = run_app("solve --input " + geom +
              " --panels 900 --potentials 0,1,1 --eps-r 1 --quiet "
              "--report json");
  ASSERT_EQ(r.code, 0) << describe(r);
  const json k = json::parse(r.out);
  EXPECT_EQ(k["potentials"], (std::vector<double>{0, 1, 1}));
  EXPECT_NEAR(k["charge"][1].get<double>() / k["charge"][2].get<double>(), 1, 1e-6);
}

TEST(SolveCommand, OneConductorWithACharge) {
  const std::string geom = generated("strip");
  const AppRun r = run_app("solve --input " + geom +
                           " --charge 2e-9 --panels 400 --quiet "
                           "--report json");
  ASSERT_EQ(r.code, 0) << describe(r);
  const json j = json::parse(r.out);
  EXPECT_TRUE(j["capacitance"].empty());
  EXPECT_NEAR(j["charge"][0].get<double>(), 2e-9, 1e-20);
}

TEST(SolveCommand, ErrorsHaveTheirExitCodesAndWriteNothing) {
  const std::string geom = generated("two-wire");
  const std::string out = fresh_path("never.h5");
  auto expect = [&](const std::string& args, int code, const std::string& part) {
    const AppRun r = run_app("solve " + args + " --output " + out);
    EXPECT_EQ(r.code, code) << args << "\n" << describe(r);
    EXPECT_TRUE(contains(r.err, part)) << args << "\n" << describe(r);
    EXPECT_FALSE(fs::exists(out)) << args;
  };
  expect("--panels 1024", 2, "--input is required");
  expect("--input " + geom + " --reference 2", 2, "reference conductor 2 is out of range");
  expect("--input " + geom + " --potentials 0,1,2", 2, "3 potentials given for 2 conductors");
  expect("--input " + geom + " --eps-r -1", 2, "--eps-r: invalid value '-1'");
  expect("--input " + geom + " --panels 100", 2, "is less than the 512 contour segments");
  expect("--input " + geom + " --tol 2", 2, "--tol: invalid value '2'");
  expect("--input " + geom + " --panels 1000 --panel-size 1e-4", 2, "exclude each other");
  expect("--input " + geom + " --method magic", 2, "--method: invalid value 'magic'");
  expect("--input " + geom + " --backend nonexistent", 2, "nonexistent");
  expect("--input " + fresh_path("missing.h5"), 3, "no such file");
  expect("--input " + geom + " --max-iterations 2 --tol 1e-14", 4, "GMRES did not reach");
  const std::string crossing = fresh_path("crossing.h5");
  Layout l;
  l.x[4] = 1;  // the second square touches the first
  l.x[7] = 1;
  write_layout(crossing, l);
  expect("--input " + crossing, 3, "conductors 0 and 1 cross or touch");
  const AppRun csv = run_app("solve --input " + geom + " --output " + fresh_path("s.csv"));
  EXPECT_EQ(csv.code, 2) << describe(csv);
  EXPECT_TRUE(contains(csv.err, "is not HDF5")) << describe(csv);
}

TEST(SolveCommand, HelpAndGenerate) {
  const AppRun h = run_app("solve --help");
  EXPECT_EQ(h.code, 0);
  for (const char* part : {"F/m", "C/m^2", "--potentials", "--reference", "/contours/offsets",
                           "/capacitance", "Exit codes"}) {
    EXPECT_TRUE(contains(h.out, part)) << part;
  }
  EXPECT_TRUE(contains(run_app("--help").out, "mlfma2d solve"));
  EXPECT_TRUE(contains(run_app("generate --help").out, "eccentric-coax"));
  for (const std::string& shape : contour_shapes()) {
    const std::string p = generated(shape);
    EXPECT_NO_THROW(read_contours(p)) << shape;
  }
  AppRun bad =
      run_app("generate --shape coax --n 64 --params a=5e-3 --output " + fresh_path("c.h5"));
  EXPECT_EQ(bad.code, 2) << describe(bad);
  EXPECT_TRUE(contains(bad.err, "less than the outer radius")) << describe(bad);
  bad = run_app("generate --shape coax --n 64 --params q=1 --output " + fresh_path("c.h5"));
  EXPECT_EQ(bad.code, 2) << describe(bad);
  EXPECT_TRUE(contains(bad.err, "--params: invalid value 'q=1'")) << describe(bad);
}

}  // namespace
}  // namespace mlfma2d
