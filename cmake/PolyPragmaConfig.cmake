# PolyPragma CMake package.
#
#   find_package(PolyPragma CONFIG REQUIRED)
#   polypragma_target_sources(<target> [TARGET cuda|opencl|c] [OPTIONS <polypragma options>...]
#                             SOURCES <file.c>...)
#
# PolyPragma_DIR is the directory printed by `polypragma --cmake-dir` (scikit-build-core finds it by
# itself through polypragma's `cmake.root` entry point).
#
# polypragma_target_sources replaces each listed C source of <target> by the files polypragma generates
# from it, under ${CMAKE_CURRENT_BINARY_DIR}/polypragma/ mirroring the source's path, through one custom
# command per source.  That command depends on the source, on every header the source includes (polypragma
# writes them to a depfile, read through DEPFILE) and on polypragma itself, so Ninja and Make regenerate
# exactly what changed.  The target's include directories and compile definitions are passed to
# polypragma, so it sees the code as the compiler does.  For the cuda target the .cu file is added to the
# target and the CUDA runtime linked (CUDA::cudart_static, or CUDA::cudart when CMAKE_CUDA_RUNTIME_LIBRARY
# is Shared); for opencl, OpenCL::OpenCL; with `OPTIONS --openmp`, OpenMP::OpenMP_C.
#
# The generated files are also left in POLYPRAGMA_GENERATED_SOURCES for the caller.
#
# Variables read (all optional):
#   POLYPRAGMA_TARGET      the default TARGET; otherwise cuda when a CUDA compiler is found, else opencl
#                          when OpenCL is found, else c.  A message says which.
#   POLYPRAGMA_EXECUTABLE  the polypragma command; otherwise it is looked up next to this package (in a
#                          checkout: its .venv/bin), on the PATH, and then run as
#                          `${Python_EXECUTABLE} -m polypragma`.
#   CMAKE_CUDA_ARCHITECTURES  when neither it nor the CUDAARCHS environment variable is set before the CUDA
#                          language is enabled here, it is set to sm_80 and sm_90 with PTX of sm_90, the
#                          architectures polypragma's setuptools hook builds for (instead of the one
#                          CMake guesses from the compiler).

if(CMAKE_VERSION VERSION_LESS 3.20)
  set(PolyPragma_FOUND FALSE)
  set(PolyPragma_NOT_FOUND_MESSAGE "PolyPragma needs CMake 3.20 or newer (DEPFILE with every generator)")
  return()
endif()
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.31)

