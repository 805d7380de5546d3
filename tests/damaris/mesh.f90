! The Fortran twin of mesh.c through module damaris: the same calls, values and checks, so that
! its files are byte for byte those of the C program. Usage: damaris_mesh_f <xml> sync|dedicated
module mesh_actions
  use, intrinsic :: iso_c_binding, only: c_int32_t, c_ptr
  use damaris, only: damaris_string
  implicit none
contains
  subroutine on_tick(event, source, iteration, args) bind(C)
    type(c_ptr), value :: event, args
    integer(c_int32_t), value :: source, iteration
    write (*, '(a,1x,a,1x,a,i0,a,i0)') 'action', damaris_string(event), 'from ', source, &
      ' at ', iteration
    flush (6)
    if (.false.) print *, damaris_string(args)
  end subroutine on_tick

  subroutine on_here(event, source, iteration, args) bind(C)
    type(c_ptr), value :: event, args
    integer(c_int32_t), value :: source, iteration
    write (*, '(a,1x,a,1x,a,i0,a,i0)') 'local', damaris_string(event), 'from ', source, &
      ' at ', iteration
    flush (6)
    if (.false.) print *, damaris_string(args)
  end subroutine on_here
end module mesh_actions

program mesh
  use, intrinsic :: iso_c_binding, only: c_f_pointer, c_int64_t, c_ptr
  use mpi
  use damaris
  use mesh_actions
  implicit none
  integer, parameter :: DOMAINS = 2, PHASES = 2, PER_PHASE = 2, POINTS = 5
  integer, parameter :: DAMARIS_OK = 0, DAMARIS_NO_SERVER = 4, DAMARIS_BLOCK_NOT_FOUND = 19
  integer, parameter :: DAMARIS_CORE_IS_SERVER = 3, DAMARIS_NOT_INITIALIZED = 12
  integer :: rank = 0, ierr, phase, is_client, err, untouched
  logical :: dedicated
  character(len=256) :: xml, mode

  call get_command_argument(1, xml)
  call get_command_argument(2, mode)
  dedicated = trim(mode) == 'dedicated'
  call MPI_Init(ierr)
  call failed_calls_leave_their_outputs()
  call damaris_initialize_f(trim(xml), MPI_COMM_WORLD, err)
  call expect(err, DAMARIS_OK, 'damaris_initialize_f')
  call damaris_bind_f('tick', on_tick, err)
  call expect(err, DAMARIS_OK, 'damaris_bind_f')
  call damaris_bind_f('here', on_here, err)
  call expect(err, DAMARIS_OK, 'damaris_bind_f')
  do phase = 0, PHASES - 1
    is_client = -1
    call damaris_start_f(is_client, err)
    call expect(err, merge(DAMARIS_OK, DAMARIS_NO_SERVER, dedicated), 'damaris_start_f')
    if ((err == DAMARIS_OK .or. err == DAMARIS_NO_SERVER) .and. is_client == 1) then
      call simulate(phase)
    end if
    if (is_client == 0) then
      call damaris_end_iteration_f(err)
      call expect(err, DAMARIS_CORE_IS_SERVER, 'damaris_end_iteration_f on a server')
      call damaris_stop_f(err)
      call expect(err, DAMARIS_NO_SERVER, 'damaris_stop_f on a server')
    end if
  end do
  call damaris_finalize_f(err)
  call expect(err, DAMARIS_OK, 'damaris_finalize_f')
  write (*, '(a)') 'damaris_mesh: ok'  ! before MPI_Finalize: MPICH may drop later output
  flush (6)
  call MPI_Finalize(ierr)

