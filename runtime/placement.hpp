#pragma once
// Deliberate thread placement for evaluations (Options::place_threads): the OpenMP team on
// distinct cores and a resident device back end's host thread on the cores after them, so no
// thread of an evaluation shares a core or migrates between cores while it runs. Linux only;
// elsewhere, and when the user placed threads through the OpenMP environment, nothing is placed.
#include <vector>

namespace mlfma2d {

/// \brief The CPUs an evaluation's threads go to: the process's CPUs (the calling thread's mask
/// when made), one hardware thread of each core first, then their siblings.
class Placement {
 public:
  /// Empty (places nothing) when OMP_PLACES, OMP_PROC_BIND, GOMP_CPU_AFFINITY or KMP_AFFINITY
  /// is set (the user placed the threads) or the mask cannot be read.
  static Placement of_process();
  /// The process's CPUs and cores as of_process() reads them, whatever the environment says
  /// (what a report states of the machine).
  static Placement topology();
  /// Whether `threads` threads have a CPU each.
  bool fits(int threads) const { return threads > 0 && threads <= int(cpus_.size()); }
  /// The process's physical cores (a CPU of each comes first in cpus()).
  int cores() const { return cores_; }
  /// Pins thread i of an OpenMP team of `team` threads to CPU i (the calling thread is 0).
  void pin_team(int team) const;
  /// Pins the calling thread to the CPUs after the first `team` (at least the last one).
  void pin_rest(int team) const;
  const std::vector<int>& cpus() const { return cpus_; }

 private:
  std::vector<int> cpus_;
  int cores_ = 0;
};

/// \brief Keeps the calling thread's CPU mask and gives it back when it goes out of scope: the
/// caller's thread is pinned only while an evaluation runs.
class CallerMask {
 public:
  CallerMask();
  ~CallerMask();
  CallerMask(const CallerMask&) = delete;
  CallerMask& operator=(const CallerMask&) = delete;

 private:
  std::vector<unsigned char> mask_;  // a cpu_set_t's bytes; empty when not read
};

}  // namespace mlfma2d
