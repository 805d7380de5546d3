! Arrays that do not match their layout, given to damaris_write_block_f (layout double (5,4,3,2),
! language="fortran"): Damaris reads the layout's bytes from the array unchecked. An array that
! holds fewer (a section too small, real(4) data) would be read past its end: refused. A larger
! array gives its first bytes and a scalar (the first element, F77 style) its memory onward, as
! in Damaris. Argument: the XML file. tests/python/test_damaris.py reads the file back.
program array_sizes
  use mpi
  use damaris
  use damaris_constants, only: DAMARIS_ARGUMENT_ERROR
  implicit none
  integer :: err, is_client, i
  real(8), target :: u(5, 4, 3, 2), big(6, 4, 3, 2)
  real(4) :: single(5, 4, 3, 2)
  character(len=256) :: xml

  call MPI_Init(err)
  call get_command_argument(1, xml)
  call damaris_initialize_f(trim(xml), MPI_COMM_WORLD, err)
  call expect(err, 0, 'damaris_initialize_f')
  is_client = 0
  call damaris_start_f(is_client, err)
  if (is_client > 0) then
    u = reshape([(real(i, 8), i = 1, size(u))], shape(u))
    big = reshape([(real(1000 + i, 8), i = 1, size(big))], shape(big))
    single = 1.5
    call damaris_write_block_f('small', 0, u(:, :, :, 1:1), err)
    call expect(err, DAMARIS_ARGUMENT_ERROR, 'a section of half the layout')
    call damaris_write_block_f('single', 0, single, err)
    call expect(err, DAMARIS_ARGUMENT_ERROR, 'real(4) data for a double layout')
    call damaris_write_block_f('large', 0, big, err)
    call expect(err, 0, 'a larger array')
    call damaris_write_block_f('first', 0, u(1, 1, 1, 1), err)
    call expect(err, 0, 'the first element')
    call damaris_write_block_f('whole', 0, u, err)
    call expect(err, 0, 'the whole array')
    call damaris_end_iteration_f(err)
    call expect(err, 0, 'damaris_end_iteration_f')
    call damaris_stop_f(err)
  end if
  call damaris_finalize_f(err)
  call expect(err, 0, 'damaris_finalize_f')
  print '(a)', 'array_sizes: ok'
  call MPI_Finalize(err)

contains

  include 'expect.inc'

end program array_sizes
