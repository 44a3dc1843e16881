// The CUDA back end 'repetition-gpu': the papers' repetition records [x, y, n, (sx, sy, q) * n]
// built on the GPU from the resident compact arrays, chunk by chunk of tree-ordered targets,
// summed by the unchanged 'repetition' kernel, scattered to caller order on the GPU; several
// densities, dipoles or the Hessian: records of a batch of densities' strengths, summed by this
// back end's own kernel, batch by batch (repetition_gpu.hpp). Like 'shared' it keeps the
// geometry resident from setup() on:
//   collect  -- caller strengths into pinned memory + the gather to tree order + the records
//               kernel
//   transfer -- strengths host to device
//   kernel   -- the pair sums
//   return   -- scatter to caller order on the GPU + results device to host + to the caller
#include <algorithm>
#include <memory>
#include <vector>

#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/backend_util.hpp"
#include "nearfield/cuda/common/charge_io.hpp"
#include "nearfield/cuda/common/cuda_common.hpp"
#include "nearfield/cuda/repetition/repetition.hpp"
#include "nearfield/cuda/repetition_gpu/repetition_gpu.hpp"
#include "runtime/threads.hpp"

namespace mlfma2d {

namespace cuda {

std::int64_t record_stride(const NearFieldProblem& p, int channels) {
  const std::int64_t longest = p.near ? p.near->max_sources() : 0;
  return 3 + (2 + std::int64_t(channels)) * longest;
}

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
    /// One density of charges, potential or field: the papers' records and kernel.
    bool classic = true;
    std::int64_t stride = 3;  ///< record stride (the widest batch's)
    std::size_t chunk = 0;    ///< targets per chunk
    std::vector<cuda::DensityBatch> batches;
    cuda::ResidentState r;
    std::unique_ptr<cuda::EventTimer> records_timer, scatter;
    std::vector<cuda::RecordArrays> records_in;  // per batch: the records kernel's arguments
    const std::int32_t* tgt_index = nullptr;     // (pointers into r.arrays)
    double* records = nullptr;                   // one chunk's records
    cuda::NearFieldOut chunk_out;                // a batch's densities x chunk targets each
  };

  void prepare() override {
    const NearFieldProblem& p = problem();
    const NearField& near = *p.near;
    s_ = State();  // release the buffers of a previous geometry first
    cuda::check_int32_points(p, who());
    const std::vector<std::int32_t> tgt_leaf = cuda::target_leaves(p);
    const int per = cuda::channels_per_density(p.charges, p.dipoles);
    s_.classic = p.densities == 1 && p.charges && !p.dipoles && !p.hessian;
    s_.batches = cuda::density_batches(p.densities);
    const int widest = s_.batches.front().count;  // the first batch is the widest
    s_.stride = s_.classic ? cuda::repetition_stride(p) : cuda::record_stride(p, widest * per);
    const std::size_t ns = p.n_sources, nt = p.n_targets;
    const std::size_t outs = std::size_t(widest) * (1 + (p.field ? 2 : 0) + (p.hessian ? 2 : 0));
    const std::size_t resident = cuda::ChargeIo::bytes(p) + 16 * nt + 16 * ns + 4 * nt + 4 * nt +
                                 8 * near.range_begin.size() + 8 * near.sources.size() +
                                 8 * near.range.size();
    const std::size_t per_target = 8 * std::size_t(s_.stride) + 8 * outs;
    const std::size_t budget = cuda::device_budget(p);
    if (resident > budget)
      cuda::throw_too_small(who() + cuda::resident_what(p) + " needs", resident, budget);
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
    cuda::RecordArrays a;
    s_.r.setup(p, [&](const cuda::Stream& s, cuda::ResidentArrays& r) {
      a.tx = r.upload(p.tx, nt, s);
      a.ty = r.upload(p.ty, nt, s);
      a.sx = r.upload(p.sx, ns, s);
      a.sy = r.upload(p.sy, ns, s);
      a.tgt_leaf = r.upload(tgt_leaf, s);
      a.leaf_seg = r.upload(near.range_begin, s);
      a.leaf_n = r.upload(near.sources, s);
      a.seg = r.upload(near.range, s);
      s_.tgt_index = r.upload(cuda::as_int32(p.tgt_index, nt, p.threads), s);
      s_.records = r.allocate<double>(s_.chunk * std::size_t(s_.stride));
      const std::size_t n_out = s_.chunk * std::size_t(widest);
      s_.chunk_out.phi = r.allocate<double>(n_out);
      if (p.field) {
        s_.chunk_out.ex = r.allocate<double>(n_out);
        s_.chunk_out.ey = r.allocate<double>(n_out);
      }
      if (p.hessian) {
        s_.chunk_out.hxx = r.allocate<double>(n_out);
        s_.chunk_out.hxy = r.allocate<double>(n_out);
      }
    });
    // Each batch's records carry its densities' strengths, density by density q, mx, my.
    const cuda::ChargeIo& io = s_.r.io;
    for (const cuda::DensityBatch& b : s_.batches) {
      s_.records_in.push_back(
          cuda::batch_records(a, b, io.q_tree(), io.mx_tree(), io.my_tree(), std::int64_t(ns)));
    }
  }

