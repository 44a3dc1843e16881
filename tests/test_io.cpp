// Tests of io/: HDF5 and CSV round trips, the error messages, atomic writes (the generators:
// test_generators.cpp).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "runtime/text.hpp"
#include "tests/h5_writer.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

namespace fs = std::filesystem;
using testing::expect_error;
using testing::H5Writer;
using testing::read_file;
using testing::expect_same_points;
using testing::same_bits;
using testing::temp_dir;
using testing::write_file;

void expect_read_error(const std::string& path, const std::vector<std::string>& parts) {
  expect_error<IoError>([&] { read_points(path); }, parts);
}

// Values that a sloppy text or type conversion would change.
std::vector<double> awkward(std::size_t n, double shift) {
  std::vector<double> v = {-0.0, 1.0 / 3.0, 1e-310, -1.7976931348623157e308, 0.1 + shift};
  for (std::size_t i = v.size(); i < n; ++i) v.push_back(std::sin(1.0 + i + shift) * 1e3);
  return v;
}

PointSet sample_points(bool targets) {
  PointSet p;
  p.x = awkward(20, 0.1);
  p.y = awkward(20, 0.2);
  p.q = awkward(20, 0.3);
  if (targets) {
    p.tx = awkward(7, 0.4);
    p.ty = awkward(7, 0.5);
  }
  return p;
}

// Names of leftover temporary files in the test folder.
std::vector<std::string> leftovers() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(temp_dir())) {
    if (e.path().filename().string().find(".tmp-") != std::string::npos) {
      names.push_back(e.path().string());
    }
  }
  return names;
}

// Every HDF5 file, dataset, group and attribute handle the library opened has been closed.
void expect_no_open_hdf5_objects() {
  EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
}

double h5_number_attribute(const std::string& path, const std::string& key) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t attr = H5Aopen(file, key.c_str(), H5P_DEFAULT);
  const hid_t type = H5Aget_type(attr);
  EXPECT_EQ(H5Tget_class(type), H5T_FLOAT);
  EXPECT_EQ(H5Tget_size(type), 8u);
  double v = std::numeric_limits<double>::quiet_NaN();
  H5Aread(attr, H5T_NATIVE_DOUBLE, &v);
  H5Tclose(type);
  H5Aclose(attr);
  H5Fclose(file);
  return v;
}

// ------------------------------------------------------------------ format_of

TEST(FormatOf, ByExtensionIgnoringCase) {
  EXPECT_EQ(format_of("a.h5"), FileFormat::Hdf5);
  EXPECT_EQ(format_of("dir.csv/a.HDF5"), FileFormat::Hdf5);
  EXPECT_EQ(format_of("A.H5"), FileFormat::Hdf5);
  EXPECT_EQ(format_of("x/b.Csv"), FileFormat::Csv);
  expect_error<InvalidInput>([] { format_of("foo.txt"); },
                             {"cannot tell the format of 'foo.txt': use .h5, .hdf5 or .csv"});
  expect_error<InvalidInput>([] { format_of("h5"); }, {"'h5'"});
  expect_error<InvalidInput>([] { read_points("points.dat"); }, {"points.dat"});
}

// ------------------------------------------------------------------ round trips

TEST(RoundTrip, Hdf5PointsWithAndWithoutTargets) {
  for (bool targets : {false, true}) {
    const std::string path = testing::fresh_path("points.h5");
    const PointSet p = sample_points(targets);
    write_points(path, p);
    expect_same_points(read_points(path), p);
    std::vector<double> tx, ty;
    read_targets(path, &tx, &ty);
    EXPECT_TRUE(same_bits(tx, targets ? p.tx : p.x));  // no /targets: the sources are targets
    EXPECT_TRUE(same_bits(ty, targets ? p.ty : p.y));
  }
  expect_no_open_hdf5_objects();
}

