// The CUDA near-field back ends 'indexing' (paper Alg. 1, 2) and 'repetition' (paper Alg. 3, 4).
//
// Each evaluate() runs the paper's whole pipeline for the given charges -- collect, transfer,
// kernel, return -- so its phase timings compare with the papers' (nothing but buffers is kept
// on the device between evaluations). Buffers (device and pinned host) are sized and allocated
// once in setup() from the chunk plan, and reused.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "mlfma2d/errors.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/cuda/collect.hpp"
#include "nearfield/cuda/backend_util.hpp"
#include "nearfield/cuda/cuda_common.hpp"
#include "nearfield/cuda/kernels.hpp"

namespace mlfma2d {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Automatic repetition chunks hold at most this many record bytes, so the two pinned staging
/// buffers stay bounded (2 GiB) whatever N, and collection overlaps the GPU once N * record
/// exceeds it. 1 GiB is >= 1 wave of H100 threads for t <= 15 (stride 408 doubles: 330k targets).
constexpr std::size_t kAutoChunkRecordBytes = std::size_t(1) << 30;

void check_problem(const NearFieldProblem& p, const std::string& name) {
  if (!p.tree || !p.plan) throw InvalidInput("back end '" + name + "': setup without tree or plan");
  if (p.tree->n_sources() > 0 && (!p.x || !p.y)) {
    throw InvalidInput("back end '" + name + "': setup without source coordinates");
  }
  if (p.tree->n_targets() > 0 && (!p.tx || !p.ty)) {
    throw InvalidInput("back end '" + name + "': setup without target coordinates");
  }
}

using cuda::check_outputs;
using cuda::device_budget;
using cuda::guarded;

template <class T>
cuda::DeviceBuffer device_array(std::int64_t n, std::size_t* total) {
  cuda::DeviceBuffer b(sizeof(T) * std::size_t(std::max<std::int64_t>(n, 0)));
  *total += b.bytes();
  return b;
}

template <class T>
cuda::PinnedBuffer pinned_array(std::int64_t n) {
  return cuda::PinnedBuffer(sizeof(T) * std::size_t(std::max<std::int64_t>(n, 0)));
}

// ---------------------------------------------------------------------------------------------
/// \brief 'indexing': the seven-array SoA layout of paper Alg. 1, one thread per box (Alg. 2).
/// Resident on the device: coordinates and charges (caller order) and the caller-order outputs;
/// per chunk of leaves: the four index arrays, in one buffer sized for the largest chunk.
class IndexingBackend final : public NearFieldBackend {
 public:
  std::string name() const override { return "indexing"; }

  void setup(const NearFieldProblem& problem) override {
    check_problem(problem, name());
    *this = IndexingBackend();  // release the buffers of a previous geometry first
    const Tree& tree = *problem.tree;
    const auto ns = static_cast<std::int64_t>(tree.n_sources());
    const auto nt = static_cast<std::int64_t>(tree.n_targets());
    constexpr std::int64_t kMaxIndex = std::numeric_limits<std::int32_t>::max();
    if (ns > kMaxIndex || nt > kMaxIndex) {
      throw InvalidInput("back end 'indexing' stores point indices as int32: at most " +
                         std::to_string(kMaxIndex) + " sources and targets, got " +
                         std::to_string(ns) + " and " + std::to_string(nt));
    }
    near_sources_ = cuda::near_source_counts(tree, *problem.plan);
    const int outs = problem.field ? 3 : 1;
    // Paper eq. 2: 5N doubles + (2 + t + 9t) ints per box; here the box starts are int64.
    cuda::ChunkCost cost = cuda::indexing_chunk_cost();
    cost.fixed = 8 * std::size_t(2 * nt + 3 * ns + outs * nt);  // coordinates, q, outputs
    const std::size_t max_targets =
        problem.chunk_targets > 0 ? problem.chunk_targets : std::numeric_limits<std::size_t>::max();
    plan_ =
        cuda::plan_chunks(tree, near_sources_, cost, device_budget(problem), max_targets, name());

    stream_ = std::make_unique<cuda::Stream>();
    transfer_ = std::make_unique<cuda::EventTimer>();
    kernel_ = std::make_unique<cuda::EventTimer>();
    return_ = std::make_unique<cuda::EventTimer>();
    std::size_t bytes = 0;
    d_tx_ = device_array<double>(nt, &bytes);
    d_ty_ = device_array<double>(nt, &bytes);
    d_sx_ = device_array<double>(ns, &bytes);
    d_sy_ = device_array<double>(ns, &bytes);
    d_q_ = device_array<double>(ns, &bytes);
    d_phi_ = device_array<double>(nt, &bytes);
    if (problem.field) {
      d_ex_ = device_array<double>(nt, &bytes);
      d_ey_ = device_array<double>(nt, &bytes);
    }
    d_chunk_ = device_array<char>(std::int64_t(plan_.chunk_bytes), &bytes);
    device_bytes_ = bytes;

    h_tx_ = pinned_array<double>(nt);
    h_ty_ = pinned_array<double>(nt);
    h_sx_ = pinned_array<double>(ns);
    h_sy_ = pinned_array<double>(ns);
    h_q_ = pinned_array<double>(ns);
    h_phi_ = pinned_array<double>(nt);
    if (problem.field) {
      h_ex_ = pinned_array<double>(nt);
      h_ey_ = pinned_array<double>(nt);
    }
    h_chunk_ = pinned_array<char>(std::int64_t(plan_.chunk_bytes));
    problem_ = problem;
  }

