#include "app/options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "runtime/text.hpp"

namespace mlfma2d::app {

namespace {

bool parse_unsigned(const std::string& text, std::size_t start, unsigned long long* value) {
  if (start >= text.size()) return false;
  const char* first = text.data() + start;
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, *value);
  return ec == std::errc() && ptr == last;
}

bool parse_signed(const std::string& text, long long* value) {
  std::size_t start = 0;
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    start = 1;
  }
  unsigned long long magnitude = 0;
  if (!parse_unsigned(text, start, &magnitude)) return false;
  if (magnitude > static_cast<unsigned long long>(LLONG_MAX)) return false;
  *value = negative ? -static_cast<long long>(magnitude) : static_cast<long long>(magnitude);
  return true;
}

}  // namespace

void bad_value(const std::string& option, const std::string& text, const std::string& expected) {
  throw InvalidInput("--" + option + ": invalid value '" + excerpt(text) + "' (expected " +
                     expected + ")");
}

long long integer_option(const std::string& option, const std::string& text, long long lo,
                         long long hi, const std::string& expected) {
  long long value = 0;
  if (!parse_signed(text, &value) || value < lo || value > hi) bad_value(option, text, expected);
  return value;
}

std::size_t count_option(const std::string& option, const std::string& text) {
  const std::string expected = "an integer >= 1, such as 1000000 or 1e6";
  long long value = 0;
  if (parse_signed(text, &value)) {
    if (value < 1) bad_value(option, text, expected);
    return static_cast<std::size_t>(value);
  }
  const double real = real_option(option, text, expected);
  // 2^63: the largest count a long long holds, exactly representable as a double.
  if (!(real >= 1 && real < 9223372036854775808.0) || real != std::floor(real)) {
    bad_value(option, text, expected);
  }
  return static_cast<std::size_t>(real);
}

std::uint64_t seed_option(const std::string& option, const std::string& text) {
  unsigned long long value = 0;
  const std::size_t start = (!text.empty() && text[0] == '+') ? 1 : 0;
  if (!parse_unsigned(text, start, &value)) {
    bad_value(option, text, "an integer in [0, 2^64)");
  }
  return value;
}

double real_option(const std::string& option, const std::string& text,
                   const std::string& expected) {
  // strtod skips leading blanks and accepts "nan"/"inf": refuse both.
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) {
    bad_value(option, text, expected);
  }
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value)) {
    bad_value(option, text, expected);
  }
  return value;
}

// Bytes, optionally with a binary suffix: 512, 8G, 8GiB, 1500M.
std::size_t bytes_option(const std::string& option, const std::string& text) {
  const std::string expected = "a byte count >= 0, optionally with K, M, G or T (powers of 1024)";
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  unsigned long long value = 0;
  if (digits == 0 || !parse_unsigned(text.substr(0, digits), 0, &value)) {
    bad_value(option, text, expected);
  }
  std::string suffix = text.substr(digits);
  int shift = 0;
  if (!suffix.empty()) {
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
    const std::string rest = suffix.substr(1);
    const std::string units = "KMGT";
    const auto at = units.find(unit);
    if (at == std::string::npos || !(rest.empty() || rest == "B" || rest == "iB")) {
      bad_value(option, text, expected);
    }
    shift = 10 * static_cast<int>(at + 1);
  }
  if (shift > 0 && value > (std::numeric_limits<unsigned long long>::max() >> shift)) {
    bad_value(option, text, expected);
  }
  value <<= shift;
  if (value > std::numeric_limits<std::size_t>::max()) bad_value(option, text, expected);
  return static_cast<std::size_t>(value);
}

std::string file_option(const std::string& option, const std::string& path) {
  if (path.empty()) throw InvalidInput("--" + option + ": empty file name");
  try {
    (void)format_of(path);
  } catch (const InvalidInput& e) {
    throw InvalidInput("--" + option + ": " + e.what());
  }
  return path;
}

std::vector<std::string> list_option(const std::string& option, const std::string& text) {
  const std::vector<std::string> items = split(text, ',');
  for (const std::string& item : items)
    if (item.empty()) bad_value(option, text, "a comma-separated list without empty items");
  return items;
}

std::vector<std::string> backends_option(const std::string& option, const std::string& text) {
  const auto names = near_field_backends();
  std::vector<std::string> out;
  for (const std::string& b : list_option(option, text)) {
    if (std::find(names.begin(), names.end(), b) == names.end()) {
      throw InvalidInput("--" + option + ": unknown back end '" + b +
                         "' (valid: " + join(names, ", ") + ")");
    }
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  }
  return out;
}

