#pragma once
// Shared by the file fuzz targets: each input is written to one temporary file per process (the
// readers take a path), and any mlfma2d::Error is an accepted outcome. Anything else -- a crash,
// another exception type, a sanitizer report, a hang -- is a finding (libFuzzer stops on it).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace mlfma2d::fuzz {

// $TMPDIR/mlfma2d-fuzz-<pid><suffix>, removed when the process exits normally.
inline const std::string& temp_path(const char* suffix) {
  static const std::string path = [&] {
    const char* dir = std::getenv("TMPDIR");
    std::string p = std::string(dir && *dir ? dir : "/tmp") + "/mlfma2d-fuzz-" +
                    std::to_string(::getpid()) + suffix;
    return p;
  }();
  static const bool registered = [] {
    std::atexit([] { std::remove(path.c_str()); });
    return true;
  }();
  (void)registered;
  return path;
}

// Writes the input bytes to the temporary file; aborts if that fails (not a finding in the
// code under test, but the run would be meaningless).
inline const std::string& write_input(const std::uint8_t* data, std::size_t size,
                                      const char* suffix) {
  const std::string& path = temp_path(suffix);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
  return path;
}

}  // namespace mlfma2d::fuzz
