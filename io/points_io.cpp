// Format-neutral entry points: choose the format, check the file can be read, write atomically
// (runtime/atomic_file.hpp).
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "io/io_internal.hpp"
#include "mlfma2d/io.hpp"
#include "runtime/atomic_file.hpp"

namespace mlfma2d {
namespace io_detail {

void fail(const std::string& path, const std::string& why) {
  throw IoError(path + ": " + why);
}

void require_readable(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) fail(path, "no such file");
  if (status.type() == std::filesystem::file_type::directory) fail(path, "is a directory");
  // A FIFO without a writer would block the read forever; a device is no point set.
  const std::string what = not_regular(path, true);
  if (!what.empty()) fail(path, "cannot read: it is " + what + ", not a regular file");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail(path, std::string("cannot read: ") + std::strerror(errno));
  std::fclose(f);
}

}  // namespace io_detail

namespace {
using namespace io_detail;

const FormatIo& format_io(FileFormat format) {
  return format == FileFormat::Hdf5 ? kHdf5Io : kCsvIo;
}

void require_sizes(const std::string& path, const std::string& what, std::size_t a, std::size_t b) {
  if (a != b) {
    throw InvalidInput("cannot write '" + path + "': " + what + " (" + std::to_string(a) + " vs " +
                       std::to_string(b) + ")");
  }
}

}  // namespace

FileFormat format_of(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".h5" || ext == ".hdf5") return FileFormat::Hdf5;
  if (ext == ".csv") return FileFormat::Csv;
  throw InvalidInput("cannot tell the format of '" + path + "': use .h5, .hdf5 or .csv");
}

PointSet read_points(const std::string& path) {
  const FormatIo& io = format_io(format_of(path));
  require_readable(path);
  return io.read_points(path);
}

void read_targets(const std::string& path, std::vector<double>* tx, std::vector<double>* ty) {
  const FormatIo& io = format_io(format_of(path));
  require_readable(path);
  io.read_targets(path, tx, ty);
}

void write_points(const std::string& path, const PointSet& p) {
  const FileFormat format = format_of(path);
  require_sizes(path, "x and y differ in length", p.x.size(), p.y.size());
  require_sizes(path, "x and q differ in length", p.x.size(), p.q.size());
  require_sizes(path, "target x and y differ in length", p.tx.size(), p.ty.size());
  if (format == FileFormat::Csv && p.has_targets()) {
    // Dropping the targets silently would change what the file means.
    throw InvalidInput(cannot_write(path, "CSV holds only x,y,q; write separate targets to .h5"));
  }
  write_atomically(path,
                   [&](const std::string& tmp) { format_io(format).write_points(tmp, path, p); });
}

void write_result(const std::string& path, const ResultFile& r) {
  const FileFormat format = format_of(path);
  const std::size_t n = r.potential.size();
  require_sizes(path, "field_x and field_y differ in length", r.field_x.size(), r.field_y.size());
  if (!r.field_x.empty()) {
    require_sizes(path, "field and potential differ in length", r.field_x.size(), n);
  }
  // CSV rows need the targets; HDF5 stores them when given.
  if (format == FileFormat::Csv || !r.tx.empty() || !r.ty.empty()) {
    require_sizes(path, "target x and potential differ in length", r.tx.size(), n);
    require_sizes(path, "target y and potential differ in length", r.ty.size(), n);
  }
  if (format == FileFormat::Hdf5) {
    write_atomically(path, [&](const std::string& tmp) { kHdf5Io.write_result(tmp, path, r); });
    return;
  }
  // CSV: the values, and the attributes in the sidecar, replaced together. Without attributes an
  // old sidecar would describe another run: it goes.
  const std::string sidecar = sidecar_path(path);
  if (r.attributes.empty()) {
    write_atomically(path, [&](const std::string& tmp) { kCsvIo.write_result(tmp, path, r); });
    std::error_code ec;
    if (std::filesystem::is_regular_file(sidecar, ec)) std::filesystem::remove(sidecar, ec);
    return;
  }
  write_atomically({path, sidecar}, [&](const std::vector<std::string>& tmps) {
    kCsvIo.write_result(tmps[0], path, r);
    write_sidecar(tmps[1], sidecar, path, r.attributes);
  });
}

void write_text_file(const std::string& path, const std::string& text) {
  write_atomically(path, [&](const std::string& tmp) {
    write_text(tmp, path, [&](std::FILE* f) { std::fwrite(text.data(), 1, text.size(), f); });
  });
}

std::string sidecar_path(const std::string& csv_path) {
  return csv_path + ".json";
}

void write_table(const std::string& path, const Table& table) {
  const FileFormat format = format_of(path);
  for (const TableColumn& c : table.columns) {
    const std::size_t rows = table.columns.front().is_text ? table.columns.front().texts.size()
                                                           : table.columns.front().numbers.size();
    require_sizes(path, "table column '" + c.name + "' has another length",
                  c.is_text ? c.texts.size() : c.numbers.size(), rows);
  }
  write_atomically(
      path, [&](const std::string& tmp) { format_io(format).write_table(tmp, path, table); });
}

ResultFile read_result(const std::string& path) {
  const FormatIo& io = format_io(format_of(path));
  require_readable(path);
  return io.read_result(path);
}

}  // namespace mlfma2d
