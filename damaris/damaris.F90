! Module damaris: Damaris 1.x's Fortran subroutines damaris_<name>_f(..., ierr) on the C calls of
! Damaris.h (same library), with the communicator and strings converted as module ecluse does.
module damaris
  ! Damaris's module is `use iso_c_binding` and two interfaces: its programs use c_ptr and
  ! c_f_pointer through it alone, so its names are public here too (below).
  use, intrinsic :: iso_c_binding
#ifdef ECLUSE_HAVE_MPI_F08
  use mpi_f08, only: MPI_Comm
#endif
  ! The calls that mean the same in both APIs go straight to ecluse_*: start and stop (their
  ! NO_SERVER convention), the *_iteration variants, signal (a missing function is logged, as
  ! Damaris does), set_position (C order, as Damaris takes it) and the parameters (any integer
  ! size) go through damaris_*.
  use ecluse_c_api, only: c_client_comm_get, c_finalize, c_write_contiguous, c_write_section, &
                          c_alloc_block, c_commit_block, c_clear_block, c_bind, &
                          c_end_iteration, c_get_iteration
  use ecluse_messages, only: c_text, f_text
  use ecluse, only: damaris_action => ecluse_action
  implicit none
  private
  public :: damaris_initialize_f, damaris_finalize_f, damaris_start_f, damaris_stop_f
  public :: damaris_write_f, damaris_write_block_f, damaris_alloc_f, damaris_alloc_block_f
  public :: damaris_commit_f, damaris_commit_block_f, damaris_commit_iteration_f
  public :: damaris_commit_block_iteration_f, damaris_clear_f, damaris_clear_block_f
  public :: damaris_clear_iteration_f, damaris_clear_block_iteration_f
  public :: damaris_signal_f, damaris_bind_f, damaris_action, damaris_string
  public :: damaris_parameter_get_f, damaris_parameter_set_f
  public :: damaris_set_position_f, damaris_set_block_position_f
  public :: damaris_client_comm_get_f, damaris_end_iteration_f, damaris_get_iteration_f
  public :: damaris_get_type_f, damaris_has_plugin_f, damaris_error_string_f
  ! ISO_C_BINDING (Fortran 2008), as `use damaris` gives it with Damaris.
  public :: c_int, c_short, c_long, c_long_long, c_signed_char, c_size_t, c_int8_t, c_int16_t
  public :: c_int32_t, c_int64_t, c_int_least8_t, c_int_least16_t, c_int_least32_t
  public :: c_int_least64_t, c_int_fast8_t, c_int_fast16_t, c_int_fast32_t, c_int_fast64_t
  public :: c_intmax_t, c_intptr_t, c_float, c_double, c_long_double, c_float_complex
  public :: c_double_complex, c_long_double_complex, c_bool, c_char, c_null_char, c_alert
  public :: c_backspace, c_form_feed, c_new_line, c_carriage_return, c_horizontal_tab
  public :: c_vertical_tab, c_ptr, c_funptr, c_null_ptr, c_null_funptr, c_associated
  public :: c_f_pointer, c_f_procpointer, c_loc, c_funloc, c_sizeof

  !> comm: an integer communicator (MPI_COMM_WORLD of mpif.h or module mpi) or, with an MPI
  !> that has mpi_f08, a type(MPI_Comm).
  interface damaris_initialize_f
    module procedure initialize_fint
#ifdef ECLUSE_HAVE_MPI_F08
    module procedure initialize_f08
#endif
  end interface damaris_initialize_f

  interface damaris_client_comm_get_f
    module procedure client_comm_get_fint
#ifdef ECLUSE_HAVE_MPI_F08
    module procedure client_comm_get_f08
