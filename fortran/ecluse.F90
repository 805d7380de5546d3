! Module ecluse: the C API for Fortran 2008 programs. Every C call is a subroutine of the same name
! ending with an integer ierr (ECLUSE_OK = 0); communicators are integers or type(MPI_Comm).
module ecluse
  use, intrinsic :: iso_c_binding, only: c_char, c_double, c_funloc, c_int, c_int32_t, &
                                         c_int64_t, c_null_char, c_ptr
  use ecluse_c_api
  use ecluse_checks, only: layout_shape
  use ecluse_constants
  use ecluse_data_alloc, only: ecluse_alloc, ecluse_alloc_block
  use ecluse_data_write, only: ecluse_write, ecluse_write_block
  use ecluse_messages, only: c_text, f_text, from_c, int_text, last_message, local_fail
  use ecluse_parameters, only: ecluse_parameter_get, ecluse_parameter_set
#ifdef ECLUSE_HAVE_MPI_F08
  use mpi_f08, only: MPI_Comm
#endif
  implicit none
  private

  public :: ECLUSE_OK, ECLUSE_INIT_ERROR, ECLUSE_FINALIZE_ERROR, ECLUSE_CORE_IS_SERVER, &
            ECLUSE_NO_SERVER, ECLUSE_ALLOCATION_ERROR, ECLUSE_CONFIG_ERROR, &
            ECLUSE_ARGUMENT_ERROR, ECLUSE_MPI_ERROR, ECLUSE_DATASPACE_ERROR, &
            ECLUSE_CHANNEL_ERROR, ECLUSE_INVALID_TAG, ECLUSE_NOT_INITIALIZED, &
            ECLUSE_ALREADY_INITIALIZED, ECLUSE_UNDEFINED_ACTION, ECLUSE_UNDEFINED_PARAMETER, &
            ECLUSE_UNDEFINED_VARIABLE, ECLUSE_INVALID_BLOCK, ECLUSE_INVALID_DIMENSIONS, &
            ECLUSE_BLOCK_NOT_FOUND, ECLUSE_REACTOR_NOT_FOUND, ECLUSE_BIND_ERROR, &
            ECLUSE_ERROR_UNKNOWN, ECLUSE_IO_ERROR, ECLUSE_ALREADY_WRITTEN, ECLUSE_STATUS_COUNT
  public :: ECLUSE_TYPE_INT8, ECLUSE_TYPE_INT16, ECLUSE_TYPE_INT32, ECLUSE_TYPE_INT64, &
            ECLUSE_TYPE_FLOAT32, ECLUSE_TYPE_FLOAT64, ECLUSE_TYPE_STRING, ECLUSE_TYPE_UINT8, &
            ECLUSE_TYPE_UINT16, ECLUSE_TYPE_UINT32, ECLUSE_TYPE_UINT64, ECLUSE_TYPE_COUNT, &
            ECLUSE_MAX_DIMENSIONS
  public :: ecluse_initialize, ecluse_initialize_string, ecluse_start, ecluse_client_comm_get
  public :: ecluse_write, ecluse_write_block, ecluse_alloc, ecluse_alloc_block
  public :: ecluse_commit, ecluse_commit_block, ecluse_clear, ecluse_clear_block
  public :: ecluse_commit_iteration, ecluse_commit_block_iteration, ecluse_clear_iteration, &
            ecluse_clear_block_iteration, ecluse_has_servers
  public :: ecluse_variable_type, ecluse_parameter_type, ecluse_variable_layout
  public :: ecluse_parameter_get, ecluse_parameter_set
  public :: ecluse_set_position, ecluse_set_block_position, ecluse_variable_shape
  public :: ecluse_signal, ecluse_bind, ecluse_action, ecluse_string
  public :: ecluse_end_iteration, ecluse_get_iteration, ecluse_stop, ecluse_finalize
  public :: ecluse_get_statistic, ecluse_error_message, ecluse_status_name

  !> Reads the XML file on rank 0 of comm, broadcasts and validates it on every rank.
  interface ecluse_initialize
    module procedure initialize_fint
#ifdef ECLUSE_HAVE_MPI_F08
    module procedure initialize_f08
#endif
  end interface ecluse_initialize

  !> Same as ecluse_initialize with the XML text itself.
  interface ecluse_initialize_string
    module procedure initialize_string_fint
#ifdef ECLUSE_HAVE_MPI_F08
    module procedure initialize_string_f08
