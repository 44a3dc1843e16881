// The transmission-line shapes of issue 19: their closed forms (electrostatics/shapes.cpp), the
// generated cross-sections, contour files with arcs, regions and a ground plane
// (io/contours_io.cpp), and `mlfma2d generate` for them.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "mlfma2d/electrostatics.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

using testing::AppRun;
using testing::contains;
using testing::describe;
using testing::expect_error;
using testing::fresh_path;
using testing::run_app;

constexpr double kPi = 3.14159265358979323846;
constexpr double kEta0 = 1 / (kEpsilon0 * 299792458.0);  // the impedance of free space, ohm

double rel(double a, double b) {
  return std::abs(a - b) / std::abs(b);
}

// ---- Closed forms

TEST(LineFormulas, CoaxSleeveIsTwoCoaxesInSeries) {
  const double a = 1e-3, r1 = 1.7e-3, b = 4e-3;
  // One medium: the plain coax.
  EXPECT_LT(rel(coax_sleeve_capacitance(a, r1, b, 1, 1), coax_capacitance(a, b)), 1e-14);
  EXPECT_LT(rel(coax_sleeve_capacitance(a, r1, b, 3, 3), coax_capacitance(a, b, 3)), 1e-14);
  // Two media: the sleeve and the gap outside it are capacitors in series.
  const double inner = coax_capacitance(a, r1, 4.4), outer = coax_capacitance(r1, b, 2.1);
  EXPECT_LT(rel(coax_sleeve_capacitance(a, r1, b, 4.4, 2.1), 1 / (1 / inner + 1 / outer)), 1e-14);
  expect_error<InvalidInput>([] { coax_sleeve_capacitance(0, 2e-3, 3e-3, 1, 1); }, {"a = 0"});
  expect_error<InvalidInput>([] { coax_sleeve_capacitance(1e-3, 1e-3, 3e-3, 1, 1); },
                             {"r1 = 0.001", "expected > a"});
  expect_error<InvalidInput>([] { coax_sleeve_capacitance(1e-3, 2e-3, 2e-3, 1, 1); },
                             {"b = 0.002", "expected > r1"});
  expect_error<InvalidInput>([] { coax_sleeve_capacitance(1e-3, 2e-3, 3e-3, 0, 1); }, {"eps1 = 0"});
  expect_error<InvalidInput>([] { coax_sleeve_capacitance(1e-3, 2e-3, 3e-3, 1, -2); },
                             {"eps2 = -2"});
}

TEST(LineFormulas, WireOverGroundIsHalfATwoWireLine) {
  // The image: a wire at height h over the plane is half of a two-wire line 2h apart (the same
  // charge, half the voltage), so C doubles.
  for (double h : {1.05e-3, 2e-3, 7.5e-3}) {
    EXPECT_LT(
        rel(wire_over_ground_capacitance(1e-3, h, 2.5), 2 * two_wire_capacitance(1e-3, 2 * h, 2.5)),
        1e-14)
        << h;
  }
  // Far from the plane: 2 pi eps0 / ln(2h / a), acosh(x) = ln(2x) - 1/(4x^2) - ...
  const double a = 1e-6, h = 1e-2;
  EXPECT_LT(rel(wire_over_ground_capacitance(a, h), 2 * kPi * kEpsilon0 / std::log(2 * h / a)),
            1e-9);
  expect_error<InvalidInput>([] { wire_over_ground_capacitance(-1e-3, 2e-3); }, {"a = -0.001"});
  expect_error<InvalidInput>([] { wire_over_ground_capacitance(1e-3, 1e-3); },
                             {"h = 0.001", "touch the plane"});
  expect_error<InvalidInput>([] { wire_over_ground_capacitance(1e-3, 2e-3, 0); }, {"eps_r = 0"});
}

