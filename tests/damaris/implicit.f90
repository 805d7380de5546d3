! A Damaris Fortran program in the style of Damaris's own examples: no `use damaris`, every
! damaris_<name>_f called through an implicit interface (libdamaris's external procedures).
! It writes what mesh.f90 writes, pressure by copy. Usage: damaris_implicit_f <xml> sync|dedicated
program implicit
  use mpi
  implicit none
  integer, parameter :: DOMAINS = 2, PHASES = 2, PER_PHASE = 2, POINTS = 5
  integer :: rank = 0, ierr, err, phase, is_client, comm, clients, i, expected_err
  character(len=256) :: xml, mode

  call get_command_argument(1, xml)
  call get_command_argument(2, mode)
  expected_err = merge(0, 4, trim(mode) == 'dedicated')  ! DAMARIS_OK or DAMARIS_NO_SERVER
  call MPI_Init(ierr)
  call damaris_initialize_f(trim(xml), MPI_COMM_WORLD, err)
  call expect(err, 0, 'damaris_initialize_f')
  do phase = 0, PHASES - 1
    call damaris_start_f(is_client, err)
    call expect(err, expected_err, 'damaris_start_f')
    if (is_client == 1) then
      call damaris_client_comm_get_f(comm, err)
      call expect(err, 0, 'damaris_client_comm_get_f')
      call MPI_Comm_rank(comm, rank, ierr)
      call MPI_Comm_size(comm, clients, ierr)
      if (phase == 0) call check_string_parameter('TITLE')  ! clients only may set
      do i = 0, PER_PHASE - 1
        call iterate(phase * PER_PHASE + i)
      end do
      call damaris_stop_f(err)
      call expect(err, expected_err, 'damaris_stop_f')
    end if
  end do
  call damaris_finalize_f(err)
  call expect(err, 0, 'damaris_finalize_f')
  write (*, '(a)') 'damaris_mesh: ok'  ! before MPI_Finalize: MPICH may drop later output
  flush (6)
  call MPI_Finalize(ierr)

contains

  subroutine expect(got, want, what)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    if (got == want) return
    write (0, '(a,i0,a,a,a,i0,a,i0)') 'rank ', rank, ': ', what, ' returned ', got, &
      ', expected ', want
    call exit(1)
  end subroutine expect

  include 'string_parameter.inc'

  integer function parameter(name) result(value)
    character(len=*), intent(in) :: name
    call damaris_parameter_get_f(name, value, 4, err)
    call expect(err, 0, 'damaris_parameter_get_f')
  end function parameter

  subroutine iterate(expected)
    integer, intent(in) :: expected
    integer :: iteration, npts, b, j, origin(3), nx, ny, nz
    integer(8) :: position(3), zero(1)
    real(8), allocatable :: cells(:)
    real(4), allocatable :: pres(:)
    call damaris_get_iteration_f(iteration, err)
    call expect(iteration, expected, 'damaris_get_iteration_f')
    nx = parameter('NX') + 2
    ny = parameter('NY') + 2
    nz = parameter('NZ') + 2
    allocate (cells(nx * ny * nz), pres(parameter('NPTS')))
    do b = 0, DOMAINS - 1
      position = [0_8, 0_8, int((rank * DOMAINS + b) * (nx - 2), 8)]
      cells = [(iteration * 1d6 + (rank * DOMAINS + b) * 1d4 + (j - 1), j = 1, size(cells))]
      call damaris_set_block_position_f('fields/temperature', b, position, err)
      call expect(err, 0, 'damaris_set_block_position_f')
      call damaris_write_block_f('fields/temperature', b, cells, err)
      call expect(err, 0, 'damaris_write_block_f')
      pres = [(real(iteration * 100 + rank * 10 + b, 4) + real(j - 1, 4) / 8.0, &
                 j = 1, size(pres))]
      call damaris_write_block_f('pressure', b, pres, err)
      call expect(err, 0, 'damaris_write_block_f')
    end do
    origin = [rank, iteration, 7]
    zero = 0
    call damaris_set_position_f('origin', zero, err)
    call expect(err, 0, 'damaris_set_position_f')
    call damaris_write_f('origin', origin, err)
    call expect(err, 0, 'damaris_write_f')
    call damaris_commit_iteration_f('pressure', iteration + 1, err)
    call expect(err, 19, 'damaris_commit_iteration_f (a later iteration)')
    call damaris_clear_block_iteration_f('pressure', 1, iteration - 1, err)
    call expect(err, 0, 'damaris_clear_block_iteration_f (an ended iteration)')
    call damaris_end_iteration_f(err)
    call expect(err, 0, 'damaris_end_iteration_f')
    npts = POINTS + iteration + 1
    call damaris_parameter_set_f('NPTS', npts, 4, err)
    call expect(err, 0, 'damaris_parameter_set_f')
  end subroutine iterate

end program implicit
