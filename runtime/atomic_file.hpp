#pragma once
// The one atomic writer. Every file the library and its programs write goes through it: the
// public write_atomically() (mlfma2d/io.hpp) for whole files, TemporaryFile for a file that grows
// while it is written (a sweep's CSV) and the cost model's cache. A temporary file sits in the
// destination's folder (NAME.tmp-PID) and is renamed onto the destination when complete; it is
// removed on any failure, and on SIGINT, SIGTERM and SIGHUP (a handler is installed for a signal
// whose action is still the default). A file whose unfinished part is worth keeping (the rows a
// sweep measured before it was stopped) is written as NAME.partial instead, and kept (below).
#include <string>

namespace mlfma2d {

/// \brief What becomes of a temporary file that is not committed.
enum class Unfinished {
  /// Removed: by the destructor (a failure) and on SIGINT, SIGTERM and SIGHUP. The path is
  /// NAME.tmp-PID, so that writers of one NAME in several processes do not meet.
  remove,
  /// Kept as NAME.partial, with what was written: the path is NAME.partial from the start, so a
  /// failure, any signal (SIGKILL too) or a crash leaves it, and the next run of the same NAME
  /// replaces it. For a file grown a piece at a time that is worth keeping when cut short.
  keep_partial,
};

/// \brief The temporary file of one output: removed when destroyed unless renamed first (or, made
/// with Unfinished::keep_partial, kept as NAME.partial).
class TemporaryFile {
 public:
  /// A temporary path for `final_path` in its folder (nothing is created yet).
  explicit TemporaryFile(const std::string& final_path, Unfinished unfinished = Unfinished::remove);
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  /// Where to write.
  const std::string& path() const { return path_; }
  /// Renamed onto the final path. Throws IoError naming it.
  void commit();
  /// Renamed onto another path. Throws IoError naming it.
  void rename_to(const std::string& destination);

 private:
  std::string final_, path_;
  int slot_ = -1;
  bool kept_ = false;  ///< not removed when destroyed: renamed, or Unfinished::keep_partial
};

/// Text of a "cannot write" error: "cannot write 'PATH': WHY".
std::string cannot_write(const std::string& path, const std::string& why);

/// What an existing `path` is when it is not a regular file: "a folder", "a symbolic link", "a
/// FIFO", "a socket", "a device", "not a regular file"; "" for a regular file or no file.
std::string not_regular(const std::string& path, bool follow_links);

}  // namespace mlfma2d
