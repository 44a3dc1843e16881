// Format-neutral entry points: choose the format, check the file can be read, write atomically.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "io/io_internal.hpp"
#include "mlfma2d/io.hpp"

namespace mlfma2d {
namespace io_detail {

std::string cannot_write(const std::string& path, const std::string& why) {
  return "cannot write '" + path + "': " + why;
}

void fail(const std::string& path, const std::string& why) {
  throw IoError(path + ": " + why);
}

}  // namespace io_detail

namespace {
using namespace io_detail;

// One clear message for a path that is missing, a folder or unreadable, so that the format back
// ends only have to judge the content.
void require_readable(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) fail(path, "no such file");
  if (status.type() == std::filesystem::file_type::directory) fail(path, "is a directory");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail(path, std::string("cannot read: ") + std::strerror(errno));
  std::fclose(f);
}

// Writes through `write(tmp)` into a temporary file next to `path`, then renames it onto `path`:
// readers never see a partial file, and a failure leaves an existing `path` as it was.
template <class Write>
void write_atomically(const std::string& path, Write&& write) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  // Probe with stdio first: it reports the system's reason (missing folder, permission), which
  // the HDF5 error stack does not carry.
  if (std::FILE* f = std::fopen(tmp.c_str(), "wb")) {
    std::fclose(f);
  } else {
    throw IoError(cannot_write(path, std::strerror(errno)));
  }
  try {
    write(tmp);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw IoError(cannot_write(path, std::strerror(err)));
  }
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
  const FileFormat format = format_of(path);
  require_readable(path);
  return format == FileFormat::Hdf5 ? hdf5_read_points(path) : csv_read_points(path);
}

void read_targets(const std::string& path, std::vector<double>* tx, std::vector<double>* ty) {
  const FileFormat format = format_of(path);
  require_readable(path);
  if (format == FileFormat::Hdf5) {
    hdf5_read_targets(path, tx, ty);
  } else {
    csv_read_targets(path, tx, ty);
  }
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
  write_atomically(path, [&](const std::string& tmp) {
    if (format == FileFormat::Hdf5) {
      hdf5_write_points(tmp, path, p);
    } else {
      csv_write_points(tmp, path, p);
    }
  });
}

void write_result(const std::string& path, const ResultFile& r) {
  const FileFormat format = format_of(path);
  const std::size_t n = r.potential.size();
  require_sizes(path, "field_x and field_y differ in length", r.field_x.size(), r.field_y.size());
  if (!r.field_x.empty()) {
    require_sizes(path, "field and potential differ in length", r.field_x.size(), n);
  }
  if (format == FileFormat::Csv) {
    require_sizes(path, "target x and potential differ in length", r.tx.size(), n);
    require_sizes(path, "target y and potential differ in length", r.ty.size(), n);
  }
  write_atomically(path, [&](const std::string& tmp) {
    if (format == FileFormat::Hdf5) {
      hdf5_write_result(tmp, path, r);
    } else {
      csv_write_result(tmp, path, r);
    }
  });
}

ResultFile read_result(const std::string& path) {
  const FileFormat format = format_of(path);
  require_readable(path);
  return format == FileFormat::Hdf5 ? hdf5_read_result(path) : csv_read_result(path);
}

}  // namespace mlfma2d