# The polypragma package this file belongs to (installed: <site-packages>/polypragma/cmake; in a checkout
# cmake/ next to polypragma/), whose sources count as "polypragma itself" for the dependencies.
get_filename_component(_polypragma_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
if(EXISTS "${_polypragma_root}/polypragma/__init__.py")
  set(_polypragma_root "${_polypragma_root}/polypragma")
endif()
set(_polypragma_hints
    "${_polypragma_root}/../../../../bin"  # installed: <venv>/lib/pythonX.Y/site-packages/polypragma
    "${_polypragma_root}/../.venv/bin")    # a checkout: the environment scripts/setup-env makes

# --- the command -----------------------------------------------------------------------------------------
set(POLYPRAGMA_COMMAND "")
if(POLYPRAGMA_EXECUTABLE)
  set(POLYPRAGMA_COMMAND "${POLYPRAGMA_EXECUTABLE}")
else()
  foreach(_python IN ITEMS "${Python_EXECUTABLE}" "${Python3_EXECUTABLE}")
    if(_python)
      get_filename_component(_python_dir "${_python}" DIRECTORY)
      list(APPEND _polypragma_hints "${_python_dir}")
    endif()
  endforeach()
  find_program(POLYPRAGMA_EXECUTABLE polypragma HINTS ${_polypragma_hints} DOC "The polypragma command")
  if(POLYPRAGMA_EXECUTABLE)
    set(POLYPRAGMA_COMMAND "${POLYPRAGMA_EXECUTABLE}")
  else()
    foreach(_python IN ITEMS "${Python_EXECUTABLE}" "${Python3_EXECUTABLE}")
      if(_python AND NOT POLYPRAGMA_COMMAND)
        execute_process(COMMAND "${_python}" -P -m polypragma --version RESULT_VARIABLE _status
                        OUTPUT_QUIET ERROR_QUIET)
        if(_status EQUAL 0)
          set(POLYPRAGMA_COMMAND "${_python}" -P -m polypragma)  # -P: not the polypragma/ of the build directory
        endif()
      endif()
    endforeach()
  endif()
endif()
if(NOT POLYPRAGMA_COMMAND)
  set(PolyPragma_FOUND FALSE)
  set(PolyPragma_NOT_FOUND_MESSAGE
      "the polypragma command was not found; install polypragma (pip install polypragma) or set POLYPRAGMA_EXECUTABLE")
  cmake_policy(POP)
  return()
endif()
file(GLOB_RECURSE _polypragma_sources "${_polypragma_root}/*.py")
set(POLYPRAGMA_DEPENDS ${_polypragma_sources})
if(POLYPRAGMA_EXECUTABLE)
  list(APPEND POLYPRAGMA_DEPENDS "${POLYPRAGMA_EXECUTABLE}")
endif()

# --- the default target ----------------------------------------------------------------------------------
set(POLYPRAGMA_TARGET "" CACHE STRING "What polypragma_target_sources generates by default: cuda, opencl or c (empty: the best found)")
set_property(CACHE POLYPRAGMA_TARGET PROPERTY STRINGS "" cuda opencl c)
if(POLYPRAGMA_TARGET)
  set(_polypragma_default "${POLYPRAGMA_TARGET}")
  set(_polypragma_why "POLYPRAGMA_TARGET")
else()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(_polypragma_default cuda)
    set(_polypragma_why "CUDA compiler ${CMAKE_CUDA_COMPILER}")
  else()
    find_package(OpenCL QUIET)
    if(OpenCL_FOUND)
      set(_polypragma_default opencl)
      set(_polypragma_why "no CUDA compiler; OpenCL ${OpenCL_LIBRARY}")
    else()
      set(_polypragma_default c)
      set(_polypragma_why "no CUDA compiler and no OpenCL")
    endif()
  endif()
endif()
if(NOT _polypragma_default MATCHES "^(cuda|opencl|c)$")
  set(PolyPragma_FOUND FALSE)
  set(PolyPragma_NOT_FOUND_MESSAGE "POLYPRAGMA_TARGET is '${_polypragma_default}'; expected cuda, opencl or c")
  cmake_policy(POP)
  return()
endif()
set(POLYPRAGMA_DEFAULT_TARGET "${_polypragma_default}")
if(NOT PolyPragma_FIND_QUIETLY)
  message(STATUS "PolyPragma: generating for ${_polypragma_default} by default (${_polypragma_why})")
endif()
if(_polypragma_default STREQUAL "cuda")
  # enable_language works only at directory scope, so the language the default needs is enabled here
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
    # current GPUs, as the setuptools hook builds: CMake's own default is the compiler's oldest one
    set(CMAKE_CUDA_ARCHITECTURES "80-real;90" CACHE STRING
        "CUDA architectures (PolyPragma's default: sm_80, and sm_90 with its PTX for later GPUs)")
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
elseif(_polypragma_default STREQUAL "opencl")
  find_package(OpenCL REQUIRED)
endif()

function(_polypragma_output_dir source result)
  # the generated files' directory, mirroring the source's path under the binary directory
  file(RELATIVE_PATH relative "${CMAKE_CURRENT_SOURCE_DIR}" "${source}")
  get_filename_component(relative_dir "${relative}" DIRECTORY)
  if(relative MATCHES "^\\.\\./" OR IS_ABSOLUTE "${relative}")
    # outside the source directory: one directory per source directory
    get_filename_component(source_dir "${source}" DIRECTORY)
    string(MD5 digest "${source_dir}")
    string(SUBSTRING "${digest}" 0 12 digest)
    set(relative_dir "external/${digest}")
  endif()
  set(${result} "${CMAKE_CURRENT_BINARY_DIR}/polypragma/${relative_dir}" PARENT_SCOPE)
endfunction()

function(polypragma_target_sources target)
  cmake_parse_arguments(PARSE_ARGV 1 PP "" "TARGET" "OPTIONS;SOURCES")
  if(PP_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "polypragma_target_sources(${target}): unexpected arguments ${PP_UNPARSED_ARGUMENTS} "
                        "(expected [TARGET cuda|opencl|c] [OPTIONS ...] SOURCES ...)")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "polypragma_target_sources: '${target}' is not a target")
  endif()
  if(NOT PP_SOURCES)
    message(FATAL_ERROR "polypragma_target_sources(${target}): no SOURCES given")
  endif()
  if(NOT PP_TARGET)
    set(PP_TARGET "${POLYPRAGMA_DEFAULT_TARGET}")
  endif()
  if(NOT PP_TARGET MATCHES "^(cuda|opencl|c)$")
    message(FATAL_ERROR "polypragma_target_sources(${target}): TARGET is '${PP_TARGET}'; expected cuda, opencl or c")
  endif()
  if(PP_TARGET STREQUAL "cuda")
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(NOT "CUDA" IN_LIST languages OR NOT TARGET CUDA::cudart)
      message(FATAL_ERROR "polypragma_target_sources(${target}): TARGET cuda needs the CUDA language: call "
                          "enable_language(CUDA) and find_package(CUDAToolkit) first, or set POLYPRAGMA_TARGET=cuda")
    endif()
  elseif(PP_TARGET STREQUAL "opencl" AND NOT TARGET OpenCL::OpenCL)
    find_package(OpenCL REQUIRED)
  endif()

  get_target_property(target_sources ${target} SOURCES)
  set(includes "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(defines "$<FILTER:$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>,EXCLUDE,^$>")
  set(generated "")
  foreach(source IN LISTS PP_SOURCES)
    get_filename_component(absolute "${source}" ABSOLUTE)
    get_filename_component(stem "${source}" NAME_WE)
    _polypragma_output_dir("${absolute}" outdir)
    set(outputs "${outdir}/${stem}.polypragma.c")
    if(PP_TARGET STREQUAL "cuda")
      list(APPEND outputs "${outdir}/${stem}.polypragma.cu")
    endif()
    set(depfile "${outdir}/${stem}.polypragma.d")
    # what the command line says, in a file rewritten only when it changes: generators that do not track
    # command lines (Makefiles) then regenerate when an option, include directory or definition changes
    set(stamp "${outdir}/${stem}.polypragma$<$<BOOL:$<CONFIG>>:-$<CONFIG>>.options")
    file(GENERATE OUTPUT "${stamp}"
         CONTENT "${PP_TARGET}\n$<JOIN:${includes},\n>\n$<JOIN:${defines},\n>\n$<JOIN:${PP_OPTIONS},\n>\n")
    file(RELATIVE_PATH shown "${PROJECT_SOURCE_DIR}" "${absolute}")
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND ${POLYPRAGMA_COMMAND} "${absolute}" -o "${outdir}" --target ${PP_TARGET} -MF "${depfile}"
              "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>"
              "$<$<BOOL:${defines}>:-D$<JOIN:${defines},;-D>>"
              ${PP_OPTIONS}
      MAIN_DEPENDENCY "${absolute}"
      DEPENDS ${POLYPRAGMA_DEPENDS} "${stamp}"
      DEPFILE "${depfile}"
      COMMENT "polypragma ${shown} (${PP_TARGET})"
      COMMAND_EXPAND_LISTS VERBATIM)
    # the generated files live elsewhere: #include "..." must still find the headers next to the source
    get_filename_component(source_dir "${absolute}" DIRECTORY)
    set_property(SOURCE ${outputs} APPEND PROPERTY INCLUDE_DIRECTORIES "${source_dir}")
    list(REMOVE_ITEM target_sources "${source}" "${absolute}")
    list(APPEND target_sources ${outputs})
    list(APPEND generated ${outputs})
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${target_sources})

  if(PP_TARGET STREQUAL "cuda")
    # the CUDA runtime as the user asks for it (CUDA_RUNTIME_LIBRARY, CMAKE_CUDA_RUNTIME_LIBRARY); static
    # by default, as CMake links it, so that installed libraries and Python modules need no library path
    get_target_property(runtime ${target} CUDA_RUNTIME_LIBRARY)
    if(NOT runtime)
      set(runtime "${CMAKE_CUDA_RUNTIME_LIBRARY}")
    endif()
    string(TOLOWER "${runtime}" runtime)
    if(runtime STREQUAL "shared")
      target_link_libraries(${target} PRIVATE CUDA::cudart)
    elseif(NOT runtime STREQUAL "none")
      target_link_libraries(${target} PRIVATE CUDA::cudart_static)
    endif()
  elseif(PP_TARGET STREQUAL "opencl")
    target_link_libraries(${target} PRIVATE OpenCL::OpenCL)
  endif()
  if("--openmp" IN_LIST PP_OPTIONS)
    find_package(OpenMP REQUIRED COMPONENTS C)
    target_link_libraries(${target} PRIVATE OpenMP::OpenMP_C)
  endif()
  set(POLYPRAGMA_GENERATED_SOURCES ${generated} PARENT_SCOPE)
endfunction()

set(PolyPragma_FOUND TRUE)
cmake_policy(POP)