TEST(RoundTrip, CsvPoints) {
  const std::string path = testing::fresh_path("points.csv");
  const PointSet p = sample_points(false);
  write_points(path, p);
  EXPECT_EQ(read_file(path).substr(0, 6), "x,y,q\n");
  expect_same_points(read_points(path), p);
  std::vector<double> tx, ty;
  read_targets(path, &tx, &ty);  // the q column is ignored
  EXPECT_TRUE(same_bits(tx, p.x));
  EXPECT_TRUE(same_bits(ty, p.y));
}

TEST(RoundTrip, CsvCannotHoldSeparateTargets) {
  const std::string path = testing::fresh_path("targets.csv");
  expect_error<InvalidInput>([&] { write_points(path, sample_points(true)); }, {path, ".h5"});
  EXPECT_FALSE(fs::exists(path));
}

TEST(RoundTrip, GeneratedPointsThroughBothFormats) {
  for (const std::string name : {"gen.h5", "gen.csv"}) {
    const std::string path = testing::fresh_path(name);
    const PointSet p = generate_points("clusters", 1000, 3);
    write_points(path, p);
    expect_same_points(read_points(path), p);
  }
}

ResultFile sample_result(bool field) {
  ResultFile r;
  r.tx = awkward(9, 1.0);
  r.ty = awkward(9, 2.0);
  r.potential = awkward(9, 3.0);
  r.potential[8] = std::numeric_limits<double>::infinity();  // results may hold non-finite values
  if (field) {
    r.field_x = awkward(9, 4.0);
    r.field_y = awkward(9, 5.0);
  }
  r.attributes = {{"eps", 1e-10},
                  {"levels", 7.0},
                  {"backend", "indexing"},
                  {"note", "two words"},
                  {"time_s", 0.123456789012345678}};
  return r;
}

void expect_attributes(const ResultFile& got, const ResultFile& want) {
  ASSERT_EQ(got.attributes.size(), want.attributes.size());
  for (const auto& [key, value] : want.attributes) {
    ASSERT_EQ(got.attributes.count(key), 1u) << key;
    const AttrValue& g = got.attributes.at(key);
    EXPECT_EQ(g.is_string, value.is_string) << key;
    if (value.is_string) {
      EXPECT_EQ(g.text, value.text) << key;
    } else {
      EXPECT_TRUE(same_bits({g.number}, {value.number})) << key;
    }
  }
}

TEST(RoundTrip, Hdf5Result) {
  for (bool field : {false, true}) {
    const std::string path = testing::fresh_path("result.h5");
    const ResultFile r = sample_result(field);
    write_result(path, r);
    const ResultFile back = read_result(path);
    EXPECT_TRUE(same_bits(back.potential, r.potential));
    EXPECT_TRUE(same_bits(back.field_x, r.field_x));
    EXPECT_TRUE(same_bits(back.field_y, r.field_y));
    expect_attributes(back, r);
    // Numbers are float64 scalars on the root group, readable by any HDF5 tool.
    EXPECT_EQ(h5_number_attribute(path, "eps"), 1e-10);
    EXPECT_EQ(h5_number_attribute(path, "levels"), 7.0);
  }
  expect_no_open_hdf5_objects();
}

TEST(RoundTrip, CsvResult) {
  for (bool field : {false, true}) {
    const std::string path = testing::fresh_path("result.csv");
    const ResultFile r = sample_result(field);
    write_result(path, r);
    // The header on the first line, no comment lines: the attributes are in the sidecar.
    const std::string text = read_file(path);
    EXPECT_EQ(text.rfind(field ? "x,y,potential,field_x,field_y\n" : "x,y,potential\n", 0), 0u);
    EXPECT_EQ(text.find('#'), std::string::npos);
    EXPECT_NE(read_file(sidecar_path(path)).find("\"backend\": \"indexing\""), std::string::npos);
    const ResultFile back = read_result(path);
    EXPECT_TRUE(same_bits(back.tx, r.tx));
    EXPECT_TRUE(same_bits(back.ty, r.ty));
    EXPECT_TRUE(same_bits(back.potential, r.potential));
    EXPECT_TRUE(same_bits(back.field_x, r.field_x));
    EXPECT_TRUE(same_bits(back.field_y, r.field_y));
    expect_attributes(back, r);
  }
}

