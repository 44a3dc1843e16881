#pragma once
// Charges in, results out, for the back ends that keep the geometry resident on the device
// ('shared', 'repetition-gpu'): pinned staging, the device copies, the gather of the charges to
// tree order on the GPU, and the copy of the caller-order results back into the caller's arrays.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/backend_util.hpp"
#include "nearfield/cuda/common/cuda_common.hpp"
#include "runtime/trace.hpp"

namespace mlfma2d::cuda {

class ChargeIo {
 public:
  /// Allocates and uploads (enqueued on `stream`); adds the device bytes to *bytes.
  void setup(const NearFieldProblem& p, const Stream& stream, std::size_t* bytes);

  /// Device bytes setup() allocates.
  static std::size_t bytes(const NearFieldProblem& p);

  /// Makes the pinned buffers setup() will take for these sizes now (reserve_pinned).
  static void reserve(std::size_t n_sources, std::size_t n_targets, bool field);

  /// Collect (host part) and enqueue transfer and gather.
  void charges_in(const double* q, const Stream& stream, EventTimer* transfer, EventTimer* gather,
                  NearFieldTimings* tm);

  /// The caller-order results device to pinned host (timed by `ret`, waited for) and on into the
  /// caller's arrays: the return phase.
  void results_to_caller(const Stream& stream, EventTimer* ret, double* potential, double* fx,
                         double* fy, NearFieldTimings* tm);

  const double* q_tree() const { return cptr<double>(d_q_tree_); }
  NearFieldOut out() const { return {d_phi_.as<double>(), d_ex_.as<double>(), d_ey_.as<double>()}; }

 private:
  std::size_t ns_ = 0, nt_ = 0;
  bool field_ = false;
  int threads_ = 1;
  DeviceBuffer d_src_index_, d_q_, d_q_tree_, d_phi_, d_ex_, d_ey_;
  PinnedBuffer h_q_, h_phi_, h_ex_, h_ey_;
};

/// \brief What a resident back end holds for one geometry: its stream and phase timers, the
/// charge path, and the device arrays of its layout.
struct ResidentState {
  // The stream first, so that it is destroyed after the buffers.
  std::unique_ptr<Stream> stream;
  std::unique_ptr<EventTimer> transfer, gather, kernel, ret;
  ChargeIo io;
  ResidentArrays arrays;
  std::size_t io_bytes = 0;
  /// Creates the stream and timers, sets up the charge path, runs fill(stream, arrays) (the
  /// layout's uploads) and waits for the copies; an exception waits for the stream first.
  template <class Fill>
  void setup(const NearFieldProblem& p, Fill&& fill) {
    stream = std::make_unique<Stream>();
    for (auto* t : {&transfer, &gather, &kernel, &ret}) *t = std::make_unique<EventTimer>();
    guarded(stream.get(), [&] {
      {
        const TraceScope trace("charge path: device and pinned buffers");
        io.setup(p, *stream, &io_bytes);
      }
      const TraceScope trace("layout uploaded");
      fill(*stream, arrays);
      stream->synchronize();  // the host arrays may go once the copies are done
    });
  }
  std::size_t device_bytes() const { return io_bytes + arrays.bytes(); }
};

}  // namespace mlfma2d::cuda
