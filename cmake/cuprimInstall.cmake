# Install rules: the public headers, libcuprim.a, a CMake package (cuprimConfig.cmake and
# cuprimConfigVersion.cmake under lib/cmake/cuprim) and a pkg-config file (lib/pkgconfig/cuprim.pc).
# Included by the top-level CMakeLists.txt once the `cuprim` target exists.
#
# Why a hand-written package config instead of install(EXPORT): CMake exports a static library
# with CUDA sources with IMPORTED_LINK_INTERFACE_LANGUAGES "CUDA", and a consumer that has not
# enabled CUDA (a plain C project, which the README says works) then fails to pick a linker.
# cmake/cuprimConfig.cmake.in instead creates an IMPORTED STATIC target by hand, whose link
# interface lists what a C link of the archive actually needs. Both installed files locate the
# prefix from their own location, so the installed tree can be moved.
include(CMakePackageConfigHelpers)

# What a link driven by the C compiler needs besides libcudart: the C++ runtime and libm, which
# nvcc-compiled objects reference (_Unwind_Resume, __cxa_guard_*, __gxx_personality_v0) and which
# nvcc's own link would have added. Derived from the toolchain as the libraries CUDA links
# implicitly and C does not (stdc++;m with gcc); the install_and_link test checks the result by
# linking examples/reduce.c with the C compiler alone.
set(CUPRIM_HOST_LINK_LIBS ${CMAKE_CUDA_IMPLICIT_LINK_LIBRARIES})
if(CMAKE_C_IMPLICIT_LINK_LIBRARIES)
  list(REMOVE_ITEM CUPRIM_HOST_LINK_LIBS ${CMAKE_C_IMPLICIT_LINK_LIBRARIES})
endif()
list(REMOVE_DUPLICATES CUPRIM_HOST_LINK_LIBS)

set(CUPRIM_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/cuprim")

install(TARGETS cuprim ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
# nccl.h belongs to the NCCL component, which installs it where it is built (src/nccl/).
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/cuprim"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.h" PATTERN "nccl.h" EXCLUDE)

# ---------------------------------------------------------------- CMake package
set(CUPRIM_ARCHIVE_NAME "${CMAKE_STATIC_LIBRARY_PREFIX}cuprim${CMAKE_STATIC_LIBRARY_SUFFIX}")
configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/cuprimConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/cuprimConfig.cmake"
  INSTALL_DESTINATION "${CUPRIM_INSTALL_CMAKEDIR}"
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
# Before 1.0 a minor release may change the API, so only the same MAJOR.MINOR is compatible;
# from 1.0 on, the same MAJOR.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_cuprim_compat SameMinorVersion)
else()
  set(_cuprim_compat SameMajorVersion)
endif()
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/cuprimConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY ${_cuprim_compat})
unset(_cuprim_compat)
install(FILES "${PROJECT_BINARY_DIR}/cuprimConfig.cmake"
              "${PROJECT_BINARY_DIR}/cuprimConfigVersion.cmake"
        DESTINATION "${CUPRIM_INSTALL_CMAKEDIR}")

# ---------------------------------------------------------------- pkg-config
# prefix is written relative to ${pcfiledir}, so it follows the installed tree. The CUDA
# directories are those of the toolkit the library was built with.
set(CUPRIM_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
file(RELATIVE_PATH CUPRIM_PC_PREFIX_FROM_PCFILEDIR
     "/prefix/${CUPRIM_INSTALL_PKGCONFIGDIR}" "/prefix")
string(REGEX REPLACE "/$" "" CUPRIM_PC_PREFIX_FROM_PCFILEDIR "${CUPRIM_PC_PREFIX_FROM_PCFILEDIR}")
set(CUPRIM_PC_CUDA_CFLAGS "")
foreach(_dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
  string(APPEND CUPRIM_PC_CUDA_CFLAGS " -I${_dir}")
endforeach()
set(CUPRIM_PC_HOST_LIBS "")
foreach(_lib IN LISTS CUPRIM_HOST_LINK_LIBS)
  string(APPEND CUPRIM_PC_HOST_LIBS " -l${_lib}")
endforeach()
unset(_dir)
unset(_lib)
configure_file("${CMAKE_CURRENT_LIST_DIR}/cuprim.pc.in" "${PROJECT_BINARY_DIR}/cuprim.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/cuprim.pc" DESTINATION "${CUPRIM_INSTALL_PKGCONFIGDIR}")
