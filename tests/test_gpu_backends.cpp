// The CUDA back ends 'indexing' and 'repetition' against the cpu reference, chunked and not, in
// the full solver, and with a device-memory budget too small. Every test skips, with the
// reason, where no CUDA device is found.
#include <gtest/gtest.h>

#ifdef MLFMA2D_WITH_CUDA

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "mlfma2d/errors.hpp"
#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "nearfield/backend.hpp"
#include "solver/plan.hpp"
#include "solver/tree.hpp"
#include "tests/near_field_geometry.hpp"

namespace mlfma2d {
namespace {

#define REQUIRE_CUDA_DEVICE()                                \
  do {                                                       \
    std::string why_;                                        \
    if (cuda_device_count(&why_) == 0) GTEST_SKIP() << why_; \
  } while (0)

using testing::Geometry;

void make_geometry(Geometry* g, const std::string& shape, std::size_t n, bool separate, int ct,
                   int offset) {
  testing::make_geometry(g, shape, n, separate, ct, offset, 21);
}

struct Sums {
  std::vector<double> phi, ex, ey;
  NearFieldTimings timings;
};

/// Near-field sums of back end `name` for charges q (default: the geometry's).
Sums run(const std::string& name, const Geometry& g, bool field, std::size_t chunk_targets = 0,
         std::size_t gpu_memory = 0, const std::vector<double>* q = nullptr) {
  NearFieldProblem p = g.problem;
  p.field = field;
  p.chunk_targets = chunk_targets;
  p.gpu_memory = gpu_memory;
  auto backend = make_near_field_backend(name);
  EXPECT_EQ(backend->name(), name);
  backend->setup(p);
  const std::size_t nt = g.tree.n_targets();
  Sums s{std::vector<double>(nt, NAN),
         std::vector<double>(field ? nt : 0, NAN),
         std::vector<double>(field ? nt : 0, NAN),
         {}};
  backend->evaluate(q ? q->data() : g.pts.q.data(), s.phi.data(), field ? s.ex.data() : nullptr,
                    field ? s.ey.data() : nullptr, &s.timings);
  return s;
}

/// max |a - b| / max |b|: the sums may differ in summation order and the last bit of log.
double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0, m = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (std::isnan(a[i])) return INFINITY;  // a target never written
    d = std::max(d, std::abs(a[i] - b[i]));
    m = std::max(m, std::abs(b[i]));
  }
  return m > 0 ? d / m : d;
}

void expect_equivalent(const Sums& s, const Sums& ref, bool field) {
  EXPECT_LE(rel_diff(s.phi, ref.phi), 1e-12);
  if (field) {
    EXPECT_LE(rel_diff(s.ex, ref.ex), 1e-12);
    EXPECT_LE(rel_diff(s.ey, ref.ey), 1e-12);
  }
}

struct Case {
  std::string backend, shape;
  bool separate;
};

class GpuBackendTest : public ::testing::TestWithParam<Case> {};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.backend + "_" + info.param.shape +
         (info.param.separate ? "_separate_targets" : "_self");
}

/// CT 1, 15, 200 x level offsets -2..+3 x sizes from one point (empty and one-point boxes in
/// deep trees) to 1000, potential and field.
TEST_P(GpuBackendTest, IsEquivalentToReference) {
  REQUIRE_CUDA_DEVICE();
  const Case& c = GetParam();
  for (int ct : {1, 15, 200}) {
    for (int offset = -2; offset <= 3; ++offset) {
      for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(1000)}) {
        SCOPED_TRACE("ct " + std::to_string(ct) + ", offset " + std::to_string(offset) + ", n " +
                     std::to_string(n));
        Geometry g;
        make_geometry(&g, c.shape, n, c.separate, ct, offset);
        for (bool field : {false, true}) {
          SCOPED_TRACE(field ? "field" : "potential");
          expect_equivalent(run(c.backend, g, field), run("cpu", g, field), field);
          if (HasFailure()) return;
        }
      }
    }
  }
}