#endif
  end interface ecluse_initialize_string

  !> The communicator of the simulation ranks only.
  interface ecluse_client_comm_get
    module procedure client_comm_get_fint
#ifdef ECLUSE_HAVE_MPI_F08
    module procedure client_comm_get_f08
#endif
  end interface ecluse_client_comm_get

  !> Global offset of block 0 (or of a block), one per dimension in the layout's order.
  interface ecluse_set_position
    module procedure set_position_int64, set_position_int32
  end interface ecluse_set_position

  interface ecluse_set_block_position
    module procedure set_block_position_int64, set_block_position_int32
  end interface ecluse_set_block_position

  !> An action for ecluse_bind; event and args are C strings (read them with ecluse_string).
  abstract interface
    subroutine ecluse_action(event, source, iteration, args) bind(C)
      import :: c_int32_t, c_ptr
      type(c_ptr), value :: event, args
      integer(c_int32_t), value :: source, iteration
    end subroutine ecluse_action
  end interface

contains

  subroutine initialize_fint(config_file, comm, ierr)
    character(len=*), intent(in) :: config_file
    integer, intent(in) :: comm
    integer, intent(out) :: ierr
    ierr = from_c(c_initialize(c_text(config_file), int(comm, c_int)))
  end subroutine initialize_fint

  subroutine initialize_string_fint(config_xml, comm, ierr)
    character(len=*), intent(in) :: config_xml
    integer, intent(in) :: comm
    integer, intent(out) :: ierr
    ierr = from_c(c_initialize_string(c_text(config_xml), int(comm, c_int)))
  end subroutine initialize_string_fint

  !> comm is left as it was by a failed call: handle 0 is MPI_COMM_WORLD under Open MPI.
  subroutine client_comm_get_fint(comm, ierr)
    integer, intent(inout) :: comm
    integer, intent(out) :: ierr
    integer(c_int) :: c_comm
    c_comm = int(comm, c_int)
    ierr = from_c(c_client_comm_get(c_comm))
    if (ierr == ECLUSE_OK) comm = int(c_comm)
  end subroutine client_comm_get_fint

#ifdef ECLUSE_HAVE_MPI_F08
  subroutine initialize_f08(config_file, comm, ierr)
    character(len=*), intent(in) :: config_file
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out) :: ierr
    call initialize_fint(config_file, comm%MPI_VAL, ierr)
  end subroutine initialize_f08

  subroutine initialize_string_f08(config_xml, comm, ierr)
    character(len=*), intent(in) :: config_xml
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out) :: ierr
    call initialize_string_fint(config_xml, comm%MPI_VAL, ierr)
  end subroutine initialize_string_f08

  subroutine client_comm_get_f08(comm, ierr)
    type(MPI_Comm), intent(inout) :: comm
    integer, intent(out) :: ierr
    call client_comm_get_fint(comm%MPI_VAL, ierr)
  end subroutine client_comm_get_f08
