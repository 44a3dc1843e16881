// Contours to graded panels: the pieces (segments cut where other contours touch them), the
// permittivity on both sides of each, the panel count of each, and the panels. docs/solve.md
// ("Discretisation", "Dielectrics") says why each rule is there.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "electrostatics/geometry.hpp"

namespace mlfma2d::es {

namespace {

constexpr double kPi = 3.14159265358979323846;
// The smallest graded panel as a fraction of its piece: smaller ones would keep too few digits of
// their length in double coordinates.
constexpr double kSmallestPanel = 1e-10;
// Normalised distance under which two points are taken as one (contours touching).
constexpr double kTouch = 1e-12;
// Normalised offset of the points that sample the permittivity on either side of a piece.
constexpr double kSide = 1e-9;
// Panels of one piece at most from the gap rule.
constexpr double kMaxGapPanels = 20000;

// Position along a piece, t in [0, 1] -> [0, 1], clustered toward graded ends with exponent q:
// both ends 0.5 (2t)^q mirrored, one end t^q, none t.
double grade(double t, bool at_start, bool at_end, double q) {
  if (at_start && at_end) {
    return t <= 0.5 ? 0.5 * std::pow(2 * t, q) : 1 - 0.5 * std::pow(2 * (1 - t), q);
  }
  if (at_start) return std::pow(t, q);
  if (at_end) return 1 - std::pow(1 - t, q);
  return t;
}

// Panels per piece: proportional to length, at least minimum[e] each, exactly `total` in all
// when the minima allow (largest remainder, ties to the lower index).
std::vector<std::size_t> share(const std::vector<double>& length, double sum,
                               const std::vector<std::size_t>& minimum, std::size_t total) {
  const std::size_t m = length.size();
  std::vector<double> ideal(m);
  std::vector<std::size_t> n(m);
  std::size_t given = 0;
  for (std::size_t e = 0; e < m; ++e) {
    ideal[e] = double(total) * length[e] / sum;
    n[e] = std::max<std::size_t>(minimum[e], static_cast<std::size_t>(ideal[e]));
    given += n[e];
  }
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  auto gap = [&](std::size_t e) { return ideal[e] - double(n[e]); };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return gap(a) > gap(b); });
  for (std::size_t i = 0; given < total; i = (i + 1) % m, ++given) ++n[order[i]];
  std::size_t stuck = 0;
  for (auto it = order.rbegin(); given > total && stuck < m; ++it) {  // the most over-served first
    if (it == order.rend()) it = order.rbegin();
    if (n[*it] > minimum[*it]) {
      --n[*it];
      --given;
      stuck = 0;
    } else {
      ++stuck;
    }
  }
  return n;
}

struct Piece {
  Curve c;
  int contour;
  bool graded_start, graded_end;
  double eps_left = 1, eps_right = 1;
  std::size_t count = 1;
};

