/*
 * fileio.c - reading and writing files by name without being fooled by
 * what sits at the name (see fileio.h for the rules).
 *
 * A trace is often written as root, or by a job in a directory others
 * can write to (a project's shared scratch space is group-writable and
 * not sticky, so the kernel's protected_symlinks does not guard it).  A
 * predictable temporary name, opened without O_EXCL, lets anyone with
 * write access there plant a link and have the job write its trace into
 * any file it can write.  So the temporary name is random and opened with
 * O_CREAT | O_EXCL | O_NOFOLLOW, in the target's directory held open, and
 * the rename happens in that same directory; rename never follows a link
 * at the target, it replaces the entry.  A link at the target is read
 * through a descriptor of the link itself, so the owner checked is that
 * of the link read.  The directories on the way to the target are the
 * user's choice, followed as any program follows them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"

/* Links followed at most, as the kernel's own limit for a path. */
#define LINKS_MAX 40

static int why_set(char *why, size_t whylen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int why_set(char *why, size_t whylen, int err, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return err;
}

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m)    ? "a directory"
	       : S_ISFIFO(m) ? "a FIFO (named pipe)"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISLNK(m)  ? "a symbolic link"
			     : "not a regular file";
}

const char *fileio_short(char *buf, size_t size, const char *path)
{
	size_t n = strlen(path), head, tail;

	if (n < size) {
		memcpy(buf, path, n + 1);
		return buf;
	}
	/* a third for the start (where it is), the rest for the end (what
	 * it is: the file's own name), from a slash when one is near */
	head = (size - 4) / 3;
	tail = size - 4 - head;
	for (size_t k = 0; k < 16 && k < tail; k++)
		if (path[n - tail + k] == '/') {
			tail -= k;
			break;
		}
	memcpy(buf, path, head);
	memcpy(buf + head, "...", 3);
	memcpy(buf + head + 3, path + n - tail, tail + 1);
	return buf;
}

/* ---- reading ------------------------------------------------------------- */

