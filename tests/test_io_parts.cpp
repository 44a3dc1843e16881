// Point files read in parts and results written a part at a time (mlfma2d/io.hpp): what each
// process of a distributed run reads of one file, and what its rank 0 writes. A part must hold
// exactly the entries of the whole file it covers; a bad value is named by its index in the file;
// a result written in parts must equal the one written whole.
#include <cmath>
#include <filesystem>

#include "tests/h5_writer.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d::testing {
namespace {

// nd x n rows restricted to the columns [first, first + count).
std::vector<double> columns(const std::vector<double>& v, std::size_t rows, std::size_t n,
                            std::size_t first, std::size_t count) {
  std::vector<double> out;
  for (std::size_t r = 0; r < rows; ++r) {
    const auto at = v.begin() + std::ptrdiff_t(r * n + first);
    out.insert(out.end(), at, at + std::ptrdiff_t(count));
  }
  return out;
}

// A file of 3 densities of charges and dipoles (an orientation per density) with separate
// targets.
PointSet sample_set() {
  return mixed_sources_with_targets(3, 101, 5, 37, 9);
}

TEST(PointParts, ShapeFromTheHeader) {
  const std::string path = fresh_path("parts_shape.h5");
  write_points(path, sample_set());
  const PointFileShape s = read_point_file_shape(path);
  EXPECT_EQ(s.sources, 101u);
  EXPECT_EQ(s.targets, 37u);
  EXPECT_EQ(s.densities, 3);
  EXPECT_TRUE(s.charges);
  EXPECT_TRUE(s.dipoles);
  EXPECT_TRUE(s.vectors_per_density);
  EXPECT_EQ(read_target_count(path), 37u);
}

TEST(PointParts, EveryPartIsThatPartOfTheWholeFile) {
  const std::string path = fresh_path("parts_read.h5");
  const PointSet all = sample_set();
  write_points(path, all);
  const std::size_t n = 101, m = 37;
  // Three uneven parts, an empty one among them, cover the file.
  const std::vector<std::pair<std::size_t, std::size_t>> parts = {{0, 40}, {40, 0}, {40, 61}};
  const std::vector<std::pair<std::size_t, std::size_t>> tparts = {{0, 10}, {10, 27}, {37, 0}};
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const auto [first, count] = parts[k];
    const auto [tfirst, tcount] = tparts[k];
    const PointSet p = read_points(path, {first, count}, {tfirst, tcount});
    EXPECT_TRUE(same_bits(p.x, columns(all.x, 1, n, first, count)));
    EXPECT_TRUE(same_bits(p.y, columns(all.y, 1, n, first, count)));
    EXPECT_TRUE(same_bits(p.q, columns(all.q, 3, n, first, count)));
    EXPECT_TRUE(same_bits(p.dipole_strengths, columns(all.dipole_strengths, 3, n, first, count)));
    EXPECT_TRUE(same_bits(p.dipole_vectors, columns(all.dipole_vectors, 6, n, first, count)));
    EXPECT_TRUE(p.vectors_per_density);
    EXPECT_EQ(p.densities, 3);
    EXPECT_TRUE(same_bits(p.tx, columns(all.tx, 1, m, tfirst, tcount)));
    EXPECT_TRUE(same_bits(p.ty, columns(all.ty, 1, m, tfirst, tcount)));
    std::vector<double> tx, ty;
    read_targets(path, {tfirst, tcount}, &tx, &ty);
    EXPECT_TRUE(same_bits(tx, columns(all.tx, 1, m, tfirst, tcount)));
  }
  // The whole file read as one part is read_points.
  expect_same_points(read_points(path, {0, n}, {0, m}), read_points(path));
}

TEST(PointParts, BadValuesAreNamedByTheirIndexInTheFile) {
  const std::string path = fresh_path("parts_nan.h5");
  {
    H5Writer w(path);
    std::vector<double> x(10), y(10), q(20, 1.0);
    for (int i = 0; i < 10; ++i) x[i] = y[i] = i;
    q[10 + 7] = std::nan("");  // density 1, source 7
    w.numbers("/sources/x", x);
    w.numbers("/sources/y", y);
    w.numbers("/sources/q", q, {2, 10});
  }
  // A part without it reads; the part with it names [1, 7], not its index in the part.
  EXPECT_EQ(read_points(path, {0, 5}, {0, 0}).q.size(), 10u);
  expect_error<IoError>(
      [&] {
        read_points(path, {5, 5}, {0, 0});
      },
      {path, "/sources/q[1, 7] is NaN"});
  // The shapes are checked as read_points checks them, from the header alone.
  expect_error<InvalidInput>(
      [&] {
        read_points(path, {8, 5}, {0, 0});
      },
      {path, "sources 8 to 13", "holds 10"});
  expect_error<InvalidInput>(
      [&] {
        read_points(path, {0, 1}, {0, 1});
      },
      {path, "targets 0 to 1", "holds 0"});
}

