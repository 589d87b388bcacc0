! fp2p.F90 - bench_p2p's p2p mode in Fortran, for make bench-fortran: a
! tight loop of MPI_Irecv, MPI_Isend (one double) and MPI_Waitall between
! ranks 0 and 1 (to itself on one rank), timed after a barrier.  Built
! with -DBIND_USE_MPI (use mpi) or -DBIND_F08 (use mpi_f08).  Rank 0
! prints "fp2p iters=N calls=3N wall=SECONDS" (the longest rank's loop).
!
!   mpirun -np 2 fp2p ITERATIONS
program fp2p
#if defined(BIND_F08)
  use mpi_f08
#else
  use mpi
#endif
  implicit none
#if defined(BIND_F08)
  type(MPI_Request) :: req(2)
#else
  integer :: req(2)
#endif
  integer :: ierr, rank, nranks, peer, it, iters
  double precision :: sbuf(1), rbuf(1), t(1), tmax(1)
  character(len=32) :: arg

  call get_command_argument(1, arg)
  read (arg, *) iters
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  peer = 1 - rank
  if (nranks == 1) peer = 0
  sbuf = 1
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  t(1) = MPI_Wtime()
  if (rank <= 1) then
    do it = 1, iters
      call MPI_Irecv(rbuf, 1, MPI_DOUBLE_PRECISION, peer, 0, MPI_COMM_WORLD, req(1), ierr)
      call MPI_Isend(sbuf, 1, MPI_DOUBLE_PRECISION, peer, 0, MPI_COMM_WORLD, req(2), ierr)
      call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
    end do
  end if
  t(1) = MPI_Wtime() - t(1)
  call MPI_Reduce(t, tmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a,i0,a,i0,a,f10.6)', 'fp2p iters=', iters, ' calls=', 3 * iters, &
    ' wall=', tmax(1)
end program