TEST(RoundTrip, ResultSizesMustAgree) {
  ResultFile r = sample_result(true);
  r.field_y.pop_back();
  expect_error<InvalidInput>([&] { write_result(testing::fresh_path("bad.h5"), r); },
                             {"bad.h5", "field"});
  r = sample_result(false);
  r.tx.clear();  // CSV needs the target coordinates
  expect_error<InvalidInput>([&] { write_result(testing::fresh_path("bad.csv"), r); }, {"bad.csv"});
}

// ------------------------------------------------------------------ HDF5 input

TEST(Hdf5Input, AcceptsOtherNumericTypes) {
  const std::string path = testing::fresh_path("ints.h5");
  {
    H5Writer w(path);
    w.numbers("/sources/x", {1, 2, 3}, {}, H5T_STD_I32LE);
    w.numbers("/sources/y", {0.5, 0.25, 0.125}, {}, H5T_IEEE_F32LE);
    w.numbers("/sources/q", {-1, 0, 1}, {}, H5T_STD_I64BE);
  }
  const PointSet p = read_points(path);
  EXPECT_EQ(p.x, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(p.y, (std::vector<double>{0.5, 0.25, 0.125}));
  EXPECT_EQ(p.q, (std::vector<double>{-1, 0, 1}));
  EXPECT_FALSE(p.has_targets());
}

TEST(Hdf5Input, ReadsFixedLengthStringAttributes) {
  const std::string path = testing::fresh_path("fixed.h5");
  {
    H5Writer w(path);
    w.numbers("/potential", {1.5});
    w.fixed_string_attribute("solver", "mlfma2d");
  }
  const ResultFile r = read_result(path);
  ASSERT_EQ(r.attributes.count("solver"), 1u);
  EXPECT_EQ(r.attributes.at("solver").text, "mlfma2d");
  EXPECT_TRUE(r.field_x.empty());
  expect_no_open_hdf5_objects();
}

TEST(Hdf5Input, ErrorsNameFileAndDataset) {
  const std::string missing = testing::fresh_path("missing.h5");
  expect_read_error(missing, {missing + ": no such file"});
  expect_error<IoError>([&] { read_result(missing); }, {missing});

  const std::string text = testing::fresh_path("text.h5");
  write_file(text, "x,y,q\n1,2,3\n");
  expect_read_error(text, {text + ": not an HDF5 file"});
  const std::string empty = testing::fresh_path("empty.h5");
  write_file(empty, "");
  expect_read_error(empty, {empty});

  const std::string folder = testing::fresh_path("folder.h5");
  fs::create_directory(folder);
  expect_read_error(folder, {folder, "directory"});

  // One malformed file per case, each with the words its message must contain.
  struct Case {
    std::string name;
    std::function<void(H5Writer&)> build;
    std::vector<std::string> words;
  };
  const std::vector<Case> cases = {
      {"noq.h5",
       [](H5Writer& w) {
         w.numbers("/sources/x", {1, 2});
         w.numbers("/sources/y", {1, 2});
       },
       {": dataset /sources/q not found"}},
      {"nosources.h5",
       [](H5Writer& w) { w.numbers("/other", {1}); },
       {": dataset /sources/x not found"}},
      {"lengths.h5",
       [](H5Writer& w) {
         w.numbers("/sources/x", std::vector<double>(100, 0.5));
         w.numbers("/sources/y", std::vector<double>(100, 0.5));
         w.numbers("/sources/q", std::vector<double>(99, 0.5));
       },
       {": /sources/x has 100 entries but /sources/q has 99"}},
      {"rank2.h5",
       [](H5Writer& w) {
         w.numbers("/sources/x", {1, 2, 3, 4}, {2, 2});
         w.numbers("/sources/y", {1, 2, 3, 4});
         w.numbers("/sources/q", {1, 2, 3, 4});
       },
       {": /sources/x is 2-dimensional, expected 1-dimensional"}},
      {"string.h5",
       [](H5Writer& w) {
         w.numbers("/sources/x", {1, 2});
         w.text("/sources/y", 2);
         w.numbers("/sources/q", {1, 2});
       },
       {": /sources/y has string type"}},
      {"nan.h5",
       [](H5Writer& w) {
         w.numbers("/sources/x", {1, 2, 3});
         w.numbers("/sources/y", {1, std::nan(""), 3});
         w.numbers("/sources/q", {1, 2, 3});
       },
       {": /sources/y[1] is NaN"}},
      {"inf.h5",
       [](H5Writer& w) {
         w.numbers("/sources/x", {1, 2, 3});
         w.numbers("/sources/y", {1, 2, 3});
         w.numbers("/sources/q", {1, 2, -HUGE_VAL});
       },
       {": /sources/q[2] is infinite"}},
      {"zero.h5", [](H5Writer& w) { w.sources(0); }, {": /sources/x is empty"}},
      {"zerotargets.h5",
       [](H5Writer& w) {
         w.sources(3);
         w.numbers("/targets/x", {});
         w.numbers("/targets/y", {});
       },
       {": /targets/x is empty"}},
      {"targety.h5",
       [](H5Writer& w) {
         w.sources(3);
         w.numbers("/targets/x", {1});
       },
       {": dataset /targets/y not found"}},
      {"targetlengths.h5",
       [](H5Writer& w) {
         w.sources(3);
         w.numbers("/targets/x", {1, 2});
         w.numbers("/targets/y", {1});
       },
       {": /targets/x has 2 entries but /targets/y has 1"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = testing::fresh_path(c.name);
    {
      H5Writer w(path);
      c.build(w);
    }
    std::vector<std::string> words = c.words;
    words[0] = path + words[0];
    expect_read_error(path, words);
  }
  // read_targets judges the datasets it reads.
  const std::string bad_targets = testing::fresh_path("targetlengths.h5");
  {
    H5Writer w(bad_targets);
    w.sources(3);
    w.numbers("/targets/x", {1, 2});
    w.numbers("/targets/y", {1});
  }
  std::vector<double> tx, ty;
  expect_error<IoError>([&] { read_targets(bad_targets, &tx, &ty); },
                        {bad_targets, "/targets/x has 2 entries but /targets/y has 1"});
  expect_error<IoError>([&] { read_result(bad_targets); },
                        {bad_targets, "dataset /potential not found"});
  expect_no_open_hdf5_objects();
}

TEST(Hdf5Input, UnreadableFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads any file";
  const std::string path = testing::fresh_path("locked.h5");
  write_points(path, sample_points(false));
  fs::permissions(path, fs::perms::none);
  expect_read_error(path, {path, "cannot read"});
  fs::permissions(path, fs::perms::owner_all);
}

// ------------------------------------------------------------------ CSV input

TEST(CsvInput, BlankLinesCommentsCrlfWhitespaceAndColumnOrder) {
  const std::string path = testing::fresh_path("loose.csv");
  write_file(path,
             "# written by hand\r\n"
             "\r\n"
             "  q , x,y \r\n"
             "1.5, 0.25 ,0.5\r\n"
             "   # a comment between rows\n"
             "\n"
             "\t\n"
             "-2,1e-3,  7\n"
             "3,4,5");  // no final line break
  const PointSet p = read_points(path);
  EXPECT_EQ(p.x, (std::vector<double>{0.25, 1e-3, 4}));
  EXPECT_EQ(p.y, (std::vector<double>{0.5, 7, 5}));
  EXPECT_EQ(p.q, (std::vector<double>{1.5, -2, 3}));
}

TEST(CsvInput, TargetsNeedOnlyXY) {
  const std::string path = testing::fresh_path("targets.csv");
  write_file(path, "y,x\n1,2\n3,4\n");
  std::vector<double> tx, ty;
  read_targets(path, &tx, &ty);
  EXPECT_EQ(tx, (std::vector<double>{2, 4}));
  EXPECT_EQ(ty, (std::vector<double>{1, 3}));
  // ... but read_points needs q.
  expect_read_error(path, {path, "line 1", "'q'"});
}

TEST(CsvInput, ErrorsNameFileLineAndColumn) {
  const std::string missing = testing::fresh_path("missing.csv");
  expect_read_error(missing, {missing + ": no such file"});

  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"x,y,q\n1,2,3\n\n# c\n4,5,6\n0,0,0\n7,8,abc\n",
       {": line 7, column q: 'abc' is not a number"}},
      {"x,y,q\n1,2,3\n1,2\n", {": line 3: expected 3 fields, found 2"}},
      {"x,y,q\n1,2,3,4\n", {": line 2: expected 3 fields, found 4"}},
      {"1,2,3\n4,5,6\n", {": missing header line 'x,y,q'"}},
      {"", {": missing header line 'x,y,q'"}},
      {"# only a comment\n\n", {": missing header line 'x,y,q'"}},
      {"x,y,q\n", {": no data rows"}},
      {"x,y,q\n1,nan,3\n", {": line 2, column y: 'nan' is not finite"}},
      {"q,x,y\n1,2,inf\n", {": line 2, column y: 'inf' is not finite"}},
      {"x,y,q\n1,2,1e999\n", {": line 2, column q: '1e999' is not finite"}},
      {"x,y,q\n1,2,3x\n", {": line 2, column q: '3x' is not a number"}},
      {"x,y,q\n1,,3\n", {": line 2, column y: '' is not a number"}},
      {"x,y,z\n1,2,3\n", {": line 1: unknown column 'z'"}},
      {"x,y,q,w\n1,2,3,4\n", {": line 1: unknown column 'w'"}},
      {"x,y,x\n1,2,3\n", {": line 1: column 'x' appears twice"}},
      {"x,y\n1,2\n", {": line 1: header lacks column 'q'"}},
      {std::string("x,y,q\n1,2\0,3\n", 13), {": not a CSV text file"}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].first);
    const std::string path = testing::fresh_path("bad" + std::to_string(i) + ".csv");
    write_file(path, cases[i].first);
    std::vector<std::string> words = cases[i].second;
    words[0] = path + words[0];
    expect_read_error(path, words);
  }

  // An HDF5 file named .csv is caught by its content.
  const std::string h5 = testing::fresh_path("really_h5.csv");
  {
    H5Writer w(h5);
    w.sources(2);
  }
  expect_read_error(h5, {h5 + ": not a CSV text file"});
}

