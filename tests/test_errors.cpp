// Rejected input, with a clear error: the cases not already covered by test_io, test_cli,
// test_tree and test_solver (docs/robustness.md maps every case to its test). Library: a typed
// exception (an mlfma2d::Error) whose one-line message names the problem and where. Program: exit
// code 2 (usage, option, back end) or 3 (input file or data, output not writable), one line on
// stderr, nothing on stdout, and no output file written, changed or left behind.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "runtime/text.hpp"
#include "tests/h5_writer.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

namespace fs = std::filesystem;
using testing::AppRun;
using testing::contains;
using testing::describe;
using testing::expect_error;
using testing::H5Writer;
using testing::read_file;
using testing::run_app;
using testing::temp_dir;
using testing::write_file;

// A UNIX socket at `path`: a file that even root cannot open for reading (ENXIO).
void make_socket(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  std::strcpy(addr.sun_path, path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
  ::close(fd);  // the socket file stays
}

// The library's back-end names as its messages list them: "cpu, indexing, ...".
std::string valid_backends() {
  return join(near_field_backends(), ", ");
}

void expect_no_open_hdf5_objects() {
  EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
}

// A valid point-set file of n points (written by the library).
std::string valid_points(const std::string& name, std::size_t n) {
  const std::string p = testing::fresh_path(name);
  write_points(p, generate_points("uniform", n, 3));
  return p;
}

// ================================================================== library: files

TEST(FileErrors, UnreadableFileEvenForRoot) {
  for (const char* name : {"socket.h5", "socket.csv"}) {
    SCOPED_TRACE(name);
    const std::string p = testing::fresh_path(name);
    make_socket(p);
    expect_error<IoError>([&] { read_points(p); }, {p + ": cannot read"});
    std::vector<double> tx, ty;
    expect_error<IoError>([&] { read_targets(p, &tx, &ty); }, {p + ": cannot read"});
    expect_error<IoError>([&] { read_result(p); }, {p + ": cannot read"});
  }
}

TEST(FileErrors, UnreadableCsvWithoutPermission) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads any file (UnreadableFileEvenForRoot covers it)";
  const std::string p = testing::fresh_path("locked.csv");
  write_file(p, "x,y,q\n1,2,3\n");
  fs::permissions(p, fs::perms::none);
  expect_error<IoError>([&] { read_points(p); }, {p, "cannot read"});
  fs::permissions(p, fs::perms::owner_all);
}

TEST(FileErrors, NotAPointFileByExtension) {
  for (const char* name : {"points.txt", "points", "points.h5.bak", "points.csv.gz"}) {
    expect_error<InvalidInput>([&] { read_points(name); }, {name, ".h5, .hdf5 or .csv"});
  }
}

TEST(FileErrors, TruncatedHdf5File) {
  const std::string full = valid_points("full.h5", 1000);
  const std::string bytes = read_file(full);
  ASSERT_GT(bytes.size(), 8000u);
  for (const std::size_t keep : {std::size_t(8), std::size_t(100), std::size_t(800),
                                 std::size_t(2100), bytes.size() / 2, bytes.size() - 1}) {
    SCOPED_TRACE("kept " + std::to_string(keep) + " of " + std::to_string(bytes.size()) + " bytes");
    const std::string cut = testing::fresh_path("truncated.h5");
    write_file(cut, bytes.substr(0, keep));
    expect_error<IoError>([&] { read_points(cut); }, {cut + ": "});
    std::vector<double> tx, ty;
    expect_error<IoError>([&] { read_targets(cut, &tx, &ty); }, {cut + ": "});
  }
  expect_no_open_hdf5_objects();
}

TEST(FileErrors, TruncatedCsvFile) {
  const std::string cut = testing::fresh_path("truncated.csv");
  write_file(cut, "x,y,q\n0.1,0.2,1\n0.3,0.4,2\n0.5,0.");  // cut in the last row
  expect_error<IoError>([&] { read_points(cut); }, {cut + ": line 4: expected 3 fields, found 2"});
  write_file(cut, "x,y");  // cut in the header
  expect_error<IoError>([&] { read_points(cut); }, {cut + ": line 1: header lacks column 'q'"});
}

