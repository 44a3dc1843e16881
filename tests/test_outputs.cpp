// Outputs a user can load as they are, and files the library refuses rather than mishandles:
// CSV results with the header first (as numpy.loadtxt and pandas.read_csv read them), the JSON
// sidecar, HDF5 results that stand alone (targets, descriptions, integers), outputs that are not
// regular files, long names, an unfinished file kept as NAME.partial, huge CSV cells, HDF5
// external links.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlfma2d/io.hpp"
#include "runtime/atomic_file.hpp"
#include "tests/h5_writer.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

namespace fs = std::filesystem;
using testing::contains;
using testing::expect_error;
using testing::fresh_path;
using testing::read_file;
using testing::same_bits;
using testing::write_file;

ResultFile result_with_field(std::size_t n) {
  ResultFile r;
  for (std::size_t i = 0; i < n; ++i) {
    r.tx.push_back(0.125 * double(i));
    r.ty.push_back(-0.5 + 1e-3 * double(i));
    r.potential.push_back(std::log(1.0 + double(i)));
    r.field_x.push_back(1.0 / (1.0 + double(i)));
    r.field_y.push_back(-2.5e-300 * double(i));
  }
  r.attributes["backend"] = AttrValue("cpu");
  r.attributes["eps"] = AttrValue(1e-10);
  r.attributes["levels"] = AttrValue::from_integer(7);
  r.attributes["n_sources"] = AttrValue::from_integer(5000000000LL);
  return r;
}

// The rows of a CSV file as numpy.loadtxt(f, delimiter=",", skiprows=1) reads them: the first
// line skipped, then every line split at commas, every field a number (strtod reads it whole).
// Fails the test on anything loadtxt would reject.
std::vector<std::vector<double>> loadtxt(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // skiprows=1
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) {
      char* end = nullptr;
      row.push_back(std::strtod(field.c_str(), &end));
      EXPECT_TRUE(!field.empty() && *end == '\0') << "not a number: '" << field << "'";
    }
    if (!rows.empty()) EXPECT_EQ(row.size(), rows.front().size()) << line;
    rows.push_back(row);
  }
  return rows;
}

TEST(CsvOutput, HeaderFirstThenRowsAndTheAttributesInTheSidecar) {
  const std::string path = fresh_path("loadable.csv");
  const ResultFile r = result_with_field(50);
  write_result(path, r);
  const std::string text = read_file(path);
  // pandas.read_csv takes the first line as the header; loadtxt skips it.
  EXPECT_EQ(text.substr(0, text.find('\n')), "x,y,potential,field_x,field_y");
  EXPECT_EQ(text.find('#'), std::string::npos) << "no comment lines";
  const auto rows = loadtxt(text);
  ASSERT_EQ(rows.size(), 50u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 5u);
    EXPECT_TRUE(
        same_bits({rows[i][0], rows[i][2], rows[i][4]}, {r.tx[i], r.potential[i], r.field_y[i]}))
        << i;
  }
  // The sidecar: JSON, naming the file, the attributes with integers as integers.
  const nlohmann::json j = nlohmann::json::parse(read_file(sidecar_path(path)));
  EXPECT_EQ(j["file"], "loadable.csv");
  EXPECT_EQ(j["attributes"]["backend"], "cpu");
  EXPECT_TRUE(j["attributes"]["levels"].is_number_integer());
  EXPECT_EQ(j["attributes"]["n_sources"].get<std::int64_t>(), 5000000000LL);
  EXPECT_EQ(j["attributes"]["eps"].get<double>(), 1e-10);
  const ResultFile back = read_result(path);
  EXPECT_TRUE(back.attributes.at("levels").is_integer);
  EXPECT_EQ(back.attributes.at("n_sources").integer, 5000000000LL);
  EXPECT_EQ(back.attributes.at("backend").text, "cpu");
}

TEST(CsvOutput, WithoutAttributesAnOldSidecarGoes) {
  const std::string path = fresh_path("no_attributes.csv");
  write_result(path, result_with_field(3));
  ASSERT_TRUE(fs::exists(sidecar_path(path)));
  ResultFile bare = result_with_field(3);
  bare.attributes.clear();
  write_result(path, bare);
  EXPECT_FALSE(fs::exists(sidecar_path(path)));
  EXPECT_TRUE(read_result(path).attributes.empty());
}

TEST(CsvOutput, OldFilesWithCommentLinesAreStillRead) {
  const std::string path = fresh_path("old_result.csv");
  write_file(path, "# backend = indexing\n# levels = 7\nx,y,potential\n0.5,0.25,-1.5\n");
  const ResultFile r = read_result(path);
  EXPECT_EQ(r.attributes.at("backend").text, "indexing");
  EXPECT_EQ(r.attributes.at("levels").number, 7.0);
  EXPECT_EQ(r.potential, std::vector<double>{-1.5});
}

