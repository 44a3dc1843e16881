// Contour and solution files of the electrostatic solve (io/contours_io.cpp), and the
// `mlfma2d solve` / `mlfma2d generate` commands end to end: reports, files, exit codes.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlfma2d/electrostatics.hpp"
#include "mlfma2d/fields.hpp"
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

// The class (H5T_INTEGER, H5T_FLOAT, H5T_STRING) of a dataset, or of an attribute on `object`.
H5T_class_t type_class(const std::string& path, const std::string& object,
                       const std::string& attribute = "") {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t item = -1, type = -1;
  if (attribute.empty()) {
    item = H5Dopen2(f, object.c_str(), H5P_DEFAULT);
    if (item >= 0) type = H5Dget_type(item);
  } else {
    item = H5Aopen_by_name(f, object.c_str(), attribute.c_str(), H5P_DEFAULT, H5P_DEFAULT);
    if (item >= 0) type = H5Aget_type(item);
  }
  const H5T_class_t c = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
  if (type >= 0) H5Tclose(type);
  if (item >= 0) (attribute.empty() ? H5Dclose(item) : H5Aclose(item));
  H5Fclose(f);
  return c;
}

// A scalar number attribute on /.
double root_attribute(const std::string& path, const std::string& name) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t a = H5Aopen_by_name(f, "/", name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  EXPECT_GE(a, 0) << name;
  double v = NAN;
  if (a >= 0) {
    H5Aread(a, H5T_NATIVE_DOUBLE, &v);
    H5Aclose(a);
  }
  H5Fclose(f);
  return v;
}

// A text dataset (variable-length strings).
std::vector<std::string> read_texts(const std::string& path, const std::string& name) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t ds = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  const hid_t space = H5Dget_space(ds);
  std::vector<char*> p(H5Sget_simple_extent_npoints(space));
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  std::vector<std::string> out;
  if (H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, p.data()) >= 0) {
    for (char* c : p) out.emplace_back(c ? c : "");
    H5Dvlen_reclaim(type, space, H5P_DEFAULT, p.data());
  }
  H5Tclose(type);
  H5Sclose(space);
  H5Dclose(ds);
  H5Fclose(f);
  return out;
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
  EXPECT_EQ(read_dataset(p, "/conductors/charge", &dims), s.charge);
  EXPECT_EQ(read_dataset(p, "/panels/sigma", &dims), s.sigma);
  EXPECT_EQ(read_dataset(p, "/panels/x", &dims), s.panels.x);
  EXPECT_EQ(read_dataset(p, "/panels/y", &dims), s.panels.y);
  EXPECT_EQ(read_dataset(p, "/targets/potential", &dims), f.potential);
  EXPECT_EQ(read_dataset(p, "/targets/field_y", &dims), f.field_y);
  EXPECT_EQ(read_texts(p, "/conductors/kind"),
            (std::vector<std::string>{"reference", "signal", "signal"}));
  // No partial file when the write cannot happen.
  EXPECT_THROW(write_solution(fresh_path("no/such/folder/s.h5"), s), IoError);
}

// Every field of a solution, filled by hand (the line parameters, meshes and accuracy as the
// refining solver returns them): one signal conductor over a ground plane.
ElectrostaticSolution filled_solution() {
  ElectrostaticSolution s;
  s.charge = {2e-11};
  s.potentials = {1};
  s.ground_plane = true;
  s.ground_plane_y = -1e-4;
  s.reference = -1;
  s.capacitance = {{2e-11}};
  s.capacitance_conductors = {0};
  s.line.capacitance_vacuum = {{0.8e-11}};
  s.line.inductance = {{1.39e-6}};
  s.line.capacitance_mutual = {{0}};
  s.line.capacitance_to_ground = {2e-11};
  s.line.z0 = 50.5;
  s.line.eps_eff = 2.5;
  s.line.velocity = 1.9e8;
  s.line.modes = {{1.9e8, 2.5, 50.5, {1}}};
  s.panels.x = {0, 1};
  s.panels.y = {1, 1};
  s.panels.x0 = {-0.5, 0.5};
  s.panels.y0 = {1, 1};
  s.panels.x1 = {0.5, 1.5};
  s.panels.y1 = {1, 1};
  s.panels.length = {1, 1};
  s.panels.contour = {0, 1};
  s.panels.conductor = {0, kDielectric};
  s.panels.eps_left = {1, 4.4};
  s.panels.eps_right = {1, 1};
  s.sigma = {1e-9, 2e-10};
  s.sigma_total = {3e-10, 2e-10};
  s.meshes = {{1000, NAN, 0.5, 7}, {2000, 3e-7, 1.25, 8}};
  s.solves = {{8, 5e-11, {}}};
  s.iterations = 8;
  s.residual = 5e-11;
  s.accuracy_target = 1e-6;
  s.accuracy_estimate = 3e-7;
  s.accuracy_met = true;
  s.preconditioner = "block";
  s.fmm_backend = "cpu";
  return s;
}

