// The cpu back end, the reference for every other: leaves in Morton order; for each target of a
// leaf, the sum over the sources of its E1 boxes (plan.near_box), in tree order.
#include <omp.h>

#include <vector>

#include "nearfield/backend.hpp"
#include "nearfield/pair.hpp"
#include "solver/timer.hpp"

namespace mlfma2d {
namespace {

class CpuBackend final : public NearFieldBackend {
 public:
  std::string name() const override { return "cpu"; }

  void setup(const NearFieldProblem& problem) override {
    p_ = problem;
    const std::size_t ns = p_.tree->n_sources(), nt = p_.tree->n_targets();
    q_.resize(ns);
    phi_.resize(nt);
    if (p_.field) {
      ex_.resize(nt);
      ey_.resize(nt);
    }
  }

  void evaluate(const double* q, double* potential, double* fx, double* fy,
                NearFieldTimings* t) override {
    const Tree& tree = *p_.tree;
    const Plan& plan = *p_.plan;
    const int threads = p_.threads > 0 ? p_.threads : omp_get_max_threads();
    const double t0 = now_seconds();
    // collect: charges into tree order
    timed(&t->collect, [&] {
#pragma omp parallel for num_threads(threads) schedule(static)
      for (std::size_t j = 0; j < q_.size(); ++j) q_[j] = q[tree.src_index[j]];
    });
    timed(&t->kernel, [&] {
      const Level& leaf = tree.leaves();
      const bool field = p_.field;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64)
      for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(leaf.size()); ++b) {
        for (std::int64_t i = leaf.tgt_begin[b]; i < leaf.tgt_end[b]; ++i) {
          const double x = tree.tx[i], y = tree.ty[i];
          double phi = 0, ex = 0, ey = 0;
          for (std::int64_t k = plan.near_begin[b]; k < plan.near_begin[b + 1]; ++k) {
            const std::int32_t nb = plan.near_box[k];
            for (std::int64_t j = leaf.src_begin[nb]; j < leaf.src_end[nb]; ++j) {
              if (field)
                log_pair_field(x, y, tree.sx[j], tree.sy[j], q_[j], &phi, &ex, &ey);
              else
                log_pair(x, y, tree.sx[j], tree.sy[j], q_[j], &phi);
            }
          }
          phi_[i] = phi;
          if (field) {
            ex_[i] = ex;
            ey_[i] = ey;
          }
        }
      }
    });
    // return: scatter into the caller's target order
    timed(&t->ret, [&] {
#pragma omp parallel for num_threads(threads) schedule(static)
      for (std::size_t i = 0; i < phi_.size(); ++i) {
        const std::int64_t to = tree.tgt_index[i];
        potential[to] = phi_[i];
        if (p_.field) {
          fx[to] = ex_[i];
          fy[to] = ey_[i];
        }
      }
    });
    t->total += now_seconds() - t0;
  }

 private:
  NearFieldProblem p_;
  std::vector<double> q_, phi_, ex_, ey_;  // tree order
};

}  // namespace

std::unique_ptr<NearFieldBackend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace mlfma2d
