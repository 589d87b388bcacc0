/*
 * fortran.h - what the Fortran entry points of the generated wrappers.c
 * need: finding the library's own entry point to forward to, and turning
 * the values a Fortran call was made with into the C values its recording
 * takes (tracer/gen/gen_fortran.py says how they are used).
 *
 * A Fortran call passes every value by address, handles as integers, the
 * sentinels (MPI_IN_PLACE, MPI_BOTTOM, MPI_STATUS_IGNORE...) as the
 * addresses of the library's Fortran objects, 1-based indices, and strings
 * padded with blanks with their lengths after the other arguments.
 */
#ifndef RONDO_FORTRAN_H
#define RONDO_FORTRAN_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

/* The first of the NULL-terminated names the libraries loaded after the
 * tracer define (the library's own Fortran entry point), or NULL. */
void *fort_next(const char *const *names);
/* Says once that the library lacks name, and sets *ierr to an error. */
void fort_missing(const char *name, MPI_Fint *ierr);

/* A choice buffer: MPI_IN_PLACE and MPI_BOTTOM as C has them. */
void *fort_buf(const void *p);
/* The data address of an array descriptor (mpi_f08 of MPICH passes
 * TYPE(*), DIMENSION(..) buffers so): its first member in gfortran's and
 * ISO_Fortran_binding.h's layouts alike. */
const void *fort_desc(const void *desc);
/* One status: MPI_STATUS_IGNORE, or *f converted into *c. */
MPI_Status *fort_status(const MPI_Fint *f, MPI_Status *c);
/* n statuses: MPI_STATUSES_IGNORE, or converted into the call's scratch. */
MPI_Status *fort_statuses(struct rec *r, const MPI_Fint *f, int64_t n);
/* Graph weights and spawn error codes: their sentinels. */
int *fort_weights(const MPI_Fint *f);
int *fort_errcodes(MPI_Fint *f);
/* A request index as C numbers it: 1-based to 0-based, MPI_UNDEFINED as
 * it is; and n of them.  f08: from mpi_f08, where MPICH 4.0 gives C's. */
int fort_index(MPI_Fint i, int f08);
int *fort_indices(struct rec *r, const MPI_Fint *f, int64_t n, int f08);
/* A blank-padded string of len characters, trimmed and NUL-terminated. */
char *fort_string(struct rec *r, const char *f, size_t len);

/* n handles converted with the f2c function of their type; NULL for a
 * NULL array or a negative n. */
#define FORT_LIST(name, type)                                                  \
	type *fort_list_##name(struct rec *r, const MPI_Fint *f, int64_t n);
FORT_LIST(comm, MPI_Comm)
FORT_LIST(group, MPI_Group)
FORT_LIST(datatype, MPI_Datatype)
FORT_LIST(op, MPI_Op)
FORT_LIST(info, MPI_Info)
FORT_LIST(errhandler, MPI_Errhandler)
FORT_LIST(win, MPI_Win)
FORT_LIST(file, MPI_File)
FORT_LIST(message, MPI_Message)
FORT_LIST(request, MPI_Request)
#if MPI_VERSION >= 4
FORT_LIST(session, MPI_Session)
#endif
#undef FORT_LIST

#endif
