#include "tests/mpi_test_util.hpp"

#include <cmath>
#include <iostream>

namespace mlfma2d::testing {

int mpi_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int mpi_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

namespace {
// A rank's failures, prefixed with the rank (the others' reports would interleave with rank 0's).
class RankFailures : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailures(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::cerr << "[rank " << rank_ << "] " << (r.file_name() ? r.file_name() : "") << ":"
                << r.line_number() << ": " << r.summary() << std::endl;
  }

 private:
  int rank_;
};
}  // namespace

int mpi_test_main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  const int rank = mpi_rank();
  if (rank != 0) {
    ::testing::TestEventListeners& l = ::testing::UnitTest::GetInstance()->listeners();
    delete l.Release(l.default_result_printer());
    l.Append(new RankFailures(rank));
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && failed) std::cerr << "a test failed on some rank" << std::endl;
  MPI_Finalize();
  return failed;
}

namespace {
// The rank that passes point i: scattered, never `none` (when there is another rank).
int part_of(std::size_t i, int salt, int none, int ranks) {
  int r = int((i * 7919 + std::size_t(salt)) % std::size_t(ranks));
  if (r == none && ranks > 1) r = (r + 1) % ranks;
  return r;
}
}  // namespace

Part take_part(const std::vector<double>& x, const std::vector<double>& y, int salt, int none) {
  const int rank = mpi_rank(), n = mpi_size();
  Part p;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (part_of(i, salt, none, n) != rank) continue;
    p.index.push_back(i);
    p.x.push_back(x[i]);
    p.y.push_back(y[i]);
  }
  return p;
}

std::vector<std::vector<std::size_t>> all_parts(std::size_t n, int salt, int none) {
  std::vector<std::vector<std::size_t>> parts(static_cast<std::size_t>(mpi_size()));
  for (std::size_t i = 0; i < n; ++i) parts[part_of(i, salt, none, mpi_size())].push_back(i);
  return parts;
}

std::vector<double> part_rows(const std::vector<double>& v, int nd, std::size_t n,
                              const Part& part) {
  std::vector<double> out;
  for (int d = 0; d < nd; ++d)
    for (std::size_t i : part.index) out.push_back(v[std::size_t(d) * n + i]);
  return out;
}

double global_rel_l2(const std::vector<double>& value, const std::vector<double>& reference) {
  double s[2] = {0, 0};
  for (std::size_t i = 0; i < value.size(); ++i) {
    s[0] += (value[i] - reference[i]) * (value[i] - reference[i]);
    s[1] += reference[i] * reference[i];
  }
  MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s[1] > 0 ? std::sqrt(s[0] / s[1]) : std::sqrt(s[0]);
}

void expect_outputs_near(const Result& r, const Result& ref, int nd, std::size_t n,
                         const Part& part, double tolerance, const std::string& what) {
  const std::size_t m = part.index.size();
  auto check = [&](const std::vector<double>& got, const std::vector<double>& want,
                   const char* name) {
    if (want.empty()) return;
    // A wrong size fails here and compares NaNs below: every rank still joins the reductions.
    EXPECT_EQ(got.size(), std::size_t(nd) * m) << what << ": " << name;
    const bool sized = got.size() == std::size_t(nd) * m;
    for (int d = 0; d < nd; ++d) {
      const std::vector<double> g =
          sized ? std::vector<double>(got.begin() + std::ptrdiff_t(d * m),
                                      got.begin() + std::ptrdiff_t((d + 1) * m))
                : std::vector<double>(m, NAN);
      std::vector<double> w;
      for (std::size_t i : part.index) w.push_back(want[std::size_t(d) * n + i]);
      const double e = global_rel_l2(g, w);
      EXPECT_LE(e, tolerance) << what << ": " << name << " of density " << d;
    }
  };
  check(r.potential, ref.potential, "potential");
  check(r.field_x, ref.field_x, "field x");
  check(r.field_y, ref.field_y, "field y");
  check(r.hessian_xx, ref.hessian_xx, "hessian xx");
  check(r.hessian_xy, ref.hessian_xy, "hessian xy");
  check(r.hessian_yy, ref.hessian_yy, "hessian yy");
}

}  // namespace mlfma2d::testing
