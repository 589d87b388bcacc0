! fstencil.F90 - the bundled C example tests/mpi/stencil.c in Fortran: a
! 2-D Jacobi sweep on a process grid with a 5-point halo exchange
! (non-blocking, non-periodic) and a residual reduction every iteration.
! tests/fortran.sh and `make bench-fortran` build it with -DBIND_USE_MPI
! (use mpi) or -DBIND_F08 (use mpi_f08) and compare its traces with the C
! stencil's.  Fortran arrays are column-major: columns are contiguous and
! a row is the vector type.
!
!   mpirun -np 4 fstencil [ITERATIONS] [N]     (local grid N x N, default 64)
program fstencil
#if defined(BIND_F08)
  use mpi_f08
#else
  use mpi
#endif
  implicit none
#if defined(BIND_F08)
#define HANDLE(T) type(T)
#else
#define HANDLE(T) integer
#endif
  integer :: iters, n, nranks, rank, it, i, j, ierr
  integer :: dims(2), nb(4)
  logical :: periods(2)
  HANDLE(MPI_Comm) :: cart
  HANDLE(MPI_Datatype) :: row
  HANDLE(MPI_Request) :: req(8)
  double precision :: local, global
  double precision, allocatable :: u(:, :), v(:, :), t(:, :)
  character(len=32) :: arg

  iters = 100
  n = 64
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) n
  end if
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  dims = 0
  periods = .false.
  call MPI_Dims_create(nranks, 2, dims, ierr)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .true., cart, ierr)
  call MPI_Comm_rank(cart, rank, ierr)
  call MPI_Cart_shift(cart, 0, 1, nb(1), nb(2), ierr)
  call MPI_Cart_shift(cart, 1, 1, nb(3), nb(4), ierr)
  call MPI_Type_vector(n, 1, n + 2, MPI_DOUBLE_PRECISION, row, ierr)
  call MPI_Type_commit(row, ierr)
  allocate(u(0:n + 1, 0:n + 1), v(0:n + 1, 0:n + 1))
  u = rank + 1
  v = rank + 1
  do it = 1, iters
    ! halo: columns 0 and n+1 are contiguous, rows 0 and n+1 strided
    call MPI_Irecv(u(1, 0), n, MPI_DOUBLE_PRECISION, nb(1), 0, cart, req(1), ierr)
    call MPI_Irecv(u(1, n + 1), n, MPI_DOUBLE_PRECISION, nb(2), 1, cart, req(2), ierr)
    call MPI_Irecv(u(0, 1), 1, row, nb(3), 2, cart, req(3), ierr)
    call MPI_Irecv(u(n + 1, 1), 1, row, nb(4), 3, cart, req(4), ierr)
    call MPI_Isend(u(1, 1), n, MPI_DOUBLE_PRECISION, nb(1), 1, cart, req(5), ierr)
    call MPI_Isend(u(1, n), n, MPI_DOUBLE_PRECISION, nb(2), 0, cart, req(6), ierr)
    call MPI_Isend(u(1, 1), 1, row, nb(3), 3, cart, req(7), ierr)
    call MPI_Isend(u(n, 1), 1, row, nb(4), 2, cart, req(8), ierr)
    call MPI_Waitall(8, req, MPI_STATUSES_IGNORE, ierr)
    local = 0
    do j = 1, n
      do i = 1, n
        v(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
        local = local + abs(v(i, j) - u(i, j))
      end do
    end do
    call move_alloc(u, t)
    call move_alloc(v, u)
    call move_alloc(t, v)
    call MPI_Allreduce(local, global, 1, MPI_DOUBLE_PRECISION, MPI_SUM, cart, ierr)
  end do
  if (rank == 0) print '(a,i0,a,i0,a,i0,a,i0,a,es12.5)', 'fstencil: ', nranks, &
    ' ranks (', dims(1), ' x ', dims(2), '), ', iters, ' iterations, residual ', global
  call MPI_Type_free(row, ierr)
  call MPI_Comm_free(cart, ierr)
  deallocate(u, v)
  call MPI_Finalize(ierr)
end program
