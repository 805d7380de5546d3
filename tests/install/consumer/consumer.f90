! A user's Fortran program built against an installed Ecluse: the C consumer's ramp, written
! through the `ecluse` module (Fortran layout order, integer communicator).
program consumer_f
  use mpi
  use ecluse
  implicit none
  character(len=*), parameter :: config = &
    "<simulation name='consumer_f' language='fortran' xmlns='urn:ecluse:config:1'>" // &
    "<architecture><domains count='1'/><dedicated cores='0' nodes='0'/></architecture>" // &
    "<data><parameter name='N' type='int' value='4'/>" // &
    "<layout name='row' type='int' dimensions='N' global='N*2'/>" // &
    "<variable name='ramp' layout='row'/></data>" // &
    "<storage><store name='h5' type='HDF5'><option key='FileMode'>Collective</option>" // &
    "<option key='FilesPath'>out</option></store></storage></simulation>"
  integer :: ierr, rank, is_client, i
  integer :: ramp(4)
  integer(8) :: position(1)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call ecluse_initialize_string(config, MPI_COMM_WORLD, ierr)
  call check(ierr, "initialize")
  call ecluse_start(is_client, ierr)
  call check(ierr, "start")
  position(1) = 4_8 * rank
  call ecluse_set_position("ramp", position, ierr)
  call check(ierr, "set_position")
  ramp = [(100 * rank + i, i = 0, 3)]
  call ecluse_write("ramp", ramp, ierr)
  call check(ierr, "write")
  call ecluse_end_iteration(ierr)
  call check(ierr, "end_iteration")
  call ecluse_stop(ierr)
  call check(ierr, "stop")
  call ecluse_finalize(ierr)
  call check(ierr, "finalize")
  if (rank == 0) print '(a)', "consumer_f: ok"
  call MPI_Finalize(ierr)
contains
  subroutine check(err, what)
    integer, intent(in) :: err
    character(len=*), intent(in) :: what
    integer :: ignored
    if (err /= ECLUSE_OK) then
      print '(a, ": ", a)', what, ecluse_error_message()
      call MPI_Abort(MPI_COMM_WORLD, 1, ignored)
    end if
  end subroutine check
end program consumer_f
