// The CUDA back ends 'shared' and 'repetition-gpu' (docs/performance-gpu.md).
//
// Unlike 'indexing' and 'repetition' (the papers' pipelines, rebuilt on every evaluation), both
// keep the geometry resident on the device from setup() on, so an evaluation moves only the
// charges in (n_sources doubles) and the caller-order results out:
//   collect  -- caller charges into pinned memory (host) + the gather to tree order (GPU);
//               repetition-gpu: + the GPU kernel that writes the padded records
//   transfer -- charges host to device
//   kernel   -- the pair sums
//   return   -- (repetition-gpu: scatter to caller order on the GPU) + results device to host
//               + pinned to the caller's arrays
// GPU phases are timed with CUDA events, host phases with the wall clock.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "mlfma2d/errors.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/cuda/collect.hpp"
#include "nearfield/cuda/backend_util.hpp"
#include "nearfield/cuda/cuda_common.hpp"
#include "nearfield/cuda/fast_backends.hpp"
#include "nearfield/cuda/fast_kernels.hpp"
#include "nearfield/cuda/fast_layout.hpp"

namespace mlfma2d {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Automatic repetition-gpu chunks hold at most this many record bytes (4 GiB: > 1e6 targets at
/// t = 15, several waves of the whole GPU), so the device memory stays bounded whatever N.
constexpr std::size_t kAutoChunkRecordBytes = std::size_t(4) << 30;
/// Host threads for the charge and result copies: they are memory bound, and in the Solver they
/// run beside the far field's threads.
constexpr int kCopyThreads = 4;

std::string mb(std::size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", double(bytes) / (1024.0 * 1024.0));
  return buf;
}

int copy_threads(int threads) {
  const int t = threads > 0 ? threads : omp_get_max_threads();
  return std::max(1, std::min(t, kCopyThreads));
}

void check_problem(const NearFieldProblem& p, const std::string& name) {
  if (!p.tree || !p.plan) throw InvalidInput("back end '" + name + "': setup without tree or plan");
}

using cuda::check_outputs;
using cuda::device_budget;
using cuda::guarded;

template <class T>
std::size_t bytes_of(std::size_t n) {
  return sizeof(T) * n;
}

/// A device copy of `v` (synchronous with respect to `stream` once it is synchronized).
template <class T>
cuda::DeviceBuffer upload(const std::vector<T>& v, const cuda::Stream& stream, std::size_t* total) {
  cuda::DeviceBuffer b(bytes_of<T>(v.size()));
  cuda::copy_to_device_async(b.as<void>(), v.data(), b.bytes(), stream);
  *total += b.bytes();
  return b;
}

template <class T>
cuda::DeviceBuffer device_array(std::size_t n, std::size_t* total) {
  cuda::DeviceBuffer b(bytes_of<T>(n));
  *total += b.bytes();
  return b;
}

/// Pointer to a device buffer's data as const T* (null when empty).
template <class T>
const T* cptr(const cuda::DeviceBuffer& b) {
  return b.as<const T>();
}

std::vector<std::int32_t> as_int32(const std::vector<std::int64_t>& v, int threads) {
  std::vector<std::int32_t> out(v.size());
  const auto n = static_cast<std::int64_t>(v.size());
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : omp_get_max_threads())
  for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<std::int32_t>(v[i]);
  return out;
}

void throw_too_small(const std::string& name, const std::string& what, std::size_t need,
                     std::size_t budget) {
  throw RuntimeFailure("back end '" + name + "': " + what + " needs " + mb(need) +
                       " MB of device memory but only " + mb(budget) + " MB are available");
}

// ---------------------------------------------------------------------------------------------
/// \brief Charges in, results out, shared by both back ends: pinned staging, the device copies,
/// the gather to tree order, and the copy back into the caller's arrays.
class ChargeIo {
 public:
  void setup(const Tree& tree, bool field, int threads, const cuda::Stream& stream,
             std::size_t* bytes) {
    ns_ = tree.n_sources();
    nt_ = tree.n_targets();
    field_ = field;
    threads_ = copy_threads(threads);
    d_src_index_ = upload(as_int32(tree.src_index, threads), stream, bytes);
    d_q_ = device_array<double>(ns_, bytes);
    d_q_tree_ = device_array<double>(ns_, bytes);
    d_phi_ = device_array<double>(nt_, bytes);
    if (field) {
      d_ex_ = device_array<double>(nt_, bytes);
      d_ey_ = device_array<double>(nt_, bytes);
    }
    h_q_ = cuda::PinnedBuffer(bytes_of<double>(ns_));
    h_phi_ = cuda::PinnedBuffer(bytes_of<double>(nt_));
    if (field) {
      h_ex_ = cuda::PinnedBuffer(bytes_of<double>(nt_));
      h_ey_ = cuda::PinnedBuffer(bytes_of<double>(nt_));
    }
  }

