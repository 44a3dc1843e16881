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
  if (!arc_bulge.empty() || !bulge.empty()) {
    bulge.resize(x.size(), 0.0);
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
  if (!eps_r.empty() || conductor_index == kDielectric) eps_r.resize(closed.size(), 0.0);
}

void Contours::add_region(const std::vector<double>& cx, const std::vector<double>& cy,
                          double region_eps_r, const std::vector<double>& arc_bulge) {
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
  if (ks == kDielectric || kt == kDielectric) {
    const std::string what =
        ks == kDielectric && kt == kDielectric
            ? "dielectric regions (contours " + str(s.contour) + " and " + str(t.contour) + ")"
            : "dielectric region (contour " + str(ks == kDielectric ? s.contour : t.contour) +
                  ") and conductor " + str(ks == kDielectric ? kt : ks);
    throw InvalidInput(what + " overlap: their boundaries cross (" + where +
                       "); regions may touch each other and conductors, not overlap");
  }
  if (ks == kt) {
    throw InvalidInput("contours " + str(s.contour) + " and " + str(t.contour) + " of conductor " +
                       str(ks) + " cross or touch (" + where + "): contours must be apart");
  }
  throw InvalidInput("conductors " + str(ks) + " and " + str(kt) + " cross or touch (" + where +
                     "): conductors must be apart");
}

// Sweep along x: segments sorted by their left end, each checked against those still open
// (bounding boxes first), so contours of many vertices cost about N log N.
// Whether two segments cross at a point inside both (not touching, not along each other).
bool segments_cross(const SegmentRef& s, const SegmentRef& t) {
  const int o1 = orientation(s.ax, s.ay, s.bx, s.by, t.ax, t.ay);
  const int o2 = orientation(s.ax, s.ay, s.bx, s.by, t.bx, t.by);
  const int o3 = orientation(t.ax, t.ay, t.bx, t.by, s.ax, s.ay);
  const int o4 = orientation(t.ax, t.ay, t.bx, t.by, s.bx, s.by);
  return o1 * o2 < 0 && o3 * o4 < 0;
}

// Chords per arc in the crossing check: arcs are checked as inscribed polylines.
constexpr int kArcChords = 64;

void check_crossings(const Contours& c) {
  std::vector<SegmentRef> segs;
  std::vector<long long> count(c.contours());
  for (std::size_t k = 0; k < c.contours(); ++k) {
    const long long first = c.offsets[k], n = c.offsets[k + 1] - first;
    const long long m = c.closed[k] ? n : n - 1;
    count[k] = m;
    for (long long i = 0; i < m; ++i) {
      const long long p = first + i, q = first + (i + 1) % n;
      const es::Curve curve(c.x[p], c.y[p], c.x[q], c.y[q], c.bulge.empty() ? 0.0 : c.bulge[p]);
      const int chords = curve.arc() ? kArcChords : 1;
      double px = curve.ax, py = curve.ay;
      for (int j = 1; j <= chords; ++j) {
        double qx, qy;
        curve.at(double(j) / chords, &qx, &qy);
        SegmentRef s{static_cast<int>(k), i, px, py, qx, qy, 0, 0, 0, 0};
        s.xmin = std::min(s.ax, s.bx);
        s.xmax = std::max(s.ax, s.bx);
        s.ymin = std::min(s.ay, s.by);
        s.ymax = std::max(s.ay, s.by);
        segs.push_back(s);
        px = qx;
        py = qy;
      }
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
        // turns back along the first. The chords of one arc follow each other too.
        const long long m = count[s.contour];
        auto follows = [&](const SegmentRef& a, const SegmentRef& b) {  // b starts where a ends
          if (a.bx != b.ax || a.by != b.ay) return false;
          return b.index == a.index || b.index == a.index + 1 ||
                 (c.closed[s.contour] && a.index == m - 1 && b.index == 0);
        };
        if (follows(s, *t) || follows(*t, s)) {
          if (follows(s, *t) ? folds_back(s, *t) : folds_back(*t, s)) report_crossing(c, s, *t);
          continue;
        }
      }
      // A region may touch another region or a conductor (a trace on its substrate), not cross.
      const bool region =
          c.conductor[s.contour] == kDielectric || c.conductor[t->contour] == kDielectric;
      if (region && s.contour != t->contour ? segments_cross(s, *t) : segments_meet(s, *t)) {
        report_crossing(c, s, *t);
      }
    }
    active.push_back(&s);
  }
}

