// Contour checks and the discretisation into graded straight panels.
#include "electrostatics/geometry.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace mlfma2d {

int Contours::conductors() const {
  int k = -1;
  for (int c : conductor) k = std::max(k, c);
  return k + 1;
}

bool Contours::has_dielectrics() const {
  return std::find(conductor.begin(), conductor.end(), kDielectric) != conductor.end();
}

void Contours::add(const std::vector<double>& cx, const std::vector<double>& cy, bool is_closed,
                   int conductor_index, const std::vector<double>& arc_bulge) {
  if (cx.size() != cy.size()) throw InvalidInput("Contours::add: x and y differ in length");
  if (!arc_bulge.empty() && arc_bulge.size() != cx.size()) {
    throw InvalidInput("Contours::add: give one bulge per vertex (or none)");
  }
  if (offsets.empty()) offsets.push_back(0);
  // Bulges and permittivities are stored only once some contour needs them.
  if (!arc_bulge.empty() && bulge.empty()) bulge.assign(x.size(), 0.0);
  if (!bulge.empty()) {
    if (arc_bulge.empty()) {
      bulge.insert(bulge.end(), cx.size(), 0.0);
    } else {
      bulge.insert(bulge.end(), arc_bulge.begin(), arc_bulge.end());
    }
  }
  x.insert(x.end(), cx.begin(), cx.end());
  y.insert(y.end(), cy.begin(), cy.end());
  offsets.push_back(static_cast<std::int64_t>(x.size()));
  closed.push_back(is_closed ? 1 : 0);
  conductor.push_back(conductor_index);
  if (!eps_r.empty()) eps_r.push_back(0.0);
}

void Contours::add_region(const std::vector<double>& cx, const std::vector<double>& cy,
                          double region_eps_r, const std::vector<double>& arc_bulge) {
  if (eps_r.empty()) eps_r.assign(closed.size(), 0.0);
  add(cx, cy, true, kDielectric, arc_bulge);
  eps_r.back() = region_eps_r;
}

