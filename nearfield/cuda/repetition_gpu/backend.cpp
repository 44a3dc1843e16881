// The CUDA back end 'repetition-gpu': the papers' repetition records [x, y, n, (sx, sy, q) * n]
// built on the GPU from the resident compact arrays, chunk by chunk of tree-ordered targets,
// summed by the unchanged 'repetition' kernel, scattered to caller order on the GPU. Like
// 'shared' it keeps the geometry resident from setup() on:
//   collect  -- caller charges into pinned memory + the gather to tree order + the records kernel
//   transfer -- charges host to device
//   kernel   -- the pair sums
//   return   -- scatter to caller order on the GPU + results device to host + to the caller
#include <algorithm>
#include <memory>

#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/backend_util.hpp"
#include "nearfield/cuda/common/charge_io.hpp"
#include "nearfield/cuda/common/cuda_common.hpp"
#include "nearfield/cuda/repetition/repetition.hpp"
#include "nearfield/cuda/repetition_gpu/repetition_gpu.hpp"
#include "runtime/threads.hpp"

namespace mlfma2d {

namespace cuda {

std::vector<std::int32_t> target_leaves(const NearFieldProblem& p) {
  const NearField& near = *p.near;
  const auto n_leaves = static_cast<std::int64_t>(near.leaves());
  std::vector<std::int32_t> leaf(p.n_targets, 0);
#pragma omp parallel for schedule(dynamic, 1024) num_threads(team_size(p.threads))
  for (std::int64_t b = 0; b < n_leaves; ++b)
    for (std::int64_t i = near.leaf_tgt[b]; i < near.leaf_tgt[b + 1]; ++i)
      leaf[i] = static_cast<std::int32_t>(b);
  return leaf;
}

}  // namespace cuda

namespace {

/// Automatic chunks hold at most this many record bytes (4 GiB: > 1e6 targets at t = 15,
/// several waves of the whole GPU), so the device memory stays bounded whatever N.
constexpr std::size_t kAutoChunkRecordBytes = std::size_t(4) << 30;

class RepetitionGpuBackend final : public cuda::CudaBackend {
 private:
  // Everything of one geometry; replaced whole by the next setup().
  struct State {
    std::int64_t stride = 3;
    std::size_t chunk = 0;  ///< targets per chunk
    cuda::ResidentState r;
    std::unique_ptr<cuda::EventTimer> records_timer, scatter;
    cuda::RecordArrays records_in;  // the records kernel's arguments, the chunk's records and
    const std::int32_t* tgt_index = nullptr;  // sums: pointers into r.arrays
    double* records = nullptr;
    cuda::NearFieldOut chunk_out;
  };

  void prepare() override {
    const NearFieldProblem& p = problem();
    const NearField& near = *p.near;
    s_ = State();  // release the buffers of a previous geometry first
    cuda::check_int32_points(p, who());
    const std::vector<std::int32_t> tgt_leaf = cuda::target_leaves(p);
    s_.stride = cuda::repetition_stride(p);
    const std::size_t ns = p.n_sources, nt = p.n_targets;
    const int outs = p.field ? 3 : 1;
    const std::size_t resident = cuda::ChargeIo::bytes(p) + 16 * nt + 16 * ns + 4 * nt + 4 * nt +
                                 8 * near.range_begin.size() + 8 * near.sources.size() +
                                 8 * near.range.size();
    const std::size_t per_target = 8 * std::size_t(s_.stride) + 8 * std::size_t(outs);
    const std::size_t budget = cuda::device_budget(p);
    if (resident > budget)
      cuda::throw_too_small(who() + "the geometry kept on the device needs", resident, budget);
    const std::size_t cap =
        p.chunk_targets > 0
            ? p.chunk_targets
            : std::max<std::size_t>(1, kAutoChunkRecordBytes / (8 * std::size_t(s_.stride)));
    s_.chunk = std::min({std::max<std::size_t>(nt, 1), cap, (budget - resident) / per_target});
    if (s_.chunk == 0) {
      cuda::throw_too_small(
          who() + "one chunk of 1 target (its record and the resident geometry) needs",
          resident + per_target, budget);
    }

    s_.records_timer = std::make_unique<cuda::EventTimer>();
    s_.scatter = std::make_unique<cuda::EventTimer>();
    s_.r.setup(p, [&](const cuda::Stream& s, cuda::ResidentArrays& r) {
      cuda::RecordArrays& a = s_.records_in;
      a.tx = r.upload(p.tx, nt, s);
      a.ty = r.upload(p.ty, nt, s);
      a.sx = r.upload(p.sx, ns, s);
      a.sy = r.upload(p.sy, ns, s);
      a.q = s_.r.io.q_tree();
      a.tgt_leaf = r.upload(tgt_leaf, s);
      a.leaf_seg = r.upload(near.range_begin, s);
      a.leaf_n = r.upload(near.sources, s);
      a.seg = r.upload(near.range, s);
      s_.tgt_index = r.upload(cuda::as_int32(p.tgt_index, nt, p.threads), s);
      s_.records = r.allocate<double>(s_.chunk * std::size_t(s_.stride));
      s_.chunk_out.phi = r.allocate<double>(s_.chunk);
      if (p.field) {
        s_.chunk_out.ex = r.allocate<double>(s_.chunk);
        s_.chunk_out.ey = r.allocate<double>(s_.chunk);
      }
    });
  }

  Figures figures() const override {
    const std::size_t nt = problem().n_targets;
    return {s_.r.device_bytes(), (nt + s_.chunk - 1) / s_.chunk, s_.r.stream.get()};
  }

  void pipeline(const NearSources& in, const NearOutputs& outputs, NearFieldTimings* tm) override {
    const double* q = in.q;
    double *potential = outputs.phi, *fx = outputs.ex, *fy = outputs.ey;
    cuda::ResidentState& r = s_.r;
    const cuda::Stream& s = *r.stream;
    const bool field = problem().field;
    const auto nt = static_cast<std::int64_t>(problem().n_targets);
    r.io.charges_in(q, s, r.transfer.get(), r.gather.get(), tm);
    tm->transfer += r.transfer->seconds();
    tm->collect += r.gather->seconds();

    const cuda::NearFieldOut& chunk_out = s_.chunk_out;
    const auto m = static_cast<std::int64_t>(s_.chunk);
    // Chunks of any tree-order target range: every record is built on the device from the
    // resident arrays, so chunks need not hold whole leaves. The records buffer is reused, so
    // each chunk is waited for (the timers' seconds()).
    for (std::int64_t first = 0; first < nt; first += m) {
      const std::int64_t count = std::min(m, nt - first);
      s_.records_timer->start(s);
      cuda::launch_records(s_.records_in, first, count, s_.stride, s_.records, s.handle());
      s_.records_timer->stop(s);
      r.kernel->start(s);
      cuda::launch_repetition(s_.records, count, s_.stride, chunk_out, field, s.handle());
      r.kernel->stop(s);
      s_.scatter->start(s);
      cuda::launch_scatter(chunk_out, s_.tgt_index + first, count, r.io.out(), field, s.handle());
      s_.scatter->stop(s);
      tm->ret += s_.scatter->seconds();
      tm->collect += s_.records_timer->seconds();
      tm->kernel += r.kernel->seconds();
    }
    r.io.results_to_caller(s, r.ret.get(), potential, fx, fy, tm);
  }

  State s_;
};

}  // namespace

std::unique_ptr<NearFieldBackend> make_repetition_gpu_backend() {
  return std::make_unique<RepetitionGpuBackend>();
}

}  // namespace mlfma2d