TEST(LineFormulas, CohnStripline) {
  // Against Cohn's formula through the standard library's K (k moderate, where it keeps digits).
  for (double ratio : {0.1, 0.5, 1.0, 1.42, 2.0, 4.0}) {
    const double x = kPi * ratio / 2;
    const double k = 1 / std::cosh(x), kp = std::tanh(x);
    const double expected = kEta0 / 4 * std::comp_ellint_1(k) / std::comp_ellint_1(kp);
    EXPECT_LT(rel(stripline_impedance(ratio * 2e-3, 2e-3), expected), 1e-12) << ratio;
  }
  // w/b = 1.42 in air: 50.60 ohm (the often quoted "about 50 ohm"); the medium scales it.
  const double z = stripline_impedance(1.42e-3, 1e-3);
  EXPECT_NEAR(z, 50.6015, 5e-4);
  EXPECT_LT(rel(stripline_impedance(1.42e-3, 1e-3, 4), z / 2), 1e-15);
  // Wide strips (k' -> 1, where K(k') computed from k' would lose its digits): the parallel
  // plates plus the exact fringing of the two edges, C = eps (4 w/b + 8 ln 2 / pi).
  for (double ratio : {6.0, 10.0, 19.0, 20.0, 30.0, 500.0}) {
    EXPECT_LT(rel(stripline_impedance(ratio, 1), kEta0 / (4 * ratio + 8 * std::log(2) / kPi)),
              1e-12)
        << ratio;
  }
  expect_error<InvalidInput>([] { stripline_impedance(0, 1e-3); }, {"w = 0"});
  expect_error<InvalidInput>([] { stripline_impedance(1e-3, NAN); }, {"b = nan"});
  expect_error<InvalidInput>([] { stripline_impedance(1e-3, 1e-3, -1); }, {"eps_r = -1"});
}

TEST(LineFormulas, HammerstadJensen) {
  // Values of the same formulas evaluated independently (Python, eta0 = 1 / (eps0 c)):
  // a check of the transcription.
  MicrostripFormula f = hammerstad_jensen(1e-3, 1e-3, 1);
  EXPECT_NEAR(f.z0, 126.42386520, 1e-7);
  EXPECT_EQ(f.eps_eff, 1.0);  // no dielectric, no change
  f = hammerstad_jensen(1.9e-3, 1e-3, 4.4);
  EXPECT_NEAR(f.z0, 50.21786298, 1e-7);  // the 50-ohm line on FR-4
  EXPECT_NEAR(f.eps_eff, 3.32921763, 1e-7);
  // Against Hammerstad's simpler 1975 formulas (Pozar, Microwave Engineering, 3.195-3.196),
  // accurate to about 1 %: measured here at most 0.75 % (Z0) and 1.4 % (eps_eff) over this grid.
  for (double u : {0.2, 0.5, 1.0, 2.0, 5.0, 10.0}) {
    for (double er : {1.0, 2.2, 4.4, 10.0}) {
      const double e = (er + 1) / 2 + (er - 1) / 2 / std::sqrt(1 + 12 / u);
      const double z = u <= 1
                           ? 60 / std::sqrt(e) * std::log(8 / u + u / 4)
                           : 120 * kPi / (std::sqrt(e) * (u + 1.393 + 0.667 * std::log(u + 1.444)));
      f = hammerstad_jensen(u * 1e-4, 1e-4, er);
      EXPECT_LT(rel(f.z0, z), 0.008) << u << " " << er;
      EXPECT_LT(rel(f.eps_eff, e), 0.015) << u << " " << er;
      EXPECT_GT(f.eps_eff, 1 + 0.5 * (er - 1) - 1e-12);  // between the mean and eps_r
      EXPECT_LE(f.eps_eff, er);
    }
  }
  // Wide strips in air: the parallel-plate impedance eta0 h / w, approached from below.
  f = hammerstad_jensen(1e4, 1, 1);
  EXPECT_LT(rel(f.z0, kEta0 / 1e4), 2e-3);
  expect_error<InvalidInput>([] { hammerstad_jensen(0, 1e-3, 4.4); }, {"w = 0"});
  expect_error<InvalidInput>([] { hammerstad_jensen(1e-3, -1e-3, 4.4); }, {"h = -0.001"});
  expect_error<InvalidInput>([] { hammerstad_jensen(1e-3, 1e-3, 0.5); }, {"eps_r = 0.5"});
}

