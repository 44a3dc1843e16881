#include "app/solve_plot.hpp"

#include <stdlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "app/plots.hpp"
#include "mlfma2d/io.hpp"
#include "runtime/text.hpp"

namespace mlfma2d::app {

namespace fs = std::filesystem;

namespace {

// A string for a gnuplot script: single quotes, a quote doubled.
std::string gp_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// The length unit of the axes: the panels' box in m, mm or um.
struct Unit {
  const char* name;
  double per_metre;
};
Unit unit_for(double extent) {
  if (extent >= 1) return {"m", 1};
  if (extent >= 1e-3) return {"mm", 1e3};
  return {"um", 1e6};
}

// A temporary folder, removed with everything in it when this goes.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "mlfma2d-plot-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw IoError("--plot: cannot create a temporary folder");
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

std::string last_lines(const fs::path& log) {
  std::ifstream in(log);
  std::string line, out;
  std::vector<std::string> lines;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  for (std::size_t i = lines.size() > 3 ? lines.size() - 3 : 0; i < lines.size(); ++i) {
    out += (out.empty() ? "" : " / ") + lines[i];
  }
  return out.empty() ? "no message" : out;
}

// The closed conductor contours that enclose no other contour: solid metal, field-free inside.
// A contour's panels come in order along it; it is closed when its last panel ends where its
// first starts. Each is kept as a polygon of at most kVertices panel ends (a pixel's colour is all
// that depends on it).
struct Metal {
  static constexpr std::size_t kVertices = 4096;
  struct Polygon {
    std::vector<double> x, y;
    double x0, x1, y0, y1;  // box
  };
  std::vector<Polygon> polygons;

  static bool inside(const std::vector<double>& px, const std::vector<double>& py, double x,
                     double y) {
    bool in = false;
    for (std::size_t i = 0, j = px.size() - 1; i < px.size(); j = i++) {
      if ((py[i] > y) != (py[j] > y) &&
          x < px[i] + (y - py[i]) * (px[j] - px[i]) / (py[j] - py[i])) {
        in = !in;
      }
    }
    return in;
  }
  bool contains(double x, double y) const {
    for (const Polygon& q : polygons) {
      if (x >= q.x0 && x <= q.x1 && y >= q.y0 && y <= q.y1 && inside(q.x, q.y, x, y)) return true;
    }
    return false;
  }

  explicit Metal(const Panels& p) {
    std::vector<std::vector<std::size_t>> contours;
    for (std::size_t i = 0; i < p.size(); ++i) {
      const std::size_t c = static_cast<std::size_t>(p.contour[i]);
      if (contours.size() <= c) contours.resize(c + 1);
      contours[c].push_back(i);
    }
    for (std::size_t c = 0; c < contours.size(); ++c) {
      const auto& panels = contours[c];
      if (panels.size() < 3 || p.conductor[panels[0]] == kDielectric) continue;
      const std::size_t first = panels.front(), last = panels.back();
      const double gap = std::hypot(p.x1[last] - p.x0[first], p.y1[last] - p.y0[first]);
      if (gap > 1e-9 * p.length[first]) continue;  // open
      Polygon q;
      const std::size_t stride = (panels.size() + kVertices - 1) / kVertices;
      for (std::size_t i = 0; i < panels.size(); i += stride) {
        q.x.push_back(p.x0[panels[i]]);
        q.y.push_back(p.y0[panels[i]]);
      }
      q.x0 = *std::min_element(q.x.begin(), q.x.end());
      q.x1 = *std::max_element(q.x.begin(), q.x.end());
      q.y0 = *std::min_element(q.y.begin(), q.y.end());
      q.y1 = *std::max_element(q.y.begin(), q.y.end());
      // Contours do not cross: one point of another contour tells whether it lies inside.
      bool holds_another = false;
      for (std::size_t d = 0; d < contours.size() && !holds_another; ++d) {
        if (d != c && !contours[d].empty()) {
          const std::size_t j = contours[d][0];
          holds_another = inside(q.x, q.y, p.x[j], p.y[j]);
        }
      }
      if (!holds_another) polygons.push_back(std::move(q));
    }
  }
};

// Labelled tics of the log colour scale: 1, 2, 5 times the powers of ten inside [lo, hi], or
// (a range too narrow for three of them) five evenly spaced values.
std::string colour_tics(double lo, double hi) {
  std::vector<double> tics;
  for (double decade = std::pow(10, std::floor(std::log10(lo))); decade <= hi; decade *= 10) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (m * decade >= lo && m * decade <= hi) tics.push_back(m * decade);
    }
  }
  if (tics.size() < 3) {
    tics.clear();
    for (int i = 0; i < 5; ++i) tics.push_back(lo * std::pow(hi / lo, i / 4.0));
  }
  // Enough digits to tell neighbouring tics apart.
  const int digits = static_cast<int>(std::clamp(
      2 + std::ceil(std::log10(hi / std::max(tics[1] - tics[0], 1e-300 * hi))), 2.0, 8.0));
  std::string out = "set cbtics (";
  for (std::size_t i = 0; i < tics.size(); ++i) {
    out += format("%s'%.*g' %.9g", i ? ", " : "", digits, tics[i], tics[i]);
  }
  return out + ")";
}

