// The CUDA back ends 'shared' and 'repetition-gpu' against the cpu reference: point sets, CT,
// level offsets, tiny sets, forced chunks, geometry reuse with new charges, every block layout
// of 'shared', the full solver, and a device-memory budget too small. Every test skips, with
// the reason, where no CUDA device is found.
#include <gtest/gtest.h>

#ifdef MLFMA2D_WITH_CUDA

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mlfma2d/errors.hpp"
#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/cuda/fast_backends.hpp"
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
  testing::make_geometry(g, shape, n, separate, ct, offset, 41);
}

struct Sums {
  std::vector<double> phi, ex, ey;
  NearFieldTimings timings;
};

/// Outputs poisoned with NaN, so a target never written shows.
Sums poisoned(std::size_t nt, bool field) {
  return Sums{std::vector<double>(nt, NAN),
              std::vector<double>(field ? nt : 0, NAN),
              std::vector<double>(field ? nt : 0, NAN),
              {}};
}

void evaluate(NearFieldBackend* b, const std::vector<double>& q, bool field, Sums* s) {
  b->evaluate(q.data(), s->phi.data(), field ? s->ex.data() : nullptr,
              field ? s->ey.data() : nullptr, &s->timings);
}

/// Near-field sums of a back end (made by `make`) for the geometry's charges.
template <class Make>
Sums run_with(Make&& make, const Geometry& g, bool field, std::size_t chunk_targets = 0,
              std::size_t gpu_memory = 0) {
  NearFieldProblem p = g.problem;
  p.field = field;
  p.chunk_targets = chunk_targets;
  p.gpu_memory = gpu_memory;
  std::unique_ptr<NearFieldBackend> backend = make();
  backend->setup(p);
  Sums s = poisoned(g.tree.n_targets(), field);
  evaluate(backend.get(), g.pts.q, field, &s);
  return s;
}

Sums run(const std::string& name, const Geometry& g, bool field, std::size_t chunk_targets = 0,
         std::size_t gpu_memory = 0) {
  return run_with(
      [&] {
        auto b = make_near_field_backend(name);
        EXPECT_EQ(b->name(), name);
        return b;
      },
      g, field, chunk_targets, gpu_memory);
}

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

class GpuFastTest : public ::testing::TestWithParam<Case> {};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string b = info.param.backend;
  std::replace(b.begin(), b.end(), '-', '_');
  return b + "_" + info.param.shape + (info.param.separate ? "_separate_targets" : "_self");
}

