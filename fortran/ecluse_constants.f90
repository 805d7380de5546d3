! Status codes and element types of the C API (ecluse.h), as Fortran named constants.
! The values follow the C enums one to one; keep them in step with include/ecluse/ecluse.h.
module ecluse_constants
  implicit none
  private

  integer, parameter, public :: ECLUSE_OK = 0
  integer, parameter, public :: ECLUSE_INIT_ERROR = 1
  integer, parameter, public :: ECLUSE_FINALIZE_ERROR = 2
  integer, parameter, public :: ECLUSE_CORE_IS_SERVER = 3
  integer, parameter, public :: ECLUSE_NO_SERVER = 4
  integer, parameter, public :: ECLUSE_ALLOCATION_ERROR = 5
  integer, parameter, public :: ECLUSE_CONFIG_ERROR = 6
  integer, parameter, public :: ECLUSE_ARGUMENT_ERROR = 7
  integer, parameter, public :: ECLUSE_MPI_ERROR = 8
  integer, parameter, public :: ECLUSE_DATASPACE_ERROR = 9
  integer, parameter, public :: ECLUSE_CHANNEL_ERROR = 10
  integer, parameter, public :: ECLUSE_INVALID_TAG = 11
  integer, parameter, public :: ECLUSE_NOT_INITIALIZED = 12
  integer, parameter, public :: ECLUSE_ALREADY_INITIALIZED = 13
  integer, parameter, public :: ECLUSE_UNDEFINED_ACTION = 14
  integer, parameter, public :: ECLUSE_UNDEFINED_PARAMETER = 15
  integer, parameter, public :: ECLUSE_UNDEFINED_VARIABLE = 16
  integer, parameter, public :: ECLUSE_INVALID_BLOCK = 17
  integer, parameter, public :: ECLUSE_INVALID_DIMENSIONS = 18
  integer, parameter, public :: ECLUSE_BLOCK_NOT_FOUND = 19
  integer, parameter, public :: ECLUSE_REACTOR_NOT_FOUND = 20
  integer, parameter, public :: ECLUSE_BIND_ERROR = 21
  integer, parameter, public :: ECLUSE_ERROR_UNKNOWN = 22
  integer, parameter, public :: ECLUSE_IO_ERROR = 23
  integer, parameter, public :: ECLUSE_ALREADY_WRITTEN = 24
  integer, parameter, public :: ECLUSE_STATUS_COUNT = 25

  integer, parameter, public :: ECLUSE_TYPE_INT8 = 0
  integer, parameter, public :: ECLUSE_TYPE_INT16 = 1
  integer, parameter, public :: ECLUSE_TYPE_INT32 = 2
  integer, parameter, public :: ECLUSE_TYPE_INT64 = 3
  integer, parameter, public :: ECLUSE_TYPE_FLOAT32 = 4
  integer, parameter, public :: ECLUSE_TYPE_FLOAT64 = 5
  integer, parameter, public :: ECLUSE_TYPE_STRING = 6
  integer, parameter, public :: ECLUSE_TYPE_UINT8 = 7
  integer, parameter, public :: ECLUSE_TYPE_UINT16 = 8
  integer, parameter, public :: ECLUSE_TYPE_UINT32 = 9
  integer, parameter, public :: ECLUSE_TYPE_UINT64 = 10
  integer, parameter, public :: ECLUSE_TYPE_COUNT = 11

  integer, parameter, public :: ECLUSE_MAX_DIMENSIONS = 16
end module ecluse_constants
