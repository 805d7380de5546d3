! world_comm_program (tests/mpi) in Fortran: a client calls a collective on MPI_COMM_WORLD,
! which holds the servers under dedicated cores or nodes. With libecluse_mpicheck preloaded the
! call is refused with MPI_ERR_COMM at once, though Open MPI's Fortran bindings never enter the
! C MPI_Barrier (tests/python/test_fault_injection.py). Built twice: with `use mpi_f08`
! (WORLD_COMM_F08) and with `use mpi`. Arguments: dc|dn, then fatal|return|clients|split.
#ifdef WORLD_COMM_F08
#define COMM type(MPI_Comm)
#define IERR
#define COMMA_IERR
#else
#define COMM integer
#define IERR ierr
#define COMMA_IERR , ierr
#endif
program world_comm
#ifdef WORLD_COMM_F08
  use mpi_f08
#else
  use mpi
#endif
  use ecluse
  implicit none
  character(len=16) :: approach, mode
  character(len=:), allocatable :: architecture
  COMM :: clients, split
  real(8) :: data(100)
  integer :: ierr, is_client, status, error_class

  call MPI_Init(IERR)
  call get_command_argument(1, approach)
  call get_command_argument(2, mode)
  if (approach == 'dn') then
    architecture = '<dedicated nodes="1"/><virtual-nodes ranks-per-node="1"/>'
  else
    architecture = '<dedicated cores="1"/><virtual-nodes ranks-per-node="2"/>'
  end if
  call ecluse_initialize_string('<simulation name="worldf"><architecture>' // architecture // &
    '<buffer size="1MiB"/></architecture><data><layout name="l" type="double" ' // &
    'dimensions="100"/><variable name="v" layout="l"/></data><storage><store name="s" ' // &
    'type="null"/></storage></simulation>', MPI_COMM_WORLD, ierr)
  if (ierr /= ECLUSE_OK) call MPI_Abort(MPI_COMM_WORLD, 2 COMMA_IERR)
  call ecluse_start(is_client, ierr)
  if (is_client /= 0) then
    data = 1
    call ecluse_write('v', data, ierr)
    call ecluse_end_iteration(ierr)
    if (mode == 'return') call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN COMMA_IERR)
    call ecluse_client_comm_get(clients, ierr)
    if (mode == 'clients') then
      call MPI_Barrier(clients, status)
    else if (mode == 'split') then
      call MPI_Comm_split(MPI_COMM_WORLD, 0, 0, split, status)
    else
      call MPI_Barrier(MPI_COMM_WORLD, status)  ! the mistake
    end if
    call MPI_Error_class(status, error_class COMMA_IERR)
    if (error_class == MPI_ERR_COMM) write (0, '(a)') 'MPI_Barrier returned MPI_ERR_COMM'
    call ecluse_stop(ierr)
  end if
  call ecluse_finalize(ierr)
  call MPI_Finalize(IERR)
end program world_comm
