! Benchmark driver for FMM2D's rfmm2d (flatironinstitute/fmm2d), for side-by-side timings with
! mlfma2d only. Our code; it calls FMM2D's library (linked in by build.sh) and copies none of it.
!
!   driver IN.bin OUT.bin --nd ND [--eps 1e-10] [--charges 0|1] [--dipoles 0|1] [--pgh 1|2|3]
!          [--repeat R] [--warmup W] [--threads T] [--build NAME]
!
! Self-evaluation at the sources (no targets: nt = 0, ifpghtarg = 0), iper = 0. Calls rfmm2d
! W times untimed (default 0), then R times (default 1), each call timed alone with
! omp_get_wtime; "times" (also written as "seconds", the key of the earlier records) lists the
! R timed calls and "median" is their median: every timed call counts, the first included.
! OUT.bin gets the outputs of the last call. The last line of stdout is one JSON object.
!
! IN.bin (to_bin.py writes it; little-endian, no padding):
!   char[8]  "FMM2DIN1"
!   int64    n, nd, has_dipoles (0 or 1)
!   float64  sources(2, n)          x, y of point 1, x, y of point 2, ...
!   float64  charge(nd, n)          the nd densities of point 1, then of point 2, ...
!   if has_dipoles:
!   float64  dipstr(nd, n)
!   float64  dipvec(nd, 2, n)       per point: the nd x components, then the nd y components
! (Fortran order: the first index runs fastest; these are rfmm2d's own array shapes.)
!
! OUT.bin:
!   char[8]  "FMM2DOU1"
!   int64    n, nd, pgh
!   float64  pot(nd, n)
!   if pgh >= 2: float64 grad(nd, 2, n)      d/dx, d/dy
!   if pgh == 3: float64 hess(nd, 3, n)      xx, xy, yy
!
! FMM2D's convention (measured, docs/math.md 1.3): pot(x) = sum_j c_j log|x - y_j|
! - sum_j d_j v_j . (x - y_j) / |x - y_j|^2, no 1/(2 pi), the self pair skipped.
program fmm2d_driver
  use omp_lib
  use iso_fortran_env, only: int64, real64, error_unit, output_unit
  implicit none

  character(len=4096) :: in_path, out_path, arg, val, build_name
  character(len=8) :: magic
  integer :: nargs, i, k
  integer :: nd_arg, ifcharge, ifdipole, ifpgh, repeat, warmup, threads, iper, ier, ier_all
  integer :: ns, nd, nt, ifpghtarg, u, ios
  integer(int64) :: hdr(3)
  real(real64) :: eps, t0, t1, med
  real(real64), allocatable :: sources(:,:), charge(:,:), dipstr(:,:), dipvec(:,:,:)
  real(real64), allocatable :: pot(:,:), grad(:,:,:), hess(:,:,:)
  real(real64), allocatable :: times(:), sorted(:)
  ! rfmm2d's target arguments: unused with nt = 0 (as FMM2D's own *_s_* wrappers pass them)
  real(real64) :: targ(2, 1)
  real(real64), allocatable :: pottarg(:,:), gradtarg(:,:,:), hesstarg(:,:,:)
  character(len=:), allocatable :: js
  external rfmm2d

  nd_arg = -1; eps = 1d-10; ifcharge = 1; ifdipole = 0; ifpgh = 1; repeat = 1; warmup = 0
  threads = 0; build_name = 'unknown'; iper = 0

  nargs = command_argument_count()
  if (nargs < 2) call usage('IN.bin and OUT.bin are required')
  call get_command_argument(1, in_path)
  call get_command_argument(2, out_path)
  i = 3
  do while (i <= nargs)
    call get_command_argument(i, arg)
    if (i + 1 > nargs) call usage('option ' // trim(arg) // ' needs a value')
    call get_command_argument(i + 1, val)
    select case (trim(arg))
    case ('--nd');      nd_arg = to_int(arg, val)
    case ('--eps');     read (val, *, iostat=ios) eps; if (ios /= 0) call usage('bad --eps')
    case ('--charges'); ifcharge = to_int(arg, val)
    case ('--dipoles'); ifdipole = to_int(arg, val)
    case ('--pgh');     ifpgh = to_int(arg, val)
    case ('--repeat');  repeat = to_int(arg, val)
    case ('--warmup');  warmup = to_int(arg, val)
    case ('--threads'); threads = to_int(arg, val)
    case ('--build');   build_name = val
    case default;       call usage('unknown option ' // trim(arg))
    end select
    i = i + 2
  end do
  if (ifpgh < 1 .or. ifpgh > 3) call usage('--pgh must be 1, 2 or 3')
  if (ifcharge /= 0 .and. ifcharge /= 1) call usage('--charges must be 0 or 1')
  if (ifdipole /= 0 .and. ifdipole /= 1) call usage('--dipoles must be 0 or 1')
  if (ifcharge == 0 .and. ifdipole == 0) call usage('--charges 0 and --dipoles 0: nothing to do')
  if (repeat < 1 .or. warmup < 0) call usage('--repeat must be >= 1, --warmup >= 0')
  if (eps <= 0d0) call usage('--eps must be > 0')
  if (threads > 0) call omp_set_num_threads(threads)

  ! ---- input
  open (newunit=u, file=trim(in_path), access='stream', form='unformatted', status='old', &
        action='read', iostat=ios)
  if (ios /= 0) call fail('cannot open ' // trim(in_path))
  read (u, iostat=ios) magic
  if (ios /= 0 .or. magic /= 'FMM2DIN1') call fail(trim(in_path) // ': not a to_bin.py file')
  read (u, iostat=ios) hdr
  if (ios /= 0) call fail(trim(in_path) // ': short header')
  if (hdr(1) < 1 .or. hdr(1) > huge(ns) .or. hdr(2) < 1 .or. hdr(2) > 1024) &
    call fail(trim(in_path) // ': bad n or nd in the header')
  ns = int(hdr(1)); nd = int(hdr(2))
  if (nd_arg > 0 .and. nd_arg /= nd) then
    write (val, '(a,i0,a,i0)') '--nd ', nd_arg, ' but the file holds nd = ', nd
    call fail(trim(val))
  end if
  if (ifdipole == 1 .and. hdr(3) /= 1) call fail(trim(in_path) // &
    ' holds no dipoles (to_bin.py --dipoles writes them) but --dipoles 1 was asked')
  allocate (sources(2, ns), charge(nd, ns))
  read (u, iostat=ios) sources
  if (ios == 0) read (u, iostat=ios) charge
  if (hdr(3) == 1 .and. ifdipole == 1) then
    allocate (dipstr(nd, ns), dipvec(nd, 2, ns))
    if (ios == 0) read (u, iostat=ios) dipstr
    if (ios == 0) read (u, iostat=ios) dipvec
  else
    allocate (dipstr(nd, 1), dipvec(nd, 2, 1))
    dipstr = 0; dipvec = 0
  end if
  if (ios /= 0) call fail(trim(in_path) // ': file too short for its header')
  close (u)

  ! ---- outputs: rfmm2d touches grad only for ifpgh >= 2 and hess only for ifpgh = 3
  allocate (pot(nd, ns))
  if (ifpgh >= 2) then
    allocate (grad(nd, 2, ns))
  else
    allocate (grad(nd, 2, 1))
  end if
  if (ifpgh == 3) then
    allocate (hess(nd, 3, ns))
  else
    allocate (hess(nd, 3, 1))
  end if
  allocate (pottarg(nd, 1), gradtarg(nd, 2, 1), hesstarg(nd, 3, 1))
  targ = 0; nt = 0; ifpghtarg = 0

  ! ---- the calls
  allocate (times(repeat))
  ier_all = 0
  do k = 1, warmup + repeat
    t0 = omp_get_wtime()
    call rfmm2d(nd, eps, ns, sources, ifcharge, charge, ifdipole, dipstr, dipvec, iper, ifpgh, &
                pot, grad, hess, nt, targ, ifpghtarg, pottarg, gradtarg, hesstarg, ier)
    t1 = omp_get_wtime()
    if (ier /= 0) ier_all = ier
    if (k > warmup) times(k - warmup) = t1 - t0
    write (error_unit, '(a,i0,a,f0.6,a,i0)') 'fmm2d driver: call ', k, ': ', t1 - t0, &
      ' s, ier ', ier
  end do

  ! ---- output file
  open (newunit=u, file=trim(out_path), access='stream', form='unformatted', status='replace', &
        action='write', iostat=ios)
  if (ios /= 0) call fail('cannot write ' // trim(out_path))
  write (u) 'FMM2DOU1'
  write (u) int(ns, int64), int(nd, int64), int(ifpgh, int64)
  write (u) pot
  if (ifpgh >= 2) write (u) grad
  if (ifpgh == 3) write (u) hess
  close (u)

  ! ---- the JSON line
  sorted = times
  call sort(sorted)
  if (mod(repeat, 2) == 1) then
    med = sorted((repeat + 1) / 2)
  else
    med = 0.5d0 * (sorted(repeat / 2) + sorted(repeat / 2 + 1))
  end if
  js = '{"code":"fmm2d","routine":"rfmm2d","n":' // itoa(ns) // ',"ns":' // itoa(ns) // &
       ',"nt":0,"nd":' // itoa(nd) // ',"eps":' // ftoa(eps) // ',"charges":' // itoa(ifcharge) // &
       ',"dipoles":' // itoa(ifdipole) // ',"pgh":' // itoa(ifpgh) // ',"iper":0' // &
       ',"threads":' // itoa(omp_get_max_threads()) // ',"warmup":' // itoa(warmup) // &
       ',"repeat":' // itoa(repeat) // ',"times":' // flist(times) // ',"seconds":' // &
       flist(times) // ',"median":' // ftoa(med) // ',"min":' // ftoa(sorted(1)) // &
       ',"ier":' // itoa(ier_all) // ',"build":"' // trim(build_name) // '"}'
  write (output_unit, '(a)') js

contains

  subroutine usage(msg)
    character(len=*), intent(in) :: msg
    write (error_unit, '(a)') 'fmm2d driver: ' // msg
    write (error_unit, '(a)') 'usage: driver IN.bin OUT.bin --nd ND [--eps E] [--charges 0|1] ' // &
      '[--dipoles 0|1] [--pgh 1|2|3] [--repeat R] [--warmup W] [--threads T] [--build NAME]'
    call exit(2)   ! GNU extension: no backtrace
  end subroutine

  subroutine fail(msg)
    character(len=*), intent(in) :: msg
    write (error_unit, '(a)') 'fmm2d driver: ' // msg
    call exit(1)
  end subroutine

  integer function to_int(name, text)
    character(len=*), intent(in) :: name, text
    integer :: e
    read (text, *, iostat=e) to_int
    if (e /= 0) call usage('bad value for ' // trim(name) // ': ' // trim(text))
  end function

  function itoa(v) result(s)
    integer, intent(in) :: v
    character(len=:), allocatable :: s
    character(len=32) :: b
    write (b, '(i0)') v
    s = trim(b)
  end function

  function ftoa(v) result(s)   ! JSON number, 17 significant digits
    real(real64), intent(in) :: v
    character(len=:), allocatable :: s
    character(len=40) :: b
    write (b, '(es24.16e3)') v
    s = trim(adjustl(b))
  end function

  function flist(v) result(s)
    real(real64), intent(in) :: v(:)
    character(len=:), allocatable :: s
    integer :: j
    s = '['
    do j = 1, size(v)
      if (j > 1) s = s // ','
      s = s // ftoa(v(j))
    end do
    s = s // ']'
  end function

  subroutine sort(a)   ! insertion sort: a handful of values
    real(real64), intent(inout) :: a(:)
    integer :: p, q
    real(real64) :: x
    do p = 2, size(a)
      x = a(p); q = p - 1
      do while (q >= 1)
        if (a(q) <= x) exit
        a(q + 1) = a(q); q = q - 1
      end do
      a(q + 1) = x
    end do
  end subroutine

end program fmm2d_driver
