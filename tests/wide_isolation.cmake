# The 512-bit unit of the wide kernels (kernel/wide_avx512.cpp, compiled for x86-64-v4) must
# define no symbol other units could share: a linker keeps one copy of an inline or template
# function, and a copy compiled for AVX-512 would then run on CPUs without it (docs/math.md
# section 3.12). Its one external symbol is wide_kernels_512().
#   cmake -DOBJECTS="<the kernel module's objects>" -DNM=nm -P wide_isolation.cmake
set(_unit "")
foreach(_o IN LISTS OBJECTS)
  if(_o MATCHES "wide_avx512")
    set(_unit ${_o})
  endif()
endforeach()
if(NOT _unit)
  message(STATUS "this build has no 512-bit unit (the compiler lacks x86-64-v4): nothing to check")
  return()
endif()
execute_process(COMMAND ${NM} -C --defined-only --extern-only ${_unit}
                OUTPUT_VARIABLE _symbols RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${_unit}")
endif()
string(REGEX REPLACE "\n$" "" _symbols "${_symbols}")
string(REPLACE "\n" ";" _lines "${_symbols}")
foreach(_line ${_lines})
  if(NOT _line MATCHES " T mlfma2d::wide_kernels_512\\(\\)$")
    message(FATAL_ERROR "the 512-bit unit defines a symbol other units could share: ${_line}")
  endif()
endforeach()
list(LENGTH _lines _n)
message(STATUS "the 512-bit unit defines ${_n} external symbol(s): wide_kernels_512()")