TEST(PointParts, CsvIsReadWhole) {
  const std::string path = fresh_path("parts.csv");
  write_file(path, "x,y,q\n0,0,1\n1,1,1\n");
  expect_error<InvalidInput>([&] { read_point_file_shape(path); }, {path, "HDF5 files only"});
  expect_error<InvalidInput>([&] { read_points(path, {0, 1}, {0, 0}); }, {"HDF5 files only"});
}

// A result of 2 densities with field and Hessian, written whole and in parts.
ResultFile sample_result(std::size_t m) {
  ResultFile r;
  r.densities = 2;
  for (std::size_t i = 0; i < m; ++i) {
    r.tx.push_back(0.1 * double(i));
    r.ty.push_back(-0.2 * double(i));
  }
  for (auto* v :
       {&r.potential, &r.field_x, &r.field_y, &r.hessian_xx, &r.hessian_xy, &r.hessian_yy}) {
    for (std::size_t k = 0; k < 2 * m; ++k) v->push_back(std::sin(double(k) + double(v->size())));
  }
  r.attributes["answer"] = AttrValue::from_integer(42);
  return r;
}

ResultFile part_of(const ResultFile& r, std::size_t m, std::size_t first, std::size_t count) {
  ResultFile p;
  p.tx = columns(r.tx, 1, m, first, count);
  p.ty = columns(r.ty, 1, m, first, count);
  p.potential = columns(r.potential, 2, m, first, count);
  p.field_x = columns(r.field_x, 2, m, first, count);
  p.field_y = columns(r.field_y, 2, m, first, count);
  p.hessian_xx = columns(r.hessian_xx, 2, m, first, count);
  p.hessian_xy = columns(r.hessian_xy, 2, m, first, count);
  p.hessian_yy = columns(r.hessian_yy, 2, m, first, count);
  return p;
}

void write_in_parts(const std::string& path, const ResultFile& r, std::size_t m,
                    const std::vector<std::size_t>& sizes) {
  ResultShape shape;
  shape.targets = m;
  shape.densities = 2;
  shape.field = shape.hessian = true;
  shape.attributes = r.attributes;
  std::size_t k = 0, first = 0;
  ResultFile part;
  write_result(path, shape, [&]() -> const ResultFile* {
    if (k == sizes.size()) return nullptr;
    part = part_of(r, m, first, sizes[k]);
    first += sizes[k++];
    return &part;
  });
}

TEST(ResultParts, WrittenInPartsEqualsWrittenWhole) {
  const std::size_t m = 23;
  const ResultFile r = sample_result(m);
  for (const char* ext : {".h5", ".csv"}) {
    const std::string whole = fresh_path(std::string("whole") + ext);
    const std::string parts = fresh_path(std::string("parts") + ext);
    write_result(whole, r);
    write_in_parts(parts, r, m, {5, 0, 17, 1});
    const ResultFile a = read_result(whole), b = read_result(parts);
    EXPECT_EQ(b.densities, 2);
    EXPECT_TRUE(same_bits(a.tx, b.tx)) << ext;
    EXPECT_TRUE(same_bits(a.potential, b.potential)) << ext;
    EXPECT_TRUE(same_bits(a.field_y, b.field_y)) << ext;
    EXPECT_TRUE(same_bits(a.hessian_yy, b.hessian_yy)) << ext;
    EXPECT_TRUE(same_bits(b.potential, r.potential)) << ext;
    EXPECT_EQ(b.attributes.at("answer").integer, 42) << ext;
    if (std::string(ext) == ".csv") EXPECT_EQ(read_file(whole), read_file(parts));
    if (std::string(ext) == ".h5") EXPECT_EQ(datasets(whole), datasets(parts));
  }
}

TEST(ResultParts, PartsThatDoNotAddUpWriteNothing) {
  const std::size_t m = 10;
  const ResultFile r = sample_result(m);
  for (const char* ext : {".h5", ".csv"}) {
    const std::string path = fresh_path(std::string("short") + ext);
    expect_error<InvalidInput>(
        [&] {
          write_in_parts(path, r, m, {4, 4});
        },
        {path, "the parts hold 8 targets, the result 10"});
    expect_error<InvalidInput>(
        [&] {
          write_in_parts(path, r, m, {6, 6});
        },
        {path, "more than the result's 10 targets"});
    EXPECT_FALSE(std::filesystem::exists(path)) << ext;
  }
}

}  // namespace
}  // namespace mlfma2d::testing
