// The CUDA back end 'repetition' (paper Alg. 3, 4): one padded record
// [x, y, n, (sx, sy, q) * n, padding] per target (repetition.hpp gives the stride), one thread
// per target. Each evaluate() runs the paper's whole pipeline; chunks of whole leaves, the host
// collecting chunk k+1 into the second pinned staging buffer while the GPU transfers and computes
// chunk k (one stream; events order the reuse of the staging buffers).
#include <algorithm>
#include <memory>

#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/backend_util.hpp"
#include "nearfield/cuda/common/cuda_common.hpp"
#include "nearfield/cuda/repetition/repetition.hpp"
#include "runtime/timer.hpp"

namespace mlfma2d {

namespace {

/// Automatic chunks hold at most this many record bytes, so the two pinned staging buffers stay
/// bounded (2 GiB) whatever N, and collection overlaps the GPU once N * record exceeds it. 1 GiB
/// is >= 1 wave of H100 threads for t <= 15 (stride 408 doubles: 330k targets).
constexpr std::size_t kAutoChunkRecordBytes = std::size_t(1) << 30;

class RepetitionBackend final : public cuda::CudaBackend {
 private:
  /// Pinned host buffers and timers of one chunk in flight.
  struct Staging {
    cuda::PinnedBuffer records, phi, ex, ey;
    std::unique_ptr<cuda::EventTimer> transfer, kernel, ret;
  };
  // Everything of one geometry; replaced whole by the next setup().
  struct State {
    std::int64_t stride = 3;
    cuda::ChunkPlan plan;
    std::size_t device_bytes = 0;
    std::vector<double> q_tree;
    std::unique_ptr<cuda::Stream> stream;
    cuda::DeviceBuffer d_records, d_phi, d_ex, d_ey;
    Staging staging[2];
  };

  void prepare() override {
    const NearFieldProblem& p = problem();
    s_ = State();  // release the buffers of a previous geometry first
    s_.stride = cuda::repetition_stride(p);
    const int outs = p.field ? 3 : 1;
    cuda::ChunkCost cost;  // per target: its record and its outputs
    cost.per_target = 8 * std::size_t(s_.stride) + 8 * std::size_t(outs);
    const std::size_t max_targets =
        p.chunk_targets > 0
            ? p.chunk_targets
            : std::max<std::size_t>(1, kAutoChunkRecordBytes / (8 * std::size_t(s_.stride)));
    s_.plan = cuda::plan_chunks(*p.near, cost, cuda::device_budget(p), max_targets, who());

    s_.stream = std::make_unique<cuda::Stream>();
    const std::int64_t m = s_.plan.max_targets;
    std::size_t bytes = 0;
    s_.d_records = cuda::device_array<double>(m * s_.stride, &bytes);
    s_.d_phi = cuda::device_array<double>(m, &bytes);
    if (p.field) {
      s_.d_ex = cuda::device_array<double>(m, &bytes);
      s_.d_ey = cuda::device_array<double>(m, &bytes);
    }
    s_.device_bytes = bytes;
    // Two staging sets when there is a next chunk to collect during the GPU work, else one.
    const int sets = s_.plan.chunks.size() > 1 ? 2 : 1;
    for (int k = 0; k < sets; ++k) {
      Staging& st = s_.staging[k];
      st.records = cuda::pinned_array<double>(m * s_.stride);
      st.phi = cuda::pinned_array<double>(m);
      if (p.field) {
        st.ex = cuda::pinned_array<double>(m);
        st.ey = cuda::pinned_array<double>(m);
      }
      st.transfer = std::make_unique<cuda::EventTimer>();
      st.kernel = std::make_unique<cuda::EventTimer>();
      st.ret = std::make_unique<cuda::EventTimer>();
    }
    s_.q_tree.assign(p.n_sources, 0.0);
  }

  Figures figures() const override { return chunked_figures(s_); }

  void pipeline(const NearSources& in, const NearOutputs& outputs, NearFieldTimings* tm) override {
    const NearFieldProblem& p = problem();
    const bool field = p.field;
    const cuda::Stream& stream = *s_.stream;
    const auto& chunks = s_.plan.chunks;
    const std::size_t n_chunks = chunks.size();
    if (n_chunks == 0) return;

    // q next to the tree-ordered coordinates
    timed(&tm->collect, [&] { cuda::gather_tree_order(p, in.q, s_.q_tree.data()); });

    auto collect = [&](std::size_t k) {
      timed(&tm->collect, [&] {
        cuda::collect_repetition_chunk(p, chunks[k], s_.q_tree.data(), s_.stride,
                                       s_.staging[k % 2].records.as<double>());
      });
    };
    // Enqueue transfer, kernel and return copy of chunk k; nothing waits here.
    auto enqueue = [&](std::size_t k) {
      Staging& st = s_.staging[k % 2];
      const std::int64_t n = chunks[k].targets();
      st.transfer->start(stream);
      cuda::copy_to_device_async(s_.d_records.as<double>(), st.records.as<double>(),
                                 8 * std::size_t(n * s_.stride), stream);
      st.transfer->stop(stream);
      st.kernel->start(stream);
      const cuda::NearFieldOut out{s_.d_phi.as<double>(), s_.d_ex.as<double>(),
                                   s_.d_ey.as<double>()};
      cuda::launch_repetition(s_.d_records.as<double>(), n, s_.stride, out, field, stream.handle());
      st.kernel->stop(stream);
      st.ret->start(stream);
      cuda::copy_to_host_async(st.phi.as<double>(), s_.d_phi.as<double>(), 8 * std::size_t(n),
                               stream);
      if (field) {
        cuda::copy_to_host_async(st.ex.as<double>(), s_.d_ex.as<double>(), 8 * std::size_t(n),
                                 stream);
        cuda::copy_to_host_async(st.ey.as<double>(), s_.d_ey.as<double>(), 8 * std::size_t(n),
                                 stream);
      }
      st.ret->stop(stream);
    };

    // Pipeline. When iteration k collects chunk k+1 into staging (k+1)%2, chunk k-1 (the last
    // user of that staging) has completed: iteration k-1 waited for it before scattering.
    collect(0);
    enqueue(0);
    for (std::size_t k = 0; k < n_chunks; ++k) {
      if (k + 1 < n_chunks) {
        collect(k + 1);  // overlaps the GPU's work on chunk k
        enqueue(k + 1);
      }
      Staging& st = s_.staging[k % 2];
      tm->transfer += st.transfer->seconds();
      tm->kernel += st.kernel->seconds();
      tm->ret += st.ret->seconds();  // waits until chunk k is back on the host
      timed(&tm->ret, [&] {
        cuda::scatter_to_caller(p, chunks[k], st.phi.as<double>(), outputs.phi);
        if (field) {
          cuda::scatter_to_caller(p, chunks[k], st.ex.as<double>(), outputs.ex);
          cuda::scatter_to_caller(p, chunks[k], st.ey.as<double>(), outputs.ey);
        }
      });
    }
  }

  State s_;
};

}  // namespace

std::unique_ptr<NearFieldBackend> make_repetition_backend() {
  return std::make_unique<RepetitionBackend>();
}

}  // namespace mlfma2d