// Which pieces each contour segment is cut into: at the vertices of other contours lying on it
// (a trace on a substrate, a region's corner on a conductor), each cut a junction (graded).
// Arcs are not cut.
void cut_segments(const Contours& c, const std::vector<std::vector<Curve>>& curves,
                  const std::vector<int>& use, std::vector<Piece>* pieces, double corner) {
  struct Vertex {
    double x, y;
    int contour;
  };
  std::vector<Vertex> vertices;
  for (std::size_t k = 0; k < curves.size(); ++k) {
    if (!use[k]) continue;
    for (const Curve& s : curves[k]) vertices.push_back({s.ax, s.ay, static_cast<int>(k)});
    if (!c.closed[k] && !curves[k].empty()) {
      vertices.push_back({curves[k].back().bx, curves[k].back().by, static_cast<int>(k)});
    }
  }
  std::sort(vertices.begin(), vertices.end(),
            [](const Vertex& a, const Vertex& b) { return a.x < b.x; });
  const bool regions = c.has_dielectrics();
  for (std::size_t k = 0; k < curves.size(); ++k) {
    if (!use[k]) continue;
    const std::vector<Curve>& cs = curves[k];
    const std::size_t m = cs.size();
    const bool closed = c.closed[k] != 0;
    // A vertex is singular (sigma unbounded or kinked there) at an open end or where the contour
    // turns by more than the corner angle.
    auto singular = [&](std::size_t i) {  // vertex i: the start of cs[i] (i == m: the end)
      if (!closed && (i == 0 || i == m)) return true;
      double ix, iy, ox, oy;
      cs[(i + m - 1) % m].tangent(1, &ix, &iy);
      cs[i % m].tangent(0, &ox, &oy);
      const double turn = std::abs(std::atan2(ix * oy - iy * ox, ix * ox + iy * oy));
      return turn * 180 / kPi > corner;
    };
    for (std::size_t i = 0; i < m; ++i) {
      const Curve& s = cs[i];
      std::vector<double> cuts;
      if (regions && !s.arc()) {
        double x0, x1, y0, y1;
        s.box(&x0, &x1, &y0, &y1);
        const auto lo = std::lower_bound(vertices.begin(), vertices.end(), x0 - kTouch,
                                         [](const Vertex& v, double x) { return v.x < x; });
        const double l = s.length();
        for (auto v = lo; v != vertices.end() && v->x <= x1 + kTouch; ++v) {
          if (v->contour == static_cast<int>(k) || v->y < y0 - kTouch || v->y > y1 + kTouch)
            continue;
          if (c.conductor[k] != kDielectric && c.conductor[v->contour] != kDielectric) continue;
          if (s.distance(v->x, v->y) > kTouch) continue;
          const double t =
              ((v->x - s.ax) * (s.bx - s.ax) + (v->y - s.ay) * (s.by - s.ay)) / (l * l);
          if (t * l > kTouch && (1 - t) * l > kTouch) cuts.push_back(t);
        }
      }
      std::sort(cuts.begin(), cuts.end());
      cuts.erase(std::unique(cuts.begin(), cuts.end(),
                             [&](double a, double b) { return (b - a) * s.length() <= kTouch; }),
                 cuts.end());
      cuts.insert(cuts.begin(), 0.0);
      cuts.push_back(1.0);
      for (std::size_t p = 0; p + 1 < cuts.size(); ++p) {
        Piece piece{cuts.size() == 2 ? s : s.part(cuts[p], cuts[p + 1]), static_cast<int>(k),
                    p == 0 ? singular(i) : true, p + 2 == cuts.size() ? singular(i + 1) : true};
        pieces->push_back(piece);
      }
    }
  }
}

// Whether (x, y) lies on one of the pieces of `pool` (other than those of `contour`).
bool lies_on(const std::vector<const Piece*>& pool, double x, double y) {
  for (const Piece* p : pool) {
    double x0, x1, y0, y1;
    p->c.box(&x0, &x1, &y0, &y1);
    if (x < x0 - kTouch || x > x1 + kTouch || y < y0 - kTouch || y > y1 + kTouch) continue;
    if (p->c.distance(x, y) <= kTouch) return true;
  }
  return false;
}

// The smallest gap between a piece and the pieces of other contours it does not touch; pieces
// sorted by the left of their box, long ones apart so that the window stays narrow.
std::vector<double> gaps(const std::vector<Piece>& pieces) {
  const std::size_t n = pieces.size();
  std::vector<double> gap(n, 1e300), x0(n), x1(n), y0(n), y1(n);
  for (std::size_t e = 0; e < n; ++e) pieces[e].c.box(&x0[e], &x1[e], &y0[e], &y1[e]);
  constexpr double kLong = 0.05;
  std::vector<std::size_t> order, longs;
  for (std::size_t e = 0; e < n; ++e) (pieces[e].c.length() > kLong ? longs : order).push_back(e);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return x0[a] < x0[b]; });
  auto distance = [&](const Curve& a, const Curve& b) {
    double d = 1e300;
    for (double t : {0.0, 0.25, 0.5, 0.75, 1.0}) {
      double x, y;
      a.at(t, &x, &y);
      d = std::min(d, b.distance(x, y));
      b.at(t, &x, &y);
      d = std::min(d, a.distance(x, y));
    }
    return d;
  };
  auto visit = [&](std::size_t e, std::size_t f) {
    if (pieces[e].contour == pieces[f].contour) return;
    const double l = pieces[e].c.length();
    if (x0[f] > x1[e] + l || x1[f] < x0[e] - l || y0[f] > y1[e] + l || y1[f] < y0[e] - l) return;
    const double d = distance(pieces[e].c, pieces[f].c);
    if (d > kTouch) gap[e] = std::min(gap[e], d);  // touching pieces meet at a junction
  };
  for (std::size_t e = 0; e < n; ++e) {
    const double l = pieces[e].c.length();
    const auto lo = std::lower_bound(order.begin(), order.end(), x0[e] - l - kLong,
                                     [&](std::size_t f, double x) { return x0[f] < x; });
    for (auto it = lo; it != order.end() && x0[*it] <= x1[e] + l; ++it) visit(e, *it);
    for (std::size_t f : longs) visit(e, f);
  }
  return gap;
}