TEST(FileErrors, Hdf5DatasetShapesAndTypes) {
  struct Case {
    std::string name;
    std::function<void(H5Writer&)> build;
    std::string words;
  };
  const std::vector<Case> cases = {
      {"scalar.h5",
       [](H5Writer& w) {
         w.scalar("/sources/x", 1.0);
         w.numbers("/sources/y", {1});
         w.numbers("/sources/q", {1});
       },
       ": /sources/x is 0-dimensional, expected 1-dimensional"},
      {"compound.h5",
       [](H5Writer& w) {
         w.numbers("/sources/x", {1, 2});
         w.numbers("/sources/y", {1, 2});
         w.compound("/sources/q", 2);
       },
       ": /sources/q has compound type, expected numbers"},
      {"group.h5",
       [](H5Writer& w) {
         w.group("/sources/x");
         w.numbers("/sources/y", {1});
         w.numbers("/sources/q", {1});
       },
       ": /sources/x is not a dataset"},
      {"sources_is_a_dataset.h5",
       [](H5Writer& w) {
         w.numbers("/sources", {1, 2, 3});
       },
       ": dataset /sources/x not found"},
      {"unwritten.h5",
       [](H5Writer& w) {
         w.numbers("/sources/x", {1, 2, 3});
         w.unwritten("/sources/y", 3);
         w.numbers("/sources/q", {1, 2, 3});
       },
       ": /sources/y has no data stored"},
      {"targets_nan.h5",
       [](H5Writer& w) {
         w.sources(4);
         w.numbers("/targets/x", {0.5, std::nan("")});
         w.numbers("/targets/y", {0.5, 0.5});
       },
       ": /targets/x[1] is NaN"},
      {"targets_inf.h5",
       [](H5Writer& w) {
         w.sources(4);
         w.numbers("/targets/x", {0.5, 0.25});
         w.numbers("/targets/y", {HUGE_VAL, 0.5});
       },
       ": /targets/y[0] is infinite"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string p = testing::fresh_path(c.name);
    {
      H5Writer w(p);
      c.build(w);
    }
    expect_error<IoError>([&] { read_points(p); }, {p + c.words});
  }
  expect_no_open_hdf5_objects();
}

TEST(FileErrors, Hdf5ExternalStorageIsNotFollowed) {
  // Raw data in another file named by the input: not read (a corrupt or hostile file could name
  // any file on the machine).
  const std::string p = testing::fresh_path("external.h5");
  write_file(testing::fresh_path("external.raw"), std::string(24, '\0'));
  {
    H5Writer w(p);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_external(dcpl, "external.raw", 0, 24);
    w.numbers("/sources/x", {1, 2, 3});
    w.numbers("/sources/y", {1, 2, 3});
    w.unwritten("/sources/q", 3, dcpl);
    H5Pclose(dcpl);
  }
  expect_error<IoError>([&] { read_points(p); },
                        {p + ": /sources/q keeps its data in external files"});
  expect_no_open_hdf5_objects();
}

TEST(FileErrors, FuzzFindingsInHdf5FilesAreRejected) {
  // Found by fuzz_hdf5 (docs/fuzzing.md), each now rejected before libhdf5 reads the data:
  //  - compact-size-mismatch-heap-overflow.h5: a compact dataset whose header claims more entries
  //    than its stored data hold; libhdf5 1.10 read past its buffer (heap-buffer-overflow);
  //  - chunk-stored-size-4gb-oom.h5: a chunk "stored with 4294967290 bytes" in a 17 kB file;
  //    libhdf5 allocated 4 GB to read it;
  //  - chunked-262144-entries-in-37-bytes-slow.h5: 131072 unwritten chunks read one by one
  //    (slow natively, past the fuzzer's timeout under ASan).
  const std::string dir = std::string(MLFMA2D_SOURCE_DIR) + "/fuzz/regressions/hdf5/";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"compact-size-mismatch-heap-overflow.h5", "but stores"},
      {"chunk-stored-size-4gb-oom.h5",
       "/sources/q stores 4294967308 bytes in a file of 17080 bytes"},
      {"chunked-262144-entries-in-37-bytes-slow.h5",
       "/sources/x claims 262144 entries of 8 bytes but stores 37 bytes"},
  };
  for (const auto& [name, words] : cases) {
    SCOPED_TRACE(name);
    const std::string p = dir + name;
    ASSERT_TRUE(fs::exists(p)) << p;
    expect_error<IoError>([&] { read_points(p); }, {p + ": ", words, "(corrupt file)"});
  }
  // Every input kept under fuzz/regressions/hdf5 is rejected or read, never more.
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string p = entry.path().string();
    try {
      read_points(p);
    } catch (const Error&) {
    }
  }
  expect_no_open_hdf5_objects();
}

