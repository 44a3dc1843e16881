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
#include "mlfma2d/mlfma2d.hpp"  // kMaxDensities
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

// An array of nd x N strengths (charges, dipole strengths) or orientations (`per` x N, per = 2
// or 2 nd): with nd = 1 the message of the files before several densities.
void require_per_source(const std::string& path, const std::string& name, std::size_t size,
                        std::size_t per, std::size_t n) {
  if (per == 1) {
    require_sizes(path, "x and " + name + " differ in length", n, size);
  } else if (size != per * n) {
    throw InvalidInput("cannot write '" + path + "': " + name + " has " + std::to_string(size) +
                       " entries, expected " + std::to_string(per) +
                       " x N = " + std::to_string(per) + " x " + std::to_string(n));
  }
}

// The sizes of a point set's arrays against N and nd.
void check_point_set(const std::string& path, const PointSet& p) {
  require_sizes(path, "x and y differ in length", p.x.size(), p.y.size());
  require_sizes(path, "target x and y differ in length", p.tx.size(), p.ty.size());
  if (p.densities < 1 || p.densities > kMaxDensities) {
    throw InvalidInput("cannot write '" + path + "': densities must be in 1.." +
                       std::to_string(kMaxDensities) + ", got " + std::to_string(p.densities));
  }
  const std::size_t n = p.x.size(), nd = std::size_t(p.densities);
  // Without dipoles the charges are required (N = 0 included, as before).
  if (p.has_charges() || !p.has_dipoles()) require_per_source(path, "q", p.q.size(), nd, n);
  if (p.has_dipoles()) {
    require_per_source(path, "dipole_strengths", p.dipole_strengths.size(), nd, n);
    require_per_source(path, "dipole_vectors", p.dipole_vectors.size(),
                       2 * (p.vectors_per_density ? nd : 1), n);
  } else if (!p.dipole_vectors.empty()) {
    throw InvalidInput("cannot write '" + path + "': dipole_vectors without dipole_strengths");
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

namespace {

// The HDF5 format's table for the readers of parts (a CSV file is read whole).
const FormatIo& hdf5_only(const std::string& path, const char* what) {
  if (format_of(path) != FileFormat::Hdf5) {
    throw InvalidInput(path + ": " + what +
                       " is read from HDF5 files only (a CSV file is read "
                       "whole: read_points)");
  }
  require_readable(path);
  return kHdf5Io;
}

}  // namespace

PointRange rank_part(std::size_t n, int r, int p) {
  auto begin = [&](int k) {
    return std::size_t((__uint128_t(n) * unsigned(k) + unsigned(p) - 1) / unsigned(p));
  };
  return {begin(r), begin(r + 1) - begin(r)};
}

PointFileShape read_point_file_shape(const std::string& path) {
  return hdf5_only(path, "the shape of a point file").read_shape(path);
}

PointSet read_points(const std::string& path, const PointRange& sources,
                     const PointRange& targets) {
  return hdf5_only(path, "a part of a point file").read_slice(path, sources, targets);
}

std::size_t read_target_count(const std::string& path) {
  return hdf5_only(path, "the target count of a file").target_count(path);
}

void read_targets(const std::string& path, const PointRange& range, std::vector<double>* tx,
                  std::vector<double>* ty) {
  hdf5_only(path, "a part of a targets file").read_target_slice(path, range, tx, ty);
}

void read_targets(const std::string& path, std::vector<double>* tx, std::vector<double>* ty) {
  const FormatIo& io = format_io(format_of(path));
  require_readable(path);
  io.read_targets(path, tx, ty);
}

void write_points(const std::string& path, const PointSet& p) {
  const FileFormat format = format_of(path);
  check_point_set(path, p);
  if (format == FileFormat::Csv && p.has_targets()) {
    // Dropping the targets silently would change what the file means.
    throw InvalidInput(cannot_write(path, "CSV holds only x,y,q; write separate targets to .h5"));
  }
  write_atomically(path,
                   [&](const std::string& tmp) { format_io(format).write_points(tmp, path, p); });
}

namespace {

// The parts of a result, each checked against the shape (its arrays nd x m, the coordinates),
// and counted: the last call fails when they do not add up to the shape's targets.
ResultParts checked_parts(const std::string& path, const ResultShape& shape, bool csv,
                          const ResultParts& next, std::size_t* done) {
  return [&path, &shape, csv, &next, done]() -> const ResultFile* {
    for (;;) {
      const ResultFile* part = next();
      if (!part) {
        if (*done != shape.targets) {
          throw InvalidInput(cannot_write(path, "the parts hold " + std::to_string(*done) +
                                                    " targets, the result " +
                                                    std::to_string(shape.targets)));
        }
        return nullptr;
      }
      const std::size_t nd = std::size_t(shape.densities), n = part->potential.size();
      if (n % nd != 0) {
        throw InvalidInput(
            cannot_write(path, "a part of " + std::to_string(n) +
                                   " potentials is not nd x m for nd = " + std::to_string(nd)));
      }
      const std::size_t m = n / nd;
      auto sized = [&](const std::vector<double>& v, bool wanted, std::size_t size,
                       const char* what) {
        if (v.size() != (wanted ? size : 0)) {
          throw InvalidInput(cannot_write(
              path, std::string("a part's ") + what + " has " + std::to_string(v.size()) +
                        " values, expected " + std::to_string(wanted ? size : 0)));
        }
      };
      sized(part->field_x, shape.field, n, "field_x");
      sized(part->field_y, shape.field, n, "field_y");
      for (const auto* h : {&part->hessian_xx, &part->hessian_xy, &part->hessian_yy}) {
        sized(*h, shape.hessian, n, "Hessian");
      }
      sized(part->tx, shape.coordinates || csv, m, "target x");
      sized(part->ty, shape.coordinates || csv, m, "target y");
      if (m > shape.targets - *done) {
        throw InvalidInput(cannot_write(path, "the parts hold more than the result's " +
                                                  std::to_string(shape.targets) + " targets"));
      }
      *done += m;
      if (m > 0) return part;  // an empty part is skipped
    }
  };
}

}  // namespace

void write_result(const std::string& path, const ResultShape& shape,
                  const std::function<const ResultFile*()>& next) {
  const FileFormat format = format_of(path);
  if (shape.densities < 1 || shape.densities > kMaxDensities) {
    throw InvalidInput("cannot write '" + path + "': densities must be in 1.." +
                       std::to_string(kMaxDensities) + ", got " + std::to_string(shape.densities));
  }
  const bool csv = format == FileFormat::Csv;
  auto parts = [&](std::size_t* done) { return checked_parts(path, shape, csv, next, done); };
  if (!csv) {
    write_atomically(path, [&](const std::string& tmp) {
      std::size_t done = 0;
      kHdf5Io.write_result(tmp, path, shape, parts(&done));
    });
    return;
  }
  // CSV: the values, and the attributes in the sidecar, replaced together. Without attributes an
  // old sidecar would describe another run: it goes.
  const std::string sidecar = sidecar_path(path);
  if (shape.attributes.empty()) {
    write_atomically(path, [&](const std::string& tmp) {
      std::size_t done = 0;
      kCsvIo.write_result(tmp, path, shape, parts(&done));
    });
    std::error_code ec;
    if (std::filesystem::is_regular_file(sidecar, ec)) std::filesystem::remove(sidecar, ec);
    return;
  }
  write_atomically({path, sidecar}, [&](const std::vector<std::string>& tmps) {
    std::size_t done = 0;
    kCsvIo.write_result(tmps[0], path, shape, parts(&done));
    write_sidecar(tmps[1], sidecar, path, shape.attributes);
  });
}

void write_result(const std::string& path, const ResultFile& r) {
  const FileFormat format = format_of(path);
  const std::size_t n = r.potential.size();
  if (r.densities < 1 || r.densities > kMaxDensities || n % std::size_t(r.densities) != 0) {
    throw InvalidInput("cannot write '" + path + "': " + std::to_string(n) +
                       " potentials are not nd x M for nd = " + std::to_string(r.densities));
  }
  require_sizes(path, "field_x and field_y differ in length", r.field_x.size(), r.field_y.size());
  if (!r.field_x.empty()) {
    require_sizes(path, "field and potential differ in length", r.field_x.size(), n);
  }
  if (!r.hessian_xx.empty() || !r.hessian_xy.empty() || !r.hessian_yy.empty()) {
    for (const auto* h : {&r.hessian_xx, &r.hessian_xy, &r.hessian_yy}) {
      require_sizes(path, "Hessian and potential differ in length", h->size(), n);
    }
  }
  // CSV rows need the targets; HDF5 stores them when given. One target per density's values.
  const std::size_t m = n / std::size_t(r.densities);
  if (format == FileFormat::Csv || !r.tx.empty() || !r.ty.empty()) {
    require_sizes(path, "target x and potential differ in length", r.tx.size(), m);
    require_sizes(path, "target y and potential differ in length", r.ty.size(), m);
  }
  ResultShape shape;
  shape.targets = m;
  shape.densities = r.densities;
  shape.field = !r.field_x.empty();
  shape.hessian = !r.hessian_xx.empty();
  shape.coordinates = !r.tx.empty() || format == FileFormat::Csv;
  shape.attributes = r.attributes;
  // One part, the whole result.
  bool given = false;
  write_result(path, shape, [&]() -> const ResultFile* {
    if (given) return nullptr;
    given = true;
    return &r;
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
