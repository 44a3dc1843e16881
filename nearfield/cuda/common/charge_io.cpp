// Strengths in, results out, for the resident back ends (charge_io.hpp).
#include "nearfield/cuda/common/charge_io.hpp"

#include <algorithm>

#include "runtime/threads.hpp"
#include "runtime/timer.hpp"

namespace mlfma2d::cuda {

namespace {
/// Host threads for the charge and result copies: one. In the Solver they run on the device's
/// host thread beside the far field, which leaves that one core free (solver/solver.cpp).
constexpr int kCopyThreads = 1;

/// The caller's output arrays in NearFieldOut's order.
double* caller_output(const NearOutputs& o, int k) {
  double* const all[ChargeIo::kOutputs] = {o.phi, o.ex, o.ey, o.hxx, o.hxy};
  return all[k];
}
}  // namespace

std::string resident_what(const NearFieldProblem& p) {
  if (p.densities == 1) return "the geometry kept on the device";
  return "the geometry and the strengths and outputs of " + std::to_string(p.densities) +
         " densities kept on the device";
}

ChargeIoSizes::ChargeIoSizes(const ChargeShape& s)
    : n_sources(s.n_sources),
      n_targets(s.n_targets),
      densities(s.densities),
      kinds((s.charges ? 1 : 0) + (s.dipoles ? 2 : 0)),
      field(s.field),
      hessian(s.hessian),
      back(strengths_back(s)) {}

std::size_t ChargeIoSizes::device_bytes() const {
  std::size_t outputs = 0;
  for (int k = 0; k < ChargeIo::kOutputs; ++k) outputs += wants(k) ? 1 : 0;
  return 4 * n_sources + 2 * 8 * strength_doubles() + 8 * outputs * output_doubles();
}

void ChargeIo::setup(const NearFieldProblem& p, const Stream& stream, std::size_t* bytes) {
  const ChargeIoSizes z(charge_shape(p));
  ns_ = p.n_sources;
  nt_ = p.n_targets;
  nd_ = p.densities;
  charges_ = p.charges;
  dipoles_ = p.dipoles;
  threads_ = std::max(1, std::min(team_size(p.threads), kCopyThreads));
  d_src_index_ = upload(as_int32(p.src_index, ns_, p.threads), stream, bytes);
  d_in_ = device_array<double>(std::int64_t(z.strength_doubles()), bytes);
  d_tree_ = device_array<double>(std::int64_t(z.strength_doubles()), bytes);
  h_in_ = pinned_array<double>(std::int64_t(z.strength_doubles()));
  if (z.back) {
    h_tree_ = pinned_array<double>(std::int64_t(z.strength_doubles()));
    back_stream_ = std::make_unique<Stream>();
    back_copy_ = std::make_unique<EventTimer>();
  }
  for (int k = 0; k < kOutputs; ++k) {
    wanted_[k] = z.wants(k);
    if (!wanted_[k]) continue;
    d_out_[k] = device_array<double>(std::int64_t(z.output_doubles()), bytes);
    h_out_[k] = pinned_array<double>(std::int64_t(z.output_doubles()));
  }
}

void ChargeIo::reserve(const ChargeShape& shape) {
  // The sizes of setup()'s pinned_array<double> calls, in its order.
  const ChargeIoSizes z(shape);
  reserve_pinned(sizeof(double) * z.strength_doubles());
  if (z.back) reserve_pinned(sizeof(double) * z.strength_doubles());  // h_tree_
  for (int k = 0; k < kOutputs; ++k)
    if (z.wants(k)) reserve_pinned(sizeof(double) * z.output_doubles());
}

std::size_t ChargeIo::bytes(const NearFieldProblem& p) {
  return ChargeIoSizes(charge_shape(p)).device_bytes();
}

template <class T>
T* ChargeIo::kind_in(T* all, Kind k) const {
  // The kinds carried, in the order q, mx, my, each nd arrays of n_sources.
  if (!all || (k == kCharge ? !charges_ : !dipoles_)) return nullptr;
  const int block = k == kCharge ? 0 : (charges_ ? 1 : 0) + (k == kMy ? 1 : 0);
  return all + std::size_t(block) * std::size_t(nd_) * ns_;
}

const double* ChargeIo::tree(Kind k) const {
  return kind_in(cptr<double>(d_tree_), k);
}

void ChargeIo::set_back(Back b) {
  {
    const std::lock_guard<std::mutex> lock(back_->m);
    back_->state = b;
  }
  back_->cv.notify_all();
}

StrengthArrays ChargeIo::tree_on_host() {
  {
    std::unique_lock<std::mutex> lock(back_->m);
    back_->cv.wait(lock, [&] { return back_->state != Back::kPending; });
    if (back_->state == Back::kNone) return {};
  }
  back_copy_->synchronize();
  const double* at = h_tree_.as<double>();
  return {kind_in(at, kCharge), kind_in(at, kMx), kind_in(at, kMy)};
}

void ChargeIo::end_staged() {
  const std::lock_guard<std::mutex> lock(back_->m);
  if (back_->state == Back::kPending) {
    back_->state = Back::kNone;
    back_->cv.notify_all();
  }
}

const double* ChargeIo::result(int k) const {
  return results_staged_ && k >= 0 && k < kOutputs && wanted_[k] ? h_out_[k].as<double>() : nullptr;
}

NearFieldOut ChargeIo::out() const {
  return {d_out_[0].as<double>(), d_out_[1].as<double>(), d_out_[2].as<double>(),
          d_out_[3].as<double>(), d_out_[4].as<double>()};
}

StagingBuffers ChargeIo::staging() {
  double* at = h_in_.as<double>();
  return {kind_in(at, kCharge), kind_in(at, kMx), kind_in(at, kMy)};
}

void ChargeIo::copy_in(const NearSources& in, int threads) {
  const std::size_t per_kind = std::size_t(nd_) * ns_;
  const StagingBuffers to = staging();
  const std::pair<const double*, double*> kinds[] = {{in.q, to.q}, {in.mx, to.mx}, {in.my, to.my}};
  for (const auto& [from, into] : kinds)
    if (into && from != into) parallel_copy(from, per_kind, into, threads);
}

void ChargeIo::stage_in(const NearSources& in, int threads, bool back) {
  copy_in(in, std::max(1, threads));
  staged_ = true;
  results_staged_ = false;
  set_back(back && h_tree_.as<double>() ? Back::kPending : Back::kNone);
}

void ChargeIo::charges_in(const NearSources& in, const Stream& stream, EventTimer* transfer,
                          EventTimer* gather, NearFieldTimings* tm) {
  running_staged_ = staged_;
  staged_ = false;
  results_staged_ = false;
  if (!running_staged_) timed(&tm->collect, [&] { copy_in(in, threads_); });
  const int channels = nd_ * ((charges_ ? 1 : 0) + (dipoles_ ? 2 : 0));
  transfer->start(stream);
  copy_to_device_async(d_in_.as<void>(), h_in_.as<void>(), d_in_.bytes(), stream);
  transfer->stop(stream);
  gather->start(stream);
  launch_gather(cptr<double>(d_in_), cptr<std::int32_t>(d_src_index_),
                static_cast<std::int64_t>(ns_), channels, d_tree_.as<double>(), stream.handle());
  gather->stop(stream);
  if (!running_staged_) return set_back(Back::kNone);  // none for a tree_on_host() after it
  {
    const std::lock_guard<std::mutex> lock(back_->m);
    if (back_->state != Back::kPending) return;
  }
  // The far field's strengths in tree order: the device's gather copied back on a stream of its
  // own, beside the kernels (nearfield/backend.hpp: strengths_back says when).
  gather->hold(*back_stream_);
  back_copy_->start(*back_stream_);
  copy_to_host_async(h_tree_.as<void>(), d_tree_.as<void>(), d_tree_.bytes(), *back_stream_);
  back_copy_->stop(*back_stream_);
  set_back(Back::kCopying);
}

void ChargeIo::results_to_caller(const Stream& stream, EventTimer* ret, const NearOutputs& o,
                                 NearFieldTimings* tm) {
  const std::size_t n = std::size_t(nd_) * nt_;
  ret->start(stream);
  for (int k = 0; k < kOutputs; ++k)
    if (wanted_[k]) copy_to_host_async(h_out_[k].as<void>(), d_out_[k].as<void>(), 8 * n, stream);
  ret->stop(stream);
  tm->ret += ret->seconds();  // waits for the results
  if (running_staged_) {
    results_staged_ = true;
    return;
  }
  timed(&tm->ret, [&] {
    for (int k = 0; k < kOutputs; ++k)
      if (wanted_[k]) parallel_copy(h_out_[k].as<double>(), n, caller_output(o, k), threads_);
  });
}

bool CudaBackend::stage_strengths(const NearSources& s, int threads, bool back) {
  ChargeIo* io = charge_io();
  if (io) io->stage_in(s, threads, back);
  return io != nullptr;
}

StrengthArrays CudaBackend::staged_tree_order() {
  ChargeIo* io = charge_io();
  return io ? io->tree_on_host() : StrengthArrays{};
}

void CudaBackend::staged_evaluation_over() {
  ChargeIo* io = charge_io();
  if (io) io->end_staged();
}

StagingBuffers CudaBackend::staging_area() {
  ChargeIo* io = charge_io();
  return io ? io->staging() : StagingBuffers{};
}

const double* CudaBackend::staged_output(int k) const {
  const ChargeIo* io = charge_io();
  return io ? io->result(k) : nullptr;
}

}  // namespace mlfma2d::cuda
