// The near-field timing harness: a tree and plan built once, back ends set up on them and
// evaluated alone, each evaluation timed by the back end's phases and by one clock for all.
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "nearfield/backend.hpp"
#include "nearfield/device.hpp"
#include "runtime/timer.hpp"
#include "solver/options.hpp"
#include "solver/points.hpp"
#include "tree/figures.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"
#include "tuning/tuning.hpp"

namespace mlfma2d::tuning {

std::string device_name() {
  const std::string name = device::name();
  return name.empty() ? "none" : name;
}

std::string gpu_unavailable() {
  if (!device::compiled())
    return "this build has no GPU back ends (configure with a CUDA compiler, "
           "MLFMA2D_WITH_CUDA=ON)";
  static const std::string why = [] {
    std::string reason;
    if (device::usable(&reason)) return std::string();
    // The CUDA message's own words, without the call and the error's name.
    const auto colon = reason.rfind(": ");
    return "no GPU was found (" + (colon == std::string::npos ? reason : reason.substr(colon + 2)) +
           ")";
  }();
  return why;
}

namespace {

// The value of `key` ("MemTotal:") in a /proc file of "key value kB" lines, in bytes; 0 if absent.
std::size_t proc_bytes(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0)
      return std::strtoull(line.c_str() + key.size(), nullptr, 10) * 1024;
  }
  return 0;
}

}  // namespace

int cpu_mutual_sums(const Options& o, bool self) {
  return cpu_mutual_sums(far_shape(o), self);
}

bool device_strengths_back(const Options& o, std::size_t sources) {
  return strengths_back(ChargeShape(sources, 0, far_shape(o)));
}

HostMemory host_memory() {
  HostMemory m;
  m.total = proc_bytes("/proc/meminfo", "MemTotal:");
  m.available = proc_bytes("/proc/meminfo", "MemAvailable:");
  m.resident = proc_bytes("/proc/self/status", "VmRSS:");
  m.peak_resident = proc_bytes("/proc/self/status", "VmHWM:");
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const std::size_t used = proc_bytes("/proc/self/status", "VmSize:");
    m.address_space_left = limit.rlim_cur > used ? limit.rlim_cur - used : 1;
  }
  return m;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

NearFieldMeasurement summarize(const std::vector<NearFieldSample>& samples) {
  NearFieldMeasurement m;
  m.repeat = static_cast<int>(samples.size());
  m.samples = samples;
  if (samples.empty()) return m;
  auto phase = [&](double NearFieldSample::*slot) {
    std::vector<double> v;
    for (const NearFieldSample& s : samples) v.push_back(s.*slot);
    return v;
  };
  m.collect = median(phase(&NearFieldSample::collect));
  m.transfer = median(phase(&NearFieldSample::transfer));
  m.kernel = median(phase(&NearFieldSample::kernel));
  m.ret = median(phase(&NearFieldSample::ret));
  const std::vector<double> totals = phase(&NearFieldSample::total);
  m.total = median(totals);
  m.total_min = *std::min_element(totals.begin(), totals.end());
  for (double t : totals) m.total_mean += t;
  m.total_mean /= double(totals.size());
  for (const NearFieldSample& s : samples) {
    m.device_bytes = std::max(m.device_bytes, s.device_bytes);
    m.chunks = std::max(m.chunks, s.chunks);
  }
  return m;
}

int levels_by_ct(const std::vector<double>& x, const std::vector<double>& y,
                 const std::vector<double>& tx, const std::vector<double>& ty, int ct,
                 int threads) {
  return build_tree(x, y, tx, ty, ct, 0, nullptr, threads).levels_ct;
}

struct NearFieldBench::Impl {
  Options options;
  std::vector<double> x, y, tx, ty;  // caller order; the back ends keep pointers to them
  Tree tree;
  Plan plan;
  TreeStats stats;
  std::vector<std::string> warnings;
  std::unique_ptr<NearFieldBackend> backend;
  std::vector<double> fx, fy;  // field scratch, when the back ends compute it
};

NearFieldBench::NearFieldBench(const std::vector<double>& x, const std::vector<double>& y,
                               const std::vector<double>& tx, const std::vector<double>& ty,
                               const Options& options)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.options = options;
  m.x = x;
  m.y = y;
  m.tx = tx;
  m.ty = ty;
  std::string warning;
  // The papers' harness: CT automatic means their CT 15 (the cost model is the Solver's).
  const int ct = options.ct == kAutoCapacity ? kPapersCapacity : options.ct;
  m.tree = build_tree(m.x, m.y, m.tx, m.ty, ct, options.level_offset, &warning, options.threads);
  if (!warning.empty()) m.warnings.push_back(warning);
  m.plan = build_plan(m.tree, options.threads);
  m.stats = tree_figures(m.tree, m.plan);
}

NearFieldBench::~NearFieldBench() = default;
NearFieldBench::NearFieldBench(NearFieldBench&&) noexcept = default;
NearFieldBench& NearFieldBench::operator=(NearFieldBench&&) noexcept = default;

const TreeStats& NearFieldBench::stats() const {
  return impl_->stats;
}

const std::vector<std::string>& NearFieldBench::warnings() const {
  return impl_->warnings;
}

double NearFieldBench::setup(const std::string& backend) {
  Impl& m = *impl_;
  m.backend.reset();
  const double t0 = now_seconds();
  auto b = make_near_field_backend(backend);
  const bool self = m.tree.self;
  NearFieldProblem problem =
      make_near_field_problem(m.tree, m.plan, m.x.data(), m.y.data(),
                              self ? m.x.data() : m.tx.data(), self ? m.y.data() : m.ty.data());
  problem.field = m.options.field;
  problem.threads = m.options.threads;
  problem.gpu_memory = m.options.gpu_memory;
  problem.chunk_targets = m.options.chunk_targets;
  b->setup(problem);
  m.backend = std::move(b);
  return now_seconds() - t0;
}

NearFieldSample NearFieldBench::evaluate(const std::vector<double>& q,
                                         std::vector<double>* potential) {
  Impl& m = *impl_;
  if (!m.backend) throw InvalidInput("NearFieldBench: evaluate() before setup()");
  if (q.size() != m.stats.n_sources) {
    throw InvalidInput("NearFieldBench: expected " + std::to_string(m.stats.n_sources) +
                       " charges, got " + std::to_string(q.size()));
  }
  const std::size_t nt = m.stats.n_targets;
  std::vector<double> scratch;
  std::vector<double>& phi = potential ? *potential : scratch;
  phi.resize(nt);
  const bool field = m.options.field;
  m.fx.resize(field ? nt : 0);
  m.fy.resize(field ? nt : 0);
  NearFieldTimings t;
  const double t0 = now_seconds();
  m.backend->evaluate(q.data(), phi.data(), field ? m.fx.data() : nullptr,
                      field ? m.fy.data() : nullptr, &t);
  const double total = now_seconds() - t0;
  return {t.collect, t.transfer, t.kernel, t.ret, total, t.device_bytes, t.chunks};
}

NearFieldMeasurement NearFieldBench::measure(const std::vector<double>& q, int warmup, int repeat,
                                             std::vector<double>* potential) {
  if (repeat < 1) throw InvalidInput("NearFieldBench: repeat must be >= 1");
  std::vector<double> scratch;
  for (int w = 0; w < warmup; ++w) evaluate(q, &scratch);
  std::vector<NearFieldSample> samples;
  for (int k = 0; k < repeat; ++k) samples.push_back(evaluate(q, k == 0 ? potential : &scratch));
  return summarize(samples);
}

}  // namespace mlfma2d::tuning
