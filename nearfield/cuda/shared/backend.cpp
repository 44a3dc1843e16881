// The CUDA back end 'shared': the geometry resident on the device from setup() on, so an
// evaluation moves only the strengths in (nd x (q, mx, my), the kinds carried) and the
// caller-order results out:
//   collect  -- caller strengths into pinned memory (host) + the gather to tree order (GPU)
//   transfer -- strengths host to device
//   kernel   -- the pair sums (one block per group of leaves, shared.hpp; one launch per batch of
//               densities, cuda/common/densities.hpp); in self-evaluation with one density,
//               adjacent leaves both ways (mutual.hpp) after the rest one way
//   return   -- results device to host + pinned to the caller's arrays
// GPU phases are timed with CUDA events, host phases with the wall clock.
#include <memory>
#include <optional>

#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/backend_util.hpp"
#include "nearfield/cuda/common/charge_io.hpp"
#include "nearfield/cuda/common/cuda_common.hpp"
#include "nearfield/cuda/shared/mutual.hpp"
#include "nearfield/cuda/shared/shared.hpp"
#include "runtime/threads.hpp"
#include "runtime/trace.hpp"

namespace mlfma2d {

namespace {

class SharedBackend final : public cuda::CudaBackend {
 private:
  // Everything of one geometry; replaced whole by the next setup().
  struct State {
    cuda::ResidentState r;
    cuda::SharedArrays arrays;  // the kernel's arguments: pointers into r.arrays
    cuda::MutualArrays mutual;  // the mutual path's (tasks == 0: not taken)
  };

  void prepare() override {
    const NearFieldProblem& p = problem();
    s_ = State();  // release the buffers of a previous geometry first
    cuda::check_int32_points(p, who());
    std::optional<TraceScope> trace(std::in_place, "shared: layout");
    // The mutual path where it applies: the shared kernel then sums each leaf's near list less
    // the leaves summed both ways. Left out when its slots would not fit the budget.
    cuda::MutualLayout mu;
    if (cuda::shared_mutual_applies(p)) mu = cuda::mutual_layout(p);
    const int sums = kPairSums[p.order()];
    const std::size_t ns = p.n_sources, nt = p.n_targets;
    const std::size_t budget = cuda::device_budget(p);
    auto layout = [&](const NearField& near) {
      // Built for the tile of the kernels the problem's passes run (its densities and kinds).
      return cuda::shared_layout(p, near, cuda::kSharedBlock, cuda::shared_layout_tile(p));
    };
    auto bytes = [&](const cuda::SharedLayout& l) {
      return cuda::ChargeIo::bytes(p) + 16 * ns + 16 * nt + 8 * nt +
             8 * (l.group_slot.size() + l.union_begin.size() + l.union_end.size()) +
             l.group_dense.size() + 4 * l.union_src.size() + 8 * l.leaf_seg.size() +
             4 * l.leaf_n.size() + 4 * l.seg.size();
    };
    cuda::SharedLayout l = layout(mu.tasks() > 0 ? mu.one : *p.near);
    std::size_t need = bytes(l);
    if (mu.tasks() > 0) {
      const std::size_t with = need + mu.bytes(sums);
      if (with <= budget) {
        need = with;
      } else {
        mu = cuda::MutualLayout();
        l = layout(*p.near);
        need = bytes(l);
      }
    }
    // Slot arrays: target coordinates in slot order and each slot's caller index.
    Array<double> slot_x(nt), slot_y(nt);
    Array<std::int32_t> slot_out(nt);
    const auto n_slots = static_cast<std::int64_t>(nt);
#pragma omp parallel for schedule(static) num_threads(team_size(p.threads))
    for (std::int64_t s = 0; s < n_slots; ++s) {
      const std::int32_t i = l.slot_tgt[s];
      slot_x[s] = p.tx[i];
      slot_y[s] = p.ty[i];
      slot_out[s] = static_cast<std::int32_t>(p.tgt_index[i]);
    }
    l.slot_tgt = {};
    if (need > budget)
      cuda::throw_too_small(who() + cuda::resident_what(p) + " needs", need, budget);

    trace.reset();
    s_.r.setup(p, [&](const cuda::Stream& s, cuda::ResidentArrays& r) {
      cuda::SharedArrays& a = s_.arrays;
      a.sx = r.upload(p.sx, ns, s);
      a.sy = r.upload(p.sy, ns, s);
      a.group_slot = r.upload(l.group_slot, s);
      a.union_begin = r.upload(l.union_begin, s);
      a.union_end = r.upload(l.union_end, s);
      a.group_dense = r.upload(l.group_dense, s);
      a.union_src = r.upload(l.union_src, s);
      a.slot_x = r.upload(slot_x, s);
      a.slot_y = r.upload(slot_y, s);
      a.slot_out = r.upload(slot_out, s);
      a.slot_leaf = r.upload(l.slot_leaf, s);
      a.leaf_seg = r.upload(l.leaf_seg, s);
      a.leaf_n = r.upload(l.leaf_n, s);
      a.seg = r.upload(l.seg, s);
      a.groups = l.groups();
      if (mu.tasks() == 0) return;
      cuda::MutualArrays& m = s_.mutual;
      m.sx = a.sx;
      m.sy = a.sy;
      m.task_b0 = r.upload(mu.task_b0, s);
      m.task_nb = r.upload(mu.task_nb, s);
      m.task_c0 = r.upload(mu.task_c0, s);
      m.task_nc = r.upload(mu.task_nc, s);
      m.task_fwd = r.upload(mu.task_fwd, s);
      m.task_back = r.upload(mu.task_back, s);
      m.comb_t0 = r.upload(mu.comb_t0, s);
      m.comb_n = r.upload(mu.comb_n, s);
      m.comb_partners = r.upload(mu.comb_partners, s);
      m.comb_slot = r.upload(mu.comb_slot, s);
      m.tgt_out = s_.r.io.src_index();  // self-evaluation: the targets' permutation too
      m.slot = r.allocate<double>(std::size_t(sums) * std::size_t(mu.slots));
      m.slots = mu.slots;
      m.tasks = mu.tasks();
      m.leaves = mu.leaves();
    });
  }