// The frame: the box of every curve (arcs bulge past their vertices).
Frame frame_of(const Contours& c) {
  const Frame unit;
  double xmin = 1e300, xmax = -1e300, ymin = 1e300, ymax = -1e300;
  for (std::size_t k = 0; k < c.contours(); ++k) {
    for (const Curve& s : contour_curves(c, k, unit)) {
      double a, b, d, e;
      s.box(&a, &b, &d, &e);
      xmin = std::min(xmin, a);
      xmax = std::max(xmax, b);
      ymin = std::min(ymin, d);
      ymax = std::max(ymax, e);
    }
  }
  Frame f;
  f.cx = 0.5 * (xmin + xmax);
  f.cy = 0.5 * (ymin + ymax);
  f.scale = std::max(xmax - xmin, ymax - ymin);  // > 0: segments have length
  return f;
}

// The contours' pieces that carry panels, with the permittivity on both sides. Region pieces
// along a conductor, the plane or an earlier region's boundary are no (new) interface; then each
// piece's sides, and a region piece with equal sides is none either. `use[k]`: contour k is
// discretised; `dropped_contour[k]`: a piece of it was dropped (its panels no longer close).
std::vector<Piece> sided_pieces(const Contours& c, const PanelSet& ps, bool vacuum,
                                double corner_angle, std::vector<int>* use,
                                std::vector<char>* dropped_contour) {
  std::vector<std::vector<Curve>> curves(c.contours());
  std::vector<Region> regions;
  use->assign(c.contours(), 1);
  for (std::size_t k = 0; k < c.contours(); ++k) {
    curves[k] = contour_curves(c, k, ps.frame);
    const bool region = c.conductor[k] == kDielectric;
    (*use)[k] = !(region && vacuum);
    if (region && !vacuum) regions.push_back(make_region(curves[k], c.eps_r[k]));
  }
  auto eps_at = [&](double x, double y) {
    double eps = ps.background, area = 1e300;
    for (const Region& r : regions) {
      if (r.area < area && r.contains(x, y)) {
        eps = r.eps;
        area = r.area;
      }
    }
    return eps;
  };

  std::vector<Piece> all;
  cut_segments(c, curves, *use, &all, corner_angle);
  std::vector<const Piece*> conductor_pieces;
  for (const Piece& p : all) {
    if (c.conductor[p.contour] != kDielectric) conductor_pieces.push_back(&p);
  }
  dropped_contour->assign(c.contours(), 0);
  std::vector<Piece> pieces;
  std::vector<const Piece*> earlier_regions;
  for (std::size_t e = 0; e < all.size(); ++e) {
    Piece p = all[e];
    double mx, my, tx, ty;
    p.c.at(0.5, &mx, &my);
    p.c.tangent(0.5, &tx, &ty);
    if (c.conductor[p.contour] == kDielectric) {
      bool drop = lies_on(conductor_pieces, mx, my);
      if (!drop && ps.mirror) {
        drop = std::abs(p.c.ay - ps.mirror_y) <= kTouch &&
               std::abs(p.c.by - ps.mirror_y) <= kTouch && std::abs(my - ps.mirror_y) <= kTouch;
      }
      if (!drop) {
        std::vector<const Piece*> others;
        for (const Piece* q : earlier_regions) {
          if (q->contour != p.contour) others.push_back(q);
        }
        drop = lies_on(others, mx, my);
      }
      earlier_regions.push_back(&all[e]);
      if (drop) {
        (*dropped_contour)[p.contour] = 1;
        continue;
      }
    }
    p.eps_left = eps_at(mx - kSide * ty, my + kSide * tx);
    p.eps_right = eps_at(mx + kSide * ty, my - kSide * tx);
    if (c.conductor[p.contour] == kDielectric && p.eps_left == p.eps_right) {
      (*dropped_contour)[p.contour] = 1;
      continue;
    }
    pieces.push_back(p);
  }
  return pieces;
}