#endif
  end interface damaris_client_comm_get_f

  !> size: default integer or integer(8) (Damaris's listings and Nek5000 pass SIZEOF(x)).
  interface damaris_parameter_get_f
    module procedure parameter_get_int, parameter_get_int64
  end interface damaris_parameter_get_f

  interface damaris_parameter_set_f
    module procedure parameter_set_int, parameter_set_int64
  end interface damaris_parameter_set_f

  ! No error-code constants: Damaris's module has none, and programs declare their own (module
  ! damaris_constants has them, for programs that want them).

  interface
    ! The failed calls that go straight to ecluse_* are said as libdamaris says its own (stderr,
    ! the first 10 of a rank).
    integer(c_int) function said(status) bind(C, name="ecluse_damaris_said")
      import :: c_int
      integer(c_int), value :: status
    end function said

    ! damaris_initialize (a failed one ends the job, as Damaris does) with an integer comm.
    integer(c_int) function c_initialize(file, comm) bind(C, name="ecluse_damaris_initialize_fint")
      import :: c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: file
      integer(c_int), value :: comm
    end function c_initialize

    integer(c_int) function c_start(is_client) bind(C, name="damaris_start")
      import :: c_int
      integer(c_int), intent(inout) :: is_client
    end function c_start

    integer(c_int) function c_stop() bind(C, name="damaris_stop")
      import :: c_int
    end function c_stop

    integer(c_int) function c_signal(name) bind(C, name="damaris_signal")
      import :: c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: name
    end function c_signal

    integer(c_int) function c_set_position(name, block, position) &
        bind(C, name="damaris_set_block_position")
      import :: c_char, c_int, c_int32_t, c_int64_t
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int32_t), value :: block
      integer(c_int64_t), dimension(*), intent(in) :: position
    end function c_set_position

    integer(c_int) function c_commit(name, block, iteration) &
        bind(C, name="damaris_commit_block_iteration")
      import :: c_char, c_int, c_int32_t
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int32_t), value :: block, iteration
    end function c_commit

    integer(c_int) function c_clear(name, block, iteration) &
        bind(C, name="damaris_clear_block_iteration")
      import :: c_char, c_int, c_int32_t
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int32_t), value :: block, iteration
    end function c_clear

    ! Damaris's sizes: an integer parameter takes or gives any integer size (its value converted).
    integer(c_int) function c_parameter_get(name, buffer, size) bind(C, name="damaris_fortran_parameter_get")
      import :: c_char, c_int, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: name
      type(c_ptr), value :: buffer
      integer(c_int), value :: size
    end function c_parameter_get

    integer(c_int) function c_get_type(name, vartype) bind(C, name="damaris_get_type")
      import :: c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int), intent(inout) :: vartype
    end function c_get_type

    integer(c_int) function c_has_plugin(plugin) bind(C, name="damaris_has_plugin")
      import :: c_int
      integer(c_int), value :: plugin
    end function c_has_plugin

    type(c_ptr) function c_error_string(error) bind(C, name="damaris_error_string")
      import :: c_int, c_ptr
      integer(c_int), value :: error
    end function c_error_string

    integer(c_int) function c_parameter_set(name, buffer, size) bind(C, name="damaris_fortran_parameter_set")
      import :: c_char, c_int, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: name
      type(c_ptr), value :: buffer
      integer(c_int), value :: size
    end function c_parameter_set
  end interface

contains

  subroutine initialize_fint(configfile, comm, ierr)
    character(len=*), intent(in) :: configfile
    integer, intent(in) :: comm
    integer, intent(out) :: ierr
    ierr = c_initialize(c_text(configfile), int(comm, c_int))
  end subroutine initialize_fint

#ifdef ECLUSE_HAVE_MPI_F08
  subroutine initialize_f08(configfile, comm, ierr)
    character(len=*), intent(in) :: configfile
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out) :: ierr
    call initialize_fint(configfile, comm%MPI_VAL, ierr)
  end subroutine initialize_f08

  subroutine client_comm_get_f08(comm, ierr)
    type(MPI_Comm), intent(inout) :: comm
    integer, intent(out) :: ierr
    call client_comm_get_fint(comm%MPI_VAL, ierr)
  end subroutine client_comm_get_f08
