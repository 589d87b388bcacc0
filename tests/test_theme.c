/*
 * test_theme.c - the explorer's themes without a terminal: the shipped
 * theme files, partial themes, finding a theme by name, the errors a bad
 * file gives (with its line and column), and the nearest palette colours.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "theme.h"

#define THEMES SRCDIR "/themes"

/* The temporary directory the test's files go to, and what was made in it
 * (removed in reverse order at the end). */
static char tmpdir[] = "/tmp/test_theme.XXXXXX";
static char made[64][512];
static int nmade;

/* tmpdir/name into path, recorded for removal. */
static char *tmp_path(char *path, size_t size, const char *name)
{
	int n = snprintf(path, size, "%s/%s", tmpdir, name);

	if (n < 0 || (size_t)n >= size || nmade == 64) {
		fprintf(stderr, "test_theme: %s: path too long\n", name);
		exit(99);
	}
	snprintf(made[nmade++], sizeof(made[0]), "%s", path);
	return path;
}

/* Writes `text` to tmpdir/name; returns its path (in path). */
static char *put_file(char *path, size_t size, const char *name,
		      const char *text)
{
	FILE *f = fopen(tmp_path(path, size, name), "w");

	if (!f || fputs(text, f) == EOF || fclose(f) != 0) {
		fprintf(stderr, "test_theme: cannot write %s\n", path);
		exit(99);
	}
	return path;
}

static char *put_dir(char *path, size_t size, const char *name)
{
	if (mkdir(tmp_path(path, size, name), 0700) != 0) {
		fprintf(stderr, "test_theme: cannot make %s\n", path);
		exit(99);
	}
	return path;
}

static int color_eq(struct theme_color a, struct theme_color b)
{
	return a.set == b.set &&
	       (!a.set || (a.r == b.r && a.g == b.g && a.b == b.b));
}

/* Compares field by field, saying which differ; 1 when all are equal.
 * The names are compared only when `names` is set. */
static int theme_eq(const struct theme *a, const struct theme *b, int names,
		    const char *what)
{
	int eq = 1;

	if (names && strcmp(a->name, b->name) != 0) {
		fprintf(stderr, "%s: name '%s' != '%s'\n", what, a->name,
			b->name);
		eq = 0;
	}
	for (int r = 0; r < THEME_NROLES; r++) {
		const struct theme_style *x = &a->style[r], *y = &b->style[r];

		if (!color_eq(x->fg, y->fg) || !color_eq(x->bg, y->bg) ||
		    x->attrs != y->attrs || x->mono_attrs != y->mono_attrs) {
			fprintf(stderr, "%s: role %s differs\n", what,
				theme_role_name(r));
			eq = 0;
		}
	}
	if (a->ngradient != b->ngradient) {
		fprintf(stderr, "%s: %d gradient colours != %d\n", what,
			a->ngradient, b->ngradient);
		return 0;
	}
	for (int i = 0; i < a->ngradient; i++)
		if (!color_eq(a->gradient[i], b->gradient[i])) {
			fprintf(stderr, "%s: gradient colour %d differs\n",
				what, i);
			eq = 0;
		}
	return eq;
}

static int is_default(const struct theme *t, const char *what)
{
	struct theme d;

	theme_default(&d);
	return theme_eq(t, &d, 1, what);
}

static struct theme_color rgb(unsigned x)
{
	struct theme_color c = {1, (uint8_t)(x >> 16), (uint8_t)(x >> 8),
				(uint8_t)x};

	return c;
}

static void test_role_names(void)
{
	CHECK(strcmp(theme_role_name(THEME_NORMAL), "normal") == 0);
	CHECK(strcmp(theme_role_name(THEME_SELECTED), "selected") == 0);
	CHECK(strcmp(theme_role_name(THEME_ERROR), "error") == 0);
	CHECK(theme_role_name(-1) == NULL);
	CHECK(theme_role_name(THEME_NROLES) == NULL);
	for (int r = 0; r < THEME_NROLES; r++) {
		CHECKF(theme_role_name(r) != NULL, "role %d", r);
		for (int s = 0; s < r; s++)
			CHECKF(strcmp(theme_role_name(r), theme_role_name(s)),
			       "roles %d and %d", r, s);
	}
}

/* Whether `name` is a shipped theme's. */
static int is_shipped(const char *name, size_t len)
{
	for (int i = 0; i < THEME_NSHIPPED; i++)
		if (strlen(theme_shipped(i)) == len &&
		    !strncmp(theme_shipped(i), name, len))
			return 1;
	return 0;
}