// Numbers are decimal, as numpy.loadtxt reads them: strtod's hexadecimal ("0x10" as 16,
// "0x1p-3" as 0.125) is refused like any other text; inf and nan still say they are not finite,
// and signs, exponents and spaces around a number are read as before.
TEST(CsvInput, HexadecimalNumbersAreNotNumbers) {
  for (const std::string bad : {"0x10", "0x1p-3", "-0X1A", "+0x0", "0x"}) {
    SCOPED_TRACE(bad);
    const std::string path = testing::fresh_path("hex.csv");
    write_file(path, "x,y,q\n1,2,3\n4,5," + bad + "\n");
    expect_read_error(path, {path + ": line 3, column q: '" + bad + "' is not a number"});
    std::vector<double> tx, ty;
    write_file(path, "x,y\n" + bad + ",1\n");
    EXPECT_THROW(read_targets(path, &tx, &ty), IoError);
  }
  for (const std::string spelled : {"inf", "-Infinity", "nan", "NAN"}) {
    const std::string path = testing::fresh_path("nonfinite.csv");
    write_file(path, "x,y,q\n1,2," + spelled + "\n");
    expect_read_error(path, {path + ": line 2, column q: '" + spelled + "' is not finite"});
  }
  const std::string path = testing::fresh_path("decimal.csv");
  write_file(path, "x,y,q\n+0.5, -0e1 ,1E-3\n010,0.0,-.25\n");
  const PointSet p = read_points(path);
  EXPECT_EQ(p.x, (std::vector<double>{0.5, 10}));
  EXPECT_EQ(p.y, (std::vector<double>{0, 0}));
  EXPECT_EQ(p.q, (std::vector<double>{1e-3, -0.25}));
}

