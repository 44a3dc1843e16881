// Uses the installed package's distributed solver (a build with MPI): the package brings MPI along
// (find_dependency), so linking mlfma2d::mlfma2d is all a consumer writes. Run as one process
// (MPI's singleton start), checked against direct summation.
#include <cmath>
#include <cstdio>
#include <mlfma2d/distributed.hpp>

#include "points.hpp"

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int status = 1;
  {
    const Points p = kronecker_points(2000, [](double i) { return std::cos(i); });
    mlfma2d::Options opt;
    opt.eps = 1e-8;
    opt.ct = 32;
    opt.backend = "cpu";
    mlfma2d::DistributedSolver solver(MPI_COMM_WORLD, p.x, p.y, opt);
    const double err = error_against_direct_sum(p, solver.evaluate(p.q));
    std::printf("mlfma2d %s over %d rank(s): relative L2 error %.2e\n", mlfma2d::version(),
                solver.figures().ranks, err);
    status = err <= 1e-8 ? 0 : 1;
  }
  MPI_Finalize();
  return status;
}
