// The sweep CSV (tuning/model.hpp): one table of columns, from which the header, the rows
// `mlfma2d sweep` writes and the reader by column name are made.
#include <cstdlib>
#include <fstream>
#include <type_traits>
#include <variant>

#include "io/io_internal.hpp"
#include "mlfma2d/errors.hpp"
#include "runtime/text.hpp"
#include "tuning/model.hpp"

namespace mlfma2d::tuning {

namespace {

// A cell of a sweep row: where its value lives.
using Cell = std::variant<std::string*, long*, int*, double*>;

// One CSV column: its name, whether a sweep CSV must have it, the printf conversion of a real
// value ("" for text and integers, written as they are), and its cell in a row.
struct Column {
  const char* name;
  bool required;
  const char* real;
  Cell (*cell)(SweepRow&);
};

// clang-format off
const std::vector<Column>& columns() {
  using S = SweepRow&;
  static const std::vector<Column> c = {
      {"sweep", true, "", [](S r) -> Cell { return &r.sweep; }},
      {"config", true, "", [](S r) -> Cell { return &r.config; }},
      {"backend", true, "", [](S r) -> Cell { return &r.backend; }},
      {"n", true, "%.0f", [](S r) -> Cell { return &r.n; }},
      {"ct", true, "", [](S r) -> Cell { return &r.ct; }},
      {"level_offset", true, "", [](S r) -> Cell { return &r.level_offset; }},
      {"levels_ct", false, "", [](S r) -> Cell { return &r.levels_ct; }},
      {"levels", true, "", [](S r) -> Cell { return &r.levels; }},
      {"grid_levels", false, "", [](S r) -> Cell { return &r.grid_levels; }},
      {"t", true, "%.0f", [](S r) -> Cell { return &r.t; }},
      {"D", true, "%.9g", [](S r) -> Cell { return &r.D; }},
      {"leaf_boxes", true, "%.0f", [](S r) -> Cell { return &r.leaf_boxes; }},
      {"boxes", false, "%.0f", [](S r) -> Cell { return &r.boxes; }},
      {"near_pairs", true, "%.0f", [](S r) -> Cell { return &r.near_pairs; }},
      {"repeat", false, "", [](S r) -> Cell { return &r.repeat; }},
      {"collect", true, "%.9g", [](S r) -> Cell { return &r.phase.collect; }},
      {"transfer", true, "%.9g", [](S r) -> Cell { return &r.phase.transfer; }},
      {"kernel", true, "%.9g", [](S r) -> Cell { return &r.phase.kernel; }},
      {"return", true, "%.9g", [](S r) -> Cell { return &r.phase.ret; }},
      {"near_total", true, "%.9g", [](S r) -> Cell { return &r.near_total; }},
      {"near_total_mean", false, "%.9g", [](S r) -> Cell { return &r.near_total_mean; }},
      {"near_total_min", false, "%.9g", [](S r) -> Cell { return &r.near_total_min; }},
      {"far_total", false, "%.9g", [](S r) -> Cell { return &r.far_total; }},
      {"device_bytes", false, "%.0f", [](S r) -> Cell { return &r.device_bytes; }},
      {"chunks", false, "%.0f", [](S r) -> Cell { return &r.chunks; }},
      {"pairs_per_second", false, "%.9g", [](S r) -> Cell { return &r.pairs_per_second; }},
      {"rel_l2_vs_cpu", false, "%.3g", [](S r) -> Cell { return &r.rel_l2_vs_cpu; }},
      {"threads", false, "", [](S r) -> Cell { return &r.threads; }},
  };
  return c;
}
// clang-format on

}  // namespace

const std::vector<std::string>& sweep_csv_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Column& c : columns()) n.emplace_back(c.name);
    return n;
  }();
  return names;
}

std::string sweep_csv_header() {
  std::string h;
  for (const std::string& name : sweep_csv_columns()) h += (h.empty() ? "" : ",") + name;
  return h;
}

std::string sweep_csv_line(const SweepRow& row) {
  SweepRow r = row;  // the cells are reached through a mutable row
  std::string line;
  for (const Column& c : columns()) {
    line += line.empty() ? "" : ",";
    std::visit(
        [&](auto* v) {
          using T = std::decay_t<decltype(*v)>;
          if constexpr (std::is_same_v<T, std::string>) {
            line += *v;
          } else if constexpr (std::is_same_v<T, double>) {
            line += format(c.real, *v);
          } else {
            line += std::to_string(*v);
          }
        },
        c.cell(r));
  }
  return line;
}

std::vector<SweepRow> read_sweep_csv(const std::string& path) {
  io_detail::require_readable(path);  // missing, a folder, a FIFO that would block: said plainly
  std::ifstream in(path);
  if (!in) throw IoError("cannot read '" + path + "': no such file or not readable");
  std::string line;
  std::vector<int> at(columns().size(), -1);
  bool have_header = false;
  std::vector<SweepRow> rows;
  long line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> cells = split(line, ',');
    if (!have_header) {
      for (std::size_t i = 0; i < cells.size(); ++i) {
        for (std::size_t c = 0; c < columns().size(); ++c)
          if (cells[i] == columns()[c].name) at[c] = static_cast<int>(i);
      }
      for (std::size_t c = 0; c < columns().size(); ++c) {
        if (columns()[c].required && at[c] < 0) {
          throw IoError(path + ": not a sweep CSV: no column '" + columns()[c].name +
                        "' in the header (line " + std::to_string(line_no) + ")");
        }
      }
      have_header = true;
      continue;
    }
    auto text = [&](std::size_t c) -> std::string {
      if (at[c] < 0) return "";
      if (static_cast<std::size_t>(at[c]) >= cells.size()) {
        throw IoError(path + ": line " + std::to_string(line_no) + ": missing column '" +
                      columns()[c].name + "'");
      }
      return cells[at[c]];
    };
    auto number = [&](std::size_t c) -> double {
      const std::string s = text(c);
      if (s.empty() && !columns()[c].required) return 0;
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size()) {
        throw IoError(path + ": line " + std::to_string(line_no) + ", column '" +
                      columns()[c].name + "': not a number: '" + excerpt(s) + "'");
      }
      return v;
    };
    SweepRow r;
    for (std::size_t c = 0; c < columns().size(); ++c) {
      std::visit(
          [&](auto* v) {
            using T = std::decay_t<decltype(*v)>;
            if constexpr (std::is_same_v<T, std::string>) {
              *v = text(c);
            } else {
              *v = static_cast<T>(number(c));
            }
          },
          columns()[c].cell(r));
    }
    r.source = path;
    rows.push_back(std::move(r));
  }
  if (!have_header) throw IoError(path + ": empty: no header line");
  return rows;
}

}  // namespace mlfma2d::tuning
