# PolyPragma CMake package: find_package(PolyPragma CONFIG) with
# PolyPragma_DIR (or CMAKE_PREFIX_PATH) set to the directory printed by
# `polypragma --cmake-dir`.
#
#   polypragma_target_sources(<target> [OPTIONS <polypragma options>...] SOURCES <file.c>...)
#
# Replaces each listed C source of <target> by the file polypragma generates
# from it (under the binary directory, mirroring the source path), through one
# custom command per source that depends on the source and on polypragma
# itself. The target's include directories and compile definitions are
# passed to polypragma, so it sees the code as the compiler does.

cmake_minimum_required(VERSION 3.20)

if(NOT POLYPRAGMA_EXECUTABLE)
  find_program(POLYPRAGMA_EXECUTABLE polypragma
               HINTS "${CMAKE_CURRENT_LIST_DIR}/../../../../../bin" "${CMAKE_CURRENT_LIST_DIR}/../.venv/bin"
               DOC "The polypragma command")
endif()
if(NOT POLYPRAGMA_EXECUTABLE)
  set(PolyPragma_FOUND FALSE)
  set(PolyPragma_NOT_FOUND_MESSAGE "the polypragma command was not found; set POLYPRAGMA_EXECUTABLE")
  return()
endif()
set(PolyPragma_FOUND TRUE)

function(polypragma_target_sources target)
  cmake_parse_arguments(PARSE_ARGV 1 PP "" "" "OPTIONS;SOURCES")
  if(NOT PP_SOURCES)
    message(FATAL_ERROR "polypragma_target_sources(${target}): no SOURCES given")
  endif()
  get_target_property(target_sources ${target} SOURCES)
  set(includes "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(defines "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  foreach(source IN LISTS PP_SOURCES)
    get_filename_component(absolute "${source}" ABSOLUTE)
    file(RELATIVE_PATH relative "${CMAKE_CURRENT_SOURCE_DIR}" "${absolute}")
    get_filename_component(relative_dir "${relative}" DIRECTORY)
    get_filename_component(stem "${source}" NAME_WE)
    set(outdir "${CMAKE_CURRENT_BINARY_DIR}/polypragma/${relative_dir}")
    set(output "${outdir}/${stem}.polypragma.c")
    add_custom_command(
      OUTPUT "${output}"
      COMMAND "${POLYPRAGMA_EXECUTABLE}" "${absolute}" -o "${outdir}" --target c
              "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>"
              "$<$<BOOL:${defines}>:-D$<JOIN:${defines},;-D>>"
              ${PP_OPTIONS}
      MAIN_DEPENDENCY "${absolute}"
      DEPENDS "${POLYPRAGMA_EXECUTABLE}"
      COMMENT "polypragma ${relative}"
      COMMAND_EXPAND_LISTS VERBATIM)
    list(REMOVE_ITEM target_sources "${source}" "${absolute}")
    list(APPEND target_sources "${output}")
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${target_sources})
endfunction()
