#pragma once
// Helpers shared by the tests: point sets, direct reference sums, error norms, temporary files,
// expected errors, and running the mlfma2d program.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel/pair.hpp"
#include "mlfma2d/electrostatics.hpp"
#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d::testing {

/// The resident GPU kernels' log table (kernel/pair.hpp's TableHalfLog), staged as a block of 64
/// threads stages it (stage_half_log_table; the threads past the table write nothing).
TableHalfLog staged_half_log_table();

/// A point set of `shape` (see generate_points) with n points.
PointSet make_points(const std::string& shape, std::size_t n, std::uint64_t seed = 7);

/// nd densities of charges and dipoles (an orientation per density) on n clustered sources
/// (seed), with m uniform targets apart from them (target_seed).
PointSet mixed_sources_with_targets(int nd, std::size_t n, std::uint64_t seed, std::size_t m,
                                    std::uint64_t target_seed);

/// Direct-sum potential (and field if fx, fy non-null) of sources (x, y, q) at all targets.
void reference(const std::vector<double>& x, const std::vector<double>& y,
               const std::vector<double>& q, const std::vector<double>& tx,
               const std::vector<double>& ty, std::vector<double>* phi, std::vector<double>* fx,
               std::vector<double>* fy);

/// Relative L2 error of a 2-vector field (fx, fy) against (rx, ry).
double field_rel_l2(const std::vector<double>& fx, const std::vector<double>& fy,
                    const std::vector<double>& rx, const std::vector<double>& ry);

/// Sets the line parameters of one signal conductor (conductor 0) as the solver reports them:
/// C, C0 = C / eps_eff, L, Z0, eps_eff, velocity, and its one mode.
void set_one_signal_line(ElectrostaticSolution* s, double c, double inductance, double z0,
                         double eps_eff, double velocity);

/// Every array of a and b equal bit for bit (same_bits), and the same nd and layout.
void expect_same_points(const PointSet& a, const PointSet& b);

/// Bit-for-bit equality, so -0.0 and NaN payloads count too.
::testing::AssertionResult same_bits(const std::vector<double>& a, const std::vector<double>& b);

// ---- Files.

/// Directory for temporary test files (created; unique per process, removed at exit).
std::string temp_dir();
/// `name` in the temporary directory.
std::string temp_path(const std::string& name);
/// `name` in the temporary directory, any earlier file or folder of that name removed.
std::string fresh_path(const std::string& name);
/// The whole file ("" when it cannot be read).
std::string read_file(const std::string& path);
/// Writes `text` to `path` as it is (binary).
void write_file(const std::string& path, const std::string& text);
bool contains(const std::string& text, const std::string& part);
/// Every one of `parts` in `text`; a failure names each part missing and shows the text.
::testing::AssertionResult contains_all(const std::string& text,
                                        const std::vector<std::string>& parts);
/// Every dataset of an HDF5 file (absolute names).
std::vector<std::string> datasets(const std::string& path);
/// The names of the attributes on an HDF5 file's root group.
std::vector<std::string> root_attributes(const std::string& path);
/// A text attribute of `object` in an HDF5 file ("" when it is not there).
std::string text_attribute(const std::string& path, const std::string& object,
                           const std::string& name);

/// Runs f, expecting exception E (an mlfma2d::Error) with a one-line message containing every
/// one of `parts`.
template <class E>
void expect_error(const std::function<void()>& f, const std::vector<std::string>& parts) {
  static_assert(std::is_base_of_v<Error, E>, "library errors derive from mlfma2d::Error");
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning '" << parts.front() << "'";
  } catch (const E& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << "not one line: " << m;
    for (const auto& part : parts) {
      EXPECT_TRUE(contains(m, part)) << "'" << m << "' lacks '" << part << "'";
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

// ---- The program (MLFMA2D_APP, when it is built).

/// \brief What a run of the program did.
struct AppRun {
  int code = -1;  ///< exit code; -1 when it did not exit (a signal)
  std::string out, err;
};
/// Runs the program with `args` (shell words) and `environment` assignments ("VAR=value ...");
/// stdin is /dev/null, stdout and stderr are captured.
AppRun run_app(const std::string& args, const std::string& environment = "");
/// The exit code and both streams, for failure messages.
std::string describe(const AppRun& run);

}  // namespace mlfma2d::testing