TEST(FileErrors, ZeroTargetsInCsv) {
  const std::string p = testing::fresh_path("no_targets.csv");
  write_file(p, "# targets\nx,y\n\n");
  std::vector<double> tx, ty;
  expect_error<IoError>([&] { read_targets(p, &tx, &ty); }, {p + ": no data rows"});
}

TEST(FileErrors, NanAndInfTargetsInCsv) {
  const std::string p = testing::fresh_path("bad_targets.csv");
  std::vector<double> tx, ty;
  write_file(p, "x,y\n0.5,0.5\n-inf,0.5\n");
  expect_error<IoError>([&] { read_targets(p, &tx, &ty); },
                        {p + ": line 3, column x: '-inf' is not finite"});
  write_file(p, "x,y\n0.5,NaN\n");
  expect_error<IoError>([&] { read_targets(p, &tx, &ty); },
                        {p + ": line 2, column y: 'NaN' is not finite"});
}

// ================================================================== library: values and options

TEST(ValueErrors, SolverRejectsBadGeometryWithTypedErrors) {
  const std::vector<double> x = {0.1, 0.5, 0.9}, y = {0.2, 0.4, 0.6};
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = HUGE_VAL;
  expect_error<InvalidInput>([&] { Solver({}, {}); }, {"no sources"});
  expect_error<InvalidInput>(
      [&] {
        Solver(x, {0.1, 0.2});
      },
      {"source x and y have different lengths (3 and 2)"});
  expect_error<InvalidInput>([&] { Solver(x, y, {}, {}); }, {"no targets"});
  expect_error<InvalidInput>(
      [&] {
        Solver(x, y, {0.5, 0.6}, {0.5});
      },
      {"target x and y have different lengths"});
  expect_error<InvalidInput>(
      [&] {
        Solver(x, {0.1, inf, 0.3});
      },
      {"source 1 has a non-finite coordinate"});
  expect_error<InvalidInput>(
      [&] {
        Solver(x, y, {0.5, nan}, {0.5, 0.5});
      },
      {"target 1 has a non-finite coordinate"});
}

TEST(ValueErrors, NonFiniteChargesAndMissingOutputs) {
  const std::vector<double> x = {0.1, 0.5, 0.9}, y = {0.2, 0.4, 0.6};
  Solver s(x, y);
  expect_error<InvalidInput>(
      [&] {
        s.evaluate({1.0, std::nan(""), 1.0});
      },
      {"charge 1 is not finite"});
  expect_error<InvalidInput>(
      [&] {
        s.evaluate({1.0, 1.0, -HUGE_VAL});
      },
      {"charge 2 is not finite"});
  expect_error<InvalidInput>([&] { s.evaluate({1.0, 1.0}); }, {"expected 3 charges, got 2"});
  Options o;
  o.field = true;
  Solver f(x, y, o);
  const double q[3] = {1, 2, 3};
  double phi[3];
  expect_error<InvalidInput>([&] { f.evaluate(q, phi, nullptr, nullptr); }, {"field"});
}

