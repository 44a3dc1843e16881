// Thread placement (placement.hpp).
#include "tree/placement.hpp"

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

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  // A failure (a CPU taken away meanwhile) leaves the thread where it was: placement is an
  // optimisation, never a reason to fail an evaluation.
  (void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}
#endif

}  // namespace

Placement Placement::of_process() {
  Placement p;
#ifdef __linux__
  if (user_placed_threads()) return p;
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
#endif
  return p;
}

void Placement::pin_team(int team) const {
#ifdef __linux__
  if (!fits(team)) return;
#pragma omp parallel num_threads(team)
  {
    const int i = omp_get_thread_num();
    if (i < omp_get_num_threads()) pin(cpus_[i]);
  }
#else
  (void)team;
#endif
}

void Placement::pin_self(int slot) const {
#ifdef __linux__
  if (slot >= 0 && slot < int(cpus_.size())) pin(cpus_[slot]);
#else
  (void)slot;
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