  /// Device bytes setup() will allocate.
  static std::size_t bytes(const Tree& tree, bool field) {
    const std::size_t ns = tree.n_sources(), nt = tree.n_targets();
    return 4 * ns + 16 * ns + 8 * nt * (field ? 3 : 1);
  }

  /// Collect (host part) and enqueue transfer and gather.
  void charges_in(const double* q, const cuda::Stream& stream, cuda::EventTimer* transfer,
                  cuda::EventTimer* gather, NearFieldTimings* tm) {
    const auto t0 = Clock::now();
    cuda::copy_parallel(q, ns_, h_q_.as<double>(), threads_);
    tm->collect += since(t0);
    transfer->start(stream);
    cuda::copy_to_device_async(d_q_.as<void>(), h_q_.as<void>(), bytes_of<double>(ns_), stream);
    transfer->stop(stream);
    gather->start(stream);
    cuda::launch_gather(cptr<double>(d_q_), cptr<std::int32_t>(d_src_index_),
                        static_cast<std::int64_t>(ns_), d_q_tree_.as<double>(), stream.handle());
    gather->stop(stream);
  }

  /// Enqueue the copies of the caller-order results to pinned memory.
  void results_out(const cuda::Stream& stream, cuda::EventTimer* ret) {
    ret->start(stream);
    cuda::copy_to_host_async(h_phi_.as<void>(), d_phi_.as<void>(), bytes_of<double>(nt_), stream);
    if (field_) {
      cuda::copy_to_host_async(h_ex_.as<void>(), d_ex_.as<void>(), bytes_of<double>(nt_), stream);
      cuda::copy_to_host_async(h_ey_.as<void>(), d_ey_.as<void>(), bytes_of<double>(nt_), stream);
    }
    ret->stop(stream);
  }

  /// After results_out() completed: pinned to the caller's arrays.
  void to_caller(double* potential, double* fx, double* fy, NearFieldTimings* tm) {
    const auto t0 = Clock::now();
    cuda::copy_parallel(h_phi_.as<double>(), nt_, potential, threads_);
    if (field_) {
      cuda::copy_parallel(h_ex_.as<double>(), nt_, fx, threads_);
      cuda::copy_parallel(h_ey_.as<double>(), nt_, fy, threads_);
    }
    tm->ret += since(t0);
  }

  const double* q_tree() const { return cptr<double>(d_q_tree_); }
  const std::int32_t* src_index() const { return cptr<std::int32_t>(d_src_index_); }
  cuda::NearFieldOut out() const {
    return {d_phi_.as<double>(), d_ex_.as<double>(), d_ey_.as<double>()};
  }

 private:
  std::size_t ns_ = 0, nt_ = 0;
  bool field_ = false;
  int threads_ = 1;
  cuda::DeviceBuffer d_src_index_, d_q_, d_q_tree_, d_phi_, d_ex_, d_ey_;
  cuda::PinnedBuffer h_q_, h_phi_, h_ex_, h_ey_;
};

// ---------------------------------------------------------------------------------------------
/// \brief 'shared': geometry resident on the device; one block per group of leaves with the
/// group's E1 union staged in shared memory (fast_layout.hpp, shared.cu).
class SharedBackend final : public NearFieldBackend {
 public:
  explicit SharedBackend(cuda::SharedMode mode) : mode_(mode) {}
  std::string name() const override { return "shared"; }
  bool runs_on_device() const override { return true; }