TEST(OptionErrors, SolverRejectsEveryBadOption) {
  const PointSet p = generate_points("uniform", 200, 5);
  auto with = [&](const std::function<void(Options&)>& set) {
    return [&p, set] {
      Options o;
      set(o);
      Solver(p.x, p.y, o);
    };
  };
  expect_error<InvalidInput>(with([](Options& o) { o.ct = -4; }),
                             {"CT must be >= 1", "0 = chosen automatically", "got -4"});
  for (const double eps : {0.0, 1.0, -1e-3, 1.5, std::nan(""), HUGE_VAL}) {
    SCOPED_TRACE(eps);
    expect_error<InvalidInput>(with([eps](Options& o) { o.eps = eps; }), {"eps must be in (0, 1)"});
  }
  expect_error<InvalidInput>(with([](Options& o) { o.terms = -1; }), {"terms must be in 1..60"});
  expect_error<InvalidInput>(with([](Options& o) { o.terms = kMaxTerms + 1; }), {"got 61"});
  expect_error<InvalidInput>(with([](Options& o) { o.threads = -2; }), {"threads must be >= 1"});
  // -L goes above the root (L = 0), 31 - L past the deepest level (L fixed by the papers' CT 15,
  // which a level offset without CT means: 4 here).
  Options papers;
  papers.ct = kPapersCapacity;
  const int L = Solver(p.x, p.y, papers).stats().levels_ct;
  const std::string up = "level offset -" + std::to_string(L);
  const std::string down = "level offset +" + std::to_string(kMaxLevels + 1 - L);
  expect_error<InvalidInput>(with([L](Options& o) { o.level_offset = -L; }),
                             {up, "L must be >= 1"});
  expect_error<InvalidInput>(with([L](Options& o) { o.level_offset = kMaxLevels + 1 - L; }),
                             {down, "L must be <= 30"});
  expect_error<BackendUnavailable>(with([](Options& o) { o.backend = "gpu"; }),
                                   {"unknown back end 'gpu'", valid_backends()});
  for (const char* gpu : {"indexing", "repetition"}) {
    if (near_field_backend_available(gpu)) continue;
    expect_error<BackendUnavailable>(with([gpu](Options& o) { o.backend = gpu; }), {gpu});
  }
}

TEST(OptionErrors, DeepestLevelAndRootAreAccepted) {
  // The limits themselves are valid: L = 1 (the root alone) and L = 30.
  const PointSet p = generate_points("uniform", 200, 5);
  Options o;
  o.ct = kPapersCapacity;
  const int L = Solver(p.x, p.y, o).stats().levels_ct;
  o.level_offset = 1 - L;
  std::vector<double> ref;
  direct_sum(p.x, p.y, p.q, p.x, p.y, {}, &ref, nullptr, nullptr);
  Solver root(p.x, p.y, o);
  EXPECT_EQ(root.stats().levels, 1);
  EXPECT_LE(error_norms(root.evaluate(p.q).potential, ref).rel_l2, 1e-13);
  o.level_offset = kMaxLevels - L;
  Solver deep(p.x, p.y, o);
  EXPECT_EQ(deep.stats().levels, kMaxLevels);
  EXPECT_LE(error_norms(deep.evaluate(p.q).potential, ref).rel_l2, 1e-6);
}

// ================================================================== the program

#ifdef MLFMA2D_APP

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

// Names of files in the test folder that look like leftovers of an output (temporaries).
std::vector<std::string> temporaries() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(temp_dir())) {
    const std::string n = e.path().filename().string();
    if (contains(n, ".tmp")) names.push_back(n);
  }
  return names;
}

// The program rejects `args` with `code`, one error line naming every one of `words`, nothing on
// stdout, and the outputs as they were: `fresh` not created, `existing` unchanged.
void expect_rejected(const std::string& args, int code, const std::vector<std::string>& words) {
  SCOPED_TRACE(args);
  const std::string fresh = testing::fresh_path("fresh_out.h5");
  const std::string existing = testing::fresh_path("existing_out.csv");
  write_file(existing, "sentinel");
  for (const std::string& out : {fresh, existing}) {
    const std::string full = args + (contains(args, "--output") ? "" : " --output " + quoted(out));
    const AppRun r = run_app(full);
    EXPECT_EQ(r.code, code) << describe(r);
    EXPECT_EQ(r.out, "") << describe(r);
    EXPECT_EQ(r.err.rfind("mlfma2d: error: ", 0), 0u) << describe(r);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << describe(r);
    for (const auto& w : words)
      EXPECT_TRUE(contains(r.err, w)) << "lacks '" << w << "'\n" << describe(r);
  }
  EXPECT_FALSE(fs::exists(fresh));
  EXPECT_EQ(read_file(existing), "sentinel");
  EXPECT_EQ(temporaries(), std::vector<std::string>{});
}

