// Contour and solution files of the electrostatic solve (io/contours_io.cpp); the commands that
// write them are tests/test_solve_command.cpp.
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

#include "mlfma2d/electrostatics.hpp"
#include "mlfma2d/fields.hpp"
#include "tests/h5_writer.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

using testing::fresh_path;
using testing::H5Writer;

// Two unit squares side by side (conductors 0 and 1), with hooks to spoil one dataset.
struct Layout {
  std::vector<double> x{0, 1, 1, 0, 2, 3, 3, 2}, y{0, 0, 1, 1, 0, 0, 1, 1};
  std::vector<long long> offsets{0, 4, 8}, closed{1, 1}, conductor{0, 1};
};

void write_layout(const std::string& path, const Layout& l,
                  const std::function<void(H5Writer&)>& extra = {}) {
  H5Writer f(path);
  f.numbers("/contours/x", l.x);
  f.numbers("/contours/y", l.y);
  f.integers("/contours/offsets", l.offsets);
  f.integers("/contours/closed", l.closed, H5T_STD_I32LE);
  f.integers("/contours/conductor", l.conductor, H5T_STD_I32LE);
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
    H5Writer f(p);
    f.numbers("/contours/x", {0, 1});
  }
  expect("dataset /contours/y not found");
  Layout l;
  write_layout(p, l, [](H5Writer& f) { f.numbers("/conductors/potential", {0, 1, 2}); });
  expect("/conductors/potential has 3 entries but /contours/conductor names 2 conductors");
  write_layout(p, l, [](H5Writer& f) { f.attribute("eps_r", -1); });
  expect("attribute eps_r on / is -1: expected > 0");
  write_layout(p, l, [](H5Writer& f) { f.fixed_string_attribute("eps_r", "4.4"); });
  expect("attribute eps_r on / is not a number");
  {
    H5Writer f(p);
    f.numbers("/contours/x", l.x);
    f.numbers("/contours/y", l.y);
    f.numbers("/contours/offsets", {0, 4, 8});
    f.integers("/contours/closed", l.closed, H5T_STD_I32LE);
    f.integers("/contours/conductor", l.conductor, H5T_STD_I32LE);
  }
  expect("/contours/offsets has floating-point type, expected integers");
  {
    H5Writer f(p);
    f.numbers("/contours/x", {0, 1, 1, 0, 2, 3, 3, 2, 0, 0, 1, 1, 0, 0, 1, 1}, {2, 8});
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
  testing::set_one_signal_line(&s, 2e-11, 1.39e-6, 50.5, 2.5, 1.9e8);
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

}  // namespace
}  // namespace mlfma2d
