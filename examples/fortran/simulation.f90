! The example simulation (examples/simulation.c) in Fortran: each rank owns a slab of a 2-D
! temperature field with ghost cells and hands it to Ecluse at the end of every iteration.
module heat_actions
  use, intrinsic :: iso_c_binding, only: c_int32_t, c_ptr
  use ecluse, only: ecluse_string
  implicit none
  private
  public :: on_checkpoint

contains

  !> Called by Ecluse when the simulation signals "checkpoint" (declared in <actions>).
  subroutine on_checkpoint(event, source, iteration, args) bind(C, name="on_checkpoint")
    type(c_ptr), value :: event, args
    integer(c_int32_t), value :: source, iteration
    character(len=:), allocatable :: arguments
    if (source /= 0) return
    print '(a, i0)', 'event ' // ecluse_string(event) // ' at iteration ', iteration
    arguments = ecluse_string(args)
    if (len(arguments) > 0) print '(a)', '  with arguments ' // arguments
  end subroutine on_checkpoint
end module heat_actions

module heat
  use mpi
  use ecluse
  implicit none
  private
  public :: check, compute

contains

  !> Stops every rank with the call's name, status and message when a call failed.
  subroutine check(ierr, call)
    integer, intent(in) :: ierr
    character(len=*), intent(in) :: call
    integer :: mpi_err
    if (ierr == ECLUSE_OK) return
    write (0, '(a)') call // ' failed: ' // ecluse_status_name(ierr) // ': ' // &
      ecluse_error_message()
    call MPI_Abort(MPI_COMM_WORLD, 1, mpi_err)
  end subroutine check

  !> Value of global cell (i, j) at an iteration: known, so readers can check the output.
  pure real(8) function expected(iteration, i, j)
    integer, intent(in) :: iteration, i, j
    expected = iteration * 1d6 + i * 1d3 + j
  end function expected

  !> slab(0:ny+1, 0:nx+1): j (along y) varies fastest, as in the C example's rows.
  subroutine compute(slab, x0, iteration)
    real(8), intent(out) :: slab(0:, 0:)
    integer, intent(in) :: x0, iteration
    integer :: i, j, nx, ny
    ny = size(slab, 1) - 2
    nx = size(slab, 2) - 2
    slab = -1
    do i = 1, nx
      do j = 1, ny
        slab(j, i) = expected(iteration, x0 + i - 1, j - 1)
      end do
    end do
  end subroutine compute
end module heat

program simulation
  use mpi
  use ecluse
  use heat
  implicit none
  character(len=256) :: config, argument
  integer :: iterations, ierr, mpi_err, is_client, comm, rank, size, nx_global, nx, ny, it, j, x0
  real(8), allocatable :: slab(:, :)
  real(4), allocatable :: y(:)

  call MPI_Init(mpi_err)
  config = 'simulation.xml'
  iterations = 5
  if (command_argument_count() >= 1) call get_command_argument(1, config)
  if (command_argument_count() >= 2) then
    call get_command_argument(2, argument)
    read (argument, *) iterations
  end if
  call ecluse_initialize(config, MPI_COMM_WORLD, ierr)
  call check(ierr, 'ecluse_initialize')
  call ecluse_start(is_client, ierr)
  call check(ierr, 'ecluse_start')
  if (is_client /= 0) then
    call ecluse_client_comm_get(comm, ierr)
    call check(ierr, 'ecluse_client_comm_get')
    call MPI_Comm_rank(comm, rank, mpi_err)
    call MPI_Comm_size(comm, size, mpi_err)
    call ecluse_parameter_get('NX', nx_global, ierr)
    call check(ierr, 'ecluse_parameter_get')
    call ecluse_parameter_get('NY', ny, ierr)
    call check(ierr, 'ecluse_parameter_get')
    ! The first mod(nx_global, size) ranks take one row more, so the slabs tile all the rows.
    nx = nx_global / size
    x0 = rank * nx + min(rank, mod(nx_global, size))
    if (rank < mod(nx_global, size)) nx = nx + 1
    call ecluse_parameter_set('ROWS', nx, ierr)
    call check(ierr, 'ecluse_parameter_set')
    ! Positions in the layout's order (Fortran): y first, then x.
    call ecluse_set_position('temperature', [0, x0], ierr)
    call check(ierr, 'ecluse_set_position')
    allocate (slab(0:ny + 1, 0:nx + 1), y(ny))
    y = [(0.5 * j, j = 0, ny - 1)]
    call ecluse_write('y', y, ierr)
    call check(ierr, 'ecluse_write')
    do it = 0, iterations - 1
      call compute(slab, x0, it)
      call ecluse_write('temperature', slab, ierr)
      call check(ierr, 'ecluse_write')
      call ecluse_write('diagnostics/stats', [it, rank, nx, ny], ierr)
      call check(ierr, 'ecluse_write')
      if (it == iterations - 1) then
        call ecluse_signal('checkpoint', ierr)
        call check(ierr, 'ecluse_signal')
      end if
      call ecluse_end_iteration(ierr)
      call check(ierr, 'ecluse_end_iteration')
    end do
    if (rank == 0) print '(a, i0, a, i0, a)', 'heat: ', iterations, ' iterations on ', size, &
      ' ranks written'
    call ecluse_stop(ierr)
    call check(ierr, 'ecluse_stop')
  end if
  call ecluse_finalize(ierr)
  call check(ierr, 'ecluse_finalize')
  call MPI_Finalize(mpi_err)
end program simulation