TEST(CsvInput, ResultWithOneFieldColumnIsAnError) {
  const std::string path = testing::fresh_path("halffield.csv");
  write_file(path, "x,y,potential,field_x\n1,2,3,4\n");
  expect_error<IoError>([&] { read_result(path); }, {path, "field_y"});
}

// ------------------------------------------------------------------ atomic writes

TEST(AtomicWrite, MissingFolderLeavesNothing) {
  const std::string path = testing::fresh_path("no_such_folder") + "/x.h5";
  expect_error<IoError>([&] { write_points(path, sample_points(false)); },
                        {"cannot write '" + path + "': No such file or directory"});
  expect_error<IoError>([&] { write_result(path, sample_result(true)); }, {path});
  const std::string csv = testing::fresh_path("no_such_folder") + "/x.csv";
  expect_error<IoError>([&] { write_points(csv, sample_points(false)); }, {csv});
  EXPECT_FALSE(fs::exists(fs::path(path).parent_path()));
}

TEST(AtomicWrite, DirectoryInTheWayIsLeftAlone) {
  for (const std::string name : {"dir.h5", "dir.csv"}) {
    const std::string path = testing::fresh_path(name);
    fs::create_directory(path);
    write_file(path + "/inside", "keep");
    expect_error<IoError>([&] { write_points(path, sample_points(false)); },
                          {"cannot write '" + path + "'"});
    expect_error<IoError>([&] { write_result(path, sample_result(true)); }, {path});
    EXPECT_TRUE(fs::is_directory(path));
    EXPECT_EQ(read_file(path + "/inside"), "keep");
  }
  EXPECT_TRUE(leftovers().empty());
}

