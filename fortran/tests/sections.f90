! Array sections that are not contiguous, of every layout type and of ranks 1 to 3 (negative
! strides included), each written with ecluse_write and read back by tests/python/test_fortran.py.
program sections
  use mpi
  use ecluse
  implicit none
  character(len=*), parameter :: config = &
    '<simulation name="sections" language="fortran" xmlns="urn:ecluse:config:1">' // &
    '<architecture><domains count="1"/>ARCHITECTURE</architecture><data>' // &
    '<layout name="l_interior" type="double" dimensions="4,3"/>' // &
    '<layout name="l_reversed" type="float" dimensions="5"/>' // &
    '<layout name="l_every_other" type="int" dimensions="4"/>' // &
    '<layout name="l_plane" type="long" dimensions="3,2"/>' // &
    '<layout name="l_bytes" type="char" dimensions="3"/>' // &
    '<layout name="l_row" type="short" dimensions="4"/>' // &
    '<variable name="interior" layout="l_interior"/>' // &
    '<variable name="reversed" layout="l_reversed"/>' // &
    '<variable name="every_other" layout="l_every_other"/>' // &
    '<variable name="plane" layout="l_plane"/>' // &
    '<variable name="bytes" layout="l_bytes"/>' // &
    '<variable name="row" layout="l_row"/>' // &
    '</data><storage><store name="files" type="HDF5"><option key="FilesPath">out</option>' // &
    '</store></storage></simulation>'
  real(8) :: u(6, 5)
  real(4) :: r(5)
  integer(4) :: k(8)
  integer(8) :: b(2, 3, 2)
  integer(1) :: bytes(6)
  integer(2) :: a(3, 4)
  character(len=256) :: architecture
  integer :: ierr, is_client, mpi_err, i, l

  call MPI_Init(mpi_err)
  call get_command_argument(1, architecture)
  call ecluse_initialize_string(replace(config, 'ARCHITECTURE', trim(architecture)), &
                                MPI_COMM_WORLD, ierr)
  call check(ierr, 'initialize')
  call ecluse_start(is_client, ierr)
  call check(ierr, 'start')
  if (is_client == 1) then
    u = reshape([(real(i, 8) + 0.5d0, i = 1, 30)], [6, 5])
    r = [(real(i, 4) / 4, i = 1, 5)]
    k = [(100 * i, i = 1, 8)]
    b = reshape([(int(i, 8) * 3000000000_8, i = 1, 12)], [2, 3, 2])
    bytes = [(int(i - 3, 1), i = 1, 6)]
    a = reshape([(int(-i, 2), i = 1, 12)], [3, 4])
    do l = 1, 3
      call ecluse_write('interior', u(2:5, 2:4), ierr)
      call check(ierr, 'write interior')
      call ecluse_write('reversed', r(5:1:-1), ierr)
      call check(ierr, 'write reversed')
      call ecluse_write('every_other', k(1:8:2), ierr)
      call check(ierr, 'write every_other')
      call ecluse_write('plane', b(2, :, :), ierr)
      call check(ierr, 'write plane')
      call ecluse_write('bytes', bytes(1:6:2), ierr)
      call check(ierr, 'write bytes')
      call ecluse_write('row', a(2, :), ierr)
      call check(ierr, 'write row')
      call ecluse_end_iteration(ierr)
      call check(ierr, 'end_iteration')
      u = u + 100  ! each iteration's values differ
    end do
    call ecluse_stop(ierr)
    call check(ierr, 'stop')
  end if
  call ecluse_finalize(ierr)
  call check(ierr, 'finalize')
  call MPI_Finalize(mpi_err)

contains

  subroutine check(ierr, what)
    integer, intent(in) :: ierr
    character(len=*), intent(in) :: what
    if (ierr == ECLUSE_OK) return
    print '(a)', 'sections: ' // what // ': ' // ecluse_error_message()
    call MPI_Abort(MPI_COMM_WORLD, 1, mpi_err)
  end subroutine check

  function replace(text, pattern, by) result(out)
    character(len=*), intent(in) :: text, pattern, by
    character(len=:), allocatable :: out
    integer :: at
    at = index(text, pattern)
    out = text(1:at - 1) // by // text(at + len(pattern):)
  end function replace
end program sections