// ---- Generated geometries

// Contour k's vertices.
std::vector<double> xs(const Contours& c, std::size_t k) {
  return {c.x.begin() + c.offsets[k], c.x.begin() + c.offsets[k + 1]};
}
std::vector<double> ys(const Contours& c, std::size_t k) {
  return {c.y.begin() + c.offsets[k], c.y.begin() + c.offsets[k + 1]};
}

TEST(LineShapes, MicrostripLine) {
  ContourShape p;
  p.w = 1e-3, p.h = 0.3e-3, p.eps_r = 3.5, p.ground = 0;
  Contours c = generate_contours("microstrip-line", p);
  ASSERT_EQ(c.contours(), 2u);
  EXPECT_EQ(c.conductor, (std::vector<int>{0, kDielectric}));
  EXPECT_EQ(c.closed, (std::vector<int>{0, 1}));
  EXPECT_EQ(c.eps_r, (std::vector<double>{0, 3.5}));
  EXPECT_TRUE(c.bulge.empty());  // straight only
  EXPECT_EQ(c.conductors(), 1);
  EXPECT_TRUE(c.has_dielectrics());
  // The trace lies on the substrate's top side (the same double), the substrate on the plane.
  EXPECT_EQ(xs(c, 0), (std::vector<double>{-0.5e-3, 0.5e-3}));
  EXPECT_EQ(ys(c, 0), (std::vector<double>{p.h, p.h}));
  const double half = 10 * (p.w + p.h);  // ground = 0: 20 (w + h) wide
  EXPECT_EQ(xs(c, 1), (std::vector<double>{-half, half, half, -half}));
  EXPECT_EQ(ys(c, 1), (std::vector<double>{0, 0, p.h, p.h}));
  // A thick trace: a rectangle whose bottom side lies on the substrate; a given substrate width.
  p.t = 35e-6, p.ground = 8e-3;
  c = generate_contours("microstrip-line", p);
  EXPECT_EQ(c.closed, (std::vector<int>{1, 1}));
  EXPECT_EQ(xs(c, 0), (std::vector<double>{-0.5e-3, 0.5e-3, 0.5e-3, -0.5e-3}));
  EXPECT_EQ(ys(c, 0), (std::vector<double>{p.h, p.h, p.h + p.t, p.h + p.t}));
  EXPECT_EQ(xs(c, 1), (std::vector<double>{-4e-3, 4e-3, 4e-3, -4e-3}));
  EXPECT_TRUE(contour_shape_has_ground_plane("microstrip-line"));
}

TEST(LineShapes, CoupledMicrostripAndCpwg) {
  ContourShape p;
  p.w = 1e-3, p.s = 0.4e-3, p.h = 0.5e-3, p.ground = 0;
  Contours c = generate_contours("coupled-microstrip", p);
  ASSERT_EQ(c.contours(), 3u);
  EXPECT_EQ(c.conductor, (std::vector<int>{0, 1, kDielectric}));
  EXPECT_EQ(xs(c, 0), (std::vector<double>{-0.2e-3 - 1e-3, -0.2e-3}));
  EXPECT_EQ(xs(c, 1), (std::vector<double>{0.2e-3, 0.2e-3 + 1e-3}));
  EXPECT_EQ(ys(c, 1), (std::vector<double>{p.h, p.h}));
  EXPECT_EQ(xs(c, 2)[1], 10 * (2 * p.w + p.s + p.h));  // metal span 2w + s
  EXPECT_TRUE(contour_shape_has_ground_plane("coupled-microstrip"));

  p.t = 20e-6;
  c = generate_contours("cpwg", p);
  ASSERT_EQ(c.contours(), 4u);
  // Both coplanar grounds are conductor 0, the signal trace 1.
  EXPECT_EQ(c.conductor, (std::vector<int>{0, 0, 1, kDielectric}));
  EXPECT_EQ(c.closed, (std::vector<int>{1, 1, 1, 1}));
  const double half = 10 * (p.w + 2 * p.s + p.h);
  const std::vector<double> substrate = xs(c, 3);
  EXPECT_EQ(substrate, (std::vector<double>{-half, half, half, -half}));
  // The grounds reach the substrate's corners and leave gaps s beside the trace.
  EXPECT_EQ(xs(c, 0)[0], substrate[0]);
  EXPECT_EQ(xs(c, 1)[1], substrate[1]);
  EXPECT_EQ(xs(c, 0)[1], -(0.5 * p.w + p.s));
  EXPECT_EQ(xs(c, 1)[0], 0.5 * p.w + p.s);
  EXPECT_EQ(xs(c, 2), (std::vector<double>{-0.5e-3, 0.5e-3, 0.5e-3, -0.5e-3}));
  for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(ys(c, k)[0], ys(c, 3)[2]) << k;  // on top
  EXPECT_TRUE(contour_shape_has_ground_plane("cpwg"));
}