  cuda::ChargeIo* charge_io() override { return &s_.r.io; }

  Figures figures() const override {
    return {s_.r.device_bytes(), 1, s_.r.stream.get()};
  }

  void pipeline(const NearSources& in, const NearOutputs& outputs, NearFieldTimings* tm) override {
    cuda::ResidentState& r = s_.r;
    const cuda::Stream& s = *r.stream;
    r.io.charges_in(in, s, r.transfer.get(), r.gather.get(), tm);
    r.kernel->start(s);
    // One launch per batch of densities, from its first density's strengths and outputs on.
    const NearFieldProblem& p = problem();
    const auto ns = static_cast<std::int64_t>(p.n_sources),
               nt = static_cast<std::int64_t>(p.n_targets);
    for (const cuda::DensityBatch& b : cuda::density_batches(p.densities)) {
      const std::int64_t src = b.first * ns;
      const cuda::SharedPass pass{cuda::advance(r.io.q_tree(), src),
                                  cuda::advance(r.io.mx_tree(), src),
                                  cuda::advance(r.io.my_tree(), src),
                                  ns,
                                  nt,
                                  b.count};
      cuda::launch_shared(s_.arrays, pass, cuda::advance(r.io.out(), b.first * nt), p.order(),
                          p.charges, p.dipoles, b.width, s.handle());
    }
    // one density: the pairs of adjacent leaves both ways, added to what the one way wrote
    cuda::launch_mutual(s_.mutual, r.io.q_tree(), r.io.mx_tree(), r.io.my_tree(), r.io.out(),
                        p.order(), s.handle());
    r.kernel->stop(s);
    r.io.results_to_caller(s, r.ret.get(), outputs, tm);
    tm->transfer += r.transfer->seconds();  // complete: the results are back
    tm->collect += r.gather->seconds();
    tm->kernel += r.kernel->seconds();
  }

  State s_;
};

}  // namespace

std::unique_ptr<NearFieldBackend> make_shared_backend() {
  return std::make_unique<SharedBackend>();
}

}  // namespace mlfma2d
