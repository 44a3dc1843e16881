// mlfma2d command-line program: parses, runs, and maps every failure to one error line and an
// exit code (documented in --help): 2 usage, 3 input/output, 4 runtime, 5 a failed check, 1
// internal. Under mpirun every rank runs it (app/ranks.hpp): rank 0 prints, every rank ends with
// the same code.
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include <boost/program_options/errors.hpp>

#include "app/cli.hpp"
#include "app/ranks.hpp"
#include "mlfma2d/errors.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace {

using namespace mlfma2d::app;

void print_error(const std::string& message) {
  std::cout.flush();
  // One line, even if a library message carries a newline.
  std::string line = message;
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::cerr << "mlfma2d: error: " << line << std::endl;
}

// The exit code and message of a failure.
int outcome(std::exception_ptr e, std::string* message) {
  try {
    std::rethrow_exception(e);
  } catch (const CheckFailure& x) {
    *message = x.what();
    return kCheckFailed;
  } catch (const mlfma2d::InvalidInput& x) {
    *message = x.what();
    return kUsage;
  } catch (const mlfma2d::BackendUnavailable& x) {
    *message = x.what();
    return kUsage;
  } catch (const boost::program_options::error& x) {
    *message = x.what();
    return kUsage;
  } catch (const mlfma2d::IoError& x) {
    *message = x.what();
    return kInputOutput;
  } catch (const mlfma2d::RuntimeFailure& x) {  // CudaError included
    *message = x.what();
    return kRuntime;
  } catch (const std::bad_alloc&) {
    *message = "out of memory";
    return kRuntime;
  } catch (const std::exception& x) {
    *message = std::string("internal error: ") + x.what();
    return kInternal;
  } catch (...) {
    *message = "internal error: unknown exception";
    return kInternal;
  }
}

// Under mpirun only the commands that work over the ranks run.
void check_runs_over_ranks(const ParsedCommand& command) {
  const std::string& name = command.name;
  if (!program_ranks().many() || name == "evaluate" || name == "solve" || name == "help" ||
      name == "version") {
    return;
  }
  throw mlfma2d::InvalidInput("mlfma2d " + name + " runs as one process, not under mpirun with " +
                              std::to_string(program_ranks().size) +
                              " processes (evaluate and solve run over the ranks)");
}

}  // namespace

int main(int argc, char** argv) {
  // A command may have started the device (mlfma2d::start_device) and failed before a Solver
  // waited for it: the program ends only once the start's thread has left the CUDA driver.
  struct DeviceWait {
    ~DeviceWait() { mlfma2d::wait_for_device(); }
  } device_wait;
  int code = 0;
  std::string message;
  try {
    start_ranks(&argc, &argv);
    const ParsedCommand command = parse_command_line(argc, argv);
    check_runs_over_ranks(command);
    const bool first = program_ranks().rank == 0;
    code = command.run(first ? std::cout : null_stream(), first ? std::cerr : null_stream());
  } catch (...) {
    code = outcome(std::current_exception(), &message);
  }
  return finish_ranks(code, message, print_error);
}
