# The library's rooms (docs/architecture.md), one target each, so that the build keeps the
# layering: a module's sources see only the headers of the modules it USES (and what those expose),
# never the project root. Each module NAME gets
#   mlfma2d_NAME_headers  INTERFACE: the include folder <build>/layers/NAME, which holds one link,
#                         NAME -> <source>/NAME, so `#include "NAME/x.hpp"` resolves for those that
#                         link it and for no one else; it passes on the headers of the modules
#                         NAME uses PUBLIC (its own headers include theirs);
#   mlfma2d_NAME          OBJECT (when it has sources): compiled with its own headers, its USES,
#                         its PRIVATE_USES and mlfma2d_build_settings; the objects go into the one
#                         library mlfma2d (the global property MLFMA2D_LIBRARY_MODULES lists them);
#                         with TOOLS, a static library of that name instead, outside mlfma2d.
# The table of who uses whom is the calls of mlfma2d_module() in the top-level CMakeLists.txt;
# tests/layering checks it by compiling forbidden includes (they must fail) and allowed ones.
function(mlfma2d_module name)
  cmake_parse_arguments(M "TOOLS" "" "SOURCES;USES;PRIVATE_USES" ${ARGN})
  set(_layer ${PROJECT_BINARY_DIR}/layers/${name})
  file(MAKE_DIRECTORY ${_layer})
  file(REMOVE ${_layer}/${name})  # a link left by a source folder elsewhere
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${name} ${_layer}/${name} SYMBOLIC)
  add_library(mlfma2d_${name}_headers INTERFACE)
  target_include_directories(mlfma2d_${name}_headers INTERFACE $<BUILD_INTERFACE:${_layer}>)
  foreach(_used ${M_USES})
    target_link_libraries(mlfma2d_${name}_headers INTERFACE mlfma2d_${_used}_headers)
  endforeach()
  set_property(GLOBAL PROPERTY MLFMA2D_USES_${name} ${M_USES})
  set_property(GLOBAL PROPERTY MLFMA2D_PRIVATE_USES_${name} ${M_PRIVATE_USES})
  if(M_SOURCES)
    if(M_TOOLS)
      add_library(mlfma2d_${name} STATIC ${M_SOURCES})
    else()
      add_library(mlfma2d_${name} OBJECT ${M_SOURCES})
    endif()
    target_link_libraries(mlfma2d_${name} PRIVATE mlfma2d_${name}_headers mlfma2d_build_settings)
    foreach(_used ${M_PRIVATE_USES})
      target_link_libraries(mlfma2d_${name} PRIVATE mlfma2d_${_used}_headers)
    endforeach()
    if(NOT M_TOOLS)
      set_property(GLOBAL APPEND PROPERTY MLFMA2D_LIBRARY_MODULES ${name})
    endif()
  endif()
endfunction()