TEST(AtomicWrite, FailedWriteLeavesExistingFileUntouched) {
  for (const std::string name : {"keep.h5", "keep.csv"}) {
    const std::string path = testing::fresh_path(name);
    write_file(path, "old contents");
    // Fails before writing: sizes disagree.
    PointSet bad = sample_points(false);
    bad.q.pop_back();
    expect_error<InvalidInput>([&] { write_points(path, bad); }, {path});
    EXPECT_EQ(read_file(path), "old contents");
  }
  // Fails part-way through writing the HDF5 file: an attribute name HDF5 refuses.
  const std::string path = testing::fresh_path("keep.h5");
  write_file(path, "old contents");
  ResultFile r = sample_result(true);
  r.attributes[""] = 1.0;
  expect_error<IoError>([&] { write_result(path, r); }, {"cannot write '" + path + "'", "''"});
  EXPECT_EQ(read_file(path), "old contents");
  EXPECT_TRUE(leftovers().empty());
  expect_no_open_hdf5_objects();
}

TEST(AtomicWrite, ReplacesExistingFile) {
  const std::string path = testing::fresh_path("replace.csv");
  write_file(path, "old contents");
  write_points(path, sample_points(false));
  expect_same_points(read_points(path), sample_points(false));
  EXPECT_TRUE(leftovers().empty());
}

}  // namespace
}  // namespace mlfma2d
