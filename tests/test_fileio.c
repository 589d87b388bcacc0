/*
 * test_fileio.c - the files rondo writes and reads by name (common/fileio.c):
 * what sits at the target decides (nothing or a regular file: replaced
 * through a temporary file; a character device: written in place; a
 * link: followed only when it is ours or root's; anything else refused),
 * a link planted at the very temporary name the writer picks is never
 * written through, the umask applies, and reading refuses what is not a
 * regular file without blocking on it.
 *
 * The temporary name comes from getrandom(); this program defines its
 * own getrandom, linked in before the C library's, so that it knows the
 * names the writer will pick.  Parts that need root (another user's link,
 * a block device node) say so when they cannot run.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "check.h"
#include "fileio.h"

static char dir[256];
static unsigned char next_random; /* the byte getrandom fills with */
static int random_calls;

/* Every byte `next_random`, then the next value for the next call: the
 * writer's temporary names are known in advance. */
ssize_t getrandom(void *buf, size_t n, unsigned int flags)
{
	(void)flags;
	memset(buf, next_random++, n);
	random_calls++;
	return (ssize_t)n;
}

/* The temporary name for getrandom bytes all `b`, as fileio.c makes it. */
static void tmp_for(char *buf, size_t size, unsigned char b)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	char tail[13];

	memset(tail, set[b % 36], 12);
	tail[12] = '\0';
	snprintf(buf, size, "%s/.rondo-%s", dir, tail);
}

static void at(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* The file's whole text, or "" (static buffer). */
static const char *text_of(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* Entries of dir, . and .. aside (the temporary names are hidden). */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

/* A socket bound at path (closed by the caller), or -1. */
static int make_socket(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t n = strlen(path);
	int s;

	if (n >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, path, n + 1);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s >= 0 && bind(s, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(s);
		s = -1;
	}
	return s;
}

/* Writes text to path through fileio; returns fileio's status, the
 * reason in why. */
static int write_text(const char *path, const char *text, int keep, char *why,
		      size_t whylen)
{
	struct fileio_out o;
	int rc = fileio_create(&o, path, why, whylen);

	if (rc)
		return rc;
	rc = fileio_write(&o, text, strlen(text));
	if (rc) {
		snprintf(why, whylen, "%s", strerror(rc));
		fileio_close(&o, 0, NULL, 0);
		return rc;
	}
	return fileio_close(&o, keep, why, whylen);
}

static void test_new_and_replace(void)
{
	char path[512], why[256];
	struct stat st;
	mode_t old = umask(027);

	at(path, sizeof(path), "new.csv");
	CHECKF(write_text(path, "one\n", 1, why, sizeof(why)) == 0, "%s", why);
	CHECK(!strcmp(text_of(path), "one\n"));
	/* the user's umask, as for any file the user makes */
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640);
	umask(old);
	CHECKF(write_text(path, "two\n", 1, why, sizeof(why)) == 0, "%s", why);
	CHECK(!strcmp(text_of(path), "two\n"));
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == (0666 & ~old));
	/* not kept: the target stays as it was, no temporary left */
	CHECK(write_text(path, "three\n", 0, why, sizeof(why)) == 0);
	CHECK(!strcmp(text_of(path), "two\n"));
	CHECK(entries() == 1);
	/* through a stream */
	{
		struct fileio_out o;
		FILE *f;

		CHECK(fileio_create(&o, path, why, sizeof(why)) == 0);
		f = fileio_stream(&o);
		CHECK(f && fprintf(f, "%d\n", 4) == 2);
		CHECK(fileio_close(&o, 1, why, sizeof(why)) == 0);
		CHECK(!strcmp(text_of(path), "4\n"));
	}
	/* a name of 250 bytes: the temporary name does not grow with it */
	{
		char name[251], big[1024];

		memset(name, 'n', 250);
		name[250] = '\0';
		at(big, sizeof(big), name);
		CHECKF(write_text(big, "long\n", 1, why, sizeof(why)) == 0,
		       "%s", why);
		CHECK(!strcmp(text_of(big), "long\n"));
		unlink(big);
	}
	unlink(path);
	CHECK(entries() == 0);
}

/* A link planted at the temporary name the writer picks first: the
 * writer takes another name, the link's target is untouched. */
