#include "app/model_fit.hpp"

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <sstream>

#include "app/inputs.hpp"
#include "app/plots.hpp"
#include "app/report.hpp"
#include "mlfma2d/io.hpp"
#include "tuning/model.hpp"

namespace mlfma2d::app {

namespace fs = std::filesystem;
using namespace tuning;

namespace {

po::options_description model_description() {
  return option_table(
      "Model fit",
      {{
           {"output,o", "FILE",
            "write the fitted coefficients (JSON) to FILE, for --model; default: none"},
           {"plot-dir", "DIR",
            "write predicted-vs-measured plots (PNG, with their gnuplot scripts) to "
            "DIR; default: none"},
       },
       closing_options(true, "no notes on stderr; default: off")});
}

ModelFitArgs model_fit_args(const po::variables_map& vm, const std::vector<std::string>& words) {
  ModelFitArgs a;
  if (words.empty() || words[0] != "fit") {
    throw InvalidInput(
        "model: the only sub-command is 'fit': mlfma2d model fit SWEEP.csv... "
        "[--output coeffs.json]");
  }
  a.csv.assign(words.begin() + 1, words.end());
  if (a.csv.empty()) throw InvalidInput("model fit: name at least one sweep CSV file");
  if (auto v = value_of(vm, "output")) {
    if (v->empty()) throw InvalidInput("--output: empty file name");
    a.output = *v;
  }
  if (auto v = value_of(vm, "plot-dir")) {
    if (v->empty()) throw InvalidInput("--plot-dir: empty folder name");
    a.plot_dir = *v;
  }
  if (auto v = value_of(vm, "report")) a.report = report_option(*v);
  a.quiet = switch_of(vm, "quiet");
  return a;
}

std::string model_help_text() {
  return "Paper 1 (near-field redundancy, 2024): per configuration (N points, t the most in a\n"
         "leaf, D = N / 4^(L-1) the mean per box of the last level L, empty boxes counted), the\n"
         "speedup of repetition over indexing X = T_indexing / T_repetition is modelled phase by\n"
         "phase:\n"
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

std::string model_fit_help() {
  return help_page(
      "mlfma2d model fit: fit the papers' performance model to sweep data\n\n"
      "Usage:\n  mlfma2d model fit SWEEP.csv [MORE.csv...] [--output coeffs.json] "
      "[--plot-dir DIR]\n",
      model_help_text(), model_description(), "",
      "as mlfma2d --help (3: a CSV that cannot be read or is not a sweep's).");
}

int run_model_fit(const ModelFitArgs& a, std::ostream& out, std::ostream& err) {
  std::vector<SweepRow> rows;
  for (const std::string& path : a.csv) {
    const std::vector<SweepRow> more = read_sweep_csv(path);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  if (!a.output.empty()) check_writable(a.output);
  const ModelFit fit = fit_model(rows);
  if (!fit.speedup_fitted && !a.quiet) err << "model fit: " << fit.note << "\n";
  if (!a.output.empty()) write_text_file(a.output, model_json(fit) + "\n");
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
  print_report(out, a.report == ReportFormat::Json
                        ? model_json(fit) + "\n"
                        : fit_report(fit) + (a.output.empty()
                                                 ? std::string()
                                                 : "\ncoefficients written to " + a.output + "\n"));
  return 0;
}

ParsedCommand parse(const po::variables_map& vm, const std::vector<std::string>& words,
                    const std::vector<std::string>&) {
  return command("model fit", model_fit_args(vm, words), run_model_fit);
}

}  // namespace

CommandRow model_fit_command() {
  return {"model",
          "model fit",
          "  mlfma2d model fit CSV... [options]  fit the papers' performance model to sweep data\n",
          model_description,
          model_fit_help,
          true,
          parse};
}

}  // namespace mlfma2d::app