/* THEME_SHIPPED, the files in themes/ and the files Makefile.am installs
 * (dist_themes_DATA) are the same themes: every file is in the list;
 * every theme of the list has a file that loads (test_shipped). */
static void test_shipped_files(void)
{
	static const char key[] = "dist_themes_DATA =";
	char line[1024];
	int listed = 0, more = 0;
	struct dirent *e;
	DIR *d = opendir(THEMES);
	FILE *f;

	CHECK(d != NULL);
	while (d && (e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len > 5 && !strcmp(e->d_name + len - 5, ".yaml"))
			CHECKF(is_shipped(e->d_name, len - 5),
			       "themes/%s is not in THEME_SHIPPED", e->d_name);
	}
	if (d)
		closedir(d);
	f = fopen(SRCDIR "/Makefile.am", "r");
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		char *at = line, *name;

		if (!more && strncmp(line, key, strlen(key)))
			continue;
		at += more ? 0 : strlen(key);
		more = strchr(line, '\\') != NULL;
		while ((name = strstr(at, "themes/")) != NULL) {
			char *end = strstr(name, ".yaml");

			if (!end)
				break;
			name += strlen("themes/");
			CHECKF(is_shipped(name, (size_t)(end - name)),
			       "Makefile.am installs %.*s, not in "
			       "THEME_SHIPPED",
			       (int)(end - name), name);
			listed++;
			at = end;
		}
	}
	if (f)
		fclose(f);
	CHECKF(listed == THEME_NSHIPPED,
	       "dist_themes_DATA has %d themes, "
	       "THEME_SHIPPED %d",
	       listed, THEME_NSHIPPED);
}

static void test_shipped(void)
{
	struct theme t, d;
	char err[512], path[512];

	CHECK(theme_shipped(-1) == NULL);
	CHECK(theme_shipped(THEME_NSHIPPED) == NULL);
	for (int i = 0; i < THEME_NSHIPPED; i++) {
		const char *name = theme_shipped(i);

		snprintf(path, sizeof(path), "%s/%s.yaml", THEMES, name);
		CHECKF(theme_load_file(&t, path, err, sizeof(err)) == 0, "%s",
		       err);
		CHECKF(strcmp(t.name, name) == 0, "%s", t.name);
		CHECK(err[0] == '\0');
	}
	test_shipped_files();

	/* default.yaml is what is built in. */
	theme_default(&d);
	CHECK(strcmp(d.name, "default") == 0);
	CHECK(strcmp(theme_shipped(0), "default") == 0);
	CHECK(d.ngradient == 5);
	CHECK(theme_load_file(&t, THEMES "/default.yaml", err, sizeof(err)) ==
	      0);
	CHECK(theme_eq(&t, &d, 1, "default.yaml"));
	CHECK(memcmp(&t, &d, sizeof(t)) == 0);

	/* light: dark text on a light background. */
	CHECK(theme_load_file(&t, THEMES "/light.yaml", err, sizeof(err)) == 0);
	CHECK(t.style[THEME_NORMAL].fg.r < 0x80 &&
	      t.style[THEME_NORMAL].bg.r > 0xe0);

	/* mono: no colour anywhere, and the same attributes either way. */
	CHECK(theme_load_file(&t, THEMES "/mono.yaml", err, sizeof(err)) == 0);
	CHECK(t.ngradient == 0);
	for (int r = 0; r < THEME_NROLES; r++) {
		CHECKF(!t.style[r].fg.set && !t.style[r].bg.set, "%s",
		       theme_role_name(r));
		CHECKF(t.style[r].attrs == t.style[r].mono_attrs, "%s",
		       theme_role_name(r));
	}
	CHECK(t.style[THEME_SELECTED].mono_attrs == THEME_A_REVERSE);
	CHECK(t.style[THEME_HEADER].mono_attrs ==
	      (THEME_A_REVERSE | THEME_A_BOLD));
	CHECK(t.style[THEME_MATCH].mono_attrs ==
	      (THEME_A_UNDERLINE | THEME_A_BOLD));
}

