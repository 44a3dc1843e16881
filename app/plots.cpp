#include "app/plots.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <ostream>
#include <set>

#include "mlfma2d/io.hpp"
#include "runtime/text.hpp"
#include "tuning/tuning.hpp"

namespace mlfma2d::app {

namespace fs = std::filesystem;
using namespace tuning;

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool gnuplot_available() {
  return std::system("command -v gnuplot >/dev/null 2>&1") == 0;
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kSpeedupLabel = "speedup = indexing time / repetition time";

// The common head of every plot: a PNG a person can read without the code.
std::string plot_head(const std::string& png, const std::string& title, const std::string& xlabel,
                      const std::string& ylabel) {
  return "# Rendered by mlfma2d; re-run with: gnuplot " + png.substr(0, png.size() - 4) +
         ".gp (in this folder)\n"
         "set terminal pngcairo size 1150,650 font 'Sans,11'\n"
         "set termoption noenhanced\n"
         "set output '" +
         png +
         "'\n"
         "set title \"" +
         title +
         "\"\n"
         "set xlabel \"" +
         xlabel +
         "\"\n"
         "set ylabel \"" +
         ylabel +
         "\"\n"
         "set datafile missing 'NaN'\n"
         "set grid\n"
         "set key outside right top box\n";
}

// One plot: its data file (whitespace columns, '#' header) and its script, in `dir`.
struct Plots {
  std::string dir;
  std::vector<std::string> scripts;  ///< names of the .gp files written
  void data(const std::string& name, const std::string& header,
            const std::vector<std::vector<double>>& rows) const {
    std::string text = "# " + header + "\n";
    for (const auto& r : rows) {
      for (std::size_t i = 0; i < r.size(); ++i)
        text += (i ? " " : "") + (std::isfinite(r[i]) ? format("%.9g", r[i]) : std::string("NaN"));
      text += "\n";
    }
    write_text_file((fs::path(dir) / name).string(), text);
  }
  void script(const std::string& name, const std::string& body) {
    write_text_file((fs::path(dir) / (name + ".gp")).string(), body);
    scripts.push_back(name);
  }
  // Renders every script; returns the PNGs made, notes failures on `err`.
  std::vector<std::string> render(std::ostream& err) const {
    std::vector<std::string> made;
    for (const std::string& s : scripts) {
      const std::string cmd = "cd " + shell_quote(dir) + " && gnuplot " + shell_quote(s + ".gp") +
                              " >/dev/null 2>" + shell_quote(s + ".gp.log");
      if (std::system(cmd.c_str()) == 0) {
        made.push_back((fs::path(dir) / (s + ".png")).string());
        std::error_code ec;
        fs::remove(fs::path(dir) / (s + ".gp.log"), ec);
      } else {
        err << "warning: gnuplot failed on " << (fs::path(dir) / (s + ".gp")).string() << " (see "
            << s << ".gp.log)\n";
      }
    }
    return made;
  }
};

// Zero is "not measured" on a log axis.
double positive(double v) {
  return v > 0 ? v : kNaN;
}

// Rows of one sweep, by back end, in run order.
std::map<std::string, std::vector<SweepRow>> by_backend(const std::vector<SweepRow>& rows,
                                                        const std::string& sweep) {
  std::map<std::string, std::vector<SweepRow>> out;
  for (const SweepRow& r : rows)
    if (r.sweep == sweep) out[r.backend].push_back(r);
  for (auto& [b, v] : out)
    std::sort(v.begin(), v.end(),
              [](const SweepRow& a, const SweepRow& c) { return a.config < c.config; });
  return out;
}

std::string line_style(std::size_t i) {
  static const char* colours[] = {"#000000", "#1b9e77", "#d95f02", "#7570b3", "#e7298a"};
  return format("lw 2 pt %zu lc rgb '%s'", 5 + 2 * (i % 5), colours[i % 5]);
}

// What every plot of one sweep over N (collection, kernel) says the same way.
struct LineSweep {
  Plots* plots;
  std::string sweep;
  std::string stats;   ///< "median of K evaluations"
  std::string ct;      ///< "CT = 15"
  std::string xlabel;  ///< the N axis
};

// Near-field time per back end, and each back end's phases.
void time_plots(const LineSweep& s, const std::map<std::string, std::vector<SweepRow>>& rows_of) {
  std::string body =
      plot_head(s.sweep + "_times.png",
                "Near-field (P2P) time per evaluation, " + s.sweep + " sweep, " + s.ct, s.xlabel,
                "time per evaluation (ms, " + s.stats + ")") +
      "set logscale xy\nplot ";
  std::size_t i = 0;
  for (const auto& [backend, v] : rows_of) {
    std::vector<std::vector<double>> d;
    for (const SweepRow& r : v) {
      d.push_back({r.n, r.t, r.D, double(r.levels), 1e3 * positive(r.near_total),
                   1e3 * positive(r.phase.collect), 1e3 * positive(r.phase.transfer),
                   1e3 * positive(r.phase.kernel), 1e3 * positive(r.phase.ret),
                   r.pairs_per_second});
    }
    const std::string file = s.sweep + "_" + backend + ".dat";
    s.plots->data(
        file, "N t D L near_total_ms collect_ms transfer_ms kernel_ms return_ms pairs_per_s", d);
    body += (i ? ", " : "") + format("'%s' using 1:5 with linespoints %s title '%s'", file.c_str(),
                                     line_style(i).c_str(), backend.c_str());
    ++i;

    // Its phases.
    std::string phases = plot_head(s.sweep + "_phases_" + backend + ".png",
                                   "Near-field phases of the " + backend + " back end, " + s.sweep +
                                       " sweep, " + s.ct,
                                   s.xlabel, "time per evaluation (ms, " + s.stats + ")") +
                         "set logscale xy\nplot ";
    const char* names[] = {"total", "collect (host)", "transfer (host to device)", "kernel",
                           "return (device to host, scatter)"};
    for (int c = 0; c < 5; ++c) {
      phases += (c ? ", " : "") + format("'%s' using 1:%d with linespoints %s title '%s'",
                                         file.c_str(), 5 + c, line_style(c).c_str(), names[c]);
    }
    s.plots->script(s.sweep + "_phases_" + backend, phases + "\n");
  }
  s.plots->script(s.sweep + "_times", body + "\n");
}

// Speedup of each back end over the reference (near field).
void reference_speedup_plot(const LineSweep& s,
                            const std::map<std::string, std::vector<SweepRow>>& rows_of) {
  const std::string ref = kReferenceBackend;
  if (!rows_of.count(ref) || rows_of.size() < 2) return;
  std::map<long, double> base;
  for (const SweepRow& r : rows_of.at(ref)) base[r.config] = r.near_total;
  std::string body =
      plot_head(s.sweep + "_vs_" + ref + ".png",
                "Near-field speedup over the " + ref + " back end, " + s.sweep + " sweep, " + s.ct,
                s.xlabel, ref + " time / back-end time (" + s.stats + ")") +
      "set logscale x\nplot ";
  std::size_t k = 0;
  for (const auto& [backend, v] : rows_of) {
    if (backend == ref) continue;
    std::vector<std::vector<double>> d;
    for (const SweepRow& r : v)
      if (base.count(r.config)) d.push_back({r.n, base[r.config] / r.near_total});
    const std::string file = s.sweep + "_" + backend + "_vs_" + ref + ".dat";
    s.plots->data(file, "N speedup_near_vs_" + ref, d);
    body += (k ? ", " : "") + format("'%s' using 1:2 with linespoints %s title '%s over %s'",
                                     file.c_str(), line_style(k + 1).c_str(), backend.c_str(),
                                     ref.c_str());
    ++k;
  }
  s.plots->script(s.sweep + "_vs_" + ref,
                  body + ", 1 with lines dt 2 lc rgb 'grey' title 'equal'\n");
}

// Repetition over indexing, phase by phase, measured (and modelled where the model was fitted):
// the data file's name, "" when no run of this sweep was paired.
std::string phase_speedup_plot(const LineSweep& s, const ModelFit& fit) {
  std::vector<std::vector<double>> d;
  for (const Prediction& p : fit.predictions) {
    const PairedRun& r = *p.run;
    if (r.base.sweep != s.sweep) continue;
    d.push_back({r.base.n, r.base.t, r.base.D, double(r.base.levels), r.x.collect, r.x.transfer,
                 r.x.kernel, r.x.ret, r.x_total, p.collect_model, p.kernel_model, p.eq27, p.eq8,
                 p.paper2});
  }
  if (d.empty()) {  // paired runs without a fitted model: measured speedups only
    for (const PairedRun& r : fit.runs) {
      if (r.base.sweep != s.sweep) continue;
      d.push_back({r.base.n, r.base.t, r.base.D, double(r.base.levels), r.x.collect, r.x.transfer,
                   r.x.kernel, r.x.ret, r.x_total, kNaN, kNaN, kNaN, kNaN, kNaN});
    }
  }
  if (d.empty()) return "";
  std::sort(d.begin(), d.end());
  const std::string file = s.sweep + "_speedup.dat";
  s.plots->data(file,
                "N t D L x_collect x_transfer x_kernel x_return x_total eq14_collect eq26_kernel "
                "eq27_total eq8_total paper2_total (speedup = indexing time / repetition time)",
                d);
  std::string ph =
      plot_head(s.sweep + "_phase_speedups.png",
                "Repetition over indexing, phase by phase, " + s.sweep + " sweep, " + s.ct,
                s.xlabel, std::string(kSpeedupLabel) + " (>1: repetition faster)") +
      "set logscale xy\nplot ";
  const char* names[] = {"collect", "transfer", "kernel", "return", "whole near field"};
  for (int c = 0; c < 5; ++c) {
    ph += (c ? ", " : "") + format("'%s' using 1:%d with linespoints %s title '%s'", file.c_str(),
                                   5 + c, line_style(c).c_str(), names[c]);
  }
  s.plots->script(s.sweep + "_phase_speedups",
                  ph + ", 1 with lines dt 2 lc rgb 'grey' title 'equal'\n");
  return file;
}

// The measured speedups against paper 1's model (its Figs. 1-3), from data file `file`.
void model_plots(const LineSweep& s, const std::string& file, const Paper1Coefficients& c) {
  const std::string ylabel = kSpeedupLabel;
  s.plots->script(
      s.sweep + "_model_collect",
      plot_head(s.sweep + "_model_collect.png",
                "Collection speedup: measured vs paper 1 eq. 14 (cf. its Fig. 1), " + s.sweep +
                    " sweep, " + s.ct,
                s.xlabel, ylabel) +
          format("set logscale x\nplot '%s' using 1:5 with linespoints %s title 'measured', "
                 "'%s' using 1:10 with linespoints dt 2 %s title 'eq. 14, fitted lambda_RAM = "
                 "%.3g'\n",
                 file.c_str(), line_style(0).c_str(), file.c_str(), line_style(2).c_str(),
                 c.lambda_ram));
  s.plots->script(
      s.sweep + "_model_kernel",
      plot_head(s.sweep + "_model_kernel.png",
                "Kernel speedup: measured vs paper 1 eq. 26 (cf. its Fig. 2), " + s.sweep +
                    " sweep, " + s.ct,
                s.xlabel, ylabel + " (log)") +
          format("set logscale xy\nplot '%s' using 1:7 with linespoints %s title 'measured', "
                 "'%s' using 1:11 with linespoints dt 2 %s title 'eq. 26, fitted lambda_GPU = "
                 "%.3g'\n",
                 file.c_str(), line_style(0).c_str(), file.c_str(), line_style(2).c_str(),
                 c.lambda_gpu));
  s.plots->script(
      s.sweep + "_model_total",
      plot_head(s.sweep + "_model_total.png",
                "Whole near-field speedup: measured vs the models (cf. paper 1 Fig. 3), " +
                    s.sweep + " sweep",
                s.xlabel, ylabel) +
          format("set logscale x\nplot '%s' using 1:9 with linespoints %s title 'measured', "
                 "'%s' using 1:12 with linespoints dt 2 %s title 'eq. 27 (alpha %.2g, beta %.2g, "
                 "gamma %.2g)', '%s' using 1:13 with linespoints dt 3 %s title 'eq. 8 on measured "
                 "phase speedups', '%s' using 1:14 with linespoints dt 4 %s title 'paper 2 "
                 "(shares x modelled phases)'\n",
                 file.c_str(), line_style(0).c_str(), file.c_str(), line_style(1).c_str(), c.alpha,
                 c.beta, c.gamma, file.c_str(), line_style(2).c_str(), file.c_str(),
                 line_style(3).c_str()));
}

// Plots of a sweep over N (collection, kernel): times and phases per back end, speedups over cpu,
// and -- when indexing and repetition both ran -- the per-phase speedups and the papers' model.
void line_sweep_plots(Plots* plots, const std::string& sweep, const std::vector<SweepRow>& rows,
                      const ModelFit* fit, int repeat) {
  const auto rows_of = by_backend(rows, sweep);
  if (rows_of.empty()) return;
  const LineSweep s{plots, sweep, format("median of %d evaluations", repeat),
                    format("CT = %d", rows_of.begin()->second.front().ct),
                    "N (uniform points on the unit square; targets = sources)"};
  time_plots(s, rows_of);
  reference_speedup_plot(s, rows_of);
  if (!fit) return;
  const std::string file = phase_speedup_plot(s, *fit);
  if (!file.empty() && fit->speedup_fitted) model_plots(s, file, fit->paper1);
}

// Readable colour-bar tics for ratios in [1/worst, worst]: 1, 2, 5, 10, ... and their inverses.
std::string ratio_tics(double worst) {
  std::string tics;
  for (double decade = 0.001; decade <= 1000; decade *= 10) {
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = m * decade;
      if (v >= 1 / worst * 0.999 && v <= worst * 1.001)
        tics += (tics.empty() ? "" : ", ") + format("'%g' %g", v, v);
    }
  }
  return tics.empty() ? std::string() : "set cbtics (" + tics + ")\n";
}

// The levels sweep's grid (paper 1 Figs. 4-6): x = L of N = 4^(L-1), y = offset i; its rows by
// configuration and back end, and the heads every heat map shares.
struct LevelsGrid {
  Plots* plots;
  std::map<long, std::map<std::string, const SweepRow*>> configs;
  std::set<std::string> backends;
  int lmin = 99, lmax = 0, imin = 99, imax = -99;
  std::string ct, stats;

