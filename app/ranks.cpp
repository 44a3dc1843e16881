// What the program under mpirun needs in every build: the launcher's process count, the ranks
// found, and a stream for the ranks that print nothing (app/ranks.hpp).
#include <cstdlib>
#include <ostream>
#include <streambuf>

#include "app/ranks.hpp"

namespace mlfma2d::app {

namespace {

// Drops everything, and never fails (a report written to it must not look unwritten).
class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

}  // namespace

Ranks& ranks_found() {
  static Ranks ranks;
  return ranks;
}

const Ranks& program_ranks() {
  return ranks_found();
}

int launched_processes() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* v = std::getenv(name);
    if (!v || !*v) continue;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (end && *end == '\0' && n >= 1) return int(n);
  }
  return 1;
}

std::ostream& null_stream() {
  static NullBuffer buffer;
  static std::ostream stream(&buffer);
  return stream;
}

}  // namespace mlfma2d::app