static void test_planted_tmp(void)
{
	char path[512], tmp[512], victim[512], why[256];
	struct stat st;

	at(victim, sizeof(victim), "victim");
	put(victim, "precious\n");
	at(path, sizeof(path), "out.rondo");
	next_random = 7;
	tmp_for(tmp, sizeof(tmp), 7);
	CHECK(symlink(victim, tmp) == 0);
	random_calls = 0;
	CHECKF(write_text(path, "trace\n", 1, why, sizeof(why)) == 0, "%s",
	       why);
	CHECK(random_calls == 2); /* the first name was taken */
	CHECK(!strcmp(text_of(victim), "precious\n"));
	CHECK(lstat(tmp, &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(!strcmp(text_of(path), "trace\n"));
	/* a dangling link there: not created through either */
	unlink(tmp);
	at(victim, sizeof(victim), "created-through-link");
	next_random = 9;
	tmp_for(tmp, sizeof(tmp), 9);
	CHECK(symlink(victim, tmp) == 0);
	CHECKF(write_text(path, "again\n", 1, why, sizeof(why)) == 0, "%s",
	       why);
	CHECK(access(victim, F_OK) != 0);
	CHECK(!strcmp(text_of(path), "again\n"));
	unlink(tmp);
	unlink(path);
	at(victim, sizeof(victim), "victim");
	unlink(victim);
	CHECK(entries() == 0);
}

/* What sits at the target. */
static void test_targets(void)
{
	char path[512], other[512], why[256];
	struct stat st;
	int s;

	/* a FIFO: refused, and not opened (that would wait for a reader) */
	at(path, sizeof(path), "fifo");
	CHECK(mkfifo(path, 0600) == 0);
	CHECK(write_text(path, "x", 1, why, sizeof(why)) == EINVAL);
	CHECKF(strstr(why, "it is a FIFO") != NULL, "%s", why);
	CHECK(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode));
	unlink(path);
	/* a socket */
	at(path, sizeof(path), "sock");
	s = make_socket(path);
	CHECK(s >= 0);
	CHECK(write_text(path, "x", 1, why, sizeof(why)) == EINVAL);
	CHECKF(strstr(why, "it is a socket") != NULL, "%s", why);
	CHECK(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode));
	close(s);
	unlink(path);
	/* a directory */
	at(path, sizeof(path), "sub");
	CHECK(mkdir(path, 0700) == 0);
	CHECK(write_text(path, "x", 1, why, sizeof(why)) == EISDIR);
	CHECKF(strstr(why, "it is a directory") != NULL, "%s", why);
	rmdir(path);
	/* a character device: written in place, left a device */
	CHECKF(write_text("/dev/null", "x", 1, why, sizeof(why)) == 0, "%s",
	       why);
	CHECK(lstat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	/* and /dev/full's error comes back */
	if (access("/dev/full", W_OK) == 0) {
		CHECK(write_text("/dev/full", "x", 1, why, sizeof(why)) ==
		      ENOSPC);
		CHECKF(strstr(why, strerror(ENOSPC)) != NULL, "%s", why);
	}
	/* our own link to a file: followed, the file replaced and the link
	 * kept */
	at(other, sizeof(other), "real.csv");
	put(other, "old\n");
	at(path, sizeof(path), "link.csv");
	CHECK(symlink("real.csv", path) == 0);
	CHECKF(write_text(path, "new\n", 1, why, sizeof(why)) == 0, "%s", why);
	CHECK(!strcmp(text_of(other), "new\n"));
	CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
	unlink(other);
	/* ... to nothing yet: made where it points */
	CHECKF(write_text(path, "made\n", 1, why, sizeof(why)) == 0, "%s", why);
	CHECK(!strcmp(text_of(other), "made\n"));
	unlink(other);
	unlink(path);
	/* a loop of links */
	at(path, sizeof(path), "loop");
	CHECK(symlink("loop", path) == 0);
	CHECK(write_text(path, "x", 1, why, sizeof(why)) == ELOOP);
	unlink(path);
	/* not a file name */
	CHECK(write_text("", "x", 1, why, sizeof(why)) != 0);
	snprintf(path, sizeof(path), "%s/", dir);
	CHECK(write_text(path, "x", 1, why, sizeof(why)) != 0);
	/* no such directory */
	at(path, sizeof(path), "no/such/x.csv");
	CHECK(write_text(path, "x", 1, why, sizeof(why)) == ENOENT);
	CHECK(entries() == 0);
}

/* Links and nodes only root can make for a test: another user's link
 * (refused, even to a file we could write), a block device (refused). */
static void test_as_root(void)
{
	char path[512], victim[512], why[256];
	struct stat st;

	if (geteuid() != 0) {
		printf("test_fileio: NOTE: not root: another user's link and "
		       "a block device not checked here (tests/files.sh "
		       "checks them when run as root)\n");
		return;
	}
	at(victim, sizeof(victim), "victim");
	put(victim, "precious\n");
	at(path, sizeof(path), "planted.rondo");
	CHECK(symlink(victim, path) == 0);
	CHECK(lchown(path, 4242, 4242) == 0);
	CHECK(write_text(path, "trace\n", 1, why, sizeof(why)) == EPERM);
	CHECKF(strstr(why, "symbolic link of another user (uid 4242)") != NULL,
	       "%s", why);
	CHECK(!strcmp(text_of(victim), "precious\n"));
	CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
	unlink(path);
	unlink(victim);
	at(path, sizeof(path), "blk");
	CHECK(mknod(path, S_IFBLK | 0600, makedev(7, 250)) == 0);
	CHECK(write_text(path, "x", 1, why, sizeof(why)) == EINVAL);
	CHECKF(strstr(why, "it is a block device") != NULL, "%s", why);
	CHECK(lstat(path, &st) == 0 && S_ISBLK(st.st_mode));
	unlink(path);
	CHECK(entries() == 0);
}

static void test_read(void)
{
	char path[512], why[256], *longp;
	uint8_t *data;
	size_t n;
	int s;

	at(path, sizeof(path), "in");
	put(path, "hello");
	CHECK(fileio_read(path, 100, &data, &n, why, sizeof(why)) == 0);
	CHECK(n == 5 && !memcmp(data, "hello", 5));
	free(data);
	CHECK(fileio_read(path, 4, &data, &n, why, sizeof(why)) == EFBIG);
	CHECK(data == NULL && n == 0);
	unlink(path);
	/* none of these may block: alarm() ends the test if one does */
	alarm(20);
	at(path, sizeof(path), "fifo");
	CHECK(mkfifo(path, 0600) == 0);
	CHECK(fileio_read(path, 100, &data, &n, why, sizeof(why)) == EINVAL);
	CHECKF(!strcmp(why, "not a regular file but a FIFO (named pipe)"), "%s",
	       why);
	unlink(path);
	at(path, sizeof(path), "sock");
	s = make_socket(path);
	CHECK(s >= 0);
	CHECK(fileio_read(path, 100, &data, &n, why, sizeof(why)) == EINVAL);
	CHECKF(!strcmp(why, "not a regular file but a socket"), "%s", why);
	close(s);
	unlink(path);
	CHECK(fileio_read(dir, 100, &data, &n, why, sizeof(why)) == EINVAL);
	CHECKF(!strcmp(why, "not a regular file but a directory"), "%s", why);
	CHECK(fileio_read("/dev/zero", 100, &data, &n, why, sizeof(why)) ==
	      EINVAL);
	CHECKF(!strcmp(why, "not a regular file but a character device"), "%s",
	       why);
	alarm(0);
	longp = malloc(6001);
	memset(longp, 'a', 6000);
	for (int k = 1; k < 6000; k += 2)
		longp[k] = '/';
	longp[6000] = '\0';
	CHECK(fileio_read(longp, 100, &data, &n, why, sizeof(why)) ==
	      ENAMETOOLONG);
	free(longp);
}

static void test_short(void)
{
	char buf[FILEIO_SHORT], path[7000];
	const char *tail = "/name.rondo";

	CHECK(!strcmp(fileio_short(buf, sizeof(buf), "/a/b.rondo"),
		      "/a/b.rondo"));
	memset(path, 'd', sizeof(path));
	path[0] = '/';
	snprintf(path + 6000, sizeof(path) - 6000, "%s", tail);
	fileio_short(buf, sizeof(buf), path);
	CHECK(strlen(buf) == sizeof(buf) - 1);
	CHECK(!strncmp(buf, "/ddd", 4) && strstr(buf, "...") != NULL);
	CHECK(!strcmp(buf + strlen(buf) - strlen(tail), tail));
	/* the end from a slash when one is near the cut */
	for (size_t k = 1; k < 6000; k += 4)
		path[k] = '/';
	fileio_short(buf, sizeof(buf), path);
	CHECKF(strstr(buf, ".../") != NULL, "%s", buf);
	CHECK(strlen(buf) < sizeof(buf));
	/* exactly fitting: kept whole */
	memset(path, 'e', sizeof(buf) - 1);
	path[sizeof(buf) - 1] = '\0';
	CHECK(!strcmp(fileio_short(buf, sizeof(buf), path), path));
	path[sizeof(buf) - 1] = 'e';
	path[sizeof(buf)] = '\0';
	CHECK(strstr(fileio_short(buf, sizeof(buf), path), "...") != NULL);
}

int main(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/test_fileio.XXXXXX",
		 t && *t ? t : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_new_and_replace();
	test_planted_tmp();
	test_targets();
	test_as_root();
	test_read();
	test_short();
	rmdir(dir);
	return check_done("test_fileio");
}