  void setup(const NearFieldProblem& problem) override {
    check_problem(problem, name());
    release();
    const Tree& tree = *problem.tree;
    cuda::check_int32_points(tree, name());
    const cuda::LeafSegments segs = cuda::leaf_segments(tree, *problem.plan, problem.threads);
    cuda::SharedLayout l = cuda::shared_layout(tree, *problem.plan, segs, mode_, cuda::kSharedBlock,
                                               cuda::kSharedTile, problem.threads);
    const std::size_t ns = tree.n_sources(), nt = tree.n_targets();
    // Slot arrays: target coordinates in slot order and each slot's caller index.
    std::vector<double> slot_x(nt), slot_y(nt);
    std::vector<std::int32_t> slot_out(nt);
    const auto n_slots = static_cast<std::int64_t>(nt);
#pragma omp parallel for schedule(static) \
    num_threads(problem.threads > 0 ? problem.threads : omp_get_max_threads())
    for (std::int64_t s = 0; s < n_slots; ++s) {
      const std::int32_t i = l.slot_tgt[s];
      slot_x[s] = tree.tx[i];
      slot_y[s] = tree.ty[i];
      slot_out[s] = static_cast<std::int32_t>(tree.tgt_index[i]);
    }
    l.slot_tgt = {};

    const std::size_t need = ChargeIo::bytes(tree, problem.field) + 16 * ns + 16 * nt + 8 * nt +
                             8 * (l.group_slot.size() + l.group_union.size()) +
                             l.group_dense.size() + 4 * l.union_src.size() + 8 * l.leaf_seg.size() +
                             4 * l.leaf_n.size() + 4 * l.seg.size();
    const std::size_t budget = device_budget(problem);
    if (need > budget) throw_too_small(name(), "the geometry kept on the device", need, budget);

    stream_ = std::make_unique<cuda::Stream>();
    transfer_ = std::make_unique<cuda::EventTimer>();
    gather_ = std::make_unique<cuda::EventTimer>();
    kernel_ = std::make_unique<cuda::EventTimer>();
    return_ = std::make_unique<cuda::EventTimer>();
    const cuda::Stream& s = *stream_;
    std::size_t bytes = 0;
    guarded(stream_.get(), [&] {
      io_.setup(tree, problem.field, problem.threads, s, &bytes);
      d_sx_ = upload(tree.sx, s, &bytes);
      d_sy_ = upload(tree.sy, s, &bytes);
      d_slot_x_ = upload(slot_x, s, &bytes);
      d_slot_y_ = upload(slot_y, s, &bytes);
      d_slot_out_ = upload(slot_out, s, &bytes);
      d_slot_leaf_ = upload(l.slot_leaf, s, &bytes);
      d_group_slot_ = upload(l.group_slot, s, &bytes);
      d_group_union_ = upload(l.group_union, s, &bytes);
      d_group_dense_ = upload(l.group_dense, s, &bytes);
      d_union_src_ = upload(l.union_src, s, &bytes);
      d_leaf_seg_ = upload(l.leaf_seg, s, &bytes);
      d_leaf_n_ = upload(l.leaf_n, s, &bytes);
      d_seg_ = upload(l.seg, s, &bytes);
      s.synchronize();  // the host vectors go out of scope
    });
    device_bytes_ = bytes;
    groups_ = l.groups();
    problem_ = problem;
  }

  void evaluate(const double* q, double* potential, double* fx, double* fy,
                NearFieldTimings* timings) override {
    check_outputs(problem_, q, potential, fx, fy, name());
    NearFieldTimings local;
    NearFieldTimings& tm = timings ? *timings : local;
    tm = NearFieldTimings{};
    const auto t_total = Clock::now();
    if (problem_.tree->n_targets() > 0) {
      guarded(stream_.get(), [&] { run(q, potential, fx, fy, &tm); });
    }
    tm.device_bytes = device_bytes_;
    tm.chunks = 1;
    tm.total = since(t_total);
  }

