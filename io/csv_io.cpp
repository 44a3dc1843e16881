// CSV back end: a header line naming the columns (any order), then one row of numbers per line.
// Blank lines and '#' lines are skipped, CRLF is accepted; no quoting (fields are numbers).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/io_internal.hpp"
#include "runtime/text.hpp"

namespace mlfma2d::io_detail {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma - start)));
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

// The whole field must be a number; `scratch` gives strtod the NUL terminator it needs. Decimal
// only, as numpy.loadtxt reads: strtod would also take hexadecimal ("0x10" as 16, "0x1p-3").
bool parse_number(std::string_view field, std::string* scratch, double* value) {
  if (field.empty()) return false;
  const std::size_t digits = field[0] == '+' || field[0] == '-' ? 1 : 0;
  if (field.size() > digits + 1 && field[digits] == '0' &&
      (field[digits + 1] == 'x' || field[digits + 1] == 'X')) {
    return false;
  }
  scratch->assign(field);
  char* end = nullptr;
  *value = std::strtod(scratch->c_str(), &end);
  return end == scratch->c_str() + scratch->size();
}

struct CsvTable {
  std::vector<std::vector<double>> columns;  // in the order of required, then optional names;
                                             // an absent optional column is left empty
  std::vector<std::string> comments;         // '#' lines, without the '#'
  std::vector<bool> present;                 // per column: named in the header
};

// Reads a table whose header names every `required` column, any `optional` ones, and no other,
// in any order. With `finite`, NaN and infinity are rejected.
CsvTable read_table(const std::string& path, const std::vector<std::string>& required,
                    const std::vector<std::string>& optional, bool finite) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail(path, "cannot read");
  if (text.find('\0') != std::string::npos) fail(path, "not a CSV text file (binary content)");
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // UTF-8 byte-order mark

  std::vector<std::string> names = required;
  names.insert(names.end(), optional.begin(), optional.end());
  std::string expected = "'" + join(required, ",") + "'";
  if (!optional.empty()) expected += " and optionally '" + join(optional, ",") + "'";

  CsvTable t;
  t.columns.resize(names.size());
  t.present.assign(names.size(), false);
  std::vector<std::size_t> slot;  // header field -> column index; empty until the header is read
  std::string scratch;
  std::size_t line_no = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string_view content = trim(line);
    if (content.empty()) continue;
    if (content[0] == '#') {
      t.comments.emplace_back(content.substr(1));
      continue;
    }
    const std::vector<std::string_view> fields = split(line);
    const auto at = [&] { return "line " + std::to_string(line_no); };  // built only on errors
    if (slot.empty()) {                                                 // the header
      double unused;
      if (parse_number(fields[0], &scratch, &unused)) {
        fail(path, "missing header line '" + join(required, ",") + "'");
      }
      for (const std::string_view f : fields) {
        std::size_t k = 0;
        while (k < names.size() && names[k] != f) ++k;
        if (k == names.size()) {
          fail(path, at() + ": unknown column '" + excerpt(f) + "' (expected " + expected + ")");
        }
        if (t.present[k]) fail(path, at() + ": column '" + names[k] + "' appears twice");
        t.present[k] = true;
        slot.push_back(k);
      }
      for (std::size_t k = 0; k < required.size(); ++k) {
        if (!t.present[k]) {
          fail(path, at() + ": header lacks column '" + names[k] + "' (expected " + expected + ")");
        }
      }
      continue;
    }
    if (fields.size() != slot.size()) {
      fail(path, at() + ": expected " + std::to_string(slot.size()) + " fields, found " +
                     std::to_string(fields.size()));
    }
    for (std::size_t i = 0; i < fields.size(); ++i) {
      double v;
      const bool number = parse_number(fields[i], &scratch, &v);
      if (!number || (finite && !std::isfinite(v))) {
        fail(path, at() + ", column " + names[slot[i]] + ": '" + excerpt(fields[i]) +
                       (number ? "' is not finite" : "' is not a number"));
      }
      t.columns[slot[i]].push_back(v);
    }
  }
  if (slot.empty()) fail(path, "missing header line '" + join(required, ",") + "'");
  return t;
}

// Targets or sources: at least one row.
CsvTable read_points_table(const std::string& path, const std::vector<std::string>& required,
                           const std::vector<std::string>& optional) {
  CsvTable t = read_table(path, required, optional, true);
  if (t.columns[0].empty()) {
    fail(path, "no data rows after the header: at least one point is needed");
  }
  return t;
}

// One line per row, each value with 17 significant digits, which reads back to the same double.
void write_rows(std::FILE* f, const std::vector<const std::vector<double>*>& columns) {
  const std::size_t n = columns[0]->size();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < columns.size(); ++k) {
      std::fprintf(f, k == 0 ? "%.17g" : ",%.17g", (*columns[k])[i]);
    }
    std::fputc('\n', f);
  }
}

}  // namespace

void write_text(const std::string& tmp, const std::string& path,
                const std::function<void(std::FILE*)>& body) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(tmp.c_str(), "wb"), std::fclose);
  if (!f) throw IoError(cannot_write(path, std::strerror(errno)));
  body(f.get());
  const bool written = !std::ferror(f.get());
  if (std::fclose(f.release()) != 0 || !written) {
    throw IoError(cannot_write(path, std::strerror(errno ? errno : EIO)));
  }
}

