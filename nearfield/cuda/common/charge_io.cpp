// Charges in, results out, for the resident back ends (charge_io.hpp).
#include "nearfield/cuda/common/charge_io.hpp"

#include <algorithm>

#include "runtime/threads.hpp"
#include "runtime/timer.hpp"

namespace mlfma2d::cuda {

namespace {
/// Host threads for the charge and result copies: one. In the Solver they run on the device's
/// host thread beside the far field, which leaves that one core free (solver/solver.cpp).
constexpr int kCopyThreads = 1;
}  // namespace

void ChargeIo::setup(const NearFieldProblem& p, const Stream& stream, std::size_t* bytes) {
  ns_ = p.n_sources;
  nt_ = p.n_targets;
  field_ = p.field;
  threads_ = std::max(1, std::min(team_size(p.threads), kCopyThreads));
  d_src_index_ = upload(as_int32(p.src_index, ns_, p.threads), stream, bytes);
  d_q_ = device_array<double>(ns_, bytes);
  d_q_tree_ = device_array<double>(ns_, bytes);
  d_phi_ = device_array<double>(nt_, bytes);
  if (field_) {
    d_ex_ = device_array<double>(nt_, bytes);
    d_ey_ = device_array<double>(nt_, bytes);
  }
  h_q_ = pinned_array<double>(ns_);
  h_phi_ = pinned_array<double>(nt_);
  if (field_) {
    h_ex_ = pinned_array<double>(nt_);
    h_ey_ = pinned_array<double>(nt_);
  }
}

void ChargeIo::reserve(std::size_t n_sources, std::size_t n_targets, bool field) {
  // The sizes of setup()'s pinned_array<double> calls, in its order.
  reserve_pinned(sizeof(double) * n_sources);
  for (int k = 0; k < (field ? 3 : 1); ++k) reserve_pinned(sizeof(double) * n_targets);
}

std::size_t ChargeIo::bytes(const NearFieldProblem& p) {
  return 4 * p.n_sources + 16 * p.n_sources + 8 * p.n_targets * (p.field ? 3 : 1);
}

void ChargeIo::charges_in(const double* q, const Stream& stream, EventTimer* transfer,
                          EventTimer* gather, NearFieldTimings* tm) {
  timed(&tm->collect, [&] { copy_parallel(q, ns_, h_q_.as<double>(), threads_); });
  transfer->start(stream);
  copy_to_device_async(d_q_.as<void>(), h_q_.as<void>(), 8 * ns_, stream);
  transfer->stop(stream);
  gather->start(stream);
  launch_gather(cptr<double>(d_q_), cptr<std::int32_t>(d_src_index_),
                static_cast<std::int64_t>(ns_), d_q_tree_.as<double>(), stream.handle());
  gather->stop(stream);
}

void ChargeIo::results_to_caller(const Stream& stream, EventTimer* ret, double* potential,
                                 double* fx, double* fy, NearFieldTimings* tm) {
  ret->start(stream);
  copy_to_host_async(h_phi_.as<void>(), d_phi_.as<void>(), 8 * nt_, stream);
  if (field_) {
    copy_to_host_async(h_ex_.as<void>(), d_ex_.as<void>(), 8 * nt_, stream);
    copy_to_host_async(h_ey_.as<void>(), d_ey_.as<void>(), 8 * nt_, stream);
  }
  ret->stop(stream);
  tm->ret += ret->seconds();  // waits for the results
  timed(&tm->ret, [&] {
    copy_parallel(h_phi_.as<double>(), nt_, potential, threads_);
    if (field_) {
      copy_parallel(h_ex_.as<double>(), nt_, fx, threads_);
      copy_parallel(h_ey_.as<double>(), nt_, fy, threads_);
    }
  });
}

}  // namespace mlfma2d::cuda
