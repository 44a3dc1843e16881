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
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/io_internal.hpp"
#include "mlfma2d/mlfma2d.hpp"  // kMaxDensities
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

// The columns a table may have: every `required` name, any `optional` one, and any name that
// `extra` accepts (the columns of several densities: q0, d1, ...), in any order; `extra_text`
// names those for the messages.
struct ColumnSpec {
  std::vector<std::string> required, optional;
  std::function<bool(std::string_view)> extra;
  std::string extra_text;
  std::string example;  // the header a missing one should be, e.g. "x,y,q"; "": the required
};

struct CsvTable {
  std::vector<std::string> names;            // required, optional, then extra names as found
  std::vector<std::vector<double>> columns;  // one per name; an absent column is left empty
  std::vector<std::string> comments;         // '#' lines, without the '#'
  std::vector<bool> present;                 // per column: named in the header
  std::size_t header_line = 0;
  bool has(std::string_view name) const {
    for (std::size_t k = 0; k < names.size(); ++k)
      if (names[k] == name) return present[k];
    return false;
  }
  std::vector<double>& column(std::string_view name) {
    std::size_t k = 0;
    while (names[k] != name) ++k;  // only for a name has() found
    return columns[k];
  }
};

// The header line: each field a column of `spec`, none twice, every required one there.
std::vector<std::size_t> read_header(const std::string& path, const ColumnSpec& spec,
                                     const std::vector<std::string_view>& fields, CsvTable* t) {
  std::string expected = "'" + join(spec.required, ",") + "'";
  if (!spec.optional.empty()) expected += " and optionally '" + join(spec.optional, ",") + "'";
  if (!spec.extra_text.empty()) expected += " or " + spec.extra_text;
  const std::string at = "line " + std::to_string(t->header_line);
  std::vector<std::size_t> slot;  // header field -> column index
  for (const std::string_view f : fields) {
    std::size_t k = 0;
    while (k < t->names.size() && t->names[k] != f) ++k;
    if (k == t->names.size()) {
      if (!spec.extra || !spec.extra(f)) {
        fail(path, at + ": unknown column '" + excerpt(f) + "' (expected " + expected + ")");
      }
      t->names.emplace_back(f);
      t->columns.emplace_back();
      t->present.push_back(false);
    }
    if (t->present[k]) fail(path, at + ": column '" + t->names[k] + "' appears twice");
    t->present[k] = true;
    slot.push_back(k);
  }
  for (std::size_t k = 0; k < spec.required.size(); ++k) {
    if (!t->present[k]) {
      fail(path, at + ": header lacks column '" + t->names[k] + "' (expected " + expected + ")");
    }
  }
  return slot;
}

// Reads a table whose header names the columns of `spec`. With `finite`, NaN and infinity are
// rejected.
CsvTable read_table(const std::string& path, const ColumnSpec& spec, bool finite) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail(path, "cannot read");
  if (text.find('\0') != std::string::npos) fail(path, "not a CSV text file (binary content)");
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // UTF-8 byte-order mark

  const std::string example = spec.example.empty() ? join(spec.required, ",") : spec.example;
  CsvTable t;
  t.names = spec.required;
  t.names.insert(t.names.end(), spec.optional.begin(), spec.optional.end());
  t.columns.resize(t.names.size());
  t.present.assign(t.names.size(), false);
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
        fail(path, "missing header line '" + example + "'");
      }
      t.header_line = line_no;
      slot = read_header(path, spec, fields, &t);
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
        fail(path, at() + ", column " + t.names[slot[i]] + ": '" + excerpt(fields[i]) +
                       (number ? "' is not finite" : "' is not a number"));
      }
      t.columns[slot[i]].push_back(v);
    }
  }
  if (slot.empty()) fail(path, "missing header line '" + example + "'");
  return t;
}

