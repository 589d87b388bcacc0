/*
 * fortran.c - the runtime side of the Fortran entry points (fortran.h).
 *
 * The sentinels are the addresses of objects of the library's Fortran
 * bindings, which C cannot name portably, so they are looked up by the
 * names each library gives them:
 * - Open MPI: common blocks defined in libmpi, in every name mangling
 *   (mpi_fortran_in_place_...), shared by mpif.h, `use mpi` and mpi_f08;
 * - MPICH: mpif.h's common blocks, whose addresses its Fortran start-up
 *   stores in MPIR_F_MPI_IN_PLACE... (read at each use: they are set when
 *   the program's MPI_Init runs), and mpi_f08's own objects
 *   (MPIR_F08_MPI_IN_PLACE...);
 * - both: MPI_F_STATUS_IGNORE and MPI_F_STATUSES_IGNORE, which the
 *   standard gives C, and MPI-4's MPI_F08_STATUS(ES)_IGNORE.
 * Names a library does not define are skipped: a value is a sentinel if
 * it is the address of any of its names.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fortran.h"
#include "runtime.h"
#include "util.h"

_Static_assert(sizeof(MPI_Fint) == sizeof(int),
	       "Fortran INTEGER arrays are passed to C as int arrays");

enum sentinel {
	S_IN_PLACE,
	S_BOTTOM,
	S_STATUS_IGNORE,
	S_STATUSES_IGNORE,
	S_UNWEIGHTED,
	S_WEIGHTS_EMPTY,
	S_ERRCODES_IGNORE,
	S_COUNT
};

/* Open MPI's common blocks, in the four manglings. */
#define OMPI(name, what)                                                       \
	{"mpi_fortran_" name "_", what, 0}, {"mpi_fortran_" name, what, 0},    \
		{"mpi_fortran_" name "__", what, 0},                           \
	{                                                                      \
		"MPI_FORTRAN_" name, what, 0                                   \
	}

static const struct known {
	const char *name;
	enum sentinel what;
	int deref; /* the symbol holds the address; else it is the object */
} known[] = {
	OMPI("in_place", S_IN_PLACE),
	OMPI("bottom", S_BOTTOM),
	OMPI("status_ignore", S_STATUS_IGNORE),
	OMPI("statuses_ignore", S_STATUSES_IGNORE),
	OMPI("unweighted", S_UNWEIGHTED),
	OMPI("weights_empty", S_WEIGHTS_EMPTY),
	OMPI("errcodes_ignore", S_ERRCODES_IGNORE),
	{"MPIR_F_MPI_IN_PLACE", S_IN_PLACE, 1},
	{"MPIR_F08_MPI_IN_PLACE", S_IN_PLACE, 0},
	{"MPIR_F_MPI_BOTTOM", S_BOTTOM, 1},
	{"MPIR_F08_MPI_BOTTOM", S_BOTTOM, 0},
	{"MPIR_F_MPI_UNWEIGHTED", S_UNWEIGHTED, 1},
	{"MPIR_F_MPI_WEIGHTS_EMPTY", S_WEIGHTS_EMPTY, 1},
	{"MPI_F_ERRCODES_IGNORE", S_ERRCODES_IGNORE, 1},
	{"MPI_F_STATUS_IGNORE", S_STATUS_IGNORE, 1},
	{"MPI_F08_STATUS_IGNORE", S_STATUS_IGNORE, 1},
	{"MPIR_F08_MPI_STATUS_IGNORE_OBJ", S_STATUS_IGNORE, 0},
	{"MPI_F_STATUSES_IGNORE", S_STATUSES_IGNORE, 1},
	{"MPI_F08_STATUSES_IGNORE", S_STATUSES_IGNORE, 1},
	{"MPIR_F08_MPI_STATUSES_IGNORE_OBJ", S_STATUSES_IGNORE, 0},
};
#define NKNOWN COUNTOF(known)

/* The names found, by sentinel. */
static struct found {
	const void *at;
	int deref;
} found[S_COUNT][NKNOWN];
static int nfound[S_COUNT];
static pthread_once_t looked_up = PTHREAD_ONCE_INIT;

static void look_up(void)
{
	for (size_t i = 0; i < NKNOWN; i++) {
		const void *at = dlsym(RTLD_DEFAULT, known[i].name);
		enum sentinel s = known[i].what;

		if (at)
			found[s][nfound[s]++] =
				(struct found){at, known[i].deref};
	}
}

static int is(enum sentinel s, const void *p)
{
	pthread_once(&looked_up, look_up);
	for (int i = 0; i < nfound[s]; i++) {
		const void *a = found[s][i].deref
					? *(const void *const *)found[s][i].at
					: found[s][i].at;

		if (a && a == p)
			return 1;
	}
	return 0;
}

void *fort_next(const char *const *names)
{
	for (; *names; names++) {
		void *f = dlsym(RTLD_NEXT, *names);

		if (f)
			return f;
	}
	return NULL;
}

void fort_missing(const char *name, MPI_Fint *ierr)
{
	static int said;

	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		fprintf(stderr,
			"rondo: the MPI library defines no %s (nor its "
			"other spellings); the Fortran call cannot be "
			"made\n",
			name);
	if (ierr)
		*ierr = MPI_ERR_OTHER;
}

/* Scratch space for the call's converted arrays: slot by slot, each kept
 * for the next call at this level. */