// Quantile q of the sorted values.
double quantile(const std::vector<double>& sorted, double q) {
  return sorted[static_cast<std::size_t>(q * double(sorted.size() - 1))];
}

// |E| on the probe grid, and the ranges the picture's colours and equipotentials span.
struct FieldImage {
  std::vector<double> e;  ///< |E| per probe, NaN inside solid metal (drawn grey there)
  double e_lo = 0, e_hi = 0;
  double phi_lo = std::numeric_limits<double>::infinity(), phi_hi = -phi_lo;
};

// The colour range: the 99.5% quantile down 4 decades at most (the field is singular at edges
// and zero inside shells; neither should set the scale).
FieldImage field_image(const ProbeGrid& g, const FieldAtTargets& field, const Metal& metal) {
  const std::size_t n = g.nx * g.ny;
  FieldImage f;
  f.e.resize(n);
  std::vector<double> finite;
  for (std::size_t i = 0; i < n; ++i) {
    f.e[i] = metal.contains(g.x[i], g.y[i]) ? NAN : std::hypot(field.field_x[i], field.field_y[i]);
    if (std::isfinite(f.e[i]) && f.e[i] > 0) finite.push_back(f.e[i]);
    if (std::isfinite(field.potential[i])) {
      f.phi_lo = std::min(f.phi_lo, field.potential[i]);
      f.phi_hi = std::max(f.phi_hi, field.potential[i]);
    }
  }
  if (finite.empty()) throw RuntimeFailure("--plot: the field is zero or undefined everywhere");
  std::sort(finite.begin(), finite.end());
  f.e_hi = quantile(finite, 0.995);
  f.e_lo = std::max(quantile(finite, 0.01), 1e-4 * f.e_hi);
  return f;
}

// grid.dat: x, y (in `unit`), |E| clamped to the colour range, phi; a blank line after each row.
void write_grid(const fs::path& dir, const ProbeGrid& g, const FieldAtTargets& field,
                const FieldImage& f, const Unit& unit) {
  const double k = unit.per_metre;
  std::ofstream out(dir / "grid.dat");
  out << "# x (" << unit.name << ") y |E| (V/m, clamped to the colour range) phi (V)\n";
  for (std::size_t j = 0; j < g.ny; ++j) {
    for (std::size_t i = 0; i < g.nx; ++i) {
      const std::size_t at = j * g.nx + i;
      const double v = std::isfinite(f.e[at]) ? std::clamp(f.e[at], f.e_lo, f.e_hi) : NAN;
      out << format("%.9g %.9g ", g.x[at] * k, g.y[at] * k)
          << (std::isfinite(v) ? format("%.6g", v) : std::string("NaN")) << " "
          << format("%.9g", field.potential[at]) << "\n";
    }
    out << "\n";
  }
  if (!out) throw IoError("--plot: cannot write " + (dir / "grid.dat").string());
}

// \brief Which outlines the cross-section has.
struct Outlines {
  bool conductors = false, interfaces = false;
};

