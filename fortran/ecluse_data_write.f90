! ecluse_write and ecluse_write_block for arrays of every layout type and any rank, checked
! against the layout (type, element count, shape) before the C call; one specific per type. A
! contiguous array is handed over where it is; an array section that is not contiguous
! (u(1:nx, 1:ny) of a ghosted array) is packed by ecluse_write_block_strided (the C shim).
module ecluse_data_write
  use, intrinsic :: iso_c_binding, only: c_char, c_double, c_float, c_int16_t, c_int32_t, &
                                         c_int64_t, c_int8_t, c_loc, c_ptr
  use ecluse_c_api, only: c_write_block, c_write_section
  use ecluse_checks, only: check_array
  use ecluse_constants
  use ecluse_messages, only: c_text, from_c
  implicit none
  private
  public :: ecluse_write, ecluse_write_block

  !> Hands a block to Ecluse: an array of the layout's type and element count (any shape), or
  !> a type(c_ptr) to data of the layout's size (not checked).
  interface ecluse_write
    module procedure write_int8, write_int16, write_int32, write_int64, write_real32, &
                     write_real64, write_pointer
  end interface ecluse_write

  interface ecluse_write_block
    module procedure write_block_int8, write_block_int16, write_block_int32, write_block_int64, &
                     write_block_real32, write_block_real64, write_block_pointer
  end interface ecluse_write_block

contains

  !> The write itself, once the specific knows the layout type the array holds.
  subroutine write_checked(variable, block, type, data, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block, type
    type(*), dimension(..), intent(in), target :: data
    integer, intent(out) :: ierr
    character(kind=c_char, len=:), allocatable :: name
    name = c_text(variable)
    ierr = check_array('write', name, variable, block, type, shape(data, c_int64_t))
    if (ierr /= ECLUSE_OK) return
    if (is_contiguous(data)) then
      ierr = from_c(c_write_block(name, int(block, c_int32_t), c_loc(data)))
    else
      ierr = from_c(c_write_section(name, int(block, c_int32_t), data))
    end if
  end subroutine write_checked

  subroutine write_pointer(variable, data, ierr)
    character(len=*), intent(in) :: variable
    type(c_ptr), intent(in) :: data
    integer, intent(out) :: ierr
    call write_block_pointer(variable, 0, data, ierr)
  end subroutine write_pointer

  subroutine write_block_pointer(variable, block, data, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block
    type(c_ptr), intent(in) :: data
    integer, intent(out) :: ierr
    ierr = from_c(c_write_block(c_text(variable), int(block, c_int32_t), data))
  end subroutine write_block_pointer

  subroutine write_int8(variable, data, ierr)
    character(len=*), intent(in) :: variable
    integer(c_int8_t), dimension(..), intent(in), target :: data
    integer, intent(out) :: ierr
    call write_block_int8(variable, 0, data, ierr)
  end subroutine write_int8

  subroutine write_block_int8(variable, block, data, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block
    integer(c_int8_t), dimension(..), intent(in), target :: data
    integer, intent(out) :: ierr
    call write_checked(variable, block, ECLUSE_TYPE_INT8, data, ierr)
  end subroutine write_block_int8

  subroutine write_int16(variable, data, ierr)
    character(len=*), intent(in) :: variable
    integer(c_int16_t), dimension(..), intent(in), target :: data
    integer, intent(out) :: ierr
    call write_block_int16(variable, 0, data, ierr)
  end subroutine write_int16

  subroutine write_block_int16(variable, block, data, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block
    integer(c_int16_t), dimension(..), intent(in), target :: data
    integer, intent(out) :: ierr
    call write_checked(variable, block, ECLUSE_TYPE_INT16, data, ierr)
  end subroutine write_block_int16

  subroutine write_int32(variable, data, ierr)
    character(len=*), intent(in) :: variable
    integer(c_int32_t), dimension(..), intent(in), target :: data
    integer, intent(out) :: ierr
    call write_block_int32(variable, 0, data, ierr)
  end subroutine write_int32

  subroutine write_block_int32(variable, block, data, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block
    integer(c_int32_t), dimension(..), intent(in), target :: data
    integer, intent(out) :: ierr
    call write_checked(variable, block, ECLUSE_TYPE_INT32, data, ierr)
  end subroutine write_block_int32

  subroutine write_int64(variable, data, ierr)
    character(len=*), intent(in) :: variable
    integer(c_int64_t), dimension(..), intent(in), target :: data
    integer, intent(out) :: ierr
    call write_block_int64(variable, 0, data, ierr)
  end subroutine write_int64

  subroutine write_block_int64(variable, block, data, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block
    integer(c_int64_t), dimension(..), intent(in), target :: data
    integer, intent(out) :: ierr
    call write_checked(variable, block, ECLUSE_TYPE_INT64, data, ierr)
  end subroutine write_block_int64

  subroutine write_real32(variable, data, ierr)
    character(len=*), intent(in) :: variable
    real(c_float), dimension(..), intent(in), target :: data
    integer, intent(out) :: ierr
    call write_block_real32(variable, 0, data, ierr)
  end subroutine write_real32

  subroutine write_block_real32(variable, block, data, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block
    real(c_float), dimension(..), intent(in), target :: data
    integer, intent(out) :: ierr
    call write_checked(variable, block, ECLUSE_TYPE_FLOAT32, data, ierr)
  end subroutine write_block_real32

  subroutine write_real64(variable, data, ierr)
    character(len=*), intent(in) :: variable
    real(c_double), dimension(..), intent(in), target :: data
    integer, intent(out) :: ierr
    call write_block_real64(variable, 0, data, ierr)
  end subroutine write_real64

  subroutine write_block_real64(variable, block, data, ierr)
    character(len=*), intent(in) :: variable
    integer, intent(in) :: block
    real(c_double), dimension(..), intent(in), target :: data
    integer, intent(out) :: ierr
    call write_checked(variable, block, ECLUSE_TYPE_FLOAT64, data, ierr)
  end subroutine write_block_real64
end module ecluse_data_write
