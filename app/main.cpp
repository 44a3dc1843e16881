// mlfma2d command-line program: parses, runs, and maps every failure to one error line and an
// exit code (documented in --help): 2 usage, 3 input/output, 4 runtime, 1 internal.
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include <boost/program_options/errors.hpp>

#include "app/cli.hpp"
#include "mlfma2d/errors.hpp"

namespace {

int fail(int code, const std::string& message) {
  std::cout.flush();
  // One line, even if a library message carries a newline.
  std::string line = message;
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::cerr << "mlfma2d: error: " << line << std::endl;
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const mlfma2d::app::ParsedCommand command = mlfma2d::app::parse_command_line(argc, argv);
    return mlfma2d::app::run_command(command, std::cout, std::cerr);
  } catch (const mlfma2d::InvalidInput& e) {
    return fail(2, e.what());
  } catch (const mlfma2d::BackendUnavailable& e) {
    return fail(2, e.what());
  } catch (const boost::program_options::error& e) {
    return fail(2, e.what());
  } catch (const mlfma2d::IoError& e) {
    return fail(3, e.what());
  } catch (const mlfma2d::RuntimeFailure& e) {  // CudaError included
    return fail(4, e.what());
  } catch (const std::bad_alloc&) {
    return fail(4, "out of memory");
  } catch (const std::exception& e) {
    return fail(1, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(1, "internal error: unknown exception");
  }
}