static PointSet csv_read_points(const std::string& path) {
  CsvTable t = read_points_table(path, {"x", "y", "q"}, {});
  PointSet p;
  p.x = std::move(t.columns[0]);
  p.y = std::move(t.columns[1]);
  p.q = std::move(t.columns[2]);
  return p;
}

static void csv_read_targets(const std::string& path, std::vector<double>* tx,
                             std::vector<double>* ty) {
  CsvTable t = read_points_table(path, {"x", "y"}, {"q"});
  *tx = std::move(t.columns[0]);
  *ty = std::move(t.columns[1]);
}

static void csv_write_points(const std::string& tmp, const std::string& path, const PointSet& p) {
  write_text(tmp, path, [&](std::FILE* f) {
    std::fputs("x,y,q\n", f);
    write_rows(f, {&p.x, &p.y, &p.q});
  });
}

static void csv_write_result(const std::string& tmp, const std::string& path, const ResultFile& r) {
  // The header comes first: numpy.loadtxt(skiprows=1) and pandas.read_csv load the file as it
  // is. The attributes go to the sidecar (write_sidecar).
  write_text(tmp, path, [&](std::FILE* f) {
    const bool field = !r.field_x.empty();
    std::fputs(field ? "x,y,potential,field_x,field_y\n" : "x,y,potential\n", f);
    if (field) {
      write_rows(f, {&r.tx, &r.ty, &r.potential, &r.field_x, &r.field_y});
    } else {
      write_rows(f, {&r.tx, &r.ty, &r.potential});
    }
  });
}

static void csv_write_table(const std::string& tmp, const std::string& path, const Table& table) {
  write_text(tmp, path, [&](std::FILE* f) {
    const std::vector<TableColumn>& cols = table.columns;
    for (std::size_t c = 0; c < cols.size(); ++c)
      std::fprintf(f, c ? ",%s" : "%s", cols[c].name.c_str());
    std::fputc('\n', f);
    const std::size_t rows =
        cols.empty() ? 0 : std::max(cols[0].texts.size(), cols[0].numbers.size());
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t c = 0; c < cols.size(); ++c) {
        if (c) std::fputc(',', f);
        if (cols[c].is_text) {
          std::fputs(cols[c].texts[i].c_str(), f);
        } else if (std::isfinite(cols[c].numbers[i])) {
          std::fprintf(f, "%.9g", cols[c].numbers[i]);
        }
      }
      std::fputc('\n', f);
    }
  });
}

static ResultFile csv_read_result(const std::string& path) {
  CsvTable t = read_table(path, {"x", "y", "potential"}, {"field_x", "field_y"}, false);
  if (t.present[3] != t.present[4]) fail(path, "has only one of the columns field_x, field_y");
  ResultFile r;
  r.tx = std::move(t.columns[0]);
  r.ty = std::move(t.columns[1]);
  r.potential = std::move(t.columns[2]);
  r.field_x = std::move(t.columns[3]);
  r.field_y = std::move(t.columns[4]);
  // The attributes: from the sidecar, or in files written before it, from "# key = value" lines
  // (a value that reads fully as a number is one).
  const std::string sidecar = sidecar_path(path);
  if (std::ifstream in{sidecar}) {
    nlohmann::json j;
    try {
      in >> j;
    } catch (const nlohmann::json::exception& e) {
      fail(sidecar, std::string("not JSON: ") + e.what());
    }
    if (!j.is_object() || !j.contains("attributes") || !j["attributes"].is_object()) {
      fail(sidecar, "not a result sidecar: no \"attributes\" object");
    }
    for (const auto& [key, v] : j["attributes"].items()) {
      if (v.is_string()) {
        r.attributes[key] = AttrValue(v.get<std::string>());
      } else if (v.is_number_integer()) {
        r.attributes[key] = AttrValue::from_integer(v.get<std::int64_t>());
      } else if (v.is_number()) {
        r.attributes[key] = AttrValue(v.get<double>());
      } else if (v.is_null()) {  // a non-finite number
        r.attributes[key] = AttrValue(std::numeric_limits<double>::quiet_NaN());
      }
    }
    return r;
  }
  std::string scratch;
  for (const std::string& comment : t.comments) {
    const std::size_t eq = comment.find('=');
    if (eq == std::string::npos) continue;
    const std::string key(trim(std::string_view(comment).substr(0, eq)));
    const std::string_view value = trim(std::string_view(comment).substr(eq + 1));
    if (key.empty()) continue;
    double number;
    r.attributes[key] =
        parse_number(value, &scratch, &number) ? AttrValue(number) : AttrValue(std::string(value));
  }
  return r;
}

void write_sidecar(const std::string& tmp, const std::string& sidecar, const std::string& path,
                   const std::map<std::string, AttrValue>& attributes) {
  nlohmann::json a = nlohmann::json::object();
  for (const auto& [key, v] : attributes) {
    a[key] = v.is_string    ? nlohmann::json(v.text)
             : v.is_integer ? nlohmann::json(v.integer)
                            : nlohmann::json(v.number);
  }
  const nlohmann::json j = {{"file", std::filesystem::path(path).filename().string()},
                            {"attributes", a}};
  const std::string text = j.dump(2) + "\n";
  write_text(tmp, sidecar, [&](std::FILE* f) { std::fwrite(text.data(), 1, text.size(), f); });
}

const FormatIo kCsvIo = {csv_read_points,  csv_read_targets, csv_read_result,
                         csv_write_points, csv_write_result, csv_write_table};

}  // namespace mlfma2d::io_detail