/* What a file leaves out keeps the default theme's values. */
static void test_partial(void)
{
	struct theme t, d;
	char err[512], path[512];

	put_file(path, sizeof(path), "partial.yaml",
		 "# only a few things\n"
		 "roles:\n"
		 "  call: { fg: red }\n"
		 "  header:\n"
		 "    attrs: []\n"
		 "    bg: default\n"
		 "gradient: ['#000000', \"#FFfFff\"]\n");
	CHECKF(theme_load_file(&t, path, err, sizeof(err)) == 0, "%s", err);
	theme_default(&d);
	/* Without a name: key, the file's name. */
	CHECKF(strcmp(t.name, "partial") == 0, "%s", t.name);
	d.style[THEME_CALL].fg = rgb(0xff0000);
	d.style[THEME_HEADER].attrs = 0;
	d.style[THEME_HEADER].bg.set = 0;
	d.ngradient = 2;
	d.gradient[0] = rgb(0x000000);
	d.gradient[1] = rgb(0xffffff);
	CHECK(theme_eq(&t, &d, 0, "partial.yaml"));
	CHECK(t.style[THEME_HEADER].mono_attrs ==
	      (THEME_A_REVERSE | THEME_A_BOLD));

	/* An empty file is the default theme, named after the file. */
	put_file(path, sizeof(path), "empty.yaml", "# nothing\n");
	CHECKF(theme_load_file(&t, path, err, sizeof(err)) == 0, "%s", err);
	theme_default(&d);
	CHECK(theme_eq(&t, &d, 0, "empty.yaml"));
	CHECKF(strcmp(t.name, "empty") == 0, "%s", t.name);

	/* The longest name there is room for. */
	put_file(path, sizeof(path), "long.yaml",
		 "name: \"0123456789012345678901234567890123456789012345678901"
		 "234567890\u00e9\"\n");
	CHECKF(theme_load_file(&t, path, err, sizeof(err)) == 0, "%s", err);
	CHECK(strlen(t.name) == 63 && strcmp(t.name + 61, "\xc3\xa9") == 0);

	/* The 8 names, at full intensity. */
	put_file(path, sizeof(path), "names.yaml",
		 "name: names\n"
		 "roles:\n"
		 "  normal: { fg: yellow, bg: black }\n"
		 "  call: { fg: magenta, bg: cyan, attrs: [italic, dim] }\n"
		 "gradient: [white, blue, green]\n");
	CHECKF(theme_load_file(&t, path, err, sizeof(err)) == 0, "%s", err);
	CHECK(color_eq(t.style[THEME_NORMAL].fg, rgb(0xffff00)));
	CHECK(color_eq(t.style[THEME_NORMAL].bg, rgb(0x000000)));
	CHECK(color_eq(t.style[THEME_CALL].fg, rgb(0xff00ff)));
	CHECK(color_eq(t.style[THEME_CALL].bg, rgb(0x00ffff)));
	CHECK(t.style[THEME_CALL].attrs == (THEME_A_ITALIC | THEME_A_DIM));
	CHECK(t.ngradient == 3 && color_eq(t.gradient[0], rgb(0xffffff)) &&
	      color_eq(t.gradient[1], rgb(0x0000ff)) &&
	      color_eq(t.gradient[2], rgb(0x00ff00)));
	CHECK(!t.gradient[3].set);
}

