#pragma once
// Strengths in, results out, for the back ends that keep the geometry resident on the device
// ('shared', 'repetition-gpu'): pinned staging, the device copies, the gather of the strengths
// (nd x (q, mx, my), the kinds carried) to tree order on the GPU (and, in a staged evaluation, its
// copy back to the host for the far field), and the copy of the caller-order results (nd x (phi,
// ex, ey, hxx, hxy), those wanted) back into the caller's arrays.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/backend_util.hpp"
#include "nearfield/cuda/common/cuda_common.hpp"
#include "runtime/trace.hpp"

namespace mlfma2d::cuda {

/// \brief The buffers of the charge path for one shape: the one table from which setup()
/// allocates, bytes() counts and reserve() makes the pinned ones ahead. The strengths are
/// `channels` arrays of n_sources, kind by kind (the charges of every density, then mx, then
/// my: channel k * nd + d); each output wanted is nd arrays of n_targets.
struct ChargeIoSizes {
  std::size_t n_sources = 0, n_targets = 0;
  int densities = 1;
  int kinds = 1;  ///< strengths per density: 1 (q), 2 (mx, my) or 3 (q, mx, my)
  bool field = false, hessian = false;
  explicit ChargeIoSizes(const ChargeShape& s);
  int channels() const { return densities * kinds; }
  /// Output arrays wanted: phi; ex, ey with the field; hxx, hxy with the Hessian.
  bool wants(int output) const { return output == 0 || (output <= 2 ? field : hessian); }
  std::size_t strength_doubles() const { return std::size_t(channels()) * n_sources; }
  /// A staged evaluation copies its strengths back in tree order (nearfield/backend.hpp:
  /// strengths_back): h_tree_ and its stream exist.
  bool back = false;
  std::size_t output_doubles() const { return std::size_t(densities) * n_targets; }
  /// Device bytes: the source permutation (int32), the strengths in caller and in tree order,
  /// the outputs wanted.
  std::size_t device_bytes() const;
};

/// What a resident back end keeps on the device, for the message when it does not fit: "the
/// geometry kept on the device", with several densities "the geometry and the strengths and
/// outputs of 8 densities kept on the device".
std::string resident_what(const NearFieldProblem& p);

class ChargeIo {
 public:
  /// The outputs, in NearFieldOut's order.
  static constexpr int kOutputs = 5;

  /// Allocates and uploads (enqueued on `stream`); adds the device bytes to *bytes.
  void setup(const NearFieldProblem& p, const Stream& stream, std::size_t* bytes);

  /// Device bytes setup() allocates.
  static std::size_t bytes(const NearFieldProblem& p);

  /// Makes the pinned buffers setup() will take for this shape now (reserve_pinned).
  static void reserve(const ChargeShape& shape);

  /// The caller's strengths into pinned memory with `threads` threads, ahead of the evaluation
  /// (NearFieldBackend::stage_in): the next charges_in() takes them from there (and, with
  /// `back`, copies them back in tree order once gathered: tree_on_host()), and the results of
  /// that evaluation stay in pinned memory (result()).
  void stage_in(const NearSources& in, int threads, bool back);
  /// The strengths of the evaluation stage_in() began, in tree order in pinned memory (the
  /// kinds carried; null for the others), called from another thread than the evaluation's:
  /// waits until charges_in() has asked for the copy, then for the copy. All null when that
  /// evaluation ended without it (end_staged()).
  StrengthArrays tree_on_host();
  /// The evaluation's end, whichever way (NearFieldBackend::evaluate): a tree_on_host() still
  /// waiting for charges_in() returns nulls.
  void end_staged();

  /// Where copy_in() puts each kind carried (pinned, nd x n_sources a kind; null for a kind not
  /// carried): a kind the caller wrote there itself is not copied.
  StagingBuffers staging();

  /// Collect (host part: the caller's strengths into pinned memory, unless stage_in() put them
  /// there) and enqueue transfer and gather to tree order.
  void charges_in(const NearSources& in, const Stream& stream, EventTimer* transfer,
                  EventTimer* gather, NearFieldTimings* tm);

  /// The caller-order results device to pinned host (timed by `ret`, waited for) and on into the
  /// caller's arrays (not for an evaluation stage_in() began: result() then holds them): the
  /// return phase.
  void results_to_caller(const Stream& stream, EventTimer* ret, const NearOutputs& o,
                         NearFieldTimings* tm);

  /// Output k (NearFieldOut's order) of the last evaluation stage_in() began, caller order, nd x
  /// n_targets, in pinned memory; null when not wanted or no such evaluation ran.
  const double* result(int k) const;

  /// The strengths in tree order, nd arrays of n_sources each (density d at d * n_sources); null
  /// for a kind the problem does not carry.
  const double* q_tree() const { return tree(kCharge); }
  const double* mx_tree() const { return tree(kMx); }
  const double* my_tree() const { return tree(kMy); }
  /// The device outputs in caller order (nd x n_targets each; null where not wanted).
  NearFieldOut out() const;
  /// The caller index of each tree-ordered source (int32; in self-evaluation of each target).
  const std::int32_t* src_index() const { return cptr<std::int32_t>(d_src_index_); }

 private:
  enum Kind { kCharge, kMx, kMy };
  const double* tree(Kind k) const;
  /// Copies the kinds carried into the pinned strengths with `threads` threads.
  void copy_in(const NearSources& in, int threads);
  /// Kind k's nd arrays in `all`, the kinds carried one after the other (h_in_, d_in_, d_tree_,
  /// h_tree_); null for a kind not carried.
  template <class T>
  T* kind_in(T* all, Kind k) const;
  // The tree-order strengths' way back (a staged evaluation): pending from stage_in() until
  // charges_in() enqueues the copy (copying) or the evaluation ends without it (none). Its own
  // stream, so that the copy runs beside the kernels; the state's lock apart (ChargeIo moves).
  enum class Back { kNone, kPending, kCopying };
  struct Handshake {
    std::mutex m;
    std::condition_variable cv;
    Back state = Back::kNone;
  };
  void set_back(Back b);
  std::unique_ptr<Handshake> back_ = std::make_unique<Handshake>();
  std::unique_ptr<Stream> back_stream_;
  std::unique_ptr<EventTimer> back_copy_;
  std::size_t ns_ = 0, nt_ = 0;
  int nd_ = 1;
  bool charges_ = true, dipoles_ = false;
  bool wanted_[kOutputs] = {};
  int threads_ = 1;
  // stage_in() filled the pinned strengths for the next evaluation; that evaluation (running)
  // leaves its results in pinned memory.
  bool staged_ = false, running_staged_ = false, results_staged_ = false;
  DeviceBuffer d_src_index_, d_in_, d_tree_, d_out_[kOutputs];
  PinnedBuffer h_in_, h_tree_, h_out_[kOutputs];
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