namespace {

std::string str(long long v) {
  return std::to_string(v);
}

// Which contour each vertex range belongs to, and its segments: segment i joins vertex i to
// vertex i + 1 (the last of a closed contour joins it to vertex 0).
struct SegmentRef {
  int contour;
  long long index;  // segment index within its contour
  double ax, ay, bx, by;
  double xmin, xmax, ymin, ymax;
};

// Sign of the cross product (b - a) x (c - a).
int orientation(double ax, double ay, double bx, double by, double cx, double cy) {
  const double v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  return (v > 0) - (v < 0);
}

// c on segment ab, given that a, b, c are collinear.
bool on_segment(double ax, double ay, double bx, double by, double cx, double cy) {
  return std::min(ax, bx) <= cx && cx <= std::max(ax, bx) && std::min(ay, by) <= cy &&
         cy <= std::max(ay, by);
}

// Whether two closed segments share a point.
bool segments_meet(const SegmentRef& s, const SegmentRef& t) {
  const int o1 = orientation(s.ax, s.ay, s.bx, s.by, t.ax, t.ay);
  const int o2 = orientation(s.ax, s.ay, s.bx, s.by, t.bx, t.by);
  const int o3 = orientation(t.ax, t.ay, t.bx, t.by, s.ax, s.ay);
  const int o4 = orientation(t.ax, t.ay, t.bx, t.by, s.bx, s.by);
  if (o1 != o2 && o3 != o4) return true;
  return (o1 == 0 && on_segment(s.ax, s.ay, s.bx, s.by, t.ax, t.ay)) ||
         (o2 == 0 && on_segment(s.ax, s.ay, s.bx, s.by, t.bx, t.by)) ||
         (o3 == 0 && on_segment(t.ax, t.ay, t.bx, t.by, s.ax, s.ay)) ||
         (o4 == 0 && on_segment(t.ax, t.ay, t.bx, t.by, s.bx, s.by));
}

// Consecutive segments s -> t share t's start; they overlap beyond it only when t turns back
// along s (collinear, opposite directions).
bool folds_back(const SegmentRef& s, const SegmentRef& t) {
  const double ux = s.bx - s.ax, uy = s.by - s.ay, vx = t.bx - t.ax, vy = t.by - t.ay;
  return ux * vy - uy * vx == 0 && ux * vx + uy * vy < 0;
}

[[noreturn]] void report_crossing(const Contours& c, const SegmentRef& first,
                                  const SegmentRef& second) {
  // The lower contour (then segment) first, whatever order the sweep met them in.
  const bool swap = second.contour < first.contour ||
                    (second.contour == first.contour && second.index < first.index);
  const SegmentRef& s = swap ? second : first;
  const SegmentRef& t = swap ? first : second;
  const std::string where = "segment " + str(s.index) + " of contour " + str(s.contour) +
                            " and segment " + str(t.index) + " of contour " + str(t.contour);
  if (s.contour == t.contour) {
    throw InvalidInput("contour " + str(s.contour) + " crosses or touches itself (" + where + ")");
  }
  const int ks = c.conductor[s.contour], kt = c.conductor[t.contour];
  if (ks == kt) {
    throw InvalidInput("contours " + str(s.contour) + " and " + str(t.contour) + " of conductor " +
                       str(ks) + " cross or touch (" + where + "): contours must be apart");
  }
  throw InvalidInput("conductors " + str(ks) + " and " + str(kt) + " cross or touch (" + where +
                     "): conductors must be apart");
}

// Sweep along x: segments sorted by their left end, each checked against those still open
// (bounding boxes first), so contours of many vertices cost about N log N.
void check_crossings(const Contours& c) {
  std::vector<SegmentRef> segs;
  std::vector<long long> count(c.contours());
  for (std::size_t k = 0; k < c.contours(); ++k) {
    const long long first = c.offsets[k], n = c.offsets[k + 1] - first;
    const long long m = c.closed[k] ? n : n - 1;
    count[k] = m;
    for (long long i = 0; i < m; ++i) {
      const long long p = first + i, q = first + (i + 1) % n;
      SegmentRef s{static_cast<int>(k), i, c.x[p], c.y[p], c.x[q], c.y[q], 0, 0, 0, 0};
      s.xmin = std::min(s.ax, s.bx);
      s.xmax = std::max(s.ax, s.bx);
      s.ymin = std::min(s.ay, s.by);
      s.ymax = std::max(s.ay, s.by);
      segs.push_back(s);
    }
  }
  std::sort(segs.begin(), segs.end(), [](const SegmentRef& a, const SegmentRef& b) {
    return a.xmin < b.xmin || (a.xmin == b.xmin && (a.contour < b.contour ||
                                                    (a.contour == b.contour && a.index < b.index)));
  });
  std::vector<const SegmentRef*> active;
  for (const SegmentRef& s : segs) {
    active.erase(std::remove_if(active.begin(), active.end(),
                                [&](const SegmentRef* t) { return t->xmax < s.xmin; }),
                 active.end());
    for (const SegmentRef* t : active) {
      if (t->ymax < s.ymin || s.ymax < t->ymin) continue;
      if (s.contour == t->contour) {
        // Neighbours share one vertex by construction; they meet elsewhere only when the second
        // turns back along the first.
        const long long m = count[s.contour];
        auto follows = [&](const SegmentRef& a, const SegmentRef& b) {  // b starts where a ends
          return b.index == a.index + 1 ||
                 (c.closed[s.contour] && a.index == m - 1 && b.index == 0);
        };
        if (follows(s, *t) || follows(*t, s)) {
          if (follows(s, *t) ? folds_back(s, *t) : folds_back(*t, s)) report_crossing(c, s, *t);
          continue;
        }
      }
      if (segments_meet(s, *t)) report_crossing(c, s, *t);
    }
    active.push_back(&s);
  }
}

}  // namespace