static void test_load_by_name(void)
{
	struct theme t;
	char err[512], path[512], one[128], two[128], missing[128];
	const char *dirs[5];
	int rc;

	put_dir(one, sizeof(one), "one");
	put_dir(two, sizeof(two), "two");
	put_file(path, sizeof(path), "one/mine.yaml", "name: first\n");
	put_file(path, sizeof(path), "two/mine.yaml", "name: second\n");
	put_file(path, sizeof(path), "two/other.yaml", "name: other\n");
	put_file(path, sizeof(path), "two/broken.yaml", "name: [\n");
	snprintf(missing, sizeof(missing), "%s/none", tmpdir);

	/* In order, skipping empty entries and absent directories. */
	dirs[0] = NULL;
	dirs[1] = "";
	dirs[2] = missing;
	dirs[3] = one;
	dirs[4] = two;
	CHECKF(theme_load(&t, "mine", dirs, 5, err, sizeof(err)) == 0, "%s",
	       err);
	CHECKF(strcmp(t.name, "first") == 0, "%s", t.name);
	CHECKF(theme_load(&t, "other", dirs, 5, err, sizeof(err)) == 0, "%s",
	       err);
	CHECKF(strcmp(t.name, "other") == 0, "%s", t.name);
	CHECK(theme_load(&t, "mine", dirs + 4, 1, err, sizeof(err)) == 0);
	CHECKF(strcmp(t.name, "second") == 0, "%s", t.name);

	/* A theme found but broken is an error, not a reason to look on. */
	CHECK(theme_load(&t, "broken", dirs, 5, err, sizeof(err)) == -1);
	snprintf(path, sizeof(path), "%s/broken.yaml:", two);
	CHECKF(strncmp(err, path, strlen(path)) == 0, "%s", err);
	CHECK(is_default(&t, "broken"));

	/* The shipped themes by name; a path, by its '/' or its .yaml. */
	dirs[0] = THEMES;
	CHECKF(theme_load(&t, "light", dirs, 1, err, sizeof(err)) == 0, "%s",
	       err);
	CHECK(strcmp(t.name, "light") == 0);
	rc = theme_load(&t, THEMES "/mono.yaml", NULL, 0, err, sizeof(err));
	CHECKF(rc == 0, "%s", err);
	CHECK(strcmp(t.name, "mono") == 0);
	/* a file that is not there is not a theme "not found" */
	CHECK(theme_load(&t, "nosuch.yaml", dirs, 1, err, sizeof(err)) ==
	      THEME_E_FAILED);
	CHECKF(strcmp(err, "nosuch.yaml: No such file or directory") == 0, "%s",
	       err);

	/* Found nowhere. */
	dirs[0] = one;
	dirs[1] = NULL;
	dirs[2] = "";
	dirs[3] = two;
	CHECK(theme_load(&t, "nosuch", dirs, 4, err, sizeof(err)) ==
	      THEME_E_NOT_FOUND);
	snprintf(path, sizeof(path), "theme 'nosuch' not found in %s, %s", one,
		 two);
	CHECKF(strcmp(err, path) == 0, "%s", err);
	CHECK(is_default(&t, "not found"));
	CHECK(theme_load(&t, "nosuch", NULL, 0, err, sizeof(err)) ==
	      THEME_E_NOT_FOUND);
	CHECKF(!strcmp(err, "theme 'nosuch' not found (no theme directory)"),
	       "%s", err);
	CHECK(theme_load(&t, "", dirs, 4, err, sizeof(err)) == -1);
	CHECK(theme_load(&t, NULL, dirs, 4, err, sizeof(err)) == -1);
	CHECK(is_default(&t, "no name"));

	/* A message cut to the room given, or none at all. */
	CHECK(theme_load(&t, "nosuch", dirs, 4, err, 10) == THEME_E_NOT_FOUND);
	CHECKF(strcmp(err, "theme 'no") == 0, "%s", err);
	CHECK(theme_load(&t, "nosuch", dirs, 4, NULL, 0) == THEME_E_NOT_FOUND);
	CHECK(theme_load_file(&t, "/nonexistent/x.yaml", NULL, 0) == -1);
}

/* A bad file `text` gives the message `want` after "path:", and leaves the
 * default theme. */
static void bad(const char *name, const char *text, const char *want)
{
	struct theme t;
	char err[512], path[512], msg[1024];
	int rc;

	put_file(path, sizeof(path), name, text);
	memset(&t, 0x5a, sizeof(t));
	rc = theme_load_file(&t, path, err, sizeof(err));
	CHECKF(rc == -1, "%s", name);
	snprintf(msg, sizeof(msg), "%s:%s", path, want);
	CHECKF(strncmp(err, msg, strlen(msg)) == 0, "%s:\n  got  %s\n  want %s",
	       name, err, msg);
	CHECKF(strchr(err, '\n') == NULL, "%s", err);
	CHECKF(is_default(&t, name), "%s", name);
}

/* A theme file may have 1 MiB, and no more. */
static void test_sizes(void)
{
	size_t max = 1u << 20;
	char *text = malloc(max + 2), err[512], path[512];
	struct theme t;

	if (!text)
		exit(99);
	memset(text, '#', max + 1);
	text[max - 1] = '\n';
	text[max] = '\0';
	put_file(path, sizeof(path), "max.yaml", text);
	CHECKF(theme_load_file(&t, path, err, sizeof(err)) == 0, "%s", err);
	text[max] = '\n';
	text[max + 1] = '\0';
	put_file(path, sizeof(path), "big.yaml", text);
	CHECK(theme_load_file(&t, path, err, sizeof(err)) == -1);
	CHECKF(strstr(err, "big.yaml: file too large (1048577 bytes); a theme "
			   "is at most 1 MiB") != NULL,
	       "%s", err);
	free(text);
}

