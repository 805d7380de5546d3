! Strings across the C boundary; the checks made on the Fortran side (array type, size,
! contiguity) leave their message in the C library's per-thread last error (ecluse_set_error).
module ecluse_messages
  use, intrinsic :: iso_c_binding, only: c_associated, c_char, c_f_pointer, c_int, c_int64_t, &
                                         c_null_char, c_ptr
  use ecluse_c_api, only: c_error_message, c_set_error, c_strlen
  use ecluse_constants
  implicit none
  private
  public :: c_text, f_text, from_c, local_fail, last_message, int_text, shape_text, type_name

  character(len=10), parameter :: type_names(0:ECLUSE_TYPE_COUNT - 1) = &
    [character(len=10) :: 'integer(1)', 'integer(2)', 'integer(4)', 'integer(8)', 'real(4)', &
                          'real(8)', 'character', 'uint8', 'uint16', 'uint32', 'uint64']

contains

  !> A Fortran string as C wants it: trailing blanks removed, NUL-terminated.
  pure function c_text(text) result(c)
    character(len=*), intent(in) :: text
    character(kind=c_char, len=:), allocatable :: c
    c = trim(text) // c_null_char
  end function c_text

  !> A NUL-terminated C string (or a null pointer, read as "") as a Fortran string.
  function f_text(pointer) result(text)
    type(c_ptr), intent(in) :: pointer
    character(len=:), allocatable :: text
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    n = 0
    if (c_associated(pointer)) n = int(c_strlen(pointer))
    allocate (character(len=n) :: text)
    if (n == 0) return
    call c_f_pointer(pointer, chars, [n])
    do i = 1, n
      text(i:i) = chars(i)
    end do
  end function f_text

  !> The status of a C call, whose message (if any) the C library now holds.
  integer function from_c(status)
    integer(c_int), intent(in) :: status
    from_c = int(status)
  end function from_c

  !> Fails with a message of the Fortran side; returns the status.
  integer function local_fail(status, message)
    integer, intent(in) :: status
    character(len=*), intent(in) :: message
    local_fail = int(c_set_error(int(status, c_int), c_text(message)))
  end function local_fail

  !> The message of the last error, from the Fortran checks or from the C library.
  function last_message() result(message)
    character(len=:), allocatable :: message
    message = f_text(c_error_message())
  end function last_message

  pure function int_text(value) result(text)
    integer(c_int64_t), intent(in) :: value
    character(len=:), allocatable :: text
    character(len=24) :: buffer
    write (buffer, '(i0)') value
    text = trim(buffer)
  end function int_text

  !> "(n1,n2,...) = N elements", dimensions in Fortran order; "(n1,*)" for an assumed-size
  !> array, whose last extent (-1) is unknown.
  pure function shape_text(dims) result(text)
    integer(c_int64_t), intent(in) :: dims(:)
    character(len=:), allocatable :: text
    integer :: i
    text = '('
    do i = 1, size(dims)
      if (dims(i) < 0) then
        text = text // '*' // merge(',', ')', i < size(dims))
      else
        text = text // int_text(dims(i)) // merge(',', ')', i < size(dims))
      end if
    end do
    if (size(dims) == 0) text = '()'
    if (any(dims < 0)) return
    text = text // ' = ' // int_text(product(dims)) // merge(' element ', ' elements', &
                                                            product(dims) == 1)
    text = trim(text)
  end function shape_text

  pure function type_name(type) result(name)
    integer, intent(in) :: type
    character(len=:), allocatable :: name
    if (type >= 0 .and. type < ECLUSE_TYPE_COUNT) then
      name = trim(type_names(type))
    else
      name = 'type ' // int_text(int(type, c_int64_t))
    end if
  end function type_name
end module ecluse_messages