void validate(const Contours& c, double ground_plane_y) {
  (void)ground_plane_y;
  const std::size_t n = c.contours();
  if (n == 0) throw InvalidInput("contours: there is no contour");
  if (c.x.size() != c.y.size()) {
    throw InvalidInput("contours: x has " + str(c.x.size()) + " vertices but y has " +
                       str(c.y.size()));
  }
  if (c.offsets.size() != n + 1) {
    throw InvalidInput("contours: offsets has " + str(c.offsets.size()) +
                       " entries, expected the number of contours + 1 = " + str(n + 1));
  }
  if (c.conductor.size() != n) {
    throw InvalidInput("contours: conductor has " + str(c.conductor.size()) +
                       " entries but there are " + str(n) + " contours");
  }
  if (c.offsets[0] != 0)
    throw InvalidInput("contours: offsets[0] is " + str(c.offsets[0]) + ", expected 0");
  if (c.offsets[n] != static_cast<std::int64_t>(c.x.size())) {
    throw InvalidInput("contours: offsets[" + str(n) + "] is " + str(c.offsets[n]) +
                       ", expected the vertex count " + str(c.x.size()));
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (c.offsets[k + 1] < c.offsets[k]) {
      throw InvalidInput("contours: offsets[" + str(k + 1) + "] = " + str(c.offsets[k + 1]) +
                         " is less than offsets[" + str(k) + "] = " + str(c.offsets[k]));
    }
  }
  for (std::size_t k = 0; k < n; ++k) {
    const std::string name = "contour " + str(k);
    if (c.closed[k] != 0 && c.closed[k] != 1) {
      throw InvalidInput(name + ": closed is " + str(c.closed[k]) + ", expected 0 or 1");
    }
    if (c.conductor[k] < 0 || c.conductor[k] >= static_cast<long long>(n)) {
      throw InvalidInput(name + ": conductor is " + str(c.conductor[k]) + ", expected 0.." +
                         str(n - 1) + " (every conductor needs a contour)");
    }
    const long long first = c.offsets[k], m = c.offsets[k + 1] - first;
    if (!c.closed[k] && m < 2) {
      throw InvalidInput(name + " is open with " + str(m) + " vertex" + (m == 1 ? "" : "es") +
                         ": an open contour needs at least 2");
    }
    if (c.closed[k] && m < 3) {
      throw InvalidInput(name + " is closed with " + str(m) + " vertices: a closed contour " +
                         "needs at least 3");
    }
    for (long long i = 0; i < m; ++i) {
      for (const auto* v : {&c.x, &c.y}) {
        const double value = (*v)[first + i];
        if (!std::isfinite(value)) {
          throw InvalidInput(name + ", vertex " + str(i) + ": " + (v == &c.x ? "x" : "y") + " is " +
                             (std::isnan(value) ? "NaN" : "infinite"));
        }
      }
    }
    const long long segments = c.closed[k] ? m : m - 1;
    for (long long i = 0; i < segments; ++i) {
      const long long p = first + i, q = first + (i + 1) % m;
      if (c.x[p] == c.x[q] && c.y[p] == c.y[q]) {
        if (i == m - 1) {
          throw InvalidInput(name + ": the closing segment has zero length (vertex " + str(m - 1) +
                             " repeats vertex 0; a closed contour must not repeat " +
                             "its first vertex)");
        }
        throw InvalidInput(name + ": segment " + str(i) + " has zero length (vertices " + str(i) +
                           " and " + str(i + 1) + " coincide)");
      }
    }
  }
  std::vector<char> used(c.conductors(), 0);
  for (int k : c.conductor) used[k] = 1;
  for (std::size_t k = 0; k < used.size(); ++k) {
    if (!used[k]) {
      throw InvalidInput("contours: conductor " + str(k) + " has no contour (conductors are " +
                         "numbered 0.." + str(used.size() - 1) + " without gaps)");
    }
  }
  check_crossings(c);
}