// Panel counts: the given total or size, or the default (4096 shared by length, at least 8 on
// a piece with a graded end, panels at most half the gap to the nearest other contour); then
// times 2^level.
std::vector<std::size_t> panel_counts(const std::vector<Piece>& pieces,
                                      const ElectrostaticOptions& o, const Frame& f, int level) {
  const std::size_t m = pieces.size();
  std::vector<double> length(m);
  double perimeter = 0;
  for (std::size_t e = 0; e < m; ++e) {
    length[e] = pieces[e].c.length();
    perimeter += length[e];
  }
  std::vector<std::size_t> count(m, 1);
  if (o.panel_size > 0) {
    // The largest panel of a graded piece is q times the mean (the grading map's slope).
    const double h = o.panel_size / f.scale;
    double total = 0;
    for (std::size_t e = 0; e < m; ++e) {
      const double slope = pieces[e].graded_start || pieces[e].graded_end ? o.grading : 1.0;
      const double n = std::ceil(length[e] * slope / h * (1 - 1e-12));
      total += n;
      if (!(total <= double(kMaxPanels))) {
        throw InvalidInput("panel size " + num(o.panel_size) + " m gives more than " +
                           std::to_string(kMaxPanels) + " panels");
      }
      count[e] = static_cast<std::size_t>(std::max(1.0, n));
    }
  } else if (o.panels > 0) {
    if (o.panels < m) {
      throw InvalidInput("panels = " + std::to_string(o.panels) + " is less than the " +
                         std::to_string(m) +
                         " contour segments (each piece of a segment needs at least one panel)");
    }
    if (o.panels > kMaxPanels) {
      throw InvalidInput("panels = " + std::to_string(o.panels) + " is more than the " +
                         std::to_string(kMaxPanels) + " supported");
    }
    count = share(length, perimeter, std::vector<std::size_t>(m, 1), o.panels);
  } else {
    const std::vector<double> gap = gaps(pieces);
    std::vector<std::size_t> minimum(m);
    std::size_t sum = 0;
    for (std::size_t e = 0; e < m; ++e) {
      const bool graded = pieces[e].graded_start || pieces[e].graded_end;
      double n = graded ? 8.0 : 1.0;
      if (gap[e] < 1e300)
        n = std::max(n, std::min(kMaxGapPanels, std::ceil(2 * length[e] / gap[e])));
      minimum[e] = static_cast<std::size_t>(n);
      sum += minimum[e];
    }
    count = share(length, perimeter, minimum, std::max<std::size_t>(4096, sum));
  }
  std::size_t n_total = 0;
  for (std::size_t& e : count) {
    e <<= level;
    n_total += e;
  }
  if (n_total > kMaxPanels) {
    throw InvalidInput(std::to_string(n_total) + " panels is more than the " +
                       std::to_string(kMaxPanels) + " supported");
  }
  return count;
}

// The index of the circle arc piece g lies on in ps.circles, added when new (pieces of one circle
// share it: a full circle is two arcs); -1 for a straight piece.
int circle_of(const Piece& g, PanelSet* ps) {
  if (!g.c.arc()) return -1;
  for (std::size_t k = 0; k < ps->circles.size(); ++k) {
    const auto& q = ps->circles[k];
    if (std::abs(q[0] - g.c.cx) <= kTouch && std::abs(q[1] - g.c.cy) <= kTouch &&
        std::abs(q[2] - g.c.r) <= kTouch)
      return static_cast<int>(k);
  }
  ps->circles.push_back({g.c.cx, g.c.cy, g.c.r});
  return static_cast<int>(ps->circles.size() - 1);
}