/// CT 1, 15, 200 x level offsets -2..+3 x sizes 1, 2, 7, 1000: one-point and empty boxes in deep
/// trees, dense one-leaf groups with several tiles and batches in shallow ones.
TEST_P(GpuFastTest, IsEquivalentToReference) {
  REQUIRE_CUDA_DEVICE();
  const Case& c = GetParam();
  for (int ct : {1, 15, 200}) {
    for (int offset = -2; offset <= 3; ++offset) {
      for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(7), std::size_t(1000)}) {
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

/// One setup, several charge vectors (the geometry stays on the device): each call matches the
/// cpu back end for its own charges.
TEST_P(GpuFastTest, GeometryReuseWithNewChargesIsEquivalentToReference) {
  REQUIRE_CUDA_DEVICE();
  const Case& c = GetParam();
  Geometry g;
  make_geometry(&g, c.shape, 30000, c.separate, 15, 1);
  NearFieldProblem p = g.problem;
  p.field = true;
  if (c.backend == "repetition-gpu") p.chunk_targets = 5000;  // several chunks, buffers reused
  auto gpu = make_near_field_backend(c.backend);
  auto cpu = make_near_field_backend("cpu");
  gpu->setup(p);
  cpu->setup(p);
  const std::size_t nt = g.tree.n_targets();
  for (int k = 0; k < 3; ++k) {
    std::vector<double> q = g.pts.q;
    for (std::size_t j = 0; j < q.size(); ++j) q[j] = std::sin(double(j) * (k + 1)) + 0.1 * k;
    Sums s = poisoned(nt, true), r = poisoned(nt, true);
    evaluate(gpu.get(), q, true, &s);
    evaluate(cpu.get(), q, true, &r);
    SCOPED_TRACE("evaluation " + std::to_string(k));
    expect_equivalent(s, r, true);
    EXPECT_GT(s.timings.kernel, 0);
    EXPECT_GT(s.timings.device_bytes, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Sets, GpuFastTest,
    ::testing::Values(
        Case{"shared", "uniform", false}, Case{"shared", "disk", false},
        Case{"shared", "circle", false}, Case{"shared", "clusters", false},
        Case{"shared", "uniform", true}, Case{"shared", "circle", true},
        Case{"repetition-gpu", "uniform", false}, Case{"repetition-gpu", "disk", false},
        Case{"repetition-gpu", "circle", false}, Case{"repetition-gpu", "clusters", false},
        Case{"repetition-gpu", "uniform", true}, Case{"repetition-gpu", "circle", true}),
    case_name);

/// 'shared' in each block layout (the registered one and the two the benchmark compares).
TEST(GpuShared, EveryBlockLayoutIsEquivalentToReference) {
  REQUIRE_CUDA_DEVICE();
  struct Config {
    std::string shape;
    int ct, offset;
  };
  // CT 200 at offset -2: leaves of ~1000 targets with E1 unions of several 1024-source tiles.
  for (const Config& c :
       {Config{"uniform", 15, 0}, Config{"uniform", 64, 0}, Config{"uniform", 200, -2},
        Config{"clusters", 15, 0}, Config{"clusters", 200, 0}}) {
    SCOPED_TRACE(c.shape + ", ct " + std::to_string(c.ct) + ", offset " + std::to_string(c.offset));
    Geometry g;
    make_geometry(&g, c.shape, 20000, false, c.ct, c.offset);
    for (cuda::SharedMode mode : {cuda::SharedMode::kGroups, cuda::SharedMode::kGroupsUnsorted,
                                  cuda::SharedMode::kLeaves}) {
      SCOPED_TRACE(cuda::shared_mode_name(mode));
      for (bool field : {false, true}) {
        expect_equivalent(run_with([&] { return make_shared_backend(mode); }, g, field),
                          run("cpu", g, field), field);
      }
    }
  }
}

/// Forced chunks (chunk_targets 1, 37, 4000; a small gpu_memory budget) give exactly the
/// one-chunk answer, and exactly the 'repetition' back end's: the same records (built on the
/// GPU instead of the host) summed by the same kernel.
TEST(GpuRepetitionGpu, ChunkedEqualsOneChunkAndRepetition) {
  REQUIRE_CUDA_DEVICE();
  for (std::size_t n : {std::size_t(300), std::size_t(20000)}) {
    SCOPED_TRACE("n " + std::to_string(n));
    Geometry g;
    make_geometry(&g, "clusters", n, false, 15, 0);
    const Sums one = run("repetition-gpu", g, true);
    EXPECT_EQ(one.timings.chunks, 1u);
    expect_equivalent(one, run("cpu", g, true), true);
    const Sums rep = run("repetition", g, true);
    EXPECT_EQ(one.phi, rep.phi);
    EXPECT_EQ(one.ex, rep.ex);
    EXPECT_EQ(one.ey, rep.ey);
    for (std::size_t cap : {std::size_t(1), std::size_t(37), std::size_t(4000)}) {
      if (cap == 1 && n > 1000) continue;  // one launch per target: slow, nothing new
      SCOPED_TRACE("chunk_targets " + std::to_string(cap));
      const Sums s = run("repetition-gpu", g, true, cap);
      EXPECT_EQ(s.timings.chunks, (g.tree.n_targets() + cap - 1) / cap);
      EXPECT_EQ(s.phi, one.phi);
      EXPECT_EQ(s.ex, one.ex);
      EXPECT_EQ(s.ey, one.ey);
    }
    // The resident arrays plus a quarter of the one-chunk record buffer: >= 4 chunks.
    const std::size_t record = 8 * (3 + 27 * g.tree.t) + 3 * 8;
    const std::size_t resident = one.timings.device_bytes - g.tree.n_targets() * record;
    const std::size_t budget = resident + g.tree.n_targets() * record / 4;
    SCOPED_TRACE("gpu_memory " + std::to_string(budget));
    const Sums s = run("repetition-gpu", g, true, 0, budget);
    EXPECT_GE(s.timings.chunks, 4u);
    EXPECT_LE(s.timings.device_bytes, budget);
    EXPECT_EQ(s.phi, one.phi);
    EXPECT_EQ(s.ex, one.ex);
    EXPECT_EQ(s.ey, one.ey);
  }
}

class GpuFastByName : public ::testing::TestWithParam<std::string> {};

/// N = 2e5 uniform at CT 15 (levels 0, +1) and CT 64: equivalent, every phase timed.
TEST_P(GpuFastByName, LargeUniformIsEquivalentToReference) {
  REQUIRE_CUDA_DEVICE();
  for (auto [ct, offset] : {std::pair<int, int>{15, 0}, {15, 1}, {64, 0}}) {
    SCOPED_TRACE("ct " + std::to_string(ct) + ", offset " + std::to_string(offset));
    Geometry g;
    make_geometry(&g, "uniform", 200000, false, ct, offset);
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

/// The whole solver with the GPU near field (overlapped with the CPU far field): within eps of
/// direct summation, and equal to the solver with the cpu near field.
TEST_P(GpuFastByName, SolverIsWithinEpsOfDirectSum) {
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
    Result r = gpu.evaluate(pts.q);
    r = gpu.evaluate(pts.q);  // a second evaluation on the same geometry
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

/// A budget below the resident geometry is a RuntimeFailure that says so, never a crash.
TEST_P(GpuFastByName, TinyBudgetIsRuntimeFailure) {
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

INSTANTIATE_TEST_SUITE_P(Backends, GpuFastByName,
                         ::testing::Values(std::string("shared"), std::string("repetition-gpu")),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string s = info.param;
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

}  // namespace
}  // namespace mlfma2d

#else  // MLFMA2D_WITH_CUDA

TEST(GpuFast, NeedCuda) {
  GTEST_SKIP() << "built without CUDA";
}

#endif  // MLFMA2D_WITH_CUDA
