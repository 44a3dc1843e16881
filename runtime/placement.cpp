// Thread placement (placement.hpp).
#include "runtime/placement.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <utility>

#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#endif

namespace mlfma2d {

namespace {

bool user_placed_threads() {
  for (const char* v : {"OMP_PLACES", "OMP_PROC_BIND", "GOMP_CPU_AFFINITY", "KMP_AFFINITY"}) {
    const char* s = std::getenv(v);
    if (s && *s) return true;
  }
  return false;
}

#ifdef __linux__
int read_int(const std::string& path, int fallback) {
  std::ifstream f(path);
  int v = fallback;
  return f >> v ? v : fallback;
}

// The calling thread on CPUs [first, last) of `cpus`.
void pin(const std::vector<int>& cpus, int first, int last) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int i = first; i < last; ++i) CPU_SET(cpus[i], &set);
  // A failure (a CPU taken away meanwhile) leaves the thread where it was: placement is an
  // optimisation, never a reason to fail an evaluation.
  (void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}
#endif

}  // namespace

Placement Placement::of_process() {
  return user_placed_threads() ? Placement() : topology();
}

Placement Placement::topology() {
  Placement p;
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set) != 0) return p;
  // (rank among its core's hardware threads, cpu): first one thread of every core.
  std::map<std::pair<int, int>, int> seen;  // (package, core) -> threads of it so far
  std::vector<std::pair<int, int>> order;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    const std::string topo = "/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/";
    const int package = read_int(topo + "physical_package_id", 0);
    const int core = read_int(topo + "core_id", c);
    order.emplace_back(seen[{package, core}]++, c);
  }
  std::sort(order.begin(), order.end());
  for (const auto& [rank, cpu] : order) p.cpus_.push_back(cpu);
  p.cores_ = int(seen.size());
#endif
  return p;
}

// The region makes every thread the team needs (with the caller's mask) before any is pinned. A
// thread the OpenMP runtime makes later inherits its maker's mask, and libgomp ends the threads a
// smaller team leaves out and makes new ones for a larger team: an evaluation's teams are all of
// this size or of one thread (team_size), so none is made while the caller is pinned. (An
// intermediate version put the caller on all of the team's CPUs instead: the first evaluation in a
// process took 49-143 ms instead of mostly 13-22 at 1e6 on the H100 host, most likely while the
// caller shared a core with a spinning team thread: the one-shot runs of
// results/h100/wave2c/call7.log against call1.log and call3.log, README.md there.)
void Placement::pin_team(int team) const {
#ifdef __linux__
  if (!fits(team)) return;
#pragma omp parallel num_threads(team)
  {
    const int i = omp_get_thread_num();
    pin(cpus_, i, i + 1);
  }
#else
  (void)team;
#endif
}

void Placement::pin_rest(int team) const {
#ifdef __linux__
  const int n = int(cpus_.size());
  if (n > 0) pin(cpus_, std::clamp(team, 0, n - 1), n);
#else
  (void)team;
#endif
}

CallerMask::CallerMask() {
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set) == 0) {
    mask_.resize(sizeof(set));
    std::memcpy(mask_.data(), &set, sizeof(set));
  }
#endif
}

CallerMask::~CallerMask() {
#ifdef __linux__
  if (mask_.size() != sizeof(cpu_set_t)) return;
  cpu_set_t set;
  std::memcpy(&set, mask_.data(), sizeof(set));
  (void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
#endif
}

}  // namespace mlfma2d
