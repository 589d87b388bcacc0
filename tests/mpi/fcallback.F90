! fcallback.F90 - a Fortran program whose MPI_Comm_free runs a C
! library's attribute delete callback (tests/mpi/fcallback.c), which frees
! the library's own communicator with the C MPI_Comm_free: a call of the
! program's made inside the Fortran call of the same function, which the
! trace must have (tests/fortran.sh).  Under MPICH the Fortran binding's
! own C MPI_Comm_free comes first, and is the forwarding, not recorded.
program fcallback
  use mpi
  implicit none
  interface
    subroutine inner_attach(comm) bind(C, name='inner_attach')
      integer :: comm
    end subroutine
  end interface
  integer :: ierr, rank, outer

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, outer, ierr)
  call inner_attach(outer)
  call MPI_Comm_free(outer, ierr)
  call MPI_Finalize(ierr)
  print '(a,i0,a)', 'fcallback: rank ', rank, ' OK'
end program