// Whether `name` is one of `stems` followed by a density index: "q0", "field_x12" (no leading
// zeros, below kMaxDensities).
bool is_indexed(std::string_view name, const std::vector<std::string>& stems) {
  for (const std::string& stem : stems) {
    if (name.size() <= stem.size() || name.substr(0, stem.size()) != stem) continue;
    const std::string_view digits = name.substr(stem.size());
    if (digits.size() > 4 || (digits[0] == '0' && digits.size() > 1)) continue;
    if (digits.find_first_not_of("0123456789") != std::string_view::npos) continue;
    if (std::stoi(std::string(digits)) < kMaxDensities) return true;
  }
  return false;
}

// The columns of one quantity: NAME (one density) or NAME0..NAME{k-1} (k densities).
struct Quantity {
  int count = 0;               // densities given; 0: absent
  bool indexed = false;        // NAME0.., not NAME
  std::vector<double> values;  // count x N, row-major
};

Quantity gather(const std::string& path, CsvTable* t, const std::string& name) {
  Quantity q;
  const std::string at = "line " + std::to_string(t->header_line) + ": ";
  int highest = -1;
  for (std::size_t k = 0; k < t->names.size(); ++k) {
    if (t->present[k] && is_indexed(t->names[k], {name})) {
      highest = std::max(highest, std::stoi(t->names[k].substr(name.size())));
    }
  }
  if (t->has(name) && highest >= 0) {
    fail(path, at + "columns '" + name + "' and '" + name + "0'...: '" + name +
                   "' is one density, '" + name + "0'..'" + name + "{nd-1}' several; not both");
  }
  if (t->has(name)) {
    q.count = 1;
    q.values = std::move(t->column(name));
    return q;
  }
  q.count = highest + 1;
  q.indexed = true;
  for (int d = 0; d < q.count; ++d) {
    const std::string column = name + std::to_string(d);
    if (!t->has(column)) {
      fail(path, at + "column '" + column + "' missing: the densities' columns are '" + name +
                     "0'..'" + name + std::to_string(highest) + "', every one");
    }
    const std::vector<double>& v = t->column(column);
    q.values.insert(q.values.end(), v.begin(), v.end());
  }
  return q;
}

// The columns of a point set: x, y and the strengths of one density (q, d, vx, vy) or several
// (q0, d0, vx0, vy0, ...).
ColumnSpec point_columns(std::vector<std::string> required) {
  const std::vector<std::string> strengths = {"q", "d", "vx", "vy"};
  std::vector<std::string> optional;
  for (const std::string& name : strengths) {
    if (std::find(required.begin(), required.end(), name) == required.end()) {
      optional.push_back(name);
    }
  }
  return {std::move(required), optional,
          [strengths](std::string_view f) { return is_indexed(f, strengths); },
          "'q0,q1,...,d0,d1,...,vx0,vy0,...' (docs/files.md)", "x,y,q"};
}

// Targets: at least one row.
CsvTable read_points_table(const std::string& path, const ColumnSpec& spec) {
  CsvTable t = read_table(path, spec, true);
  if (t.columns[0].empty()) {
    fail(path, "no data rows after the header: at least one point is needed");
  }
  return t;
}