  void evaluate(const double* q, double* potential, double* fx, double* fy,
                NearFieldTimings* timings) override {
    check_outputs(problem_, q, potential, fx, fy, name());
    NearFieldTimings local;
    NearFieldTimings& tm = timings ? *timings : local;
    tm = NearFieldTimings{};
    const auto t_total = Clock::now();
    guarded(stream_.get(), [&] { run(q, potential, fx, fy, &tm); });
    tm.device_bytes = device_bytes_;
    tm.chunks = plan_.chunks.size();
    tm.total = since(t_total);
  }

 private:
  void run(const double* q, double* potential, double* fx, double* fy, NearFieldTimings* tm) {
    const NearFieldProblem& p = problem_;
    const Tree& tree = *p.tree;
    const std::size_t ns = tree.n_sources(), nt = tree.n_targets();
    if (nt == 0) return;
    const bool field = p.field;
    const cuda::Stream& stream = *stream_;

    // Collect arrays 1-3 (caller order) into pinned staging: targetPoints, sourcePoints,
    // potentials of Alg. 1.
    auto t0 = Clock::now();
    cuda::copy_parallel(p.tx, nt, h_tx_.as<double>(), p.threads);
    cuda::copy_parallel(p.ty, nt, h_ty_.as<double>(), p.threads);
    cuda::copy_parallel(p.x, ns, h_sx_.as<double>(), p.threads);
    cuda::copy_parallel(p.y, ns, h_sy_.as<double>(), p.threads);
    cuda::copy_parallel(q, ns, h_q_.as<double>(), p.threads);
    tm->collect += since(t0);

    transfer_->start(stream);
    cuda::copy_to_device_async(d_tx_.as<double>(), h_tx_.as<double>(), 8 * nt, stream);
    cuda::copy_to_device_async(d_ty_.as<double>(), h_ty_.as<double>(), 8 * nt, stream);
    cuda::copy_to_device_async(d_sx_.as<double>(), h_sx_.as<double>(), 8 * ns, stream);
    cuda::copy_to_device_async(d_sy_.as<double>(), h_sy_.as<double>(), 8 * ns, stream);
    cuda::copy_to_device_async(d_q_.as<double>(), h_q_.as<double>(), 8 * ns, stream);
    transfer_->stop(stream);
    tm->transfer += transfer_->seconds();

    cuda::IndexingArrays a;
    a.tx = d_tx_.as<double>();
    a.ty = d_ty_.as<double>();
    a.sx = d_sx_.as<double>();
    a.sy = d_sy_.as<double>();
    a.q = d_q_.as<double>();
    cuda::NearFieldOut out{d_phi_.as<double>(), d_ex_.as<double>(), d_ey_.as<double>()};

    // Arrays 4-7 chunk by chunk (usually one chunk). The staging of chunk k+1 overwrites that of
    // chunk k, so each chunk is waited for (transfer_->seconds() and kernel_->seconds() sync).
    for (const cuda::Chunk& c : plan_.chunks) {
      const cuda::IndexingChunkLayout l = cuda::indexing_chunk_layout(c);
      char* h = h_chunk_.as<char>();
      t0 = Clock::now();
      cuda::collect_indexing_chunk(tree, *p.plan, near_sources_, c, p.threads,
                                   reinterpret_cast<std::int32_t*>(h + l.all_targets),
                                   reinterpret_cast<std::int64_t*>(h + l.all_targets_index),
                                   reinterpret_cast<std::int32_t*>(h + l.all_neighbors),
                                   reinterpret_cast<std::int64_t*>(h + l.all_neighbors_index));
      tm->collect += since(t0);

      transfer_->start(stream);  // the four arrays are contiguous: one copy
      cuda::copy_to_device_async(d_chunk_.as<char>(), h, l.bytes, stream);
      transfer_->stop(stream);

      const char* d = d_chunk_.as<char>();
      a.all_targets = reinterpret_cast<const std::int32_t*>(d + l.all_targets);
      a.all_targets_index = reinterpret_cast<const std::int64_t*>(d + l.all_targets_index);
      a.all_neighbors = reinterpret_cast<const std::int32_t*>(d + l.all_neighbors);
      a.all_neighbors_index = reinterpret_cast<const std::int64_t*>(d + l.all_neighbors_index);
      a.boxes = c.leaves();
      kernel_->start(stream);
      cuda::launch_indexing(a, out, field, stream.handle());
      kernel_->stop(stream);
      tm->transfer += transfer_->seconds();
      tm->kernel += kernel_->seconds();
    }

    // Return: the outputs are already in caller order (the kernel wrote nearfield[targetIndex]).
    return_->start(stream);
    cuda::copy_to_host_async(h_phi_.as<double>(), d_phi_.as<double>(), 8 * nt, stream);
    if (field) {
      cuda::copy_to_host_async(h_ex_.as<double>(), d_ex_.as<double>(), 8 * nt, stream);
      cuda::copy_to_host_async(h_ey_.as<double>(), d_ey_.as<double>(), 8 * nt, stream);
    }
    return_->stop(stream);
    tm->ret += return_->seconds();
    t0 = Clock::now();
    cuda::copy_parallel(h_phi_.as<double>(), nt, potential, p.threads);
    if (field) {
      cuda::copy_parallel(h_ex_.as<double>(), nt, fx, p.threads);
      cuda::copy_parallel(h_ey_.as<double>(), nt, fy, p.threads);
    }
    tm->ret += since(t0);
  }