 private:
  void run(const double* q, double* potential, double* fx, double* fy, NearFieldTimings* tm) {
    const cuda::Stream& s = *stream_;
    io_.charges_in(q, s, transfer_.get(), gather_.get(), tm);
    cuda::SharedArrays a;
    a.sx = cptr<double>(d_sx_);
    a.sy = cptr<double>(d_sy_);
    a.q = io_.q_tree();
    a.group_slot = cptr<std::int64_t>(d_group_slot_);
    a.group_union = cptr<std::int64_t>(d_group_union_);
    a.group_dense = cptr<std::uint8_t>(d_group_dense_);
    a.union_src = cptr<std::int32_t>(d_union_src_);
    a.slot_x = cptr<double>(d_slot_x_);
    a.slot_y = cptr<double>(d_slot_y_);
    a.slot_out = cptr<std::int32_t>(d_slot_out_);
    a.slot_leaf = cptr<std::int32_t>(d_slot_leaf_);
    a.leaf_seg = cptr<std::int64_t>(d_leaf_seg_);
    a.leaf_n = cptr<std::int32_t>(d_leaf_n_);
    a.seg = cptr<std::int32_t>(d_seg_);
    a.groups = groups_;
    kernel_->start(s);
    cuda::launch_shared(a, io_.out(), problem_.field, s.handle());
    kernel_->stop(s);
    io_.results_out(s, return_.get());
    tm->ret += return_->seconds();  // waits for the results
    tm->transfer += transfer_->seconds();
    tm->collect += gather_->seconds();
    tm->kernel += kernel_->seconds();
    io_.to_caller(potential, fx, fy, tm);
  }

  void release() {
    io_ = ChargeIo();
    for (cuda::DeviceBuffer* b :
         {&d_sx_, &d_sy_, &d_slot_x_, &d_slot_y_, &d_slot_out_, &d_slot_leaf_, &d_group_slot_,
          &d_group_union_, &d_group_dense_, &d_union_src_, &d_leaf_seg_, &d_leaf_n_, &d_seg_}) {
      *b = cuda::DeviceBuffer();
    }
    device_bytes_ = 0;
    groups_ = 0;
    problem_ = NearFieldProblem();
  }

  cuda::SharedMode mode_;
  NearFieldProblem problem_;
  std::size_t device_bytes_ = 0;
  std::int64_t groups_ = 0;
  // Declared before the buffers so it is destroyed after them.
  std::unique_ptr<cuda::Stream> stream_;
  std::unique_ptr<cuda::EventTimer> transfer_, gather_, kernel_, return_;
  ChargeIo io_;
  cuda::DeviceBuffer d_sx_, d_sy_, d_slot_x_, d_slot_y_, d_slot_out_, d_slot_leaf_;
  cuda::DeviceBuffer d_group_slot_, d_group_union_, d_group_dense_, d_union_src_;
  cuda::DeviceBuffer d_leaf_seg_, d_leaf_n_, d_seg_;
};

// ---------------------------------------------------------------------------------------------
/// \brief 'repetition-gpu': the papers' repetition records [x, y, n, (sx, sy, q) * n] (stride
/// 3 + 27t) built on the GPU from the resident compact arrays, chunk by chunk of tree-ordered
/// targets, summed by the unchanged 'repetition' kernel, scattered to caller order on the GPU.
class RepetitionGpuBackend final : public NearFieldBackend {
 public:
  std::string name() const override { return "repetition-gpu"; }
  bool runs_on_device() const override { return true; }

