# The layering as the build keeps it (tests/layering/check.cmake): each room's include folders, as
# its compiler sees them, and the modules it may include by the table of cmake/modules.cmake
# (its own, what it USES, transitively). Included from tests/CMakeLists.txt.
set(_modules runtime kernel tree farfield nearfield solver io electrostatics tuning app)
if(TARGET mlfma2d_distributed)  # the MPI build's room
  list(APPEND _modules distributed)
endif()
set(LAYERING_HEADER_runtime runtime/timer.hpp)
set(LAYERING_HEADER_kernel kernel/pair.hpp)
set(LAYERING_HEADER_tree tree/tree.hpp)
set(LAYERING_HEADER_farfield farfield/expansions.hpp)
set(LAYERING_HEADER_nearfield nearfield/backend.hpp)
set(LAYERING_HEADER_solver solver/points.hpp)
set(LAYERING_HEADER_io io/io_internal.hpp)
set(LAYERING_HEADER_electrostatics electrostatics/geometry.hpp)
set(LAYERING_HEADER_tuning tuning/tuning.hpp)
set(LAYERING_HEADER_app app/cli.hpp)
set(LAYERING_HEADER_distributed distributed/comm.hpp)

# The modules a room may include: `module` itself and, transitively, what it uses (its private
# uses too when `own` is TRUE: the room is that module's own sources).
function(_layering_closure module own out)
  set(_seen ${module})
  set(_todo ${module})
  while(_todo)
    list(POP_FRONT _todo _m)
    get_property(_uses GLOBAL PROPERTY MLFMA2D_USES_${_m})
    get_property(_private GLOBAL PROPERTY MLFMA2D_PRIVATE_USES_${_m})
    if(_m STREQUAL module AND own)
      list(APPEND _uses ${_private})
    endif()
    foreach(_u ${_uses})
      if(NOT _u IN_LIST _seen)
        list(APPEND _seen ${_u})
        list(APPEND _todo ${_u})
      endif()
    endforeach()
  endwhile()
  set(${out} ${_seen} PARENT_SCOPE)
endfunction()

set(_content "set(LAYERING_MODULES ${_modules})\n")
foreach(_m ${_modules})
  string(APPEND _content "set(LAYERING_HEADER_${_m} ${LAYERING_HEADER_${_m}})\n")
endforeach()
set(_rooms "")
# room = a target whose sources are compiled with that room's include path
foreach(_pair runtime:mlfma2d_runtime tree:mlfma2d_tree farfield:mlfma2d_farfield
              nearfield:mlfma2d_nearfield solver:mlfma2d_solver io:mlfma2d_io
              electrostatics:mlfma2d_electrostatics tuning:mlfma2d_tuning app:mlfma2d_app
              distributed:mlfma2d_distributed
              bench:mlfma2d_bench python:mlfma2d_python)
  string(REPLACE ":" ";" _pair ${_pair})
  list(GET _pair 0 _room)
  list(GET _pair 1 _target)
  if(NOT TARGET ${_target})
    continue()
  endif()
  list(APPEND _rooms ${_room})
  if(_room STREQUAL "bench")
    _layering_closure(tuning FALSE _allowed)  # the benchmarks link the tools, nothing else
  elseif(_room STREQUAL "python")
    set(_allowed "")  # the public headers only
  else()
    _layering_closure(${_room} TRUE _allowed)
  endif()
  string(APPEND _content "set(LAYERING_${_room}_ALLOWED ${_allowed})\n"
    "set(LAYERING_${_room}_INCLUDES \"$<TARGET_PROPERTY:${_target},INCLUDE_DIRECTORIES>\")\n")
endforeach()
string(APPEND _content "set(LAYERING_ROOMS ${_rooms})\n")
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/tests/layering/rooms.cmake CONTENT "${_content}")
add_test(NAME layering_enforced_by_the_build
  COMMAND ${CMAKE_COMMAND} -DROOMS=${PROJECT_BINARY_DIR}/tests/layering/rooms.cmake
          -DCXX=${CMAKE_CXX_COMPILER} -DSOURCE=${PROJECT_SOURCE_DIR} -DWORK=${PROJECT_BINARY_DIR}/tests/layering/probes
          -P ${PROJECT_SOURCE_DIR}/tests/layering/check.cmake)
set_tests_properties(layering_enforced_by_the_build PROPERTIES LABELS cpu TIMEOUT 300)
