// Where M2L's time goes (an experiment, not the library's code): M2L on a tree of N uniform
// points as the library runs it ("lib"), a replica of its loop in this file ("rep": the same
// blocks of factored translations), the replica with every pair's source and target moved to
// one of 16 boxes ("l1": the same operations on data that stays in L1/L2: what memory costs),
// and WideKernels::translate alone for each kind of truncation on 96 columns in cache ("kind t").
//   m2l_probe N CT THREADS RUNS  (G0=1: no log term in the kinds' columns)
// "rep C": the replica with blocks of C columns a kind (the library's 96).
// GFLOP/s count the product's 4 t^2 a column, as m2l_bench does.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "farfield/expansions.hpp"
#include "kernel/wide.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"
#include "solver/points.hpp"
using namespace mlfma2d;

namespace {

struct Block {
  const RMatrix& R;
  const WideKernels& wide;
  int stride;
  std::vector<int> n, rows, count;
  std::vector<std::vector<WideColumn>> cols;
  int cap;
  Block(const RMatrix& r, int p, const std::vector<int>& terms, int capacity)
      : R(r), wide(wide_kernels()), stride(2 * (p + 1)), cap(capacity) {
    for (int t : terms) {
      n.push_back(t);
      rows.push_back(wide_rows(t));
      count.push_back(0);
      cols.emplace_back(std::size_t(capacity + 32));
    }
  }
  void add(int kind, const Complex* in, Complex* out, const Scaling& sc, Complex g) {
    auto& c = cols[std::size_t(kind)];
    int& k = count[std::size_t(kind)];
    if (k + 1 > int(c.size())) flush();
    c[std::size_t(k++)] = {reinterpret_cast<const double*>(in), sc.before.re.data(),
                           sc.before.im.data(),                  sc.after.re.data(),
                           sc.after.im.data(),                   reinterpret_cast<double*>(out),
                           g.real(),                             g.imag()};
  }
  void close() {
    for (int k : count)
      if (k >= cap) return flush();
  }
  void flush() {
    for (std::size_t c = 0; c < n.size(); ++c) {
      if (count[c] > 0) wide.translate(n[c], rows[c], int(R.rows()), R.data(), count[c], cols[c].data());
      count[c] = 0;
    }
  }
};

// The library's M2L loop (nd = 1); `mask` > 0 folds sources and targets onto `mask` boxes.
void m2l_replica(const Tree& tree, const Plan& plan, const Operators& ops, Expansions* e,
                 int threads, std::int64_t mask, int capacity) {
#pragma omp parallel num_threads(threads)
  {
    const int nth = omp_get_num_threads(), me = omp_get_thread_num();
    Block block(ops.m2l_real, ops.p, ops.m2l_kind_terms, capacity);
    for (int l = 3; l <= tree.levels; ++l) {
      const M2LLevel& pairs = plan.m2l[l];
      const double log_s = std::log(tree.box_size(l));
      const CMatrix& M = e->multipole[l];
      CMatrix& Lc = e->local[l];
      const std::int64_t nb = std::int64_t(tree.level[l].size());
      const std::int64_t b0 = nb * me / nth, b1 = nb * (me + 1) / nth;
      for (std::int64_t t = b0; t < b1; ++t) {
        const std::int64_t tt = mask > 0 ? b0 + t % std::min(mask, b1 - b0) : t;
        for (std::int64_t i = pairs.target_begin[t]; i < pairs.target_begin[t + 1]; ++i) {
          const int o = pairs.offset[i];
          const std::int64_t s = mask > 0 ? b0 + pairs.src[i] % std::min(mask, b1 - b0) : pairs.src[i];
          block.add(ops.m2l_kind[o], &M(0, Eigen::Index(s)), &Lc(0, Eigen::Index(tt)),
                    ops.m2l_scale[o], ops.m2l_log[o] + log_s);
        }
        block.close();
      }
    }
    block.flush();
  }
}

template <class F>
std::vector<double> timed(int runs, F f) {
  std::vector<double> ts;
  for (int r = 0; r < runs; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    ts.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ts.begin(), ts.end());
  return ts;
}

}  // namespace

static double kG = std::getenv("G0") ? 0.0 : 0.1;
int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::atol(argv[1]) : 1000000;
  const int ct = argc > 2 ? std::atoi(argv[2]) : 32;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
  const int runs = argc > 4 ? std::atoi(argv[4]) : 10;
  const int p = 30;
  std::mt19937_64 g(1);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = u(g), y[i] = u(g);
  Tree tree = build_tree(x, y, {}, {}, ct, 0, nullptr, threads, TreeKind::Adaptive);
  Plan plan = build_plan(tree, threads);
  Operators ops(p);
  Expansions e;
  e.reset(tree, p, 1, threads);
  for (int l = 3; l <= tree.levels; ++l) {
    auto& M = e.multipole[l];
    for (Eigen::Index i = 0; i < M.size(); ++i) M.data()[i] = Complex(u(g) - 0.5, u(g) - 0.5);
  }
  double fl = 0;
  for (const M2LLevel& lv : plan.m2l)
    for (auto o : lv.offset) {
      const double t = m2l_terms(p, o);
      fl += 4 * t * t;
    }
  const int bits = wide_kernels().bits;
  auto report = [&](const char* what, const std::vector<double>& ts, double flops) {
    std::printf("%-10s N %zu CT %d threads %d bits %d: min %.3f ms median %.3f ms, %.1f GFLOP/s at min\n",
                what, n, ct, threads, bits, ts[0] * 1e3, ts[ts.size() / 2] * 1e3,
                flops * 1e-9 / ts[0]);
  };
  report("lib", timed(runs, [&] { M2L(tree, plan, ops, 3, tree.levels, &e, threads); }), fl);
  for (int cap : {96, 24, 48, 192}) {
    char what[16];
    std::snprintf(what, sizeof what, "rep %d", cap);
    report(what, timed(runs, [&] { m2l_replica(tree, plan, ops, &e, threads, 0, cap); }), fl);
  }
  report("l1", timed(runs, [&] { m2l_replica(tree, plan, ops, &e, threads, 16, 96); }), fl);
  // Each kind alone: 96 columns in cache per thread, translated 200 times a run.
  for (int cols : {96, 24})
  for (int t : ops.m2l_kind_terms) {
    const int reps = 19200 / cols;
    int off = 0;
    while (m2l_terms(p, off) != t) ++off;
    const Scaling& sc = ops.m2l_scale[off];
    auto ts = timed(runs, [&] {
#pragma omp parallel num_threads(threads)
      {
        std::vector<double> in(std::size_t(cols) * 2 * (p + 1), 0.25), out(in.size(), 0);
        std::vector<WideColumn> c(cols);
        for (int j = 0; j < cols; ++j)
          c[j] = {in.data() + j * 2 * (p + 1), sc.before.re.data(), sc.before.im.data(),
                  sc.after.re.data(), sc.after.im.data(), out.data() + j * 2 * (p + 1), kG, kG};
        for (int r = 0; r < reps; ++r)
          wide_kernels().translate(t, wide_rows(t), int(ops.m2l_real.rows()), ops.m2l_real.data(),
                                   cols, c.data());
      }
    });
    char what[16];
    std::snprintf(what, sizeof what, "kind %d/%d", t, cols);
    report(what, ts, 4.0 * t * t * cols * reps * threads);
  }
  std::printf("pairs %lld levels %d product GFLOP %.3f\n", (long long)plan.m2l_pairs, tree.levels,
              fl * 1e-9);
}
