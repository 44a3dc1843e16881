#pragma once
// Internal interface between the format-neutral entry points (points_io.cpp) and the two
// format back ends (hdf5_io.cpp, csv_io.cpp). Not installed.
//
// Readers take the path as given and name it in every message. Writers take the temporary file
// to write (`tmp`) and the final path (`path`), which is the one their messages name.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "runtime/atomic_file.hpp"  // cannot_write

namespace mlfma2d::io_detail {

/// The parts of a result written a part at a time (write_result): each call gives the next part,
/// its sizes checked against the shape (points_io.cpp), null when none is left.
using ResultParts = std::function<const ResultFile*()>;

/// \brief One file format's readers and writers (hdf5_io.cpp, csv_io.cpp), chosen by
/// format_of().
struct FormatIo {
  PointSet (*read_points)(const std::string& path);
  void (*read_targets)(const std::string& path, std::vector<double>* tx, std::vector<double>* ty);
  ResultFile (*read_result)(const std::string& path);
  void (*write_points)(const std::string& tmp, const std::string& path, const PointSet& points);
  void (*write_result)(const std::string& tmp, const std::string& path, const ResultShape& shape,
                       const ResultParts& next);
  void (*write_table)(const std::string& tmp, const std::string& path, const Table& table);
  // HDF5 only (null for CSV, which is read whole): the shapes, and parts of a point file.
  PointFileShape (*read_shape)(const std::string& path);
  PointSet (*read_slice)(const std::string& path, const PointRange& sources,
                         const PointRange& targets);
  std::size_t (*target_count)(const std::string& path);
  void (*read_target_slice)(const std::string& path, const PointRange& range,
                            std::vector<double>* tx, std::vector<double>* ty);
};
extern const FormatIo kHdf5Io;
extern const FormatIo kCsvIo;

/// The JSON sidecar of CSV result `path` (csv_io.cpp): {"file": NAME, "attributes": {...}}.
void write_sidecar(const std::string& tmp, const std::string& sidecar, const std::string& path,
                   const std::map<std::string, AttrValue>& attributes);

// Shared helpers (points_io.cpp).

/// Throws IoError(path + ": " + why).
[[noreturn]] void fail(const std::string& path, const std::string& why);

/// One clear message for a path that is missing, a folder, not a regular file or unreadable, so
/// that the format back ends only have to judge the content.
void require_readable(const std::string& path);

/// Opens `tmp` for writing, runs `body`, and closes it, checking every step (a full disk shows up
/// only as a failed write or close); errors name `path`.
void write_text(const std::string& tmp, const std::string& path,
                const std::function<void(std::FILE*)>& body);

}  // namespace mlfma2d::io_detail
