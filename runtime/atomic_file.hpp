#pragma once
// The one atomic writer. Every file the library and its programs write goes through it: the
// public write_atomically() (mlfma2d/io.hpp) for whole files, TemporaryFile for a file that grows
// while it is written (a sweep's CSV) and the cost model's cache. A temporary file sits in the
// destination's folder (NAME.tmp-PID) and is renamed onto the destination when complete; it is
// removed on any failure, and on SIGINT, SIGTERM and SIGHUP (a handler is installed for a signal
// whose action is still the default).
#include <string>

namespace mlfma2d {

/// \brief The temporary file of one output: removed when destroyed unless renamed first.
class TemporaryFile {
 public:
  /// A temporary path for `final_path` in its folder (nothing is created yet).
  explicit TemporaryFile(const std::string& final_path);
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  /// Where to write.
  const std::string& path() const { return path_; }
  /// Renamed onto the final path. Throws IoError naming it.
  void commit();
  /// Renamed onto another path (what a writer keeps of an unfinished file, e.g. NAME.partial).
  void rename_to(const std::string& destination);

 private:
  std::string final_, path_;
  int slot_ = -1;
  bool done_ = false;
};

/// Text of a "cannot write" error: "cannot write 'PATH': WHY".
std::string cannot_write(const std::string& path, const std::string& why);

/// What an existing `path` is when it is not a regular file: "a folder", "a symbolic link", "a
/// FIFO", "a socket", "a device", "not a regular file"; "" for a regular file or no file.
std::string not_regular(const std::string& path, bool follow_links);

}  // namespace mlfma2d
