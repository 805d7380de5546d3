! What Damaris's own module gives a program that writes only `use damaris`: ISO_C_BINDING's
! names (c_ptr, c_f_pointer, c_sizeof) through it, parameter sizes of any integer kind (SIZEOF
! and c_sizeof give integer(8), as in Damaris's listings and Nek5000), a type(MPI_Comm)
! communicator with mpi_f08; and a failed call through the module is said on stderr as through
! the external procedures. Exits 1 on a mismatch. Usage: damaris_module_compat <xml>
program module_compat
#ifdef WITH_MPI_F08
  use mpi_f08, only: MPI_Comm, MPI_COMM_WORLD, MPI_Init, MPI_Finalize
#else
  use mpi, only: MPI_COMM_WORLD, MPI_Init, MPI_Finalize
#endif
  use damaris
  implicit none
  integer, parameter :: N = 6
  integer :: ierr, err, is_client, i, n_got
  integer(8) :: n_big
  type(c_ptr) :: room
  real(8), pointer :: cells(:)
  character(len=256) :: xml
#ifdef WITH_MPI_F08
  type(MPI_Comm) :: clients
#else
  integer :: clients
#endif

  call get_command_argument(1, xml)
  call MPI_Init(ierr)
  call damaris_initialize_f(trim(xml), MPI_COMM_WORLD, err)
  call expect(err, 0, 'damaris_initialize_f')
  call damaris_start_f(is_client, err)
  if (is_client == 1) then
    call damaris_client_comm_get_f(clients, err)
    call expect(err, 0, 'damaris_client_comm_get_f')
    n_big = N
    call damaris_parameter_set_f('n', n_big, sizeof(n_big), err)  ! integer(8) value and size
    call expect(err, 0, 'damaris_parameter_set_f with sizeof')
    n_got = -1
    call damaris_parameter_get_f('n', n_got, c_sizeof(n_got), err)
    call expect(err, 0, 'damaris_parameter_get_f with c_sizeof')
    call expect(n_got, N, 'the parameter read back')
    call check_string_parameter('title')
    room = damaris_alloc_f('cells', err)
    call expect(err, 0, 'damaris_alloc_f')
    call c_f_pointer(room, cells, [N])
    cells = [(real(i, 8) * 0.5d0, i = 1, N)]
    call damaris_commit_f('cells', err)
    call expect(err, 0, 'damaris_commit_f')
    call damaris_write_f('nope', cells, err)  ! said on stderr: [damaris <rank>] error: ...
    call expect(err, 16, 'damaris_write_f of an undeclared variable')
    call damaris_end_iteration_f(err)
    call expect(err, 0, 'damaris_end_iteration_f')
    call damaris_stop_f(err)
  end if
  call damaris_finalize_f(err)
  call expect(err, 0, 'damaris_finalize_f')
  write (*, '(a)') 'module_compat: ok'
  flush (6)
  call MPI_Finalize(ierr)

contains

  include 'expect.inc'

  include 'string_parameter.inc'
end program module_compat
