#include "app/sweep.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/common.hpp"
#include "app/model.hpp"
#include "mlfma2d/io.hpp"
#include "nearfield/backend.hpp"
#include "solver/plan.hpp"
#include "solver/timer.hpp"
#include "solver/tree.hpp"

namespace mlfma2d::app {

namespace fs = std::filesystem;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/// A back end must agree with cpu to this relative L2 difference (same double sums).
constexpr double kSweepTolerance = 1e-12;
/// Configurations beyond these are skipped as absurd (hours of cpu time, or a repetition layout
/// of tens of GiB per evaluation): near-field pairs, and N (3 + 27 t) 8 bytes.
constexpr double kMaxSweepPairs = 4e9;
constexpr double kMaxRepetitionBytes = 32.0 * (1ull << 30);

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  return buffer;
}

std::string utc_now() {
  char buffer[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buffer;
}

std::string duration_text(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
  const long s = std::lround(seconds);
  if (s < 60) return format("%lds", s);
  if (s < 3600) return format("%ldm%02lds", s / 60, s % 60);
  return format("%ldh%02ldm", s / 3600, (s / 60) % 60);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(' '));
        return v;
      }
    }
  }
  return "unknown";
}

std::vector<std::size_t> steps(std::size_t from, std::size_t to, std::size_t step) {
  std::vector<std::size_t> out;
  for (std::size_t n = from; n <= to; n += step) out.push_back(n);
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

// ---- Progress: a bar on a terminal, else one line per 10%.

class ProgressBar {
 public:
  ProgressBar(std::ostream& err, std::string name, std::size_t total, bool quiet)
      : err_(err),
        name_(std::move(name)),
        total_(std::max<std::size_t>(total, 1)),
        tty_(!quiet && ::isatty(STDERR_FILENO)),
        lines_(!quiet && !tty_),
        start_(std::chrono::steady_clock::now()) {}

  void note(const std::string& line) {
    if (tty_) err_ << "\r\033[K";
    if (tty_ || lines_) err_ << line << "\n";
    if (tty_) draw();
    err_.flush();
  }
  void label(const std::string& what) {
    label_ = what;
    if (tty_) draw();
  }
  void step() {
    ++done_;
    if (tty_) draw();
    const std::size_t decile = 10 * done_ / total_;
    if (lines_ && decile > decile_) {
      decile_ = decile;
      err_ << format("sweep %s: %3zu%% (%zu/%zu), elapsed %s, left about %s", name_.c_str(),
                     100 * done_ / total_, done_, total_, duration_text(elapsed()).c_str(),
                     duration_text(left()).c_str())
           << std::endl;
    }
  }
  void finish() {
    if (tty_) err_ << "\r\033[K" << std::flush;
  }
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  double left() const {
    return done_ ? elapsed() / double(done_) * double(total_ - std::min(done_, total_)) : kNaN;
  }
  void draw() {
    constexpr int kWidth = 30;
    const int filled = int(kWidth * done_ / total_);
    err_ << "\r\033[K"
         << "sweep " << name_ << " [" << std::string(filled, '#')
         << std::string(kWidth - filled, '.') << "] "
         << format("%3zu%% %zu/%zu, left %s  %s", 100 * done_ / total_, done_, total_,
                   duration_text(left()).c_str(), label_.c_str())
         << std::flush;
  }

  std::ostream& err_;
  std::string name_;
  std::size_t total_, done_ = 0, decile_ = 0;
  bool tty_, lines_;
  std::chrono::steady_clock::time_point start_;
  std::string label_;
};

// ---- gnuplot.

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool gnuplot_available() {
  return std::system("command -v gnuplot >/dev/null 2>&1") == 0;
}

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

// Plots of a sweep over N (collection, kernel): times and phases per back end, speedups over cpu,
// and -- when indexing and repetition both ran -- the per-phase speedups and the papers' model.
void line_sweep_plots(Plots* plots, const std::string& sweep, const std::vector<SweepRow>& rows,
                      const ModelFit* fit, int repeat) {
  const auto rows_of = by_backend(rows, sweep);
  if (rows_of.empty()) return;
  const std::string stats = format("median of %d evaluations", repeat);
  const std::string ct = format("CT = %d", rows_of.begin()->second.front().ct);
  const std::string xlabel = "N (uniform points on the unit square; targets = sources)";

  // Near-field time per back end.
  std::string body = plot_head(sweep + "_times.png",
                               "Near-field (P2P) time per evaluation, " + sweep + " sweep, " + ct,
                               xlabel, "time per evaluation (ms, " + stats + ")") +
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
    const std::string file = sweep + "_" + backend + ".dat";
    plots->data(file,
                "N t D L near_total_ms collect_ms transfer_ms kernel_ms return_ms pairs_per_s", d);
    body += (i ? ", " : "") + format("'%s' using 1:5 with linespoints %s title '%s'", file.c_str(),
                                     line_style(i).c_str(), backend.c_str());
    ++i;

    // Its phases.
    std::string phases =
        plot_head(sweep + "_phases_" + backend + ".png",
                  "Near-field phases of the " + backend + " back end, " + sweep + " sweep, " + ct,
                  xlabel, "time per evaluation (ms, " + stats + ")") +
        "set logscale xy\nplot ";
    const char* names[] = {"total", "collect (host)", "transfer (host to device)", "kernel",
                           "return (device to host, scatter)"};
    for (int c = 0; c < 5; ++c) {
      phases += (c ? ", " : "") + format("'%s' using 1:%d with linespoints %s title '%s'",
                                         file.c_str(), 5 + c, line_style(c).c_str(), names[c]);
    }
    plots->script(sweep + "_phases_" + backend, phases + "\n");
  }
  plots->script(sweep + "_times", body + "\n");

  // Speedup of each back end over cpu (near field).
  if (rows_of.count("cpu") && rows_of.size() > 1) {
    std::map<long, double> cpu;
    for (const SweepRow& r : rows_of.at("cpu")) cpu[r.config] = r.near_total;
    std::string s =
        plot_head(sweep + "_vs_cpu.png",
                  "Near-field speedup over the cpu back end, " + sweep + " sweep, " + ct, xlabel,
                  "cpu time / back-end time (" + stats + ")") +
        "set logscale x\nplot ";
    std::size_t k = 0;
    for (const auto& [backend, v] : rows_of) {
      if (backend == "cpu") continue;
      std::vector<std::vector<double>> d;
      for (const SweepRow& r : v)
        if (cpu.count(r.config)) d.push_back({r.n, cpu[r.config] / r.near_total});
      const std::string file = sweep + "_" + backend + "_vs_cpu.dat";
      plots->data(file, "N speedup_near_vs_cpu", d);
      s += (k ? ", " : "") + format("'%s' using 1:2 with linespoints %s title '%s over cpu'",
                                    file.c_str(), line_style(k + 1).c_str(), backend.c_str());
      ++k;
    }
    plots->script(sweep + "_vs_cpu", s + ", 1 with lines dt 2 lc rgb 'grey' title 'equal'\n");
  }

  // Repetition over indexing: measured phases, and the model (paper 1 Figs. 1-3).
  if (!fit) return;
  std::vector<std::vector<double>> d;
  for (const Prediction& p : fit->predictions) {
    const PairedRun& r = *p.run;
    if (r.base.sweep != sweep) continue;
    d.push_back({r.base.n, r.base.t, r.base.D, double(r.base.levels), r.x.collect, r.x.transfer,
                 r.x.kernel, r.x.ret, r.x_total, p.collect_model, p.kernel_model, p.eq27, p.eq8,
                 p.paper2});
  }
  if (d.empty()) {  // paired runs without a fitted model: measured speedups only
    for (const PairedRun& r : fit->runs) {
      if (r.base.sweep != sweep) continue;
      d.push_back({r.base.n, r.base.t, r.base.D, double(r.base.levels), r.x.collect, r.x.transfer,
                   r.x.kernel, r.x.ret, r.x_total, kNaN, kNaN, kNaN, kNaN, kNaN});
    }
  }
  if (d.empty()) return;
  std::sort(d.begin(), d.end());
  const std::string file = sweep + "_speedup.dat";
  plots->data(file,
              "N t D L x_collect x_transfer x_kernel x_return x_total eq14_collect eq26_kernel "
              "eq27_total eq8_total paper2_total (speedup = indexing time / repetition time)",
              d);
  const std::string ylabel = "speedup = indexing time / repetition time";
  std::string ph = plot_head(sweep + "_phase_speedups.png",
                             "Repetition over indexing, phase by phase, " + sweep + " sweep, " + ct,
                             xlabel, ylabel + " (>1: repetition faster)") +
                   "set logscale xy\nplot ";
  const char* names[] = {"collect", "transfer", "kernel", "return", "whole near field"};
  for (int c = 0; c < 5; ++c) {
    ph += (c ? ", " : "") + format("'%s' using 1:%d with linespoints %s title '%s'", file.c_str(),
                                   5 + c, line_style(c).c_str(), names[c]);
  }
  plots->script(sweep + "_phase_speedups",
                ph + ", 1 with lines dt 2 lc rgb 'grey' title 'equal'\n");
  if (!fit->speedup_fitted) return;
  const Paper1Coefficients& c = fit->paper1;
  plots->script(
      sweep + "_model_collect",
      plot_head(sweep + "_model_collect.png",
                "Collection speedup: measured vs paper 1 eq. 14 (cf. its Fig. 1), " + sweep +
                    " sweep, " + ct,
                xlabel, ylabel) +
          format("set logscale x\nplot '%s' using 1:5 with linespoints %s title 'measured', "
                 "'%s' using 1:10 with linespoints dt 2 %s title 'eq. 14, fitted lambda_RAM = "
                 "%.3g'\n",
                 file.c_str(), line_style(0).c_str(), file.c_str(), line_style(2).c_str(),
                 c.lambda_ram));
  plots->script(
      sweep + "_model_kernel",
      plot_head(
          sweep + "_model_kernel.png",
          "Kernel speedup: measured vs paper 1 eq. 26 (cf. its Fig. 2), " + sweep + " sweep, " + ct,
          xlabel, ylabel + " (log)") +
          format("set logscale xy\nplot '%s' using 1:7 with linespoints %s title 'measured', "
                 "'%s' using 1:11 with linespoints dt 2 %s title 'eq. 26, fitted lambda_GPU = "
                 "%.3g'\n",
                 file.c_str(), line_style(0).c_str(), file.c_str(), line_style(2).c_str(),
                 c.lambda_gpu));
  plots->script(
      sweep + "_model_total",
      plot_head(sweep + "_model_total.png",
                "Whole near-field speedup: measured vs the models (cf. paper 1 Fig. 3), " + sweep +
                    " sweep",
                xlabel, ylabel) +
          format("set logscale x\nplot '%s' using 1:9 with linespoints %s title 'measured', "
                 "'%s' using 1:12 with linespoints dt 2 %s title 'eq. 27 (alpha %.2g, beta %.2g, "
                 "gamma %.2g)', '%s' using 1:13 with linespoints dt 3 %s title 'eq. 8 on measured "
                 "phase speedups', '%s' using 1:14 with linespoints dt 4 %s title 'paper 2 "
                 "(shares x modelled phases)'\n",
                 file.c_str(), line_style(0).c_str(), file.c_str(), line_style(1).c_str(), c.alpha,
                 c.beta, c.gamma, file.c_str(), line_style(2).c_str(), file.c_str(),
                 line_style(3).c_str()));
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

// Heat maps of the levels sweep (paper 1 Figs. 4-6): x = L of N = 4^(L-1), y = offset i.
void levels_plots(Plots* plots, const std::vector<SweepRow>& rows, int repeat) {
  std::map<long, std::map<std::string, const SweepRow*>> configs;
  std::set<std::string> backends;
  int lmin = 99, lmax = 0, imin = 99, imax = -99;
  for (const SweepRow& r : rows) {
    if (r.sweep != "levels") continue;
    configs[r.config][r.backend] = &r;
    backends.insert(r.backend);
    lmin = std::min(lmin, r.grid_levels);
    lmax = std::max(lmax, r.grid_levels);
    imin = std::min(imin, r.level_offset);
    imax = std::max(imax, r.level_offset);
  }
  if (configs.empty()) return;
  const std::string ct = format("CT = %d", configs.begin()->second.begin()->second->ct);
  const std::string xlabel = "L (N = 4^(L-1) uniform points; L = the grid's size, not the tree's)";
  const std::string ylabel = "level offset i (tree height = L fixed by CT, plus i)";
  auto head = [&](const std::string& name, const std::string& title, const std::string& cb) {
    return plot_head(name + ".png", title, xlabel, ylabel) +
           format(
               "set xrange [%g:%g]\nset yrange [%g:%g]\nset xtics 1\nset ytics 1\n"
               "unset grid\nunset key\nset cblabel \"%s\"\nset logscale cb\n"
               "set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "
               "'#d0d0d0' fillstyle solid noborder\n"
               "set label 1 'grey: not run' right at graph 1, graph -0.08\n",
               lmin - 0.5, lmax + 0.5, imin - 0.5, imax + 0.5, cb.c_str());
  };
  auto cells = [](const std::string& file) {
    return format(
        "plot '%s' using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder lc "
        "palette, '' using 1:2:(sprintf('%%.3g', $3)) with labels\n",
        file.c_str());
  };
  const std::string stats = format("median of %d", repeat);
  for (const std::string& b : backends) {
    std::vector<std::vector<double>> d;
    for (const auto& [id, m] : configs)
      if (m.count(b) && m.at(b)->near_total > 0)
        d.push_back({double(m.at(b)->grid_levels), double(m.at(b)->level_offset),
                     1e3 * m.at(b)->near_total});
    if (d.empty()) continue;
    const std::string name = "levels_time_" + b;
    plots->data(name + ".dat", "L i near_total_ms", d);
    plots->script(
        name,
        head(name, "Near-field time per evaluation (ms, " + stats + "), " + b + " back end, " + ct,
             "ms (log scale)") +
            "set palette defined (0 '#ffffcc', 0.5 '#fd8d3c', 1 '#800026')\n" +
            cells(name + ".dat"));
  }
  // Every GPU back end over cpu and over indexing; the papers' three are Figs. 4-6.
  std::vector<std::array<std::string, 3>> ratios;
  auto figure_of = [](const std::string& fast, const std::string& base) -> std::string {
    if (base == "cpu" && fast == "indexing") return ", paper 1 Fig. 4";
    if (base == "cpu" && fast == "repetition") return ", paper 1 Fig. 5";
    if (base == "indexing" && fast == "repetition") return ", paper 1 Fig. 6";
    return "";
  };
  for (const std::string& base : {std::string("cpu"), std::string("indexing")}) {
    if (!backends.count(base)) continue;
    for (const std::string& fast : backends) {
      if (fast != "cpu" && fast != base) ratios.push_back({fast, base, figure_of(fast, base)});
    }
  }
  for (const auto& [fast, base, figure] : ratios) {
    std::vector<std::vector<double>> d;
    double worst = 1;
    for (const auto& [id, m] : configs) {
      if (!m.count(fast) || !m.count(base)) continue;
      const double x = m.at(base)->near_total / m.at(fast)->near_total;
      if (!(x > 0) || !std::isfinite(x)) continue;
      d.push_back({double(m.at(fast)->grid_levels), double(m.at(fast)->level_offset), x});
      worst = std::max(worst, std::max(x, 1 / x));
    }
    if (d.empty()) continue;
    const std::string name = "levels_" + fast + "_vs_" + base;
    plots->data(name + ".dat", "L i speedup (" + base + " time / " + fast + " time)", d);
    // Symmetric in log around 1 (white): blue where `fast` wins, red where it loses.
    plots->script(name, head(name,
                             "Near-field speedup of " + fast + " over " + base + " (" + stats +
                                 figure + "), " + ct,
                             "speedup (log scale; blue > 1: " + fast + " faster)") +
                            format("set cbrange [%g:%g]\n", 1 / worst, worst) + ratio_tics(worst) +
                            "set palette defined (0 '#b2182b', 0.5 '#f7f7f7', 1 '#2166ac')\n" +
                            cells(name + ".dat"));
  }
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

// Writes the plots of `rows` into `dir` and renders them; returns the PNGs (empty, with `note`
// set, when gnuplot is missing).
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

// ---- Measuring.

struct BackendRun {
  SweepRow row;
  std::vector<double> potential;  ///< of the first timed evaluation
};

BackendRun measure(NearFieldBackend& backend, const NearFieldProblem& problem,
                   const std::vector<double>& q, int warmup, int repeat) {
  BackendRun out;
  const std::size_t nt = problem.tree->n_targets();
  out.potential.assign(nt, 0.0);
  std::vector<double> scratch(nt);
  for (int w = 0; w < warmup; ++w) {
    NearFieldTimings t;
    backend.evaluate(q.data(), scratch.data(), nullptr, nullptr, &t);
  }
  std::vector<double> collect, transfer, kernel, ret, total;
  double device = 0, chunks = 0;
  for (int k = 0; k < repeat; ++k) {
    NearFieldTimings t;
    double* phi = k == 0 ? out.potential.data() : scratch.data();
    const double t0 = now_seconds();
    backend.evaluate(q.data(), phi, nullptr, nullptr, &t);
    total.push_back(now_seconds() - t0);  // our own clock: the same for every back end
    collect.push_back(t.collect);
    transfer.push_back(t.transfer);
    kernel.push_back(t.kernel);
    ret.push_back(t.ret);
    device = std::max(device, double(t.device_bytes));
    chunks = std::max(chunks, double(t.chunks));
  }
  SweepRow& r = out.row;
  r.repeat = repeat;
  r.phase.collect = median(collect);
  r.phase.transfer = median(transfer);
  r.phase.kernel = median(kernel);
  r.phase.ret = median(ret);
  r.near_total = median(total);
  double sum = 0;
  for (double v : total) sum += v;
  r.near_total_mean = sum / double(total.size());
  r.near_total_min = *std::min_element(total.begin(), total.end());
  r.device_bytes = device;
  r.chunks = chunks;
  return out;
}

std::string point_label(const std::string& sweep, const SweepPoint& p) {
  if (sweep == "levels")
    return format("L = %d (N = %zu), i = %+d", p.grid_levels, p.n, p.level_offset);
  return format("N = %zu", p.n);
}

}  // namespace

std::vector<std::string> sweep_names() {
  return {"collection", "kernel", "levels"};
}

std::vector<SweepPoint> sweep_points(const SweepArgs& a) {
  std::vector<SweepPoint> out;
  std::vector<std::size_t> sizes = a.sizes;
  if (a.name == "collection") {
    if (sizes.empty()) {
      if (a.quick) {
        sizes = steps(10000, 100000, 30000);
        sizes.insert(sizes.end(), {200000, 350000});
      } else {
        sizes = steps(5000, 100000, 5000);  // paper 1 sec. 4.1.1
        const auto more = steps(150000, 350000, 50000);
        sizes.insert(sizes.end(), more.begin(), more.end());
      }
    }
  } else if (a.name == "kernel") {
    if (sizes.empty()) {
      if (a.quick) {
        sizes = steps(1000, 100000, 33000);
        sizes.insert(sizes.end(), {250000, 500000, 1000000});
      } else {
        sizes = steps(1000, 100000, 1000);  // paper 1 sec. 4.1.2
        const auto more = steps(150000, 1000000, 50000);
        sizes.insert(sizes.end(), more.begin(), more.end());
      }
    }
  } else if (a.name == "levels") {
    std::vector<int> ls = a.grid_levels;
    if (ls.empty())
      for (int l = 4; l <= (a.quick ? 9 : 11); ++l) ls.push_back(l);  // paper 1 eq. 34
    std::vector<int> is = a.offsets;
    if (is.empty())
      for (int i = -3; i <= 3; ++i) is.push_back(i);
    for (int l : ls)
      for (int i : is) out.push_back({std::size_t(1) << (2 * (l - 1)), i, l});
    return out;
  } else {
    throw InvalidInput("sweep: unknown experiment '" + a.name +
                       "' (valid: " + join(sweep_names(), ", ") + ")");
  }
  for (std::size_t n : sizes) out.push_back({n, 0, 0});
  return out;
}

int sweep_repeats(const SweepArgs& a) {
  return a.repeat > 0 ? a.repeat : (a.quick ? 3 : 20);
}

int run_sweep(const SweepArgs& a, std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<SweepPoint> points = sweep_points(a);
  const int repeat = sweep_repeats(a);
  const int threads = a.threads > 0 ? a.threads : omp_get_max_threads();
  const std::string dir =
      a.output_dir.empty() ? "sweep-" + a.name + (a.quick ? "-quick" : "") : a.output_dir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw IoError("cannot create the output folder '" + dir + "'" +
                  (ec ? ": " + ec.message() : std::string()));
  }
  const std::string csv = (fs::path(dir) / (a.name + ".csv")).string();
  check_output_path(csv);

  // Back ends: cpu first (the reference), those not available here skipped with the reason.
  std::vector<std::string> wanted = a.backends.empty() ? near_field_backends() : a.backends;
  std::stable_partition(wanted.begin(), wanted.end(),
                        [](const std::string& b) { return b == "cpu"; });
  std::vector<std::string> runnable;
  std::vector<std::pair<std::string, std::string>> skipped;
  for (const std::string& b : wanted) {
    std::string why;
    if (near_field_backend_available(b, &why)) {
      runnable.push_back(b);
    } else {
      skipped.emplace_back(b, why);
      if (!a.quiet) err << "sweep " << a.name << ": skipping " << b << ": " << why << "\n";
    }
  }
  if (runnable.empty()) throw BackendUnavailable("sweep: none of the back ends can run here");
  const bool need_reference = runnable.front() != "cpu" || runnable.size() > 1;

  // The kernel sweep keeps CT and L fixed (paper 1 sec. 4.1.2): L from the largest N.
  int fixed_levels = 0;
  std::string fixed_note;
  if (a.name == "kernel") {
    std::size_t n_max = 0;
    for (const SweepPoint& p : points) n_max = std::max(n_max, p.n);
    if (a.fixed_levels > 0) {
      fixed_levels = a.fixed_levels;
      fixed_note = format("L fixed at %d (--fix-levels)", fixed_levels);
    } else {
      const PointSet big = generate_points(a.shape, n_max, a.seed);
      std::string warning;
      const Tree tree = build_tree(big.x, big.y, {}, {}, a.ct, 0, &warning, threads);
      fixed_levels = tree.levels;
      fixed_note = format("L fixed at %d = the level CT %d fixes for the largest N (%zu)",
                          fixed_levels, a.ct, n_max);
    }
    if (!a.quiet) err << "sweep kernel: " << fixed_note << "\n";
  }

  std::string header_lines =
      format("# mlfma2d %s sweep %s%s, %s, %s\n", version(), a.name.c_str(),
             a.quick ? " (quick)" : "", utc_now().c_str(), a.command_line.c_str()) +
      format("# shape %s, seed %llu, CT %d, repeat %d (medians), warmup %d, threads %d\n",
             a.shape.c_str(), static_cast<unsigned long long>(a.seed), a.ct, repeat, a.warmup,
             threads);
  if (!fixed_note.empty()) header_lines += "# " + fixed_note + "\n";
  header_lines += "# times in seconds; near_total = the back end's evaluate() wall time\n";

  // The CSV grows row by row in a .partial file (a killed run keeps what it measured), renamed
  // when the sweep is complete.
  const std::string partial = csv + ".partial";
  std::FILE* file = std::fopen(partial.c_str(), "w");
  if (!file) throw IoError("cannot write '" + partial + "': " + std::strerror(errno));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> csv_file(file, std::fclose);
  std::fputs((header_lines + sweep_csv_header() + "\n").c_str(), file);
  std::fflush(file);

  ProgressBar bar(err, a.name, points.size() * runnable.size(), a.quiet);
  std::vector<nlohmann::json> skipped_configs;
  std::vector<SweepRow> rows;
  long config = 0;
  for (const SweepPoint& p : points) {
    ++config;
    const std::string label = point_label(a.name, p);
    auto skip = [&](const std::string& why) {
      bar.note("sweep " + a.name + ": skipping " + label + ": " + why);
      skipped_configs.push_back({{"n", p.n},
                                 {"level_offset", p.level_offset},
                                 {"grid_levels", p.grid_levels},
                                 {"reason", why}});
      for (std::size_t k = 0; k < runnable.size(); ++k) bar.step();
    };
    bar.label(label + ": tree");
    const PointSet pts = generate_points(a.shape, p.n, a.seed);
    std::string warning;
    Tree tree;
    try {
      tree = build_tree(pts.x, pts.y, {}, {}, a.ct, p.level_offset, &warning, threads);
      if (fixed_levels > 0 && tree.levels != fixed_levels) {
        tree = build_tree(pts.x, pts.y, {}, {}, a.ct, fixed_levels - tree.levels_ct, &warning,
                          threads);
      }
    } catch (const InvalidInput& e) {
      skip(e.what());
      continue;
    }
    if (tree.levels < 2) {
      skip(format("L + i = %d < 2: no tree to speak of", tree.levels));
      continue;
    }
    const Plan plan = build_plan(tree, threads);
    const double rep_bytes = double(tree.n_targets()) * (3 + 27.0 * double(tree.t)) * 8;
    if (double(plan.near_pairs) > kMaxSweepPairs) {
      skip(format("%.3g near-field pairs per evaluation (more than %.0e: absurd here)",
                  double(plan.near_pairs), kMaxSweepPairs));
      continue;
    }
    const bool replicates = std::any_of(runnable.begin(), runnable.end(), [](const auto& b) {
      return b.rfind("repetition", 0) == 0;  // the layouts that copy every E1 source per target
    });
    if (replicates && rep_bytes > kMaxRepetitionBytes) {
      skip(format("the repetition layout would need %.1f GiB per evaluation (t = %zu)",
                  rep_bytes / double(1ull << 30), tree.t));
      continue;
    }

    NearFieldProblem problem;
    problem.tree = &tree;
    problem.plan = &plan;
    problem.x = pts.x.data();
    problem.y = pts.y.data();
    problem.tx = pts.x.data();
    problem.ty = pts.y.data();
    problem.threads = threads;

    SweepRow base;
    base.sweep = a.name;
    base.config = config;
    base.n = double(tree.n_targets());
    base.ct = a.ct;
    base.level_offset = tree.levels - tree.levels_ct;
    base.levels_ct = tree.levels_ct;
    base.levels = tree.levels;
    base.grid_levels = p.grid_levels > 0 ? p.grid_levels : tree.levels;
    base.t = double(tree.t);
    base.D = tree.mean_per_box;
    base.leaf_boxes = double(tree.leaves().size());
    for (int l = 1; l <= tree.levels; ++l) base.boxes += double(tree.level[l].size());
    base.near_pairs = double(plan.near_pairs);
    base.threads = threads;

    std::vector<double> reference;
    if (need_reference && runnable.front() != "cpu") {
      bar.label(label + ": cpu reference");
      auto cpu = make_near_field_backend("cpu");
      cpu->setup(problem);
      reference = measure(*cpu, problem, pts.q, 0, 1).potential;
    }
    for (const std::string& b : runnable) {
      bar.label(label + ": " + b);
      BackendRun run;
      try {
        auto backend = make_near_field_backend(b);
        backend->setup(problem);
        run = measure(*backend, problem, pts.q, a.warmup, repeat);
      } catch (const RuntimeFailure& e) {  // e.g. device memory: note it, go on with the rest
        bar.note("sweep " + a.name + ": " + label + ": " + b + " failed: " + e.what());
        skipped_configs.push_back({{"n", p.n},
                                   {"level_offset", p.level_offset},
                                   {"grid_levels", p.grid_levels},
                                   {"backend", b},
                                   {"reason", e.what()}});
        bar.step();
        continue;
      }
      if (b == "cpu") {
        reference = run.potential;
      } else {
        run.row.rel_l2_vs_cpu = error_norms(run.potential, reference).rel_l2;
        if (!(run.row.rel_l2_vs_cpu <= kSweepTolerance)) {
          throw RuntimeFailure(format(
              "sweep %s, %s: back end '%s' disagrees with cpu: relative "
              "L2 difference %.3e > %.0e",
              a.name.c_str(), label.c_str(), b.c_str(), run.row.rel_l2_vs_cpu, kSweepTolerance));
        }
      }
      SweepRow row = base;
      row.backend = b;
      row.repeat = run.row.repeat;
      row.phase = run.row.phase;
      row.near_total = run.row.near_total;
      row.near_total_mean = run.row.near_total_mean;
      row.near_total_min = run.row.near_total_min;
      row.device_bytes = run.row.device_bytes;
      row.chunks = run.row.chunks;
      row.rel_l2_vs_cpu = run.row.rel_l2_vs_cpu;
      row.pairs_per_second = row.near_total > 0 ? row.near_pairs / row.near_total : 0;
      std::fputs((sweep_csv_line(row) + "\n").c_str(), file);
      std::fflush(file);
      row.source = csv;
      rows.push_back(row);
      bar.step();
    }
  }
  bar.finish();
  if (std::fflush(file) != 0 || std::ferror(file)) {
    throw IoError("cannot write '" + partial + "': write failed (disk full?)");
  }
  csv_file.reset();
  if (std::rename(partial.c_str(), csv.c_str()) != 0) {
    throw IoError("cannot write '" + csv + "': " + std::strerror(errno));
  }

  // The model over this sweep's rows (time models always; the speedup model with both GPU back
  // ends), then the plots.
  const ModelFit fit = fit_model(rows);
  const std::string model_json = (fs::path(dir) / (a.name + "_model.json")).string();
  const std::string model_txt = (fs::path(dir) / (a.name + "_model.txt")).string();
  write_text_file(model_json, to_json(fit).dump(2) + "\n");
  write_text_file(model_txt, fit_report(fit));
  std::vector<std::string> pngs;
  std::string plot_note;
  if (!a.no_plots) {
    pngs = make_plots(dir, rows, fit.runs.empty() ? nullptr : &fit, repeat, false, err, &plot_note);
    if (!plot_note.empty() && !a.quiet) err << "sweep " << a.name << ": " << plot_note << "\n";
  } else {
    plot_note = "plots not made (--no-plots)";
  }

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  nlohmann::json meta;
  meta["sweep"] = a.name;
  meta["quick"] = a.quick;
  meta["version"] = version();
  meta["date"] = utc_now();
  meta["command_line"] = a.command_line;
  meta["host_cpu"] = cpu_model();
  meta["host_cores"] = omp_get_num_procs();
  meta["threads"] = threads;
  meta["backends"] = runnable;
  // The device back ends that ran (their names stand for the device; nvidia-smi names it).
  std::vector<std::string> device_backends;
  for (const std::string& b : runnable)
    if (b != "cpu") device_backends.push_back(b);
  meta["device_backends"] = device_backends;
  nlohmann::json sk = nlohmann::json::array();
  for (const auto& [b, why] : skipped) sk.push_back({{"backend", b}, {"reason", why}});
  meta["backends_skipped"] = sk;
  meta["shape"] = a.shape;
  meta["seed"] = a.seed;
  meta["ct"] = a.ct;
  meta["repeat"] = repeat;
  meta["warmup"] = a.warmup;
  meta["statistic"] = "median of repeat timed evaluations (per phase and total)";
  if (fixed_levels > 0) {
    meta["fixed_levels"] = fixed_levels;
    meta["fixed_levels_note"] = fixed_note;
  }
  meta["configurations"] = points.size();
  meta["rows"] = rows.size();
  meta["configurations_skipped"] = skipped_configs;
  meta["seconds"] = seconds;
  meta["csv"] = csv;
  meta["model"] = model_json;
  meta["plots"] = pngs;
  if (!plot_note.empty()) meta["plots_note"] = plot_note;
  write_text_file((fs::path(dir) / (a.name + "_metadata.json")).string(), meta.dump(2) + "\n");

  // Summary: near-field time per back end and configuration.
  out << format(
      "sweep %s%s: %zu configurations x %zu back end(s) (%s), %d timed evaluations "
      "each (median), %s\n",
      a.name.c_str(), a.quick ? " (quick)" : "", points.size(), runnable.size(),
      join(runnable, ", ").c_str(), repeat, duration_text(seconds).c_str());
  for (const auto& [b, why] : skipped) out << "  skipped " << b << ": " << why << "\n";
  if (!fixed_note.empty()) out << "  " << fixed_note << "\n";
  out << format("  %9s %3s %3s %5s %8s", "N", "i", "L", "t", "D");
  for (const std::string& b : runnable) out << format(" %17s", (b + " ms").c_str());
  out << "\n";
  std::map<long, std::map<std::string, const SweepRow*>> by_config;
  for (const SweepRow& r : rows) by_config[r.config][r.backend] = &r;
  for (const auto& [id, m] : by_config) {
    const SweepRow& r = *m.begin()->second;
    out << format("  %9.0f %+3d %3d %5.0f %8.3g", r.n, r.level_offset, r.levels, r.t, r.D);
    for (const std::string& b : runnable) {
      out << (m.count(b) ? format(" %17.4g", 1e3 * m.at(b)->near_total) : format(" %17s", "-"));
    }
    out << "\n";
  }
  out << "  CSV " << csv << "\n  model " << model_json << " (" << model_txt << ")\n";
  out << "  " << (pngs.empty() ? plot_note : std::to_string(pngs.size()) + " plots in " + dir)
      << "\n";
  out.flush();
  if (!out) throw IoError("cannot write the report to standard output");
  return 0;
}

