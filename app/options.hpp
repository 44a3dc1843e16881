#pragma once
/// \file options.hpp
/// Option values, parsed in one place: strict parsers (the whole text must be the value, so "15x",
/// "1e-6 " or "" fail) and the Boost.Program_options glue every command uses. Parsing touches no
/// file and runs nothing; every bad value becomes InvalidInput naming the option.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace mlfma2d::app {

namespace po = boost::program_options;

/// Width of the option tables in --help.
constexpr int kHelpWidth = 100;

/// \brief One option of a table: "name[,letter]"; what its value is called in --help (null: a
/// switch, on or off; "": an option that takes nothing, like --help); its help.
struct OptionText {
  const char* name;
  const char* value;
  const char* help;
};
/// The options that end every command's table: --report text|json (when the command prints a
/// report), --quiet (`quiet`: what it silences, and its default) and --help.
std::vector<OptionText> closing_options(bool report, const char* quiet);

/// The option table of a command, titled "TITLE options", from blocks of options in the order
/// --help lists them (the parser and --help read the same table, so they cannot drift).
po::options_description option_table(const std::string& title,
                                     const std::vector<std::vector<OptionText>>& blocks);

/// A command's --help: the first line and usage, `intro` (may be empty), the option table,
/// `more` (may be empty), and the exit-code line.
std::string help_page(const std::string& head, const std::string& intro,
                      const po::options_description& options, const std::string& more,
                      const std::string& exit_codes);

/// \brief --report text|json.
enum class ReportFormat { Text, Json };

/// Throws InvalidInput "--OPTION: invalid value 'TEXT' (expected EXPECTED)".
[[noreturn]] void bad_value(const std::string& option, const std::string& text,
                            const std::string& expected);

/// An integer in [lo, hi], optionally signed ("+1", "-2").
long long integer_option(const std::string& option, const std::string& text, long long lo,
                         long long hi, const std::string& expected);
/// A count >= 1: an integer, or a real with an integer value ("1e6", "2.5e3").
std::size_t count_option(const std::string& option, const std::string& text);
/// A seed in [0, 2^64).
std::uint64_t seed_option(const std::string& option, const std::string& text);
/// A finite real number.
double real_option(const std::string& option, const std::string& text, const std::string& expected);
/// Bytes, optionally with a binary suffix: 512, 8G, 8GiB, 1500M.
std::size_t bytes_option(const std::string& option, const std::string& text);
/// "a,b,c" into its items; an empty item is refused.
std::vector<std::string> list_option(const std::string& option, const std::string& text);
/// A list of the registry's back-end names, each once, in the order given.
std::vector<std::string> backends_option(const std::string& option, const std::string& text);
/// One of the generators' point-set shapes.
std::string shape_option(const std::string& option, const std::string& text);
/// One of `choices` ("--OPTION: invalid value 'X' (expected a, b or c)" otherwise).
std::string choice_option(const std::string& option, const std::string& text,
                          const std::vector<std::string>& choices);
/// text or json.
ReportFormat report_option(const std::string& text);
/// A file name whose extension names a format (.h5, .hdf5, .csv).
std::string file_option(const std::string& option, const std::string& path);

/// `text` broken at spaces into lines of at most `width` characters (a longer word stands
/// alone), each starting with `indent`, without a final line break: prose and lists in --help.
std::string wrap_text(const std::string& text, std::size_t width, const std::string& indent = "");

/// Parses `args` against `visible` (plus --help handling by the caller). Words that are not
/// options are refused, unless `words` collects them (sweep NAME, model fit CSV...). No guessing
/// of abbreviations: "--verify" never silently means "--verify-sample".
po::variables_map parse_options(const std::vector<std::string>& args,
                                const po::options_description& visible,
                                std::vector<std::string>* words = nullptr);
/// The value of a string option, or null when not given.
const std::string* value_of(const po::variables_map& vm, const char* name);
/// Whether a switch (po::bool_switch) was given.
bool switch_of(const po::variables_map& vm, const char* name);

}  // namespace mlfma2d::app