TEST(LineShapes, CircularShapesAreExactArcs) {
  ContourShape p;
  p.a = 0.5e-3, p.r1 = 0.8e-3, p.h = 2e-3, p.eps_r = 2.3;
  Contours c = generate_contours("coated-wire", p);
  ASSERT_EQ(c.contours(), 2u);
  EXPECT_EQ(c.conductor, (std::vector<int>{0, kDielectric}));
  EXPECT_EQ(c.closed, (std::vector<int>{1, 1}));
  EXPECT_EQ(c.bulge, (std::vector<double>{1, 1, 1, 1}));  // two half circles each
  EXPECT_EQ(c.eps_r, (std::vector<double>{0, 2.3}));
  EXPECT_EQ(xs(c, 0), (std::vector<double>{0.5e-3, -0.5e-3}));
  EXPECT_EQ(ys(c, 0), (std::vector<double>{2e-3, 2e-3}));
  EXPECT_EQ(xs(c, 1), (std::vector<double>{0.8e-3, -0.8e-3}));
  EXPECT_TRUE(contour_shape_has_ground_plane("coated-wire"));

  p.b = 3e-3;
  c = generate_contours("coax-sleeve", p);
  ASSERT_EQ(c.contours(), 3u);
  EXPECT_EQ(c.conductor, (std::vector<int>{0, 1, kDielectric}));
  EXPECT_EQ(c.bulge, std::vector<double>(6, 1.0));
  EXPECT_EQ(c.eps_r, (std::vector<double>{0, 0, 2.3}));
  EXPECT_EQ(xs(c, 0), (std::vector<double>{3e-3, -3e-3}));
  EXPECT_EQ(xs(c, 1), (std::vector<double>{0.5e-3, -0.5e-3}));
  EXPECT_EQ(xs(c, 2), (std::vector<double>{0.8e-3, -0.8e-3}));
  EXPECT_EQ(ys(c, 2), (std::vector<double>{0, 0}));
  EXPECT_FALSE(contour_shape_has_ground_plane("coax-sleeve"));
}

TEST(LineShapes, Stripline) {
  ContourShape p;
  p.w = 1e-3, p.b = 2e-3, p.ground = 0;
  Contours c = generate_contours("stripline", p);
  ASSERT_EQ(c.contours(), 2u);
  EXPECT_EQ(c.conductor, (std::vector<int>{0, 1}));
  EXPECT_EQ(c.closed, (std::vector<int>{1, 0}));
  EXPECT_TRUE(c.eps_r.empty());  // filled: the background's eps_r, no region
  EXPECT_EQ(xs(c, 0), (std::vector<double>{-10e-3, 10e-3, 10e-3, -10e-3}));  // 10 b wide
  EXPECT_EQ(ys(c, 0), (std::vector<double>{-1e-3, -1e-3, 1e-3, 1e-3}));
  EXPECT_EQ(ys(c, 1), (std::vector<double>{0, 0}));
  EXPECT_NO_THROW(validate(c));
  p.t = 0.2e-3, p.ground = 6e-3;
  c = generate_contours("stripline", p);
  EXPECT_EQ(xs(c, 0)[1], 3e-3);
  EXPECT_EQ(ys(c, 1), (std::vector<double>{-0.1e-3, -0.1e-3, 0.1e-3, 0.1e-3}));
  EXPECT_NO_THROW(validate(c));
  EXPECT_FALSE(contour_shape_has_ground_plane("stripline"));
}