TEST(CliErrors, InputFilesAreExit3NamingTheFile) {
  const std::string sock = testing::fresh_path("input_socket.csv");
  make_socket(sock);
  expect_rejected("--input " + quoted(sock), 3, {sock, "cannot read"});

  const std::string text_h5 = testing::fresh_path("text.h5");
  write_file(text_h5, "x,y,q\n1,2,3\n");
  expect_rejected("--input " + quoted(text_h5), 3, {text_h5, "not an HDF5 file"});

  const std::string binary_csv = testing::fresh_path("binary.csv");
  write_file(binary_csv, std::string("x,y,q\n1,2\0,3\n", 13));
  expect_rejected("--input " + quoted(binary_csv), 3, {binary_csv, "not a CSV text file"});

  const std::string full = valid_points("cli_full.h5", 1000);
  const std::string cut = testing::fresh_path("cli_truncated.h5");
  write_file(cut, read_file(full).substr(0, read_file(full).size() / 2));
  expect_rejected("--input " + quoted(cut), 3, {cut});

  const std::string rank = testing::fresh_path("rank0.h5");
  {
    H5Writer w(rank);
    w.scalar("/sources/x", 0.5);
    w.numbers("/sources/y", {1});
    w.numbers("/sources/q", {1});
  }
  expect_rejected("--input " + quoted(rank), 3, {rank, "/sources/x is 0-dimensional"});

  const std::string no_q = testing::fresh_path("no_q.h5");
  {
    H5Writer w(no_q);
    w.numbers("/sources/x", {1, 2});
    w.numbers("/sources/y", {1, 2});
  }
  expect_rejected("--input " + quoted(no_q), 3, {no_q, "dataset /sources/q not found"});

  const std::string header_only = testing::fresh_path("header_only.csv");
  write_file(header_only, "x,y,q\r\n# nothing else\r\n");
  expect_rejected("--input " + quoted(header_only), 3, {header_only, "no data rows"});

  const std::string nan = testing::fresh_path("nan.csv");
  write_file(nan, "x,y,q\n0.1,0.2,1\n0.3,nan,2\n");
  expect_rejected("--input " + quoted(nan), 3, {nan, "line 3, column y: 'nan' is not finite"});
  const std::string inf_q = testing::fresh_path("inf_q.csv");
  write_file(inf_q, "x,y,q\n0.1,0.2,1e400\n");
  expect_rejected("--input " + quoted(inf_q), 3,
                  {inf_q, "line 2, column q: '1e400' is not finite"});

  expect_rejected("--input " + quoted(testing::fresh_path("missing_dir") + "/x.csv"), 3,
                  {"missing_dir/x.csv", "no such file"});
  expect_rejected("--input points.txt", 2, {"--input", "points.txt", ".h5, .hdf5 or .csv"});
}

TEST(CliErrors, TargetFilesAreExit3NamingTheFile) {
  const std::string in = valid_points("cli_sources.h5", 500);
  const std::string none = testing::fresh_path("zero_targets.csv");
  write_file(none, "x,y\n");
  expect_rejected("--input " + quoted(in) + " --targets " + quoted(none), 3,
                  {none, "no data rows"});
  const std::string uneven = testing::fresh_path("uneven_targets.h5");
  {
    H5Writer w(uneven);
    w.sources(3);
    w.numbers("/targets/x", {1, 2});
    w.numbers("/targets/y", {1});
  }
  expect_rejected("--input " + quoted(in) + " --targets " + quoted(uneven), 3,
                  {uneven, "/targets/x has 2 entries but /targets/y has 1"});
  // ... and /targets inside the input file itself.
  expect_rejected("--input " + quoted(uneven), 3, {uneven, "/targets/x has 2 entries"});
}

TEST(CliErrors, OptionValuesAreExit2NamingTheOption) {
  const std::string in = " --input " + quoted(valid_points("cli_opts.h5", 500));
  for (const char* args : {"--eps 1", "--eps -0.5", "--eps 1e", "--eps inf", "--eps ''"}) {
    expect_rejected(std::string(args) + in, 2, {"--eps"});
  }
  for (const char* args : {"--terms -3", "--terms 1000", "--terms 2.5", "--terms ten"}) {
    expect_rejected(std::string(args) + in, 2, {"--terms", "[1, 60]"});
  }
  for (const char* args : {"--threads -2", "--threads two", "--threads 1e3"}) {
    expect_rejected(std::string(args) + in, 2, {"--threads"});
  }
  for (const char* args : {"--ct 1.5", "--ct ''", "--ct 99999999999999999999"}) {
    expect_rejected(std::string(args) + in, 2, {"--ct"});
  }
  expect_rejected("--levels +31" + in, 2, {"--levels"});
  expect_rejected("--backend CPU" + in, 2,
                  {"--backend", "unknown back end 'CPU'", valid_backends()});
  for (const char* gpu : {"indexing", "repetition"}) {
    if (near_field_backend_available(gpu)) continue;
    expect_rejected(std::string("--backend ") + gpu + in, 2, {"--backend", gpu, "not available"});
  }
}