  NearFieldProblem problem_;
  std::vector<std::int64_t> near_sources_;
  cuda::ChunkPlan plan_;
  std::size_t device_bytes_ = 0;
  // Declared before the buffers so it is destroyed after them.
  std::unique_ptr<cuda::Stream> stream_;
  std::unique_ptr<cuda::EventTimer> transfer_, kernel_, return_;
  cuda::DeviceBuffer d_tx_, d_ty_, d_sx_, d_sy_, d_q_, d_phi_, d_ex_, d_ey_;
  cuda::DeviceBuffer d_chunk_;  // arrays 4-7 of the current chunk (indexing_chunk_layout)
  cuda::PinnedBuffer h_tx_, h_ty_, h_sx_, h_sy_, h_q_, h_phi_, h_ex_, h_ey_;
  cuda::PinnedBuffer h_chunk_;
};

// ---------------------------------------------------------------------------------------------
/// \brief 'repetition': one padded record [x, y, n, (sx, sy, q) * n, padding] per target, stride
/// 3 + 27t doubles (paper Alg. 3), one thread per target (Alg. 4). Chunks of whole leaves; the
/// host collects chunk k+1 into the second pinned staging buffer while the GPU transfers and
/// computes chunk k (one stream; events order the reuse of the staging buffers).
class RepetitionBackend final : public NearFieldBackend {
 public:
  std::string name() const override { return "repetition"; }

  void setup(const NearFieldProblem& problem) override {
    check_problem(problem, name());
    *this = RepetitionBackend();  // release the buffers of a previous geometry first
    const Tree& tree = *problem.tree;
    const auto near_sources = cuda::near_source_counts(tree, *problem.plan);
    stride_ = cuda::repetition_stride(tree);
    const std::int64_t most =
        near_sources.empty() ? 0 : *std::max_element(near_sources.begin(), near_sources.end());
    if (3 + 3 * most > stride_) {
      throw RuntimeFailure("internal error: back end 'repetition': a leaf's E1 holds " +
                           std::to_string(most) +
                           " sources, more than 9t = " + std::to_string(9 * tree.t));
    }
    const int outs = problem.field ? 3 : 1;
    cuda::ChunkCost cost;  // per target: its record and its outputs
    cost.per_target = 8 * std::size_t(stride_) + 8 * std::size_t(outs);
    const std::size_t max_targets =
        problem.chunk_targets > 0
            ? problem.chunk_targets
            : std::max<std::size_t>(1, kAutoChunkRecordBytes / (8 * std::size_t(stride_)));
    plan_ =
        cuda::plan_chunks(tree, near_sources, cost, device_budget(problem), max_targets, name());

    stream_ = std::make_unique<cuda::Stream>();
    const std::int64_t m = plan_.max_targets;
    std::size_t bytes = 0;
    d_records_ = device_array<double>(m * stride_, &bytes);
    d_phi_ = device_array<double>(m, &bytes);
    if (problem.field) {
      d_ex_ = device_array<double>(m, &bytes);
      d_ey_ = device_array<double>(m, &bytes);
    }
    device_bytes_ = bytes;
    // Two staging sets when there is a next chunk to collect during the GPU work, else one.
    const int sets = plan_.chunks.size() > 1 ? 2 : 1;
    for (int s = 0; s < sets; ++s) {
      Staging& st = staging_[s];
      st.records = pinned_array<double>(m * stride_);
      st.phi = pinned_array<double>(m);
      if (problem.field) {
        st.ex = pinned_array<double>(m);
        st.ey = pinned_array<double>(m);
      }
      st.transfer = std::make_unique<cuda::EventTimer>();
      st.kernel = std::make_unique<cuda::EventTimer>();
      st.ret = std::make_unique<cuda::EventTimer>();
    }
    q_tree_.assign(tree.n_sources(), 0.0);
    problem_ = problem;
  }

