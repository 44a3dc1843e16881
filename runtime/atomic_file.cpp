// The one atomic writer (runtime/atomic_file.hpp): every output goes to a temporary file in its
// folder and is renamed onto its path when complete, so a reader never sees a partial file and a
// failure leaves the old one. The temporary files are removed on any failure, and on SIGINT,
// SIGTERM and SIGHUP; those made to be kept (Unfinished::keep_partial) stay as NAME.partial.
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>

#include "mlfma2d/io.hpp"
#include "runtime/atomic_file.hpp"

namespace mlfma2d {
namespace {

// ---- Temporary files a signal must not leave behind. A handler may only make async-signal-safe
// calls, so the paths live in fixed buffers, published through lock-free atomics.

constexpr int kSlots = 32;
char g_paths[kSlots][PATH_MAX];
std::atomic<int> g_state[kSlots];  // 0 free, 1 taken (path being copied), 2 to remove on a signal
static_assert(std::atomic<int>::is_always_lock_free, "atomics used in a signal handler");

extern "C" void remove_temporaries(int sig) {
  for (int i = 0; i < kSlots; ++i) {
    if (g_state[i].load() == 2) ::unlink(g_paths[i]);
  }
  ::signal(sig, SIG_DFL);  // then the signal takes its course: the process ends as it would have
  ::raise(sig);
}

// Installs the handler for the signals whose action is still the default, once: a program (or
// library user) with handlers of its own keeps them.
void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0) continue;
      if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
      struct sigaction action {};
      action.sa_handler = remove_temporaries;
      sigemptyset(&action.sa_mask);
      ::sigaction(sig, &action, nullptr);
    }
  });
}

// The temporary file for `path`: NAME.tmp-PID (or NAME.partial) in the same folder, NAME
// shortened so that the name fits the file system's limit (a valid 253-character NAME must still
// be writable).
std::string temporary_for(const std::string& path, Unfinished unfinished) {
  const std::filesystem::path p(path);
  const std::string suffix = unfinished == Unfinished::keep_partial
                                 ? std::string(".partial")
                                 : ".tmp-" + std::to_string(::getpid());
  std::string name = p.filename().string();
  if (name.size() + suffix.size() > NAME_MAX) name.resize(NAME_MAX - suffix.size());
  return (p.parent_path() / (name + suffix)).string();
}

}  // namespace

// What an existing `path` is, when it is not a regular file: "a folder", "a symbolic link", ...;
// "" for a regular file or no file.
std::string not_regular(const std::string& path, bool follow_links) {
  struct stat st {};
  if ((follow_links ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0) return "";
  if (S_ISREG(st.st_mode)) return "";
  if (S_ISDIR(st.st_mode)) return "a folder";
  if (S_ISLNK(st.st_mode)) return "a symbolic link";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "a device";
  return "not a regular file";
}

TemporaryFile::TemporaryFile(const std::string& final_path, Unfinished unfinished)
    : final_(final_path), path_(temporary_for(final_path, unfinished)) {
  if (unfinished == Unfinished::keep_partial) {
    kept_ = true;  // nothing to remove, on a failure or a signal
    return;
  }
  install_handlers();
  if (path_.size() >= PATH_MAX) return;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_state[i].compare_exchange_strong(expected, 1)) {
      std::memcpy(g_paths[i], path_.c_str(), path_.size() + 1);
      g_state[i].store(2);
      slot_ = i;
      return;
    }
  }
}

TemporaryFile::~TemporaryFile() {
  if (!kept_) std::remove(path_.c_str());
  if (slot_ >= 0) g_state[slot_].store(0);
}

void TemporaryFile::commit() {
  rename_to(final_);
}

void TemporaryFile::rename_to(const std::string& destination) {
  if (std::rename(path_.c_str(), destination.c_str()) != 0)
    throw IoError(cannot_write(destination, std::strerror(errno)));
  kept_ = true;
}

std::string cannot_write(const std::string& path, const std::string& why) {
  return "cannot write '" + path + "': " + why;
}

void check_writable(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  if (!fs::is_directory(folder, ec)) {
    throw IoError(cannot_write(path, "folder '" + folder.string() + "' does not exist"));
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    throw IoError(cannot_write(path, "folder '" + folder.string() + "' is not writable"));
  }
  const std::string what = not_regular(path, false);
  if (what == "a folder") throw IoError(cannot_write(path, "it is a folder"));
  if (!what.empty()) {
    throw IoError(cannot_write(path, "it is " + what + ", not a regular file: not replaced"));
  }
}

void write_atomically(const std::vector<std::string>& paths,
                      const std::function<void(const std::vector<std::string>& tmps)>& write) {
  std::vector<std::unique_ptr<TemporaryFile>> temporaries;
  std::vector<std::string> tmps;
  for (const std::string& path : paths) {
    const std::string what = not_regular(path, false);
    if (!what.empty() && what != "a folder") {
      throw IoError(cannot_write(path, "it is " + what + ", not a regular file: not replaced"));
    }
    temporaries.push_back(std::make_unique<TemporaryFile>(path));
    tmps.push_back(temporaries.back()->path());
    // Probe with stdio first: it reports the system's reason (missing folder, permission), which
    // the HDF5 error stack does not carry.
    if (std::FILE* f = std::fopen(tmps.back().c_str(), "wb")) {
      std::fclose(f);
    } else {
      throw IoError(cannot_write(path, std::strerror(errno)));
    }
  }
  write(tmps);
  for (const auto& t : temporaries) t->commit();
}

void write_atomically(const std::string& path,
                      const std::function<void(const std::string& tmp)>& write) {
  write_atomically(std::vector<std::string>{path},
                   [&](const std::vector<std::string>& tmps) { write(tmps[0]); });
}

}  // namespace mlfma2d