  void setup(const NearFieldProblem& problem) override {
    check_problem(problem, name());
    release();
    const Tree& tree = *problem.tree;
    cuda::check_int32_points(tree, name());
    const cuda::LeafSegments segs = cuda::leaf_segments(tree, *problem.plan, problem.threads);
    const std::vector<std::int32_t> tgt_leaf = cuda::target_leaves(tree, problem.threads);
    stride_ = cuda::repetition_stride(tree);
    const std::int32_t most =
        segs.count.empty() ? 0 : *std::max_element(segs.count.begin(), segs.count.end());
    if (3 + 3 * std::int64_t(most) > stride_) {
      throw RuntimeFailure("internal error: back end 'repetition-gpu': a leaf's E1 holds " +
                           std::to_string(most) +
                           " sources, more than 9t = " + std::to_string(9 * tree.t));
    }
    const std::size_t ns = tree.n_sources(), nt = tree.n_targets();
    const int outs = problem.field ? 3 : 1;
    const std::size_t resident = ChargeIo::bytes(tree, problem.field) + 16 * nt + 16 * ns + 4 * nt +
                                 4 * nt + 8 * segs.begin.size() + 4 * segs.count.size() +
                                 4 * segs.seg.size();
    const std::size_t per_target = 8 * std::size_t(stride_) + 8 * std::size_t(outs);
    const std::size_t budget = device_budget(problem);
    if (resident > budget) {
      throw_too_small(name(), "the geometry kept on the device", resident, budget);
    }
    const std::size_t cap =
        problem.chunk_targets > 0
            ? problem.chunk_targets
            : std::max<std::size_t>(1, kAutoChunkRecordBytes / (8 * std::size_t(stride_)));
    chunk_ = std::min({std::max<std::size_t>(nt, 1), cap, (budget - resident) / per_target});
    if (chunk_ == 0) {
      throw_too_small(name(), "one chunk of 1 target (its record and the resident geometry)",
                      resident + per_target, budget);
    }

    stream_ = std::make_unique<cuda::Stream>();
    transfer_ = std::make_unique<cuda::EventTimer>();
    gather_ = std::make_unique<cuda::EventTimer>();
    records_ = std::make_unique<cuda::EventTimer>();
    kernel_ = std::make_unique<cuda::EventTimer>();
    scatter_ = std::make_unique<cuda::EventTimer>();
    return_ = std::make_unique<cuda::EventTimer>();
    const cuda::Stream& s = *stream_;
    std::size_t bytes = 0;
    guarded(stream_.get(), [&] {
      io_.setup(tree, problem.field, problem.threads, s, &bytes);
      d_tx_ = upload(tree.tx, s, &bytes);
      d_ty_ = upload(tree.ty, s, &bytes);
      d_sx_ = upload(tree.sx, s, &bytes);
      d_sy_ = upload(tree.sy, s, &bytes);
      d_tgt_index_ = upload(as_int32(tree.tgt_index, problem.threads), s, &bytes);
      d_tgt_leaf_ = upload(tgt_leaf, s, &bytes);
      d_leaf_seg_ = upload(segs.begin, s, &bytes);
      d_leaf_n_ = upload(segs.count, s, &bytes);
      d_seg_ = upload(segs.seg, s, &bytes);
      d_records_ = device_array<double>(chunk_ * std::size_t(stride_), &bytes);
      d_phi_ = device_array<double>(chunk_, &bytes);
      if (problem.field) {
        d_ex_ = device_array<double>(chunk_, &bytes);
        d_ey_ = device_array<double>(chunk_, &bytes);
      }
      s.synchronize();
    });
    device_bytes_ = bytes;
    problem_ = problem;
  }

  void evaluate(const double* q, double* potential, double* fx, double* fy,
                NearFieldTimings* timings) override {
    check_outputs(problem_, q, potential, fx, fy, name());
    NearFieldTimings local;
    NearFieldTimings& tm = timings ? *timings : local;
    tm = NearFieldTimings{};
    const auto t_total = Clock::now();
    const auto nt = static_cast<std::int64_t>(problem_.tree->n_targets());
    if (nt > 0) guarded(stream_.get(), [&] { run(q, potential, fx, fy, &tm); });
    tm.device_bytes = device_bytes_;
    tm.chunks = nt > 0 ? std::size_t((nt + std::int64_t(chunk_) - 1) / std::int64_t(chunk_)) : 0;
    tm.total = since(t_total);
  }