static int read_all(int fd, uint8_t *p, size_t n, char *why, size_t whylen)
{
	ssize_t k;

	while (n) {
		k = read(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return why_set(why, whylen, errno, "read error: %s",
				       strerror(errno));
		if (k == 0)
			return why_set(why, whylen, EIO,
				       "read error: file shrank while read");
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int fileio_read(const char *path, size_t max, uint8_t **data, size_t *size,
		char *why, size_t whylen)
{
	struct stat st;
	int rc = 0, fd;

	*data = NULL;
	*size = 0;
	/* A device is not even opened (opening some has effects, a tape's
	 * rewind); what takes the name between this and the open is caught
	 * by the fstat after it.  O_NONBLOCK: a FIFO's open would wait for a
	 * writer; O_NOCTTY: a terminal must not become ours. */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return why_set(why, whylen, EINVAL, "not a regular file but %s",
			       kind_of(st.st_mode));
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return why_set(why, whylen, errno, "%s", strerror(errno));
	if (fstat(fd, &st) < 0)
		rc = why_set(why, whylen, errno, "%s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		rc = why_set(why, whylen, EINVAL, "not a regular file but %s",
			     kind_of(st.st_mode));
	else if ((uint64_t)st.st_size > max)
		rc = why_set(why, whylen, EFBIG, "file too large (%lld bytes)",
			     (long long)st.st_size);
	else if (!(*data = malloc(st.st_size ? (size_t)st.st_size : 1)))
		rc = why_set(why, whylen, ENOMEM, "out of memory");
	else if (!(rc = read_all(fd, *data, (size_t)st.st_size, why, whylen)))
		*size = (size_t)st.st_size;
	close(fd);
	if (rc) {
		free(*data);
		*data = NULL;
	}
	return rc;
}

/* ---- writing ------------------------------------------------------------- */

/* A fresh temporary name: ".rondo-" and 12 random letters and digits
 * (62 bits), whatever the target's name, so it always fits NAME_MAX. */
static void tmp_name(char tmp[static 20])
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	static unsigned long long counter;
	unsigned char r[12];
	unsigned long long x;
	struct timespec ts;

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		/* no entropy yet: a name unlikely to be guessed, and O_EXCL
		 * stays the guard */
		clock_gettime(CLOCK_REALTIME, &ts);
		x = (unsigned long long)ts.tv_sec * 1000000007ull ^
		    (unsigned long long)ts.tv_nsec ^
		    (unsigned long long)getpid() << 32 ^ ++counter;
		for (size_t k = 0; k < sizeof(r); k++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			r[k] = (unsigned char)(x >> 56);
		}
	}
	memcpy(tmp, ".rondo-", 7);
	for (size_t k = 0; k < sizeof(r); k++)
		tmp[7 + k] = set[r[k] % 36];
	tmp[19] = '\0';
}

/* Splits `path` into its directory, opened (*dir), and its last
 * component (*name, malloc'd).  0 or an errno value. */
static int split_open(const char *path, int *dir, char **name, char *why,
		      size_t whylen)
{
	const char *slash = strrchr(path, '/');
	char *d;

	if (!*path || (slash && !slash[1]))
		return why_set(why, whylen, EISDIR, "not a file name");
	d = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	*name = strdup(slash ? slash + 1 : path);
	if (!d || !*name) {
		free(d);
		free(*name);
		*name = NULL;
		return why_set(why, whylen, ENOMEM, "out of memory");
	}
	/* readable to be synced after the rename; searchable is enough to
	 * work in it */
	*dir = open(*d ? d : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*dir < 0 && errno == EACCES)
		*dir = open(*d ? d : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(d);
	if (*dir >= 0)
		return 0;
	free(*name);
	*name = NULL;
	return why_set(why, whylen, errno, "%s", strerror(errno));
}

/* The path the link `path` names, read from the link itself (`link`, an
 * O_PATH descriptor of it: the very inode whose owner was checked, even
 * if the name has been swapped since), relative to the link's directory.
 * NULL when memory ran short or the link cannot be read. */
static char *link_target(const char *path, int link)
{
	char buf[PATH_MAX], *out;
	ssize_t n = readlinkat(link, "", buf, sizeof(buf) - 1);
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) + 1 : 0;

	if (n < 0)
		return NULL;
	buf[n] = '\0';
	if (buf[0] == '/' || !dl)
		return strdup(buf);
	out = malloc(dl + (size_t)n + 1);
	if (out) {
		memcpy(out, path, dl);
		memcpy(out + dl, buf, (size_t)n + 1);
	}
	return out;
}

/* Opens the temporary file beside the target. */
static int create_tmp(struct fileio_out *o, char *why, size_t whylen)
{
	for (int tries = 0; tries < 100; tries++) {
		tmp_name(o->tmp);
		/* 0666: the umask applies, as to any file the user makes */
		o->fd = openat(o->dir, o->tmp,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				       O_CLOEXEC,
			       0666);
		if (o->fd >= 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	o->tmp[0] = '\0';
	return why_set(why, whylen, errno, "%s", strerror(errno));
}

/* A character device, opened where it is: /dev/null takes the output. */
static int open_in_place(struct fileio_out *o, char *why, size_t whylen)
{
	struct stat st;

	/* O_NONBLOCK: should a FIFO have taken the device's name since it
	 * was looked at, the open must not wait for a reader */
	o->fd = openat(o->dir, o->name,
		       O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK |
			       O_CLOEXEC);
	if (o->fd < 0)
		return why_set(why, whylen, errno, "%s", strerror(errno));
	if (fstat(o->fd, &st) == 0 && S_ISCHR(st.st_mode) &&
	    fcntl(o->fd, F_SETFL, fcntl(o->fd, F_GETFL) & ~O_NONBLOCK) == 0)
		return 0;
	close(o->fd);
	o->fd = -1;
	return why_set(why, whylen, EAGAIN,
		       "it changed while it was opened; not written");
}

static void out_reset(struct fileio_out *o)
{
	if (o->dir >= 0)
		close(o->dir);
	free(o->name);
	o->dir = -1;
	o->name = NULL;
}

/* A link at the target: followed when it is the caller's or root's. */
static int follow(struct fileio_out *o, const char *path, int link,
		  const struct stat *st, int depth, char *why, size_t whylen);

static int create_at(struct fileio_out *o, const char *path, int depth,
		     char *why, size_t whylen)
{
	struct stat st;
	int rc = split_open(path, &o->dir, &o->name, why, whylen), e;

	if (rc)
		return rc;
	/* the entry itself, never what it names: its type and owner are
	 * then those of what is read and followed */
	e = openat(o->dir, o->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (e < 0 && errno == ENOENT)
		return create_tmp(o, why, whylen);
	if (e < 0 || fstat(e, &st) < 0) {
		rc = why_set(why, whylen, errno, "%s", strerror(errno));
	} else if (S_ISREG(st.st_mode)) {
		rc = create_tmp(o, why, whylen);
	} else if (S_ISCHR(st.st_mode)) {
		rc = open_in_place(o, why, whylen);
	} else if (S_ISLNK(st.st_mode)) {
		rc = follow(o, path, e, &st, depth, why, whylen);
	} else {
		rc = why_set(why, whylen, S_ISDIR(st.st_mode) ? EISDIR : EINVAL,
			     "it is %s; rondo writes regular files (and "
			     "character devices such as /dev/null) only",
			     kind_of(st.st_mode));
	}
	if (e >= 0)
		close(e);
	return rc;
}

static int follow(struct fileio_out *o, const char *path, int link,
		  const struct stat *st, int depth, char *why, size_t whylen)
{
	char *next;
	int rc;

	if (st->st_uid != geteuid() && st->st_uid != 0)
		return why_set(
			why, whylen, EPERM,
			"it is a symbolic link of another user (uid %u); "
			"rondo does not write through it",
			(unsigned)st->st_uid);
	if (depth >= LINKS_MAX)
		return why_set(why, whylen, ELOOP, "%s", strerror(ELOOP));
	next = link_target(path, link);
	if (!next)
		return why_set(why, whylen, errno ? errno : ENOMEM, "%s",
			       strerror(errno ? errno : ENOMEM));
	out_reset(o);
	rc = create_at(o, next, depth + 1, why, whylen);
	free(next);
	return rc;
}

int fileio_create(struct fileio_out *o, const char *path, char *why,
		  size_t whylen)
{
	int rc;

	memset(o, 0, sizeof(*o));
	o->fd = o->dir = -1;
	rc = create_at(o, path, 0, why, whylen);
	if (rc) {
		if (o->fd >= 0)
			close(o->fd);
		o->fd = -1;
		out_reset(o);
	}
	return rc;
}

FILE *fileio_stream(struct fileio_out *o)
{
	if (!o->f && o->fd >= 0)
		o->f = fdopen(o->fd, "w");
	return o->f;
}

int fileio_write(struct fileio_out *o, const void *p, size_t n)
{
	const uint8_t *b = p;
	ssize_t k;

	while (n) {
		k = write(o->fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return errno;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Flushes, syncs (when a regular file) and closes; 0 or an errno value.
 * A file system that cannot sync (EINVAL) still keeps the file. */
static int out_end(struct fileio_out *o, int keep)
{
	int err = 0;

	if (o->f && fflush(o->f) != 0)
		err = errno ? errno : EIO;
	if (!err && keep && o->tmp[0] && fsync(o->fd) < 0 && errno != EINVAL)
		err = errno;
	if (o->f ? fclose(o->f) != 0 : close(o->fd) < 0)
		err = err ? err : errno;
	o->f = NULL;
	o->fd = -1;
	return err;
}

int fileio_close(struct fileio_out *o, int keep, char *why, size_t whylen)
{
	int err;

	if (o->fd < 0 && !o->f)
		return why_set(why, whylen, EBADF, "not open");
	err = out_end(o, keep);
	if (err)
		why_set(why, whylen, err, "%s", strerror(err));
	if (o->tmp[0] && keep && !err &&
	    renameat(o->dir, o->tmp, o->dir, o->name) < 0)
		err = why_set(why, whylen, errno,
			      "cannot rename %s over it: %s", o->tmp,
			      strerror(errno));
	if (o->tmp[0] && (err || !keep))
		unlinkat(o->dir, o->tmp, 0);
	/* the new name durable too; not every directory can be synced */
	if (o->tmp[0] && keep && !err)
		(void)fsync(o->dir);
	o->tmp[0] = '\0';
	out_reset(o);
	return err;
}