TEST(LineShapes, TheOldShapesStayPolygons) {
  for (const char* shape :
       {"coax", "eccentric-coax", "two-wire", "strip", "microstrip", "rectangle"}) {
    const Contours c = generate_contours(shape);
    EXPECT_TRUE(c.bulge.empty()) << shape;
    EXPECT_TRUE(c.eps_r.empty()) << shape;
    EXPECT_FALSE(contour_shape_has_ground_plane(shape)) << shape;
  }
  EXPECT_EQ(generate_contours("coax").x.size(), 512u);  // 256 vertices per circle
}

TEST(LineShapes, BadParametersAreNamed) {
  auto bad = [](const std::string& shape, const std::function<void(ContourShape&)>& spoil,
                const std::vector<std::string>& parts) {
    ContourShape p;
    p.h = 3e-3;  // coated-wire needs h > r1; the others do not mind
    spoil(p);
    std::vector<std::string> all = parts;
    all.insert(all.begin(), shape + ": ");
    expect_error<InvalidInput>([&] { generate_contours(shape, p); }, all);
  };
  for (const char* shape : {"microstrip-line", "coupled-microstrip", "cpwg"}) {
    bad(shape, [](ContourShape& p) { p.w = 0; }, {"w = 0 m"});
    bad(shape, [](ContourShape& p) { p.h = -1e-3; }, {"h = -0.001 m"});
    bad(shape, [](ContourShape& p) { p.t = -1e-6; }, {"t = -1e-06 m", ">= 0"});
    bad(shape, [](ContourShape& p) { p.eps_r = 0.9; }, {"eps_r = 0.9", ">= 1"});
    bad(shape, [](ContourShape& p) { p.ground = -1; }, {"ground = -1 m"});
    bad(shape, [](ContourShape& p) { p.ground = 1e-3; }, {"ground = 0.001 m", "wider"});
  }
  for (const char* shape : {"coupled-microstrip", "cpwg"}) {
    bad(shape, [](ContourShape& p) { p.s = 0; }, {"s = 0 m"});
  }
  bad("coated-wire", [](ContourShape& p) { p.a = 0; }, {"a = 0 m"});
  bad("coated-wire", [](ContourShape& p) { p.r1 = 1e-3; }, {"r1 = 0.001 m", "> a"});
  bad("coated-wire", [](ContourShape& p) { p.h = 2e-3; }, {"h = 0.002 m", "touch the plane"});
  bad("coated-wire", [](ContourShape& p) { p.eps_r = NAN; }, {"eps_r = nan"});
  bad("coax-sleeve", [](ContourShape& p) { p.r1 = 0.5e-3; },
      {"r1 = 0.0005 m", "between a = 0.001 m and b = 0.003 m"});
  bad("coax-sleeve", [](ContourShape& p) { p.b = 2e-3; }, {"r1 = 0.002 m", "and b = 0.002 m"});
  bad("coax-sleeve", [](ContourShape& p) { p.b = 1e-3; }, {"b = 0.001 m", "> a"});
  bad("coax-sleeve", [](ContourShape& p) { p.eps_r = 0; }, {"eps_r = 0"});
  bad("stripline", [](ContourShape& p) { p.b = 0; }, {"b = 0 m"});
  bad("stripline", [](ContourShape& p) { p.t = 3e-3; }, {"t = 0.003 m", "< b"});
  bad("stripline", [](ContourShape& p) { p.w = 20e-3; }, {"ground = 0.01 m", "wider"});
  expect_error<InvalidInput>([] { contour_shape_has_ground_plane("microstrip-lines"); },
                             {"unknown contour shape 'microstrip-lines'", "cpwg"});
}

// ---- Contour files