TEST(Hdf5Output, TheFileStandsAlone) {
  const std::string path = fresh_path("standalone.h5");
  const ResultFile r = result_with_field(40);
  write_result(path, r);
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  // Every dataset says what it holds.
  EXPECT_TRUE(contains(testing::text_attribute(path, "/potential", "description"),
                       "phi(x_i) = sum_j q_j log|x_i - y_j|"));
  EXPECT_TRUE(contains(testing::text_attribute(path, "/field/x", "description"), "E = -grad phi"));
  EXPECT_TRUE(contains(testing::text_attribute(path, "/targets/y", "description"), "y coordinate"));
  // Integers are stored as integers, reals as doubles.
  for (const auto& [name, cls] : {std::pair{"levels", H5T_INTEGER}, std::pair{"eps", H5T_FLOAT}}) {
    const hid_t attr = H5Aopen(file, name, H5P_DEFAULT);
    const hid_t type = H5Aget_type(attr);
    EXPECT_EQ(H5Tget_class(type), cls) << name;
    H5Tclose(type);
    H5Aclose(attr);
  }
  H5Fclose(file);
  const ResultFile back = read_result(path);
  EXPECT_TRUE(same_bits(back.tx, r.tx));
  EXPECT_TRUE(same_bits(back.ty, r.ty));
  EXPECT_TRUE(same_bits(back.field_y, r.field_y));
  EXPECT_TRUE(back.attributes.at("n_sources").is_integer);
  EXPECT_EQ(back.attributes.at("n_sources").integer, 5000000000LL);
}

TEST(Outputs, NonRegularFilesAreRefusedNotReplaced) {
  const std::string target = fresh_path("link_target.h5");
  write_file(target, "keep me");
  const std::string link = fresh_path("through_link.h5");
  fs::create_symlink(target, link);
  expect_error<IoError>([&] { write_result(link, result_with_field(2)); },
                        {link, "symbolic link", "not replaced"});
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_file(target), "keep me");

  const std::string fifo = fresh_path("pipe.csv");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  expect_error<IoError>([&] { write_result(fifo, result_with_field(2)); }, {fifo, "a FIFO"});
  expect_error<IoError>([&] { check_writable(fifo); }, {fifo, "a FIFO"});
  EXPECT_EQ(fs::status(fifo).type(), fs::file_type::fifo);

  // A device node (as root, replacing it would destroy it).
  expect_error<IoError>([] { write_text_file("/dev/null", "x"); }, {"/dev/null", "a device"});
  EXPECT_EQ(fs::status("/dev/null").type(), fs::file_type::character);
}

TEST(Inputs, NonRegularFilesAreRefusedNotRead) {
  // A FIFO with no writer would block the reader forever.
  const std::string fifo = fresh_path("input_pipe.csv");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  expect_error<IoError>([&] { read_points(fifo); }, {fifo, "a FIFO, not a regular file"});
  // A link to a regular file is followed.
  const std::string file = fresh_path("real_points.csv");
  write_file(file, "x,y,q\n0.5,0.5,1\n");
  const std::string link = fresh_path("linked_points.csv");
  fs::create_symlink(file, link);
  EXPECT_EQ(read_points(link).x, std::vector<double>{0.5});
}

TEST(AtomicWrite, A253CharacterNameIsWritable) {
  // The temporary file's suffix must not push the name past the file system's 255 bytes.
  const std::string name = std::string(249, 'n') + ".csv";
  ASSERT_EQ(name.size(), 253u);
  const std::string path = fresh_path(name);
  ResultFile r = result_with_field(4);
  r.attributes.clear();
  write_result(path, r);
  EXPECT_EQ(read_result(path).potential.size(), 4u);
  for (const auto& e : fs::directory_iterator(testing::temp_dir())) {
    EXPECT_FALSE(contains(e.path().filename().string(), ".tmp-")) << e.path();
  }
}