// A filled solution written and read back: every dataset described with units, counts and
// indices as integers.
TEST(SolutionFiles, EveryDatasetHasADescriptionAndUnitsAndIntegersAreIntegers) {
  ElectrostaticSolution s = filled_solution();
  const std::string p = fresh_path("complete.h5");
  write_solution(p, s);
  const std::vector<std::string> names = testing::datasets(p);
  EXPECT_GE(names.size(), 30u);
  for (const std::string& name : names) {
    EXPECT_EQ(type_class(p, name, "description"), H5T_STRING) << name;
    EXPECT_EQ(type_class(p, name, "units"), H5T_STRING) << name;
  }
  for (const char* name : {"/panels/conductor", "/panels/contour", "/capacitance_conductors",
                           "/meshes/panels", "/meshes/iterations", "/solves/iterations"}) {
    EXPECT_EQ(type_class(p, name), H5T_INTEGER) << name;
  }
  for (const char* name : {"panels", "iterations", "reference", "conductors", "products",
                           "accuracy_met", "ground_plane", "symmetric_pair"}) {
    EXPECT_EQ(type_class(p, "/", name), H5T_INTEGER) << name;
  }
  for (const char* name : {"method", "preconditioner", "attribute_units"}) {
    EXPECT_EQ(type_class(p, "/", name), H5T_STRING) << name;
  }
  std::vector<hsize_t> dims;
  EXPECT_EQ(read_dataset(p, "/panels/eps_left", &dims), s.panels.eps_left);
  EXPECT_EQ(read_dataset(p, "/panels/eps_right", &dims), s.panels.eps_right);
  EXPECT_EQ(read_dataset(p, "/panels/sigma_total", &dims), s.sigma_total);
  EXPECT_EQ(read_dataset(p, "/panels/conductor", &dims), (std::vector<double>{0, -1}));
  EXPECT_EQ(read_dataset(p, "/inductance", &dims), (std::vector<double>{1.39e-6}));
  EXPECT_EQ(dims, (std::vector<hsize_t>{1, 1}));
  EXPECT_EQ(read_dataset(p, "/capacitance_vacuum", &dims), (std::vector<double>{0.8e-11}));
  EXPECT_EQ(read_dataset(p, "/capacitance_to_ground", &dims), (std::vector<double>{2e-11}));
  EXPECT_EQ(read_dataset(p, "/modes/impedance", &dims), (std::vector<double>{50.5}));
  EXPECT_EQ(read_dataset(p, "/modes/voltage", &dims), (std::vector<double>{1}));
  EXPECT_EQ(read_dataset(p, "/meshes/panels", &dims), (std::vector<double>{1000, 2000}));
  const std::vector<double> change = read_dataset(p, "/meshes/change", &dims);
  EXPECT_TRUE(std::isnan(change[0]));
  EXPECT_EQ(change[1], 3e-7);
  EXPECT_EQ(read_texts(p, "/conductors/kind"), (std::vector<std::string>{"signal"}));
  EXPECT_EQ(root_attribute(p, "z0"), 50.5);
  EXPECT_EQ(root_attribute(p, "eps_eff"), 2.5);
  EXPECT_EQ(root_attribute(p, "velocity"), 1.9e8);
  EXPECT_EQ(root_attribute(p, "ground_plane_y"), -1e-4);
  EXPECT_EQ(root_attribute(p, "accuracy_target"), 1e-6);
  EXPECT_EQ(root_attribute(p, "accuracy_estimate"), 3e-7);
  EXPECT_EQ(root_attribute(p, "accuracy_met"), 1);
  EXPECT_EQ(root_attribute(p, "panels"), 2);
  // Not estimated: NaN, and never met.
  s.accuracy_target = 0;
  s.accuracy_estimate = NAN;
  s.accuracy_met = false;
  write_solution(p, s);
  EXPECT_TRUE(std::isnan(root_attribute(p, "accuracy_estimate")));
  EXPECT_EQ(root_attribute(p, "accuracy_met"), 0);
}

