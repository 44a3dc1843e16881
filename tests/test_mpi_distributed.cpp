// The distributed solver under mpirun -np 1..4 (tests/CMakeLists.txt): every rank passes a
// scattered part of one global point set; the results at each rank's targets must equal the
// one-process Solver's on the whole set (the same tree when CT is given: to rounding) and the
// direct sums (to eps), on uniform, clustered and graded sets, with separate targets, a rank
// with no points, several densities with dipoles and the Hessian, and the figures sane.
#include <cmath>

#include "tests/mpi_test_util.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d::testing {
namespace {

// The one-process Solver and the distributed one on the same global points, this rank's part.
// Every case runs the cpu back end on one thread a rank (the ranks share two cores in CI; the GPU
// back ends over ranks are test_mpi_gpu's).
Options one_cpu_thread() {
  Options o;
  o.threads = 1;
  o.backend = "cpu";
  return o;
}

struct Case {
  std::string shape = "uniform";
  std::size_t n = 12000;
  std::string target_shape;  // "" = self-evaluation
  std::size_t m = 0;
  int none = -1;  // a rank that passes no points
  Options opt = one_cpu_thread();
};

// Charges (and dipoles) of nd densities for n points: the generator's charges, shifted per
// density so that the densities differ.
Densities strengths(const PointSet& pts, int nd, std::vector<double>* q, std::vector<double>* d,
                    std::vector<double>* v, bool per_density) {
  const std::size_t n = pts.x.size();
  q->clear();
  d->clear();
  for (int k = 0; k < nd; ++k)
    for (std::size_t j = 0; j < n; ++j) {
      q->push_back(pts.q[j] - 0.5 + 0.1 * k);
      d->push_back(std::cos(double(j) + k));
    }
  v->clear();
  for (int k = 0; k < (per_density ? 2 * nd : 2); ++k)
    for (std::size_t j = 0; j < n; ++j) v->push_back(std::sin(0.3 * double(j) + k));
  Densities s;
  s.charges = q->data();
  s.dipole_strengths = d->data();
  s.dipole_vectors = v->data();
  s.vectors_per_density = per_density;
  return s;
}

// Runs one case: the distributed result against the one-process Solver's (to `same`) and the
// direct sums on every 37th target (to eps, 5 eps for the Hessian's larger constants).
void run_case(const Case& c, double same, const std::string& what) {
  const PointSet src = make_points(c.shape, c.n, 3);
  const bool self = c.target_shape.empty();
  const PointSet tgt = self ? src : make_points(c.target_shape, c.m, 5);
  const int nd = c.opt.densities;
  const bool per_density = nd > 1;
  std::vector<double> q, d, v;
  const Densities all = strengths(src, nd, &q, &d, &v, per_density);
  // The one-process reference on the whole set, on every rank.
  const Options& one = c.opt;
  Solver solver = self ? Solver(src.x, src.y, one) : Solver(src.x, src.y, tgt.x, tgt.y, one);
  const Result ref = solver.evaluate(all);
  // This rank's part.
  const Part sp = take_part(src.x, src.y, 1, c.none);
  const Part tp = self ? sp : take_part(tgt.x, tgt.y, 2, c.none);
  std::vector<double> pq = part_rows(q, nd, c.n, sp), pd = part_rows(d, nd, c.n, sp),
                      pv = part_rows(v, per_density ? 2 * nd : 2, c.n, sp);
  Densities mine;
  mine.charges = pq.data();
  mine.dipole_strengths = pd.data();
  mine.dipole_vectors = pv.data();
  mine.vectors_per_density = per_density;
  DistributedSolver ds = self ? DistributedSolver(MPI_COMM_WORLD, sp.x, sp.y, c.opt)
                              : DistributedSolver(MPI_COMM_WORLD, sp.x, sp.y, tp.x, tp.y, c.opt);
  const Result r = ds.evaluate(mine);
  const std::size_t nt = self ? c.n : c.m;
  expect_outputs_near(r, ref, nd, nt, tp, same, what + ", against the one-process Solver");
  // The direct sums at a sample of the targets.
  std::vector<std::size_t> which;
  for (std::size_t i = 0; i < nt; i += 37) which.push_back(i);
  DirectOptions o;
  o.densities = nd;
  o.charges = c.opt.charges;
  o.dipoles = c.opt.dipoles;
  o.field = c.opt.field;
  o.hessian = c.opt.hessian;
  Result direct;
  const std::size_t k = which.size() * std::size_t(nd);
  direct.potential.resize(k);
  Outputs out{direct.potential.data()};
  if (o.field) {
    direct.field_x.resize(k), direct.field_y.resize(k);
    out.field_x = direct.field_x.data(), out.field_y = direct.field_y.data();
  }
  if (o.hessian) {
    direct.hessian_xx.resize(k), direct.hessian_xy.resize(k), direct.hessian_yy.resize(k);
    out.hessian_xx = direct.hessian_xx.data(), out.hessian_xy = direct.hessian_xy.data();
    out.hessian_yy = direct.hessian_yy.data();
  }
  direct_sum(src.x, src.y, tgt.x, tgt.y, all, o, which, out);
  // The distributed values at the sample: the sampled targets this rank holds.
  Part sample;
  std::vector<std::size_t> at;  // position in this rank's part
  for (std::size_t j = 0; j < tp.index.size(); ++j)
    if (tp.index[j] % 37 == 0) {
      sample.index.push_back(tp.index[j] / 37);
      at.push_back(j);
    }
  auto pick = [&](const std::vector<double>& a) {
    std::vector<double> out;
    if (a.empty()) return out;
    for (int dd = 0; dd < nd; ++dd)
      for (std::size_t j : at) out.push_back(a[std::size_t(dd) * tp.index.size() + j]);
    return out;
  };
  Result got{pick(r.potential),  pick(r.field_x),    pick(r.field_y),
             pick(r.hessian_xx), pick(r.hessian_xy), pick(r.hessian_yy)};
  const double eps = c.opt.eps * (c.opt.hessian ? 5 : 1);
  expect_outputs_near(got, direct, nd, which.size(), sample, eps, what + ", against direct sums");
}

TEST(Distributed, UniformEqualsOneProcessSolver) {
  Case c;
  c.opt.ct = 32;
  c.opt.field = true;
  run_case(c, 1e-12, "uniform, CT 32");
}

TEST(Distributed, ClusteredWithSeparateTargets) {
  Case c;
  c.shape = "clusters";
  c.target_shape = "uniform";
  c.m = 7000;
  c.opt.ct = 24;
  c.opt.field = true;
  run_case(c, 1e-12, "clusters to separate targets, CT 24");
}

TEST(Distributed, GradedPolygon) {
  Case c;
  c.shape = "graded-polygon";
  c.opt.ct = 16;
  c.opt.eps = 1e-9;
  run_case(c, 1e-12, "graded polygon, CT 16, eps 1e-9");
}

TEST(Distributed, UniformTreeWithLevelOffset) {
  Case c;
  c.opt.tree = "uniform";
  c.opt.level_offset = 1;  // the papers' settings: CT 15, one level finer
  run_case(c, 1e-12, "the papers' uniform tree");
}

TEST(Distributed, ARankWithNoPoints) {
  Case self;
  self.none = mpi_size() > 1 ? 1 : -1;
  self.opt.ct = 32;
  run_case(self, 1e-12, "self-evaluation, rank 1 without points");
  Case separate = self;
  separate.shape = "disk";
  separate.target_shape = "circle";
  separate.m = 3000;
  run_case(separate, 1e-12, "separate targets, rank 1 without points");
}

TEST(Distributed, DensitiesDipolesAndHessian) {
  Case c;
  c.n = 8000;
  c.opt.ct = 32;
  c.opt.densities = 3;
  c.opt.dipoles = true;
  c.opt.field = true;
  c.opt.hessian = true;
  run_case(c, 1e-12, "nd 3, charges and dipoles, the field and the Hessian");
}

TEST(Distributed, LeafCapacityChosenByTheCostModel) {
  Case c;  // ct auto: chosen on the global shape from rank 0's constants
  c.opt.eps = 1e-8;
  run_case(c, 2e-8, "CT chosen");
}

}  // namespace
}  // namespace mlfma2d::testing

int main(int argc, char** argv) {
  return mlfma2d::testing::mpi_test_main(argc, argv);
}