// Rewrites (or adds) dataset `name` of an existing file as `values` stored as `type`.
void replace_dataset(const std::string& path, const std::string& name,
                     const std::vector<double>& values, hid_t type = H5T_IEEE_F64LE) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0) << path;
  if (H5Lexists(f, name.c_str(), H5P_DEFAULT) > 0) H5Ldelete(f, name.c_str(), H5P_DEFAULT);
  const hsize_t n = values.size();
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t ds = H5Dcreate2(f, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(ds, 0) << name;
  ASSERT_GE(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  H5Dclose(ds);
  H5Sclose(space);
  H5Fclose(f);
}

void remove_dataset(const std::string& path, const std::string& name) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0) << path;
  ASSERT_GE(H5Ldelete(f, name.c_str(), H5P_DEFAULT), 0) << name;
  H5Fclose(f);
}

// Sets the root attribute `key` to a double, or to a string when `text` is given.
void set_root_attribute(const std::string& path, const char* key, double value,
                        const char* text = nullptr) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0) << path;
  if (H5Aexists(f, key) > 0) H5Adelete(f, key);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t type = text ? H5Tcopy(H5T_C_S1) : H5Tcopy(H5T_NATIVE_DOUBLE);
  if (text) H5Tset_size(type, std::strlen(text) + 1);
  const hid_t a = H5Acreate2(f, key, type, space, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(a, 0) << key;
  if (text) {
    H5Awrite(a, type, text);
  } else {
    H5Awrite(a, type, &value);
  }
  H5Aclose(a);
  H5Tclose(type);
  H5Sclose(space);
  H5Fclose(f);
}

// A string attribute of a dataset ("" when absent).
std::string dataset_attribute(const std::string& path, const std::string& name, const char* key) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t ds = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  std::string out;
  if (ds >= 0 && H5Aexists(ds, key) > 0) {
    const hid_t a = H5Aopen(ds, key, H5P_DEFAULT);
    const hid_t type = H5Aget_type(a);
    char* text = nullptr;
    if (H5Tis_variable_str(type) > 0) {
      const hid_t mem = H5Tcopy(H5T_C_S1);
      H5Tset_size(mem, H5T_VARIABLE);
      H5Tset_cset(mem, H5Tget_cset(type));
      if (H5Aread(a, mem, &text) >= 0 && text) {
        out = text;
        H5free_memory(text);
      }
      H5Tclose(mem);
    }
    H5Tclose(type);
    H5Aclose(a);
  }
  if (ds >= 0) H5Dclose(ds);
  H5Fclose(f);
  return out;
}

ContourFile shape_file(const std::string& shape) {
  ContourShape p;
  p.h = 3e-3;  // every shape's parameters valid (coated-wire: h > r1)
  p.ground = shape == "stripline" ? 0 : p.ground;
  ContourFile f;
  f.contours = generate_contours(shape, p);
  f.ground_plane = contour_shape_has_ground_plane(shape);
  if (shape == "stripline") f.eps_r = 2.2, f.has_eps_r = true;
  return f;
}

TEST(LineShapeFiles, EveryShapeRoundTrips) {
  for (const std::string& shape : contour_shapes()) {
    const std::string path = fresh_path(shape + ".h5");
    ContourFile f = shape_file(shape);
    f.potentials.assign(f.contours.conductors(), 0.5);
    ASSERT_NO_THROW(write_contours(path, f)) << shape;
    ContourFile g;
    ASSERT_NO_THROW(g = read_contours(path)) << shape;
    EXPECT_EQ(g.contours.x, f.contours.x) << shape;
    EXPECT_EQ(g.contours.y, f.contours.y) << shape;
    EXPECT_EQ(g.contours.offsets, f.contours.offsets) << shape;
    EXPECT_EQ(g.contours.closed, f.contours.closed) << shape;
    EXPECT_EQ(g.contours.conductor, f.contours.conductor) << shape;
    EXPECT_EQ(g.contours.bulge, f.contours.bulge) << shape;
    EXPECT_EQ(g.contours.eps_r, f.contours.eps_r) << shape;
    EXPECT_EQ(g.potentials, f.potentials) << shape;
    EXPECT_EQ(g.ground_plane, f.ground_plane) << shape;
    EXPECT_EQ(g.ground_plane_y, 0.0) << shape;
    EXPECT_EQ(g.has_eps_r, f.has_eps_r) << shape;
    EXPECT_EQ(g.eps_r, f.eps_r) << shape;
  }
}