// Every row of the tables of what a solution holds is in the file (include/mlfma2d/fields.hpp):
// lists as datasets in the row's unit, numbers and flags as root attributes.
TEST(SolutionFiles, HoldEveryRowOfTheTablesInItsUnit) {
  ElectrostaticSolution s = filled_solution();
  s.solves = {{8, 5e-11, {0.1, 0.01}}, {3, 4e-11, {0.1}}};  // histories of different lengths
  FieldAtTargets at;
  at.potential = at.field_x = at.field_y = {1, 2};
  at.undefined_field = 1;
  const std::string p = fresh_path("every_row.h5");
  write_solution(p, s, {0, 1}, {1, 1}, &at);
  const std::vector<std::string> datasets = testing::datasets(p);
  const std::vector<std::string> attributes = testing::root_attributes(p);
  auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  // A dataset of a row: there, in the row's unit ("1" for none).
  auto expect_dataset = [&](const std::string& name, const char* unit) {
    ASSERT_TRUE(has(datasets, name)) << name;
    EXPECT_EQ(testing::text_attribute(p, name, "units"), *unit ? unit : "1") << name;
  };
  // Lists in `group` (none: in whichever group holds one of that name; the conductors'
  // potentials: /conductors/potential), numbers and flags root attributes (seconds of a phase:
  // timing_<name>).
  auto expect_rows = [&](const auto& object, const std::string& group) {
    using S = std::decay_t<decltype(object)>;
    for_each_field(object, [&](const auto& f, const auto& value) {
      using T = std::decay_t<decltype(value)>;
      if constexpr (is_numbers_v<T>) {
        if (!group.empty()) return expect_dataset(group + f.name, f.unit);
        const std::string base =
            is_field(f, &ElectrostaticSolution::potentials) ? "potential" : f.name;
        const auto at = std::find_if(datasets.begin(), datasets.end(), [&](const std::string& d) {
          return d.size() > base.size() &&
                 d.compare(d.size() - base.size() - 1, std::string::npos, "/" + base) == 0;
        });
        ASSERT_NE(at, datasets.end()) << f.name;
        expect_dataset(*at, f.unit);
      } else if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string>) {
        const bool phase = std::is_same_v<S, ElectrostaticTimings> && std::string(f.unit) == "s";
        const std::string name = (phase ? "timing_" : "") + std::string(f.name);
        EXPECT_TRUE(has(attributes, name)) << name;
      }
    });
  };
  // The rows of a list of structs: one dataset per field in `group` (but `except`).
  auto expect_columns = [&](const auto& rows, const std::string& group,
                            const std::string& except = "") {
    using S = typename std::decay_t<decltype(rows)>::value_type;
    FieldTable<S>::visit([&](const auto& f) {
      if (f.name != except) expect_dataset(group + f.name, f.unit);
    });
  };
  expect_rows(s, "");
  expect_rows(s.panels, "/panels/");
  expect_rows(s.line, "/");
  expect_rows(s.timings, "/");
  expect_rows(at, "/targets/");
  expect_columns(s.line.modes, "/modes/");
  expect_columns(s.meshes, "/meshes/");
  // The residuals of each iteration differ in number from solve to solve: no matrix.
  expect_columns(s.solves, "/solves/", "history");
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
  EXPECT_TRUE(contains(r.out, "C, Maxwell matrix (pF/m)")) << r.out;
  EXPECT_TRUE(contains(r.out, "eps_r background  2")) << r.out;
  EXPECT_TRUE(contains(r.out, "targets")) << r.out;
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

