#include "tests/test_util.hpp"

#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace mlfma2d::testing {

TableHalfLog staged_half_log_table() {
  static double table[2 * kHalfLogTable];
  for (int tid = 0; tid < 64; ++tid) stage_half_log_table(table, tid);
  return TableHalfLog{table, table + kHalfLogTable};
}

namespace fs = std::filesystem;

PointSet make_points(const std::string& shape, std::size_t n, std::uint64_t seed) {
  return generate_points(shape, n, seed);
}

PointSet mixed_sources_with_targets(int nd, std::size_t n, std::uint64_t seed, std::size_t m,
                                    std::uint64_t target_seed) {
  GeneratedSources kinds;
  kinds.densities = nd;
  kinds.dipoles = true;
  kinds.vectors_per_density = true;
  PointSet p = generate_points("clusters", n, seed, kinds);
  const PointSet t = generate_points("uniform", m, target_seed);
  p.tx = t.x;
  p.ty = t.y;
  return p;
}

void reference(const std::vector<double>& x, const std::vector<double>& y,
               const std::vector<double>& q, const std::vector<double>& tx,
               const std::vector<double>& ty, std::vector<double>* phi, std::vector<double>* fx,
               std::vector<double>* fy) {
  direct_sum(x, y, q, tx, ty, {}, phi, fx, fy);
}

double field_rel_l2(const std::vector<double>& fx, const std::vector<double>& fy,
                    const std::vector<double>& rx, const std::vector<double>& ry) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < fx.size(); ++i) {
    num += (fx[i] - rx[i]) * (fx[i] - rx[i]) + (fy[i] - ry[i]) * (fy[i] - ry[i]);
    den += rx[i] * rx[i] + ry[i] * ry[i];
  }
  return std::sqrt(num / den);
}

void set_one_signal_line(ElectrostaticSolution* s, double c, double inductance, double z0,
                         double eps_eff, double velocity) {
  s->capacitance = {{c}};
  s->capacitance_conductors = {0};
  s->line.capacitance_vacuum = {{c / eps_eff}};
  s->line.inductance = {{inductance}};
  s->line.capacitance_mutual = {{0}};
  s->line.capacitance_to_ground = {c};
  s->line.z0 = z0;
  s->line.eps_eff = eps_eff;
  s->line.velocity = velocity;
  s->line.modes = {{velocity, eps_eff, z0, {1}}};
}

void expect_same_points(const PointSet& a, const PointSet& b) {
  EXPECT_TRUE(same_bits(a.x, b.x));
  EXPECT_TRUE(same_bits(a.y, b.y));
  EXPECT_TRUE(same_bits(a.q, b.q));
  EXPECT_TRUE(same_bits(a.tx, b.tx));
  EXPECT_TRUE(same_bits(a.ty, b.ty));
  EXPECT_EQ(a.densities, b.densities);
  EXPECT_TRUE(same_bits(a.dipole_strengths, b.dipole_strengths));
  EXPECT_TRUE(same_bits(a.dipole_vectors, b.dipole_vectors));
  EXPECT_EQ(a.vectors_per_density, b.vectors_per_density);
}

::testing::AssertionResult same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) {
    return ::testing::AssertionFailure() << "sizes " << a.size() << " vs " << b.size();
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) {
      return ::testing::AssertionFailure() << "entry " << i << ": " << a[i] << " vs " << b[i];
    }
  }
  return ::testing::AssertionSuccess();
}

std::string temp_dir() {
  // Never destroyed: the exit handler below runs after the destructors of statics constructed
  // later than its registration, this one included (a use after free, found by ASan).
  static const std::string& dir = *new std::string([] {
    auto p = fs::temp_directory_path() / ("mlfma2d-test-" + std::to_string(::getpid()));
    fs::create_directories(p);
    std::atexit([] {  // leave nothing behind in /tmp
      std::error_code ec;
      fs::remove_all(temp_dir(), ec);
    });
    return p.string();
  }());
  return dir;
}

std::string temp_path(const std::string& name) {
  return (fs::path(temp_dir()) / name).string();
}

std::string fresh_path(const std::string& name) {
  const std::string p = temp_path(name);
  fs::remove_all(p);
  return p;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

::testing::AssertionResult contains_all(const std::string& text,
                                        const std::vector<std::string>& parts) {
  std::string missing;
  for (const std::string& part : parts)
    if (!contains(text, part)) missing += " '" + part + "'";
  if (missing.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "lacks" << missing << " in:\n" << text;
}

std::vector<std::string> datasets(const std::string& path) {
  std::vector<std::string> names;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  H5Ovisit(
      f, H5_INDEX_NAME, H5_ITER_NATIVE,
      [](hid_t, const char* name, const H5O_info_t* info, void* out) -> herr_t {
        if (info->type == H5O_TYPE_DATASET) {
          static_cast<std::vector<std::string>*>(out)->push_back(std::string("/") + name);
        }
        return 0;
      },
      &names);
  H5Fclose(f);
  return names;
}

std::vector<std::string> root_attributes(const std::string& path) {
  std::vector<std::string> names;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  hsize_t at = 0;
  H5Aiterate_by_name(
      f, "/", H5_INDEX_NAME, H5_ITER_INC, &at,
      [](hid_t, const char* name, const H5A_info_t*, void* out) -> herr_t {
        static_cast<std::vector<std::string>*>(out)->push_back(name);
        return 0;
      },
      &names, H5P_DEFAULT);
  H5Fclose(f);
  return names;
}

std::string text_attribute(const std::string& path, const std::string& object,
                           const std::string& name) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t attr = H5Aopen_by_name(f, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  const hid_t type = attr >= 0 ? H5Aget_type(attr) : -1;
  char* text = nullptr;
  std::string out;
  if (type >= 0 && H5Tis_variable_str(type) > 0 && H5Aread(attr, type, &text) >= 0 && text) {
    out = text;
    H5free_memory(text);
  }
  if (type >= 0) H5Tclose(type);
  if (attr >= 0) H5Aclose(attr);
  H5Fclose(f);
  return out;
}

AppRun run_app(const std::string& args, const std::string& environment) {
#ifdef MLFMA2D_APP
  static int counter = 0;
  const std::string stem = temp_path("run" + std::to_string(++counter));
  const std::string command = environment + " '" + MLFMA2D_APP + "' " + args + " >'" + stem +
                              ".out' 2>'" + stem + ".err' </dev/null";
  const int status = std::system(command.c_str());
  AppRun r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(stem + ".out");
  r.err = read_file(stem + ".err");
  return r;
#else
  ADD_FAILURE() << "run_app(" << args << " " << environment << "): the program is not built";
  return {};
#endif
}

std::string describe(const AppRun& r) {
  return "exit " + std::to_string(r.code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

}  // namespace mlfma2d::testing