// The arrays' lengths and the offsets agree with the contour count.
void check_arrays(const Contours& c) {
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
  if (c.has_dielectrics() && c.eps_r.size() != n) {
    throw InvalidInput("contours: eps_r has " + str(c.eps_r.size()) + " entries but there are " +
                       str(n) + " contours (dielectric regions need their permittivity)");
  }
  if (!c.bulge.empty() && c.bulge.size() != c.x.size()) {
    throw InvalidInput("contours: bulge has " + str(c.bulge.size()) + " entries but there are " +
                       str(c.x.size()) + " vertices (one per vertex, or none)");
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
}

// Contour k: its flags, conductor number or region permittivity, bulges, vertex count, finite
// vertices and segments of non-zero length.
void check_contour(const Contours& c, std::size_t k) {
  const std::size_t n = c.contours();
  const std::string name = "contour " + str(k);
  if (c.closed[k] != 0 && c.closed[k] != 1) {
    throw InvalidInput(name + ": closed is " + str(c.closed[k]) + ", expected 0 or 1");
  }
  const bool region = c.conductor[k] == kDielectric;
  if (!region && (c.conductor[k] < 0 || c.conductor[k] >= static_cast<long long>(n))) {
    throw InvalidInput(name + ": conductor is " + str(c.conductor[k]) + ", expected 0.." +
                       str(n - 1) + " (every conductor needs a contour), or -1 for the " +
                       "boundary of a dielectric region");
  }
  if (region) {
    if (!c.closed[k]) {
      throw InvalidInput(name + " bounds a dielectric region but is not closed: a region's " +
                         "boundary must be a closed contour");
    }
    if (!(std::isfinite(c.eps_r[k]) && c.eps_r[k] > 0)) {
      throw InvalidInput(name + ": eps_r = " + es::num(c.eps_r[k]) +
                         ": a dielectric region's relative permittivity must be > 0");
    }
  }
  const long long first = c.offsets[k], m = c.offsets[k + 1] - first;
  bool arcs = false;
  for (long long i = 0; i < m && !c.bulge.empty(); ++i) {
    const double b = c.bulge[first + i];
    if (!(std::isfinite(b) && std::abs(b) <= 1e3)) {
      throw InvalidInput(name + ", vertex " + str(i) + ": bulge = " + es::num(b) +
                         ", expected a finite value of magnitude <= 1000");
    }
    if (c.closed[k] || i + 1 < m) arcs = arcs || b != 0;
  }
  if (!c.closed[k] && m < 2) {
    throw InvalidInput(name + " is open with " + str(m) + " vertex" + (m == 1 ? "" : "es") +
                       ": an open contour needs at least 2");
  }
  if (c.closed[k] && m < (arcs ? 2 : 3)) {
    throw InvalidInput(name + " is closed with " + str(m) + " vertices: a closed contour " +
                       "needs at least 3 (2 when its segments are arcs)");
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

// Conductors numbered 0..K-1 without gaps.
void check_conductor_numbers(const Contours& c) {
  if (c.conductors() == 0) throw InvalidInput("contours: there is no conductor");
  std::vector<char> used(c.conductors(), 0);
  for (int k : c.conductor) {
    if (k != kDielectric) used[k] = 1;
  }
  for (std::size_t k = 0; k < used.size(); ++k) {
    if (!used[k]) {
      throw InvalidInput("contours: conductor " + str(k) + " has no contour (conductors are " +
                         "numbered 0.." + str(used.size() - 1) + " without gaps)");
    }
  }
}

// Metal fills y < y0: a conductor there or on the plane is part of the ground.
void check_above_ground_plane(const Contours& c, double ground_plane_y) {
  for (std::size_t k = 0; k < c.contours(); ++k) {
    const long long first = c.offsets[k], m = c.offsets[k + 1] - first;
    const long long segments = c.closed[k] ? m : m - 1;
    double ymin = 1e300;
    for (long long i = 0; i < std::max(1LL, segments); ++i) {
      const long long p = first + i, q = first + (i + 1) % m;
      const es::Curve s(c.x[p], c.y[p], c.x[q], c.y[q], c.bulge.empty() ? 0.0 : c.bulge[p]);
      double x0, x1, y0, y1;
      s.box(&x0, &x1, &y0, &y1);
      ymin = std::min(ymin, y0);
    }
    const std::string name = "contour " + str(k);
    if (c.conductor[k] != kDielectric && ymin <= ground_plane_y) {
      throw InvalidInput(name + " (conductor " + str(c.conductor[k]) + ") reaches y = " +
                         es::num(ymin) + " m, " + (ymin < ground_plane_y ? "inside" : "on") +
                         " the metal of the ground plane y = " + es::num(ground_plane_y) +
                         " m: conductors must lie above it");
    }
    if (c.conductor[k] == kDielectric && ymin < ground_plane_y) {
      throw InvalidInput(name + " (a dielectric region) reaches y = " + es::num(ymin) +
                         " m, below the ground plane y = " + es::num(ground_plane_y) +
                         " m (metal fills that half-plane)");
    }
  }
}

}  // namespace

void validate(const Contours& c, double ground_plane_y) {
  check_arrays(c);
  for (std::size_t k = 0; k < c.contours(); ++k) check_contour(c, k);
  check_conductor_numbers(c);
  if (std::isfinite(ground_plane_y)) check_above_ground_plane(c, ground_plane_y);
  check_crossings(c);
}

}  // namespace mlfma2d