// conductors.dat and interfaces.dat (the panels as separate segments), metal.dat (the solid
// metal's polygons).
Outlines write_outlines(const fs::path& dir, const Panels& p, const Metal& metal, double k) {
  std::ostringstream conductors, interfaces;
  for (std::size_t i = 0; i < p.size(); ++i) {
    std::ostringstream& o = p.conductor[i] == kDielectric ? interfaces : conductors;
    o << format("%.9g %.9g\n%.9g %.9g\n\n", p.x0[i] * k, p.y0[i] * k, p.x1[i] * k, p.y1[i] * k);
  }
  std::ofstream(dir / "conductors.dat") << conductors.str();
  std::ostringstream solid;
  for (const Metal::Polygon& q : metal.polygons) {
    for (std::size_t i = 0; i < q.x.size(); ++i) {
      solid << format("%.9g %.9g\n", q.x[i] * k, q.y[i] * k);
    }
    solid << "\n";
  }
  std::ofstream(dir / "metal.dat") << solid.str();
  std::ofstream(dir / "interfaces.dat") << interfaces.str();
  return {!conductors.str().empty(), !interfaces.str().empty()};
}

// The script's set-up: canvas, equipotentials traced into a table (when dv > 0, from v_lo), title,
// axes, the ground plane's metal band, the colour bar.
std::string script_head(const ElectrostaticSolution& s, const ProbeGrid& g, const FieldImage& f,
                        const Unit& unit, double v_lo, double v_hi, double dv,
                        const std::string& title) {
  const double k = unit.per_metre;
  // The canvas follows the box's shape: 1000 pixels across the plot, the height to match.
  const double ratio = (g.y1 - g.y0) / (g.x1 - g.x0);
  const int height = static_cast<int>(std::clamp(1000 * ratio + 230, 450.0, 1400.0));
  std::string script = format("set terminal pngcairo size 1250,%d font 'Sans,11'\n", height) +
                       "set termoption noenhanced\n";
  if (dv > 0) {
    script += format(
        "set contour base\nunset surface\nset view map\n"
        "set cntrparam levels incremental %.9g, %.9g, %.9g\n"
        "set table 'equipotentials.dat'\nsplot 'grid.dat' using 1:2:4 with lines notitle\n"
        "unset table\nunset contour\n",
        v_lo + dv / 2, dv, v_hi);
  }
  script += "set output 'picture.png'\n";
  script += "set title " + gp_quote(title) + "\n";
  script += format("set xlabel 'x (%s)'\nset ylabel 'y (%s)'\n", unit.name, unit.name);
  // Over a ground plane a band of metal (grey) below it, 4% of the height.
  const double below = s.ground_plane ? 0.04 * (g.y1 - g.y0) : 0;
  script += format("set size ratio -1\nset xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n", g.x0 * k,
                   g.x1 * k, (g.y0 - below) * k, g.y1 * k);
  if (s.ground_plane) {
    script += format(
        "set object 1 rectangle from %.9g, %.9g to %.9g, %.9g front fillcolor rgb '#b8b8b8' "
        "fillstyle solid noborder\n",
        g.x0 * k, (g.y0 - below) * k, g.x1 * k, g.y0 * k);
  }
  script +=
      format("set logscale cb\nset cbrange [%.6g:%.6g]\nset cblabel '|E| (V/m)' offset 2,0\n%s\n",
             f.e_lo, f.e_hi, colour_tics(f.e_lo, f.e_hi).c_str());
  return script;
}

// The plot command: |E| as an image, then metal, equipotentials, interfaces, conductors and the
// ground plane over it.
std::string plot_command(const ElectrostaticSolution& s, const Metal& metal, const Outlines& o,
                         double dv, double k) {
  std::string plot =
      "set palette defined (0 '#fffff0', 1 '#fee391', 2 '#fec44f', 3 '#fe9929', 4 '#d95f0e', "
      "5 '#993404', 6 '#4a1a04')\n"
      "set key outside below center horizontal box\n"
      "plot 'grid.dat' using 1:2:3 with image notitle";
  if (!metal.polygons.empty()) {
    plot += ", 'metal.dat' using 1:2 with filledcurves closed fc rgb '#b8b8b8' notitle";
  }
  if (dv > 0) {
    plot += format(
        ", 'equipotentials.dat' using 1:2 with lines lc rgb '#1c3fd0' lw 1.5 "
        "title 'equipotentials (%g V apart)'",
        dv);
  }
  if (o.interfaces) {
    plot +=
        ", 'interfaces.dat' using 1:2 with lines lc rgb '#1a9850' lw 2 dt 2 "
        "title 'dielectric interface'";
  }
  if (o.conductors) {
    plot += ", 'conductors.dat' using 1:2 with lines lc rgb '#000000' lw 4 title 'conductor'";
  }
  if (s.ground_plane) {
    plot += format(", %.9g with lines lc rgb '#555555' lw 8 title 'ground plane'",
                   s.ground_plane_y * k);
  }
  return plot + "\n";
}

