#pragma once
// Helpers shared by the CUDA back ends (one folder each under nearfield/): the device-memory
// budget, exception safety around asynchronous copies, buffer helpers, and the host-side chunk
// planner and copies. Plain C++ with OpenMP: no CUDA types, so the host parts are tested without
// a GPU (tests/test_collect.cpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/array.hpp"

#include "mlfma2d/errors.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/cuda_common.hpp"

namespace mlfma2d::cuda {

/// Share of the free device memory a back end plans to use (the rest: the runtime, other work).
constexpr double kFreeFraction = 0.9;

/// min(kFreeFraction x free device memory, problem.gpu_memory if nonzero), bytes.
std::size_t device_budget(const NearFieldProblem& p);

/// "123.4" (MiB) for messages.
std::string mb(std::size_t bytes);

/// Throws RuntimeFailure "HEAD X MB of device memory but only Y MB are availableTAIL", HEAD
/// naming the back end, what and the verb ("back end 'shared': the geometry needs").
[[noreturn]] void throw_too_small(const std::string& head, std::size_t need, std::size_t budget,
                                  const std::string& tail = "");

/// Throws InvalidInput unless n_sources and n_targets fit int32 (the device index arrays).
void check_int32_points(const NearFieldProblem& p, const std::string& who);

/// Runs `body`; if it throws, waits for the stream (so no copy still reads or writes a buffer
/// being reused or freed) and rethrows.
template <class F>
void guarded(const Stream* stream, F&& body) {
  try {
    body();
  } catch (...) {
    if (stream) {
      try {
        stream->synchronize();
      } catch (...) {
      }
    }
    throw;
  }
}

/// \brief The run() of every CUDA back end: the device figures into the timings, and the back
/// end's pipeline guarded (an exception waits for its stream before any buffer goes).
class ChargeIo;

class CudaBackend : public NearFieldBackend {
 protected:
  struct Figures {
    std::size_t device_bytes = 0, chunks = 0;
    const Stream* stream = nullptr;
  };
  /// The figures of a back end that plans chunks on the host (the papers' two).
  template <class State>
  static Figures chunked_figures(const State& s) {
    return {s.device_bytes, s.plan.chunks.size(), s.stream.get()};
  }

 private:
  virtual Figures figures() const = 0;
  virtual void pipeline(const NearSources& s, const NearOutputs& o, NearFieldTimings* tm) = 0;
  /// A resident back end's charge path (its pinned staging); null for the others.
  virtual ChargeIo* charge_io() { return nullptr; }
  const ChargeIo* charge_io() const { return const_cast<CudaBackend*>(this)->charge_io(); }
  bool stage_strengths(const NearSources& s, int threads, bool back) final;
  const double* staged_output(int k) const final;
  StagingBuffers staging_area() final;
  StrengthArrays staged_tree_order() final;
  void staged_evaluation_over() final;
  void run(const NearSources& s, const NearOutputs& o, NearFieldTimings* tm) final {
    const Figures f = figures();
    tm->device_bytes = f.device_bytes;
    tm->chunks = f.chunks;
    guarded(f.stream, [&] { pipeline(s, o, tm); });
  }
};

/// A device array of n elements of T; its bytes are added to *total.
template <class T>
DeviceBuffer device_array(std::int64_t n, std::size_t* total) {
  DeviceBuffer b(sizeof(T) * std::size_t(n > 0 ? n : 0));
  *total += b.bytes();
  return b;
}

/// A pinned host array of n elements of T.
template <class T>
PinnedBuffer pinned_array(std::int64_t n) {
  return PinnedBuffer(sizeof(T) * std::size_t(n > 0 ? n : 0));
}

/// A device copy of data[0, n), enqueued on `stream` (complete once the stream is synchronized);
/// its bytes are added to *total.
template <class T>
DeviceBuffer upload(const T* data, std::size_t n, const Stream& stream, std::size_t* total) {
  DeviceBuffer b(sizeof(T) * n);
  copy_to_device_async(b.as<void>(), data, b.bytes(), stream);
  *total += b.bytes();
  return b;
}
template <class T, class A>
DeviceBuffer upload(const std::vector<T, A>& v, const Stream& stream, std::size_t* total) {
  return upload(v.data(), v.size(), stream, total);
}

/// \brief Device arrays kept for a geometry's lifetime: each upload or allocation returns the
/// device pointer for the kernel's argument struct, and the buffer stays here.
class ResidentArrays {
 public:
  template <class T>
  const T* upload(const T* data, std::size_t n, const Stream& stream) {
    buffers_.push_back(cuda::upload(data, n, stream, &bytes_));
    return buffers_.back().as<const T>();
  }
  /// A vector's elements (any allocator).
  template <class V>
  const typename V::value_type* upload(const V& v, const Stream& stream) {
    return upload(v.data(), v.size(), stream);
  }
  template <class T>
  T* allocate(std::size_t n) {
    buffers_.push_back(device_array<T>(std::int64_t(n), &bytes_));
    return buffers_.back().as<T>();
  }
  std::size_t bytes() const { return bytes_; }

