! ecluse_alloc and ecluse_alloc_block: room for a block inside Ecluse's buffer, as a type(c_ptr)
! or as a Fortran pointer of the layout's shape (rank 1 to 4; rank 1 gets every element).
module ecluse_data_alloc
  use, intrinsic :: iso_c_binding, only: c_char, c_double, c_f_pointer, c_float, c_int32_t, &
                                         c_int64_t, c_ptr
  use ecluse_c_api, only: c_alloc_block
  use ecluse_checks, only: check_pointer
  use ecluse_constants
  use ecluse_messages, only: c_text, from_c
  implicit none
  private
  public :: ecluse_alloc, ecluse_alloc_block

  integer, parameter :: max_rank = 4

  !> Room for block 0 of a variable: fill it, then ecluse_commit (or ecluse_clear).
  interface ecluse_alloc
    module procedure alloc_pointer, alloc_int32, alloc_int64, alloc_real32, alloc_real64
  end interface ecluse_alloc

  interface ecluse_alloc_block
    module procedure alloc_block_pointer, alloc_block_int32, alloc_block_int64, &
                     alloc_block_real32, alloc_block_real64
  end interface ecluse_alloc_block

contains

  subroutine alloc_pointer(variable, data, ierr)
    character(len=*), intent(in) :: variable
    type(c_ptr), intent(out) :: data
    integer, intent(out) :: ierr
    call alloc_block_pointer(variable, 0, data, ierr)
  end subroutine alloc_pointer

  subroutine alloc_block_pointer(variable, block, data, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block
    type(c_ptr), intent(out) :: data
    integer, intent(out) :: ierr
    ierr = from_c(c_alloc_block(c_text(variable), int(block, c_int32_t), data))
  end subroutine alloc_block_pointer

  !> Room for a block whose Fortran pointer will have this type and rank; its shape.
  subroutine alloc_shaped(variable, block, type, rank, data, shape, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block, type, rank
    type(c_ptr), intent(out) :: data
    integer(c_int64_t), intent(out) :: shape(max_rank)
    integer, intent(out) :: ierr
    character(kind=c_char, len=:), allocatable :: name
    name = c_text(variable)
    ierr = check_pointer('alloc', name, variable, block, type, rank, shape)
    if (ierr == ECLUSE_OK) ierr = from_c(c_alloc_block(name, int(block, c_int32_t), data))
  end subroutine alloc_shaped

  subroutine alloc_int32(variable, array, ierr)
    character(len=*), intent(in) :: variable
    integer(c_int32_t), pointer, intent(out) :: array(..)
    integer, intent(out) :: ierr
    call alloc_block_int32(variable, 0, array, ierr)
  end subroutine alloc_int32

  subroutine alloc_block_int32(variable, block, array, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block
    integer(c_int32_t), pointer, intent(out) :: array(..)
    integer, intent(out) :: ierr
    type(c_ptr) :: data
    integer(c_int64_t) :: shape(max_rank)
    call alloc_shaped(variable, block, ECLUSE_TYPE_INT32, rank(array), data, shape, ierr)
    select rank (array)
    rank (1)
      nullify (array)
      if (ierr == ECLUSE_OK) call c_f_pointer(data, array, shape(1:1))
    rank (2)
      nullify (array)
      if (ierr == ECLUSE_OK) call c_f_pointer(data, array, shape(1:2))
    rank (3)
      nullify (array)
      if (ierr == ECLUSE_OK) call c_f_pointer(data, array, shape(1:3))
    rank (4)
      nullify (array)
      if (ierr == ECLUSE_OK) call c_f_pointer(data, array, shape(1:4))
    end select
  end subroutine alloc_block_int32

  subroutine alloc_int64(variable, array, ierr)
    character(len=*), intent(in) :: variable
    integer(c_int64_t), pointer, intent(out) :: array(..)
    integer, intent(out) :: ierr
    call alloc_block_int64(variable, 0, array, ierr)
  end subroutine alloc_int64

  subroutine alloc_block_int64(variable, block, array, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block
    integer(c_int64_t), pointer, intent(out) :: array(..)
    integer, intent(out) :: ierr
    type(c_ptr) :: data
    integer(c_int64_t) :: shape(max_rank)
    call alloc_shaped(variable, block, ECLUSE_TYPE_INT64, rank(array), data, shape, ierr)
    select rank (array)
    rank (1)
      nullify (array)
      if (ierr == ECLUSE_OK) call c_f_pointer(data, array, shape(1:1))
    rank (2)
      nullify (array)
      if (ierr == ECLUSE_OK) call c_f_pointer(data, array, shape(1:2))
    rank (3)
      nullify (array)
      if (ierr == ECLUSE_OK) call c_f_pointer(data, array, shape(1:3))
    rank (4)
      nullify (array)
      if (ierr == ECLUSE_OK) call c_f_pointer(data, array, shape(1:4))
    end select
  end subroutine alloc_block_int64

  subroutine alloc_real32(variable, array, ierr)
    character(len=*), intent(in) :: variable
    real(c_float), pointer, intent(out) :: array(..)
    integer, intent(out) :: ierr
    call alloc_block_real32(variable, 0, array, ierr)
  end subroutine alloc_real32

  subroutine alloc_block_real32(variable, block, array, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block
    real(c_float), pointer, intent(out) :: array(..)
    integer, intent(out) :: ierr
    type(c_ptr) :: data
    integer(c_int64_t) :: shape(max_rank)
    call alloc_shaped(variable, block, ECLUSE_TYPE_FLOAT32, rank(array), data, shape, ierr)
    select rank (array)
    rank (1)
      nullify (array)
      if (ierr == ECLUSE_OK) call c_f_pointer(data, array, shape(1:1))
    rank (2)
      nullify (array)
      if (ierr == ECLUSE_OK) call c_f_pointer(data, array, shape(1:2))
    rank (3)
      nullify (array)
      if (ierr == ECLUSE_OK) call c_f_pointer(data, array, shape(1:3))
    rank (4)
      nullify (array)
      if (ierr == ECLUSE_OK) call c_f_pointer(data, array, shape(1:4))
    end select
  end subroutine alloc_block_real32

  subroutine alloc_real64(variable, array, ierr)
    character(len=*), intent(in) :: variable
    real(c_double), pointer, intent(out) :: array(..)
    integer, intent(out) :: ierr
    call alloc_block_real64(variable, 0, array, ierr)
  end subroutine alloc_real64

  subroutine alloc_block_real64(variable, block, array, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block
    real(c_double), pointer, intent(out) :: array(..)
    integer, intent(out) :: ierr
    type(c_ptr) :: data
    integer(c_int64_t) :: shape(max_rank)
    call alloc_shaped(variable, block, ECLUSE_TYPE_FLOAT64, rank(array), data, shape, ierr)
    select rank (array)
    rank (1)
      nullify (array)
      if (ierr == ECLUSE_OK) call c_f_pointer(data, array, shape(1:1))
    rank (2)
      nullify (array)
      if (ierr == ECLUSE_OK) call c_f_pointer(data, array, shape(1:2))
    rank (3)
      nullify (array)
      if (ierr == ECLUSE_OK) call c_f_pointer(data, array, shape(1:3))
    rank (4)
      nullify (array)
      if (ierr == ECLUSE_OK) call c_f_pointer(data, array, shape(1:4))
    end select
  end subroutine alloc_block_real64
end module ecluse_data_alloc
