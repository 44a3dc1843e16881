#include "solver/concurrency.hpp"

#include "mlfma2d/mlfma2d.hpp"
#include "nearfield/backend.hpp"
#include "runtime/trace.hpp"

namespace mlfma2d {

DeviceStart::DeviceStart(const std::string& backend, const ChargeShape& shape) {
  // The CUDA driver and context take 0.19-0.26 s at a process's first use on the H100 host
  // (the "device start" trace lines of results/h100/wave2c/call{1,3,5,7}.log): started now, they
  // overlap the tree.
  start_device(backend);
  if (backend == "auto" || backend_runs_on_device(backend)) {
    reserved_ = std::async(std::launch::async, [backend, shape] {
      reserve_device_buffers(
          backend == "auto" ? auto_backend(BackendNeeds{shape.dipoles, shape.hessian}) : backend,
          shape);
    });
    busy_ = device_start_begun();
  }
}

DeviceStart::~DeviceStart() {
  wait_for_device();
  if (reserved_.valid()) reserved_.wait();
  release_reserved_buffers();  // what the set-up did not take
}

void DeviceStart::wait() {
  wait_for_device();
  if (reserved_.valid()) reserved_.get();
}

EvaluationThreads::EvaluationThreads(const Placement& placement, int team, bool place, bool device,
                                     bool resident)
    : placement_(placement), team_(team), place_(place), device_(device), resident_(resident) {
  if (place_) caller_mask_.emplace();
}

EvaluationThreads::~EvaluationThreads() {
  if (pending_.valid()) pending_.wait();  // an exception left join() out: the thread still ends
}

void EvaluationThreads::start_near_field(std::function<void()> near_field) {
  if (device_) {
    // A resident back end's host work is single-threaded copies (1e7 charges in and potentials
    // out): left free to run on the team's cores, it held a team thread back at the barriers (the
    // far field of 1e7 points took 180-187 ms per evaluation unpinned on the H100 host, 90-110
    // pinned: the uniform rows of results/h100/wave2c/call5.log and call8.log). The others
    // (indexing, repetition) run OpenMP loops on it and keep the caller's mask.
    const bool pin = place_ && resident_;
    pending_ = std::async(std::launch::async, [this, pin, near_field = std::move(near_field)] {
      if (pin) placement_.pin_rest(team_);
      near_field();
    });
  }
  if (place_) placement_.pin_team(team_);
  if (!device_) near_field();
}

void EvaluationThreads::join() {
  if (pending_.valid()) pending_.get();
}

}  // namespace mlfma2d
