// Point and result files of several densities, dipoles and Hessians (issue 22; docs/files.md):
// round trips through HDF5 and CSV (nd = 1 in the layout of the files before them), the
// datasets' shapes and the CSV headers, the generator's densities and dipoles, and every
// malformed case refused with a message naming the file, the dataset or the line and column.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "tests/h5_writer.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

using testing::expect_error;
using testing::expect_same_points;
using testing::fresh_path;
using testing::H5Writer;
using testing::read_file;
using testing::same_bits;
using testing::write_file;

// Values a sloppy conversion would change, k of them from `shift`.
std::vector<double> values(std::size_t k, double shift) {
  std::vector<double> v;
  for (std::size_t i = 0; i < k; ++i) v.push_back(std::sin(1.0 + double(i) + shift) / 3.0);
  if (!v.empty()) v[0] = -0.0;
  return v;
}

// n sources with the strengths of nd densities: charges and/or dipoles.
PointSet strengths(std::size_t n, int nd, bool charges, bool dipoles, bool per_density) {
  PointSet p;
  p.x = values(n, 0.1);
  p.y = values(n, 0.2);
  p.densities = nd;
  if (charges) p.q = values(n * std::size_t(nd), 0.3);
  if (dipoles) {
    p.dipole_strengths = values(n * std::size_t(nd), 0.4);
    p.dipole_vectors = values(2 * n * std::size_t(per_density ? nd : 1), 0.5);
    p.vectors_per_density = per_density;
  }
  return p;
}

// The shape of an HDF5 dataset ({} when it is not there).
std::vector<hsize_t> shape_of(const std::string& path, const std::string& name) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  std::vector<hsize_t> dims;
  if (H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0) {
    const hid_t ds = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
    const hid_t space = H5Dget_space(ds);
    dims.resize(std::size_t(H5Sget_simple_extent_ndims(space)));
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    H5Sclose(space);
    H5Dclose(ds);
  }
  H5Fclose(file);
  return dims;
}

std::string header_of(const std::string& path) {
  const std::string text = read_file(path);
  return text.substr(0, text.find('\n'));
}

// ------------------------------------------------------------------ point sets

TEST(DensityFiles, PointSetsRoundTripThroughBothFormats) {
  struct Case {
    int nd;
    bool charges, dipoles, per_density;
    std::string csv_header;
    std::vector<hsize_t> q, d, v;  // HDF5 shapes of q, dipole_strength, dipole_vector (N = 6)
  };
  const std::vector<Case> cases = {
      {1, true, false, false, "x,y,q", {6}, {}, {}},
      {3, true, false, false, "x,y,q0,q1,q2", {3, 6}, {}, {}},
      {1, true, true, false, "x,y,q,d,vx,vy", {6}, {6}, {2, 6}},
      {3, true, true, false, "x,y,q0,q1,q2,d0,d1,d2,vx,vy", {3, 6}, {3, 6}, {2, 6}},
      {2, false, true, true, "x,y,d0,d1,vx0,vy0,vx1,vy1", {}, {2, 6}, {2, 2, 6}},
      {1, false, true, true, "x,y,d,vx0,vy0", {}, {6}, {1, 2, 6}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.csv_header);
    const PointSet p = strengths(6, c.nd, c.charges, c.dipoles, c.per_density);
    const std::string h5 = fresh_path("densities.h5"), csv = fresh_path("densities.csv");
    write_points(h5, p);
    write_points(csv, p);
    expect_same_points(read_points(h5), p);
    expect_same_points(read_points(csv), p);
    EXPECT_EQ(header_of(csv), c.csv_header);
    EXPECT_EQ(shape_of(h5, "/sources/q"), c.q);
    EXPECT_EQ(shape_of(h5, "/sources/dipole_strength"), c.d);
    EXPECT_EQ(shape_of(h5, "/sources/dipole_vector"), c.v);
    // A targets file may be any point file: its strengths are not read.
    std::vector<double> tx, ty;
    read_targets(csv, &tx, &ty);
    EXPECT_TRUE(same_bits(tx, p.x));
  }
  // Separate targets (HDF5) travel with several densities too.
  PointSet p = strengths(5, 2, true, true, false);
  p.tx = values(3, 0.7);
  p.ty = values(3, 0.8);
  const std::string h5 = fresh_path("densities_targets.h5");
  write_points(h5, p);
  expect_same_points(read_points(h5), p);
}

