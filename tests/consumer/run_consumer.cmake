# Install the built project into a scratch prefix, then configure, build and run a consumer
# project against it with find_package(mlfma2d). Called by CTest with -D SOURCE, BINARY, WORK.
file(REMOVE_RECURSE ${WORK})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${err}")
  endif()
endfunction()
step(${CMAKE_COMMAND} --install ${BINARY} --prefix ${WORK}/prefix)
set(extra "")
if(CUDA_COMPILER)
  set(extra -DCUDAToolkit_ROOT=/usr/local/cuda)
endif()
step(${CMAKE_COMMAND} -S ${SOURCE}/tests/consumer -B ${WORK}/build
     -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release ${extra})
step(${CMAKE_COMMAND} --build ${WORK}/build)
step(${WORK}/build/consumer)
