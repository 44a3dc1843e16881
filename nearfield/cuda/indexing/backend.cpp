// The CUDA back end 'indexing' (paper Alg. 1, 2).
//
// Each evaluate() runs the paper's whole pipeline for the given charges -- collect, transfer,
// kernel, return -- so its phase timings compare with the paper's (nothing but buffers is kept
// on the device between evaluations). Buffers (device and pinned host) are sized and allocated
// once in setup() from the chunk plan, and reused.
#include <limits>
#include <memory>

#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/backend_util.hpp"
#include "nearfield/cuda/common/cuda_common.hpp"
#include "nearfield/cuda/indexing/indexing.hpp"
#include "runtime/array.hpp"
#include "runtime/timer.hpp"

namespace mlfma2d {

namespace {

/// \brief The seven-array SoA layout of paper Alg. 1, one thread per box (Alg. 2). Resident on
/// the device: coordinates and charges (caller order) and the caller-order outputs; per chunk of
/// leaves: the four index arrays, in one buffer sized for the largest chunk.
class IndexingBackend final : public cuda::CudaBackend {
 private:
  // Everything of one geometry; replaced whole by the next setup().
  struct State {
    cuda::ChunkPlan plan;
    std::size_t device_bytes = 0;
    // Declared before the buffers so it is destroyed after them.
    std::unique_ptr<cuda::Stream> stream;
    std::unique_ptr<cuda::EventTimer> transfer, kernel, ret;
    cuda::DeviceBuffer d_tx, d_ty, d_sx, d_sy, d_q, d_phi, d_ex, d_ey;
    cuda::DeviceBuffer d_chunk;  // arrays 4-7 of the current chunk (indexing_chunk_layout)
    cuda::PinnedBuffer h_tx, h_ty, h_sx, h_sy, h_q, h_phi, h_ex, h_ey;
    cuda::PinnedBuffer h_chunk;
    // The caller-order coordinates its collect phase copies at every evaluation (Alg. 1): its own,
    // since the problem's are valid only during setup() (the Solver frees them after it).
    // Self-evaluation keeps one pair: the targets are the sources.
    Array<double> sx, sy, tx, ty;
    const double* targets_x() const { return tx.empty() ? sx.data() : tx.data(); }
    const double* targets_y() const { return ty.empty() ? sy.data() : ty.data(); }
  };

  void prepare() override {
    const NearFieldProblem& p = problem();
    s_ = State();  // release the buffers of a previous geometry first
    cuda::check_int32_points(p, who());
    const auto ns = static_cast<std::int64_t>(p.n_sources);
    const auto nt = static_cast<std::int64_t>(p.n_targets);
    const int outs = p.field ? 3 : 1;
    // Paper eq. 2: 5N doubles + (2 + t + 9t) ints per box; here the box starts are int64.
    cuda::ChunkCost cost = cuda::indexing_chunk_cost();
    cost.fixed = 8 * std::size_t(2 * nt + 3 * ns + outs * nt);  // coordinates, q, outputs
    const std::size_t max_targets =
        p.chunk_targets > 0 ? p.chunk_targets : std::numeric_limits<std::size_t>::max();
    s_.plan = cuda::plan_chunks(*p.near, cost, cuda::device_budget(p), max_targets, who());

    s_.stream = std::make_unique<cuda::Stream>();
    s_.transfer = std::make_unique<cuda::EventTimer>();
    s_.kernel = std::make_unique<cuda::EventTimer>();
    s_.ret = std::make_unique<cuda::EventTimer>();
    std::size_t bytes = 0;
    s_.d_tx = cuda::device_array<double>(nt, &bytes);
    s_.d_ty = cuda::device_array<double>(nt, &bytes);
    s_.d_sx = cuda::device_array<double>(ns, &bytes);
    s_.d_sy = cuda::device_array<double>(ns, &bytes);
    s_.d_q = cuda::device_array<double>(ns, &bytes);
    s_.d_phi = cuda::device_array<double>(nt, &bytes);
    if (p.field) {
      s_.d_ex = cuda::device_array<double>(nt, &bytes);
      s_.d_ey = cuda::device_array<double>(nt, &bytes);
    }
    s_.d_chunk = cuda::device_array<char>(std::int64_t(s_.plan.chunk_bytes), &bytes);
    s_.device_bytes = bytes;

    s_.h_tx = cuda::pinned_array<double>(nt);
    s_.h_ty = cuda::pinned_array<double>(nt);
    s_.h_sx = cuda::pinned_array<double>(ns);
    s_.h_sy = cuda::pinned_array<double>(ns);
    s_.h_q = cuda::pinned_array<double>(ns);
    s_.h_phi = cuda::pinned_array<double>(nt);
    if (p.field) {
      s_.h_ex = cuda::pinned_array<double>(nt);
      s_.h_ey = cuda::pinned_array<double>(nt);
    }
    s_.h_chunk = cuda::pinned_array<char>(std::int64_t(s_.plan.chunk_bytes));
    s_.sx = parallel_copy(p.caller_sx, ns, p.threads);
    s_.sy = parallel_copy(p.caller_sy, ns, p.threads);
    if (p.caller_tx != p.caller_sx || p.caller_ty != p.caller_sy) {
      s_.tx = parallel_copy(p.caller_tx, nt, p.threads);
      s_.ty = parallel_copy(p.caller_ty, nt, p.threads);
    }
  }

