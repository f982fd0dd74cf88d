# cuprim_find_nccl(): finds NCCL's header and library for the optional component cuprim::nccl.
# Used by src/nccl/CMakeLists.txt at build time and, installed next to cuprimConfig.cmake, by
# `find_package(cuprim COMPONENTS nccl)` in the projects that link the installed component.
#
#   cuprim_find_nccl([FIRST <include dir> <library dir>])
#
# Looks, in this order, and takes the first place that has both nccl.h and the library:
#   1. CUPRIM_NCCL_INCLUDE_DIR and CUPRIM_NCCL_LIBRARY, if both are set (-D...): used as given;
#   2. NCCL_ROOT (a CMake variable or an environment variable): <root>/include, <root>/lib*;
#      when set, nothing else is searched (the user asked for that NCCL);
#   3. the FIRST pair of directories (the installed package passes the NCCL it was built with);
#   4. the CUDA toolkit's folders (CUDAToolkit_INCLUDE_DIRS, CUDAToolkit_LIBRARY_DIR): NCCL is
#      there when it comes with the toolkit;
#   5. the system's default paths (/usr/include, /usr/lib/<arch>, CMAKE_PREFIX_PATH, ...);
#   6. the Python wheel nvidia-nccl-cu13 (or -cu12) of the python3 on PATH:
#      site-packages/nvidia/nccl/{include,lib}, whose library is libnccl.so.2 (no libnccl.so).
# An NCCL older than 2.14 (no non-blocking communicators, which src/nccl/nccl.cu handles) counts
# as not found.
#
# Sets CUPRIM_NCCL_FOUND (TRUE/FALSE), CUPRIM_NCCL_INCLUDE_DIR, CUPRIM_NCCL_LIBRARY,
# CUPRIM_NCCL_VERSION ("2.28.9"), CUPRIM_NCCL_WHERE (which of the places above, in words) and,
# when not found, CUPRIM_NCCL_WHY.
include_guard(GLOBAL)