TEST(DensityFiles, HandMadeShapesReadAsTheyMean) {
  const std::string path = fresh_path("hand.h5");
  {
    H5Writer w(path);
    w.numbers("/sources/x", {0, 1, 2});
    w.numbers("/sources/y", {0, 0, 1});
    w.numbers("/sources/q", {1, 2, 3, 4, 5, 6}, {2, 3});  // row d: density d
  }
  PointSet p = read_points(path);
  EXPECT_EQ(p.densities, 2);
  EXPECT_EQ(p.q, (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_FALSE(p.has_dipoles());
  {
    H5Writer w(path);
    w.numbers("/sources/x", {0, 1, 2});
    w.numbers("/sources/y", {0, 0, 1});
    w.numbers("/sources/q", {7, 8, 9}, {1, 3});  // (1, N): one density
    // Compressed chunks of a 2-D and a 3-D dataset: the storage checks see every dimension.
    w.chunked("/sources/dipole_strength", {1, 2, 3}, {1, 3}, {1, 2});
    w.chunked("/sources/dipole_vector", {1, 0, 0, 0, 1, 1}, {1, 2, 3}, {1, 1, 2});
  }
  p = read_points(path);
  EXPECT_EQ(p.densities, 1);
  EXPECT_EQ(p.q, (std::vector<double>{7, 8, 9}));
  EXPECT_EQ(p.dipole_strengths, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(p.dipole_vectors, (std::vector<double>{1, 0, 0, 0, 1, 1}));
  EXPECT_TRUE(p.vectors_per_density);
}

TEST(DensityFiles, GeneratedStrengthsKeepThePointsAndAreDeterministic) {
  const PointSet plain = generate_points("disk", 500, 4);
  GeneratedSources g;
  g.densities = 3;
  g.dipoles = true;
  const PointSet p = generate_points("disk", 500, 4, g);
  EXPECT_TRUE(same_bits(p.x, plain.x));
  EXPECT_TRUE(same_bits(p.y, plain.y));
  ASSERT_EQ(p.q.size(), 1500u);
  EXPECT_TRUE(same_bits(std::vector<double>(p.q.begin(), p.q.begin() + 500), plain.q));
  EXPECT_NE(p.q[500], p.q[0]);  // the other densities differ from density 0
  ASSERT_EQ(p.dipole_strengths.size(), 1500u);
  ASSERT_EQ(p.dipole_vectors.size(), 1000u);
  for (std::size_t j = 0; j < 500; ++j) {
    EXPECT_NEAR(std::hypot(p.dipole_vectors[j], p.dipole_vectors[500 + j]), 1.0, 1e-15) << j;
    EXPECT_GE(p.q[1000 + j], 0.0);
    EXPECT_LT(p.dipole_strengths[j], 1.0);
  }
  expect_same_points(generate_points("disk", 500, 4, g), p);
  g.charges = false;
  g.vectors_per_density = true;
  const PointSet d = generate_points("disk", 500, 4, g);
  EXPECT_TRUE(d.q.empty());
  EXPECT_EQ(d.dipole_vectors.size(), 3000u);
  EXPECT_TRUE(d.vectors_per_density);
  expect_same_points(generate_points("disk", 500, 4, GeneratedSources{}), plain);
  g.densities = 0;
  expect_error<InvalidInput>([&] { generate_points("disk", 5, 1, g); }, {"densities", "got 0"});
  g.densities = 1;
  g.dipoles = false;
  expect_error<InvalidInput>([&] { generate_points("disk", 5, 1, g); }, {"neither"});
}

// ------------------------------------------------------------------ malformed HDF5 point sets

TEST(DensityFiles, MalformedHdf5IsRefusedNamingFileAndDataset) {
  struct Case {
    std::string name;
    std::function<void(H5Writer&)> strengths;  // beside /sources/x, /sources/y of 4 points
    std::string words;
  };
  const std::vector<double> four = {1, 2, 3, 4}, eight = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<Case> cases = {
      {"q_columns.h5",
       [&](H5Writer& w) {
         w.numbers("/sources/q", {1, 2, 3, 4, 5, 6}, {2, 3});
       },
       ": /sources/q has shape (2, 3) but /sources/x has 4 entries: expected (nd, 4)"},
      {"q_length.h5",
       [&](H5Writer& w) {
         w.numbers("/sources/q", {1, 2, 3});
       },
       ": /sources/x has 4 entries but /sources/q has 3"},
      {"q_3d.h5",
       [&](H5Writer& w) {
         w.numbers("/sources/q", eight, {1, 2, 4});
       },
       ": /sources/q is 3-dimensional, expected (N) or (nd, N)"},
      {"q_no_density.h5",
       [&](H5Writer& w) {
         w.numbers("/sources/q", {}, {0, 4});
       },
       ": /sources/q has shape (0, 4): nd = 0 densities, expected 1..1024"},
      {"q_nan.h5",
       [&](H5Writer& w) {
         w.numbers("/sources/q", {1, 2, 3, 4, 5, 6, 7, std::nan("")}, {2, 4});
       },
       ": /sources/q[1, 3] is NaN: values must be finite"},
      {"nd_mismatch.h5",
       [&](H5Writer& w) {
         w.numbers("/sources/q", std::vector<double>(12, 1), {3, 4});
         w.numbers("/sources/dipole_strength", eight, {2, 4});
         w.numbers("/sources/dipole_vector", eight, {2, 4});
       },
       ": /sources/q holds 3 densities but /sources/dipole_strength holds 2: one nd for both"},
      {"no_vector.h5", [&](H5Writer& w) { w.numbers("/sources/dipole_strength", four); },
       ": /sources/dipole_strength without /sources/dipole_vector: dipoles need both"},
      {"no_strength.h5",
       [&](H5Writer& w) {
         w.numbers("/sources/q", four);
         w.numbers("/sources/dipole_vector", eight, {2, 4});
       },
       ": /sources/dipole_vector without /sources/dipole_strength"},
      {"vector_rows.h5",
       [&](H5Writer& w) {
         w.numbers("/sources/dipole_strength", four);
         w.numbers("/sources/dipole_vector", std::vector<double>(12, 1), {3, 4});
       },
       ": /sources/dipole_vector has shape (3, 4): expected (2, 4) or (1, 2, 4), the nd = 1 "
       "densities of /sources/dipole_strength"},
      {"vector_nd.h5",
       [&](H5Writer& w) {
         w.numbers("/sources/dipole_strength", eight, {2, 4});
         w.numbers("/sources/dipole_vector", std::vector<double>(24, 1), {3, 2, 4});
       },
       ": /sources/dipole_vector has shape (3, 2, 4): expected (2, 4) or (2, 2, 4)"},
      {"vector_1d.h5",
       [&](H5Writer& w) {
         w.numbers("/sources/dipole_strength", four);
         w.numbers("/sources/dipole_vector", eight);
       },
       ": /sources/dipole_vector has shape (8): expected (2, 4) or (1, 2, 4)"},
      {"vector_inf.h5",
       [&](H5Writer& w) {
         w.numbers("/sources/dipole_strength", eight, {2, 4});
         std::vector<double> v(16, 1.0);
         v[13] = -HUGE_VAL;  // density 1, y component, source 1
         w.numbers("/sources/dipole_vector", v, {2, 2, 4});
       },
       ": /sources/dipole_vector[1, 1, 1] is infinite: values must be finite"},
      {"strength_nan.h5",
       [&](H5Writer& w) {
         w.numbers("/sources/dipole_strength", {1, std::nan(""), 3, 4});
         w.numbers("/sources/dipole_vector", eight, {2, 4});
       },
       ": /sources/dipole_strength[1] is NaN"},
      {"nothing.h5", [&](H5Writer&) {},
       ": dataset /sources/q not found (nor dipoles, /sources/dipole_strength and "
       "/sources/dipole_vector)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string p = fresh_path(c.name);
    {
      H5Writer w(p);
      w.numbers("/sources/x", {0, 1, 2, 3});
      w.numbers("/sources/y", {0, 1, 0, 1});
      c.strengths(w);
    }
    expect_error<IoError>([&] { read_points(p); }, {p + c.words});
  }
  EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
}

// ------------------------------------------------------------------ malformed CSV point sets

TEST(DensityFiles, MalformedCsvIsRefusedNamingFileLineAndColumn) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"x,y,q,q0\n1,2,3,4\n", ": line 1: columns 'q' and 'q0'...: 'q' is one density"},
      {"x,y,q0,q2\n1,2,3,4\n",
       ": line 1: column 'q1' missing: the densities' columns are "
       "'q0'..'q2', every one"},
      {"# c\nx,y,q0,q1,q2,d0,d1,vx,vy\n0,0,1,1,1,1,1,1,0\n",
       ": line 2: 3 densities of charges (q) but 2 of dipole strengths (d): one nd for both"},
      {"x,y,q,d\n1,2,3,4\n", ": line 1: dipole strengths (d) without orientations"},
      {"x,y,q,vx,vy\n1,2,3,4,5\n", ": line 1: orientations (vx, vy) without dipole strengths"},
      {"x,y,d,vx\n1,2,3,4\n", ": line 1: orientation columns must be vx, vy (one per source)"},
      {"x,y,d0,d1,vx0,vy0\n1,2,3,4,5,6\n",
       ": line 1: orientation columns must be vx, vy (one per source) or vx0, vy0, ..., vx1, vy1"},
      {"x,y,d,vx,vy0\n1,2,3,4,5\n", ": line 1: orientation columns must be"},
      {"x,y,q01\n1,2,3\n", ": line 1: unknown column 'q01'"},
      {"x,y,q1024\n1,2,3\n", ": line 1: unknown column 'q1024'"},
      {"x,y,q0,q0\n1,2,3,4\n", ": line 1: column 'q0' appears twice"},
      {"x,y\n1,2\n", ": line 1: header lacks column 'q'"},
      {"x,y,q0,q1\n1,2,3,4\n5,6,7\n", ": line 3: expected 4 fields, found 3"},
      {"x,y,q0,d0,d1,q1,vx,vy\n0,0,1,1,nan,1,1,0\n", ": line 2, column d1: 'nan' is not finite"},
      {"x,y,d,vx,vy\n0,0,1,1,abc\n", ": line 2, column vy: 'abc' is not a number"},
  };
  for (const auto& [text, words] : cases) {
    SCOPED_TRACE(text);
    const std::string p = fresh_path("bad_densities.csv");
    write_file(p, text);
    expect_error<IoError>([&] { read_points(p); }, {p + words});
  }
  // Columns in any order: read by name.
  const std::string p = fresh_path("order.csv");
  write_file(p, "vy,q1,d1,x,vx,q0,y,d0\n1,2,3,4,5,6,7,8\n");
  const PointSet s = read_points(p);
  EXPECT_EQ(s.densities, 2);
  EXPECT_EQ(s.q, (std::vector<double>{6, 2}));
  EXPECT_EQ(s.dipole_strengths, (std::vector<double>{8, 3}));
  EXPECT_EQ(s.dipole_vectors, (std::vector<double>{5, 1}));
  EXPECT_EQ(s.x, std::vector<double>{4});
}

TEST(DensityFiles, WritersRefuseArraysOfTheWrongSize) {
  const std::string path = fresh_path("wrong.h5");
  PointSet p = strengths(4, 2, true, false, false);
  p.q.pop_back();
  expect_error<InvalidInput>(
      [&] { write_points(path, p); },
      {"cannot write '" + path + "': q has 7 entries, expected 2 x N = 2 x 4"});
  p = strengths(4, 2, false, true, true);
  p.dipole_vectors.resize(8);
  expect_error<InvalidInput>([&] { write_points(path, p); },
                             {"dipole_vectors has 8 entries, expected 4 x N = 4 x 4"});
  p = strengths(4, 1, true, false, false);
  p.densities = 0;
  expect_error<InvalidInput>([&] { write_points(path, p); }, {"densities must be in 1..1024"});
  ResultFile r;
  r.densities = 2;
  r.potential = values(5, 0);
  expect_error<InvalidInput>([&] { write_result(path, r); },
                             {"5 potentials are not nd x M for nd = 2"});
  r.potential = values(6, 0);
  r.hessian_xx = values(6, 0);
  expect_error<InvalidInput>([&] { write_result(path, r); },
                             {"Hessian and potential differ in length"});
}

// ------------------------------------------------------------------ results

ResultFile result_of(int nd, std::size_t m, bool field, bool hessian) {
  ResultFile r;
  r.densities = nd;
  r.tx = values(m, 1.0);
  r.ty = values(m, 1.1);
  const std::size_t all = std::size_t(nd) * m;
  r.potential = values(all, 1.2);
  if (field) r.field_x = values(all, 1.3), r.field_y = values(all, 1.4);
  if (hessian) {
    r.hessian_xx = values(all, 1.5);
    r.hessian_xy = values(all, 1.6);
    r.hessian_yy = values(all, 1.7);
  }
  r.attributes["densities"] = AttrValue::from_integer(nd);
  r.attributes["outputs"] = AttrValue("potential, field, hessian");
  return r;
}

void expect_same_result(const ResultFile& a, const ResultFile& b) {
  EXPECT_EQ(a.densities, b.densities);
  for (auto member : {&ResultFile::tx, &ResultFile::ty, &ResultFile::potential,
                      &ResultFile::field_x, &ResultFile::field_y, &ResultFile::hessian_xx,
                      &ResultFile::hessian_xy, &ResultFile::hessian_yy}) {
    EXPECT_TRUE(same_bits(a.*member, b.*member));
  }
  EXPECT_EQ(a.attributes.at("densities").integer, b.attributes.at("densities").integer);
  EXPECT_EQ(a.attributes.at("outputs").text, b.attributes.at("outputs").text);
}

TEST(DensityFiles, ResultsRoundTripWithTheirShapesAndHeaders) {
  for (const int nd : {1, 3}) {
    for (const bool hessian : {false, true}) {
      SCOPED_TRACE(std::to_string(nd) + (hessian ? " hessian" : ""));
      const ResultFile r = result_of(nd, 5, true, hessian);
      const std::string h5 = fresh_path("result.h5"), csv = fresh_path("result.csv");
      write_result(h5, r);
      write_result(csv, r);
      expect_same_result(read_result(h5), r);
      expect_same_result(read_result(csv), r);
      const std::vector<hsize_t> shape =
          nd == 1 ? std::vector<hsize_t>{5} : std::vector<hsize_t>{hsize_t(nd), 5};
      for (const char* name : {"/potential", "/field/x", "/field/y"}) {
        EXPECT_EQ(shape_of(h5, name), shape) << name;
      }
      for (const char* name : {"/hessian/xx", "/hessian/xy", "/hessian/yy"}) {
        EXPECT_EQ(shape_of(h5, name), hessian ? shape : std::vector<hsize_t>{}) << name;
      }
      EXPECT_EQ(shape_of(h5, "/targets/x"), std::vector<hsize_t>{5});
      EXPECT_EQ(testing::contains(testing::text_attribute(h5, "/hessian/yy", "description"),
                                  "d2 phi / dy2"),
                hessian);
      const std::string header = header_of(csv);
      if (nd == 1) {
        EXPECT_EQ(header, hessian ? "x,y,potential,field_x,field_y,hessian_xx,hessian_xy,"
                                    "hessian_yy"
                                  : "x,y,potential,field_x,field_y");
      } else {
        const std::string field =
            "x,y,potential0,potential1,potential2,field_x0,field_x1,field_x2,field_y0,field_y1,"
            "field_y2";
        EXPECT_EQ(header, hessian ? field +
                                        ",hessian_xx0,hessian_xx1,hessian_xx2,hessian_xy0,"
                                        "hessian_xy1,hessian_xy2,hessian_yy0,hessian_yy1,"
                                        "hessian_yy2"
                                  : field);
      }
    }
  }
}

TEST(DensityFiles, MalformedResultsAreRefused) {
  const std::string h5 = fresh_path("bad_result.h5");
  {
    H5Writer w(h5);
    w.numbers("/potential", {1, 2, 3, 4, 5, 6}, {2, 3});
    w.numbers("/field/x", {1, 2, 3, 4, 5, 6}, {3, 2});
    w.numbers("/field/y", {1, 2, 3, 4, 5, 6}, {2, 3});
  }
  expect_error<IoError>([&] { read_result(h5); },
                        {h5 + ": /field/x has shape (3, 2) but /potential has (2, 3)"});
  {
    H5Writer w(h5);
    w.numbers("/potential", {1, 2, 3, 4, 5, 6}, {2, 3});
    w.numbers("/hessian/xx", {1, 2, 3, 4, 5, 6}, {2, 3});
  }
  expect_error<IoError>([&] { read_result(h5); }, {h5 + ": has only some of /hessian/xx"});
  {
    H5Writer w(h5);
    w.numbers("/potential", {1, 2, 3, 4, 5, 6}, {2, 3});
    w.numbers("/targets/x", {1, 2});
    w.numbers("/targets/y", {1, 2});
  }
  expect_error<IoError>([&] { read_result(h5); },
                        {h5 + ": /targets/x has 2 entries but /potential has shape (2, 3)"});
  const std::string csv = fresh_path("bad_result.csv");
  write_file(csv, "x,y,potential0,potential1,field_x0,field_y0\n1,2,3,4,5,6\n");
  expect_error<IoError>([&] { read_result(csv); },
                        {csv + ": line 1: field_x has 1 column(s) but potential has 2"});
  write_file(csv, "x,y,field_x\n1,2,3\n");
  expect_error<IoError>([&] { read_result(csv); }, {csv + ": line 1: header lacks column "
                                                          "'potential'"});
}

}  // namespace
}  // namespace mlfma2d
