! Cost of ecluse_write through module ecluse (trim + NUL, the layout check, the C call) against
! the C ecluse_write called directly through bind(C), side by side in one run, per block size.
! 1 rank: time partitioning, null store (the write is one copy into Ecluse's staging memory);
! 2 ranks: 1 client + 1 dedicated core, null store (one copy into the node's shared buffer).
module overhead_c
  use, intrinsic :: iso_c_binding, only: c_char, c_int, c_ptr
  implicit none
  private
  public :: c_write

  interface
    integer(c_int) function c_write(variable, data) bind(C, name="ecluse_write")
      import :: c_char, c_int, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: variable
      type(c_ptr), value :: data
    end function c_write
  end interface
end module overhead_c

module overhead_stats
  implicit none
  private
  public :: median, seconds

contains

  !> Median of a sample (sorted copy, insertion sort: a few hundred values).
  real(8) function median(values)
    real(8), intent(in) :: values(:)
    real(8) :: sorted(size(values)), x
    integer :: i, j, n
    sorted = values
    n = size(sorted)
    do i = 2, n
      x = sorted(i)
      j = i - 1
      do while (j >= 1)
        if (sorted(j) <= x) exit
        sorted(j + 1) = sorted(j)
        j = j - 1
      end do
      sorted(j + 1) = x
    end do
    median = merge(sorted((n + 1) / 2), (sorted(n / 2) + sorted(n / 2 + 1)) / 2, mod(n, 2) == 1)
  end function median

  !> Monotonic clock in seconds (gfortran: clock_gettime, nanoseconds).
  real(8) function seconds()
    integer(8) :: count, rate
    call system_clock(count, rate)
    seconds = real(count, 8) / real(rate, 8)
  end function seconds
end module overhead_stats

module overhead_run
  use, intrinsic :: iso_c_binding, only: c_loc, c_null_char
  use mpi
  use ecluse
  use overhead_c, only: c_write
  use overhead_stats, only: median, seconds
  implicit none
  private
  public :: check, config_for, load_average, measure, report

  integer, parameter :: kib = 1024, mib = 1024 * kib
  real(8), parameter :: goal = 1.05d0

contains

  subroutine check(ierr, call)
    integer, intent(in) :: ierr
    character(len=*), intent(in) :: call
    integer :: mpi_err
    if (ierr == ECLUSE_OK) return
    write (0, '(a)') 'benchmark error: ' // call // ': ' // ecluse_status_name(ierr) // ': ' // &
      ecluse_error_message()
    call MPI_Abort(MPI_COMM_WORLD, 1, mpi_err)
  end subroutine check

  function itoa(value) result(text)
    integer(8), intent(in) :: value
    character(len=:), allocatable :: text
    character(len=24) :: buffer
    write (buffer, '(i0)') value
    text = trim(buffer)
  end function itoa

  !> One variable "v" of N doubles (N changes per size), a store that writes nothing.
  function config_for(dedicated, largest) result(xml)
    logical, intent(in) :: dedicated
    integer(8), intent(in) :: largest
    character(len=:), allocatable :: xml
    xml = '<simulation name="fortran_overhead" xmlns="urn:ecluse:config:1"><architecture>' // &
          '<domains count="1"/>'
    if (dedicated) then
      xml = xml // '<dedicated cores="1" nodes="0"/><virtual-nodes ranks-per-node="2"/>' // &
            '<buffer size="' // itoa(4 * largest + 4 * mib) // '"/>'
    else
      xml = xml // '<dedicated cores="0" nodes="0"/>'
    end if
    xml = xml // '</architecture><data><parameter name="N" type="int" value="1"/>' // &
          '<layout name="l" type="double" dimensions="N"/><variable name="v" layout="l"/>' // &
          '</data><storage><store name="none" type="null"/></storage>' // &
          '<log LogLevel="warning"/></simulation>'
  end function config_for

  !> Times one write of each kind, in the order given by module_first; ends the iteration.
  subroutine pair(data, module_first, t_module, t_c)
    real(8), intent(in), target :: data(:)
    logical, intent(in) :: module_first
    real(8), intent(out) :: t_module, t_c
    if (module_first) t_module = timed_module(data)
    t_c = timed_c(data)
    if (.not. module_first) t_module = timed_module(data)
  end subroutine pair

  real(8) function timed_module(data) result(t)
    real(8), intent(in) :: data(:)
    integer :: ierr
    t = seconds()
    call ecluse_write('v', data, ierr)
    t = seconds() - t
    call check(ierr, 'ecluse_write (module)')
    call ecluse_end_iteration(ierr)
    call check(ierr, 'ecluse_end_iteration')
  end function timed_module

  !> A section that is not contiguous (every other element of wide): packed by Ecluse's one copy.
  real(8) function timed_section(wide) result(t)
    real(8), intent(in) :: wide(:)
    integer :: ierr
    t = seconds()
    call ecluse_write('v', wide(1:size(wide):2), ierr)
    t = seconds() - t
    call check(ierr, 'ecluse_write (module, section)')
    call ecluse_end_iteration(ierr)
    call check(ierr, 'ecluse_end_iteration')
  end function timed_section

  real(8) function timed_c(data) result(t)
    real(8), intent(in), target :: data(:)
    integer :: ierr
    t = seconds()
    ierr = c_write('v' // c_null_char, c_loc(data))
    t = seconds() - t
    call check(ierr, 'ecluse_write (C)')
    call ecluse_end_iteration(ierr)
    call check(ierr, 'ecluse_end_iteration')
  end function timed_c

  !> A number as JSON wants it (gfortran's f0.d drops the 0 before the point).
  function num(value) result(text)
    real(8), intent(in) :: value
    character(len=:), allocatable :: text
    character(len=32) :: buffer
    write (buffer, '(f0.4)') abs(value)
    text = trim(buffer)
    if (text(1:1) == '.') text = '0' // text
    if (value < 0) text = '-' // text
  end function num

  !> JSON object of one block size: medians of the two calls, interleaved; the worst ratio
  !> from 1 MiB so far in worst.
  function measure(bytes, worst) result(json)
    integer(8), intent(in) :: bytes
    real(8), intent(inout) :: worst
    character(len=:), allocatable :: json
    real(8), allocatable :: data(:), wide(:), t_module(:), t_c(:), t_section(:)
    real(8) :: c_us, f_us, section_us
    integer :: ierr, i, reps, n
    n = int(bytes / 8)
    call ecluse_parameter_set('N', n, ierr)
    call check(ierr, 'ecluse_parameter_set N')
    allocate (data(n))
    data = [(real(i, 8), i = 1, n)]
    reps = int(max(31_8, min(401_8, 1024_8 * mib / bytes)))
    allocate (wide(2 * n))
    wide = [(real(i, 8), i = 1, 2 * n)]
    allocate (t_module(reps), t_c(reps), t_section(reps))
    do i = 1, 16
      call pair(data, mod(i, 2) == 0, t_module(1), t_c(1))  ! warm-up: pages, caches, server
      t_section(1) = timed_section(wide)
    end do
    do i = 1, reps
      call pair(data, mod(i, 2) == 0, t_module(i), t_c(i))
      t_section(i) = timed_section(wide)
    end do
    c_us = median(t_c) * 1d6
    f_us = median(t_module) * 1d6
    section_us = median(t_section) * 1d6
    json = '{"bytes": ' // itoa(bytes) // ', "reps": ' // itoa(int(reps, 8)) // ', "c_us": ' // &
           num(c_us) // ', "fortran_us": ' // num(f_us) // ', "ratio": ' // num(f_us / c_us) // &
           ', "ratio_paired_p50": ' // num(median(t_module / t_c)) // ', "overhead_us": ' // &
           num(f_us - c_us) // ', "section_us": ' // num(section_us) // &
           ', "section_ratio": ' // num(section_us / c_us) // ', "pass": '
    if (bytes < mib) then
      json = json // 'null}'
    else
      worst = max(worst, f_us / c_us)
      json = json // trim(merge('true ', 'false', f_us / c_us <= goal)) // '}'
    end if
  end function measure

  !> The 1, 5 and 15 minute load averages: how busy the machine was (2 cores here).
  function load_average() result(text)
    character(len=:), allocatable :: text
    character(len=128) :: line
    real(8) :: load(3)
    integer :: unit, status
    text = 'null'
    open (newunit=unit, file='/proc/loadavg', action='read', iostat=status)
    if (status /= 0) return
    read (unit, '(a)', iostat=status) line
    close (unit)
    if (status /= 0) return
    read (line, *, iostat=status) load
    if (status == 0) text = '[' // num(load(1)) // ', ' // num(load(2)) // ', ' // &
                            num(load(3)) // ']'
  end function load_average

  !> The whole report.
  function report(approach, sizes, worst, load_before) result(json)
    character(len=*), intent(in) :: approach, sizes, load_before
    real(8), intent(in) :: worst
    character(len=:), allocatable :: json
    json = '{"benchmark": "fortran_write_overhead", "approach": "' // approach // &
           '", "load_average_before": ' // load_before // ', "load_average_after": ' // &
           load_average() // &
           ', "store": "null", "baseline": "ecluse_write of the C API called through a ' // &
           'bind(C) interface, interleaved with the module''s ecluse_write; median of each", ' // &
           '"module_call": "ecluse_write(''v'', data, ierr), data real(8) of rank 1: trim and ' // &
           'NUL, ecluse_variable_shape (type and element count), C call", "section_call": ' // &
           '"ecluse_write(''v'', wide(1:2N:2), ierr): Ecluse''s one copy packs the section ' // &
           '(no goal; section_ratio is against the C call on contiguous data)", ' // &
           '"goal": {"ratio_max": ' // num(goal) // ', "applies_from_bytes": ' // &
           itoa(int(mib, 8)) // '}, "worst_ratio_from_1MiB": ' // num(worst) // ', "pass": ' // &
           trim(merge('true ', 'false', worst <= goal)) // ', "sizes": [' // sizes // ']}'
  end function report
end module overhead_run

program fortran_write_overhead
  use mpi
  use ecluse
  use overhead_run
  implicit none
  integer(8), parameter :: smallest = 4096, largest = 16 * 1024 * 1024
  character(len=:), allocatable :: json, sizes, load_before
  character(len=40) :: approach
  integer(8) :: bytes
  real(8) :: worst = 0
  integer :: ierr, mpi_err, ranks, is_client

  call MPI_Init(mpi_err)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, mpi_err)
  if (ranks > 2) call check(ECLUSE_ARGUMENT_ERROR, 'run on 1 rank (TP) or 2 (DC)')
  approach = 'dedicated cores, 1 client + 1 core'
  if (ranks == 1) approach = 'time partitioning, 1 rank'
  call ecluse_initialize_string(config_for(ranks == 2, largest), MPI_COMM_WORLD, ierr)
  call check(ierr, 'ecluse_initialize_string')
  call ecluse_start(is_client, ierr)
  call check(ierr, 'ecluse_start')
  if (is_client /= 0) then
    load_before = load_average()
    sizes = measure(smallest, worst)
    bytes = smallest * 4
    do while (bytes <= largest)
      sizes = sizes // ', ' // measure(bytes, worst)
      bytes = bytes * 4
    end do
    json = report(trim(approach), sizes, worst, load_before)
    call ecluse_stop(ierr)
    call check(ierr, 'ecluse_stop')
  end if
  call ecluse_finalize(ierr)
  call check(ierr, 'ecluse_finalize')
  if (is_client /= 0) print '(a)', json
  call MPI_Finalize(mpi_err)
end program fortran_write_overhead
