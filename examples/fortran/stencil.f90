! A small atmospheric-like model: theta and qv on a 3-D grid split over a 2-D process grid (x, y;
! full columns), advected by a uniform wind with halo exchanges, theta diffused along the column.
! The wind moves one cell per step in x and in y (Courant number 1) and every value is a dyadic
! rational of few bits, so the arithmetic is exact and a reader can recompute every value.
module stencil_grid
  use mpi_f08
  implicit none
  private
  public :: grid_t, make_grid

  !> This rank's part of the global NX x NY x NZ grid.
  type :: grid_t
    type(MPI_Comm) :: cart
    integer :: nx, ny, nz, x0, y0
    integer :: west, east, south, north
  end type grid_t

contains

  !> Splits NX x NY over the ranks of comm, periodic in x and y.
  function make_grid(comm, nx_global, ny_global, nz) result(grid)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: nx_global, ny_global, nz
    type(grid_t) :: grid
    integer :: size, rank, dims(2), coords(2)
    call MPI_Comm_size(comm, size)
    dims = 0
    call MPI_Dims_create(size, 2, dims)
    if (mod(nx_global, dims(1)) /= 0 .or. mod(ny_global, dims(2)) /= 0) then
      write (0, '(a, 4(i0, a))') 'stencil: the grid ', nx_global, ' x ', ny_global, &
        ' does not split evenly over ', dims(1), ' x ', dims(2), ' ranks'
      call MPI_Abort(comm, 1)
    end if
    call MPI_Cart_create(comm, 2, dims, [.true., .true.], .false., grid%cart)
    call MPI_Comm_rank(grid%cart, rank)
    call MPI_Cart_coords(grid%cart, rank, 2, coords)
    call MPI_Cart_shift(grid%cart, 0, 1, grid%west, grid%east)
    call MPI_Cart_shift(grid%cart, 1, 1, grid%south, grid%north)
    grid%nx = nx_global / dims(1)
    grid%ny = ny_global / dims(2)
    grid%nz = nz
    grid%x0 = coords(1) * grid%nx
    grid%y0 = coords(2) * grid%ny
  end function make_grid
end module stencil_grid

module stencil_halo
  use mpi_f08
  use stencil_grid, only: grid_t
  implicit none
  private
  public :: exchange_x, exchange_y

contains

  !> Fills the west and east ghost planes of f(0:nx+1, 0:ny+1, nz) from the neighbours.
  subroutine exchange_x(grid, f)
    type(grid_t), intent(in) :: grid
    real(8), intent(inout) :: f(0:, 0:, :)
    real(8) :: send(size(f, 2), size(f, 3)), receive(size(f, 2), size(f, 3))
    integer :: n
    n = size(send)
    send = f(grid%nx, :, :)
    call MPI_Sendrecv(send, n, MPI_DOUBLE_PRECISION, grid%east, 1, receive, n, &
                      MPI_DOUBLE_PRECISION, grid%west, 1, grid%cart, MPI_STATUS_IGNORE)
    f(0, :, :) = receive
    send = f(1, :, :)
    call MPI_Sendrecv(send, n, MPI_DOUBLE_PRECISION, grid%west, 2, receive, n, &
                      MPI_DOUBLE_PRECISION, grid%east, 2, grid%cart, MPI_STATUS_IGNORE)
    f(grid%nx + 1, :, :) = receive
  end subroutine exchange_x

  !> Fills the south and north ghost planes (x ghosts included, so corners are right too).
  subroutine exchange_y(grid, f)
    type(grid_t), intent(in) :: grid
    real(8), intent(inout) :: f(0:, 0:, :)
    real(8) :: send(size(f, 1), size(f, 3)), receive(size(f, 1), size(f, 3))
    integer :: n
    n = size(send)
    send = f(:, grid%ny, :)
    call MPI_Sendrecv(send, n, MPI_DOUBLE_PRECISION, grid%north, 3, receive, n, &
                      MPI_DOUBLE_PRECISION, grid%south, 3, grid%cart, MPI_STATUS_IGNORE)
    f(:, 0, :) = receive
    send = f(:, 1, :)
    call MPI_Sendrecv(send, n, MPI_DOUBLE_PRECISION, grid%south, 4, receive, n, &
                      MPI_DOUBLE_PRECISION, grid%north, 4, grid%cart, MPI_STATUS_IGNORE)
    f(:, grid%ny + 1, :) = receive
  end subroutine exchange_y
