# Configure, build and run a consumer project with find_package(mlfma2d) against one of the two
# packages the project gives, checking that it found that one: PACKAGE=installed installs the
# built project into a scratch prefix (CMAKE_PREFIX_PATH) and also runs the installed program;
# PACKAGE=build uses the build folder itself (-Dmlfma2d_DIR=<build>). Called by CTest with
# -D SOURCE, BINARY, WORK, PACKAGE.
file(REMOVE_RECURSE ${WORK})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()
if(PACKAGE STREQUAL "installed")
  step(${CMAKE_COMMAND} --install ${BINARY} --prefix ${WORK}/prefix)
  set(find -DCMAKE_PREFIX_PATH=${WORK}/prefix)
  set(expected_dir ${WORK}/prefix/lib/cmake/mlfma2d)
elseif(PACKAGE STREQUAL "build")
  set(find -Dmlfma2d_DIR=${BINARY})
  set(expected_dir ${BINARY})
else()
  message(FATAL_ERROR "PACKAGE must be installed or build, got '${PACKAGE}'")
endif()
step(${CMAKE_COMMAND} -S ${SOURCE}/tests/consumer -B ${WORK}/build ${find}
     -DCMAKE_BUILD_TYPE=Release)
string(FIND "${out}" "mlfma2d package: ${expected_dir}\n" at)
if(at LESS 0)
  message(FATAL_ERROR "the consumer did not find the package in ${expected_dir}")
endif()
step(${CMAKE_COMMAND} --build ${WORK}/build)
step(${WORK}/build/consumer)
if(EXISTS ${WORK}/build/consumer_mpi)  # a build with MPI: one process, MPI's singleton start
  step(${CMAKE_COMMAND} -E env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
       ${WORK}/build/consumer_mpi)
endif()
if(PACKAGE STREQUAL "build")
  return()
endif()
# The installed program runs (it finds the installed shared library through its RPATH) and takes
# the bundled data set from the installed data folder, not from the source tree.
execute_process(COMMAND ${WORK}/prefix/bin/mlfma2d --report json RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${err}" "using bundled data set ${WORK}/prefix/share/mlfma2d/data/" at)
if(NOT rc EQUAL 0 OR at LESS 0)
  message(FATAL_ERROR "installed mlfma2d: exit ${rc}, expected the installed data set\n${err}")
endif()