contains

  ! Before initialize every call fails; its output argument keeps the caller's value (a program
  ! testing is_client == 1 must not run its client loop on garbage).
  subroutine failed_calls_leave_their_outputs()
    untouched = -7
    call damaris_start_f(untouched, err)
    call expect(err, DAMARIS_NOT_INITIALIZED, 'damaris_start_f before initialize')
    call expect(untouched, -7, 'is_client after a failed damaris_start_f')
    call damaris_client_comm_get_f(untouched, err)
    call expect(err, DAMARIS_NOT_INITIALIZED, 'damaris_client_comm_get_f before initialize')
    call expect(untouched, -7, 'comm after a failed damaris_client_comm_get_f')
    call damaris_get_iteration_f(untouched, err)
    call expect(err, DAMARIS_NOT_INITIALIZED, 'damaris_get_iteration_f before initialize')
    call expect(untouched, -7, 'iteration after a failed damaris_get_iteration_f')
  end subroutine failed_calls_leave_their_outputs

  subroutine expect(got, want, what)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    if (got == want) return
    write (0, '(a,i0,a,a,a,i0,a,i0)') 'rank ', rank, ': ', what, ' returned ', got, &
      ', expected ', want
    call exit(1)
  end subroutine expect

  integer function parameter(name) result(value)
    character(len=*), intent(in) :: name
    call damaris_parameter_get_f(name, value, 4, err)
    call expect(err, DAMARIS_OK, 'damaris_parameter_get_f')
  end function parameter

  subroutine simulate(phase)
    integer, intent(in) :: phase
    integer :: comm, clients, i
    call damaris_client_comm_get_f(comm, err)
    call expect(err, DAMARIS_OK, 'damaris_client_comm_get_f')
    call MPI_Comm_rank(comm, rank, ierr)
    call MPI_Comm_size(comm, clients, ierr)
    call expect(clients, parameter('CLIENTS'), 'the number of clients')
    do i = 0, PER_PHASE - 1
      call iterate(phase * PER_PHASE + i)
    end do
    call damaris_stop_f(err)
    call expect(err, merge(DAMARIS_OK, DAMARIS_NO_SERVER, dedicated), 'damaris_stop_f')
    write (*, '(a,i0,a,i0,a)') 'client ', rank, ': phase ', phase, ' done'
  end subroutine simulate

  subroutine iterate(expected)
    integer, intent(in) :: expected
    integer :: iteration, npts
    call damaris_get_iteration_f(iteration, err)
    call expect(err, DAMARIS_OK, 'damaris_get_iteration_f')
    call expect(iteration, expected, 'the iteration number')
    call write_temperature(iteration)
    call write_origin(iteration)
    call write_pressure(iteration)
    call damaris_signal_f('tick', err)
    call expect(err, DAMARIS_OK, 'damaris_signal_f')
    call damaris_signal_f('here', err)
    call expect(err, DAMARIS_OK, 'damaris_signal_f (local)')
    call damaris_end_iteration_f(err)
    call expect(err, DAMARIS_OK, 'damaris_end_iteration_f')
    npts = POINTS + iteration + 1
    call damaris_parameter_set_f('NPTS', npts, 4, err)
    call expect(err, DAMARIS_OK, 'damaris_parameter_set_f')
  end subroutine iterate

  ! The C layout NZ+2,NY+2,NX+2 is the Fortran array (NX+2,NY+2,NZ+2): the same memory.
  subroutine write_temperature(iteration)
    integer, intent(in) :: iteration
    real(8), allocatable :: cells(:)
    integer :: nx, ny, nz, b, i, global_block
    integer(c_int64_t) :: position(3)
    nx = parameter('NX') + 2
    ny = parameter('NY') + 2
    nz = parameter('NZ') + 2
    allocate (cells(nx * ny * nz))
    do b = 0, DOMAINS - 1
      global_block = rank * DOMAINS + b
      position = [0_c_int64_t, 0_c_int64_t, int(global_block * (nx - 2), c_int64_t)]
      do i = 1, size(cells)
        cells(i) = iteration * 1d6 + global_block * 1d4 + (i - 1)
      end do
      call damaris_set_block_position_f('fields/temperature', b, position, err)
      call expect(err, DAMARIS_OK, 'damaris_set_block_position_f')
      call damaris_write_block_f('fields/temperature', b, cells, err)
      call expect(err, DAMARIS_OK, 'damaris_write_block_f')
    end do
  end subroutine write_temperature

  subroutine write_origin(iteration)
    integer, intent(in) :: iteration
    integer :: wide(2, 3)  ! origin is its first row: a section that is not contiguous
    integer(c_int64_t) :: zero(1) = [0_c_int64_t]
    wide(1, :) = [rank, iteration, 7]
    wide(2, :) = -1
    call damaris_set_position_f('origin', zero, err)
    call expect(err, DAMARIS_OK, 'damaris_set_position_f')
    call damaris_write_f('origin', wide(1, :), err)
    call expect(err, DAMARIS_OK, 'damaris_write_f')
  end subroutine write_origin

  subroutine fill(room, count, iteration, block)
    type(c_ptr), intent(in) :: room
    integer, intent(in) :: count, iteration, block
    real(4), pointer :: points_(:)
    integer :: i
    call c_f_pointer(room, points_, [count])
    do i = 1, count
      points_(i) = real(iteration * 100 + rank * 10 + block, 4) + real(i - 1, 4) / 8.0
    end do
  end subroutine fill

  ! A committed block stays readable until clear (Damaris): the next alloc must not reuse it.
  subroutine check_unchanged(room, count, iteration, block)
    type(c_ptr), intent(in) :: room
    integer, intent(in) :: count, iteration, block
    real(4), pointer :: points_(:)
    real(4) :: want
    integer :: i
    call c_f_pointer(room, points_, [count])
    do i = 1, count
      want = real(iteration * 100 + rank * 10 + block, 4) + real(i - 1, 4) / 8.0
      if (transfer(points_(i), 0) /= transfer(want, 0)) then  ! bit for bit
        call expect(i, 0, 'a committed block changed before its clear at this index')
      end if
    end do
  end subroutine check_unchanged

  subroutine write_pressure(iteration)
    integer, intent(in) :: iteration
    type(c_ptr) :: room, first
    integer :: count
    count = parameter('NPTS')
    room = damaris_alloc_f('pressure', err)
    call expect(err, DAMARIS_OK, 'damaris_alloc_f')
    call damaris_clear_f('pressure', err)
    call expect(err, DAMARIS_OK, 'damaris_clear_f (given up before commit)')
    first = damaris_alloc_f('pressure', err)
    call expect(err, DAMARIS_OK, 'damaris_alloc_f (again)')
    call fill(first, count, iteration, 0)
    if (mod(iteration, 2) == 0) then
      call damaris_commit_f('pressure', err)
      call expect(err, DAMARIS_OK, 'damaris_commit_f')
    else
      call damaris_commit_iteration_f('pressure', iteration + 1, err)
      call expect(err, DAMARIS_BLOCK_NOT_FOUND, &
                  'damaris_commit_iteration_f (a later iteration)')
      call damaris_commit_iteration_f('pressure', iteration, err)
      call expect(err, DAMARIS_OK, 'damaris_commit_iteration_f')
    end if
    room = damaris_alloc_block_f('pressure', 1, err)  ! DN: block 0's send may be complete
    call expect(err, DAMARIS_OK, 'damaris_alloc_block_f')
    call fill(room, count, iteration, 1)
    call check_unchanged(first, count, iteration, 0)
    if (mod(iteration, 2) == 0) then
      call damaris_clear_f('pressure', err)
      call expect(err, DAMARIS_OK, 'damaris_clear_f (after commit)')
      call damaris_commit_block_f('pressure', 1, err)
      call expect(err, DAMARIS_OK, 'damaris_commit_block_f')
      call damaris_clear_block_f('pressure', 1, err)
      call expect(err, DAMARIS_OK, 'damaris_clear_block_f')
    else
      call damaris_clear_iteration_f('pressure', iteration, err)
      call expect(err, DAMARIS_OK, 'damaris_clear_iteration_f')
      call damaris_clear_iteration_f('pressure', iteration - 1, err)
      call expect(err, DAMARIS_OK, 'damaris_clear_iteration_f (an ended iteration)')
      call damaris_commit_block_iteration_f('pressure', 1, iteration, err)
      call expect(err, DAMARIS_OK, 'damaris_commit_block_iteration_f')
      call damaris_clear_block_iteration_f('pressure', 1, iteration, err)
      call expect(err, DAMARIS_OK, 'damaris_clear_block_iteration_f')
    end if
  end subroutine write_pressure

end program mesh
