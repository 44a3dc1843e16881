#pragma once
/// \file cli.hpp
/// The program's commands: one table (command_rows()) from which the command line is dispatched
/// and the overview in --help is written; each command lives in its own file (app/evaluate.cpp,
/// app/generate.cpp, ...) with its options, its parser and its run. Parsing touches no file and
/// runs nothing, so a fuzzer can drive parse_command_line() alone; every bad argument becomes
/// InvalidInput with a one-line message naming the option.
#include <any>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/options.hpp"
#include "mlfma2d/errors.hpp"

namespace mlfma2d::app {

/// \brief A result that failed its check: --verify measured an error above the tolerance, or
/// values are not finite. The report and the output are written first; the program exits with 5.
class CheckFailure : public Error {
 public:
  using Error::Error;
};

/// The exit codes, as --help and the README document them.
enum ExitCode : int {
  kSuccess = 0,
  kInternal = 1,
  kUsage = 2,
  kInputOutput = 3,
  kRuntime = 4,
  kCheckFailed = 5,
};

/// \brief A parsed command line: which command, its parsed arguments, and how to run it.
struct ParsedCommand {
  std::string name;  ///< "evaluate", "generate", ... or "help", "version"
  std::any args;     ///< the command's arguments (EvaluateArgs, GenerateArgs, ...); empty for help
  /// Runs the command: the report on `out`, notes, warnings and progress on `err`. Throws the
  /// library's typed errors; returns the exit code on success.
  std::function<int(std::ostream& out, std::ostream& err)> run;
};

/// The command `name` with its parsed arguments, run by `run(args, out, err)`.
template <class Args>
ParsedCommand command(const char* name, const Args& args,
                      int (*run)(const Args&, std::ostream&, std::ostream&)) {
  return {name, args,
          [args, run](std::ostream& out, std::ostream& err) { return run(args, out, err); }};
}

/// A command that prints `text` on stdout (help, version).
ParsedCommand print_command(const std::string& name, const std::string& text);

/// \brief One command of the program: each command's file (app/evaluate.cpp, ...) makes its row.
struct CommandRow {
  const char* name;      ///< the word after "mlfma2d" ("evaluate" is also the default)
  const char* title;     ///< as the overview names it, e.g. "model fit"
  const char* synopsis;  ///< its lines in the overview of --help
  po::options_description (*options)();  ///< its option table (the parser's and --help's)
  std::string (*help)();                 ///< its --help
  bool takes_words;  ///< words that are not options (sweep NAME, model fit CSV...) are its own
  /// Its arguments from the parsed options and words (`argv`: the whole command line, for
  /// records); --help was handled before.
  ParsedCommand (*parse)(const po::variables_map& vm, const std::vector<std::string>& words,
                         const std::vector<std::string>& argv);
};
/// The commands, in the order --help lists them.
const std::vector<CommandRow>& command_rows();

/// \brief Parse argv (argv[0] is the program name). Throws InvalidInput for anything invalid.
ParsedCommand parse_command_line(int argc, const char* const* argv);

/// The overview at the top of the main --help: usage lines of every command.
std::string usage_overview();

}  // namespace mlfma2d::app