TEST(LineShapeFiles, DatasetsSayWhatTheyHold) {
  const std::string path = fresh_path("described.h5");
  ContourFile f = shape_file("coax-sleeve");
  f.ground_plane = true, f.ground_plane_y = -1;  // a plane below the shield
  f.potentials = {0, 1};
  write_contours(path, f);
  for (const char* name :
       {"/contours/x", "/contours/y", "/contours/offsets", "/contours/closed",
        "/contours/conductor", "/contours/bulge", "/contours/eps_r", "/conductors/potential"}) {
    EXPECT_FALSE(dataset_attribute(path, name, "description").empty()) << name;
  }
  EXPECT_EQ(dataset_attribute(path, "/contours/x", "units"), "m");
  EXPECT_EQ(dataset_attribute(path, "/conductors/potential", "units"), "V");
  EXPECT_EQ(dataset_attribute(path, "/contours/eps_r", "units"), "1");
  const ContourFile g = read_contours(path);
  EXPECT_TRUE(g.ground_plane);
  EXPECT_EQ(g.ground_plane_y, -1.0);
  // A conductor's eps_r entry means nothing: written as 0 whatever it held.
  f.contours.eps_r[1] = 7;
  write_contours(path, f);
  EXPECT_EQ(read_contours(path).contours.eps_r, (std::vector<double>{0, 0, 4.4}));
}

TEST(LineShapeFiles, EveryMalformedPartIsNamed) {
  const std::string path = fresh_path("bad_line.h5");
  auto expect = [&](const std::function<void()>& spoil, const std::vector<std::string>& parts) {
    write_contours(path, shape_file("coax-sleeve"));  // 3 contours, 6 vertices, a region
    spoil();
    std::vector<std::string> all = parts;
    all.insert(all.begin(), path + ": ");
    expect_error<IoError>([&] { read_contours(path); }, all);
  };
  expect(
      [&] {
        replace_dataset(path, "/contours/bulge", {1, 1, 1, 1, 1});
      },
      {"/contours/bulge has 5 entries, expected one per vertex (6"});
  expect(
      [&] {
        replace_dataset(path, "/contours/bulge", {1, 1, 1, NAN, 1, 1});
      },
      {"/contours/bulge[3] is NaN"});
  expect(
      [&] {
        replace_dataset(path, "/contours/eps_r", {0, 0});
      },
      {"/contours/eps_r has 2 entries, expected one per contour (3"});
  expect(
      [&] {
        replace_dataset(path, "/contours/eps_r", {0, 0, 0});
      },
      {"/contours/eps_r[2] is 0", "contour 2 bounds a dielectric region", "> 0"});
  expect(
      [&] {
        replace_dataset(path, "/contours/eps_r", {0, 0, -INFINITY});
      },
      {"/contours/eps_r[2] is -inf"});
  expect([&] { remove_dataset(path, "/contours/eps_r"); },
         {"/contours/eps_r is missing", "/contours/conductor[2] is -1"});
  expect(
      [&] {
        replace_dataset(path, "/contours/conductor", {0, -2, -1}, H5T_STD_I32LE);
      },
      {"/contours/conductor[1] is -2", "or -1"});
  expect(
      [&] {
        replace_dataset(path, "/contours/conductor", {0, 1, -1});
      },
      {"/contours/conductor has floating-point type, expected integers"});
  expect([&] { set_root_attribute(path, "ground_plane_y", NAN); },
         {"attribute ground_plane_y on / is nan", "finite"});
  expect([&] { set_root_attribute(path, "ground_plane_y", 0, "0"); },
         {"attribute ground_plane_y on / is not a number"});
  expect([&] { set_root_attribute(path, "eps_r", INFINITY); }, {"attribute eps_r on / is inf"});
  // A conductor's eps_r entry is not checked (it means nothing).
  write_contours(path, shape_file("coax-sleeve"));
  replace_dataset(path, "/contours/eps_r", {NAN, -1, 4.4});
  EXPECT_EQ(read_contours(path).contours.eps_r, (std::vector<double>{0, 0, 4.4}));
}