 private:
  void run(const double* q, double* potential, double* fx, double* fy, NearFieldTimings* tm) {
    const cuda::Stream& s = *stream_;
    const bool field = problem_.field;
    const auto nt = static_cast<std::int64_t>(problem_.tree->n_targets());
    io_.charges_in(q, s, transfer_.get(), gather_.get(), tm);
    tm->transfer += transfer_->seconds();
    tm->collect += gather_->seconds();

    cuda::RecordArrays a;
    a.tx = cptr<double>(d_tx_);
    a.ty = cptr<double>(d_ty_);
    a.sx = cptr<double>(d_sx_);
    a.sy = cptr<double>(d_sy_);
    a.q = io_.q_tree();
    a.tgt_leaf = cptr<std::int32_t>(d_tgt_leaf_);
    a.leaf_seg = cptr<std::int64_t>(d_leaf_seg_);
    a.leaf_n = cptr<std::int32_t>(d_leaf_n_);
    a.seg = cptr<std::int32_t>(d_seg_);
    const cuda::NearFieldOut chunk_out{d_phi_.as<double>(), d_ex_.as<double>(), d_ey_.as<double>()};
    const auto m = static_cast<std::int64_t>(chunk_);
    // Chunks of any tree-order target range: every record is built on the device from the
    // resident arrays, so chunks need not hold whole leaves. The records buffer is reused, so
    // each chunk is waited for (the timers' seconds()).
    for (std::int64_t first = 0; first < nt; first += m) {
      const std::int64_t count = std::min(m, nt - first);
      records_->start(s);
      cuda::launch_records(a, first, count, stride_, d_records_.as<double>(), s.handle());
      records_->stop(s);
      kernel_->start(s);
      cuda::launch_repetition(d_records_.as<double>(), count, stride_, chunk_out, field,
                              s.handle());
      kernel_->stop(s);
      scatter_->start(s);
      cuda::launch_scatter(chunk_out, cptr<std::int32_t>(d_tgt_index_) + first, count, io_.out(),
                           field, s.handle());
      scatter_->stop(s);
      tm->ret += scatter_->seconds();
      tm->collect += records_->seconds();
      tm->kernel += kernel_->seconds();
    }
    io_.results_out(s, return_.get());
    tm->ret += return_->seconds();
    io_.to_caller(potential, fx, fy, tm);
  }

  void release() {
    io_ = ChargeIo();
    for (cuda::DeviceBuffer* b :
         {&d_tx_, &d_ty_, &d_sx_, &d_sy_, &d_tgt_index_, &d_tgt_leaf_, &d_leaf_seg_, &d_leaf_n_,
          &d_seg_, &d_records_, &d_phi_, &d_ex_, &d_ey_}) {
      *b = cuda::DeviceBuffer();
    }
    device_bytes_ = 0;
    chunk_ = 0;
    problem_ = NearFieldProblem();
  }

  NearFieldProblem problem_;
  std::int64_t stride_ = 3;
  std::size_t chunk_ = 0;  ///< targets per chunk
  std::size_t device_bytes_ = 0;
  std::unique_ptr<cuda::Stream> stream_;
  std::unique_ptr<cuda::EventTimer> transfer_, gather_, records_, kernel_, scatter_, return_;
  ChargeIo io_;
  cuda::DeviceBuffer d_tx_, d_ty_, d_sx_, d_sy_, d_tgt_index_, d_tgt_leaf_;
  cuda::DeviceBuffer d_leaf_seg_, d_leaf_n_, d_seg_;
  cuda::DeviceBuffer d_records_, d_phi_, d_ex_, d_ey_;
};

}  // namespace

std::unique_ptr<NearFieldBackend> make_shared_backend(cuda::SharedMode mode) {
  return std::make_unique<SharedBackend>(mode);
}

std::unique_ptr<NearFieldBackend> make_shared_backend() {
  return make_shared_backend(cuda::SharedMode::kGroups);
}

std::unique_ptr<NearFieldBackend> make_repetition_gpu_backend() {
  return std::make_unique<RepetitionGpuBackend>();
}

}  // namespace mlfma2d
