// Row i of mlfma2d_bench (issue 22): what several densities, dipoles and the Hessian cost, each
// against the evaluation it extends, with the library's defaults (back end and leaf capacity
// chosen for each shape, as a user gets them), on --densities-n uniform points, eps 1e-10:
//   i1  one density of charges, the potential           (the reference of i2, i3)
//   i2  nd = 8 densities of charges                     (<= 2.5x i1)
//   i3  one density of charges and dipoles              (<= 1.6x i1)
//   i4  one density of charges, potential and field     (the reference of i5)
//   i5  the same with the Hessian                       (<= 1.5x i4)
// Each: the Solver built (its choice timed apart), one warm-up, the median of --repeat
// evaluations with new strengths, and the error of every output of every density against
// direct sums on --sample targets.
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench.hpp"
#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "runtime/text.hpp"
#include "tuning/tuning.hpp"

namespace mlfma2d::bench {
namespace {

using json = nlohmann::json;

struct Shape {
  const char* id;
  const char* what;
  int nd;
  bool dipoles, field, hessian;
  const char* reference;  // the row it is compared with, or ""
  double target;          // the ratio's bound (0: none)
};

// clang-format off
const Shape kShapes[] = {
  {"i1", "charges, potential",              1, false, false, false, "",   0},
  {"i2", "nd=8 charges, potential",         8, false, false, false, "i1", 2.5},
  {"i3", "charges+dipoles, potential",      1, true,  false, false, "i1", 1.6},
  {"i4", "charges, potential+field",        1, false, true,  false, "",   0},
  {"i5", "charges, potential+field+Hessian", 1, false, true, true,  "i4", 1.5},
};
// clang-format on

// Strengths of evaluation k: charges and dipole strengths uniform in [-1, 1), orientations at
// random angles (unit vectors), new each call.
struct Strengths {
  std::vector<double> q, d, v;
  Densities densities(bool dipoles) const {
    Densities in;
    in.charges = q.data();
    if (dipoles) {
      in.dipole_strengths = d.data();
      in.dipole_vectors = v.data();
    }
    return in;
  }
};

Strengths strengths(std::size_t n, int nd, std::uint64_t k) {
  std::mt19937_64 g(7919 * (k + 1));
  std::uniform_real_distribution<double> u(-1, 1);
  Strengths s;
  s.q.resize(n * std::size_t(nd));
  s.d.resize(n * std::size_t(nd));
  s.v.resize(2 * n);
  for (double& x : s.q) x = u(g);
  for (double& x : s.d) x = u(g);
  for (std::size_t j = 0; j < n; ++j) {
    const double a = 3.141592653589793 * u(g);
    s.v[j] = std::cos(a);
    s.v[n + j] = std::sin(a);
  }
  return s;
}

// The worst relative L2 error over the densities of one output (two components: a 2-vector).
double worst(const std::vector<double>& a, const std::vector<double>& b,
             const std::vector<double>& ra, const std::vector<double>& rb, int nd, std::size_t m) {
  double e = 0;
  for (int d = 0; d < nd; ++d) {
    auto row = [&](const std::vector<double>& x) {
      return std::vector<double>(x.begin() + std::ptrdiff_t(d * m),
                                 x.begin() + std::ptrdiff_t((d + 1) * m));
    };
    const ErrorNorms n =
        b.empty() ? error_norms(row(a), row(ra)) : error_norms(row(a), row(b), row(ra), row(rb));
    e = std::max(e, n.rel_l2);
  }
  return e;
}

json measure(const Shape& sh, const PointSet& p, const Args& a) {
  const std::size_t n = p.x.size();
  Options o;
  o.eps = 1e-10;
  o.backend = a.backend;
  o.threads = a.threads;
  o.densities = sh.nd;
  o.dipoles = sh.dipoles;
  o.field = sh.field;
  o.hessian = sh.hessian;
  Solver s(p.x, p.y, o);
  const double choose = s.timings().choose;
  Result r = s.evaluate(strengths(n, sh.nd, 0).densities(sh.dipoles));  // warm-up
  std::vector<double> total, near, far;
  Strengths last;
  for (int k = 1; k <= a.repeat; ++k) {
    last = strengths(n, sh.nd, std::uint64_t(k));  // outside the timed region
    r = s.evaluate(last.densities(sh.dipoles));
    total.push_back(s.timings().total);
    near.push_back(s.timings().near);
    far.push_back(s.timings().far);
  }
  // The error of every output of the last evaluation on a sample of targets.
  const std::size_t m = std::min(n, std::max<std::size_t>(1, a.sample));
  std::vector<std::size_t> which(m);
  for (std::size_t i = 0; i < m; ++i) which[i] = i * (n / m);
  const std::size_t all = m * std::size_t(sh.nd);
  std::vector<double> phi(all), ex(all), ey(all), hxx(all), hxy(all), hyy(all);
  Outputs out{phi.data(), ex.data(), ey.data(), hxx.data(), hxy.data(), hyy.data()};
  direct_sum(p.x, p.y, p.x, p.y, last.densities(sh.dipoles), direct_options(o), which, out);
  auto sampled = [&](const std::vector<double>& v) {
    std::vector<double> x(all);
    for (int k = 0; k < sh.nd; ++k)
      for (std::size_t i = 0; i < m; ++i) x[k * m + i] = v[k * n + which[i]];
    return x;
  };
  json j = {{"row", sh.id},
            {"what", sh.what},
            {"n", n},
            {"densities", sh.nd},
            {"dipoles", sh.dipoles},
            {"field", sh.field},
            {"hessian", sh.hessian},
            {"backend", s.auto_choice().backend},
            {"ct", s.stats().ct},
            {"levels", s.stats().levels},
            {"terms", s.stats().terms},
            {"choose_s", choose},
            {"median_s", tuning::median(total)},
            {"median_near_s", tuning::median(near)},
            {"median_far_s", tuning::median(far)},
            {"evaluations_s", total},
            {"sampled", m}};
  j["rel_l2_potential"] = worst(sampled(r.potential), {}, phi, {}, sh.nd, m);
  if (sh.field) j["rel_l2_field"] = worst(sampled(r.field_x), sampled(r.field_y), ex, ey, sh.nd, m);
  if (sh.hessian)
    j["rel_l2_hessian"] = worst(sampled(r.hessian_xx), sampled(r.hessian_xy), hxx, hxy, sh.nd, m);
  return j;
}

}  // namespace

void rows_densities(const Args& a) {
  const PointSet p = generate_points("uniform", a.densities_n, 1);
  std::vector<json> done;
  for (const Shape& sh : kShapes) {
    const json j = measure(sh, p, a);
    double ref = 0;
    for (const json& e : done)
      if (e["row"] == sh.reference) ref = e["median_s"];
    Row r;
    r.id = sh.id;
    r.what = format("N=%.0e uniform, eps 1e-10, defaults: %s", double(p.x.size()), sh.what);
    const double t = j["median_s"];
    r.detail = j;
    if (ref > 0) {
      const double ratio = t / ref;
      r.target = format("<= %.1fx %s", sh.target, sh.reference);
      r.measured = format("%.1f ms = %.2fx", 1e3 * t, ratio);
      r.met = ratio <= sh.target ? "yes" : "no";
      r.detail["ratio"] = ratio;
      r.detail["ratio_target"] = sh.target;
    } else {
      r.target = "-";
      r.measured = format("%.1f ms", 1e3 * t);
      r.met = "n/a";
    }
    std::printf("     backend %s, CT %d, near %.1f ms, far %.1f ms; rel_l2 potential %.1e%s\n",
                std::string(j["backend"]).c_str(), int(j["ct"]), 1e3 * double(j["median_near_s"]),
                1e3 * double(j["median_far_s"]), double(j["rel_l2_potential"]),
                (sh.hessian ? format(", field %.1e, Hessian %.1e", double(j["rel_l2_field"]),
                                     double(j["rel_l2_hessian"]))
                 : sh.field ? format(", field %.1e", double(j["rel_l2_field"]))
                            : std::string())
                    .c_str());
    add_row(r);
    done.push_back(j);
  }
}

}  // namespace mlfma2d::bench