end module stencil_halo

module stencil_physics
  use stencil_grid, only: grid_t
  use stencil_halo, only: exchange_x, exchange_y
  implicit none
  private
  public :: initialize_fields, advect, diffuse_column

  real(8), parameter :: courant = 1, kappa = 0.25d0

contains

  !> Analytic initial state from the global indices (0-based): integers below 512.
  subroutine initialize_fields(grid, theta, qv)
    type(grid_t), intent(in) :: grid
    real(8), intent(out) :: theta(0:, 0:, :), qv(0:, 0:, :)
    integer :: i, j, k, gi, gj
    theta = 0
    qv = 0
    do k = 1, grid%nz
      do j = 1, grid%ny
        do i = 1, grid%nx
          gi = grid%x0 + i - 1
          gj = grid%y0 + j - 1
          theta(i, j, k) = 290 + 2 * (k - 1) + mod(3 * gi + 5 * gj, 17)
          qv(i, j, k) = mod(7 * gi + 11 * gj + 13 * (k - 1), 23)
        end do
      end do
    end do
  end subroutine initialize_fields

  !> First-order upwind advection by a positive wind, split in x then y.
  subroutine advect(grid, f)
    type(grid_t), intent(in) :: grid
    real(8), intent(inout) :: f(0:, 0:, :)
    integer :: i, j
    call exchange_x(grid, f)
    do i = grid%nx, 1, -1
      f(i, 1:grid%ny, :) = f(i, 1:grid%ny, :) - courant * (f(i, 1:grid%ny, :) - &
                                                            f(i - 1, 1:grid%ny, :))
    end do
    call exchange_y(grid, f)
    do j = grid%ny, 1, -1
      f(1:grid%nx, j, :) = f(1:grid%nx, j, :) - courant * (f(1:grid%nx, j, :) - &
                                                            f(1:grid%nx, j - 1, :))
    end do
  end subroutine advect

  !> Explicit vertical diffusion, no flux through the bottom and the top.
  subroutine diffuse_column(grid, f)
    type(grid_t), intent(in) :: grid
    real(8), intent(inout) :: f(0:, 0:, :)
    real(8) :: column(0:grid%nz + 1)
    integer :: i, j, k
    do j = 1, grid%ny
      do i = 1, grid%nx
        column(1:grid%nz) = f(i, j, :)
        column(0) = column(1)
        column(grid%nz + 1) = column(grid%nz)
        do k = 1, grid%nz
          f(i, j, k) = column(k) + kappa * (column(k + 1) - 2 * column(k) + column(k - 1))
        end do
      end do
    end do
  end subroutine diffuse_column
end module stencil_physics

module stencil_output
  use mpi_f08
  use ecluse
  use stencil_grid, only: grid_t
  implicit none
  private
  public :: check, describe_blocks, write_fields

  real(8), parameter :: cloud_threshold = 18