int run_model_fit(const ModelFitArgs& a, std::ostream& out, std::ostream& err) {
  std::vector<SweepRow> rows;
  for (const std::string& path : a.csv) {
    const std::vector<SweepRow> more = read_sweep_csv(path);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  if (!a.output.empty()) check_output_path(a.output);
  const ModelFit fit = fit_model(rows);
  if (!fit.speedup_fitted && !a.quiet) err << "model fit: " << fit.note << "\n";
  if (!a.output.empty()) write_text_file(a.output, to_json(fit).dump(2) + "\n");
  if (!a.plot_dir.empty()) {
    std::error_code ec;
    fs::create_directories(a.plot_dir, ec);
    if (ec || !fs::is_directory(a.plot_dir)) {
      throw IoError("cannot create the plot folder '" + a.plot_dir + "'");
    }
    int repeat = 0;
    for (const SweepRow& r : rows) repeat = std::max(repeat, r.repeat);
    std::string note;
    const auto pngs = make_plots(a.plot_dir, rows, &fit, repeat, true, err, &note);
    if (!note.empty() && !a.quiet) err << "model fit: " << note << "\n";
    if (!a.quiet && !pngs.empty())
      err << "model fit: " << pngs.size() << " plots in " << a.plot_dir << "\n";
  }
  if (a.report == ReportFormat::Json) {
    out << to_json(fit).dump(2) << "\n";
  } else {
    out << fit_report(fit);
    if (!a.output.empty()) out << "\ncoefficients written to " << a.output << "\n";
  }
  out.flush();
  if (!out) throw IoError("cannot write the report to standard output");
  return 0;
}

std::string sweep_help_text() {
  std::string wrapped_header = " ";
  std::size_t width = 1;
  for (const std::string& c : sweep_csv_columns()) {
    if (width + c.size() + 2 > 90) {
      wrapped_header += "\n ";
      width = 1;
    }
    wrapped_header += " " + c + ",";
    width += c.size() + 2;
  }
  wrapped_header.pop_back();
  return "Experiments (NAME), near field (P2P) only, as in the papers; uniform points on the\n"
         "unit square, targets = sources, CT 15. For each configuration the tree and plan are\n"
         "built once; each back end is set up once and evaluated K times on the same charges\n"
         "(after W untimed warm-ups); the medians of K are recorded per phase. Every back end is\n"
         "checked against cpu once (relative L2 <= 1e-12; a mismatch stops the sweep, exit 4).\n"
         "  collection  N = 5,000..100,000 step 5,000, then 150,000..350,000 step 50,000\n"
         "              (paper 1 Fig. 1); --quick: 10,000..100,000 step 30,000, 200,000, 350,000\n"
         "  kernel      N = 1,000..100,000 step 1,000, then 150,000..1,000,000 step 50,000, CT\n"
         "              and L fixed: L = the level CT fixes for the largest N (paper 1 Figs. 2,\n"
         "              3); --quick: 1,000..100,000 step 33,000, 250,000, 500,000, 1,000,000\n"
         "  levels      L = 4..11 x i = -3..+3, N = 4^(L-1), the tree height changed by i after\n"
         "              CT fixed it (paper 1 eq. 34, Figs. 4-6); --quick: L = 4..9. Skipped:\n"
         "              L + i < 2, more than 4e9 pairs, or a repetition layout over 32 GiB.\n"
         "Files in --output-dir: NAME.csv (one row per configuration and back end; columns:\n" +
         wrapped_header +
         "),\n"
         "  NAME_metadata.json (date, command line, host CPU, threads, back ends run and skipped,\n"
         "  fixed L, configurations skipped), NAME_model.json/.txt (the fit of 'model fit' on\n"
         "  this CSV), and PNG plots with their .dat data and .gp gnuplot scripts (if gnuplot is\n"
         "  missing the plots are skipped; scripts/plot-sweep DIR renders them later).\n"
         "Progress: a bar on stderr when it is a terminal, else a line per 10%.\n";
}

std::string model_help_text() {
  return "Paper 1 (near-field redundancy, 2024): per configuration (N, t, D), the speedup of\n"
         "repetition over indexing X = T_indexing / T_repetition is modelled phase by phase:\n"
         "  X_collect = lambda_RAM / (21.6 t D)  (eq. 14)    X_transfer = 1 / (21.6 D)  (eq. 13)\n"
         "  X_kernel = 55.3 lambda_GPU t / (N D)  (eq. 26)\n"
         "  X = alpha X_collect + gamma X_transfer + beta X_kernel  (eq. 27)\n"
         "lambda_RAM (from the collection sweep) and lambda_GPU (from the kernel sweep) are the\n"
         "means of measured / modelled phase speedups, as in the paper; alpha, beta, gamma are\n"
         "fitted by relative least squares on the collection and kernel sweeps (the levels sweep, "
         "if\n"
         "given, then checks the model out of sample). Also fitted: eq. 8 on the measured phase\n"
         "speedups (the paper's Fig. 3), and paper 2's form X = 1 / sum_c(share_c / X_c) with\n"
         "the indexing run's phase shares. Quality: Pearson correlation and mean relative error\n"
         "of predicted vs measured, per sweep. Time models per back end (near-field seconds =\n"
         "c0 + c1 N + c2 pairs + c3 leaf boxes, non-negative least squares on relative error)\n"
         "serve --backend auto --model FILE.\n"
         "The coefficients file (JSON): format, sources, paired_runs, speedup_fitted, paper1\n"
         "{lambda_ram, lambda_gpu, alpha, beta, gamma, ranges}, paper1_eq8_measured_phases,\n"
         "paper2 {lambda_transfer}, quality, time_models {backend: {intercept_seconds,\n"
         "seconds_per_point, seconds_per_pair, seconds_per_leaf_box, quality}}.\n";
}

}  // namespace mlfma2d::app