TEST(CliErrors, FuzzFindingPlaceholderInAnOptionDoesNotHang) {
  // Found by fuzz_options (fuzz/regressions/options/boost-placeholder-hang): Boost 1.74 formats
  // its error by replacing %placeholders% in a loop that never ends when the token holds its own
  // placeholder. `timeout` turns a regression into a failure instead of a hung test.
  for (const char* args : {"--e%original_token%ps", "--field=%original_token%",
                           "--ct %value% --ct 2", "--%canonical_option%", "--verify-sample"}) {
    SCOPED_TRACE(args);
    const std::string command =
        "timeout 30 '" + std::string(MLFMA2D_APP) + "' " + args + " >/dev/null 2>&1 </dev/null";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2) << "124 = hung";
  }
  expect_rejected("'--e%original_token%ps'", 2, {"invalid option '--e%original_token%ps'"});
}

TEST(CliErrors, LevelsPastTheRootOrTheDeepestLevelAreExit2) {
  // 500 points, CT 15: L = 4 or 5; -5 goes above the root, +27 past level 30. Caught when the
  // tree is built, before any output is written.
  const std::string in = " --input " + quoted(valid_points("cli_levels.h5", 500));
  expect_rejected("--levels -5" + in, 2, {"level offset -5 (--levels)", "level 1 is the root"});
  expect_rejected("--levels +27" + in, 2, {"level offset +27 (--levels)", "L must be <= 30"});
}

TEST(CliErrors, OutputPathsAreRejectedBeforeAnyWork) {
  const std::string in = valid_points("cli_out_in.h5", 500);
  const std::string targets = testing::fresh_path("cli_out_targets.csv");
  write_file(targets, "x,y\n0.5,0.5\n");
  const std::string before = read_file(in), targets_before = read_file(targets);
  // The output is the input, the --targets file, or a link to the input: exit 2.
  expect_rejected("--input " + quoted(in) + " --output " + quoted(in), 2,
                  {"--output", "is the input file"});
  expect_rejected(
      "--input " + quoted(in) + " --targets " + quoted(targets) + " --output " + quoted(targets), 2,
      {"--output", "is the --targets file"});
  const std::string link = testing::fresh_path("link_to_input.h5");
  fs::create_symlink(in, link);
  expect_rejected("--input " + quoted(in) + " --output " + quoted(link), 2,
                  {"--output", "is the input file"});
  EXPECT_EQ(read_file(in), before);
  EXPECT_EQ(read_file(targets), targets_before);
  // Not writable: a folder that does not exist, a file in the way of the folder, a folder as the
  // output, a place even root cannot write to: exit 3.
  expect_rejected(
      "--input " + quoted(in) + " --output " + quoted(testing::fresh_path("nowhere") + "/out.h5"),
      3, {"cannot write", "nowhere/out.h5"});
  const std::string file_as_folder = testing::fresh_path("plain_file");
  write_file(file_as_folder, "x");
  expect_rejected("--input " + quoted(in) + " --output " + quoted(file_as_folder + "/out.csv"), 3,
                  {"cannot write", "plain_file/out.csv"});
  const std::string folder = testing::fresh_path("folder.h5");
  fs::create_directory(folder);
  expect_rejected("--input " + quoted(in) + " --output " + quoted(folder), 3,
                  {"cannot write", "folder.h5"});
  EXPECT_TRUE(fs::is_directory(folder));
  expect_rejected("--input " + quoted(in) + " --output /proc/mlfma2d_out.csv", 3,
                  {"cannot write", "/proc/mlfma2d_out.csv"});
  EXPECT_FALSE(fs::exists("/proc/mlfma2d_out.csv"));
  // generate: the same checks.
  const AppRun g = run_app("generate --shape uniform --n 10 --output " +
                           quoted(testing::fresh_path("nowhere2") + "/g.h5"));
  EXPECT_EQ(g.code, 3) << describe(g);
  EXPECT_EQ(std::count(g.err.begin(), g.err.end(), '\n'), 1) << describe(g);
}

#endif  // MLFMA2D_APP

}  // namespace
}  // namespace mlfma2d