contains

  subroutine check(ierr, call)
    integer, intent(in) :: ierr
    character(len=*), intent(in) :: call
    if (ierr == ECLUSE_OK) return
    write (0, '(a)') call // ' failed: ' // ecluse_status_name(ierr) // ': ' // &
      ecluse_error_message()
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine check

  !> This rank's block sizes and global offsets (in the layouts' order: x, y, z).
  subroutine describe_blocks(grid)
    type(grid_t), intent(in) :: grid
    integer :: ierr, i
    character(len=5), parameter :: fields(3) = ['theta', 'qv   ', 'cloud']
    call ecluse_parameter_set('NXL', grid%nx, ierr)
    call check(ierr, 'ecluse_parameter_set NXL')
    call ecluse_parameter_set('NYL', grid%ny, ierr)
    call check(ierr, 'ecluse_parameter_set NYL')
    do i = 1, size(fields)
      call ecluse_set_position(trim(fields(i)), [grid%x0, grid%y0, 0], ierr)
      call check(ierr, 'ecluse_set_position ' // trim(fields(i)))
    end do
    call ecluse_set_position('rain', [grid%x0, grid%y0], ierr)
    call check(ierr, 'ecluse_set_position rain')
    call ecluse_set_position('ground', [grid%x0, grid%y0], ierr)
    call check(ierr, 'ecluse_set_position ground')
  end subroutine describe_blocks

  subroutine write_fields(grid, theta, qv, rain)
    type(grid_t), intent(in) :: grid
    real(8), intent(in) :: theta(0:, 0:, :), qv(0:, 0:, :)
    real(4), intent(in) :: rain(:, :)
    integer :: cloud(grid%nx, grid%ny, grid%nz)
    integer :: ierr
    call ecluse_write('theta', theta, ierr)
    call check(ierr, 'ecluse_write theta')
    call ecluse_write('qv', qv, ierr)
    call check(ierr, 'ecluse_write qv')
    cloud = merge(1, 0, qv(1:grid%nx, 1:grid%ny, :) >= cloud_threshold)
    call ecluse_write('cloud', cloud, ierr)
    call check(ierr, 'ecluse_write cloud')
    ! A section that is not contiguous: the compiler copies it in, the copy is handed over.
    call ecluse_write('ground', theta(1:grid%nx, 1:grid%ny, 1), ierr)
    call check(ierr, 'ecluse_write ground')
    call write_in_place(rain)
  end subroutine write_fields

  !> The rain goes straight into Ecluse's buffer (no copy by the write): alloc, fill, commit.
  subroutine write_in_place(rain)
    real(4), intent(in) :: rain(:, :)
    real(4), pointer :: room(:, :)
    integer :: ierr
    nullify (room)  ! defined before the call, or gfortran -Wall warns it is used uninitialized
    call ecluse_alloc('rain', room, ierr)
    call check(ierr, 'ecluse_alloc rain')
    room = rain
    call ecluse_commit('rain', ierr)
    call check(ierr, 'ecluse_commit rain')
  end subroutine write_in_place
end module stencil_output

program stencil
  use mpi_f08
  use ecluse
  use stencil_grid
  use stencil_output
  use stencil_physics
  implicit none
  character(len=256) :: config
  type(MPI_Comm) :: comm
  type(grid_t) :: grid
  integer :: ierr, is_client, nx, ny, nz, steps, every, step, rank
  real(8), allocatable :: theta(:, :, :), qv(:, :, :)
  real(4), allocatable :: rain(:, :)

  call MPI_Init()
  config = 'stencil.xml'
  if (command_argument_count() >= 1) call get_command_argument(1, config)
  call ecluse_initialize(config, MPI_COMM_WORLD, ierr)
  call check(ierr, 'ecluse_initialize')
  call ecluse_start(is_client, ierr)
  call check(ierr, 'ecluse_start')
  if (is_client /= 0) then
    call ecluse_client_comm_get(comm, ierr)
    call check(ierr, 'ecluse_client_comm_get')
    call ecluse_parameter_get('NX', nx, ierr)
    call check(ierr, 'ecluse_parameter_get NX')
    call ecluse_parameter_get('NY', ny, ierr)
    call check(ierr, 'ecluse_parameter_get NY')
    call ecluse_parameter_get('NZ', nz, ierr)
    call check(ierr, 'ecluse_parameter_get NZ')
    call ecluse_parameter_get('STEPS', steps, ierr)
    call check(ierr, 'ecluse_parameter_get STEPS')
    call ecluse_parameter_get('OUTPUT_EVERY', every, ierr)
    call check(ierr, 'ecluse_parameter_get OUTPUT_EVERY')
    grid = make_grid(comm, nx, ny, nz)
    call describe_blocks(grid)
    allocate (theta(0:grid%nx + 1, 0:grid%ny + 1, nz), qv(0:grid%nx + 1, 0:grid%ny + 1, nz))
    allocate (rain(grid%nx, grid%ny))
    call initialize_fields(grid, theta, qv)
    rain = 0
    do step = 0, steps
      if (step > 0) then
        call advect(grid, theta)
        call advect(grid, qv)
        call diffuse_column(grid, theta)
        rain = rain + real(qv(1:grid%nx, 1:grid%ny, 1), 4)
      end if
      if (mod(step, every) == 0) call write_fields(grid, theta, qv, rain)
      call ecluse_end_iteration(ierr)
      call check(ierr, 'ecluse_end_iteration')
    end do
    call MPI_Comm_rank(grid%cart, rank)
    if (rank == 0) print '(a, 4(i0, a))', 'stencil: ', steps, ' steps, output every ', every, &
      ', on ', nx / grid%nx, ' x ', ny / grid%ny, ' ranks'
    call ecluse_stop(ierr)
    call check(ierr, 'ecluse_stop')
  end if
  call ecluse_finalize(ierr)
  call check(ierr, 'ecluse_finalize')
  call MPI_Finalize()
end program stencil