# Reads NCCL_MAJOR/MINOR/PATCH from a nccl.h into <out> ("" if it has none).
function(_cuprim_nccl_version header out)
  set(v "")
  file(STRINGS "${header}" lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
  foreach(part MAJOR MINOR PATCH)
    string(REGEX MATCH "NCCL_${part} +([0-9]+)" m "${lines}")
    if(NOT m)
      set(${out} "" PARENT_SCOPE)
      return()
    endif()
    list(APPEND v "${CMAKE_MATCH_1}")
  endforeach()
  list(JOIN v "." v)
  set(${out} "${v}" PARENT_SCOPE)
endfunction()

# Tries one place: include directories `incs`, library directories `libs`. On success sets
# _cuprim_nccl_inc and _cuprim_nccl_lib in the caller's scope.
function(_cuprim_nccl_try incs libs)
  unset(_inc)
  unset(_lib)
  find_path(_inc nccl.h PATHS ${incs} NO_DEFAULT_PATH NO_CACHE)
  find_library(_lib NAMES nccl libnccl.so.2 PATHS ${libs} NO_DEFAULT_PATH NO_CACHE)
  if(_inc AND _lib)
    set(_cuprim_nccl_inc "${_inc}" PARENT_SCOPE)
    set(_cuprim_nccl_lib "${_lib}" PARENT_SCOPE)
  endif()
endfunction()

# <root>/include and <root>/lib, lib64, lib/<arch> of each root.
function(_cuprim_nccl_try_roots roots)
  set(incs "")
  set(libs "")
  foreach(r IN LISTS roots)
    list(APPEND incs "${r}/include")
    list(APPEND libs "${r}/lib" "${r}/lib64")
    if(CMAKE_LIBRARY_ARCHITECTURE)
      list(APPEND libs "${r}/lib/${CMAKE_LIBRARY_ARCHITECTURE}")
    endif()
  endforeach()
  _cuprim_nccl_try("${incs}" "${libs}")
  set(_cuprim_nccl_inc "${_cuprim_nccl_inc}" PARENT_SCOPE)
  set(_cuprim_nccl_lib "${_cuprim_nccl_lib}" PARENT_SCOPE)
endfunction()

function(cuprim_find_nccl)
  cmake_parse_arguments(F "" "" "FIRST" ${ARGN})
  set(_cuprim_nccl_inc "")
  set(_cuprim_nccl_lib "")
  set(where "")
  set(looked "")

  if(CUPRIM_NCCL_INCLUDE_DIR AND CUPRIM_NCCL_LIBRARY)
    set(_cuprim_nccl_inc "${CUPRIM_NCCL_INCLUDE_DIR}")
    set(_cuprim_nccl_lib "${CUPRIM_NCCL_LIBRARY}")
    set(where "CUPRIM_NCCL_INCLUDE_DIR and CUPRIM_NCCL_LIBRARY")
  else()
    set(root "${NCCL_ROOT}")
    if(NOT root AND DEFINED ENV{NCCL_ROOT})
      set(root "$ENV{NCCL_ROOT}")
    endif()
    if(root)
      _cuprim_nccl_try_roots("${root}")
      set(where "NCCL_ROOT=${root}")
      set(looked "NCCL_ROOT=${root} (nothing else is searched when it is set)")
    else()
      if(F_FIRST)
        list(GET F_FIRST 0 inc)
        list(GET F_FIRST -1 lib)
        _cuprim_nccl_try("${inc}" "${lib}")
        set(where "the NCCL cuprim was built with")
        list(APPEND looked "${inc} and ${lib} (cuprim's build)")
      endif()
      if(NOT _cuprim_nccl_lib AND (CUDAToolkit_INCLUDE_DIRS OR CUDAToolkit_LIBRARY_DIR))
        _cuprim_nccl_try("${CUDAToolkit_INCLUDE_DIRS}" "${CUDAToolkit_LIBRARY_DIR}")
        set(where "the CUDA toolkit")
        list(APPEND looked "the CUDA toolkit")
      endif()
      if(NOT _cuprim_nccl_lib)
        unset(_inc)
        unset(_lib)
        find_path(_inc nccl.h NO_CACHE)
        find_library(_lib NAMES nccl libnccl.so.2 NO_CACHE)
        if(_inc AND _lib)
          set(_cuprim_nccl_inc "${_inc}")
          set(_cuprim_nccl_lib "${_lib}")
        endif()
        set(where "the system's paths")
        list(APPEND looked "the system's paths")
      endif()
      if(NOT _cuprim_nccl_lib)
        find_program(_python NAMES python3 python NO_CACHE)
        if(_python)
          # nvidia/ is a namespace package shared by the CUDA wheels; nccl is one of them.
          execute_process(
            COMMAND "${_python}" -c
                    "import nvidia.nccl as m; print(list(m.__path__)[0])"
            OUTPUT_VARIABLE wheel OUTPUT_STRIP_TRAILING_WHITESPACE
            RESULT_VARIABLE rc ERROR_QUIET)
          if(rc EQUAL 0 AND wheel)
            _cuprim_nccl_try("${wheel}/include" "${wheel}/lib")
            set(where "the Python wheel at ${wheel}")
          endif()
        endif()
        list(APPEND looked "the nvidia-nccl Python wheel")
      endif()
    endif()
  endif()

  set(found FALSE)
  set(version "")
  set(why "")
  if(_cuprim_nccl_inc AND _cuprim_nccl_lib AND EXISTS "${_cuprim_nccl_inc}/nccl.h")
    cmake_path(SET _cuprim_nccl_inc NORMALIZE "${_cuprim_nccl_inc}")
    cmake_path(SET _cuprim_nccl_lib NORMALIZE "${_cuprim_nccl_lib}")
    string(REGEX REPLACE "/$" "" _cuprim_nccl_inc "${_cuprim_nccl_inc}")
    _cuprim_nccl_version("${_cuprim_nccl_inc}/nccl.h" version)
    if(version AND version VERSION_GREATER_EQUAL 2.14)
      set(found TRUE)
    else()
      set(why "NCCL ${version} in ${_cuprim_nccl_inc} is older than 2.14")
    endif()
  else()
    list(JOIN looked ", " looked)
    set(why "no nccl.h with libnccl in ${looked}")
  endif()

  set(CUPRIM_NCCL_FOUND ${found} PARENT_SCOPE)
  set(CUPRIM_NCCL_INCLUDE_DIR "${_cuprim_nccl_inc}" PARENT_SCOPE)
  set(CUPRIM_NCCL_LIBRARY "${_cuprim_nccl_lib}" PARENT_SCOPE)
  set(CUPRIM_NCCL_VERSION "${version}" PARENT_SCOPE)
  set(CUPRIM_NCCL_WHERE "${where}" PARENT_SCOPE)
  set(CUPRIM_NCCL_WHY "${why}" PARENT_SCOPE)
endfunction()
