// Uses the installed package's distributed solver (a build with MPI): the package brings MPI along
// (find_dependency), so linking mlfma2d::mlfma2d is all a consumer writes. Run as one process
// (MPI's singleton start), checked against direct summation.
#include <cmath>
#include <cstdio>
#include <mlfma2d/distributed.hpp>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int status = 1;
  {
    std::vector<double> x, y, q;
    for (int i = 0; i < 2000; ++i) {
      x.push_back(std::fmod(i * 0.618033988749895, 1.0));
      y.push_back(std::fmod(i * 0.754877666246693, 1.0));
      q.push_back(std::cos(i));
    }
    mlfma2d::Options opt;
    opt.eps = 1e-8;
    opt.ct = 32;
    opt.backend = "cpu";
    mlfma2d::DistributedSolver solver(MPI_COMM_WORLD, x, y, opt);
    const mlfma2d::Result r = solver.evaluate(q);
    std::vector<double> ref;
    mlfma2d::direct_sum(x, y, q, x, y, {}, &ref, nullptr, nullptr);
    const double err = mlfma2d::error_norms(r.potential, ref).rel_l2;
    std::printf("mlfma2d %s over %d rank(s): relative L2 error %.2e\n", mlfma2d::version(),
                solver.figures().ranks, err);
    status = err <= 1e-8 ? 0 : 1;
  }
  MPI_Finalize();
  return status;
}