  cuda::ChargeIo* charge_io() override { return &s_.r.io; }

  Figures figures() const override {
    const std::size_t nt = problem().n_targets;
    return {s_.r.device_bytes(), (nt + s_.chunk - 1) / s_.chunk, s_.r.stream.get()};
  }

  void pipeline(const NearSources& in, const NearOutputs& outputs, NearFieldTimings* tm) override {
    const NearFieldProblem& p = problem();
    cuda::ResidentState& r = s_.r;
    const cuda::Stream& s = *r.stream;
    const auto nt = static_cast<std::int64_t>(p.n_targets);
    r.io.charges_in(in, s, r.transfer.get(), r.gather.get(), tm);
    tm->transfer += r.transfer->seconds();
    tm->collect += r.gather->seconds();

    const cuda::NearFieldOut& chunk_out = s_.chunk_out;
    const cuda::NearFieldOut all = r.io.out();
    const auto m = static_cast<std::int64_t>(s_.chunk);
    // Chunks of any tree-order target range: every record is built on the device from the
    // resident arrays, so chunks need not hold whole leaves. The records buffer is reused, so
    // each chunk is waited for (the timers' seconds()).
    for (std::int64_t first = 0; first < nt; first += m) {
      const std::int64_t count = std::min(m, nt - first);
      for (std::size_t k = 0; k < s_.batches.size(); ++k) {
        const cuda::DensityBatch& b = s_.batches[k];
        s_.records_timer->start(s);
        cuda::launch_records(s_.records_in[k], first, count, s_.stride, s_.records, s.handle());
        s_.records_timer->stop(s);
        r.kernel->start(s);
        if (s_.classic) {
          cuda::launch_repetition(s_.records, count, s_.stride, chunk_out, p.field, s.handle());
        } else {
          cuda::launch_record_sums(s_.records, count, s_.stride, b.count, chunk_out, m, p.order(),
                                   p.charges, p.dipoles, b.width, s.handle());
        }
        r.kernel->stop(s);
        s_.scatter->start(s);
        cuda::launch_scatter(chunk_out, m, s_.tgt_index + first, count, b.count,
                             cuda::advance(all, std::int64_t(b.first) * nt), nt, s.handle());
        s_.scatter->stop(s);
        tm->ret += s_.scatter->seconds();
        tm->collect += s_.records_timer->seconds();
        tm->kernel += r.kernel->seconds();
      }
    }
    r.io.results_to_caller(s, r.ret.get(), outputs, tm);
  }

  State s_;
};

}  // namespace

std::unique_ptr<NearFieldBackend> make_repetition_gpu_backend() {
  return std::make_unique<RepetitionGpuBackend>();
}

}  // namespace mlfma2d
