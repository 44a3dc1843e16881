// mlfma2d command-line program: parses, runs, and maps every failure to one error line and an
// exit code (documented in --help): 2 usage, 3 input/output, 4 runtime, 5 a failed check, 1
// internal.
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include <boost/program_options/errors.hpp>

#include "app/cli.hpp"
#include "mlfma2d/errors.hpp"
#include "mlfma2d/mlfma2d.hpp"

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
  using namespace mlfma2d::app;
  // A command may have started the device (mlfma2d::start_device) and failed before a Solver
  // waited for it: the program ends only once the start's thread has left the CUDA driver.
  struct DeviceWait {
    ~DeviceWait() { mlfma2d::wait_for_device(); }
  } device_wait;
  try {
    const ParsedCommand command = parse_command_line(argc, argv);
    return command.run(std::cout, std::cerr);
  } catch (const CheckFailure& e) {
    return fail(kCheckFailed, e.what());
  } catch (const mlfma2d::InvalidInput& e) {
    return fail(kUsage, e.what());
  } catch (const mlfma2d::BackendUnavailable& e) {
    return fail(kUsage, e.what());
  } catch (const boost::program_options::error& e) {
    return fail(kUsage, e.what());
  } catch (const mlfma2d::IoError& e) {
    return fail(kInputOutput, e.what());
  } catch (const mlfma2d::RuntimeFailure& e) {  // CudaError included
    return fail(kRuntime, e.what());
  } catch (const std::bad_alloc&) {
    return fail(kRuntime, "out of memory");
  } catch (const std::exception& e) {
    return fail(kInternal, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(kInternal, "internal error: unknown exception");
  }
}
