/*
 * fileio.h - the files rondo reads and writes, by path names it was
 * given, made safe against what else may sit at those names.
 *
 * Every file rondo writes (a trace, a CSV report, an export) goes through
 * fileio_create: a regular file is written under an unpredictable
 * temporary name in the target's directory (O_EXCL, never through a link)
 * and renamed over the target only when done, so a link planted at any
 * name the writer uses is never written through.  What sits at the target
 * decides:
 *   - nothing, or a regular file: written, then renamed over it;
 *   - a symbolic link: followed only when it belongs to the caller or to
 *     root (as the kernel's protected_symlinks does in sticky
 *     directories), and the rules applied to what it names; another
 *     user's link is refused;
 *   - a character device (/dev/null, a terminal): written in place,
 *     never created, truncated or replaced;
 *   - a directory, a FIFO, a socket, a block device: refused.
 *
 * Every file rondo reads (a trace, a theme) goes through fileio_read,
 * which checks what the name is before it can block: a FIFO, a socket, a
 * directory or a device is refused, never opened for reading.
 *
 * These functions never print; they hand back why in words.  Shared by
 * the tracer, librondo and the rondo command (none of them exports it).
 */
#ifndef RONDO_FILEIO_H
#define RONDO_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A file being written. */
struct fileio_out {
	int fd;	      /* where the bytes go */
	int dir;      /* the target's directory, held open (-1: in place) */
	FILE *f;      /* fileio_stream's stream over fd, once asked for */
	char *name;   /* the target's name in dir */
	char tmp[32]; /* the temporary name in dir ("" when in place) */
};

/* Opens `path` for writing by the rules above.  Returns 0, or an errno
 * value with the reason in why (without the path): "it is a FIFO; ...". */
int fileio_create(struct fileio_out *o, const char *path, char *why,
		  size_t whylen);

/* A stdio stream over the file (made once; closed by fileio_close), or
 * NULL when memory ran short. */
FILE *fileio_stream(struct fileio_out *o);

/* Writes all n bytes; 0 or an errno value. */
int fileio_write(struct fileio_out *o, const void *p, size_t n);

/* Ends the file: with keep, flushed, synced and put at the target's name
 * (renamed over it, or left in place); without, the temporary file
 * removed.  Returns 0, or an errno value with the reason in why (the
 * target is then as it was before fileio_create). */
int fileio_close(struct fileio_out *o, int keep, char *why, size_t whylen);

/* Reads the regular file `path` whole into *data (malloc'd, to free; at
 * least one byte allocated) and its size into *size.  Returns 0, or an
 * errno value with the reason in why: EFBIG past `max` bytes, ENOMEM,
 * EINVAL for what is not a regular file ("not a regular file but a
 * FIFO"), or the system's. */
int fileio_read(const char *path, size_t max, uint8_t **data, size_t *size,
		char *why, size_t whylen);

/* Copies `path` into buf (of `size` bytes, at least 16), cut in the
 * middle with "..." when it does not fit: the start of the path and as
 * much of its end (the file's own name first) stay.  Returns buf. */
const char *fileio_short(char *buf, size_t size, const char *path);

/* The longest path fileio_short keeps in error messages, so that the
 * reason always fits beside it. */
#define FILEIO_SHORT 160

#endif /* RONDO_FILEIO_H */