// The dipoles of a point table whose charges gave `charges` densities (0: no charges):
// strengths d or d0.., orientations vx, vy (one per source) or vx0, vy0, ... (one per source and
// density). Returns whether the header has them.
bool read_dipoles(const std::string& path, CsvTable* t, int charges, PointSet* p) {
  const std::string at = "line " + std::to_string(t->header_line) + ": ";
  Quantity d = gather(path, t, "d"), vx = gather(path, t, "vx"), vy = gather(path, t, "vy");
  const bool vectors = vx.count > 0 || vy.count > 0;
  if (d.count == 0 && !vectors) return false;
  if (d.count == 0) fail(path, at + "orientations (vx, vy) without dipole strengths (d)");
  if (!vectors) {
    fail(path, at + "dipole strengths (d) without orientations: columns vx, vy (one per " +
                   "source) or vx0, vy0, ... (one per source and density)");
  }
  if (charges > 0 && d.count != charges) {
    fail(path, at + std::to_string(charges) + " densities of charges (q) but " +
                   std::to_string(d.count) + " of dipole strengths (d): one nd for both");
  }
  p->densities = d.count;
  const bool shared = !vx.indexed && !vy.indexed && vx.count == 1 && vy.count == 1;
  const bool per_density = vx.indexed && vy.indexed && vx.count == d.count && vy.count == d.count;
  if (!shared && !per_density) {
    fail(path, at + "orientation columns must be vx, vy (one per source) or vx0, vy0, ..., vx" +
                   std::to_string(d.count - 1) + ", vy" + std::to_string(d.count - 1) +
                   " (one per source and each of the " + std::to_string(d.count) + " densities)");
  }
  const std::size_t n = p->x.size();
  p->vectors_per_density = per_density;
  p->dipole_strengths = std::move(d.values);
  p->dipole_vectors.reserve(vx.values.size() + vy.values.size());
  for (int k = 0; k < vx.count; ++k) {  // per density: its x components, then its y components
    const auto from = [&](const Quantity& v) { return v.values.begin() + std::ptrdiff_t(k * n); };
    p->dipole_vectors.insert(p->dipole_vectors.end(), from(vx), from(vx) + std::ptrdiff_t(n));
    p->dipole_vectors.insert(p->dipole_vectors.end(), from(vy), from(vy) + std::ptrdiff_t(n));
  }
  return true;
}

// The column names of one quantity of nd densities: NAME, or NAME0..NAME{nd-1}.
std::vector<std::string> density_names(const std::string& name, int nd) {
  if (nd == 1) return {name};
  std::vector<std::string> names;
  for (int d = 0; d < nd; ++d) names.push_back(name + std::to_string(d));
  return names;
}

// One line per row, each value with 17 significant digits, which reads back to the same double.
void write_rows(std::FILE* f, std::size_t n, const std::vector<const double*>& columns) {
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < columns.size(); ++k) {
      std::fprintf(f, k == 0 ? "%.17g" : ",%.17g", columns[k][i]);
    }
    std::fputc('\n', f);
  }
}

