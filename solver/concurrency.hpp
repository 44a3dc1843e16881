#pragma once
// How a Solver shares the machine with a GPU back end, kept beside the method rather than woven
// through it (docs/architecture.md, "One evaluation"):
//   DeviceStart       -- at construction: the device's start and a resident back end's pinned
//                        buffers made on threads of their own while the tree is built;
//   EvaluationThreads -- per evaluation: the near field on its own host thread when its back end
//                        runs on a device (overlapping the far field), the threads pinned when
//                        they cover the process's cores, the caller's mask given back.
#include <cstddef>
#include <functional>
#include <future>
#include <optional>
#include <string>

#include "nearfield/backend.hpp"
#include "runtime/placement.hpp"

namespace mlfma2d {

/// \brief The device's start (start_device, once per process, for "auto" or a GPU back end) and,
/// once it is up, a resident back end's pinned charge buffers, beside the caller's work. Every
/// way out of a Solver's constructor waits for both and frees the buffers nobody took (no thread
/// is left inside the CUDA driver's start when a caller exits on an error).
class DeviceStart {
 public:
  DeviceStart(const std::string& backend, const ChargeShape& shape);
  ~DeviceStart();
  DeviceStart(const DeviceStart&) = delete;
  DeviceStart& operator=(const DeviceStart&) = delete;
  /// Whether a core is busy on the device's behalf now: the tree is then built on one thread
  /// fewer.
  bool busy() const { return busy_; }
  /// Blocks until the device is up and the buffers are made (rethrows nothing: errors are the
  /// back end's to report when it is made).
  void wait();

 private:
  std::future<void> reserved_;
  bool busy_ = false;
};

/// \brief One evaluation's threads. Made before the near field starts; the caller's CPU mask is
/// restored when it goes out of scope.
class EvaluationThreads {
 public:
  /// `team`: the far field's OpenMP team. `place`: pin the team to one core each (and, when
  /// `resident`, the device back end's host thread to the cores after it). `device`: the near
  /// field's back end runs on a device.
  EvaluationThreads(const Placement& placement, int team, bool place, bool device, bool resident);
  ~EvaluationThreads();
  EvaluationThreads(const EvaluationThreads&) = delete;
  EvaluationThreads& operator=(const EvaluationThreads&) = delete;
  /// Starts the near field: on a host thread of its own for a device back end (started before
  /// the caller is pinned: a thread inherits its creator's mask), then pins the team; a CPU back
  /// end runs it here, on the pinned team.
  void start_near_field(std::function<void()> near_field);
  /// Waits for a near field on its own thread; rethrows its error.
  void join();

 private:
  const Placement& placement_;
  int team_;
  bool place_, device_, resident_;
  std::optional<CallerMask> caller_mask_;
  std::future<void> pending_;
};

}  // namespace mlfma2d