static void *fort_tmp(struct rec *r, size_t bytes)
{
	struct rt_level *lv = r->lv;
	uint32_t k = lv->ntmp;

	if (k >= RT_FORT_TMP)
		return NULL;
	if (bytes == 0)
		bytes = 1;
	if (bytes > lv->tmpcap[k]) {
		void *p = realloc(lv->tmp[k], bytes);

		if (!p)
			return NULL;
		lv->tmp[k] = p;
		lv->tmpcap[k] = bytes;
	}
	lv->ntmp++;
	return lv->tmp[k];
}

void *fort_buf(const void *p)
{
	if (p && is(S_IN_PLACE, p))
		return MPI_IN_PLACE;
	if (p && is(S_BOTTOM, p))
		return MPI_BOTTOM;
	return (void *)(uintptr_t)p;
}

const void *fort_desc(const void *desc)
{
	return desc ? *(const void *const *)desc : NULL;
}

/* MPI_INTEGERs per status.  mpi_f08's TYPE(MPI_Status) has the same
 * layout as mpif.h's INTEGER array in both libraries (MPICH's
 * MPI_F08_status, Open MPI's ompi_f08_status), so one conversion serves
 * all bindings. */
#ifdef MPI_F_STATUS_SIZE
#define F_STATUS_INTS MPI_F_STATUS_SIZE
#else
#define F_STATUS_INTS (sizeof(MPI_Status) / sizeof(MPI_Fint))
#endif

MPI_Status *fort_status(const MPI_Fint *f, MPI_Status *c)
{
	if (!f)
		return NULL;
	if (is(S_STATUS_IGNORE, f))
		return MPI_STATUS_IGNORE;
	PMPI_Status_f2c(f, c);
	return c;
}

MPI_Status *fort_statuses(struct rec *r, const MPI_Fint *f, int64_t n)
{
	MPI_Status *c;

	if (!f || n < 0)
		return NULL;
	if (is(S_STATUSES_IGNORE, f))
		return MPI_STATUSES_IGNORE;
	c = fort_tmp(r, sizeof(*c) * (size_t)n);
	for (int64_t i = 0; c && i < n; i++)
		PMPI_Status_f2c(f + (size_t)i * F_STATUS_INTS, &c[i]);
	return c;
}

MPI_Fint *fort_status_own(struct rec *r, MPI_Fint *f, int64_t n, int many)
{
	MPI_Fint *own;

	if (!f || n <= 0 || !is(many ? S_STATUSES_IGNORE : S_STATUS_IGNORE, f))
		return f;
	own = fort_tmp(r, sizeof(*own) * F_STATUS_INTS * (size_t)n);
	if (!own)
		return f; /* recorded as ignored, as before */
	r->own_status = 1;
	return own;
}

int *fort_weights(const MPI_Fint *f)
{
	if (f && is(S_UNWEIGHTED, f))
		return MPI_UNWEIGHTED;
	if (f && is(S_WEIGHTS_EMPTY, f))
		return MPI_WEIGHTS_EMPTY;
	return (int *)(uintptr_t)f;
}

int *fort_errcodes(MPI_Fint *f)
{
	if (f && is(S_ERRCODES_IGNORE, f))
		return MPI_ERRCODES_IGNORE;
	return f;
}

/* MPICH 4.0's mpi_f08 gives the program 0-based indices, C's
 * (pmodels/mpich#6270, fixed in 4.1): the program sees them as they are,
 * and the trace records the request that completed. */
static int f08_zero_based(void)
{
	static int zero = -1;
	char lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int len = 0, major = 0, minor = 0;

	if (zero < 0) {
		zero = PMPI_Get_library_version(lib, &len) == MPI_SUCCESS &&
		       sscanf(lib, "MPICH Version: %d.%d", &major, &minor) ==
			       2 &&
		       major == 4 && minor == 0;
	}
	return zero;
}

int fort_index(MPI_Fint i, int f08)
{
	return i == MPI_UNDEFINED || (f08 && f08_zero_based()) ? i : i - 1;
}

int *fort_indices(struct rec *r, const MPI_Fint *f, int64_t n, int f08)
{
	int *c;

	if (!f || n < 0)
		return NULL;
	c = fort_tmp(r, sizeof(*c) * (size_t)n);
	for (int64_t i = 0; c && i < n; i++)
		c[i] = fort_index(f[i], f08);
	return c;
}

char *fort_string(struct rec *r, const char *f, size_t len)
{
	char *c;

	if (!f)
		return NULL;
	while (len > 0 && f[len - 1] == ' ')
		len--;
	c = fort_tmp(r, len + 1);
	if (c) {
		memcpy(c, f, len);
		c[len] = '\0';
	}
	return c;
}

#define FORT_LIST(name, type, f2c)                                             \
	type *fort_list_##name(struct rec *r, const MPI_Fint *f, int64_t n)    \
	{                                                                      \
		type *c;                                                       \
                                                                               \
		if (!f || n < 0)                                               \
			return NULL;                                           \
		c = fort_tmp(r, sizeof(*c) * (size_t)n);                       \
		for (int64_t i = 0; c && i < n; i++)                           \
			c[i] = f2c(f[i]);                                      \
		return c;                                                      \
	}
FORT_HANDLES(FORT_LIST)
#undef FORT_LIST

/* MPI_REQUEST_NULL as Fortran has it. */
static MPI_Fint request_null(void)
{
	static MPI_Fint null;
	static int ready;

	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
		null = PMPI_Request_c2f(MPI_REQUEST_NULL);
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	return null;
}

void fort_request_after(const MPI_Fint *f, MPI_Request *c)
{
	if (f && *f == request_null())
		*c = MPI_REQUEST_NULL;
}

void fort_requests_after(const MPI_Fint *f, MPI_Request *c, int64_t n)
{
	for (int64_t i = 0; f && c && i < n; i++)
		fort_request_after(&f[i], &c[i]);
}
