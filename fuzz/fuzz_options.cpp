// libFuzzer target: the command-line parser. Bytes split on NUL and newline -> argv ->
// mlfma2d::app::parse_command_line, which touches no file and runs nothing. Rejecting the command
// line with an mlfma2d::Error (InvalidInput) is fine; what it accepts must satisfy the option
// contracts that the rest of the program relies on.
#include <any>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/evaluate.hpp"
#include "app/generate.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();  // the parser accepted a value outside its documented range
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> words{"mlfma2d"};
  std::string word;
  for (std::size_t i = 0; i <= size; ++i) {
    if (i == size || data[i] == '\0' || data[i] == '\n') {
      words.push_back(word);
      word.clear();
    } else {
      word.push_back(static_cast<char>(data[i]));
    }
  }
  if (size == 0) words.pop_back();  // no bytes: no arguments at all
  std::vector<const char*> argv;
  for (const std::string& w : words) argv.push_back(w.c_str());
  argv.push_back(nullptr);
  try {
    const mlfma2d::app::ParsedCommand c =
        mlfma2d::app::parse_command_line(static_cast<int>(words.size()), argv.data());
    if (const auto* e = std::any_cast<mlfma2d::app::EvaluateArgs>(&c.args)) {
      const mlfma2d::Options& o = e->options;
      check(o.ct >= 1);
      check(o.eps > 0 && o.eps < 1);
      check(o.terms >= 0 && o.terms <= mlfma2d::kMaxTerms);
      check(o.threads >= 0);
      check(o.level_offset >= -mlfma2d::kMaxLevels && o.level_offset <= mlfma2d::kMaxLevels);
      check(e->repeat >= 1);
    } else if (const auto* g = std::any_cast<mlfma2d::app::GenerateArgs>(&c.args)) {
      check(g->n >= 1 && !g->output.empty());
    }
  } catch (const mlfma2d::Error&) {
  }
  return 0;
}