#endif

  !> is_client: non-zero on simulation ranks (returns at once), 0 on server ranks (returns
  !> when all their clients stopped).
  subroutine ecluse_start(is_client, ierr)
    integer, intent(out) :: is_client
    integer, intent(out) :: ierr
    integer(c_int) :: flag
    flag = 0
    ierr = from_c(c_start(flag))
    is_client = int(flag)
  end subroutine ecluse_start

  subroutine ecluse_commit(variable, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(out) :: ierr
    call ecluse_commit_block(variable, 0, ierr)
  end subroutine ecluse_commit

  subroutine ecluse_commit_block(variable, block, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block
    integer, intent(out) :: ierr
    ierr = from_c(c_commit_block(c_text(variable), int(block, c_int32_t)))
  end subroutine ecluse_commit_block

  subroutine ecluse_clear(variable, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(out) :: ierr
    call ecluse_clear_block(variable, 0, ierr)
  end subroutine ecluse_clear

  subroutine ecluse_clear_block(variable, block, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block
    integer, intent(out) :: ierr
    ierr = from_c(c_clear_block(c_text(variable), int(block, c_int32_t)))
  end subroutine ecluse_clear_block

  !> The block allocated in `iteration`: only the current one is accepted (ecluse.h).
  subroutine ecluse_commit_iteration(variable, iteration, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: iteration
    integer, intent(out) :: ierr
    call ecluse_commit_block_iteration(variable, 0, iteration, ierr)
  end subroutine ecluse_commit_iteration

  subroutine ecluse_commit_block_iteration(variable, block, iteration, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block, iteration
    integer, intent(out) :: ierr
    ierr = from_c(c_commit_block_iteration(c_text(variable), int(block, c_int32_t), &
                                           int(iteration, c_int32_t)))
  end subroutine ecluse_commit_block_iteration

  !> An earlier iteration has nothing left to clear (ECLUSE_OK); a later one is not found.
  subroutine ecluse_clear_iteration(variable, iteration, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: iteration
    integer, intent(out) :: ierr
    call ecluse_clear_block_iteration(variable, 0, iteration, ierr)
  end subroutine ecluse_clear_iteration

  subroutine ecluse_clear_block_iteration(variable, block, iteration, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block, iteration
    integer, intent(out) :: ierr
    ierr = from_c(c_clear_block_iteration(c_text(variable), int(block, c_int32_t), &
                                          int(iteration, c_int32_t)))
  end subroutine ecluse_clear_block_iteration

  !> has_servers: 1 with dedicated cores or nodes, 0 in time partitioning; unchanged on failure.
  subroutine ecluse_has_servers(has_servers, ierr)
    integer, intent(inout) :: has_servers
    integer, intent(out) :: ierr
    integer(c_int) :: flag
    flag = int(has_servers, c_int)
    ierr = from_c(c_has_servers(flag))
    has_servers = int(flag)
  end subroutine ecluse_has_servers

  !> The element type (ECLUSE_TYPE_*) of a variable's layout; unchanged on failure.
  subroutine ecluse_variable_type(variable, type, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(inout) :: type
    integer, intent(out) :: ierr
    integer(c_int) :: c_type
    c_type = int(type, c_int)
    ierr = from_c(c_variable_type(c_text(variable), c_type))
    type = int(c_type)
  end subroutine ecluse_variable_type

  !> The element type (ECLUSE_TYPE_*) of a parameter; unchanged on failure.
  subroutine ecluse_parameter_type(name, type, ierr)
    character(len=*), intent(in) :: name
    integer, intent(inout) :: type
    integer, intent(out) :: ierr
    integer(c_int) :: c_type
    c_type = int(type, c_int)
    ierr = from_c(c_parameter_type(c_text(name), c_type))
    type = int(c_type)
  end subroutine ecluse_parameter_type

  !> The full name of a variable's layout (e.g. "group/slab"), blank-padded; a layout too long
  !> for `layout` is ECLUSE_ARGUMENT_ERROR and leaves it unchanged.
  subroutine ecluse_variable_layout(variable, layout, ierr)
    character(len=*), intent(in) :: variable
    character(len=*), intent(inout) :: layout
    integer, intent(out) :: ierr
    character(kind=c_char) :: buffer(len(layout) + 1)
    integer :: i
    buffer = c_null_char
    ierr = from_c(c_variable_layout(c_text(variable), buffer, int(size(buffer), c_int)))
    if (ierr /= ECLUSE_OK) return
    layout = ''
    do i = 1, len(layout)
      if (buffer(i) == c_null_char) exit
      layout(i:i) = buffer(i)
    end do
  end subroutine ecluse_variable_layout

  subroutine set_position_int64(variable, position, ierr)
    character(len=*), intent(in) :: variable
    integer(c_int64_t), intent(in) :: position(:)
    integer, intent(out) :: ierr
    call set_block_position_int64(variable, 0, position, ierr)
  end subroutine set_position_int64

  subroutine set_position_int32(variable, position, ierr)
    character(len=*), intent(in) :: variable
    integer(c_int32_t), intent(in) :: position(:)
    integer, intent(out) :: ierr
    call set_block_position_int64(variable, 0, int(position, c_int64_t), ierr)
  end subroutine set_position_int32

  subroutine set_block_position_int32(variable, block, position, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block
    integer(c_int32_t), intent(in) :: position(:)
    integer, intent(out) :: ierr
    call set_block_position_int64(variable, block, int(position, c_int64_t), ierr)
  end subroutine set_block_position_int32

  !> The C library reads one offset per dimension of the layout: check there are that many.
  subroutine set_block_position_int64(variable, block, position, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block
    integer(c_int64_t), intent(in) :: position(:)
    integer, intent(out) :: ierr
    integer :: type, ndims
    integer(c_int64_t) :: dims(ECLUSE_MAX_DIMENSIONS)
    ierr = layout_shape(c_text(variable), type, ndims, dims)
    if (ierr /= ECLUSE_OK) return
    if (size(position) /= ndims) then
      ierr = local_fail(ECLUSE_ARGUMENT_ERROR, 'position of variable ''' // trim(variable) // &
                        ''': its layout has ' // int_text(int(ndims, c_int64_t)) // &
                        ' dimensions but the position has ' // &
                        int_text(size(position, kind=c_int64_t)) // &
                        ' values; pass one offset per dimension, in the layout''s order.')
      return
    end if
    ierr = from_c(c_set_block_position(c_text(variable), int(block, c_int32_t), position))
  end subroutine set_block_position_int64

  !> Element type (ECLUSE_TYPE_*) and dimensions of a variable's block, ghosts included, in
  !> Fortran order (the shape a Fortran array of that block is declared with).
  subroutine ecluse_variable_shape(variable, type, ndims, dims, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(out) :: type, ndims
    integer(c_int64_t), intent(out) :: dims(:)
    integer, intent(out) :: ierr
    integer(c_int64_t) :: all_dims(ECLUSE_MAX_DIMENSIONS)
    dims = 0
    ierr = layout_shape(c_text(variable), type, ndims, all_dims)
    if (ierr /= ECLUSE_OK) return
    if (ndims > size(dims)) then
      ierr = local_fail(ECLUSE_ARGUMENT_ERROR, 'variable ''' // trim(variable) // ''' has ' // &
                        int_text(int(ndims, c_int64_t)) // ' dimensions but dims has room for ' &
                        // int_text(size(dims, kind=c_int64_t)) // &
                        '; pass an array of ECLUSE_MAX_DIMENSIONS.')
      return
    end if
    dims(1:ndims) = all_dims(1:ndims)
  end subroutine ecluse_variable_shape

  subroutine ecluse_signal(event, ierr)
    character(len=*), intent(in) :: event
    integer, intent(out) :: ierr
    ierr = from_c(c_signal(c_text(event)))
  end subroutine ecluse_signal

  !> Binds a bind(C) subroutine with the interface ecluse_action to an event of <actions>.
  subroutine ecluse_bind(event, action, ierr)
    character(len=*), intent(in) :: event
    procedure(ecluse_action) :: action
    integer, intent(out) :: ierr
    ierr = from_c(c_bind(c_text(event), c_funloc(action)))
  end subroutine ecluse_bind

  subroutine ecluse_end_iteration(ierr)
    integer, intent(out) :: ierr
    ierr = from_c(c_end_iteration())
  end subroutine ecluse_end_iteration

  subroutine ecluse_get_iteration(iteration, ierr)
    integer, intent(out) :: iteration
    integer, intent(out) :: ierr
    integer(c_int) :: it
    it = 0
    ierr = from_c(c_get_iteration(it))
    iteration = int(it)
  end subroutine ecluse_get_iteration

  subroutine ecluse_stop(ierr)
    integer, intent(out) :: ierr
    ierr = from_c(c_stop())
  end subroutine ecluse_stop

  subroutine ecluse_finalize(ierr)
    integer, intent(out) :: ierr
    ierr = from_c(c_finalize())
  end subroutine ecluse_finalize

  !> A counter of this rank's transport or server (e.g. "dn.credit_waits"); after stop/start.
  subroutine ecluse_get_statistic(name, value, ierr)
    character(len=*), intent(in) :: name
    real(c_double), intent(out) :: value
    integer, intent(out) :: ierr
    value = 0
    ierr = from_c(c_get_statistic(c_text(name), value))
  end subroutine ecluse_get_statistic

  !> Message of the last error ("" if the last call succeeded).
  function ecluse_error_message() result(message)
    character(len=:), allocatable :: message
    message = last_message()
  end function ecluse_error_message

  !> Short name of a status code, e.g. "ECLUSE_CONFIG_ERROR".
  function ecluse_status_name(status) result(name)
    integer, intent(in) :: status
    character(len=:), allocatable :: name
    name = f_text(c_status_name(int(status, c_int)))
  end function ecluse_status_name

  !> A C string received by an action (event, args) as a Fortran string.
  function ecluse_string(text) result(string)
    type(c_ptr), intent(in) :: text
    character(len=:), allocatable :: string
    string = f_text(text)
  end function ecluse_string
end module ecluse
