// A CUDA error in the middle of a run: a typed CudaError from the library, exit code 4 and no
// output file from the program. The fault is injected with MLFMA2D_FAULT_INJECT=kernel-launch
// (nearfield/cuda/indexing.cu), which makes a kernel launch fail for real.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

bool have_gpu(std::string* why) {
  return near_field_backend_available("indexing", why);
}

struct FaultInjection {
  FaultInjection() { ::setenv("MLFMA2D_FAULT_INJECT", "kernel-launch", 1); }
  ~FaultInjection() { ::unsetenv("MLFMA2D_FAULT_INJECT"); }
};

TEST(GpuErrors, CudaErrorMidRunIsATypedException) {
  std::string why;
  if (!have_gpu(&why)) GTEST_SKIP() << why;
  const PointSet p = testing::make_points("uniform", 5000);
  Options o;
  o.backend = "indexing";
  Solver solver(p.x, p.y, o);
  const Result good = solver.evaluate(p.q);  // works without the fault
  EXPECT_EQ(good.potential.size(), 5000u);
  FaultInjection fault;
  try {
    solver.evaluate(p.q);
    FAIL() << "no exception";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("indexing_kernel"), std::string::npos) << e.what();
  }
}

#ifdef MLFMA2D_APP
TEST(GpuErrors, CudaErrorMidRunExitsWith4AndWritesNothing) {
  std::string why;
  if (!have_gpu(&why)) GTEST_SKIP() << why;
  namespace fs = std::filesystem;
  const std::string dir = testing::temp_dir();
  const std::string in = dir + "/gpu_err_in.h5", out = dir + "/gpu_err_out.h5";
  write_points(in, testing::make_points("uniform", 3000));
  fs::remove(out);
  const std::string cmd = std::string("MLFMA2D_FAULT_INJECT=kernel-launch ") + MLFMA2D_APP +
                          " --input " + in + " --backend indexing --output " + out + " --quiet > " +
                          dir + "/gpu_err.txt 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 4);
  EXPECT_FALSE(fs::exists(out));
  std::ifstream log(dir + "/gpu_err.txt");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("mlfma2d: error:"), std::string::npos) << text;
}
#endif

}  // namespace
}  // namespace mlfma2d