TEST(AtomicWrite, AnUnfinishedFileMadeToBeKeptStaysAsPartial) {
  // Unfinished::keep_partial (a sweep's CSV): written as NAME.partial from the start; not
  // committed (a failure), it stays with what was written and NAME is not made; committed, it
  // becomes NAME.
  const std::string path = fresh_path("grown.csv");
  fs::remove(path + ".partial");
  {
    TemporaryFile tmp(path, Unfinished::keep_partial);
    EXPECT_EQ(tmp.path(), path + ".partial");
    write_file(tmp.path(), "head\n1\n");
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(read_file(path + ".partial"), "head\n1\n");
  {
    TemporaryFile tmp(path, Unfinished::keep_partial);
    write_file(tmp.path(), "head\n1\n2\n");
    tmp.commit();
  }
  EXPECT_EQ(read_file(path), "head\n1\n2\n");
  EXPECT_FALSE(fs::exists(path + ".partial"));
  // An ordinary temporary file is still removed when it is not committed.
  std::string ordinary;
  {
    TemporaryFile tmp(path);
    ordinary = tmp.path();
    write_file(ordinary, "unfinished");
  }
  EXPECT_FALSE(fs::exists(ordinary));
  EXPECT_EQ(read_file(path), "head\n1\n2\n");
}

TEST(CsvInput, AHugeCellIsQuotedShortInTheError) {
  const std::string path = fresh_path("huge_cell.csv");
  write_file(path, "x,y,q\n0.5,0.5," + std::string(10 << 20, '7') + "z\n");
  try {
    read_points(path);
    FAIL() << "no error";
  } catch (const IoError& e) {
    const std::string m = e.what();
    EXPECT_LT(m.size(), 400u) << m.substr(0, 400);
    EXPECT_TRUE(contains(m, "line 2, column q")) << m;
    EXPECT_TRUE(contains(m, "... (10485761 bytes)")) << m;
  }
}

TEST(Hdf5Input, AnExternalLinkIsSaidForWhatItIs) {
  const std::string other = fresh_path("elsewhere.h5");
  {
    testing::H5Writer w(other);
    w.numbers("/x", {0.25, 0.5});
  }
  const std::string path = fresh_path("with_external_link.h5");
  {
    testing::H5Writer w(path);
    w.numbers("/sources/y", {0.25, 0.5});
    w.numbers("/sources/q", {1, 1});
  }
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t group = H5Gopen2(file, "/sources", H5P_DEFAULT);
  ASSERT_GE(H5Lcreate_external(other.c_str(), "/x", group, "x", H5P_DEFAULT, H5P_DEFAULT), 0);
  H5Gclose(group);
  H5Fclose(file);
  try {
    read_points(path);
    FAIL() << "no error";
  } catch (const IoError& e) {
    const std::string m = e.what();
    EXPECT_TRUE(contains(m, "/sources/x is an external link to " + other + ":/x")) << m;
    EXPECT_TRUE(contains(m, "not followed")) << m;
    EXPECT_FALSE(contains(m, "truncated")) << m;
  }
  EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
}

// Coordinates near +-1e308 are scaled by 2^-1023 (the report once said "scaled by 1/inf", JSON
// null); unscaled ones have coordinate_scale null in JSON (once 0.0) and no line in the text.
TEST(Report, TheCoordinateScaleIsTheRealOneOrNull) {
  const std::string huge = fresh_path("near_max.csv");
  write_file(huge, "x,y,q\n-1e308,0,1\n1e308,1e308,-2\n0.5e308,-1.7e308,0.5\n");
  testing::AppRun r = testing::run_app("--input '" + huge + "' --quiet");
  ASSERT_EQ(r.code, 0) << testing::describe(r);
  EXPECT_TRUE(contains(r.out, "coordinates scaled by 1/8.99e+307")) << r.out;
  EXPECT_FALSE(contains(r.out, "1/inf")) << r.out;
  r = testing::run_app("--input '" + huge + "' --quiet --report json");
  ASSERT_EQ(r.code, 0) << testing::describe(r);
  EXPECT_EQ(nlohmann::json::parse(r.out)["coordinate_scale"], std::ldexp(1.0, 1023)) << r.out;

  const std::string plain = fresh_path("plain.csv");
  write_file(plain, "x,y,q\n0,0,1\n1,0.5,-2\n0.25,0.75,0.5\n");
  r = testing::run_app("--input '" + plain + "' --quiet");
  ASSERT_EQ(r.code, 0) << testing::describe(r);
  EXPECT_FALSE(contains(r.out, "scaled")) << r.out;
  r = testing::run_app("--input '" + plain + "' --quiet --report json");
  ASSERT_EQ(r.code, 0) << testing::describe(r);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("coordinate_scale")) << r.out;
  EXPECT_TRUE(j["coordinate_scale"].is_null()) << r.out;
}

// Under --ct auto the chosen plan is built within choose: its time is reported (it was always 0)
// and the text says where it went.
TEST(Report, ThePlanTimeUnderCtAutoIsMeasuredWithinChoose) {
  const std::string in = fresh_path("plan_time.h5");
  write_points(in, testing::make_points("uniform", 20000, 3));
  testing::AppRun r = testing::run_app("--input '" + in + "' --backend cpu --quiet --report json");
  ASSERT_EQ(r.code, 0) << testing::describe(r);
  nlohmann::json t = nlohmann::json::parse(r.out)["timings"];
  EXPECT_GT(t["plan"].get<double>(), 0) << t;
  EXPECT_LE(t["plan"].get<double>(), t["choose"].get<double>()) << t;
  r = testing::run_app("--input '" + in + "' --backend cpu --quiet");
  ASSERT_EQ(r.code, 0) << testing::describe(r);
  const auto line = r.out.find("\n  plan ");
  ASSERT_NE(line, std::string::npos) << r.out;
  EXPECT_TRUE(contains(r.out.substr(line, r.out.find('\n', line + 1) - line), "(within choose)"))
      << r.out;
  // A given CT: the plan is built on its own, and choose does not run.
  r = testing::run_app("--input '" + in + "' --backend cpu --ct 32 --quiet --report json");
  ASSERT_EQ(r.code, 0) << testing::describe(r);
  t = nlohmann::json::parse(r.out)["timings"];
  EXPECT_GT(t["plan"].get<double>(), 0) << t;
  EXPECT_EQ(t["choose"].get<double>(), 0) << t;
  r = testing::run_app("--input '" + in + "' --backend cpu --ct 32 --quiet");
  EXPECT_FALSE(contains(r.out, "within choose")) << r.out;
}

}  // namespace
}  // namespace mlfma2d