  LevelsGrid(Plots* p, const std::vector<SweepRow>& rows, int repeat)
      : plots(p), stats(format("median of %d", repeat)) {
    for (const SweepRow& r : rows) {
      if (r.sweep != "levels") continue;
      configs[r.config][r.backend] = &r;
      backends.insert(r.backend);
      lmin = std::min(lmin, r.grid_levels);
      lmax = std::max(lmax, r.grid_levels);
      imin = std::min(imin, r.level_offset);
      imax = std::max(imax, r.level_offset);
    }
    if (!configs.empty()) ct = format("CT = %d", configs.begin()->second.begin()->second->ct);
  }

  // A heat map's head: the grid's axes, a log colour bar labelled `cb`, grey where not run.
  std::string head(const std::string& name, const std::string& title, const std::string& cb) const {
    return plot_head(name + ".png", title,
                     "L (N = 4^(L-1) uniform points; L = the grid's size, not the tree's)",
                     "level offset i (tree height = L fixed by CT, plus i)") +
           format(
               "set xrange [%g:%g]\nset yrange [%g:%g]\nset xtics 1\nset ytics 1\n"
               "unset grid\nunset key\nset cblabel \"%s\"\nset logscale cb\n"
               "set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "
               "'#d0d0d0' fillstyle solid noborder\n"
               "set label 1 'grey: not run' right at graph 1, graph -0.08\n",
               lmin - 0.5, lmax + 0.5, imin - 0.5, imax + 0.5, cb.c_str());
  }

