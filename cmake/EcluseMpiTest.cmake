# The one helper that registers tests: serial gtest binaries and gtest binaries run under
# mpiexec with real ranks (Open MPI or MPICH), each test in its own temporary directory.
find_package(GTest REQUIRED)

set(ECLUSE_MPIEXEC "${MPIEXEC_EXECUTABLE}" CACHE FILEPATH "mpiexec used by the MPI tests")
set(ECLUSE_MPIEXEC_EXTRA "" CACHE STRING "extra mpiexec flags")
execute_process(COMMAND ${ECLUSE_MPIEXEC} --version OUTPUT_VARIABLE _ecluse_mpiexec_version
  ERROR_QUIET)
if(_ecluse_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(ECLUSE_MPIEXEC_FLAGS --oversubscribe --bind-to none ${ECLUSE_MPIEXEC_EXTRA})
else()
  set(ECLUSE_MPIEXEC_FLAGS ${ECLUSE_MPIEXEC_EXTRA})
endif()

# ecluse_add_test(NAME name SOURCES a.cpp ... [RANKS n ...] [LABELS ...])
# Without RANKS the test runs serially; with RANKS it is registered once per rank count as
# name.np<n>, run as `mpiexec -n <n> <binary>` in a fresh temporary directory.
function(ecluse_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;RANKS;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ecluse ecluse_testsupport GTest::gtest)
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_include_directories(${T_NAME} SYSTEM PRIVATE ${HDF5_INCLUDE_DIRS})
  target_compile_options(${T_NAME} PRIVATE ${ECLUSE_WARNINGS})
  if(NOT T_RANKS)
    _ecluse_register(${T_NAME} ${T_NAME} 1 "${T_TIMEOUT}" "${T_LABELS}" FALSE)
    return()
  endif()
  foreach(n IN LISTS T_RANKS)
    _ecluse_register(${T_NAME}.np${n} ${T_NAME} ${n} "${T_TIMEOUT}" "mpi;${T_LABELS}" TRUE)
  endforeach()
endfunction()

function(_ecluse_register test_name target ranks timeout labels use_mpi)
  set(workdir ${CMAKE_CURRENT_BINARY_DIR}/work/${test_name})
  if(use_mpi)
    set(cmd ${ECLUSE_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${ECLUSE_MPIEXEC_FLAGS}
      $<TARGET_FILE:${target}>)
  else()
    set(cmd $<TARGET_FILE:${target}>)
  endif()
  add_test(NAME ${test_name}
    COMMAND ${PROJECT_SOURCE_DIR}/cmake/run-in-fresh-dir.sh ${workdir} ${cmd}
    COMMAND_EXPAND_LISTS)
  set_tests_properties(${test_name} PROPERTIES PROCESSORS ${ranks} TIMEOUT ${timeout}
    LABELS "${labels}"
    ENVIRONMENT "ECLUSE_TEST_SOURCE_DIR=${PROJECT_SOURCE_DIR};OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endfunction()