/// Forced small chunks give exactly the one-chunk answer (each target is summed by the same
/// code in the same order whatever its chunk), through chunk_targets and through gpu_memory.
TEST_P(GpuBackendTest, ChunkedIsEquivalentToReference) {
  REQUIRE_CUDA_DEVICE();
  const Case& c = GetParam();
  Geometry g;
  make_geometry(&g, c.shape, 20000, c.separate, 15, 0);
  const Sums one = run(c.backend, g, true);
  EXPECT_EQ(one.timings.chunks, 1u);
  expect_equivalent(one, run("cpu", g, true), true);
  for (std::size_t cap : {std::size_t(1), std::size_t(37), std::size_t(4000)}) {
    SCOPED_TRACE("chunk_targets " + std::to_string(cap));
    const Sums s = run(c.backend, g, true, cap);
    EXPECT_GT(s.timings.chunks, 1u);
    EXPECT_EQ(s.phi, one.phi);
    EXPECT_EQ(s.ex, one.ex);
    EXPECT_EQ(s.ey, one.ey);
  }
  // A budget of the resident arrays plus a quarter of the one-chunk arrays forces >= 4 chunks.
  const std::size_t nt = g.tree.n_targets(), ns = g.tree.n_sources();
  const std::size_t resident = c.backend == "indexing" ? 8 * (2 * nt + 3 * ns + 3 * nt) : 0;
  const std::size_t budget = resident + (one.timings.device_bytes - resident) / 4;
  SCOPED_TRACE("gpu_memory " + std::to_string(budget));
  const Sums s = run(c.backend, g, true, 0, budget);
  EXPECT_GE(s.timings.chunks, 4u);
  EXPECT_LE(s.timings.device_bytes, budget);
  EXPECT_EQ(s.phi, one.phi);
  EXPECT_EQ(s.ex, one.ex);
  EXPECT_EQ(s.ey, one.ey);
}

INSTANTIATE_TEST_SUITE_P(
    Sets, GpuBackendTest,
    ::testing::Values(Case{"indexing", "uniform", false}, Case{"indexing", "disk", false},
                      Case{"indexing", "circle", false}, Case{"indexing", "clusters", false},
                      Case{"indexing", "uniform", true}, Case{"indexing", "circle", true},
                      Case{"repetition", "uniform", false}, Case{"repetition", "disk", false},
                      Case{"repetition", "circle", false}, Case{"repetition", "clusters", false},
                      Case{"repetition", "uniform", true}, Case{"repetition", "circle", true}),
    case_name);

class GpuBackendByName : public ::testing::TestWithParam<std::string> {};

/// A larger set (N = 2e5) at the papers' CT 15, levels 0 and +1.
TEST_P(GpuBackendByName, LargeUniformIsEquivalentToReference) {
  REQUIRE_CUDA_DEVICE();
  for (int offset : {0, 1}) {
    SCOPED_TRACE("offset " + std::to_string(offset));
    Geometry g;
    make_geometry(&g, "uniform", 200000, false, 15, offset);
    const Sums s = run(GetParam(), g, true);
    expect_equivalent(s, run("cpu", g, true), true);
    const NearFieldTimings& t = s.timings;
    EXPECT_GT(t.collect, 0);
    EXPECT_GT(t.transfer, 0);
    EXPECT_GT(t.kernel, 0);
    EXPECT_GT(t.ret, 0);
    EXPECT_GE(t.total, std::max({t.collect, t.transfer, t.kernel, t.ret}));
    EXPECT_GT(t.device_bytes, 0u);
    EXPECT_GE(t.chunks, 1u);
  }
}

