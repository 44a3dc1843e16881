// Every CUDA back end of the registry against the cpu reference on the same trees (uniform and
// adaptive): point sets, CT, level offsets, tiny sets, forced chunks, geometry reuse with new
// charges, the full solver, and a device-memory budget too small. Every test skips, with the
// reason, where no CUDA device is found.
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
#include "nearfield/cuda/common/cuda_common.hpp"
#include "nearfield/cuda/repetition/repetition.hpp"
#include "nearfield/cuda/repetition_gpu/repetition_gpu.hpp"
#include "tests/gpu_test_util.hpp"
#include "tests/near_field_geometry.hpp"
#include "tests/test_util.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {
namespace {

using testing::Geometry;
// This file's point sets (testing::try_geometry's seed).
constexpr std::uint64_t kSeed = 41;
using testing::expect_equivalent;
using testing::rel_diff;
using testing::Sums;

// Back end `name`'s sums (testing::run_backend).
Sums run(const std::string& name, const Geometry& g, bool field, std::size_t chunk_targets = 0,
         std::size_t gpu_memory = 0) {
  return testing::run_backend(name, g, field, chunk_targets, gpu_memory);
}

void expect_identical(const Sums& s, const Sums& ref) {
  EXPECT_EQ(s.phi, ref.phi);
  EXPECT_EQ(s.ex, ref.ex);
  EXPECT_EQ(s.ey, ref.ey);
}

/// The registry's device back ends.
std::vector<std::string> device_backends() {
  std::vector<std::string> names;
  for (const BackendRow& r : backend_rows())
    if (r.runs_on_device) names.emplace_back(r.name);
  return names;
}

std::string identifier(std::string s) {
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

struct Case {
  std::string backend;
  testing::SetCase set;
};

/// Every device back end on every set of the host-side layout tests.
std::vector<Case> cases() {
  std::vector<Case> out;
  for (const std::string& b : device_backends())
    for (const testing::SetCase& set : testing::near_field_sets()) out.push_back(Case{b, set});
  return out;
}

std::string describe(const Case& c) {
  return identifier(c.backend) + "_" + testing::set_case_name(c.set);
}
void PrintTo(const Case& c, std::ostream* os) {
  *os << describe(c);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return describe(info.param);
}

/// Case c's point set and tree with n points at CT 15 (testing::try_geometry).
bool case_geometry(Geometry* g, const Case& c, std::size_t n, int offset = 0) {
  return testing::try_geometry(g, c.set.shape, n, c.set.separate, 15, offset, kSeed, c.set.kind);
}

class GpuBackendTest : public ::testing::TestWithParam<Case> {};

/// testing::for_each_tree at sizes 1, 2, 7, 1000: one-point and empty boxes in deep
/// trees, dense one-leaf groups with several tiles and batches in shallow ones, long adaptive
/// near lists.
TEST_P(GpuBackendTest, IsEquivalentToReference) {
  REQUIRE_CUDA_DEVICE();
  const Case& c = GetParam();
  testing::for_each_tree(
      c.set.shape, c.set.separate, c.set.kind, kSeed, {1, 2, 7, 1000}, [&](const Geometry& g) {
        for (bool field : {false, true}) {
          SCOPED_TRACE(field ? "field" : "potential");
          expect_equivalent(run(c.backend, g, field), run("cpu", g, field), field);
        }
      });
}

/// One setup, several charge vectors: buffers are reused (several chunks where the back end
/// chunks, so staging buffers alternate) and nothing of the last call leaks.
TEST_P(GpuBackendTest, GeometryReuseWithNewChargesIsEquivalentToReference) {
  REQUIRE_CUDA_DEVICE();
  const Case& c = GetParam();
  Geometry g;
  // One level finer than CT asks on the uniform tree (more leaves); the adaptive multi-scale set
  // already reaches the deepest level.
  ASSERT_TRUE(case_geometry(&g, c, 30000, c.set.kind == TreeKind::Uniform ? 1 : 0));
  NearFieldProblem p = g.problem;
  p.field = true;
  p.chunk_targets = 5000;
  auto gpu = make_near_field_backend(c.backend);
  auto cpu = make_near_field_backend("cpu");
  gpu->setup(p);
  cpu->setup(p);
  const std::size_t nt = g.tree.n_targets();
  for (int k = 0; k < 3; ++k) {
    std::vector<double> q = g.pts.q;
    for (std::size_t j = 0; j < q.size(); ++j) q[j] = std::sin(double(j) * (k + 1)) + 0.1 * k;
    Sums s{std::vector<double>(nt, NAN),
           std::vector<double>(nt, NAN),
           std::vector<double>(nt, NAN),
           {}};
    Sums r = s;
    gpu->evaluate(q.data(), s.phi.data(), s.ex.data(), s.ey.data(), &s.timings);
    cpu->evaluate(q.data(), r.phi.data(), r.ex.data(), r.ey.data(), &r.timings);
    SCOPED_TRACE("evaluation " + std::to_string(k));
    expect_equivalent(s, r, true);
    EXPECT_GT(s.timings.kernel, 0);
    EXPECT_GT(s.timings.device_bytes, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Sets, GpuBackendTest, ::testing::ValuesIn(cases()), case_name);

class GpuBackendByName : public ::testing::TestWithParam<std::string> {};

/// Forced small chunks give exactly the one-chunk answer (each target is summed by the same
/// code in the same order whatever its chunk), through chunk_targets and through gpu_memory.
TEST_P(GpuBackendByName, ChunkedIsIdenticalToOneChunk) {
  REQUIRE_CUDA_DEVICE();
  const std::string name = GetParam();
  for (TreeKind kind : {TreeKind::Uniform, TreeKind::Adaptive}) {
    SCOPED_TRACE(tree_kind_name(kind));
    Geometry g;
    ASSERT_TRUE(testing::try_geometry(&g, "clusters", 20000, true, 15, 0, kSeed, kind));
    const Sums one = run(name, g, true);
    EXPECT_EQ(one.timings.chunks, 1u);
    expect_equivalent(one, run("cpu", g, true), true);
    if (name == "shared") continue;  // the whole geometry stays resident: never chunked
    for (std::size_t cap : {std::size_t(37), std::size_t(4000)}) {
      SCOPED_TRACE("chunk_targets " + std::to_string(cap));
      const Sums s = run(name, g, true, cap);
      EXPECT_GT(s.timings.chunks, 1u);
      expect_identical(s, one);
    }
    // The resident arrays plus a quarter of the rest force at least 4 chunks.
    const std::size_t nt = g.tree.n_targets(), ns = g.tree.n_sources();
    std::size_t resident = 0;
    if (name == "indexing") resident = 8 * (2 * nt + 3 * ns + 3 * nt);
    if (name == "repetition-gpu")
      resident = one.timings.device_bytes -
                 nt * (8 * std::size_t(cuda::repetition_stride(g.problem)) + 3 * 8);
    const std::size_t budget = resident + (one.timings.device_bytes - resident) / 4;
    SCOPED_TRACE("gpu_memory " + std::to_string(budget));
    const Sums s = run(name, g, true, 0, budget);
    EXPECT_GE(s.timings.chunks, 4u);
    EXPECT_LE(s.timings.device_bytes, budget);
    expect_identical(s, one);
  }
}

/// N = 2e5 at CT 15 (uniform tree, levels 0 and +1; adaptive on a graded contour): equivalent,
/// every phase timed.
TEST_P(GpuBackendByName, LargeSetsAreEquivalentToReference) {
  REQUIRE_CUDA_DEVICE();
  struct Config {
    std::string shape;
    int offset;
    TreeKind kind;
  };
  for (const Config& c :
       {Config{"uniform", 0, TreeKind::Uniform}, Config{"uniform", 1, TreeKind::Uniform},
        Config{"graded-polygon", 0, TreeKind::Adaptive}}) {
    SCOPED_TRACE(c.shape + ", offset " + std::to_string(c.offset) + ", " + tree_kind_name(c.kind));
    Geometry g;
    ASSERT_TRUE(testing::try_geometry(&g, c.shape, 200000, false, 15, c.offset, kSeed, c.kind));
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
/// direct summation, and equal to the solver with the cpu near field on the same tree (the
/// plan may move W boxes and X leaves to the near field differently per back end: compared to
/// direct sums only then).
TEST_P(GpuBackendByName, SolverIsWithinEpsOfDirectSum) {
  REQUIRE_CUDA_DEVICE();
  for (const std::string tree : {"uniform", "adaptive"}) {
    const PointSet pts =
        generate_points(tree == "uniform" ? "uniform" : "graded-polygon", 50000, 5);
    std::vector<std::size_t> which;
    for (std::size_t i = 0; i < pts.x.size(); i += 37) which.push_back(i);
    std::vector<double> ref, rx, ry;
    direct_sum(pts.x, pts.y, pts.q, pts.x, pts.y, which, &ref, &rx, &ry);
    for (double eps : {1e-6, 1e-10}) {
      SCOPED_TRACE(tree + ", eps " + std::to_string(eps));
      Options o;
      o.tree = tree;
      o.eps = eps;
      o.field = true;
      o.backend = GetParam();
      Solver gpu(pts.x, pts.y, o);
      Result r = gpu.evaluate(pts.q);
      r = gpu.evaluate(pts.q);  // a second evaluation on the same geometry
      std::vector<double> sample, sx, sy;
      for (std::size_t i : which) {
        sample.push_back(r.potential[i]);
        sx.push_back(r.field_x[i]);
        sy.push_back(r.field_y[i]);
      }
      EXPECT_LE(error_norms(sample, ref).rel_l2, eps);
      EXPECT_LE(testing::field_rel_l2(sx, sy, rx, ry), eps);
      EXPECT_GT(gpu.stats().device_memory, 0u);
      if (tree == "uniform") {
        // The same tree: the depth the cost model chose for the GPU back end, given explicitly.
        o.backend = "cpu";
        o.ct = gpu.stats().ct;
        o.level_offset = gpu.auto_choice().level_offset;
        Solver cpu(pts.x, pts.y, o);
        ASSERT_EQ(cpu.stats().levels, gpu.stats().levels);
        const Result c = cpu.evaluate(pts.q);
        EXPECT_LE(rel_diff(r.potential, c.potential), 1e-12);
        EXPECT_LE(rel_diff(r.field_x, c.field_x), 1e-12);
        EXPECT_LE(rel_diff(r.field_y, c.field_y), 1e-12);
      }
    }
  }
}

/// A budget below one leaf's needs (or the resident geometry's) is a RuntimeFailure that says
/// so, never a crash.
TEST_P(GpuBackendByName, TinyBudgetIsRuntimeFailure) {
  REQUIRE_CUDA_DEVICE();
  const std::string name = GetParam();
  Geometry g;
  ASSERT_TRUE(testing::try_geometry(&g, "uniform", 5000, false, 15, 0, kSeed));
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

INSTANTIATE_TEST_SUITE_P(Backends, GpuBackendByName, ::testing::ValuesIn(device_backends()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return identifier(info.param);
                         });

/// 'repetition-gpu' builds on the GPU exactly the records 'repetition' collects on the host and
/// sums them with the same kernel: identical results, chunked or not.
TEST(GpuRepetitionGpu, IdenticalToRepetition) {
  REQUIRE_CUDA_DEVICE();
  for (TreeKind kind : {TreeKind::Uniform, TreeKind::Adaptive}) {
    for (std::size_t n : {std::size_t(300), std::size_t(20000)}) {
      SCOPED_TRACE(std::string(tree_kind_name(kind)) + ", n " + std::to_string(n));
      Geometry g;
      ASSERT_TRUE(testing::try_geometry(&g, "clusters", n, false, 15, 0, kSeed, kind));
      const Sums one = run("repetition-gpu", g, true);
      expect_identical(one, run("repetition", g, true));
      if (n < 1000) expect_identical(run("repetition-gpu", g, true, 1), one);  // one per launch
    }
  }
}

// ---- Several densities, dipoles and the Hessian (issue 22).

using testing::DensityCase;
using testing::DensitySums;
using testing::Strengths;
// The strengths' seed.
constexpr std::uint64_t kStrengthSeed = 9;

/// The registry's device back ends whose rows take several densities in one pass, dipoles and
/// the Hessian ('shared', 'repetition-gpu').
std::vector<std::string> density_backends() {
  std::vector<std::string> names;
  for (const BackendRow& r : backend_rows())
    if (r.runs_on_device && r.densities && r.dipoles && r.hessian) names.emplace_back(r.name);
  return names;
}

/// Back end `name` against cpu on g for case c, the strengths made for the tree's sources.
void expect_equivalent_densities(const std::string& name, const Geometry& g, const DensityCase& c,
                                 std::size_t chunk_targets = 0) {
  SCOPED_TRACE(testing::describe(c));
  const Strengths s = testing::make_strengths(g.tree.n_sources(), c, kStrengthSeed);
  const DensitySums gpu = testing::run_backend(name, g, c, s, chunk_targets);
  testing::expect_density_equivalent(gpu, testing::run_backend("cpu", g, c, s), c.nd);
  EXPECT_GT(gpu.timings.kernel, 0);
}

/// Uniform, clustered and graded point sets, on both trees.
std::vector<testing::SetCase> density_sets() {
  return {testing::SetCase{"uniform", false}, testing::SetCase{"clusters", false},
          testing::SetCase{"clusters", true, TreeKind::Adaptive},
          testing::SetCase{"graded-strip", false, TreeKind::Adaptive},
          testing::SetCase{"graded-polygon", true, TreeKind::Adaptive}};
}

std::vector<Case> density_cases_of(const std::vector<std::string>& backends) {
  std::vector<Case> out;
  for (const std::string& b : backends)
    for (const testing::SetCase& set : density_sets()) out.push_back(Case{b, set});
  return out;
}

class GpuDensityTest : public ::testing::TestWithParam<Case> {};

/// Charges, dipoles and both x potential, field, Hessian and both x nd = 1 and 3 (3: one pass of
/// the 4-wide kernel with 3 densities active), against the cpu back end, on trees at CT 15 and
/// 200 and level offsets -2, 0, +1 (multi-leaf groups built for the problem's smaller tile,
/// dense groups of several tiles), 7 and 3000 points.
TEST_P(GpuDensityTest, EveryKindIsEquivalentToReference) {
  REQUIRE_CUDA_DEVICE();
  const Case& c = GetParam();
  testing::for_each_tree(c.set.shape, c.set.separate, c.set.kind, kSeed, {15, 200}, {-2, 0, 1},
                         {7, 3000}, [&](const Geometry& g) {
                           for (const DensityCase& dc : testing::density_cases({1, 3}))
                             expect_equivalent_densities(c.backend, g, dc);
                         });
}

/// Wider passes: nd = 5 (one 8-wide pass, 5 active) and 10 (8 + a 2-wide pass) of both kinds
/// with field and Hessian, nd = 8 of charges with the field and of dipoles with the Hessian, on
/// 20000 points (and repetition-gpu in chunks of 4000 targets).
TEST_P(GpuDensityTest, WideBatchesAreEquivalentToReference) {
  REQUIRE_CUDA_DEVICE();
  const Case& c = GetParam();
  Geometry g;
  ASSERT_TRUE(case_geometry(&g, c, 20000));
  for (const DensityCase& dc :
       {DensityCase{5, true, true, true, true}, DensityCase{8, true, false, true, false},
        DensityCase{8, false, true, false, true}, DensityCase{10, true, true, true, true}}) {
    expect_equivalent_densities(c.backend, g, dc);
    if (c.backend == "repetition-gpu") expect_equivalent_densities(c.backend, g, dc, 4000);
  }
}

/// One setup, several strength vectors (nd = 3, both kinds, field and Hessian): buffers are
/// reused and nothing of the last call leaks.
TEST_P(GpuDensityTest, GeometryReuseWithNewStrengthsIsEquivalentToReference) {
  REQUIRE_CUDA_DEVICE();
  const Case& c = GetParam();
  Geometry g;
  ASSERT_TRUE(case_geometry(&g, c, 30000));
  const DensityCase dc{3, true, true, true, true};
  const NearFieldProblem p = testing::density_problem(g, dc, 5000);
  auto gpu = make_near_field_backend(c.backend);
  auto cpu = make_near_field_backend("cpu");
  gpu->setup(p);
  cpu->setup(p);
  const std::size_t all = std::size_t(dc.nd) * g.tree.n_targets();
  for (std::uint64_t k = 0; k < 3; ++k) {
    SCOPED_TRACE("evaluation " + std::to_string(k));
    const Strengths s = testing::make_strengths(g.tree.n_sources(), dc, kStrengthSeed + k);
    DensitySums a(all, dc), b(all, dc);
    gpu->evaluate(s.sources(), a.outputs(), &a.timings);
    cpu->evaluate(s.sources(), b.outputs(), &b.timings);
    testing::expect_density_equivalent(a, b, dc.nd);
    EXPECT_GT(a.timings.device_bytes, 0u);
  }
}

/// The caller's threads do the host copies (stage_in, as Solver::evaluate does): the results
/// left in pinned memory are bitwise those a plain evaluation writes, the caller's arrays are
/// not touched, an output not computed has none, and the next plain evaluation leaves none.
TEST_P(GpuDensityTest, StagedEvaluationLeavesTheSameBitsInPinnedMemory) {
  REQUIRE_CUDA_DEVICE();
  const Case& c = GetParam();
  Geometry g;
  ASSERT_TRUE(case_geometry(&g, c, 20000));
  for (const DensityCase& dc : {DensityCase{3, true, true, true, true},
                                DensityCase{8, true, false, false, false}}) {
    SCOPED_TRACE(testing::describe(dc));
    auto gpu = make_near_field_backend(c.backend);
    gpu->setup(testing::density_problem(g, dc));
    const std::size_t all = std::size_t(dc.nd) * g.tree.n_targets();
    const Strengths s = testing::make_strengths(g.tree.n_sources(), dc, kStrengthSeed);
    DensitySums plain(all, dc), staged(all, dc);
    gpu->evaluate(s.sources(), plain.outputs(), &plain.timings);
    ASSERT_TRUE(gpu->stage_in(s.sources(), 4));
    gpu->evaluate(s.sources(), staged.outputs(), &staged.timings);
    const std::vector<double>* want[5] = {&plain.phi, &plain.ex, &plain.ey, &plain.hxx, &plain.hxy};
    for (int k = 0; k < 5; ++k) {
      const double* r = gpu->staged_result(k);
      if (want[k]->empty()) {
        EXPECT_EQ(r, nullptr) << "output " << k;
        continue;
      }
      ASSERT_NE(r, nullptr) << "output " << k;
      EXPECT_EQ(std::vector<double>(r, r + all), *want[k]) << "output " << k;
    }
    EXPECT_TRUE(std::all_of(staged.phi.begin(), staged.phi.end(), [](double v) {
      return std::isnan(v);
    })) << "a staged evaluation writes no caller array";
    gpu->evaluate(s.sources(), staged.outputs(), &staged.timings);
    EXPECT_EQ(gpu->staged_result(0), nullptr);
    EXPECT_EQ(staged.phi, plain.phi);
  }
}

INSTANTIATE_TEST_SUITE_P(Densities, GpuDensityTest,
                         ::testing::ValuesIn(density_cases_of(density_backends())), case_name);

class GpuPapersDensityTest : public ::testing::TestWithParam<Case> {};

/// The papers' back ends take one density of charges: the base class runs them once per
/// density, equivalent to cpu for nd = 3, potential and field.
TEST_P(GpuPapersDensityTest, LoopedOverDensitiesIsEquivalentToReference) {
  REQUIRE_CUDA_DEVICE();
  const Case& c = GetParam();
  Geometry g;
  ASSERT_TRUE(case_geometry(&g, c, 3000));
  for (bool field : {false, true})
    expect_equivalent_densities(c.backend, g, DensityCase{3, true, false, field, false});
}

INSTANTIATE_TEST_SUITE_P(Papers, GpuPapersDensityTest,
                         ::testing::ValuesIn(density_cases_of({"indexing", "repetition"})),
                         case_name);

/// repetition-gpu in forced chunks (through chunk_targets and through gpu_memory) gives exactly
/// the one-chunk answer for several densities of both kinds with the Hessian.
TEST(GpuDensities, ChunkedRepetitionGpuIsIdenticalToOneChunk) {
  REQUIRE_CUDA_DEVICE();
  Geometry g;
  ASSERT_TRUE(testing::try_geometry(&g, "clusters", 20000, true, 15, 0, kSeed, TreeKind::Adaptive));
  const DensityCase dc{3, true, true, true, true};
  const Strengths s = testing::make_strengths(g.tree.n_sources(), dc, kStrengthSeed);
  const DensitySums one = testing::run_backend("repetition-gpu", g, dc, s);
  EXPECT_EQ(one.timings.chunks, 1u);
  for (std::size_t cap : {std::size_t(37), std::size_t(4000)}) {
    SCOPED_TRACE("chunk_targets " + std::to_string(cap));
    const DensitySums a = testing::run_backend("repetition-gpu", g, dc, s, cap);
    EXPECT_GT(a.timings.chunks, 1u);
    testing::expect_identical(a, one);
  }
  // The resident arrays (the charge path's nd x 3 strengths and nd x 5 outputs among them) plus
  // a quarter of the chunk's (a record of 9 strengths a source, 3 x 5 outputs a target) force at
  // least 4 chunks, within the budget.
  const std::size_t nt = g.tree.n_targets();
  const std::size_t per_target =
      8 * std::size_t(cuda::record_stride(testing::density_problem(g, dc), 9)) + 8 * 3 * 5;
  const std::size_t resident = one.timings.device_bytes - nt * per_target;
  const std::size_t budget = resident + nt * per_target / 4;
  SCOPED_TRACE("gpu_memory " + std::to_string(budget));
  const DensitySums a = testing::run_backend("repetition-gpu", g, dc, s, 0, budget);
  EXPECT_GE(a.timings.chunks, 4u);
  EXPECT_LE(a.timings.device_bytes, budget);
  testing::expect_identical(a, one);
}

/// A budget below what 8 densities' strengths and outputs need says so.
TEST(GpuDensities, TinyBudgetNamesTheDensities) {
  REQUIRE_CUDA_DEVICE();
  Geometry g;
  ASSERT_TRUE(testing::try_geometry(&g, "uniform", 5000, false, 15, 0, kSeed));
  const DensityCase dc{8, true, true, true, true};
  const Strengths s = testing::make_strengths(g.tree.n_sources(), dc, kStrengthSeed);
  for (const std::string& name : density_backends()) {
    SCOPED_TRACE(name);
    try {
      testing::run_backend(name, g, dc, s, 0, 1000);
      ADD_FAILURE() << "no exception for a 1000-byte budget";
    } catch (const RuntimeFailure& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("back end '" + name +
                       "': the geometry and the strengths and outputs of 8 "
                       "densities kept on the device needs"),
                std::string::npos)
          << m;
    }
  }
}

/// The whole solver with a GPU near field for nd = 3 of charges and dipoles, field and Hessian:
/// within eps of direct sums, and the cpu near field's answer on the same tree. 2.16e6 strengths:
/// the far field takes them in tree order from the device (strengths_back).
TEST_P(GpuBackendByName, SolverWithDensitiesIsWithinEpsOfDirectSums) {
  REQUIRE_CUDA_DEVICE();
  const std::string name = GetParam();
  std::string why;
  if (!backend_takes(name, BackendNeeds{true, true}, &why)) GTEST_SKIP() << why;
  const PointSet pts = generate_points("clusters", 240000, 5);
  const std::size_t n = pts.x.size();
  const int nd = 3;
  ASSERT_TRUE(strengths_back(ChargeShape(n, n, EvaluationShape{nd, true, true, true, true})));
  const Strengths s = testing::make_strengths(n, DensityCase{nd, true, true}, kStrengthSeed);
  Options o;
  o.eps = 1e-8;
  o.tree = "uniform";  // the same tree and plan for every back end
  o.ct = 32;
  o.densities = nd;
  o.dipoles = true;
  o.field = true;
  o.hessian = true;
  o.backend = name;
  // Charges q, dipoles of strengths mx along one orientation per source (my's first 2N values).
  const Densities in{s.q.data(), s.mx.data(), s.my.data(), false};
  Solver gpu(pts.x, pts.y, o);
  const Result r = gpu.evaluate(in);
  o.backend = "cpu";
  Solver cpu(pts.x, pts.y, o);
  const Result c = cpu.evaluate(in);
  std::vector<std::size_t> which;
  for (std::size_t i = 0; i < n; i += 401) which.push_back(i);
  const std::size_t m = which.size();
  std::vector<double> phi(nd * m), ex(nd * m), ey(nd * m), hxx(nd * m), hxy(nd * m), hyy(nd * m);
  DirectOptions direct;
  direct.densities = nd;
  direct.dipoles = true;
  direct.field = true;
  direct.hessian = true;
  direct_sum(pts.x, pts.y, pts.x, pts.y, in, direct, which,
             Outputs{phi.data(), ex.data(), ey.data(), hxx.data(), hxy.data(), hyy.data()});
  for (int k = 0; k < nd; ++k) {
    SCOPED_TRACE("density " + std::to_string(k));
    auto sample = [&](const std::vector<double>& a) {
      std::vector<double> out;
      for (std::size_t i : which) out.push_back(a[k * n + i]);
      return out;
    };
    auto ref = [&](const std::vector<double>& a) {
      return std::vector<double>(a.begin() + k * m, a.begin() + (k + 1) * m);
    };
    EXPECT_LE(error_norms(sample(r.potential), ref(phi)).rel_l2, o.eps);
    EXPECT_LE(error_norms(sample(r.field_x), sample(r.field_y), ref(ex), ref(ey)).rel_l2, o.eps);
    EXPECT_LE(error_norms(sample(r.hessian_xx), sample(r.hessian_xy), ref(hxx), ref(hxy)).rel_l2,
              o.eps);
  }
  ASSERT_EQ(cpu.stats().levels, gpu.stats().levels);  // the same tree: the same sums
  EXPECT_LE(rel_diff(r.potential, c.potential), 1e-12);
  EXPECT_LE(rel_diff(r.field_x, c.field_x), 1e-12);
  EXPECT_LE(rel_diff(r.field_y, c.field_y), 1e-12);
  EXPECT_LE(rel_diff(r.hessian_xx, c.hessian_xx), 1e-12);
  EXPECT_LE(rel_diff(r.hessian_xy, c.hessian_xy), 1e-12);
}

}  // namespace
}  // namespace mlfma2d

#else  // MLFMA2D_WITH_CUDA

TEST(GpuBackends, NeedCuda) {
  GTEST_SKIP() << "built without CUDA";
}

#endif  // MLFMA2D_WITH_CUDA
