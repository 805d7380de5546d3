! What the Fortran side checks before handing an array to the C library: the element type and
! count against the variable's layout (ecluse_variable_shape), with messages naming both shapes.
module ecluse_checks
  use, intrinsic :: iso_c_binding, only: c_char, c_int, c_int64_t
  use ecluse_c_api, only: c_variable_shape
  use ecluse_constants
  use ecluse_messages, only: from_c, int_text, local_fail, shape_text, type_name
  implicit none
  private
  public :: layout_shape, check_array, check_pointer

contains

  !> Element type and dimensions in Fortran order (fastest first) of a variable's block.
  integer function layout_shape(name, type, ndims, dims) result(ierr)
    character(kind=c_char, len=*), intent(in) :: name
    integer, intent(out) :: type, ndims
    integer(c_int64_t), intent(out) :: dims(ECLUSE_MAX_DIMENSIONS)
    integer(c_int) :: c_type, c_ndims
    integer(c_int64_t) :: c_dims(ECLUSE_MAX_DIMENSIONS)
    ierr = from_c(c_variable_shape(name, c_type, c_ndims, c_dims, &
                                   int(ECLUSE_MAX_DIMENSIONS, c_int)))
    type = int(c_type)
    ndims = int(c_ndims)
    dims = 0
    if (ierr == ECLUSE_OK) dims(1:ndims) = c_dims(ndims:1:-1)
  end function layout_shape

  !> "write of variable 'v'" (or "... of block 2 of variable 'v'"): what failed.
  pure function subject(what, variable, block) result(text)
    character(len=*), intent(in) :: what, variable
    integer, intent(in) :: block
    character(len=:), allocatable :: text
    text = what // ' of '
    if (block /= 0) text = text // 'block ' // int_text(int(block, c_int64_t)) // ' of '
    text = text // 'variable ''' // trim(variable) // ''''
  end function subject

  !> ECLUSE_OK if an array of this type and shape (Fortran order) fits the variable's block.
  integer function check_array(what, name, variable, block, type, given) result(ierr)
    character(len=*), intent(in) :: what, variable
    character(kind=c_char, len=*), intent(in) :: name
    integer, intent(in) :: block, type
    integer(c_int64_t), intent(in) :: given(:)
    integer :: layout_type, ndims
    integer(c_int64_t) :: dims(ECLUSE_MAX_DIMENSIONS)
    ierr = layout_shape(name, layout_type, ndims, dims)
    if (ierr /= ECLUSE_OK) return
    if (fortran_type(layout_type) /= type) then
      ierr = refuse_type(subject(what, variable, block), layout_type, type)
    else if (assumed_size(given)) then
      ! x(*) or x(n,*): the last extent is unknown (-1) and the size is the caller's word, as
      ! in C; an array of the layout's rank must still have its leading extents.
      if (size(given) == ndims) then
        if (any(dims(1:ndims - 1) /= given(1:ndims - 1))) then
          ierr = refuse_shape(subject(what, variable, block), dims(1:ndims), given)
        end if
      end if
    else if (product(dims(1:ndims)) /= product(given)) then
      ierr = local_fail(ECLUSE_ARGUMENT_ERROR, subject(what, variable, block) // &
                        ': its layout has shape ' // shape_text(dims(1:ndims)) // &
                        ' (ghosts included) but the array passed has shape ' // &
                        shape_text(given) // '; pass an array of the layout''s size.')
    else if (size(given) == ndims) then
      if (any(dims(1:ndims) /= given)) then
        ierr = refuse_shape(subject(what, variable, block), dims(1:ndims), given)
      end if
    end if
  end function check_array

  !> An assumed-size array (dummy x(*) or x(n,*)) passed on: shape() gives -1 as its last extent.
  pure logical function assumed_size(given)
    integer(c_int64_t), intent(in) :: given(:)
    assumed_size = .false.
    if (size(given) > 0) assumed_size = given(size(given)) < 0
  end function assumed_size

  !> An array of the layout's rank and size but not its shape: its elements would land in the
  !> wrong places of the files. An array of rank 1 is taken as it is.
  integer function refuse_shape(subject, dims, given) result(ierr)
    character(len=*), intent(in) :: subject
    integer(c_int64_t), intent(in) :: dims(:), given(:)
    character(len=:), allocatable :: hint
    if (all(dims(size(dims):1:-1) == given)) then
      hint = '; the layout''s dimensions are read in C order (the last varies fastest): add ' // &
             'language="fortran" to its <layout> or to <simulation>.'
    else
      hint = '; pass an array of the layout''s shape, or of rank 1.'
    end if
    ierr = local_fail(ECLUSE_ARGUMENT_ERROR, subject // ': its layout has shape ' // &
                      shape_text(dims) // ' in Fortran order (ghosts included) but the ' // &
                      'array passed has shape ' // shape_text(given) // hint)
  end function refuse_shape

  !> Like check_array for a pointer about to point into Ecluse's buffer: the shape (Fortran
  !> order) it gets is the layout's, or the layout's element count with rank 1.
  integer function check_pointer(what, name, variable, block, type, rank, shape) result(ierr)
    character(len=*), intent(in) :: what, variable
    character(kind=c_char, len=*), intent(in) :: name
    integer, intent(in) :: block, type, rank
    integer(c_int64_t), intent(out) :: shape(:)
    integer :: layout_type, ndims
    integer(c_int64_t) :: dims(ECLUSE_MAX_DIMENSIONS)
    shape = 0
    ierr = layout_shape(name, layout_type, ndims, dims)
    if (ierr /= ECLUSE_OK) return
    if (fortran_type(layout_type) /= type) then
      ierr = refuse_type(subject(what, variable, block), layout_type, type)
    else if (rank == ndims .and. rank <= size(shape)) then
      shape(1:rank) = dims(1:rank)
    else if (rank == 1) then
      shape(1) = product(dims(1:ndims))
    else
      ierr = local_fail(ECLUSE_ARGUMENT_ERROR, subject(what, variable, block) // &
                        ': its layout has shape ' // shape_text(dims(1:ndims)) // &
                        ' but the pointer passed has rank ' // &
                        int_text(int(rank, c_int64_t)) // '; pass a pointer of rank ' // &
                        int_text(int(ndims, c_int64_t)) // ' or 1 (at most ' // &
                        int_text(int(size(shape), c_int64_t)) // &
                        '; beyond, use ecluse_alloc with a type(c_ptr) and c_f_pointer).')
    end if
  end function check_pointer

  !> The array type that holds a layout's elements: Fortran has no unsigned integers, so an
  !> unsigned layout takes the integer kind of its size (the same bits, read as signed).
  pure integer function fortran_type(layout_type)
    integer, intent(in) :: layout_type
    select case (layout_type)
    case (ECLUSE_TYPE_UINT8)
      fortran_type = ECLUSE_TYPE_INT8
    case (ECLUSE_TYPE_UINT16)
      fortran_type = ECLUSE_TYPE_INT16
    case (ECLUSE_TYPE_UINT32)
      fortran_type = ECLUSE_TYPE_INT32
    case (ECLUSE_TYPE_UINT64)
      fortran_type = ECLUSE_TYPE_INT64
    case default
      fortran_type = layout_type
    end select
  end function fortran_type

  integer function refuse_type(subject, layout_type, type) result(ierr)
    character(len=*), intent(in) :: subject
    integer, intent(in) :: layout_type, type
    character(len=:), allocatable :: expected
    expected = type_name(fortran_type(layout_type))
    ierr = local_fail(ECLUSE_ARGUMENT_ERROR, subject // ': its layout holds ' // &
                      type_name(layout_type) // ' elements but the array passed is ' // &
                      type_name(type) // '; pass ' // &
                      trim(merge('an', 'a ', index('aeiou', expected(1:1)) > 0)) // ' ' // &
                      expected // ' array.')
  end function refuse_type
end module ecluse_checks
