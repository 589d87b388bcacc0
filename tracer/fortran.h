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

/* Whether the library's entry points of each kind (mpif.h and `use mpi`;
 * mpi_f08 without and with a choice buffer) call the C function of their
 * name, which a tool stacked before rondo may pass on to rondo's: where
 * they do, the forwarding is marked (record.h, rec_forward), where they do
 * not, a mark would take a callback's call for it.  Open MPI 4.1's call
 * PMPI_ (its Fortran libraries import no MPI_ symbol); MPICH 4.0's
 * mpif.h and buffer mpi_f08 ones the C function, its other mpi_f08 ones
 * PMPI_.  Another library's are marked until one returns unmarked. */
#if defined(OPEN_MPI)
#define FORT_CALLS_C_MPIF  0
#define FORT_CALLS_C_F08   0
#define FORT_CALLS_C_F08TS 0
#elif defined(MPICH)
#define FORT_CALLS_C_MPIF  1
#define FORT_CALLS_C_F08   0
#define FORT_CALLS_C_F08TS 1
#else
#define FORT_CALLS_C_MPIF  1
#define FORT_CALLS_C_F08   1
#define FORT_CALLS_C_F08TS 1
#endif

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
/* Where the library writes a status (many: an array of n) the program
 * passed as f: f, or the tracer's own when f is MPI_STATUS(ES)_IGNORE,
 * as rec_status_own does for C. */
MPI_Fint *fort_status_own(struct rec *r, MPI_Fint *f, int64_t n, int many);
/* Graph weights and spawn error codes: their sentinels. */
int *fort_weights(const MPI_Fint *f);
int *fort_errcodes(MPI_Fint *f);
/* A request index as C numbers it: 1-based to 0-based, MPI_UNDEFINED as
 * it is; and n of them.  f08: from mpi_f08, where MPICH 4.0 gives C's. */
int fort_index(MPI_Fint i, int f08);
int *fort_indices(struct rec *r, const MPI_Fint *f, int64_t n, int f08);
/* A blank-padded string of len characters, trimmed and NUL-terminated. */
char *fort_string(struct rec *r, const char *f, size_t len);

/* The handle types and their f2c functions (macros in MPICH, whose
 * handles are integers already).  For each: fort_<name>(f), one handle,
 * and fort_list_<name>(r, f, n), n of them in the call's scratch space
 * (NULL for a NULL array or a negative n). */
#if MPI_VERSION >= 4
#define FORT_SESSION(X) X(session, MPI_Session, PMPI_Session_f2c)
#else
#define FORT_SESSION(X)
#endif
/* clang-format off */
#define FORT_HANDLES(X)                                                        \
	X(comm, MPI_Comm, PMPI_Comm_f2c)                                       \
	X(group, MPI_Group, PMPI_Group_f2c)                                    \
	X(datatype, MPI_Datatype, PMPI_Type_f2c)                               \
	X(op, MPI_Op, PMPI_Op_f2c)                                             \
	X(info, MPI_Info, PMPI_Info_f2c)                                       \
	X(errhandler, MPI_Errhandler, PMPI_Errhandler_f2c)                     \
	X(win, MPI_Win, PMPI_Win_f2c)                                          \
	X(file, MPI_File, PMPI_File_f2c)                                       \
	X(message, MPI_Message, PMPI_Message_f2c)                              \
	X(request, MPI_Request, PMPI_Request_f2c)                              \
	FORT_SESSION(X)
/* clang-format on */

#define FORT_DECLARE(name, type, f2c)                                          \
	static inline type fort_##name(MPI_Fint f)                             \
	{                                                                      \
		return f2c(f);                                                 \
	}                                                                      \
	type *fort_list_##name(struct rec *r, const MPI_Fint *f, int64_t n);
FORT_HANDLES(FORT_DECLARE)
#undef FORT_DECLARE

/* A request array after a call that may have completed some: those the
 * program now holds as MPI_REQUEST_NULL become it in c, the converted
 * array from before the call; the others are as they were (a request's
 * handle changes only to null), so no f2c is needed again. */
void fort_requests_after(const MPI_Fint *f, MPI_Request *c, int64_t n);
/* One such request. */
void fort_request_after(const MPI_Fint *f, MPI_Request *c);

#endif
