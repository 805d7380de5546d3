! The calls of module ecluse as a user meets them, errors first; each line: case|status|message
! (or case|value). Where the C library decides, the C call itself must say the same.
module error_cases
  use, intrinsic :: iso_c_binding, only: c_char, c_int, c_int32_t, c_loc, c_null_char, c_ptr
  use ecluse
  implicit none
  private
  public :: report, report_c_write, on_step, write_assumed_size

  interface
    integer(c_int) function c_write(variable, data) bind(C, name="ecluse_write")
      import :: c_char, c_int, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: variable
      type(c_ptr), value :: data
    end function c_write
  end interface

contains

  subroutine report(name, ierr)
    character(len=*), intent(in) :: name
    integer, intent(in) :: ierr
    print '(a)', name // '|' // ecluse_status_name(ierr) // '|' // ecluse_error_message()
  end subroutine report

  !> Bound with ecluse_bind to the event "step".
  subroutine on_step(event, source, iteration, args) bind(C)
    type(c_ptr), value :: event, args
    integer(c_int32_t), value :: source, iteration
    print '(a, 2(i0, a))', 'action|' // ecluse_string(event) // ' from ', source, &
      ' at iteration ', iteration, ' args "' // ecluse_string(args) // '"'
  end subroutine on_step

  !> An F77-style routine: the array is assumed-size, its last extent unknown to the module.
  subroutine write_assumed_size(name, variable, n, data)
    character(len=*), intent(in) :: name, variable
    integer, intent(in) :: n
    real(8), intent(in) :: data(n, *)
    integer :: ierr
    call ecluse_write(variable, data, ierr)
    call report(name, ierr)
  end subroutine write_assumed_size

  !> The same write through the C function itself.
  subroutine report_c_write(name, variable, data)
    character(len=*), intent(in) :: name, variable
    real(8), intent(in), target :: data(:, :)
    call report(name, int(c_write(trim(variable) // c_null_char, c_loc(data))))
  end subroutine report_c_write
end module error_cases

program errors
  use mpi
  use ecluse
  use error_cases
  implicit none
  character(len=*), parameter :: config = &
    '<simulation name="errors" language="fortran" xmlns="urn:ecluse:config:1">' // &
    '<architecture><domains count="1"/><dedicated cores="0" nodes="0"/></architecture>' // &
    '<data><parameter name="NX" type="int" value="12"/>' // &
    '<parameter name="NY" type="int" value="10"/>' // &
    '<parameter name="LABEL" type="string" value="heat"/>' // &
    '<parameter name="LEVELS" type="short" value="-300"/>' // &
    '<parameter name="FLAG" type="char" value="-5"/>' // &
    '<parameter name="MASKMAX" type="uint16" value="65535"/>' // &
    '<layout name="grid" type="double" dimensions="NX,NY"/>' // &
    '<layout name="bits" type="uint16" dimensions="4"/>' // &
    '<variable name="temperature" layout="grid"/><variable name="mask" layout="bits"/></data>' // &
    '<storage><store name="none" type="null"/></storage>' // &
    '<actions><event name="step" action="unused"/></actions></simulation>'
  real(8), target :: field(12, 10), small(10, 10), wide(24, 10), transposed(10, 12), &
                     reshaped(15, 8), flat(120)
  real(4) :: single(12, 10)
  real(8), pointer :: cube(:, :, :), room(:, :)
  integer :: ierr, is_client, mpi_err, nx, type, ndims, iteration, comm, has_servers
  integer(8) :: dims(ECLUSE_MAX_DIMENSIONS)
  character(len=16) :: label, layout
  character(len=2) :: short
  integer(2) :: levels, mask(4)
  real(8) :: reals(4)
  integer(1) :: flag
  real(8) :: statistic

  call MPI_Init(mpi_err)
  field = 1
  transposed = 1
  reshaped = 1
  flat = 1
  small = 1
  wide = 1
  single = 1
  call ecluse_write('temperature', field, ierr)
  call report('before-initialize', ierr)
  call report_c_write('before-initialize-c', 'temperature', field)
  comm = -7  ! a failed call leaves it: handle 0 would be MPI_COMM_WORLD under Open MPI
  call ecluse_client_comm_get(comm, ierr)
  print '(a, i0, a)', 'comm-kept|', comm, ' ' // ecluse_status_name(ierr)

  call ecluse_initialize_string(config, MPI_COMM_WORLD, ierr)
  call report('initialize', ierr)
  call ecluse_start(is_client, ierr)
  call ecluse_write('temprature', field, ierr)
  call report('unknown-variable', ierr)
  call report_c_write('unknown-variable-c', 'temprature', field)
  call ecluse_write('temperature', small, ierr)
  call report('wrong-size', ierr)
  call ecluse_write('temperature', wide(1:24:3, :), ierr)
  call report('strided-wrong-size', ierr)
  call ecluse_write('temperature', transposed, ierr)
  call report('transposed', ierr)
  call ecluse_write('temperature', reshaped, ierr)
  call report('reshaped', ierr)
  call ecluse_write('temperature', single, ierr)
  call report('wrong-type', ierr)
  ! Fortran has no unsigned integers: a uint16 layout takes integer(2), the same bits.
  reals = 1
  call ecluse_write('mask', reals, ierr)
  call report('unsigned-wrong-type', ierr)
  mask = [0_2, -1_2, 1_2, 7_2]
  call ecluse_write('mask', mask, ierr)
  call report('unsigned-as-integer', ierr)
  call ecluse_variable_type('mask', type, ierr)
  print '(a, i0, a)', 'unsigned-type|', type, ' ' // ecluse_status_name(ierr)
  call ecluse_parameter_get('MASKMAX', levels, ierr)
  print '(a, i0, a)', 'unsigned-parameter|', levels, ' ' // ecluse_status_name(ierr)
  call ecluse_alloc('temperature', cube, ierr)
  call report('alloc-wrong-rank', ierr)
  call ecluse_set_position('temperature', [0, 0, 0], ierr)
  call report('position-wrong-length', ierr)
  call ecluse_parameter_get('NZ', nx, ierr)
  call report('unknown-parameter', ierr)
  call ecluse_get_statistic('dn.credit_waits', statistic, ierr)
  call report('unknown-statistic', ierr)
  call ecluse_write('temperature', field, ierr)
  call report('valid-write', ierr)
  call ecluse_write('temperature', field, ierr)
  print '(a, l1)', 'already-written|', ierr == ECLUSE_ALREADY_WRITTEN
  call ecluse_has_servers(has_servers, ierr)
  print '(a, i0, a)', 'has-servers|', has_servers, ' ' // ecluse_status_name(ierr)
  type = -1
  call ecluse_variable_type('temperature', type, ierr)
  print '(a, i0, a)', 'variable-type|', type, ' ' // ecluse_status_name(ierr)
  call ecluse_parameter_type('LABEL', type, ierr)
  print '(a, i0, a)', 'parameter-type|', type, ' ' // ecluse_status_name(ierr)
  call ecluse_variable_layout('temperature', layout, ierr)
  print '(a)', 'layout|"' // trim(layout) // '" ' // ecluse_status_name(ierr)
  short = 'xx'
  call ecluse_variable_layout('temperature', short, ierr)
  print '(a)', 'layout-too-long|"' // short // '" ' // ecluse_status_name(ierr)

  call ecluse_variable_shape('temperature', type, ndims, dims, ierr)
  print '(a, 4(i0, a))', 'shape|type ', type, ', ', ndims, ' dimensions (', dims(1), ',', &
    dims(2), ')'
  call ecluse_parameter_get('LEVELS', levels, ierr)
  call ecluse_parameter_get('FLAG', flag, ierr)
  print '(a, 2(i0, a))', 'small-integers|', levels, ' ', flag, ' ' // ecluse_status_name(ierr)
  levels = 7
  call ecluse_parameter_set('LEVELS', levels, ierr)
  levels = 0
  call ecluse_parameter_get('LEVELS', levels, ierr)
  print '(a, i0, a)', 'short-set|', levels, ' ' // ecluse_status_name(ierr)
  call ecluse_parameter_get('LABEL', label, ierr)
  print '(a)', 'label|"' // trim(label) // '" ' // ecluse_status_name(ierr)
  call ecluse_bind('step', on_step, ierr)
  call report('bind', ierr)
  call ecluse_signal('step', ierr)
  call ecluse_end_iteration(ierr)
  call ecluse_get_iteration(iteration, ierr)
  print '(a, i0)', 'iteration|', iteration
  call ecluse_alloc('temperature', room, ierr)
  print '(a, 2(i0, a))', 'alloc|shape (', size(room, 1), ',', size(room, 2), ') ' // &
    ecluse_status_name(ierr)
  room = 2
  call ecluse_commit_iteration('temperature', 0, ierr)
  call report('commit-other-iteration', ierr)
  call ecluse_commit_iteration('temperature', 1, ierr)
  call report('commit', ierr)
  call ecluse_clear_iteration('temperature', 0, ierr)
  call report('clear-earlier-iteration', ierr)
  call ecluse_end_iteration(ierr)
  call write_assumed_size('assumed-size', 'temperature', 12, field)
  call ecluse_end_iteration(ierr)
  call write_assumed_size('assumed-size-wrong-extent', 'temperature', 10, wide)
  call ecluse_write('temperature', flat, ierr)
  call report('flat', ierr)
  call ecluse_end_iteration(ierr)
  call ecluse_stop(ierr)
  call ecluse_finalize(ierr)
  call report('finalize', ierr)
  call MPI_Finalize(mpi_err)
end program errors
