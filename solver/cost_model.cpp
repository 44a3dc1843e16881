#include "solver/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "mlfma2d/io.hpp"
#include "nearfield/backend.hpp"
#include "runtime/atomic_file.hpp"
#include "runtime/host.hpp"
#include "runtime/timer.hpp"
#include "runtime/trace.hpp"
#include "solver/options.hpp"

namespace mlfma2d {
namespace {

// The calibration's point sets: uniform, their size in proportion to the threads (about 16k
// points per thread: enough work per level that the per-unit constants hold for large sets).
std::size_t calibration_points(int threads) {
  return std::size_t(std::clamp(16384 * threads, 32768, 262144));
}

std::string without_spaces(std::string s) {
  std::replace(s.begin(), s.end(), ' ', '_');
  return s;
}

// The best of three evaluations (the first also pays first touches). The near field's constants
// come from differences of these times and are cached: one slow evaluation would stay. (A
// calibration inside a busy test process on the H100 host left the per-point constant far too
// large, and the defaults then chose CT 128 over 512: 17-32 against 13-16 ms per evaluation at
// 1e6, results/h100/wave2b/call8-bench.log against call9-bench.log.)
Timings best_of_three(Solver* s, const Densities& in) {
  Timings best;
  for (int k = 0; k < 3; ++k) {
    s->evaluate(in);
    if (k == 0 || s->timings().total < best.total) best = s->timings();
  }
  return best;
}

// The strengths a calibration evaluates: the point set's charges for every density, dipoles of
// those strengths along x. The arrays live in a static store until the next call (one
// calibration at a time per thread).
Densities calibration_sources(const PointSet& pts, const FarShape& shape) {
  thread_local std::vector<double> q, v;
  const std::size_t n = pts.q.size();
  q.clear();
  for (int d = 0; d < shape.densities; ++d) q.insert(q.end(), pts.q.begin(), pts.q.end());
  v.assign(2 * n, 0.0);
  std::fill(v.begin(), v.begin() + std::ptrdiff_t(n), 1.0);
  Densities in;
  if (shape.charges) in.charges = q.data();
  if (shape.dipoles) {
    in.dipole_strengths = q.data();
    in.dipole_vectors = v.data();
  }
  return in;
}

// P2M's and L2P's time in one calibration run: seconds, point units p (sources + k targets) and
// leaf units p leaves.
struct PointRun {
  double seconds, points, leaves;
};

// The point operators' constants: seconds = point x points + leaf x leaves, least squares over
// the runs, neither negative. Their speed per point depends on the leaves' size: the runs of
// 16-point leaves alone gave a point constant that predicted 6.2 ms of P2M and L2P for 1e6 uniform
// points in leaves of up to 512 against 1.8 measured, and CT 1024 for 1e6 points on a circle
// (8.1 ms per evaluation against 6.6 at CT 512; results/h200/session-2026-11-29b/call1).
void fit_point_and_leaf(const std::vector<PointRun>& runs, double* point, double* leaf) {
  double aa = 0, ab = 0, bb = 0, at = 0, bt = 0;
  for (const PointRun& r : runs) {
    aa += r.points * r.points;
    ab += r.points * r.leaves;
    bb += r.leaves * r.leaves;
    at += r.points * r.seconds;
    bt += r.leaves * r.seconds;
  }
  const double det = aa * bb - ab * ab;
  *point = det > 0 ? (at * bb - bt * ab) / det : -1;
  *leaf = det > 0 ? (bt * aa - at * ab) / det : -1;
  if (*point >= 0 && *leaf >= 0) return;
  // One of them would be negative: the other alone.
  const double point_alone = aa > 0 ? std::max(0.0, at / aa) : 0.0;
  const double leaf_alone = bb > 0 ? std::max(0.0, bt / bb) : 0.0;
  double point_error = 0, leaf_error = 0;
  for (const PointRun& r : runs) {
    point_error += std::pow(r.seconds - point_alone * r.points, 2);
    leaf_error += std::pow(r.seconds - leaf_alone * r.leaves, 2);
  }
  *point = point_error <= leaf_error ? point_alone : 0.0;
  *leaf = point_error <= leaf_error ? 0.0 : leaf_alone;
}

}  // namespace

CostModel scaled_to_densities(const CostModel& model, int measured, int nd) {
  if (nd == measured) return model;
  const double f = double(nd) / double(measured);
  CostModel m = model;
  for (double* c : {&m.m2l, &m.box, &m.point, &m.leaf, &m.wx, &m.far_point, &m.near_point, &m.pair})
    *c *= f;
  return m;
}

Prediction predict(const CostModel& m, const FarWork& w, double pairs, double points, int p,
                   const FarShape& shape) {
  const double n2 = double(p + 1) * double(p + 1), k = shape.passes();
  Prediction r;
  r.far = m.m2l * n2 * w.m2l + m.box * n2 * w.boxes + m.point * p * (w.sources + k * w.targets) +
          m.leaf * p * w.leaves + m.wx * p * k * w.wx + m.far_point * points;
  r.near = m.fixed + m.near_point * points + m.pair * pairs;
  r.total = m.overlap ? std::max(r.far, r.near) : r.far + r.near;
  return r;
}

// Raised when an operator's speed changes (constants measured before then no longer hold, and a
// cache of the same version would keep them): 2 = the far field's vector log, register blocks
// and one M2L team; 3 = densities, dipoles and Hessians (the near field's blocked terms, the far
// field's shared powers); 4 = the factored translations and the wide kernels (issue 23); 5 = M2L
// truncated per offset, rows padded to 8 (docs/math.md section 3.4); 6 = the power sums as
// register-blocked products, a resident back end's host copies by the team, and a device back
// end's pair cost measured on four times the points; 7 = the near field's log by a table
// (kernel/half_log.hpp: the cpu and shared pairs' cost, repetition-gpu's general kernel's) and
// P2M's and L2P's cost per leaf in the model (fit_point_and_leaf); 8 = the translations' scalings
// fused around their product (WideKernels::translate), tiles of 3 vectors; 9 = the cpu back
// end's adjacent leaves summed both ways in self-evaluation (nearfield/cpu: MutualPlan); 10 =
// P2L's gathered sources in vector loops (the W and X lists' cost); 11 = the shared back end's
// adjacent leaves summed both ways in self-evaluation (nearfield/cuda/shared/mutual.hpp); 12 =
// those of dipoles and Hessians too (shared), and the cpu back end's of the Hessian; 13 = the
// expansions' columns padded to whole cache lines on 64 bytes (kernel/wide.hpp expansion_rows);
// 14 = L2P's and M2P's polynomials in one Horner pass, the power sums' copies by vectors and lane
// sums by shuffles (P2M's cost per point and per leaf).
constexpr int kOperatorsRevision = 14;

namespace {

// The end of every key of this revision.
std::string operators_tag() {
  return "|operators=" + std::to_string(kOperatorsRevision);
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::string CalibrationKey::text() const {
  std::ostringstream o;
  o << without_spaces(device) << "|" << backend << "|threads=" << threads << "|p=" << p
    << "|field=" << (shape.field ? 1 : 0) << "|placed=" << (placed ? 1 : 0);
  // The shape beyond one density of charges and the potential (keys of earlier revisions kept
  // their spelling for that case).
  if (shape.densities != 1) o << "|nd=" << shape.densities;
  if (shape.dipoles) o << "|sources=" << (shape.charges ? "charges+dipoles" : "dipoles");
  if (shape.hessian) o << "|hessian=1";
  o << operators_tag();
  return o.str();
}

CalibrationKey calibration_key(const std::string& backend, int threads, int p,
                               const FarShape& shape, bool placed) {
  CalibrationKey k;
  k.device = cpu_model_name().empty() ? "cpu" : cpu_model_name();
  const std::string gpu = backend_device_name(backend);
  if (!gpu.empty()) k.device += " + " + gpu;
  k.backend = backend;
  k.threads = threads;
  k.p = p;
  k.shape = shape;
  k.placed = placed;
  return k;
}

CostModel calibrate(const CalibrationKey& key, const Options& base) {
  // Three runs on uniform points: many small leaves (far-field heavy), few large ones (near
  // heavy), and an eighth of the points (the near field's fixed cost); and a curve, whose
  // adaptive tree has the W and X lists (M2P, P2L) that uniform points hardly have: without it
  // their constant came from a few boxes at the square's edge alone.
  const std::size_t n = calibration_points(key.threads);
  // A GPU reaches its per-pair speed only on enough pairs: on the H200 host the shared kernel
  // took 5.95e-12 s a pair on 262144 points (CT 256) and 4.44e-12 on 1e6 (CT 512), and the
  // constant measured on the smaller set chose CT 128 for 1e6 uniform points (13.2-13.7 ms per
  // evaluation against 10.5 at CT 512; results/h200/session-2026-11-28c/call3.log). The two
  // uniform runs, the near-heavy one of which gives a device's pair cost (below), are four times
  // larger for a device back end.
  const std::size_t pairs_n = backend_runs_on_device(key.backend) ? 4 * n : n;
  struct Run {
    const char* shape;
    std::size_t n;
    int ct;
    Timings t;
    TreeStats s;
  };
  std::vector<Run> runs = {{"uniform", pairs_n, 16, {}, {}},
                           {"uniform", pairs_n, 256, {}, {}},
                           {"uniform", n / 8, 64, {}, {}},
                           {"circle", n / 4, 16, {}, {}}};
  for (Run& r : runs) {
    const PointSet pts = generate_points(r.shape, r.n, 17);
    Options o = base;
    o.tree = "adaptive";
    o.backend = key.backend;
    o.threads = key.threads;
    o.terms = key.p;
    o.field = key.shape.field;
    o.hessian = key.shape.hessian;
    o.densities = key.shape.densities;
    o.charges = key.shape.charges;
    o.dipoles = key.shape.dipoles;
    o.ct = r.ct;
    o.level_offset = 0;
    Solver s(pts.x, pts.y, o);
    r.t = best_of_three(&s, calibration_sources(pts, key.shape));
    r.s = s.stats();
  }
  const double n2 = double(key.p + 1) * double(key.p + 1), p = key.p, k = key.shape.passes();
  auto per = [](double seconds, double units) { return units > 0 ? seconds / units : 0.0; };
  CostModel m;
  m.overlap = backend_runs_on_device(key.backend);
  // Far field: each operator's time over its units, summed over the runs (weights their work);
  // P2M's and L2P's over their points and leaves (fit_point_and_leaf).
  double m2l = 0, m2l_u = 0, box = 0, box_u = 0, wx = 0, wx_u = 0, rest = 0, rest_u = 0;
  std::vector<PointRun> point_runs;
  for (const Run& r : runs) {
    const Timings& t = r.t;
    const double points = double(r.s.n_sources + r.s.n_targets);
    m2l += t.m2l;
    m2l_u += n2 * double(r.s.m2l_pairs);
    box += t.m2m + t.l2l;
    box_u += n2 * double(r.s.boxes);
    point_runs.push_back({t.p2m + t.l2p, p * (double(r.s.n_sources) + k * double(r.s.n_targets)),
                          p * double(r.s.leaf_boxes)});
    wx += t.p2l + t.m2p;
    wx_u += p * k * double(r.s.m2p_terms + r.s.p2l_terms);
    rest += std::max(0.0, t.far - (t.p2m + t.m2m + t.m2l + t.p2l + t.l2l + t.l2p + t.m2p));
    rest_u += points;
  }
  m.m2l = per(m2l, m2l_u);
  m.box = per(box, box_u);
  fit_point_and_leaf(point_runs, &m.point, &m.leaf);
  m.wx = wx_u > 0 ? per(wx, wx_u) : m.point;
  m.far_point = per(rest, rest_u);
  // Near field: t = fixed + near_point (points) + pair (pairs). Runs 0 and 1 share the points, so
  // on the CPU their difference gives the pair cost; run 2 separates the fixed part from the
  // per-point one. A GPU's pair costs more in small leaves (a block of few targets, many short
  // ranges): the difference from run 0's 16-point leaves came out below the cost in run 1's
  // (and below any leaf of 100 points or more), and chose CT 1024 for 8 densities of 1e6 uniform
  // points, 55.8 ms per evaluation against 37.0 at CT 512 (results/h200/session-2026-11-28c/
  // call4). There run 1 alone gives it: its pairs are nearly all its time.
  const auto points = [](const Run& r) { return double(r.s.n_sources + r.s.n_targets); };
  const auto pairs = [](const Run& r) { return double(r.s.near_pairs); };
  const double dp = pairs(runs[1]) - pairs(runs[0]);
  if (!m.overlap) m.pair = dp != 0 ? std::max(0.0, (runs[1].t.near - runs[0].t.near) / dp) : 0.0;
  if (m.pair == 0) m.pair = per(runs[1].t.near, pairs(runs[1]));
  const double base0 = std::max(0.0, runs[0].t.near - m.pair * pairs(runs[0]));
  const double base2 = std::max(0.0, runs[2].t.near - m.pair * pairs(runs[2]));
  const double dn = points(runs[0]) - points(runs[2]);
  m.near_point = dn > 0 ? std::max(0.0, (base0 - base2) / dn) : 0.0;
  m.fixed = std::max(0.0, base2 - m.near_point * points(runs[2]));
  return m;
}

std::string default_calibration_cache() {
  std::string dir;
  if (const char* d = std::getenv("MLFMA2D_CACHE_DIR"); d && *d) {
    dir = d;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    dir = std::string(x) + "/mlfma2d";
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    dir = std::string(h) + "/.cache/mlfma2d";
  } else {
    return "";
  }
  return dir + "/calibration-" + version() + ".txt";
}

namespace {

constexpr const char* kCacheHeader = "# mlfma2d cost-model constants, one line per machine key";

// key -> line, from the file; false (with a note) when it exists but cannot be read or parsed.
bool read_cache(const std::string& path, std::map<std::string, CostModel>* models,
                std::string* note) {
  std::ifstream in(path);
  if (!in) return true;  // absent: nothing cached yet
  std::string line;
  if (!std::getline(in, line) || line != kCacheHeader) {
    if (note) *note = "the calibration cache " + path + " is not one mlfma2d wrote: ignored";
    return false;
  }
  int row = 1;
  while (std::getline(in, line)) {
    ++row;
    if (line.empty()) continue;
    std::istringstream f(line);
    std::string key;
    CostModel m;
    int overlap = 0;
    // A line of other operators (another revision, its own fields) serves no key: skipped.
    if ((f >> key) && key.find("|operators=") != std::string::npos &&
        !ends_with(key, operators_tag()))
      continue;
    if (!(f >> m.m2l >> m.box >> m.point >> m.wx >> m.far_point >> m.fixed >> m.near_point >>
          m.pair >> overlap >> m.leaf) ||
        !std::isfinite(m.m2l + m.box + m.point + m.wx + m.far_point + m.fixed + m.near_point +
                       m.pair + m.leaf)) {
      if (note)
        *note = "the calibration cache " + path + " is unreadable at line " + std::to_string(row) +
                ": ignored";
      return false;
    }
    m.overlap = overlap != 0;
    (*models)[key] = m;
  }
  return true;
}

}  // namespace

bool load_cost_model(const std::string& path, const CalibrationKey& key, CostModel* model,
                     std::string* note) {
  std::map<std::string, CostModel> models;
  if (path.empty() || !read_cache(path, &models, note)) return false;
  const auto it = models.find(key.text());
  if (it == models.end()) return false;
  *model = it->second;
  return true;
}

void store_cost_model(const std::string& path, const CalibrationKey& key, const CostModel& model,
                      std::string* note) {
  if (path.empty()) return;
  std::map<std::string, CostModel> models;
  read_cache(path, &models, nullptr);  // an unreadable file is replaced
  models[key.text()] = model;
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);  // reported by the write
  try {
    write_atomically(path, [&](const std::string& tmp) {
      std::ofstream out(tmp);
      out.precision(17);
      out << kCacheHeader << "\n";
      for (const auto& [k, m] : models)
        out << k << " " << m.m2l << " " << m.box << " " << m.point << " " << m.wx << " "
            << m.far_point << " " << m.fixed << " " << m.near_point << " " << m.pair << " "
            << (m.overlap ? 1 : 0) << " " << m.leaf << "\n";
      out.close();
      if (!out) throw IoError(cannot_write(path, "the write failed"));
    });
  } catch (const IoError& e) {
    if (note)
      *note = "cannot write the calibration cache " + path + ": not cached (" + e.what() + ")";
  }
}

bool cost_model_for(const Options& opt, const std::string& backend, int threads, int p, bool placed,
                    bool measure, CostModel* model, AutoChoice* choice,
                    std::vector<std::string>* warnings) {
  // Many densities are calibrated at kCalibrationDensities and scaled.
  FarShape measured = far_shape(opt);
  measured.densities = std::min(measured.densities, kCalibrationDensities);
  const CalibrationKey key = calibration_key(backend, threads, p, measured, placed);
  const std::string cache = opt.calibration_cache == "none" ? std::string()
                            : opt.calibration_cache.empty() ? default_calibration_cache()
                                                            : opt.calibration_cache;
  const TraceScope trace("choose: the cost model's constants");
  std::string note;
  CostModel m;
  if (!opt.recalibrate && load_cost_model(cache, key, &m, &note)) {
    choice->calibration = "constants from " + cache;
  } else {
    if (!note.empty()) warnings->push_back(note);
    if (!measure) return false;
    timed(&choice->calibration_seconds, [&] { m = calibrate(key, opt); });
    note.clear();
    store_cost_model(cache, key, m, &note);
    if (!note.empty()) warnings->push_back(note);
    std::ostringstream text;
    text.precision(3);
    text << "constants measured now (" << 1e3 * choice->calibration_seconds << " ms)"
         << (cache.empty() || !note.empty() ? "" : ", cached in " + cache);
    choice->calibration = text.str();
  }
  *model = scaled_to_densities(m, measured.densities, opt.densities);
  return true;
}

std::string choice_reason(const AutoChoice& choice, TreeKind kind) {
  std::ostringstream m;
  m.precision(3);
  if (choice.backend_chosen) {
    m << "back end " << choice.backend
      << (backend_runs_on_device(choice.backend) ? ": a GPU was found"
                                                 : ": no GPU back end can run here");
    if (choice.ct_chosen) m << "; ";
  }
  if (!choice.ct_chosen) return m.str();
  if (kind == TreeKind::Adaptive)
    m << "leaf capacity " << choice.ct;
  else
    m << "level offset " << (choice.level_offset >= 0 ? "+" : "") << choice.level_offset << " (CT "
      << choice.ct << ")";
  m << ": the least predicted time per evaluation, " << 1e3 * choice.predicted_seconds << " ms, of "
    << choice.candidates.size() << " candidates; " << choice.calibration;
  return m.str();
}

CapacityCandidate search_capacity(TreeKind kind, const CostModel& model, int p,
                                  const CandidateBuilder& build,
                                  std::vector<CapacityCandidate>* considered) {
  const double n2 = double(p + 1) * double(p + 1);
  // Where far and near balance, for points filling an area: a box costs about 27 M2L and two
  // box shifts, a leaf of C points about 0.6 C targets x 9 leaves' 0.6 C sources; boxes are
  // about 2.2 N / C.
  const double per_box = (27 * model.m2l + 2 * model.box) * n2;
  const double per_pair = std::max(model.pair, 1e-15);
  const double balance = std::sqrt(2.2 * per_box / (5.4 * per_pair));

  CapacityCandidate best;
  bool have = false;
  std::map<int, CapacityCandidate> seen;  // step -> its figures (total infinite: no tree)
  // A step is a leaf capacity 2^k (adaptive) or a level offset (uniform tree, CT 15).
  auto evaluate = [&](int step) -> const CapacityCandidate& {
    if (seen.count(step)) return seen[step];
    const TraceScope trace("choose: one candidate's tree and plan");
    const int ct = kind == TreeKind::Adaptive ? 1 << step : kPapersCapacity;
    const int offset = kind == TreeKind::Adaptive ? 0 : step;
    CapacityCandidate cand = build(ct, offset);
    cand.ct = ct;
    cand.level_offset = offset;
    if (std::isfinite(cand.total)) {
      considered->push_back(cand);
      if (!have || cand.total < best.total) {
        have = true;
        best = cand;
      }
    }
    return seen[step] = cand;
  };
  // Two capacities may give one tree (uniform points: a level holds 4x the points of the next,
  // so CT 256 and 512 split the same boxes): such a step says nothing, the search goes past it.
  auto same_tree = [](const CapacityCandidate& a, const CapacityCandidate& b) {
    return a.levels == b.levels && a.leaf_boxes == b.leaf_boxes && a.near_pairs == b.near_pairs &&
           a.m2l_pairs == b.m2l_pairs;
  };
  // The first step: the balance's capacity, or the offset that brings CT 15's leaves nearest it.
  int lo, hi, start;
  if (kind == TreeKind::Adaptive) {
    lo = 1;
    hi = 13;  // leaf capacities 2 .. 8192
    start = std::clamp(int(std::lround(std::log2(std::max(balance, 2.0)))), lo, hi);
  } else {
    lo = -8;
    hi = 4;
    start = std::clamp(
        int(std::lround(-std::log(std::max(balance, 1.0) / kPapersCapacity) / std::log(4.0))), lo,
        hi);
  }
  // Local search: downhill from the start, one step at a time, in whichever direction improves.
  // With the near field on a device (time = max(far, near)) only the larger side can fall: far
  // above near wants larger leaves (fewer boxes), near above far smaller ones, and the other
  // direction is not built (a capacity too small is the costliest plan to build, many small
  // leaves). On the CPU (time = far + near) both are walked, the best of all kept: the sum can
  // have a minimum on each side (uniform points: a capacity between two levels' leaf sizes splits
  // some boxes of a level and not others, dearer than either whole level; with 2 threads here CT
  // 64 predicted and took 211 ms, CT 128 208, and CT 32, past CT 64, 186).
  const CapacityCandidate first = evaluate(start);
  std::vector<int> directions = {+1, -1};
  if (model.overlap && std::isfinite(first.total)) directions = {first.far >= first.near ? +1 : -1};
  // Toward larger leaves the walk passes over one dearer step (cheap: few, large leaves): there
  // too a capacity between two whole levels can be dearer than both (H200 host, 1e6 uniform points
  // with the Hessian: CT 128 predicted 20.5 ms and took 20.5, CT 256 predicted 26.1, and CT 512,
  // never built, took 16.8; results/h200/session-2026-11-29b/call3).
  for (int dir : directions) {
    int step = start, passed = 0;
    CapacityCandidate here = first;
    for (int next = start + dir; next >= lo && next <= hi; next += dir) {
      const CapacityCandidate& c = evaluate(next);
      if (std::isfinite(c.total) && same_tree(c, here)) continue;
      if (!(c.total < here.total)) {
        if (dir < 0 || ++passed > 1) break;
        continue;
      }
      here = c;
      step = next;
      passed = 0;
    }
    if (model.overlap && step != start) break;  // improved one way: the other is uphill
  }
  if (!have) throw InvalidInput("no tree could be built for these points");
  return best;
}

CapacityChoice choose_capacity(const TreePoints& points, TreeKind kind, const CostModel& model,
                               int p, const FarShape& shape, const PlanOptions& plan_options,
                               int threads) {
  const double all = double(points.sources.key.size() +
                            (points.self ? points.sources.key.size() : points.targets.key.size()));
  CapacityChoice best;
  bool have = false;
  // Each candidate's tree and plan; the best one's are kept.
  auto build = [&](int ct, int offset) {
    CapacityChoice c;
    CapacityCandidate cand;
    try {
      c.tree = grow_tree(points, ct, offset, kind, &c.warning, threads);
    } catch (const InvalidInput&) {  // an offset past the root or the deepest level
      cand.total = INFINITY;
      return cand;
    }
    timed(&c.plan_seconds, [&] { c.plan = build_plan(c.tree, threads, plan_options); });
    c.predicted =
        predict(model, far_field_work(c.tree, c.plan), double(c.plan.near.pairs), all, p, shape);
    cand.levels = c.tree.levels;
    cand.leaf_boxes = c.tree.leaves.size();
    cand.near_pairs = c.plan.near.pairs;
    cand.m2l_pairs = c.plan.m2l_pairs;
    cand.far = c.predicted.far;
    cand.near = c.predicted.near;
    cand.total = c.predicted.total;
    if (!have || c.predicted.total < best.predicted.total) {
      have = true;
      best = std::move(c);
    }
    return cand;
  };
  std::vector<CapacityCandidate> considered;
  const CapacityCandidate chosen = search_capacity(kind, model, p, build, &considered);
  best.ct = chosen.ct;
  best.level_offset = chosen.level_offset;
  best.candidates = std::move(considered);
  best.p2p_below = plan_options.p2p_below;
  widen_near_field(model, p, shape, all, threads, &best);
  return best;
}

void widen_near_field(const CostModel& model, int p, const FarShape& shape, double points,
                      int threads, CapacityChoice* c) {
  // A pair on the GPU costs about 1/400 of a P2L or M2P term on the CPU (the H200 host's
  // constants), not the 2 of the CPU's rule; but the near field bounds in turn once it takes too
  // much (H200 host, 1e6 clustered points: the far field 10.4 ms with P2L and M2P 4.4-5.2 of it,
  // the near field 7.7; results/h200/session-2026-11-29b/call5).
  if (!model.overlap) return;
  PlanOptions wider;
  wider.p2p_below = std::max<std::int64_t>(1, c->p2p_below);
  while (c->predicted.far > c->predicted.near && c->plan.p2l_terms + c->plan.m2p_terms > 0 &&
         wider.p2p_below < (1 << 20)) {
    wider.p2p_below *= 2;
    Plan plan;
    timed(&c->plan_seconds, [&] { plan = build_plan(c->tree, threads, wider); });
    const Prediction pr =
        predict(model, far_field_work(c->tree, plan), double(plan.near.pairs), points, p, shape);
    if (!(pr.total < c->predicted.total)) break;
    c->plan = std::move(plan);
    c->predicted = pr;
    c->p2p_below = wider.p2p_below;
  }
}

}  // namespace mlfma2d