  Figures figures() const override { return chunked_figures(s_); }

  void pipeline(const NearSources& in, const NearOutputs& outputs, NearFieldTimings* tm) override {
    const NearFieldProblem& p = problem();
    const std::size_t ns = p.n_sources, nt = p.n_targets;
    const bool field = p.field;
    const cuda::Stream& stream = *s_.stream;

    // Collect arrays 1-3 (caller order) into pinned staging: targetPoints, sourcePoints,
    // potentials of Alg. 1.
    timed(&tm->collect, [&] {
      parallel_copy(s_.targets_x(), nt, s_.h_tx.as<double>(), p.threads);
      parallel_copy(s_.targets_y(), nt, s_.h_ty.as<double>(), p.threads);
      parallel_copy(s_.sx.data(), ns, s_.h_sx.as<double>(), p.threads);
      parallel_copy(s_.sy.data(), ns, s_.h_sy.as<double>(), p.threads);
      parallel_copy(in.q, ns, s_.h_q.as<double>(), p.threads);
    });

    s_.transfer->start(stream);
    cuda::copy_to_device_async(s_.d_tx.as<double>(), s_.h_tx.as<double>(), 8 * nt, stream);
    cuda::copy_to_device_async(s_.d_ty.as<double>(), s_.h_ty.as<double>(), 8 * nt, stream);
    cuda::copy_to_device_async(s_.d_sx.as<double>(), s_.h_sx.as<double>(), 8 * ns, stream);
    cuda::copy_to_device_async(s_.d_sy.as<double>(), s_.h_sy.as<double>(), 8 * ns, stream);
    cuda::copy_to_device_async(s_.d_q.as<double>(), s_.h_q.as<double>(), 8 * ns, stream);
    s_.transfer->stop(stream);
    tm->transfer += s_.transfer->seconds();

    cuda::IndexingArrays a;
    a.tx = s_.d_tx.as<double>();
    a.ty = s_.d_ty.as<double>();
    a.sx = s_.d_sx.as<double>();
    a.sy = s_.d_sy.as<double>();
    a.q = s_.d_q.as<double>();
    const cuda::NearFieldOut out{s_.d_phi.as<double>(), s_.d_ex.as<double>(), s_.d_ey.as<double>()};

    // Arrays 4-7 chunk by chunk (usually one chunk). The staging of chunk k+1 overwrites that of
    // chunk k, so each chunk is waited for (transfer->seconds() and kernel->seconds() sync).
    for (const cuda::Chunk& c : s_.plan.chunks) {
      const cuda::IndexingChunkLayout l = cuda::indexing_chunk_layout(c);
      char* h = s_.h_chunk.as<char>();
      timed(&tm->collect, [&] {
        cuda::collect_indexing_chunk(p, c, reinterpret_cast<std::int32_t*>(h + l.all_targets),
                                     reinterpret_cast<std::int64_t*>(h + l.all_targets_index),
                                     reinterpret_cast<std::int32_t*>(h + l.all_neighbors),
                                     reinterpret_cast<std::int64_t*>(h + l.all_neighbors_index));
      });

      s_.transfer->start(stream);  // the four arrays are contiguous: one copy
      cuda::copy_to_device_async(s_.d_chunk.as<char>(), h, l.bytes, stream);
      s_.transfer->stop(stream);

      const char* d = s_.d_chunk.as<char>();
      a.all_targets = reinterpret_cast<const std::int32_t*>(d + l.all_targets);
      a.all_targets_index = reinterpret_cast<const std::int64_t*>(d + l.all_targets_index);
      a.all_neighbors = reinterpret_cast<const std::int32_t*>(d + l.all_neighbors);
      a.all_neighbors_index = reinterpret_cast<const std::int64_t*>(d + l.all_neighbors_index);
      a.boxes = c.leaves();
      s_.kernel->start(stream);
      cuda::launch_indexing(a, out, field, stream.handle());
      s_.kernel->stop(stream);
      tm->transfer += s_.transfer->seconds();
      tm->kernel += s_.kernel->seconds();
    }

    // Return: the outputs are already in caller order (the kernel wrote nearfield[targetIndex]).
    s_.ret->start(stream);
    cuda::copy_to_host_async(s_.h_phi.as<double>(), s_.d_phi.as<double>(), 8 * nt, stream);
    if (field) {
      cuda::copy_to_host_async(s_.h_ex.as<double>(), s_.d_ex.as<double>(), 8 * nt, stream);
      cuda::copy_to_host_async(s_.h_ey.as<double>(), s_.d_ey.as<double>(), 8 * nt, stream);
    }
    s_.ret->stop(stream);
    tm->ret += s_.ret->seconds();
    timed(&tm->ret, [&] {
      parallel_copy(s_.h_phi.as<double>(), nt, outputs.phi, p.threads);
      if (field) {
        parallel_copy(s_.h_ex.as<double>(), nt, outputs.ex, p.threads);
        parallel_copy(s_.h_ey.as<double>(), nt, outputs.ey, p.threads);
      }
    });
  }

  State s_;
};

}  // namespace

std::unique_ptr<NearFieldBackend> make_indexing_backend() {
  return std::make_unique<IndexingBackend>();
}

}  // namespace mlfma2d
