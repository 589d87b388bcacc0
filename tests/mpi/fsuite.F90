! fsuite.F90 - MPI calls of the kinds a Fortran program makes, for
! tests/fortran.sh, which builds it three times: -DBIND_MPIF (include
! 'mpif.h'), -DBIND_USE_MPI (use mpi), -DBIND_F08 (use mpi_f08).  Its C
! twin, tests/mpi/ftwin.c, makes the same calls with the same values in
! the same order: the two traces must read the same, call by call.
!
! Every buffer is an allocatable array (a heap block, as the C twin's
! malloc'ed ones), so both traces name the same segments.  The program
! checks what it received and what MPI told it (1-based indices, sources,
! counts, the communicator's name), prints "fsuite: rank R OK" and exits
! 0, or says what went wrong and exits 1.  Even rank counts, 2 or more.
! FSUITE_ZERO_BASED=1 in the environment: the library gives C's 0-based
! request indices (MPICH 4.0's mpi_f08, pmodels/mpich#6270).
! Its one call whose number is not fixed (MPI_Waitsome, until all six
! requests are done) is last but for MPI_Finalize.  It asks
! MPI_Initialized before MPI_Init and MPI_Finalized after MPI_Finalize.
program fsuite
#if defined(BIND_F08)
  use mpi_f08
#elif defined(BIND_USE_MPI)
  use mpi
#endif
  implicit none
#if defined(BIND_MPIF)
  include 'mpif.h'
#endif
#if defined(BIND_F08)
#define HANDLE(T) type(T)
#define ONE_STATUS(s) type(MPI_Status) :: s
#define STATUSES(s, n) type(MPI_Status) :: s(n)
#define SOURCE_OF(s) s%MPI_SOURCE
#define TAG_OF(s) s%MPI_TAG
#define SOURCE_AT(s, i) s(i)%MPI_SOURCE
#define TAG_AT(s, i) s(i)%MPI_TAG
#else
#define HANDLE(T) integer
#define ONE_STATUS(s) integer :: s(MPI_STATUS_SIZE)
#define STATUSES(s, n) integer :: s(MPI_STATUS_SIZE, n)
#define SOURCE_OF(s) s(MPI_SOURCE)
#define TAG_OF(s) s(MPI_TAG)
#define SOURCE_AT(s, i) s(MPI_SOURCE, i)
#define TAG_AT(s, i) s(MPI_TAG, i)
#endif
  integer :: ierr, rank, nranks, right, left, i, n, k, done, outcount
  integer :: idx, subrank, namelen, tsize, bad, base, j
  character(len=8) :: env
  integer :: indices(6)
  logical :: flag
  character(len=MPI_MAX_OBJECT_NAME) :: cname
  HANDLE(MPI_Request) :: req(2), reqs(6), one(3)
  HANDLE(MPI_Comm) :: sub, dup
  HANDLE(MPI_Datatype) :: vec, pair, types(2)
  HANDLE(MPI_Info) :: info
  ONE_STATUS(st)
  STATUSES(sts, 6)
  integer :: blocklens(2)
  integer(kind=MPI_ADDRESS_KIND) :: displs(2)
  integer, allocatable :: a(:), b(:), c(:), v(:), g(:), x(:), y(:)
  ! written through MPI_BOTTOM, which the compiler cannot see: without
  ! volatile, gfortran compares with the values it assigned before
  integer, allocatable, volatile :: p(:), q(:)

  bad = 0
  base = 1
  call get_environment_variable('FSUITE_ZERO_BASED', env)
  if (env == '1') base = 0
  ! before MPI_Init: kept, and traced ahead of it
  call MPI_Initialized(flag, ierr)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (flag) call no('initialized before MPI_Init')
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)
  allocate(a(8), b(8), c(8), v(4), g(nranks), x(4), y(4), p(6), q(6))
  a = rank

  ! ---- point to point -------------------------------------------------
  call MPI_Sendrecv(a, 8, MPI_INTEGER, right, 1, b, 8, MPI_INTEGER, left, 1, &
                    MPI_COMM_WORLD, st, ierr)
  if (b(8) /= left .or. SOURCE_OF(st) /= left .or. TAG_OF(st) /= 1) call no('sendrecv')
  call MPI_Irecv(b, 8, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(a, 8, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Waitall(2, req, sts, ierr)
  if (SOURCE_AT(sts, 1) /= left .or. TAG_AT(sts, 1) /= 2) call no('waitall status')
  call MPI_Irecv(b(3), 4, MPI_INTEGER, left, 3, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(a(5), 4, MPI_INTEGER, right, 3, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  if (mod(rank, 2) == 0) then
    call MPI_Send(a, 8, MPI_INTEGER, right, 4, MPI_COMM_WORLD, ierr)
    call MPI_Recv(c, 8, MPI_INTEGER, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, st, ierr)
  else
    call MPI_Recv(c, 8, MPI_INTEGER, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, st, ierr)
    call MPI_Send(a, 8, MPI_INTEGER, right, 4, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Get_count(st, MPI_INTEGER, n, ierr)
  if (n /= 8 .or. SOURCE_OF(st) /= left) call no('recv from any source')
  ! Waitany with one active request: its 1-based index, always 2
  one(1) = MPI_REQUEST_NULL
  one(3) = MPI_REQUEST_NULL
  call MPI_Irecv(c, 8, MPI_INTEGER, left, 5, MPI_COMM_WORLD, one(2), ierr)
  call MPI_Send(a, 8, MPI_INTEGER, right, 5, MPI_COMM_WORLD, ierr)
  call MPI_Waitany(3, one, idx, st, ierr)
  if (idx /= 1 + base) call no('waitany index')
  call MPI_Test(one(2), flag, MPI_STATUS_IGNORE, ierr)
  if (.not. flag) call no('test of a null request')
  call MPI_Send(a, 8, MPI_INTEGER, right, 6, MPI_COMM_WORLD, ierr)
  call MPI_Probe(left, 6, MPI_COMM_WORLD, st, ierr)
  if (SOURCE_OF(st) /= left) call no('probe')
  call MPI_Recv(c, 8, MPI_INTEGER, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)

  ! ---- collectives, with MPI_IN_PLACE ----------------------------------
  v = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (v(1) /= nranks * (nranks + 1) / 2) call no('allreduce in place')
  x = 1
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, x, 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (x(4) /= nranks) call no('reduce in place')
  else
    call MPI_Reduce(x, y, 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  end if
  g(rank + 1) = rank * 10
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, 1, MPI_INTEGER, &
                     MPI_COMM_WORLD, ierr)
  if (g(nranks) /= (nranks - 1) * 10) call no('allgather in place')
  call MPI_Bcast(v, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  ierr = -1
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) call no('ierr not set by a call that succeeded')
  ! a call that fails, with errors returned: ierr says so
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(a, 1, MPI_INTEGER, nranks + 5, 0, MPI_COMM_WORLD, ierr)
  if (ierr == MPI_SUCCESS) call no('a send to no rank succeeded')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)

  ! ---- communicators ---------------------------------------------------
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
  call MPI_Comm_rank(sub, subrank, ierr)
  if (subrank /= rank / 2) call no('comm split rank')
  call MPI_Comm_set_name(sub, 'half', ierr)
  call MPI_Comm_get_name(sub, cname, namelen, ierr)
  if (cname(1:namelen) /= 'half') call no('comm name')
  x = 1
  call MPI_Allreduce(x, y, 4, MPI_INTEGER, MPI_SUM, sub, ierr)
  if (y(1) /= nranks / 2) call no('allreduce on the split')
  call MPI_Comm_dup(sub, dup, ierr)
  call MPI_Barrier(dup, ierr)
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_free(sub, ierr)

  ! ---- derived datatypes ------------------------------------------------
  call MPI_Type_vector(4, 1, 2, MPI_INTEGER, vec, ierr)
  call MPI_Type_commit(vec, ierr)
  b = -1
  call MPI_Sendrecv(a, 1, vec, right, 7, b, 1, vec, left, 7, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
  if (b(7) /= left .or. b(2) /= -1) call no('vector type')
  call MPI_Type_size(vec, tsize, ierr)
  if (tsize /= 16) call no('vector size')
  ! two arrays by absolute address, sent from MPI_BOTTOM
  call MPI_Get_address(p, displs(1), ierr)
  call MPI_Get_address(q(3), displs(2), ierr)
  blocklens = (/ 2, 3 /)
  types(1) = MPI_INTEGER
  types(2) = MPI_INTEGER
  call MPI_Type_create_struct(2, blocklens, displs, types, pair, ierr)
  call MPI_Type_commit(pair, ierr)
  p = rank
  q = rank
  call MPI_Sendrecv_replace(MPI_BOTTOM, 1, pair, right, 8, left, 8, MPI_COMM_WORLD, &
                            st, ierr)
  if (p(2) /= left .or. q(5) /= left .or. q(6) /= rank) call no('struct type at MPI_BOTTOM')
  call MPI_Type_free(pair, ierr)
  call MPI_Type_free(vec, ierr)

  ! ---- strings and logicals -----------------------------------------------
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'rondo_key', 'a value', ierr)
  call MPI_Info_free(info, ierr)
  call MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE, ierr)
  if (flag) call no('iprobe found a message never sent')

  ! ---- a Waitsome loop ---------------------------------------------------
  do i = 1, 3
    call MPI_Irecv(c(i), 1, MPI_INTEGER, left, 20 + i, MPI_COMM_WORLD, reqs(i), ierr)
  end do
  do i = 1, 3
    call MPI_Isend(a(i), 1, MPI_INTEGER, right, 20 + i, MPI_COMM_WORLD, reqs(3 + i), ierr)
  end do
  done = 0
  k = 0
  do while (done < 6)
    call MPI_Waitsome(6, reqs, outcount, indices, sts, ierr)
    if (outcount < 1 .or. outcount > 6) call no('waitsome count')
    do i = 1, outcount
      j = indices(i) + 1 - base
      if (j < 1 .or. j > 6) call no('waitsome index')
      if (j <= 3 .and. j >= 1) then
        if (SOURCE_AT(sts, i) /= left .or. TAG_AT(sts, i) /= 20 + j) &
          call no('waitsome status')
      end if
    end do
    done = done + outcount
    k = k + 1
  end do
  call MPI_Finalize(ierr)
  ! after it: kept once, added to the trace after MPI_Finalize wrote it
  call MPI_Finalized(flag, ierr)
  if (.not. flag) call no('not finalized after MPI_Finalize')
  if (bad /= 0) stop 1
  print '(a,i0,a,i0,a)', 'fsuite: rank ', rank, ' OK (', k, ' waitsome)'

contains

  subroutine no(what)
    character(len=*), intent(in) :: what
    print '(a,i0,a,a)', 'fsuite: rank ', rank, ': wrong: ', what
    bad = 1
  end subroutine

end program
