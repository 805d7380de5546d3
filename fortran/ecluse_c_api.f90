! The C API (include/ecluse/ecluse.h) as bind(C) interfaces, for the wrappers of module ecluse.
! Communicators go through ecluse_fortran_shim.c, which converts MPI_Fint and MPI_Comm.
module ecluse_c_api
  use, intrinsic :: iso_c_binding, only: c_char, c_double, c_funptr, c_int, c_int32_t, &
                                         c_int64_t, c_ptr, c_size_t
  implicit none
  private
  public :: c_initialize, c_initialize_string, c_start, c_client_comm_get
  public :: c_write_block, c_write_section, c_write_contiguous, c_alloc_block, c_commit_block
  public :: c_clear_block
  public :: c_parameter_get, c_parameter_set, c_set_block_position, c_variable_shape
  public :: c_signal, c_bind, c_end_iteration, c_get_iteration, c_stop, c_finalize
  public :: c_get_statistic, c_error_message, c_set_error, c_status_name, c_strlen
  public :: c_commit_block_iteration, c_clear_block_iteration, c_has_servers, c_variable_type, &
            c_parameter_type, c_variable_layout

  interface
    integer(c_int) function c_initialize(config_file, comm) &
        bind(C, name="ecluse_fortran_initialize")
      import :: c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: config_file
      integer(c_int), value :: comm
    end function c_initialize

    integer(c_int) function c_initialize_string(config_xml, comm) &
        bind(C, name="ecluse_fortran_initialize_string")
      import :: c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: config_xml
      integer(c_int), value :: comm
    end function c_initialize_string

    integer(c_int) function c_start(is_client) bind(C, name="ecluse_start")
      import :: c_int
      integer(c_int), intent(inout) :: is_client  ! unchanged by a failed call
    end function c_start

    integer(c_int) function c_client_comm_get(comm) &
        bind(C, name="ecluse_fortran_client_comm_get")
      import :: c_int
      integer(c_int), intent(inout) :: comm  ! unchanged by a failed call
    end function c_client_comm_get

    integer(c_int) function c_write_block(variable, block, data) &
        bind(C, name="ecluse_write_block")
      import :: c_char, c_int, c_int32_t, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: variable
      integer(c_int32_t), value :: block
      type(c_ptr), value :: data
    end function c_write_block

    !> ecluse_write_block of an array section that is not contiguous, passed by its descriptor:
    !> packed by ecluse_write_block_strided (ecluse_fortran_shim.c).
    integer(c_int) function c_write_section(variable, block, data) &
        bind(C, name="ecluse_fortran_write_section")
      import :: c_char, c_int, c_int32_t
      character(kind=c_char), dimension(*), intent(in) :: variable
      integer(c_int32_t), value :: block
      type(*), dimension(..), intent(in) :: data
    end function c_write_section

    !> ecluse_write_block of a contiguous array passed by its descriptor, refused when it holds
    !> fewer bytes than the variable's block (the Damaris module, which checks nothing else).
    integer(c_int) function c_write_contiguous(variable, block, data) &
        bind(C, name="ecluse_fortran_write_contiguous")
      import :: c_char, c_int, c_int32_t
      character(kind=c_char), dimension(*), intent(in) :: variable
      integer(c_int32_t), value :: block
      type(*), dimension(..), intent(in) :: data
    end function c_write_contiguous

    integer(c_int) function c_alloc_block(variable, block, data) &
        bind(C, name="ecluse_alloc_block")
      import :: c_char, c_int, c_int32_t, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: variable
      integer(c_int32_t), value :: block
      type(c_ptr), intent(out) :: data
    end function c_alloc_block

    integer(c_int) function c_commit_block(variable, block) &
        bind(C, name="ecluse_commit_block")
      import :: c_char, c_int, c_int32_t
      character(kind=c_char), dimension(*), intent(in) :: variable
      integer(c_int32_t), value :: block
    end function c_commit_block

    integer(c_int) function c_clear_block(variable, block) bind(C, name="ecluse_clear_block")
      import :: c_char, c_int, c_int32_t
      character(kind=c_char), dimension(*), intent(in) :: variable
      integer(c_int32_t), value :: block
    end function c_clear_block

    integer(c_int) function c_commit_block_iteration(variable, block, iteration) &
        bind(C, name="ecluse_commit_block_iteration")
      import :: c_char, c_int, c_int32_t
      character(kind=c_char), dimension(*), intent(in) :: variable
      integer(c_int32_t), value :: block, iteration
    end function c_commit_block_iteration

    integer(c_int) function c_clear_block_iteration(variable, block, iteration) &
        bind(C, name="ecluse_clear_block_iteration")
      import :: c_char, c_int, c_int32_t
      character(kind=c_char), dimension(*), intent(in) :: variable
      integer(c_int32_t), value :: block, iteration
    end function c_clear_block_iteration

    integer(c_int) function c_has_servers(has_servers) bind(C, name="ecluse_has_servers")
      import :: c_int
      integer(c_int), intent(inout) :: has_servers  ! unchanged by a failed call
    end function c_has_servers

    integer(c_int) function c_variable_type(variable, type) bind(C, name="ecluse_variable_type")
      import :: c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: variable
      integer(c_int), intent(inout) :: type
    end function c_variable_type

    integer(c_int) function c_parameter_type(name, type) bind(C, name="ecluse_parameter_type")
      import :: c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int), intent(inout) :: type
    end function c_parameter_type

    integer(c_int) function c_variable_layout(variable, buffer, size) &
        bind(C, name="ecluse_variable_layout")
      import :: c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: variable
      character(kind=c_char), dimension(*), intent(inout) :: buffer
      integer(c_int), value :: size
    end function c_variable_layout

    integer(c_int) function c_parameter_get(name, buffer, size) &
        bind(C, name="ecluse_parameter_get")
      import :: c_char, c_int, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: name
      type(c_ptr), value :: buffer
      integer(c_int), value :: size
    end function c_parameter_get

    integer(c_int) function c_parameter_set(name, buffer, size) &
        bind(C, name="ecluse_parameter_set")
      import :: c_char, c_int, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: name
      type(c_ptr), value :: buffer
      integer(c_int), value :: size
    end function c_parameter_set

    integer(c_int) function c_set_block_position(variable, block, position) &
        bind(C, name="ecluse_set_block_position")
      import :: c_char, c_int, c_int32_t, c_int64_t
      character(kind=c_char), dimension(*), intent(in) :: variable
      integer(c_int32_t), value :: block
      integer(c_int64_t), dimension(*), intent(in) :: position
    end function c_set_block_position

    integer(c_int) function c_variable_shape(variable, type, ndims, dims, max_dims) &
        bind(C, name="ecluse_variable_shape")
      import :: c_char, c_int, c_int64_t
      character(kind=c_char), dimension(*), intent(in) :: variable
      integer(c_int), intent(out) :: type, ndims
      integer(c_int64_t), dimension(*), intent(out) :: dims
      integer(c_int), value :: max_dims
    end function c_variable_shape

    integer(c_int) function c_signal(event) bind(C, name="ecluse_signal")
      import :: c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: event
    end function c_signal

    integer(c_int) function c_bind(event, action) bind(C, name="ecluse_bind")
      import :: c_char, c_funptr, c_int
      character(kind=c_char), dimension(*), intent(in) :: event
      type(c_funptr), value :: action
    end function c_bind

    integer(c_int) function c_end_iteration() bind(C, name="ecluse_end_iteration")
      import :: c_int
    end function c_end_iteration

    integer(c_int) function c_get_iteration(iteration) bind(C, name="ecluse_get_iteration")
      import :: c_int
      integer(c_int), intent(inout) :: iteration  ! unchanged by a failed call
    end function c_get_iteration

    integer(c_int) function c_stop() bind(C, name="ecluse_stop")
      import :: c_int
    end function c_stop

    integer(c_int) function c_finalize() bind(C, name="ecluse_finalize")
      import :: c_int
    end function c_finalize

    integer(c_int) function c_get_statistic(name, value) bind(C, name="ecluse_get_statistic")
      import :: c_char, c_double, c_int
      character(kind=c_char), dimension(*), intent(in) :: name
      real(c_double), intent(out) :: value
    end function c_get_statistic

    integer(c_int) function c_set_error(status, message) bind(C, name="ecluse_set_error")
      import :: c_char, c_int
      integer(c_int), value :: status
      character(kind=c_char), dimension(*), intent(in) :: message
    end function c_set_error

    type(c_ptr) function c_error_message() bind(C, name="ecluse_error_message")
      import :: c_ptr
    end function c_error_message

    type(c_ptr) function c_status_name(status) bind(C, name="ecluse_status_name")
      import :: c_int, c_ptr
      integer(c_int), value :: status
    end function c_status_name

    integer(c_size_t) function c_strlen(text) bind(C, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: text
    end function c_strlen
  end interface
end module ecluse_c_api