 private:
  std::vector<DeviceBuffer> buffers_;
  std::size_t bytes_ = 0;
};

/// A device buffer's data as const T* (null when empty).
template <class T>
const T* cptr(const DeviceBuffer& b) {
  return b.as<const T>();
}

/// int64 indices as int32 (the caller checked they fit).
Array<std::int32_t> as_int32(const std::int64_t* v, std::size_t n, int threads);

/// \brief Where a kernel writes: potential and, with the field, E = (ex, ey), with the Hessian
/// hxx, hxy (else null). Several densities' arrays follow one another (density d at d * stride,
/// the stride given beside).
struct NearFieldOut {
  double *phi = nullptr, *ex = nullptr, *ey = nullptr, *hxx = nullptr, *hxy = nullptr;
};

/// The array `a` moved on by `by` elements (a later density's); null stays null.
template <class T>
T* advance(T* a, std::int64_t by) {
  return a ? a + by : nullptr;
}
/// Every array of `o` moved on by `by` elements.
inline NearFieldOut advance(const NearFieldOut& o, std::int64_t by) {
  return {advance(o.phi, by), advance(o.ex, by), advance(o.ey, by), advance(o.hxx, by),
          advance(o.hxy, by)};
}

// ---- Chunks: an evaluation may process the targets in chunks of whole near leaves, in order,
// so that the device arrays of one chunk fit the device-memory budget. The near leaves' target
// ranges tile the tree-ordered targets, so a chunk's targets are one contiguous range.

/// \brief Near leaves [leaf_begin, leaf_end) and their targets [tgt_begin, tgt_end) (tree order);
/// `neighbors` = the sum of the leaves' near-source counts.
struct Chunk {
  std::int64_t leaf_begin = 0, leaf_end = 0;
  std::int64_t tgt_begin = 0, tgt_end = 0;
  std::int64_t neighbors = 0;
  std::int64_t leaves() const { return leaf_end - leaf_begin; }
  std::int64_t targets() const { return tgt_end - tgt_begin; }
};

/// \brief Device bytes of a back end as a function of its chunk shape:
///   fixed + per_chunk + per_target * targets + per_leaf * leaves + per_neighbor * neighbors.
/// `fixed` are the arrays resident for the whole evaluation; the rest is the chunk's own arrays.
struct ChunkCost {
  std::size_t fixed = 0, per_chunk = 0, per_target = 0, per_leaf = 0, per_neighbor = 0;
  std::size_t bytes(const Chunk& c) const {
    return fixed + per_chunk + per_target * std::size_t(c.targets()) +
           per_leaf * std::size_t(c.leaves()) + per_neighbor * std::size_t(c.neighbors);
  }
};

/// \brief The chunks of one evaluation. The per-chunk arrays live in one buffer of
/// `chunk_bytes` = the largest chunk's own bytes, reused by every chunk, so the device memory
/// allocated, `bytes` = fixed + chunk_bytes, is within the budget.
struct ChunkPlan {
  std::vector<Chunk> chunks;
  std::int64_t max_targets = 0;  ///< most targets in one chunk
  std::size_t chunk_bytes = 0;
  std::size_t bytes = 0;
};

/// Split the near leaves, in order, into chunks: greedily add leaves while the chunk's cost stays
/// <= budget and it holds <= max_targets targets (a chunk always holds at least one leaf, so a
/// leaf with more targets than max_targets is a chunk of its own). Throws RuntimeFailure
/// "<who>one chunk of K targets needs X MB of device memory but only Y MB are available" when
/// one leaf cannot fit.
ChunkPlan plan_chunks(const NearField& near, const ChunkCost& cost, std::size_t budget,
                      std::size_t max_targets, const std::string& who);

/// q_tree[i] = q[src_index[i]]: charges in tree order, next to the tree-ordered coordinates.
void gather_tree_order(const NearFieldProblem& p, const double* q, double* q_tree);

/// out[tgt_index[c.tgt_begin + i]] = in[i] for i < c.targets(): tree-ordered chunk results into
/// caller order.
void scatter_to_caller(const NearFieldProblem& p, const Chunk& c, const double* in, double* out);

// ---- Device copies (device_copy.cu).

/// q_tree[c * n + i] = q[c * n + index[i]], i < n, c < channels (strengths into tree order, each
/// channel an array of n), on `stream` (a cudaStream_t).
void launch_gather(const double* q, const std::int32_t* index, std::int64_t n, int channels,
                   double* q_tree, void* stream);

/// out.X[d * out_stride + index[i]] = in.X[d * in_stride + i], i < n, d < densities, for each
/// array X of `out` that is not null (`in` has them too): results in tree order into caller
/// order.
void launch_scatter(const NearFieldOut& in, std::int64_t in_stride, const std::int32_t* index,
                    std::int64_t n, int densities, const NearFieldOut& out, std::int64_t out_stride,
                    void* stream);

}  // namespace mlfma2d::cuda