#endif

  subroutine damaris_finalize_f(ierr)
    integer, intent(out) :: ierr
    ierr = said(c_finalize())
  end subroutine damaris_finalize_f

  ! The outputs of start, client_comm_get and get_iteration are inout: a failed call leaves the
  ! caller's value as it was, as Damaris's C calls do (a program testing is_client > 0 after a
  ! failed initialize must not run its client loop on garbage).
  subroutine damaris_start_f(is_client, ierr)
    integer, intent(inout) :: is_client
    integer, intent(out) :: ierr
    integer(c_int) :: c
    c = int(is_client, c_int)
    ierr = c_start(c)
    is_client = c
  end subroutine damaris_start_f

  subroutine damaris_stop_f(ierr)
    integer, intent(out) :: ierr
    ierr = c_stop()
  end subroutine damaris_stop_f

  !> data: an array or scalar of the layout's type; an array section that is not contiguous is
  !> written as the contiguous copy Damaris's external procedures get from the compiler. (Not
  !> by declaring data `contiguous`: gfortran 12 then copies every assumed-shape array.)
  subroutine damaris_write_f(varname, data, ierr)
    character(len=*), intent(in) :: varname
    type(*), dimension(..), intent(in), target :: data
    integer, intent(out) :: ierr
    call damaris_write_block_f(varname, 0, data, ierr)
  end subroutine damaris_write_f

  subroutine damaris_write_block_f(varname, block, data, ierr)
    character(len=*), intent(in) :: varname
    integer, intent(in) :: block
    type(*), dimension(..), intent(in), target :: data
    integer, intent(out) :: ierr
    if (is_contiguous(data)) then
      ierr = said(c_write_contiguous(c_text(varname), int(block, c_int32_t), data))
    else
      ierr = said(c_write_section(c_text(varname), int(block, c_int32_t), data))
    end if
  end subroutine damaris_write_block_f

  !> Room for block 0 in Ecluse's buffer (c_null_ptr on an error): map it with c_f_pointer.
  type(c_ptr) function damaris_alloc_f(varname, ierr) result(data)
    character(len=*), intent(in) :: varname
    integer, intent(out) :: ierr
    data = damaris_alloc_block_f(varname, 0, ierr)
  end function damaris_alloc_f

  type(c_ptr) function damaris_alloc_block_f(varname, block, ierr) result(data)
    character(len=*), intent(in) :: varname
    integer, intent(in) :: block
    integer, intent(out) :: ierr
    data = c_null_ptr
    ierr = said(c_alloc_block(c_text(varname), int(block, c_int32_t), data))
  end function damaris_alloc_block_f

  subroutine damaris_commit_f(varname, ierr)
    character(len=*), intent(in) :: varname
    integer, intent(out) :: ierr
    ierr = said(c_commit_block(c_text(varname), 0_c_int32_t))
  end subroutine damaris_commit_f

  subroutine damaris_commit_block_f(varname, block, ierr)
    character(len=*), intent(in) :: varname
    integer, intent(in) :: block
    integer, intent(out) :: ierr
    ierr = said(c_commit_block(c_text(varname), int(block, c_int32_t)))
  end subroutine damaris_commit_block_f

  subroutine damaris_commit_iteration_f(varname, iteration, ierr)
    character(len=*), intent(in) :: varname
    integer, intent(in) :: iteration
    integer, intent(out) :: ierr
    call damaris_commit_block_iteration_f(varname, 0, iteration, ierr)
  end subroutine damaris_commit_iteration_f

  subroutine damaris_commit_block_iteration_f(varname, block, iteration, ierr)
    character(len=*), intent(in) :: varname
    integer, intent(in) :: block, iteration
    integer, intent(out) :: ierr
    ierr = c_commit(c_text(varname), int(block, c_int32_t), int(iteration, c_int32_t))
  end subroutine damaris_commit_block_iteration_f

  subroutine damaris_clear_f(varname, ierr)
    character(len=*), intent(in) :: varname
    integer, intent(out) :: ierr
    ierr = said(c_clear_block(c_text(varname), 0_c_int32_t))
  end subroutine damaris_clear_f

  subroutine damaris_clear_block_f(varname, block, ierr)
    character(len=*), intent(in) :: varname
    integer, intent(in) :: block
    integer, intent(out) :: ierr
    ierr = said(c_clear_block(c_text(varname), int(block, c_int32_t)))
  end subroutine damaris_clear_block_f

  subroutine damaris_clear_iteration_f(varname, iteration, ierr)
    character(len=*), intent(in) :: varname
    integer, intent(in) :: iteration
    integer, intent(out) :: ierr
    call damaris_clear_block_iteration_f(varname, 0, iteration, ierr)
  end subroutine damaris_clear_iteration_f

  subroutine damaris_clear_block_iteration_f(varname, block, iteration, ierr)
    character(len=*), intent(in) :: varname
    integer, intent(in) :: block, iteration
    integer, intent(out) :: ierr
    ierr = c_clear(c_text(varname), int(block, c_int32_t), int(iteration, c_int32_t))
  end subroutine damaris_clear_block_iteration_f

  subroutine damaris_signal_f(signal_name, ierr)
    character(len=*), intent(in) :: signal_name
    integer, intent(out) :: ierr
    ierr = c_signal(c_text(signal_name))
  end subroutine damaris_signal_f

  !> action: a bind(C) subroutine with the interface damaris_action (event and args are C
  !> strings: read them with damaris_string).
  subroutine damaris_bind_f(signal_name, action, ierr)
    character(len=*), intent(in) :: signal_name
    procedure(damaris_action) :: action
    integer, intent(out) :: ierr
    ierr = said(c_bind(c_text(signal_name), c_funloc(action)))
  end subroutine damaris_bind_f

  !> buffer: a scalar (or array) of the parameter's type; size: its size in bytes.
  subroutine parameter_get_int(param_name, buffer, size, ierr)
    character(len=*), intent(in) :: param_name
    type(*), dimension(..), intent(inout), target, contiguous :: buffer
    integer, intent(in) :: size
    integer, intent(out) :: ierr
    call parameter_get_int64(param_name, buffer, int(size, c_int64_t), ierr)
  end subroutine parameter_get_int

  ! A size past what an int holds is given as -1: refused with the parameter's real size.
  subroutine parameter_get_int64(param_name, buffer, size, ierr)
    character(len=*), intent(in) :: param_name
    type(*), dimension(..), intent(inout), target, contiguous :: buffer
    integer(c_int64_t), intent(in) :: size
    integer, intent(out) :: ierr
    ierr = c_parameter_get(c_text(param_name), c_loc(buffer), c_size(size))
  end subroutine parameter_get_int64

  subroutine parameter_set_int(param_name, buffer, size, ierr)
    character(len=*), intent(in) :: param_name
    type(*), dimension(..), intent(in), target, contiguous :: buffer
    integer, intent(in) :: size
    integer, intent(out) :: ierr
    call parameter_set_int64(param_name, buffer, int(size, c_int64_t), ierr)
  end subroutine parameter_set_int

  subroutine parameter_set_int64(param_name, buffer, size, ierr)
    character(len=*), intent(in) :: param_name
    type(*), dimension(..), intent(in), target, contiguous :: buffer
    integer(c_int64_t), intent(in) :: size
    integer, intent(out) :: ierr
    ierr = c_parameter_set(c_text(param_name), c_loc(buffer), c_size(size))
  end subroutine parameter_set_int64

  pure integer(c_int) function c_size(size)
    integer(c_int64_t), intent(in) :: size
    c_size = -1_c_int
    if (size >= 0 .and. size <= int(huge(c_size), c_int64_t)) c_size = int(size, c_int)
  end function c_size

  !> position: integer(8), one per dimension, in C order as Damaris takes it (with
  !> language="fortran", whose dimensions are reversed, the reverse of the declared order).
  subroutine damaris_set_position_f(varname, position, ierr)
    character(len=*), intent(in) :: varname
    integer(c_int64_t), dimension(*), intent(in) :: position
    integer, intent(out) :: ierr
    ierr = c_set_position(c_text(varname), 0_c_int32_t, position)
  end subroutine damaris_set_position_f

  subroutine damaris_set_block_position_f(varname, block, position, ierr)
    character(len=*), intent(in) :: varname
    integer, intent(in) :: block
    integer(c_int64_t), dimension(*), intent(in) :: position
    integer, intent(out) :: ierr
    ierr = c_set_position(c_text(varname), int(block, c_int32_t), position)
  end subroutine damaris_set_block_position_f

  !> comm: the clients' communicator, an integer (or a type(MPI_Comm) with mpi_f08).
  subroutine client_comm_get_fint(comm, ierr)
    integer, intent(inout) :: comm
    integer, intent(out) :: ierr
    integer(c_int) :: c
    c = int(comm, c_int)
    ierr = said(c_client_comm_get(c))
    comm = c
  end subroutine client_comm_get_fint

  subroutine damaris_end_iteration_f(ierr)
    integer, intent(out) :: ierr
    ierr = said(c_end_iteration())
  end subroutine damaris_end_iteration_f

  !> A C string given to an action (event, args) as a Fortran string; here, not in module ecluse,
  !> so that -ldamaris is all a program links.
  function damaris_string(pointer) result(text)
    type(c_ptr), intent(in) :: pointer
    character(len=:), allocatable :: text
    text = f_text(pointer)
  end function damaris_string

  subroutine damaris_get_iteration_f(iteration, ierr)
    integer, intent(inout) :: iteration
    integer, intent(out) :: ierr
    integer(c_int) :: c
    c = int(iteration, c_int)
    ierr = said(c_get_iteration(c))
    iteration = c
  end subroutine damaris_get_iteration_f

  ! Damaris 1.9's additions, as subroutines in the style of the others (values in
  ! damaris_constants). vartype is DAMARIS_TYPE_UNDEFINED (0) when the call fails, as in C.
  subroutine damaris_get_type_f(varname, vartype, ierr)
    character(len=*), intent(in) :: varname
    integer, intent(out) :: vartype
    integer, intent(out) :: ierr
    integer(c_int) :: c
    c = 0
    ierr = c_get_type(c_text(varname), c)
    vartype = c
  end subroutine damaris_get_type_f

  !> has: 1 if the part is there (HDF5, Python), 0 if not (ParaView, VisIt).
  subroutine damaris_has_plugin_f(plugin, has)
    integer, intent(in) :: plugin
    integer, intent(out) :: has
    has = c_has_plugin(int(plugin, c_int))
  end subroutine damaris_has_plugin_f

  !> text: the status code's short text, blank-padded (cut to len(text)).
  subroutine damaris_error_string_f(error, text)
    integer, intent(in) :: error
    character(len=*), intent(out) :: text
    text = f_text(c_error_string(int(error, c_int)))
  end subroutine damaris_error_string_f

end module damaris