// Runs gnuplot on plot.gp in `dir` and copies its picture to `png` (the atomic write's file: the
// temporary folder may be on another file system).
void render(const fs::path& dir, const std::string& png) {
  const std::string cmd =
      "cd " + shell_quote(dir.string()) + " && gnuplot plot.gp >/dev/null 2>gnuplot.log";
  const fs::path picture = dir / "picture.png";
  std::error_code ec;
  if (std::system(cmd.c_str()) != 0 || !fs::exists(picture) || fs::file_size(picture, ec) == 0) {
    throw RuntimeFailure("--plot: gnuplot failed: " + last_lines(dir / "gnuplot.log"));
  }
  write_atomically(png, [&](const std::string& tmp) {
    fs::copy_file(picture, tmp, fs::copy_options::overwrite_existing, ec);
    if (ec) throw IoError("--plot: cannot write '" + png + "': " + ec.message());
  });
}

}  // namespace

ProbeGrid probe_grid(const ElectrostaticSolution& s, std::size_t points) {
  const Panels& p = s.panels;
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    x0 = std::min({x0, p.x0[i], p.x1[i]});
    x1 = std::max({x1, p.x0[i], p.x1[i]});
    y0 = std::min({y0, p.y0[i], p.y1[i]});
    y1 = std::max({y1, p.y0[i], p.y1[i]});
  }
  if (s.ground_plane) {
    y0 = std::min(y0, s.ground_plane_y);
    y1 = std::max(y1, s.ground_plane_y);
  }
  if (!(x1 >= x0 && y1 >= y0)) throw InvalidInput("--plot: the solution has no panels");
  const double margin = 0.15 * std::max({x1 - x0, y1 - y0, 1e-300});
  ProbeGrid g;
  g.x0 = x0 - margin;
  g.x1 = x1 + margin;
  g.y0 = s.ground_plane ? s.ground_plane_y : y0 - margin;
  g.y1 = y1 + margin;
  const double aspect = (g.x1 - g.x0) / (g.y1 - g.y0);
  g.nx = std::clamp<std::size_t>(std::lround(std::sqrt(double(points) * aspect)), 16, 4000);
  g.ny = std::clamp<std::size_t>(std::lround(double(points) / double(g.nx)), 16, 4000);
  for (std::size_t j = 0; j < g.ny; ++j) {
    const double y = g.y0 + (g.y1 - g.y0) * double(j) / double(g.ny - 1);
    for (std::size_t i = 0; i < g.nx; ++i) {
      g.x.push_back(g.x0 + (g.x1 - g.x0) * double(i) / double(g.nx - 1));
      g.y.push_back(y);
    }
  }
  return g;
}

void plot_solution(const std::string& png, const ElectrostaticSolution& s, const ProbeGrid& g,
                   const FieldAtTargets& field, const std::string& title) {
  if (!gnuplot_available()) {
    throw InvalidInput("--plot: gnuplot not found (install gnuplot-nox)");
  }
  const std::size_t n = g.nx * g.ny;
  if (field.potential.size() != n || field.field_x.size() != n || field.field_y.size() != n) {
    throw InvalidInput("--plot: the field does not match the probe grid");
  }
  const Unit unit = unit_for(std::max(g.x1 - g.x0, g.y1 - g.y0));
  const TempDir dir;
  const Metal metal(s.panels);
  const FieldImage f = field_image(g, field, metal);
  write_grid(dir.path, g, field, f, unit);
  const Outlines outlines = write_outlines(dir.path, s.panels, metal, unit.per_metre);
  // Equipotentials: ten steps between the lowest and highest conductor potential (or the
  // grid's range), through gnuplot's contouring into a table, then drawn as lines.
  double v_lo = f.phi_lo, v_hi = f.phi_hi;
  if (s.potentials.size() >= 2) {
    v_lo = *std::min_element(s.potentials.begin(), s.potentials.end());
    v_hi = *std::max_element(s.potentials.begin(), s.potentials.end());
  }
  const double dv = (v_hi - v_lo) / 10;
  std::ofstream(dir.path / "plot.gp") << script_head(s, g, f, unit, v_lo, v_hi, dv, title) +
                                             plot_command(s, metal, outlines, dv, unit.per_metre);
  render(dir.path, png);
}

}  // namespace mlfma2d::app
