#pragma once
// Internal interface between the format-neutral entry points (points_io.cpp) and the two
// format back ends (hdf5_io.cpp, csv_io.cpp). Not installed.
//
// Readers take the path as given and name it in every message. Writers take the temporary file
// to write (`tmp`) and the final path (`path`), which is the one their messages name.
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"

namespace mlfma2d::io_detail {

// HDF5 (hdf5_io.cpp).
PointSet hdf5_read_points(const std::string& path);
void hdf5_read_targets(const std::string& path, std::vector<double>* tx, std::vector<double>* ty);
void hdf5_write_points(const std::string& tmp, const std::string& path, const PointSet& points);
void hdf5_write_result(const std::string& tmp, const std::string& path, const ResultFile& result);
ResultFile hdf5_read_result(const std::string& path);

// CSV (csv_io.cpp).
PointSet csv_read_points(const std::string& path);
void csv_read_targets(const std::string& path, std::vector<double>* tx, std::vector<double>* ty);
void csv_write_points(const std::string& tmp, const std::string& path, const PointSet& points);
void csv_write_result(const std::string& tmp, const std::string& path, const ResultFile& result);
ResultFile csv_read_result(const std::string& path);

// Shared helpers (points_io.cpp).

/// Text of a "cannot write" error: "cannot write 'PATH': WHY".
std::string cannot_write(const std::string& path, const std::string& why);

/// Throws IoError(path + ": " + why).
[[noreturn]] void fail(const std::string& path, const std::string& why);

}  // namespace mlfma2d::io_detail