namespace es {
namespace {

constexpr double kPi = 3.14159265358979323846;
// The smallest graded panel as a fraction of its segment: smaller ones would keep too few
// digits of their length in double coordinates.
constexpr double kSmallestPanel = 1e-10;

// Position along a segment, t in [0, 1] -> [0, 1], clustered toward graded ends with exponent q:
// both ends 0.5 (2t)^q mirrored, one end t^q, none t.
double grade(double t, bool at_start, bool at_end, double q) {
  if (at_start && at_end) {
    return t <= 0.5 ? 0.5 * std::pow(2 * t, q) : 1 - 0.5 * std::pow(2 * (1 - t), q);
  }
  if (at_start) return std::pow(t, q);
  if (at_end) return 1 - std::pow(1 - t, q);
  return t;
}

// Panels per segment: proportional to length, at least one each, exactly `total` in all
// (largest remainder, ties to the lower index).
std::vector<std::size_t> share(const std::vector<double>& length, double sum, std::size_t total) {
  const std::size_t m = length.size();
  std::vector<double> ideal(m);
  std::vector<std::size_t> n(m);
  std::size_t given = 0;
  for (std::size_t e = 0; e < m; ++e) {
    ideal[e] = double(total) * length[e] / sum;
    n[e] = std::max<std::size_t>(1, static_cast<std::size_t>(ideal[e]));
    given += n[e];
  }
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  auto gap = [&](std::size_t e) { return ideal[e] - double(n[e]); };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return gap(a) > gap(b); });
  for (std::size_t i = 0; given < total; i = (i + 1) % m, ++given) ++n[order[i]];
  for (auto it = order.rbegin(); given > total; ++it) {  // the most over-served first
    if (it == order.rend()) it = order.rbegin();
    if (n[*it] > 1) {
      --n[*it];
      --given;
    }
  }
  return n;
}

}  // namespace