/// One setup, several charge vectors: buffers are reused and nothing of the last call leaks.
TEST_P(GpuBackendByName, RepeatedEvaluationsAreEquivalentToReference) {
  REQUIRE_CUDA_DEVICE();
  Geometry g;
  make_geometry(&g, "clusters", 30000, true, 15, 1);
  NearFieldProblem p = g.problem;
  p.field = true;
  p.chunk_targets = 5000;  // several chunks, so the two staging buffers alternate
  auto gpu = make_near_field_backend(GetParam());
  auto cpu = make_near_field_backend("cpu");
  gpu->setup(p);
  cpu->setup(p);
  const std::size_t nt = g.tree.n_targets();
  for (int k = 0; k < 3; ++k) {
    std::vector<double> q = g.pts.q;
    for (std::size_t j = 0; j < q.size(); ++j) q[j] = std::sin(double(j) * (k + 1)) + 0.1 * k;
    Sums s{std::vector<double>(nt), std::vector<double>(nt), std::vector<double>(nt), {}};
    Sums r = s;
    gpu->evaluate(q.data(), s.phi.data(), s.ex.data(), s.ey.data(), &s.timings);
    cpu->evaluate(q.data(), r.phi.data(), r.ex.data(), r.ey.data(), &r.timings);
    SCOPED_TRACE("evaluation " + std::to_string(k));
    expect_equivalent(s, r, true);
    EXPECT_GT(s.timings.chunks, 1u);
  }
}

/// The whole solver with the GPU near field: within eps of direct summation, and equal to the
/// solver with the cpu near field (the far field is the same code).
TEST_P(GpuBackendByName, SolverIsWithinEpsOfDirectSum) {
  REQUIRE_CUDA_DEVICE();
  const PointSet pts = generate_points("uniform", 50000, 5);
  std::vector<std::size_t> which;
  for (std::size_t i = 0; i < pts.x.size(); i += 37) which.push_back(i);
  std::vector<double> ref;
  direct_sum(pts.x, pts.y, pts.q, pts.x, pts.y, which, &ref, nullptr, nullptr);
  for (double eps : {1e-6, 1e-10}) {
    SCOPED_TRACE("eps " + std::to_string(eps));
    Options o;
    o.eps = eps;
    o.field = true;
    o.backend = GetParam();
    Solver gpu(pts.x, pts.y, o);
    const Result r = gpu.evaluate(pts.q);
    std::vector<double> sample;
    for (std::size_t i : which) sample.push_back(r.potential[i]);
    EXPECT_LE(error_norms(sample, ref).rel_l2, eps);
    EXPECT_GT(gpu.stats().device_memory, 0u);
    o.backend = "cpu";
    Solver cpu(pts.x, pts.y, o);
    const Result c = cpu.evaluate(pts.q);
    EXPECT_LE(rel_diff(r.potential, c.potential), 1e-12);
    EXPECT_LE(rel_diff(r.field_x, c.field_x), 1e-12);
    EXPECT_LE(rel_diff(r.field_y, c.field_y), 1e-12);
  }
}

/// A budget below one leaf's needs is a RuntimeFailure that says so, never a crash.
TEST_P(GpuBackendByName, TinyBudgetIsRuntimeFailure) {
  REQUIRE_CUDA_DEVICE();
  const std::string name = GetParam();
  Geometry g;
  make_geometry(&g, "uniform", 5000, false, 15, 0);
  try {
    run(name, g, false, 0, 1000);
    FAIL() << "no exception for a 1000-byte budget";
  } catch (const RuntimeFailure& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("back end '" + name + "': "), std::string::npos) << m;
    EXPECT_NE(m.find("MB of device memory but only 0.0 MB are available"), std::string::npos) << m;
  }
  Options o;
  o.backend = name;
  o.gpu_memory = 1000;
  EXPECT_THROW(
      {
        Solver s(g.pts.x, g.pts.y, o);
        s.evaluate(g.pts.q);
      },
      RuntimeFailure);
}

INSTANTIATE_TEST_SUITE_P(Backends, GpuBackendByName,
                         ::testing::Values(std::string("indexing"), std::string("repetition")));

}  // namespace
}  // namespace mlfma2d

#else  // MLFMA2D_WITH_CUDA

TEST(GpuBackends, NeedCuda) {
  GTEST_SKIP() << "built without CUDA";
}

#endif  // MLFMA2D_WITH_CUDA
