! Damaris.h's status codes, element types and plugin kinds as Fortran named constants, apart
! from module damaris: Damaris's own module has none and its programs declare their own, which
! would clash with names `use damaris` gave. `use damaris_constants` where they are wanted.
! The values follow Damaris.h's enums one to one (a test compares them).
module damaris_constants
  implicit none
  private

  integer, parameter, public :: DAMARIS_OK = 0
  integer, parameter, public :: DAMARIS_INIT_ERROR = 1
  integer, parameter, public :: DAMARIS_FINALIZE_ERROR = 2
  integer, parameter, public :: DAMARIS_CORE_IS_SERVER = 3
  integer, parameter, public :: DAMARIS_NO_SERVER = 4
  integer, parameter, public :: DAMARIS_ALLOCATION_ERROR = 5
  integer, parameter, public :: DAMARIS_CONFIG_ERROR = 6
  integer, parameter, public :: DAMARIS_ARGUMENT_ERROR = 7
  integer, parameter, public :: DAMARIS_MPI_ERROR = 8
  integer, parameter, public :: DAMARIS_DATASPACE_ERROR = 9
  integer, parameter, public :: DAMARIS_CHANNEL_ERROR = 10
  integer, parameter, public :: DAMARIS_INVALID_TAG = 11
  integer, parameter, public :: DAMARIS_NOT_INITIALIZED = 12
  integer, parameter, public :: DAMARIS_ALREADY_INITIALIZED = 13
  integer, parameter, public :: DAMARIS_UNDEFINED_ACTION = 14
  integer, parameter, public :: DAMARIS_UNDEFINED_PARAMETER = 15
  integer, parameter, public :: DAMARIS_UNDEFINED_VARIABLE = 16
  integer, parameter, public :: DAMARIS_INVALID_BLOCK = 17
  integer, parameter, public :: DAMARIS_INVALID_DIMENSIONS = 18
  integer, parameter, public :: DAMARIS_BLOCK_NOT_FOUND = 19
  integer, parameter, public :: DAMARIS_REACTOR_NOT_FOUND = 20
  integer, parameter, public :: DAMARIS_BIND_ERROR = 21
  integer, parameter, public :: DAMARIS_ERROR_UNKNOWN = 22

  integer, parameter, public :: DAMARIS_TYPE_UNDEFINED = 0
  integer, parameter, public :: DAMARIS_TYPE_CHAR = 1
  integer, parameter, public :: DAMARIS_TYPE_UCHAR = 2
  integer, parameter, public :: DAMARIS_TYPE_SHORT = 3
  integer, parameter, public :: DAMARIS_TYPE_USHORT = 4
  integer, parameter, public :: DAMARIS_TYPE_INT = 5
  integer, parameter, public :: DAMARIS_TYPE_UINT = 6
  integer, parameter, public :: DAMARIS_TYPE_LONG = 7
  integer, parameter, public :: DAMARIS_TYPE_ULONG = 8
  integer, parameter, public :: DAMARIS_TYPE_FLOAT = 9
  integer, parameter, public :: DAMARIS_TYPE_DOUBLE = 10
  integer, parameter, public :: DAMARIS_TYPE_STRING = 11
  integer, parameter, public :: DAMARIS_TYPE_LABEL = 12

  integer, parameter, public :: DAMARIS_HAS_HDF5 = 0
  integer, parameter, public :: DAMARIS_HAS_PYTHON = 1
  integer, parameter, public :: DAMARIS_HAS_PARAVIEW = 2
  integer, parameter, public :: DAMARIS_HAS_VISIT = 3
end module damaris_constants