// The columns of nd x n values: one per density.
void add_columns(const std::string& name, const std::vector<double>& v, int nd, std::size_t n,
                 std::vector<std::string>* names, std::vector<const double*>* columns) {
  const std::vector<std::string> named = density_names(name, nd);
  for (int d = 0; d < nd; ++d) {
    names->push_back(named[std::size_t(d)]);
    columns->push_back(v.data() + std::size_t(d) * n);
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
  CsvTable t = read_table(path, point_columns({"x", "y"}), true);
  PointSet p;
  p.x = std::move(t.columns[0]);
  p.y = std::move(t.columns[1]);
  Quantity q = gather(path, &t, "q");
  p.q = std::move(q.values);
  p.densities = std::max(q.count, 1);
  if (!read_dipoles(path, &t, q.count, &p) && q.count == 0) {
    fail(path, "line " + std::to_string(t.header_line) +
                   ": header lacks column 'q' (charges: q, or q0, q1, ... for several densities; "
                   "or dipoles: d, vx, vy; docs/files.md)");
  }
  if (p.x.empty()) fail(path, "no data rows after the header: at least one point is needed");
  return p;
}

static void csv_read_targets(const std::string& path, std::vector<double>* tx,
                             std::vector<double>* ty) {
  CsvTable t = read_points_table(path, point_columns({"x", "y"}));
  *tx = std::move(t.columns[0]);
  *ty = std::move(t.columns[1]);
}

static void csv_write_points(const std::string& tmp, const std::string& path, const PointSet& p) {
  const std::size_t n = p.x.size();
  std::vector<std::string> names = {"x", "y"};
  std::vector<const double*> columns = {p.x.data(), p.y.data()};
  if (p.has_charges()) add_columns("q", p.q, p.densities, n, &names, &columns);
  if (p.has_dipoles()) {
    add_columns("d", p.dipole_strengths, p.densities, n, &names, &columns);
    const int sets = p.vectors_per_density ? p.densities : 1;
    for (int k = 0; k < sets; ++k) {
      const std::string index = p.vectors_per_density ? std::to_string(k) : "";
      names.push_back("vx" + index);
      names.push_back("vy" + index);
      columns.push_back(p.dipole_vectors.data() + std::size_t(2 * k) * n);
      columns.push_back(p.dipole_vectors.data() + std::size_t(2 * k + 1) * n);
    }
  }
  write_text(tmp, path, [&](std::FILE* f) {
    std::fputs((join(names, ",") + "\n").c_str(), f);
    write_rows(f, n, columns);
  });
}

namespace {

// The value columns of a result, in file order: the potential, the field, the Hessian.
const std::vector<std::pair<const char*, std::vector<double> ResultFile::*>> kResultColumns = {
    {"potential", &ResultFile::potential},   {"field_x", &ResultFile::field_x},
    {"field_y", &ResultFile::field_y},       {"hessian_xx", &ResultFile::hessian_xx},
    {"hessian_xy", &ResultFile::hessian_xy}, {"hessian_yy", &ResultFile::hessian_yy}};

}  // namespace

static void csv_write_result(const std::string& tmp, const std::string& path,
                             const ResultShape& shape, const ResultParts& next) {
  // The header comes first: numpy.loadtxt(skiprows=1) and pandas.read_csv load the file as it
  // is; then each part's rows. The attributes go to the sidecar (write_sidecar).
  std::vector<std::string> names = {"x", "y"};
  for (const auto& [name, member] : kResultColumns) {
    const bool wanted =
        member == &ResultFile::potential ||
        (shape.field && (member == &ResultFile::field_x || member == &ResultFile::field_y)) ||
        (shape.hessian && std::string(name).rfind("hessian", 0) == 0);
    if (!wanted) continue;
    for (const std::string& n : density_names(name, shape.densities)) names.push_back(n);
  }
  write_text(tmp, path, [&](std::FILE* f) {
    std::fputs((join(names, ",") + "\n").c_str(), f);
    while (const ResultFile* r = next()) {
      const std::size_t m = r->tx.size();
      std::vector<std::string> unused;
      std::vector<const double*> columns = {r->tx.data(), r->ty.data()};
      for (const auto& [name, member] : kResultColumns) {
        if (!(r->*member).empty())
          add_columns(name, r->*member, shape.densities, m, &unused, &columns);
      }
      write_rows(f, m, columns);
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
  std::vector<std::string> stems;
  for (const auto& column : kResultColumns) stems.emplace_back(column.first);
  CsvTable t = read_table(path,
                          {{"x", "y"},
                           {stems.begin(), stems.end()},
                           [stems](std::string_view f) { return is_indexed(f, stems); },
                           "potential0,potential1,... (docs/files.md)",
                           "x,y,potential"},
                          false);
  ResultFile r;
  r.tx = std::move(t.columns[0]);
  r.ty = std::move(t.columns[1]);
  const std::string at = "line " + std::to_string(t.header_line) + ": ";
  for (const auto& [name, member] : kResultColumns) {
    Quantity q = gather(path, &t, name);
    if (std::string(name) == "potential") {
      if (q.count == 0) fail(path, at + "header lacks column 'potential'");
      r.densities = q.count;
    } else if (q.count != 0 && q.count != r.densities) {
      fail(path, at + name + " has " + std::to_string(q.count) + " column(s) but potential has " +
                     std::to_string(r.densities) + ": one per density each");
    }
    r.*member = std::move(q.values);
  }
  if (r.field_x.empty() != r.field_y.empty()) {
    fail(path, "has only one of the columns field_x, field_y");
  }
  if (r.hessian_xx.empty() != r.hessian_xy.empty() ||
      r.hessian_xx.empty() != r.hessian_yy.empty()) {
    fail(path, "has only some of the columns hessian_xx, hessian_xy, hessian_yy");
  }
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

const FormatIo kCsvIo = {csv_read_points,  csv_read_targets, csv_read_result, csv_write_points,
                         csv_write_result, csv_write_table,  nullptr,         nullptr,
                         nullptr,          nullptr};

}  // namespace mlfma2d::io_detail
