/*
 * args.h - reading a signature's argument values, as the analyses do.
 *
 * Shorthands over rondo.h: a parameter by name as a value (a NULL value
 * when the function has none), a constant by name, a count, a request id.
 * Which ranks and communicators a value names is librondo's answer
 * (rondo_comm_resolve, rondo_peer), not the analyses'.
 */
#ifndef RONDO_ARGS_H
#define RONDO_ARGS_H

#include <stdint.h>

#include "rondo.h"

/* The value of the parameter of signature s named `name`, or a NULL
 * value (kind RONDO_ARG_NULL) when it has none (rondo_sig_param). */
rondo_arg an_arg(const rondo_trace *t, uint32_t s, const char *name);

/* Value a is the named constant `name` (MPI_ANY_SOURCE...). */
int an_is_const(const rondo_trace *t, const rondo_arg *a, const char *name);

/* A plain non-negative integer value (a count), or -1. */
int64_t an_int(const rondo_arg *a);

/* The request id a value names, or UINT32_MAX (MPI_REQUEST_NULL...). */
uint32_t an_req_id(const rondo_arg *a);

#endif /* RONDO_ARGS_H */
