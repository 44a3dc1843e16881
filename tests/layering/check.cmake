# The layering, checked by the compiler (CTest layering_enforced_by_the_build): for every room of
# the build (a module, the program, the benchmarks, the Python module) and every module, one
# file that includes that module's header is preprocessed with the room's real include path.
# It must succeed where the layering table (the USES of cmake/modules.cmake) allows the include
# and fail with "No such file" where it does not. -DROOMS=<file written by tests/layering.cmake>
include(${ROOMS})
set(_work ${CMAKE_CURRENT_LIST_DIR})
if(DEFINED WORK)
  set(_work ${WORK})
endif()
file(MAKE_DIRECTORY ${_work})
set(_failures 0)
set(_checked 0)
foreach(_room ${LAYERING_ROOMS})
  set(_flags "")
  foreach(_dir ${LAYERING_${_room}_INCLUDES})
    list(APPEND _flags "-I${_dir}")
  endforeach()
  set(_line "")
  foreach(_module ${LAYERING_MODULES})
    set(_header ${LAYERING_HEADER_${_module}})
    set(_probe ${_work}/${_room}_includes_${_module}.cpp)
    file(WRITE ${_probe} "#include \"${_header}\"\n")
    execute_process(COMMAND ${CXX} -std=c++17 -fopenmp -E ${_flags} ${_probe} -o /dev/null
                    RESULT_VARIABLE _rc ERROR_VARIABLE _err OUTPUT_QUIET)
    list(FIND LAYERING_${_room}_ALLOWED ${_module} _at)
    math(EXPR _checked "${_checked} + 1")
    if(_at GREATER -1)
      if(_rc EQUAL 0)
        string(APPEND _line " +${_module}")
      else()
        string(APPEND _line " !${_module}")
        message(SEND_ERROR "${_room} may include ${_header}, but it does not compile:\n${_err}")
        math(EXPR _failures "${_failures} + 1")
      endif()
    else()
      string(FIND "${_err}" "${_header}: No such file" _missing)
      if(NOT _rc EQUAL 0 AND _missing GREATER -1)
        string(APPEND _line " -${_module}")
      else()
        string(APPEND _line " !${_module}")
        message(SEND_ERROR "${_room} may not include ${_header}, but the build lets it "
                           "(exit ${_rc}):\n${_err}")
        math(EXPR _failures "${_failures} + 1")
      endif()
    endif()
  endforeach()
  message(STATUS "${_room}:${_line}")
endforeach()
# A relative include ("../x/y.hpp") would step around the include path: none in the rooms.
file(GLOB_RECURSE _sources ${SOURCE}/runtime/* ${SOURCE}/kernel/* ${SOURCE}/tree/*
     ${SOURCE}/farfield/* ${SOURCE}/nearfield/* ${SOURCE}/solver/* ${SOURCE}/io/*
     ${SOURCE}/electrostatics/* ${SOURCE}/tuning/* ${SOURCE}/app/* ${SOURCE}/bench/*
     ${SOURCE}/distributed/*
     ${SOURCE}/python/src/*)
foreach(_file ${_sources})
  file(STRINGS ${_file} _relative REGEX "^[ \t]*#[ \t]*include[ \t]*\"\\.\\./")
  if(_relative)
    message(SEND_ERROR "${_file} includes by a relative path: ${_relative}")
    math(EXPR _failures "${_failures} + 1")
  endif()
endforeach()
message(STATUS "${_checked} includes checked (+ allowed and found, - refused by the build, "
               "! against the table): ${_failures} against the table")
if(_failures GREATER 0)
  message(FATAL_ERROR "the build does not keep the layering")
endif()