PanelSet discretise(const Contours& c, const ElectrostaticOptions& o) {
  PanelSet ps;
  ps.conductors = c.conductors();
  const auto [xmin, xmax] = std::minmax_element(c.x.begin(), c.x.end());
  const auto [ymin, ymax] = std::minmax_element(c.y.begin(), c.y.end());
  ps.frame.cx = 0.5 * (*xmin + *xmax);
  ps.frame.cy = 0.5 * (*ymin + *ymax);
  ps.frame.scale = std::max(*xmax - *xmin, *ymax - *ymin);  // > 0: segments have length
  const Frame& f = ps.frame;

  // Segments in normalised coordinates, with the grading of each end.
  struct Edge {
    double ax, ay, bx, by, length;
    bool graded_start, graded_end;
    int contour;
  };
  std::vector<Edge> edges;
  double perimeter = 0;
  for (std::size_t k = 0; k < c.contours(); ++k) {
    const long long first = c.offsets[k], m = c.offsets[k + 1] - first;
    const bool closed = c.closed[k] != 0;
    auto vx = [&](long long i) { return (c.x[first + ((i % m) + m) % m] - f.cx) / f.scale; };
    auto vy = [&](long long i) { return (c.y[first + ((i % m) + m) % m] - f.cy) / f.scale; };
    // A vertex is singular (sigma unbounded or kinked there) at an open end or where the contour
    // turns by more than the corner angle.
    auto singular = [&](long long i) {
      if (!closed && (i == 0 || i == m - 1)) return true;
      const double ix = vx(i) - vx(i - 1), iy = vy(i) - vy(i - 1);
      const double ox = vx(i + 1) - vx(i), oy = vy(i + 1) - vy(i);
      const double turn = std::abs(std::atan2(ix * oy - iy * ox, ix * ox + iy * oy));
      return turn * 180 / kPi > o.corner_angle;
    };
    const long long segments = closed ? m : m - 1;
    for (long long i = 0; i < segments; ++i) {
      Edge e{vx(i), vy(i),       vx(i + 1),       vy(i + 1),
             0,     singular(i), singular(i + 1), static_cast<int>(k)};
      e.length = std::hypot(e.bx - e.ax, e.by - e.ay);
      ps.graded = ps.graded || e.graded_start || e.graded_end;
      perimeter += e.length;
      edges.push_back(e);
    }
  }

  std::vector<double> length(edges.size());
  for (std::size_t e = 0; e < edges.size(); ++e) length[e] = edges[e].length;
  std::vector<std::size_t> count;
  if (o.panel_size > 0) {
    // The largest panel of a graded segment is q times the mean (the grading map's slope).
    const double h = o.panel_size / f.scale;
    double total = 0;
    count.resize(edges.size());
    for (std::size_t e = 0; e < edges.size(); ++e) {
      const double slope = edges[e].graded_start || edges[e].graded_end ? o.grading : 1.0;
      const double n = std::max(1.0, std::ceil(edges[e].length * slope / h * (1 - 1e-12)));
      total += n;
      if (total > double(kMaxPanels)) {
        throw InvalidInput("panel size " + std::to_string(o.panel_size) + " m gives more than " +
                           std::to_string(kMaxPanels) + " panels");
      }
      count[e] = static_cast<std::size_t>(n);
    }
  } else {
    const std::size_t total = o.panels > 0 ? o.panels : std::max<std::size_t>(4096, edges.size());
    if (total < edges.size()) {
      throw InvalidInput("panels = " + std::to_string(total) + " is less than the " +
                         std::to_string(edges.size()) +
                         " contour segments (each needs at least one panel)");
    }
    if (total > kMaxPanels) {
      throw InvalidInput("panels = " + std::to_string(total) + " is more than the " +
                         std::to_string(kMaxPanels) + " supported");
    }
    count = share(length, perimeter, total);
  }

  std::size_t n_total = 0;
  for (std::size_t e : count) n_total += e;
  ps.seg.reserve(n_total);
  ps.contour_start.assign(c.contours() + 1, 0);
  for (int k : c.closed) ps.closed.push_back(k != 0);
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const Edge& g = edges[e];
    const std::size_t n = count[e];
    // Cap the exponent so the smallest panel keeps kSmallestPanel of its segment: n^-q >= it.
    const double q =
        n > 1 ? std::min(o.grading, std::log(1 / kSmallestPanel) / std::log(double(n))) : 1.0;
    double px = g.ax, py = g.ay;
    for (std::size_t i = 1; i <= n; ++i) {
      double qx = g.bx, qy = g.by;  // the segment's ends exactly, so neighbours share them
      if (i < n) {
        const double t =
            grade(double(i) / double(n), g.graded_start, g.graded_end, std::max(1.0, q));
        qx = g.ax + (g.bx - g.ax) * t;
        qy = g.ay + (g.by - g.ay) * t;
      }
      ps.seg.push_back({px, py, qx, qy});
      ps.contour.push_back(g.contour);
      ps.conductor.push_back(c.conductor[g.contour]);
      px = qx;
      py = qy;
    }
    ps.contour_start[g.contour + 1] = ps.seg.size();
  }
  for (std::size_t k = 1; k <= c.contours(); ++k) {
    ps.contour_start[k] = std::max(ps.contour_start[k], ps.contour_start[k - 1]);
  }
  const std::size_t n = ps.seg.size();
  ps.xm.resize(n);
  ps.ym.resize(n);
  ps.h.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    const Segment& s = ps.seg[j];
    ps.xm[j] = 0.5 * (s.x0 + s.x1);
    ps.ym[j] = 0.5 * (s.y0 + s.y1);
    ps.h[j] = std::hypot(s.x1 - s.x0, s.y1 - s.y0);
    if (!(ps.h[j] > 0)) {
      throw InvalidInput("contour " + std::to_string(ps.contour[j]) +
                         ": a panel has zero length (the segment is too short for its panels " +
                         "at double precision; use fewer panels)");
    }
    ps.perimeter += ps.h[j];
  }
  return ps;
}

Panels to_metres(const PanelSet& ps) {
  const Frame& f = ps.frame;
  Panels p;
  const std::size_t n = ps.size();
  for (auto* v : {&p.x0, &p.y0, &p.x1, &p.y1, &p.x, &p.y, &p.length}) v->resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    const Segment& s = ps.seg[j];
    p.x0[j] = f.cx + f.scale * s.x0;
    p.y0[j] = f.cy + f.scale * s.y0;
    p.x1[j] = f.cx + f.scale * s.x1;
    p.y1[j] = f.cy + f.scale * s.y1;
    p.x[j] = f.cx + f.scale * ps.xm[j];
    p.y[j] = f.cy + f.scale * ps.ym[j];
    p.length[j] = f.scale * ps.h[j];
  }
  p.contour = ps.contour;
  p.conductor = ps.conductor;
  return p;
}

}  // namespace es
}  // namespace mlfma2d
