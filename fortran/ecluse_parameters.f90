! ecluse_parameter_get and ecluse_parameter_set for integer(1) (char), integer(2) (short),
! integer, integer(8), real, double precision and character values; the C library checks the
! size against the parameter's declared type.
module ecluse_parameters
  use, intrinsic :: iso_c_binding, only: c_char, c_double, c_float, c_int, c_int8_t, c_int16_t, &
                                         c_int32_t, c_int64_t, c_loc, c_null_char, c_sizeof
  use ecluse_c_api, only: c_parameter_get, c_parameter_set
  use ecluse_constants
  use ecluse_messages, only: c_text, from_c
  implicit none
  private
  public :: ecluse_parameter_get, ecluse_parameter_set

  interface ecluse_parameter_get
    module procedure get_int8, get_int16, get_int32, get_int64, get_real32, get_real64, get_text
  end interface ecluse_parameter_get

  interface ecluse_parameter_set
    module procedure set_int8, set_int16, set_int32, set_int64, set_real32, set_real64, set_text
  end interface ecluse_parameter_set

contains

  subroutine get_int8(name, value, ierr)
    character(len=*), intent(in) :: name
    integer(c_int8_t), intent(out), target :: value
    integer, intent(out) :: ierr
    ierr = from_c(c_parameter_get(c_text(name), c_loc(value), int(c_sizeof(value), c_int)))
  end subroutine get_int8

  subroutine set_int8(name, value, ierr)
    character(len=*), intent(in) :: name
    integer(c_int8_t), intent(in), target :: value
    integer, intent(out) :: ierr
    ierr = from_c(c_parameter_set(c_text(name), c_loc(value), int(c_sizeof(value), c_int)))
  end subroutine set_int8

  subroutine get_int16(name, value, ierr)
    character(len=*), intent(in) :: name
    integer(c_int16_t), intent(out), target :: value
    integer, intent(out) :: ierr
    ierr = from_c(c_parameter_get(c_text(name), c_loc(value), int(c_sizeof(value), c_int)))
  end subroutine get_int16

  subroutine set_int16(name, value, ierr)
    character(len=*), intent(in) :: name
    integer(c_int16_t), intent(in), target :: value
    integer, intent(out) :: ierr
    ierr = from_c(c_parameter_set(c_text(name), c_loc(value), int(c_sizeof(value), c_int)))
  end subroutine set_int16

  subroutine get_int32(name, value, ierr)
    character(len=*), intent(in) :: name
    integer(c_int32_t), intent(out), target :: value
    integer, intent(out) :: ierr
    ierr = from_c(c_parameter_get(c_text(name), c_loc(value), int(c_sizeof(value), c_int)))
  end subroutine get_int32

  subroutine set_int32(name, value, ierr)
    character(len=*), intent(in) :: name
    integer(c_int32_t), intent(in), target :: value
    integer, intent(out) :: ierr
    ierr = from_c(c_parameter_set(c_text(name), c_loc(value), int(c_sizeof(value), c_int)))
  end subroutine set_int32

  subroutine get_int64(name, value, ierr)
    character(len=*), intent(in) :: name
    integer(c_int64_t), intent(out), target :: value
    integer, intent(out) :: ierr
    ierr = from_c(c_parameter_get(c_text(name), c_loc(value), int(c_sizeof(value), c_int)))
  end subroutine get_int64

  subroutine set_int64(name, value, ierr)
    character(len=*), intent(in) :: name
    integer(c_int64_t), intent(in), target :: value
    integer, intent(out) :: ierr
    ierr = from_c(c_parameter_set(c_text(name), c_loc(value), int(c_sizeof(value), c_int)))
  end subroutine set_int64

  subroutine get_real32(name, value, ierr)
    character(len=*), intent(in) :: name
    real(c_float), intent(out), target :: value
    integer, intent(out) :: ierr
    ierr = from_c(c_parameter_get(c_text(name), c_loc(value), int(c_sizeof(value), c_int)))
  end subroutine get_real32

  subroutine set_real32(name, value, ierr)
    character(len=*), intent(in) :: name
    real(c_float), intent(in), target :: value
    integer, intent(out) :: ierr
    ierr = from_c(c_parameter_set(c_text(name), c_loc(value), int(c_sizeof(value), c_int)))
  end subroutine set_real32

  subroutine get_real64(name, value, ierr)
    character(len=*), intent(in) :: name
    real(c_double), intent(out), target :: value
    integer, intent(out) :: ierr
    ierr = from_c(c_parameter_get(c_text(name), c_loc(value), int(c_sizeof(value), c_int)))
  end subroutine get_real64

  subroutine set_real64(name, value, ierr)
    character(len=*), intent(in) :: name
    real(c_double), intent(in), target :: value
    integer, intent(out) :: ierr
    ierr = from_c(c_parameter_set(c_text(name), c_loc(value), int(c_sizeof(value), c_int)))
  end subroutine set_real64

  !> A string parameter, blank-padded (the C library fails if it is longer than value).
  subroutine get_text(name, value, ierr)
    character(len=*), intent(in) :: name
    character(len=*), intent(out) :: value
    integer, intent(out) :: ierr
    character(kind=c_char), allocatable, target :: buffer(:)
    integer :: i
    allocate (buffer(len(value) + 1))
    buffer = c_null_char
    ierr = from_c(c_parameter_get(c_text(name), c_loc(buffer), int(size(buffer), c_int)))
    value = ''
    do i = 1, len(value)
      if (buffer(i) == c_null_char) exit
      value(i:i) = buffer(i)
    end do
  end subroutine get_text

  subroutine set_text(name, value, ierr)
    character(len=*), intent(in) :: name, value
    integer, intent(out) :: ierr
    character(kind=c_char, len=:), allocatable, target :: text
    text = c_text(value)
    ierr = from_c(c_parameter_set(c_text(name), c_loc(text), int(len(text), c_int)))
  end subroutine set_text
end module ecluse_parameters