std::string shape_option(const std::string& option, const std::string& text) {
  const auto shapes = point_set_shapes();
  if (std::find(shapes.begin(), shapes.end(), text) == shapes.end()) {
    throw InvalidInput("--" + option + ": unknown shape '" + text +
                       "' (valid: " + join(shapes, ", ") + ")");
  }
  return text;
}

std::string choice_option(const std::string& option, const std::string& text,
                          const std::vector<std::string>& choices) {
  if (std::find(choices.begin(), choices.end(), text) == choices.end()) {
    std::string expected = choices.front();
    for (std::size_t k = 1; k < choices.size(); ++k) {
      expected += (k + 1 == choices.size() ? " or " : ", ") + choices[k];
    }
    bad_value(option, text, expected);
  }
  return text;
}

ReportFormat report_option(const std::string& text) {
  if (text == "text") return ReportFormat::Text;
  if (text != "json") bad_value("report", text, "text or json");
  return ReportFormat::Json;
}

std::vector<OptionText> closing_options(bool report, const char* quiet) {
  std::vector<OptionText> options;
  if (report) {
    options.push_back(
        {"report", "text|json", "report format on stdout; json prints one object; default: text"});
  }
  options.push_back({"quiet,q", nullptr, quiet});
  options.push_back({"help,h", "", "print this help and exit"});
  return options;
}

po::options_description option_table(const std::string& title,
                                     const std::vector<std::vector<OptionText>>& blocks) {
  po::options_description table(title + " options", kHelpWidth, kHelpWidth / 2);
  for (const std::vector<OptionText>& block : blocks) {
    for (const OptionText& o : block) {
      if (!o.value) {
        table.add_options()(o.name, po::bool_switch(), o.help);
      } else if (*o.value) {
        table.add_options()(o.name, po::value<std::string>()->value_name(o.value), o.help);
      } else {
        table.add_options()(o.name, o.help);
      }
    }
  }
  return table;
}

std::string help_page(const std::string& head, const std::string& intro,
                      const po::options_description& options, const std::string& more,
                      const std::string& exit_codes) {
  std::ostringstream s;
  s << head << "\n"
    << (intro.empty() ? "" : intro + "\n") << options << "\n"
    << (more.empty() ? "" : more + "\n") << "Exit codes: " << exit_codes << "\n";
  return s.str();
}

std::string wrap_text(const std::string& text, std::size_t width, const std::string& indent) {
  std::string out, line = indent, word;
  std::istringstream words(text);
  while (words >> word) {
    if (line.size() > indent.size() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line = indent;
    }
    line += (line.size() > indent.size() ? " " : "") + word;
  }
  return out + line;
}

po::variables_map parse_options(const std::vector<std::string>& args,
                                const po::options_description& visible,
                                std::vector<std::string>* words) {
  po::options_description all;
  all.add(visible);
  // Stray words are collected, not rejected by Boost, to name them in our own message.
  all.add_options()("stray-argument", po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add("stray-argument", -1);
  // No guessing: "--verify" must never silently mean "--verify-sample", nor "--out" "--output".
  const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).style(style).run(),
              vm);
  } catch (const po::error& e) {
    // Boost 1.74's what() loops forever when a token holds its own %placeholder% (found by
    // fuzz_options, e.g. --e%original_token%ps): with a '%' around, name the token ourselves.
    for (const std::string& a : args) {
      if (a.find('%') == std::string::npos) continue;
      const auto* named = dynamic_cast<const po::error_with_option_name*>(&e);
      throw InvalidInput((named ? "invalid option '" + named->get_option_name() + "'"
                                : std::string("invalid command line")) +
                         " (see mlfma2d --help)");
    }
    throw InvalidInput(std::string(e.what()) + " (see mlfma2d --help)");
  }
  if (vm.count("stray-argument")) {
    const auto& stray = vm["stray-argument"].as<std::vector<std::string>>();
    if (words) {
      *words = stray;
    } else {
      throw InvalidInput("unexpected argument '" + stray.front() + "' (see mlfma2d --help)");
    }
  }
  return vm;
}

const std::string* value_of(const po::variables_map& vm, const char* name) {
  auto it = vm.find(name);
  return it == vm.end() ? nullptr : &it->second.as<std::string>();
}

bool switch_of(const po::variables_map& vm, const char* name) {
  auto it = vm.find(name);
  return it != vm.end() && it->second.as<bool>();
}

}  // namespace mlfma2d::app