// Piece g's n panels, graded toward its graded ends, appended to ps.
void add_panels(const Contours& c, const Piece& g, std::size_t n, double grading, PanelSet* ps) {
  // Cap the exponent so the smallest panel keeps kSmallestPanel of its piece: n^-q >= it.
  const double q =
      n > 1 ? std::min(grading, std::log(1 / kSmallestPanel) / std::log(double(n))) : 1.0;
  double px = g.c.ax, py = g.c.ay, pt = 0;
  for (std::size_t i = 1; i <= n; ++i) {
    double qx, qy;
    const double qt =
        i < n ? grade(double(i) / double(n), g.graded_start, g.graded_end, std::max(1.0, q)) : 1.0;
    g.c.at(qt, &qx, &qy);
    ps->seg.push_back({px, py, qx, qy});
    // On an arc the collocation point is on the arc, not the chord: the chord's midpoint lies
    // h^2 / (8 r) inside, which the interfaces' normal field would turn into a first-order
    // error (docs/solve.md).
    double mx = 0.5 * (px + qx), my = 0.5 * (py + qy);
    if (g.c.arc()) g.c.at(0.5 * (pt + qt), &mx, &my);
    ps->xm.push_back(mx);
    ps->ym.push_back(my);
    pt = qt;
    ps->contour.push_back(g.contour);
    ps->conductor.push_back(c.conductor[g.contour]);
    ps->eps_left.push_back(g.eps_left);
    ps->eps_right.push_back(g.eps_right);
    px = qx;
    py = qy;
  }
  ps->contour_start[g.contour + 1] = ps->seg.size();
  ps->circle.resize(ps->seg.size(), circle_of(g, ps));
  if (c.conductor[g.contour] == kDielectric) ps->interfaces = true;
  if (c.conductor[g.contour] != kDielectric && g.eps_left != g.eps_right) ps->two_sided = true;
}

// Lengths, normals and the perimeter of the panels made.
void finish_panels(PanelSet* ps) {
  const std::size_t n = ps->seg.size();
  for (auto* v : {&ps->h, &ps->nx, &ps->ny}) v->resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    const Segment& s = ps->seg[j];
    ps->h[j] = std::hypot(s.x1 - s.x0, s.y1 - s.y0);
    if (!(ps->h[j] > 0)) {
      throw InvalidInput("contour " + std::to_string(ps->contour[j]) +
                         ": a panel has zero length (the segment is too short for its panels " +
                         "at double precision; use fewer panels)");
    }
    ps->nx[j] = -(s.y1 - s.y0) / ps->h[j];
    ps->ny[j] = (s.x1 - s.x0) / ps->h[j];
    ps->perimeter += ps->h[j];
  }
}

}  // namespace

PanelSet discretise(const Contours& c, const ElectrostaticOptions& o, int level, bool vacuum) {
  PanelSet ps;
  ps.conductors = c.conductors();
  ps.background = vacuum ? 1.0 : o.eps_r;
  ps.frame = frame_of(c);
  ps.mirror = o.ground_plane;
  ps.mirror_y = (o.ground_plane_y - ps.frame.cy) / ps.frame.scale;
  std::vector<int> use;
  std::vector<char> dropped_contour;
  const std::vector<Piece> pieces =
      sided_pieces(c, ps, vacuum, o.corner_angle, &use, &dropped_contour);
  for (const Piece& p : pieces) ps.graded = ps.graded || p.graded_start || p.graded_end;
  const std::vector<std::size_t> count = panel_counts(pieces, o, ps.frame, level);

  std::size_t n_total = 0;
  for (std::size_t e : count) n_total += e;
  ps.seg.reserve(n_total);
  ps.contour_start.assign(c.contours() + 1, 0);
  for (std::size_t k = 0; k < c.contours(); ++k) {
    ps.closed.push_back(c.closed[k] != 0 && !dropped_contour[k] && use[k]);
  }
  for (std::size_t e = 0; e < pieces.size(); ++e)
    add_panels(c, pieces[e], count[e], o.grading, &ps);
  for (std::size_t k = 1; k <= c.contours(); ++k) {
    ps.contour_start[k] = std::max(ps.contour_start[k], ps.contour_start[k - 1]);
  }
  finish_panels(&ps);
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
  p.eps_left = ps.eps_left;
  p.eps_right = ps.eps_right;
  return p;
}

}  // namespace mlfma2d::es
