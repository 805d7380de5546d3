! Module damaris_constants (Damaris.h's codes, types and plugin kinds) beside `use damaris`, and
! Damaris 1.9's calls in Fortran: damaris_get_type_f, damaris_has_plugin_f,
! damaris_error_string_f, through the module; the external procedures are called from
! external_calls below, without the module. Prints "constants: ok" or exits 1 on a mismatch.
! Usage: damaris_constants_f <xml> (a double variable 'cells', no variable 'nope').
program constants
  use mpi, only: MPI_COMM_WORLD, MPI_Init, MPI_Finalize
  use damaris
  use damaris_constants
  implicit none
  integer :: ierr, err, is_client, vartype, has
  character(len=256) :: xml
  character(len=64) :: text
  character(len=8) :: short

  call get_command_argument(1, xml)
  call MPI_Init(ierr)
  call damaris_initialize_f(trim(xml), MPI_COMM_WORLD, err)
  call expect(err, DAMARIS_OK, 'damaris_initialize_f')
  call damaris_start_f(is_client, err)
  if (err /= DAMARIS_OK .and. err /= DAMARIS_NO_SERVER) call fail('damaris_start_f', err)
  if (is_client == 1) then
    vartype = -1
    call damaris_get_type_f('cells', vartype, err)
    call expect(err, DAMARIS_OK, 'damaris_get_type_f')
    call expect(vartype, DAMARIS_TYPE_DOUBLE, 'the type of cells')
    vartype = -1
    call damaris_get_type_f('nope', vartype, err)
    call expect(err, DAMARIS_UNDEFINED_VARIABLE, 'damaris_get_type_f of an undeclared variable')
    call expect(vartype, DAMARIS_TYPE_UNDEFINED, 'the type of an undeclared variable')
    call damaris_has_plugin_f(DAMARIS_HAS_HDF5, has)
    call expect(has, 1, 'HDF5')
    call damaris_has_plugin_f(DAMARIS_HAS_PARAVIEW, has)
    call expect(has, 0, 'ParaView')
    call damaris_error_string_f(DAMARIS_UNDEFINED_VARIABLE, text)
    if (text(1:26) /= 'DAMARIS_UNDEFINED_VARIABLE') call fail('error string: ' // text, 0)
    call damaris_error_string_f(DAMARIS_OK, short)  ! cut to the buffer
    if (short /= 'DAMARIS_') call fail('a short error-string buffer: ' // short, 0)
    call external_calls()
    call damaris_stop_f(err)
  end if
  call damaris_finalize_f(err)
  call expect(err, DAMARIS_OK, 'damaris_finalize_f')
  print '(a)', 'constants: ok'
  call MPI_Finalize(ierr)

contains

  subroutine expect(got, want, what)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    if (got /= want) call fail(what, got)
  end subroutine expect

  subroutine fail(what, got)
    character(len=*), intent(in) :: what
    integer, intent(in) :: got
    print '(a, a, i0)', what, ': got ', got
    stop 1
  end subroutine fail

end program constants

! The same calls as external procedures (implicit interfaces), as programs without the module.
subroutine external_calls()
  implicit none
  integer :: err, vartype, has
  character(len=40) :: text
  vartype = -1
  call damaris_get_type_f('cells', vartype, err)
  if (err /= 0 .or. vartype /= 10) stop 2
  call damaris_has_plugin_f(1, has)  ! DAMARIS_HAS_PYTHON
  if (has /= 1) stop 3
  call damaris_error_string_f(16, text)  ! DAMARIS_UNDEFINED_VARIABLE
  if (text(1:26) /= 'DAMARIS_UNDEFINED_VARIABLE') stop 4
end subroutine external_calls