// ---- mlfma2d generate

TEST(LineShapeCommand, GeneratesEveryLineShape) {
  struct Case {
    const char* shape;
    const char* params;
    std::size_t contours;
    int conductors;
    bool plane;
  };
  const std::vector<Case> cases = {
      {"microstrip-line", "w=2e-3,h=1e-3,t=35e-6,eps_r=3.66", 2, 1, true},
      {"coupled-microstrip", "w=1e-3,s=2e-4,h=5e-4", 3, 2, true},
      {"cpwg", "w=1e-3,s=2e-4,h=5e-4,ground=2e-2", 4, 2, true},
      {"coated-wire", "a=5e-4,r1=7e-4,h=1e-3,eps_r=2.1", 2, 1, true},
      {"stripline", "w=1e-3,b=2e-3,t=1e-4,eps_r=3", 2, 2, false},
      {"coax-sleeve", "a=1e-3,r1=1.5e-3,b=3e-3,eps_r=2.25", 3, 2, false},
  };
  for (const Case& k : cases) {
    const std::string path = fresh_path(std::string(k.shape) + "_cli.h5");
    const AppRun r = run_app(std::string("generate --shape ") + k.shape + " --params " + k.params +
                             " --output " + path);
    ASSERT_EQ(r.code, 0) << describe(r);
    EXPECT_TRUE(contains(r.out, "wrote " + std::to_string(k.contours) + " contours")) << r.out;
    const ContourFile f = read_contours(path);
    EXPECT_EQ(f.contours.contours(), k.contours) << k.shape;
    EXPECT_EQ(f.contours.conductors(), k.conductors) << k.shape;
    EXPECT_EQ(f.ground_plane, k.plane) << k.shape;
    EXPECT_EQ(f.ground_plane_y, 0.0) << k.shape;
    EXPECT_EQ(f.has_eps_r, std::string(k.shape) == "stripline") << k.shape;
  }
  // The parameters arrive: the microstrip's thick trace and substrate, the stripline's medium.
  ContourFile f = read_contours(testing::temp_path("microstrip-line_cli.h5"));
  EXPECT_EQ(f.contours.eps_r.back(), 3.66);
  EXPECT_EQ(f.contours.y[3], 1e-3 + 35e-6);
  EXPECT_EQ(f.contours.x.back(), -10 * (2e-3 + 1e-3));  // ground = 0: 20 (w + h) wide
  f = read_contours(testing::temp_path("stripline_cli.h5"));
  EXPECT_EQ(f.eps_r, 3.0);
}

TEST(LineShapeCommand, HelpAndBadParameters) {
  const AppRun h = run_app("generate --help");
  ASSERT_EQ(h.code, 0) << describe(h);
  for (const char* shape : {"microstrip-line", "coupled-microstrip", "cpwg", "coated-wire",
                            "stripline", "coax-sleeve", "eps_r=4.4"}) {
    EXPECT_TRUE(contains(h.out, shape)) << shape;
  }
  const std::string path = fresh_path("never.h5");
  AppRun r = run_app("generate --shape microstrip-line --params eps_r=0.5 --output " + path);
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "eps_r = 0.5")) << describe(r);
  r = run_app("generate --shape coax-sleeve --params r1=5e-3 --output " + path);
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "r1 = 0.005 m")) << describe(r);
  r = run_app("generate --shape stripline --params q=1 --output " + path);
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "t, r1, eps_r")) << describe(r);
  EXPECT_FALSE(std::ifstream(path).good());  // no partial output
  // Point sets still need --n.
  r = run_app("generate --shape uniform --output " + fresh_path("p.h5"));
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "--n is required")) << describe(r);
}

}  // namespace
}  // namespace mlfma2d