TEST(SolveCommand, NewOptionsRefuseBadValuesAndWriteNothing) {
  const std::string geom = generated("two-wire");
  const std::string strip = generated("strip");
  const std::string out = fresh_path("never.h5"), png = fresh_path("never.png"),
                    rlgc = fresh_path("never.rlgc");
  auto expect = [&](const std::string& args, const std::string& part, int code = 2) {
    const AppRun r = run_app("solve " + args + " --output " + out);
    EXPECT_EQ(r.code, code) << args << "\n" << describe(r);
    EXPECT_TRUE(contains(r.err, part)) << args << "\n" << describe(r);
    for (const std::string& f : {out, png, rlgc}) EXPECT_FALSE(fs::exists(f)) << args << f;
  };
  expect("--input " + geom + " --accuracy 0", "--accuracy: invalid value '0'");
  expect("--input " + geom + " --accuracy 1.5", "--accuracy: invalid value '1.5'");
  expect("--input " + geom + " --accuracy abc", "--accuracy: invalid value 'abc'");
  expect("--input " + geom + " --max-panels 0", "--max-panels: invalid value '0'");
  expect("--input " + geom + " --panels 2048 --max-panels 1000",
         "--max-panels 1000 is less than --panels 2048");
  expect("--input " + geom + " --ground-plane high", "--ground-plane: invalid value 'high'");
  expect("--input " + geom + " --plot " + fresh_path("p.jpg"), "is not a PNG file name");
  expect("--input " + geom + " --rlgc " + out, "--rlgc and --output name the same file");
  expect("--input " + geom + " --rlgc " + geom, "--rlgc '" + geom + "' is an input file");
  // (No --plot beside it: where gnuplot is missing that is refused first.)
  expect("--input " + strip + " --rlgc " + rlgc,
         "--rlgc: one conductor and no ground plane have no capacitance matrix");
  expect("--input " + geom + " --rlgc " + fresh_path("no/such/folder/x.rlgc"), "does not exist", 3);
}

TEST(SolveCommand, AccuracyTargetsAndFixedMeshes) {
  const std::string geom = generated("two-wire");
  // A fixed mesh: one solve, no estimate, and the report says why.
  AppRun r = run_app("solve --input " + geom + " --panels 1024 --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "not estimated (fixed mesh: --panels given; add --accuracy)"))
      << r.out;
  // --panel-size as given, not rounded to six decimals.
  r = run_app("solve --input " + geom + " --panel-size 1e-5 --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "panel size        1e-05 m")) << r.out;
  // Default: a target of 1e-6; "met" only with an estimate below it.
  r = run_app("solve --input " + geom + " --quiet --report json");
  ASSERT_EQ(r.code, 0) << describe(r);
  const json j = json::parse(r.out);
  EXPECT_EQ(j["accuracy"]["target"].get<double>(), 1e-6);
  const json& e = j["accuracy"]["estimate"];
  EXPECT_EQ(j["accuracy"]["met"].get<bool>(), e.is_number() && e.get<double>() <= 1e-6);
  // With both, the target stands (refinement starts from the mesh given).
  r = run_app("solve --input " + geom + " --panels 1024 --accuracy 1e-4 --quiet --report json");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(json::parse(r.out)["accuracy"]["target"].get<double>(), 1e-4);
}

TEST(SolveCommand, PlotOfATwoWireLine) {
  const std::string geom = generated("two-wire");
  const std::string png = fresh_path("two-wire.png");
  const AppRun r =
      run_app("solve --input " + geom + " --panels 1024 --quiet --report json " + "--plot " + png);
  if (r.code == 2 && contains(r.err, "gnuplot not found")) {
    GTEST_SKIP() << "gnuplot is not installed: " << r.err;
  }
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(json::parse(r.out)["plot"], png);
  const std::string bytes = testing::read_file(png);
  ASSERT_GT(bytes.size(), 10000u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
}

// Needs the solver that fills the line parameters and calls ElectrostaticOptions::progress
// (issue 19, the lead's branch): enable once merged.
TEST(SolveCommand, ProgressLinesAndRlgcOfACoupledLine) {
  const std::string geom = generated("two-wire");
  const std::string rlgc = fresh_path("tw.rlgc");
  AppRun r = run_app("solve --input " + geom + " --panels 4096 --rlgc " + rlgc,
                     "MLFMA2D_PROGRESS_AFTER=0");
  ASSERT_EQ(r.code, 0) << describe(r);
  std::size_t lines = 0;
  for (std::size_t at = r.err.find("\n  "); at != std::string::npos;
       at = r.err.find("\n  ", at + 1)) {
    ++lines;
  }
  EXPECT_GE(lines, 2u) << r.err;
  EXPECT_TRUE(contains(testing::read_file(rlgc), "\n1\n")) << testing::read_file(rlgc);
  r = run_app("solve --input " + geom + " --panels 4096 --quiet");
  EXPECT_EQ(r.err, "");
}

// Issue 20: a tiny --panel-size is named as given, not "0.000000 m". The message is the
// library's (electrostatics/geometry.cpp, std::to_string there): enable once it prints %g.
TEST(SolveCommand, ATinyPanelSizeIsNamedAsGiven) {
  const std::string geom = generated("two-wire");
  const AppRun r = run_app("solve --input " + geom + " --panel-size 1e-10");
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "panel size 1e-10 m")) << describe(r);
}

}  // namespace
}  // namespace mlfma2d
