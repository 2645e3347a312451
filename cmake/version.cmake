# The git sha is read at build time (not configure time) so `perfhound --version` never reports a stale
# commit after a rebuild. The generated file is rewritten only when its content changes, so an unchanged
# tree does not relink.
set(PERFHOUND_VERSION_CPP ${CMAKE_BINARY_DIR}/generated/version_info.cpp)
add_custom_target(perfhound_version_info
  COMMAND ${CMAKE_COMMAND}
    -DSOURCE_DIR=${CMAKE_SOURCE_DIR}
    -DOUTPUT=${PERFHOUND_VERSION_CPP}
    -DVERSION=${PROJECT_VERSION}
    -DBUILD_TYPE=$<IF:$<CONFIG:>,${CMAKE_BUILD_TYPE},$<CONFIG>>
    -DCOMPILER=${CMAKE_CXX_COMPILER_ID}-${CMAKE_CXX_COMPILER_VERSION}
    -P ${CMAKE_SOURCE_DIR}/cmake/write_version.cmake
  BYPRODUCTS ${PERFHOUND_VERSION_CPP}
  COMMENT "Reading git sha for perfhound --version")
