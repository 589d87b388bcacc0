/*
 * tools.c - other MPI tools in the traced process.
 *
 * A PMPI tool (Darshan, mpiP, Score-P, a site's own interposer) defines
 * MPI_Send and friends as rondo does.  Loaded before rondo, the program's
 * calls reach it first and what rondo records is what that tool passes
 * on; loaded after, it sees rondo's PMPI-side calls only if it defines
 * PMPI_ too, and otherwise nothing.  Either way a person reading the trace
 * should know, so rank 0 says once which file defines MPI_Send besides
 * rondo and the MPI library.  Found from the dynamic linker's own answer
 * to "which MPI_Send comes first, and which comes after rondo's", so it
 * costs nothing per call.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include "runtime.h"

/* The file that holds the code at p, or NULL. */
static const char *tools_file(const void *p)
{
	Dl_info in;

	if (!p || !dladdr(p, &in) || !in.dli_fname)
		return NULL;
	return in.dli_fname;
}

/* The name a person knows a file by: the main program's is "" in the
 * dynamic linker's answer. */
static const char *tools_name(const char *file)
{
	return file && *file ? file : "the program itself";
}

/* Whether two files are one (NULL is none). */
static int tools_same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

void tools_report(void)
{
	const char *self = tools_file((const void *)tools_report);
	const char *mpi = tools_file(dlsym(RTLD_DEFAULT, "PMPI_Send"));
	const char *first = tools_file(dlsym(RTLD_DEFAULT, "MPI_Send"));
	const char *next = tools_file(dlsym(RTLD_NEXT, "MPI_Send"));

	if (!self || !mpi)
		return;
	if (first && !tools_same(first, self) && !tools_same(first, mpi))
		rt_warn("another MPI tool is loaded before rondo (%s defines "
			"MPI_Send): rondo records the calls it passes on "
			"through MPI_, not those it makes through PMPI_; load "
			"rondo first to record the program's own calls",
			tools_name(first));
	if (next && !tools_same(next, mpi))
		rt_warn("another MPI tool is loaded after rondo (%s defines "
			"MPI_Send): rondo records the program's calls, but "
			"that tool sees none of them (rondo calls MPI through "
			"PMPI_)",
			tools_name(next));
}