  void evaluate(const double* q, double* potential, double* fx, double* fy,
                NearFieldTimings* timings) override {
    check_outputs(problem_, q, potential, fx, fy, name());
    NearFieldTimings local;
    NearFieldTimings& tm = timings ? *timings : local;
    tm = NearFieldTimings{};
    const auto t_total = Clock::now();
    guarded(stream_.get(), [&] { run(q, potential, fx, fy, &tm); });
    tm.device_bytes = device_bytes_;
    tm.chunks = plan_.chunks.size();
    tm.total = since(t_total);
  }

 private:
  /// Pinned host buffers and timers of one chunk in flight.
  struct Staging {
    cuda::PinnedBuffer records, phi, ex, ey;
    std::unique_ptr<cuda::EventTimer> transfer, kernel, ret;
  };

  void run(const double* q, double* potential, double* fx, double* fy, NearFieldTimings* tm) {
    const NearFieldProblem& p = problem_;
    const Tree& tree = *p.tree;
    const bool field = p.field;
    const cuda::Stream& stream = *stream_;
    const auto& chunks = plan_.chunks;
    const std::size_t n_chunks = chunks.size();
    if (n_chunks == 0) return;

    auto t0 = Clock::now();
    cuda::gather_tree_order(tree, q, q_tree_.data(), p.threads);  // q next to tree.sx, sy
    tm->collect += since(t0);

    auto collect = [&](std::size_t k) {
      const auto t = Clock::now();
      cuda::collect_repetition_chunk(tree, *p.plan, chunks[k], q_tree_.data(), stride_, p.threads,
                                     staging_[k % 2].records.as<double>());
      tm->collect += since(t);
    };
    // Enqueue transfer, kernel and return copy of chunk k; nothing waits here.
    auto enqueue = [&](std::size_t k) {
      Staging& st = staging_[k % 2];
      const std::int64_t n = chunks[k].targets();
      st.transfer->start(stream);
      cuda::copy_to_device_async(d_records_.as<double>(), st.records.as<double>(),
                                 8 * std::size_t(n * stride_), stream);
      st.transfer->stop(stream);
      st.kernel->start(stream);
      cuda::NearFieldOut out{d_phi_.as<double>(), d_ex_.as<double>(), d_ey_.as<double>()};
      cuda::launch_repetition(d_records_.as<double>(), n, stride_, out, field, stream.handle());
      st.kernel->stop(stream);
      st.ret->start(stream);
      cuda::copy_to_host_async(st.phi.as<double>(), d_phi_.as<double>(), 8 * std::size_t(n),
                               stream);
      if (field) {
        cuda::copy_to_host_async(st.ex.as<double>(), d_ex_.as<double>(), 8 * std::size_t(n),
                                 stream);
        cuda::copy_to_host_async(st.ey.as<double>(), d_ey_.as<double>(), 8 * std::size_t(n),
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
      Staging& st = staging_[k % 2];
      tm->transfer += st.transfer->seconds();
      tm->kernel += st.kernel->seconds();
      tm->ret += st.ret->seconds();  // waits until chunk k is back on the host
      t0 = Clock::now();
      cuda::scatter_to_caller(tree, chunks[k], st.phi.as<double>(), potential, p.threads);
      if (field) {
        cuda::scatter_to_caller(tree, chunks[k], st.ex.as<double>(), fx, p.threads);
        cuda::scatter_to_caller(tree, chunks[k], st.ey.as<double>(), fy, p.threads);
      }
      tm->ret += since(t0);
    }
  }

  NearFieldProblem problem_;
  std::int64_t stride_ = 3;
  cuda::ChunkPlan plan_;
  std::size_t device_bytes_ = 0;
  std::vector<double> q_tree_;
  std::unique_ptr<cuda::Stream> stream_;
  cuda::DeviceBuffer d_records_, d_phi_, d_ex_, d_ey_;
  Staging staging_[2];
};

}  // namespace

std::unique_ptr<NearFieldBackend> make_indexing_backend() {
  return std::make_unique<IndexingBackend>();
}

std::unique_ptr<NearFieldBackend> make_repetition_backend() {
  return std::make_unique<RepetitionBackend>();
}

}  // namespace mlfma2d
