# Install the built project into a scratch prefix, then configure, build and run a consumer
# project against it with find_package(mlfma2d), and run the installed program. Called by CTest
# with -D SOURCE, BINARY, WORK.
file(REMOVE_RECURSE ${WORK})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${err}")
  endif()
endfunction()
step(${CMAKE_COMMAND} --install ${BINARY} --prefix ${WORK}/prefix)
step(${CMAKE_COMMAND} -S ${SOURCE}/tests/consumer -B ${WORK}/build
     -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release)
step(${CMAKE_COMMAND} --build ${WORK}/build)
step(${WORK}/build/consumer)
# The installed program runs (it finds the installed shared library through its RPATH) and takes
# the bundled data set from the installed data folder, not from the source tree.
execute_process(COMMAND ${WORK}/prefix/bin/mlfma2d --report json RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${err}" "using bundled data set ${WORK}/prefix/share/mlfma2d/data/" at)
if(NOT rc EQUAL 0 OR at LESS 0)
  message(FATAL_ERROR "installed mlfma2d: exit ${rc}, expected the installed data set\n${err}")
endif()
