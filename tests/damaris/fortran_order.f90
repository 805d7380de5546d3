! A Fortran Damaris program whose XML says language="fortran" and that places its block with
! damaris_set_block_position_f: Damaris reverses the layout's dimensions but takes a position as
! it is given, in C order, so a program that gets right files from Damaris passes x's offset
! last. Each client writes u(4,3,2) at x offset 4*rank of a global (8,3,2) (declared order).
! Argument: the XML file. tests/python/test_damaris.py reads the file back.
program fortran_order
  use mpi
  use damaris
  implicit none
  integer :: err, is_client, rank, comm, i, j, k
  real(8) :: u(4, 3, 2)
  character(len=256) :: xml

  call MPI_Init(err)
  call get_command_argument(1, xml)
  call damaris_initialize_f(trim(xml), MPI_COMM_WORLD, err)
  call expect(err, 0, 'damaris_initialize_f')
  is_client = 0
  call damaris_start_f(is_client, err)
  if (is_client > 0) then
    comm = MPI_COMM_WORLD
    call damaris_client_comm_get_f(comm, err)
    call MPI_Comm_rank(comm, rank, err)
    do k = 1, 2
      do j = 1, 3
        do i = 1, 4
          u(i, j, k) = 1000 * (4 * rank + i) + 10 * j + k
        end do
      end do
    end do
    call damaris_set_block_position_f('u', 0, [0_8, 0_8, int(4 * rank, 8)], err)
    call expect(err, 0, 'damaris_set_block_position_f')
    call damaris_write_f('u', u, err)
    call expect(err, 0, 'damaris_write_f')
    call damaris_end_iteration_f(err)
    call expect(err, 0, 'damaris_end_iteration_f')
    call damaris_stop_f(err)
  end if
  call damaris_finalize_f(err)
  call expect(err, 0, 'damaris_finalize_f')
  print '(a)', 'fortran_order: ok'
  call MPI_Finalize(err)

contains

  include 'expect.inc'

end program fortran_order
