// `mlfma2d sweep NAME`, the command: its options, arguments and help. The run is in
// app/sweep_run.cpp.
#include "app/sweep.hpp"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "app/options.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "runtime/text.hpp"
#include "tuning/model.hpp"

namespace mlfma2d::app {

// The sweeps `mlfma2d sweep` knows.
std::vector<std::string> sweep_names() {
  return {"collection", "kernel", "levels"};
}

namespace {

po::options_description sweep_description() {
  return option_table(
      "Sweep",
      {{
           {"quick", nullptr, "the short variant (minutes, not hours); default: off"},
           {"repeat", "K",
            "timed evaluations per run, the median reported; default: 20 (3 with --quick)"},
           {"warmup", "W", "untimed evaluations before them; default: 1"},
           {"backends", "A,B,...",
            "back ends to run; default: all known, those not available here skipped"},
           {"output-dir", "DIR",
            "folder for the CSV, metadata JSON, gnuplot scripts and PNG plots (created); default: "
            "sweep-NAME (sweep-NAME-quick with --quick)"},
           {"sizes", "N1,N2,...",
            "replace the sweep's list of N (collection, kernel; for tests and quick looks)"},
           {"grid-levels", "L1,L2,...", "replace the levels sweep's list of L (N = 4^(L-1))"},
           {"offsets", "I1,I2,...", "replace the levels sweep's level offsets i (default -3..3)"},
           {"ct", "N", "clustering threshold; default: 15"},
           {"fix-levels", "L",
            "the kernel sweep's fixed tree height; default: L fixed by CT for the largest N"},
           {"shape", "NAME",
            "point-set shape (see mlfma2d generate --help); default: uniform (the papers' plate)"},
           {"seed", "S", "seed of the point sets; default: 1"},
           {"threads", "T",
            "OpenMP threads (the cpu back end, the GPU back ends' collection); default: OpenMP's"},
           {"no-plots", nullptr, "write the CSV only, no plots; default: off"},
       },
       closing_options(false, "no progress on stderr; default: off")});
}

std::string sweep_help_text() {
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
         wrap_text(join(tuning::sweep_csv_columns(), ", "), 90, "  ") +
         "),\n"
         "  NAME_metadata.json (date, command line, host CPU, threads, back ends run and skipped,\n"
         "  fixed L, configurations skipped), NAME_model.json/.txt (the fit of 'model fit' on\n"
         "  this CSV), and PNG plots with their .dat data and .gp gnuplot scripts (if gnuplot is\n"
         "  missing the plots are skipped; scripts/plot-sweep DIR renders them later).\n"
         "Progress: a bar on stderr when it is a terminal, else a line per 10%.\n";
}

SweepArgs sweep_args_of(const po::variables_map& vm, const std::vector<std::string>& words,
                        const std::vector<std::string>& argv) {
  SweepArgs a;
  const auto names = sweep_names();
  const std::string valid = join(names, ", ");
  if (words.empty()) throw InvalidInput("sweep: name the experiment (" + valid + ")");
  if (std::find(names.begin(), names.end(), words[0]) == names.end()) {
    throw InvalidInput("sweep: unknown experiment '" + words[0] + "' (valid: " + valid + ")");
  }
  if (words.size() > 1) {
    throw InvalidInput("unexpected argument '" + words[1] + "' (see mlfma2d sweep --help)");
  }
  a.name = words[0];
  a.quick = switch_of(vm, "quick");
  if (auto v = value_of(vm, "repeat")) {
    a.repeat = static_cast<int>(integer_option("repeat", *v, 1, 100000, "an integer >= 1"));
  }
  if (auto v = value_of(vm, "warmup")) {
    a.warmup = static_cast<int>(integer_option("warmup", *v, 0, 1000, "an integer >= 0"));
  }
  if (auto v = value_of(vm, "backends")) a.backends = backends_option("backends", *v);
  if (auto v = value_of(vm, "output-dir")) {
    if (v->empty()) throw InvalidInput("--output-dir: empty folder name");
    a.output_dir = *v;
  }
  if (auto v = value_of(vm, "sizes")) {
    for (const std::string& item : list_option("sizes", *v)) {
      a.sizes.push_back(static_cast<std::size_t>(
          integer_option("sizes", item, 1, 1000000000, "a list of integers in [1, 1e9]")));
    }
  }
  if (auto v = value_of(vm, "grid-levels")) {
    for (const std::string& item : list_option("grid-levels", *v)) {
      a.grid_levels.push_back(static_cast<int>(
          integer_option("grid-levels", item, 2, 13, "a list of integers in [2, 13]")));
    }
  }
  if (auto v = value_of(vm, "offsets")) {
    for (const std::string& item : list_option("offsets", *v)) {
      a.offsets.push_back(static_cast<int>(
          integer_option("offsets", item, -kMaxLevels, kMaxLevels, "a list of integers")));
    }
  }
  if (auto v = value_of(vm, "ct")) {
    a.ct = static_cast<int>(integer_option("ct", *v, 1, INT_MAX, "an integer >= 1"));
  }
  if (auto v = value_of(vm, "fix-levels")) {
    a.fixed_levels = static_cast<int>(integer_option(
        "fix-levels", *v, 2, kMaxLevels, "an integer in [2, " + std::to_string(kMaxLevels) + "]"));
  }
  if (auto v = value_of(vm, "shape")) a.shape = shape_option("shape", *v);
  if (auto v = value_of(vm, "seed")) a.seed = seed_option("seed", *v);
  if (auto v = value_of(vm, "threads")) {
    a.threads = static_cast<int>(integer_option("threads", *v, 1, 4096, "an integer in [1, 4096]"));
  }
  a.no_plots = switch_of(vm, "no-plots");
  a.quiet = switch_of(vm, "quiet");
  a.command_line = "mlfma2d";
  for (const std::string& word : argv) a.command_line += " " + word;
  return a;
}

std::string sweep_help() {
  return help_page(
      "mlfma2d sweep: re-run one of the papers' near-field experiments\n\n"
      "Usage:\n  mlfma2d sweep NAME [--quick] [--repeat K] [--backends A,B] [--output-dir DIR]\n",
      sweep_help_text(), sweep_description(), "",
      "as mlfma2d --help; 4 when a back end disagrees with cpu.");
}

ParsedCommand parse(const po::variables_map& vm, const std::vector<std::string>& words,
                    const std::vector<std::string>& argv) {
  return command("sweep", sweep_args_of(vm, words, argv), run_sweep);
}

}  // namespace

CommandRow sweep_command() {
  return {"sweep",
          "sweep",
          "  mlfma2d sweep NAME [options]      re-run a paper's experiment: collection, kernel,\n"
          "                                    levels (see mlfma2d sweep --help)\n",
          sweep_description,
          sweep_help,
          true,
          parse};
}

}  // namespace mlfma2d::app