static void test_errors(void)
{
	char many[256] = "gradient: [red";
	struct theme t;
	char err[512], path[512];

	bad("role.yaml", "name: x\nroles:\n  bogus: { fg: red }\n",
	    "3:3: unknown role 'bogus'");
	/* The column of a scalar is that of its opening quote. */
	bad("color.yaml", "roles:\n  normal: { fg: \"#12345\" }\n",
	    "2:17: bad colour '#12345'");
	bad("color2.yaml", "roles:\n  normal: { bg: '#12345g' }\n",
	    "2:17: bad colour '#12345g'");
	bad("color3.yaml", "roles:\n  normal: { bg: Red }\n",
	    "2:17: bad colour 'Red'");
	bad("attr.yaml", "roles:\n  header:\n    attrs: [bold, blink]\n",
	    "3:19: unknown attribute 'blink'");
	bad("top.yaml", "name: x\ncolours: {}\n", "2:1: unknown key 'colours'");
	bad("key.yaml", "roles:\n  call: { fg: red, bold: true }\n",
	    "2:20: unknown key 'bold'");
	bad("dup.yaml", "roles:\n  call: {}\n  call: {}\n",
	    "3:3: role 'call' given twice");
	bad("dupkey.yaml", "roles:\n  call: { fg: red, fg: blue }\n",
	    "2:20: key 'fg' given twice");
	/* Wrong YAML types. */
	bad("type1.yaml", "roles: [normal]\n",
	    "1:8: expected a mapping of role names to styles");
	bad("type2.yaml", "roles:\n  call: { attrs: bold }\n",
	    "2:18: expected a list of attributes");
	bad("type3.yaml", "roles:\n  call: red\n", "2:9: expected a style");
	bad("type4.yaml", "- name\n", "1:1: expected a mapping");
	bad("type5.yaml", "name: [x]\n", "1:7: expected a theme name");
	bad("type6.yaml", "gradient: red\n",
	    "1:11: expected a list of colours");
	bad("type7.yaml", "roles:\n  call: { fg: [1, 2] }\n",
	    "2:15: expected a colour");
	bad("type8.yaml", "roles:\n  call: { mono: [[bold]] }\n",
	    "2:18: expected an attribute name");
	bad("type9.yaml", "? [a]\n: b\n", "1:3: expected a key name");
	/* "default" is no colour for a gradient. */
	bad("grad.yaml", "gradient: [red, default]\n",
	    "1:17: bad colour 'default'");
	/* The 17th colour, at column 12 + 5 * 16. */
	for (int i = 1; i < THEME_MAX_GRADIENT + 1; i++)
		strcat(many, ", red");
	strcat(many, "]\n");
	bad("many.yaml", many, "1:92: more than 16 gradient colours");
	/* An unquoted # starts a comment: the colour is missing. */
	bad("hash.yaml", "roles:\n  call: { fg: #ff0000 }\n",
	    "3:1: did not find expected node content");
	bad("hash2.yaml", "roles:\n  call:\n    fg: #ff0000\n    bg: red\n",
	    "3:8: missing colour");
	bad("name.yaml", "name: \"a\\e[31m\"\n",
	    "1:7: control character in the theme name");
	bad("name2.yaml",
	    "name: 0123456789012345678901234567890123456789012345678901234567"
	    "890123\n",
	    "1:7: theme name longer than 63 bytes");
	bad("name3.yaml", "name: ''\n", "1:7: empty theme name");
	bad("two.yaml", "name: a\n---\nname: b\n",
	    "3:1: more than one YAML document");
	/* libyaml's own errors, at its problem mark. */
	bad("syntax.yaml", "name: x\n  y: z\n",
	    "2:4: mapping values are not allowed in this context");
	bad("syntax2.yaml", "roles:\n  call: { fg: red\n",
	    "3:1: did not find expected ',' or '}' (while parsing a flow "
	    "mapping)");
	bad("alias.yaml", "name: *x\n", "1:7: found undefined alias");
	/* A reader error has no mark: the position of its byte. */
	bad("utf8.yaml", "name: x\nroles: \xff\n",
	    "2:8: invalid leading UTF-8 octet");
	/* A quoted piece of the file is short and harmless. */
	bad("quote.yaml",
	    "roles:\n  \"\\ebogus-role-with-a-very-long-name-indeed\": {}\n",
	    "2:3: unknown role '?bogus-role-with-a-very-long-nam...'");
	/* Files that cannot be read. */
	snprintf(path, sizeof(path), "%s/nosuch.yaml", tmpdir);
	CHECK(theme_load_file(&t, path, err, sizeof(err)) == -1);
	CHECKF(strncmp(err, path, strlen(path)) == 0, "%s", err);
	CHECKF(strcmp(err + strlen(path), ": No such file or directory") == 0,
	       "%s", err);
	CHECK(is_default(&t, "nosuch"));
	CHECK(theme_load_file(&t, tmpdir, err, sizeof(err)) == -1);
	CHECKF(strstr(err, ": not a regular file but a directory") != NULL,
	       "%s", err);
	/* a FIFO is refused before it is opened for reading, not waited on
	 * (no writer will come) */
	snprintf(path, sizeof(path), "%s/fifo.yaml", tmpdir);
	CHECK(mkfifo(path, 0600) == 0);
	CHECK(theme_load_file(&t, path, err, sizeof(err)) == -1);
	CHECKF(strstr(err, "fifo.yaml: not a regular file but a FIFO") != NULL,
	       "%s", err);
	unlink(path);
	CHECK(theme_load_file(&t, "", err, sizeof(err)) == -1);
	CHECK(theme_load_file(&t, NULL, err, sizeof(err)) == -1);
	test_sizes();
}

