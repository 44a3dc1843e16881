// The registry: one row per back end, from which the factory, the listing, the availability
// check and --help read. Adding a back end is one folder under nearfield/ and one row here.
#include <algorithm>
#include <future>
#include <mutex>
#include <sstream>

#include "mlfma2d/mlfma2d.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/device.hpp"
#include "runtime/timer.hpp"
#include "runtime/trace.hpp"

namespace mlfma2d {

// The factories, one per back-end folder (the CUDA ones declared in nearfield/device.hpp).
std::unique_ptr<NearFieldBackend> make_cpu_backend();

const std::vector<BackendRow>& backend_rows() {
  // clang-format off
  // name, factory, runs_on_device, needs_cuda, resident, densities, dipoles, hessian,
  // auto_preference, summary
  static const std::vector<BackendRow> rows = {
    {"cpu", make_cpu_backend, false, false, false, true, true, true, 1,
     "CPU reference: a leaf's near sources gathered, 4 at a time with AVX2"},
    {"indexing", make_indexing_backend, true, true, false, false, false, false, 0,
     "CUDA, paper Alg. 1-2: seven index arrays, one thread per leaf (charges)"},
    {"repetition", make_repetition_backend, true, true, false, false, false, false, 0,
     "CUDA, paper Alg. 3-4: a padded record of replicated sources per target (charges)"},
    {"shared", make_shared_backend, true, true, true, true, true, true, 3,
     "CUDA, geometry resident, leaf groups' sources staged in shared memory (fastest)"},
    {"repetition-gpu", make_repetition_gpu_backend, true, true, true, true, true, true, 2,
     "CUDA, the papers' records built on the GPU from resident arrays"},
  };
  // clang-format on
  return rows;
}

namespace {

const BackendRow* find_row(const std::string& name) {
  for (const BackendRow& r : backend_rows())
    if (name == r.name) return &r;
  return nullptr;
}

std::string valid_names() {
  std::ostringstream s;
  const auto& rows = backend_rows();
  for (std::size_t i = 0; i < rows.size(); ++i) s << (i ? ", " : "") << rows[i].name;
  return s.str();
}

}  // namespace

std::vector<std::string> near_field_backends() {
  std::vector<std::string> names;
  for (const BackendRow& r : backend_rows()) names.emplace_back(r.name);
  return names;
}

bool near_field_backend_available(const std::string& name, std::string* why) {
  auto no = [&](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  const BackendRow* row = find_row(name);
  if (!row) return no("unknown back end '" + name + "'; valid: " + valid_names());
  if (row->needs_cuda && !device::compiled())
    return no(
        "back end '" + name +
        "' was not compiled with CUDA (configure with a CUDA compiler, MLFMA2D_WITH_CUDA=ON)");
  if (row->needs_cuda) {
    std::string reason;
    if (!device::usable(&reason))
      return no("back end '" + name + "' needs a CUDA device; none was found" +
                (reason.empty() ? std::string() : " (" + reason + ")"));
  }
  if (why) why->clear();
  return true;
}

std::vector<BackendInfo> near_field_backend_info() {
  std::vector<BackendInfo> out;
  for (const BackendRow& r : backend_rows()) {
    BackendInfo b;
    b.name = r.name;
    b.summary = r.summary;
    b.runs_on_device = r.runs_on_device;
    b.available = near_field_backend_available(r.name, &b.why);
    out.push_back(b);
  }
  return out;
}

bool backend_runs_on_device(const std::string& name) {
  const BackendRow* row = find_row(name);
  return row && row->runs_on_device;
}

bool backend_is_resident(const std::string& name) {
  const BackendRow* row = find_row(name);
  return row && row->resident;
}

std::string backend_device_name(const std::string& name) {
  const BackendRow* row = find_row(name);
  return row && row->needs_cuda && device::compiled() ? device::name() : "";
}

namespace {
bool row_takes(const BackendRow& r, const BackendNeeds& needs) {
  return (!needs.dipoles || r.dipoles) && (!needs.hessian || r.hessian);
}
}  // namespace

bool backend_takes(const std::string& name, const BackendNeeds& needs, std::string* why) {
  const BackendRow* row = find_row(name);
  if (!row || row_takes(*row, needs)) {
    if (why) why->clear();
    return true;
  }
  if (why) {
    std::ostringstream m;
    m << "back end '" << name << "' cannot take "
      << (needs.dipoles && !row->dipoles ? "dipole sources" : "the Hessian")
      << " (it sums charges, their potential and field, as the papers' layout holds them); "
         "back ends that can: ";
    bool first = true;
    for (const BackendRow& r : backend_rows())
      if (row_takes(r, needs)) m << (first ? "" : ", ") << r.name, first = false;
    *why = m.str();
  }
  return false;
}

std::string auto_backend(const BackendNeeds& needs) {
  const BackendRow* best = nullptr;
  for (const BackendRow& r : backend_rows())
    if (r.auto_preference > 0 && row_takes(r, needs) &&
        (!best || r.auto_preference > best->auto_preference) &&
        near_field_backend_available(r.name))
      best = &r;
  return best ? best->name : "cpu";
}

namespace {
// The device's start, once per process, on a thread of its own: the CUDA driver
// (cudaGetDeviceCount) and the context, 194-260 ms at a process's first use on the H100 host
// (the "device start" trace lines of results/h100/wave2c/call{1,3,5,7}.log). Guarded by a mutex:
// any thread may start it or wait for it.
std::mutex device_start_mutex;
std::shared_future<void> device_start;
}  // namespace

void start_device(const std::string& backend) {
  if (!device::compiled()) return;
  if (backend != "auto") {
    const BackendRow* row = find_row(backend);
    if (!row || !row->needs_cuda) return;
  }
  const std::lock_guard<std::mutex> lock(device_start_mutex);
  if (device_start.valid()) return;
  device_start = std::async(std::launch::async, [] {
                   const TraceScope trace("device start: CUDA driver and context");
                   if (!device::usable(nullptr)) return;
                   try {
                     device::start_runtime();
                   } catch (const Error&) {
                     // made again, and reported, when the back end is made
                   }
                 }).share();
}

bool device_start_begun() {
  const std::lock_guard<std::mutex> lock(device_start_mutex);
  return device_start.valid();
}

void wait_for_device() {
  std::shared_future<void> started;
  {
    const std::lock_guard<std::mutex> lock(device_start_mutex);
    started = device_start;
  }
  if (started.valid()) started.wait();
}

ChargeShape charge_shape(const NearFieldProblem& p) {
  return ChargeShape(p.n_sources, p.n_targets, p.shape());
}

bool strengths_back(const ChargeShape& s) {
  const std::size_t kinds = (s.charges ? 1 : 0) + (s.dipoles ? 2 : 0);
  return std::size_t(s.densities) * kinds * s.n_sources >= (std::size_t(1) << 21);
}

void reserve_device_buffers(const std::string& backend, const ChargeShape& shape) {
  wait_for_device();
  const BackendRow* row = find_row(backend);
  if (!row || !row->resident || !device::compiled() || !device::usable(nullptr)) return;
  const TraceScope trace("pinned buffers reserved");
  try {
    device::use_selected();
    device::reserve_charge_buffers(shape);
  } catch (const Error&) {
    // the set-up allocates them itself, and reports what fails
  }
}

void release_reserved_buffers() noexcept {
  device::release_reserved();
}

std::unique_ptr<NearFieldBackend> make_near_field_backend(const std::string& name) {
  std::string why;
  if (!near_field_backend_available(name, &why)) throw BackendUnavailable(why);
  const BackendRow& row = *find_row(name);
  if (row.needs_cuda) device::start_runtime();  // blocking sync, before the context exists
  std::unique_ptr<NearFieldBackend> b = row.make();
  b->name_ = row.name;
  b->on_device_ = row.runs_on_device;
  b->multi_density_ = row.densities;
  return b;
}

// ---- The base class: checks and timing shared by every back end.

NearFieldProblem make_near_field_problem(const Tree& tree, const Plan& plan, const double* x,
                                         const double* y, const double* tx, const double* ty) {
  NearFieldProblem p;
  p.near = &plan.near;
  p.n_sources = tree.n_sources();
  p.n_targets = tree.n_targets();
  p.sx = tree.sx.data();
  p.sy = tree.sy.data();
  p.tx = tree.tx();
  p.ty = tree.ty();
  p.src_index = tree.src_index.data();
  p.tgt_index = tree.tgt_index();
  p.caller_sx = x;
  p.caller_sy = y;
  p.caller_tx = tx;
  p.caller_ty = ty;
  p.t = tree.t;
  return p;
}

void NearFieldBackend::setup(const NearFieldProblem& p) {
  const std::string w = who();
  if (!p.near) throw InvalidInput(w + "setup without near-field lists");
  if (p.near->leaf_tgt.size() != p.near->leaves() + 1 || p.near->leaf_tgt.empty() ||
      p.near->leaf_tgt.back() != std::int64_t(p.n_targets) || p.near->leaf_tgt.front() != 0)
    throw InvalidInput(w + "the near leaves do not tile the " + std::to_string(p.n_targets) +
                       " targets");
  if (p.n_sources > 0 && (!p.sx || !p.sy || !p.src_index || !p.caller_sx || !p.caller_sy))
    throw InvalidInput(w + "setup without source coordinates");
  if (p.n_targets > 0 && (!p.tx || !p.ty || !p.tgt_index || !p.caller_tx || !p.caller_ty))
    throw InvalidInput(w + "setup without target coordinates");
  if (p.densities < 1) throw InvalidInput(w + "densities must be >= 1");
  if (!p.charges && !p.dipoles) throw InvalidInput(w + "sources with neither charges nor dipoles");
  std::string why;
  if (!backend_takes(name_, BackendNeeds{p.dipoles, p.hessian}, &why)) throw InvalidInput(why);
  ready_ = false;
  problem_ = p;
  run_densities_ = multi_density_ ? p.densities : 1;
  if (on_device_) device::use_selected();  // CUDA's current device is the thread's own
  prepare();
  ready_ = true;
}

void NearFieldBackend::evaluate(const NearSources& s, const NearOutputs& o,
                                NearFieldTimings* timings) {
  // However it ends, a caller waiting on tree_order_strengths() is released.
  const struct Over {
    NearFieldBackend* b;
    ~Over() { b->staged_evaluation_over(); }
  } over{this};
  const std::string w = who();
  if (!ready_) throw InvalidInput(w + "evaluate() before setup()");
  const NearFieldProblem& p = problem_;
  if (p.n_targets > 0 && !o.phi) throw InvalidInput(w + "no potential array");
  check_sources(s);
  if (p.field && p.n_targets > 0 && (!o.ex || !o.ey))
    throw InvalidInput(w + "field requested but fx or fy is null");
  if (p.hessian && p.n_targets > 0 && (!o.hxx || !o.hxy))
    throw InvalidInput(w + "Hessian requested but its arrays are null");
  NearFieldTimings local;
  NearFieldTimings& t = timings ? *timings : local;
  t = NearFieldTimings{};
  const double t0 = now_seconds();
  if (on_device_ && p.n_targets > 0) device::use_selected();  // this thread's current device
  if (p.n_targets > 0 && run_densities_ == p.densities) {
    run(s, o, &t);
  } else if (p.n_targets > 0) {
    // One density at a time: the slices of every array, the phases summed.
    const std::size_t ns = p.n_sources, nt = p.n_targets;
    auto at = [](auto* a, std::size_t off) { return a ? a + off : nullptr; };
    for (int d = 0; d < p.densities; ++d) {
      const NearSources sd{at(s.q, d * ns), at(s.mx, d * ns), at(s.my, d * ns)};
      const NearOutputs od{at(o.phi, d * nt), at(o.ex, d * nt), at(o.ey, d * nt), at(o.hxx, d * nt),
                           at(o.hxy, d * nt)};
      NearFieldTimings one;
      run(sd, od, &one);
      t.collect += one.collect;
      t.transfer += one.transfer;
      t.kernel += one.kernel;
      t.ret += one.ret;
      t.device_bytes = std::max(t.device_bytes, one.device_bytes);
      t.chunks = std::max(t.chunks, one.chunks);
    }
  }
  t.total = now_seconds() - t0;
}

void NearFieldBackend::check_sources(const NearSources& s) const {
  const NearFieldProblem& p = problem_;
  if (p.n_sources > 0 && p.charges && !s.q) throw InvalidInput(who() + "no charges");
  if (p.n_sources > 0 && p.dipoles && (!s.mx || !s.my)) throw InvalidInput(who() + "no dipoles");
}

StrengthArrays NearFieldBackend::tree_order_strengths() {
  // Below strengths_back's size no back end copies them: no wait, no device for this thread.
  if (!ready_ || !strengths_back(charge_shape(problem_))) return {};
  if (on_device_) device::use_selected();  // this thread's current device: the copy's
  return staged_tree_order();
}

bool NearFieldBackend::stage_in(const NearSources& s, int threads, bool strengths_back) {
  if (!ready_) throw InvalidInput(who() + "stage_in() before setup()");
  check_sources(s);
  // Staged evaluations are whole ones: not for a back end run once per density.
  return problem_.n_targets > 0 && run_densities_ == problem_.densities &&
         stage_strengths(s, threads, strengths_back);
}

void NearFieldBackend::evaluate(const double* q, double* potential, double* fx, double* fy,
                                NearFieldTimings* timings) {
  if (problem_.dipoles || problem_.hessian)
    throw InvalidInput(who() +
                       "a problem with dipoles or the Hessian needs evaluate(sources, "
                       "outputs)");
  evaluate(NearSources{q, nullptr, nullptr}, NearOutputs{potential, fx, fy, nullptr, nullptr},
           timings);
}

}  // namespace mlfma2d