  // The cells of data file `file` (L, i, value), each labelled with its value.
  static std::string cells(const std::string& file) {
    return format(
        "plot '%s' using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder lc "
        "palette, '' using 1:2:(sprintf('%%.3g', $3)) with labels\n",
        file.c_str());
  }
};

constexpr const char* kTimePalette =
    "set palette defined (0 '#ffffcc', 0.5 '#fd8d3c', 1 '#800026')\n";

// Back end b's near-field time, and beside it the whole evaluation, far + near: its least cell
// per L is the depth to use (the near field alone falls with every finer level; the far field
// grows).
void levels_time_plots(const LevelsGrid& g, const std::string& b) {
  std::vector<std::vector<double>> d;
  for (const auto& [id, m] : g.configs)
    if (m.count(b) && m.at(b)->near_total > 0)
      d.push_back(
          {double(m.at(b)->grid_levels), double(m.at(b)->level_offset), 1e3 * m.at(b)->near_total});
  if (d.empty()) return;
  const std::string name = "levels_time_" + b;
  g.plots->data(name + ".dat", "L i near_total_ms", d);
  g.plots->script(name, g.head(name,
                               "Near-field time per evaluation (ms, " + g.stats + "), " + b +
                                   " back end, " + g.ct,
                               "ms (log scale)") +
                            kTimePalette + LevelsGrid::cells(name + ".dat"));
  std::vector<std::vector<double>> total;
  std::map<int, std::pair<double, int>> best;  // L -> (least total, its i)
  for (const auto& [id, m] : g.configs) {
    if (!m.count(b) || m.at(b)->near_total <= 0 || m.at(b)->far_total <= 0) continue;
    const SweepRow& r = *m.at(b);
    const double ms = 1e3 * (r.far_total + r.near_total);
    total.push_back({double(r.grid_levels), double(r.level_offset), ms});
    auto& [least, at] = best.try_emplace(r.grid_levels, ms, r.level_offset).first->second;
    if (ms < least) least = ms, at = r.level_offset;
  }
  if (total.empty()) return;
  const std::string tname = "levels_total_" + b;
  g.plots->data(tname + ".dat", "L i far_plus_near_ms", total);
  std::vector<std::vector<double>> marks;
  for (const auto& [L, v] : best) marks.push_back({double(L), double(v.second)});
  g.plots->data(tname + "_best.dat", "L i_of_least_total", marks);
  g.plots->script(
      tname,
      g.head(tname,
             "Whole evaluation, far + near (ms, " + g.stats + "), " + b + " back end, " + g.ct +
                 "; boxed: the least per L",
             "ms (log scale)") +
          kTimePalette +
          format("plot '%s.dat' using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder "
                 "lc palette, '' using 1:2:(sprintf('%%.3g', $3)) with labels, '%s_best.dat' "
                 "using 1:2:(0.45):(0.45) with boxxyerror fs empty border lc rgb 'black' lw 3\n",
                 tname.c_str(), tname.c_str()));
}

// Every GPU back end over the reference and over the baseline; the papers' three are Figs. 4-6.
void levels_ratio_plots(const LevelsGrid& g) {
  const std::string ref = kReferenceBackend, baseline = kBaselineBackend,
                    restructured = kRestructuredBackend;
  std::vector<std::array<std::string, 3>> ratios;
  auto figure_of = [&](const std::string& fast, const std::string& base) -> std::string {
    if (base == ref && fast == baseline) return ", paper 1 Fig. 4";
    if (base == ref && fast == restructured) return ", paper 1 Fig. 5";
    if (base == baseline && fast == restructured) return ", paper 1 Fig. 6";
    return "";
  };
  for (const std::string& base : {ref, baseline}) {
    if (!g.backends.count(base)) continue;
    for (const std::string& fast : g.backends) {
      if (fast != ref && fast != base) ratios.push_back({fast, base, figure_of(fast, base)});
    }
  }
  for (const auto& [fast, base, figure] : ratios) {
    std::vector<std::vector<double>> d;
    double worst = 1;
    for (const auto& [id, m] : g.configs) {
      if (!m.count(fast) || !m.count(base)) continue;
      const double x = m.at(base)->near_total / m.at(fast)->near_total;
      if (!(x > 0) || !std::isfinite(x)) continue;
      d.push_back({double(m.at(fast)->grid_levels), double(m.at(fast)->level_offset), x});
      worst = std::max(worst, std::max(x, 1 / x));
    }
    if (d.empty()) continue;
    const std::string name = "levels_" + fast + "_vs_" + base;
    g.plots->data(name + ".dat", "L i speedup (" + base + " time / " + fast + " time)", d);
    // Symmetric in log around 1 (white): blue where `fast` wins, red where it loses.
    g.plots->script(name, g.head(name,
                                 "Near-field speedup of " + fast + " over " + base + " (" +
                                     g.stats + figure + "), " + g.ct,
                                 "speedup (log scale; blue > 1: " + fast + " faster)") +
                              format("set cbrange [%g:%g]\n", 1 / worst, worst) +
                              ratio_tics(worst) +
                              "set palette defined (0 '#b2182b', 0.5 '#f7f7f7', 1 '#2166ac')\n" +
                              LevelsGrid::cells(name + ".dat"));
  }
}

// Heat maps of the levels sweep (paper 1 Figs. 4-6): x = L of N = 4^(L-1), y = offset i.
void levels_plots(Plots* plots, const std::vector<SweepRow>& rows, int repeat) {
  const LevelsGrid g(plots, rows, repeat);
  if (g.configs.empty()) return;
  for (const std::string& b : g.backends) levels_time_plots(g, b);
  levels_ratio_plots(g);
}

// Predicted against measured overall speedup, every paired run (model fit --plot-dir).
void model_scatter_plot(Plots* plots, const ModelFit& fit) {
  if (!fit.speedup_fitted) return;
  std::vector<std::vector<double>> d;
  for (const Prediction& p : fit.predictions)
    d.push_back({p.run->x_total, p.eq27, p.eq8, p.paper2, p.run->base.n});
  plots->data("model_predicted_vs_measured.dat", "measured eq27 eq8 paper2 N", d);
  const auto& q = fit.quality.at("eq27").at("all");
  plots->script(
      "model_predicted_vs_measured",
      plot_head("model_predicted_vs_measured.png",
                format("Repetition over indexing, whole near field: predicted vs measured "
                       "(%zu runs; eq. 27 r = %.2f)",
                       d.size(), q.correlation),
                "measured speedup (indexing time / repetition time)", "predicted speedup") +
          "set logscale xy\nplot 'model_predicted_vs_measured.dat' using 1:2 with points pt 7 "
          "lc rgb '#d95f02' title 'eq. 27 (modelled phases)', '' using 1:3 with points pt 5 lc "
          "rgb '#1b9e77' title 'eq. 8 (measured phases)', '' using 1:4 with points pt 9 lc rgb "
          "'#7570b3' title 'paper 2 (shares)', x with lines dt 2 lc rgb 'grey' title "
          "'predicted = measured'\n");
}

}  // namespace

std::vector<std::string> make_plots(const std::string& dir, const std::vector<SweepRow>& rows,
                                    const ModelFit* fit, int repeat, bool scatter,
                                    std::ostream& err, std::string* note) {
  Plots plots;
  plots.dir = dir;
  std::set<std::string> sweeps;
  for (const SweepRow& r : rows) sweeps.insert(r.sweep);
  for (const std::string& s : sweeps) {
    if (s == "levels") {
      levels_plots(&plots, rows, repeat);
    } else {
      line_sweep_plots(&plots, s, rows, fit, repeat);
    }
  }
  if (scatter && fit) model_scatter_plot(&plots, *fit);
  if (!gnuplot_available()) {
    *note = "plots skipped: gnuplot not found (install gnuplot-nox, then run scripts/plot-sweep " +
            dir + "); their data and .gp scripts are written";
    return {};
  }
  return plots.render(err);
}
}  // namespace mlfma2d::app
