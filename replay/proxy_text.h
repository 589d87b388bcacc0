/*
 * proxy_text.h - the text of a proxy's runtime (proxy_text.c, generated
 * by gen/gen_embed.py from rondo-replay's own sources at build time).
 */
#ifndef RONDO_PROXY_TEXT_H
#define RONDO_PROXY_TEXT_H

extern const char rp_px_includes[]; /* the system #includes */
extern const char rp_px_headers[];  /* kinds, val.h, replay.h, proxy.h */
extern const char rp_px_runtime[];  /* rt.c, complete.c, proxy_rt.c */
/* The names of the kinds of values, by value ("RONDO_ARG_INT"). */
extern const char *const rp_px_kind_names[];
extern const unsigned rp_px_nkinds;

/* The call function of each MPI function rondo-replay can issue. */
struct rp_px_call {
	const char *name;   /* "MPI_Send" */
	const char *params; /* its parameters' names, space-separated */
	const char *text;   /* static int rp_MPI_Send(struct rp_call *c) ... */
};
extern const struct rp_px_call rp_px_calls[]; /* sorted by name */
extern const unsigned rp_px_ncalls;

#endif /* RONDO_PROXY_TEXT_H */
