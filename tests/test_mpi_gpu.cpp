// The distributed solver with every GPU back end, two ranks sharing the node's GPUs (each on the
// GPU of its node-local rank): equal to the one-process Solver with the same back end and to the
// cpu back end's distributed result. Skips, saying why, where no GPU back end can run.
#include <string>

#include "tests/mpi_test_util.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d::testing {
namespace {

TEST(DistributedGpu, EveryGpuBackEndEqualsTheOneProcessSolver) {
  std::vector<std::string> names;
  std::string why;
  for (const BackendInfo& b : near_field_backend_info()) {
    if (!b.runs_on_device) continue;
    if (b.available)
      names.push_back(b.name);
    else if (why.empty())
      why = b.why;
  }
  if (names.empty()) GTEST_SKIP() << "no GPU back end can run here: " << why;
  const std::size_t n = 30000;
  const PointSet pts = make_points("clusters", n, 21);
  const Part part = take_part(pts.x, pts.y, 5);
  const std::vector<double> q = part_rows(pts.q, 1, n, part);
  for (const std::string& name : names) {
    Options opt;
    opt.ct = 64;
    opt.field = true;
    opt.backend = name;
    Solver one(pts.x, pts.y, opt);
    const Result ref = one.evaluate(pts.q);
    DistributedSolver ds(MPI_COMM_WORLD, part.x, part.y, opt);
    const Result r = ds.evaluate(q);
    expect_outputs_near(r, ref, 1, n, part, 1e-10, "back end " + name);
    EXPECT_GE(ds.figures().device, 0) << name;
  }
}

}  // namespace
}  // namespace mlfma2d::testing

int main(int argc, char** argv) {
  return mlfma2d::testing::mpi_test_main(argc, argv);
}