/* Known answers, worked out by hand from the rules in theme.c. */
static void test_colors(void)
{
	struct theme_color unset = {0, 0, 0, 0};

	/* The cube's corners, exactly. */
	CHECK(theme_color_256(rgb(0x000000)) == 16);
	CHECK(theme_color_256(rgb(0xffffff)) == 231);
	CHECK(theme_color_256(rgb(0xff0000)) == 196);
	CHECK(theme_color_256(rgb(0x00ff00)) == 46);
	CHECK(theme_color_256(rgb(0x0000ff)) == 21);
	/* 5f87af: levels 95, 135, 175 = 1, 2, 3: 16 + 36 + 12 + 3. */
	CHECK(theme_color_256(rgb(0x5f87af)) == 67);
	/* 808080 (128): the grey 8 + 10 * 12 = 128 exactly (cube: 135, at
	 * 3 * 7^2), so 232 + 12. */
	CHECK(theme_color_256(rgb(0x808080)) == 244);
	/* The greys' ends: 8 and 238. */
	CHECK(theme_color_256(rgb(0x080808)) == 232);
	CHECK(theme_color_256(rgb(0xeeeeee)) == 255);
	/* 767676 (118): grey 118 = 8 + 10 * 11 exactly. */
	CHECK(theme_color_256(rgb(0x767676)) == 243);
	/* 730000: 115 is as near 95 as 135, the darker wins: 16 + 36 * 1;
	 * the best grey (38) is at 77^2 + 2 * 38^2, much farther. */
	CHECK(theme_color_256(rgb(0x730000)) == 52);
	/* 1a1b26 (26, 27, 38): cube 16 at 26^2 + 27^2 + 38^2 = 2849; grey
	 * 28 at 2^2 + 1^2 + 10^2 = 105: 232 + 2. */
	CHECK(theme_color_256(rgb(0x1a1b26)) == 234);
	CHECK(theme_color_256(unset) == -1);

	/* 8 colours: each channel cut at 128. */
	CHECK(theme_color_8(rgb(0x000000)) == 0);
	CHECK(theme_color_8(rgb(0xff0000)) == 1);
	CHECK(theme_color_8(rgb(0x00ff00)) == 2);
	CHECK(theme_color_8(rgb(0xffff00)) == 3);
	CHECK(theme_color_8(rgb(0x0000ff)) == 4);
	CHECK(theme_color_8(rgb(0xff00ff)) == 5);
	CHECK(theme_color_8(rgb(0x00ffff)) == 6);
	CHECK(theme_color_8(rgb(0xffffff)) == 7);
	CHECK(theme_color_8(rgb(0x808080)) == 7);
	CHECK(theme_color_8(rgb(0x7f7f7f)) == 0);
	CHECK(theme_color_8(rgb(0xe0af68)) == 3);
	CHECK(theme_color_8(unset) == -1);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("test_theme: mkdtemp");
		return 99;
	}
	test_role_names();
	test_shipped();
	test_partial();
	test_load_by_name();
	test_errors();
	test_colors();
	while (nmade > 0)
		if (remove(made[--nmade]) != 0)
			perror(made[nmade]);
	if (rmdir(tmpdir) != 0)
		perror(tmpdir);
	return check_done("test_theme");
}
