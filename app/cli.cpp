#include "app/cli.hpp"

#include <ostream>

#include "app/compare.hpp"
#include "app/evaluate.hpp"
#include "app/generate.hpp"
#include "app/model_fit.hpp"
#include "app/solve.hpp"
#include "app/sweep.hpp"
#include "mlfma2d/errors.hpp"

namespace mlfma2d::app {

const std::vector<CommandRow>& command_rows() {
  static const std::vector<CommandRow> rows = {evaluate_command(),  generate_command(),
                                               compare_command(),   sweep_command(),
                                               model_fit_command(), solve_command()};
  return rows;
}

ParsedCommand print_command(const std::string& name, const std::string& text) {
  return {name, {}, [text](std::ostream& out, std::ostream&) {
            out << text;
            return 0;
          }};
}

std::string usage_overview() {
  std::string out;
  for (const CommandRow& row : command_rows()) out += row.synopsis;
  return out;
}

ParsedCommand parse_command_line(int argc, const char* const* argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i] ? argv[i] : "");
  const std::vector<std::string> all_words = args;     // the command line, for a sweep's metadata
  const CommandRow* chosen = &command_rows().front();  // evaluate, the default
  if (!args.empty() && !args[0].empty() && args[0][0] != '-') {
    std::string titles;
    chosen = nullptr;
    for (const CommandRow& row : command_rows()) {
      if (args[0] == row.name) chosen = &row;
      titles += (titles.empty() ? "" : ", ") + std::string(row.title);
    }
    if (!chosen) {
      throw InvalidInput("unknown command '" + args[0] + "' (commands: " + titles +
                         "; see mlfma2d --help)");
    }
    args.erase(args.begin());
  }
  std::vector<std::string> words;
  const po::variables_map vm =
      parse_options(args, chosen->options(), chosen->takes_words ? &words : nullptr);
  if (vm.count("help")) return print_command("help", chosen->help());
  return chosen->parse(vm, words, all_words);
}

}  // namespace mlfma2d::app
