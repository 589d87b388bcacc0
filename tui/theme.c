/*
 * theme.c - the explorer's colour themes: the built-in default, theme files
 * read with libyaml's document API, the nearest palette colours, and (at the
 * end) the colour pairs and attributes curses draws with.
 *
 * A theme file is small and written by hand, so it is read whole and
 * checked strictly: anything unknown is an error that names the line and
 * column, rather than a style silently ignored.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>
#include <yaml.h>

#include "fileio.h"
#include "theme.h"
#include "util.h"

/* Larger than any theme could need; keeps a wrong path (a trace, a
 * device) from being read whole. */
#define THEME_FILE_MAX (1u << 20)

/* Longest piece of a file quoted in an error message. */
#define THEME_QUOTE_MAX 32

_Static_assert(THEME_NROLES <= 32, "roles seen are kept in an unsigned");

#define THEME_ROLE_NAME(id, name) [THEME_##id] = #name,
static const char *const theme_role_names[THEME_NROLES] = {
	THEME_ROLES(THEME_ROLE_NAME)};
#undef THEME_ROLE_NAME

/* In the order of curses' COLOR_BLACK..COLOR_WHITE: bit 0 is red, bit 1
 * green, bit 2 blue. */
static const char *const theme_color_names[8] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

/* Bit i is 1 << i of enum theme_attr. */
static const char *const theme_attr_names[] = {
	"bold", "dim", "underline", "reverse", "italic",
};
#define THEME_NATTRS (int)COUNTOF(theme_attr_names)

static const char *const theme_top_keys[] = {"name", "roles", "gradient"};
static const char *const theme_style_keys[] = {"fg", "bg", "attrs", "mono"};

/* ---- the built-in theme ------------------------------------------------ */

#define THEME_RGB(x)                                                           \
	{                                                                      \
		1, (uint8_t)((x) >> 16 & 0xff), (uint8_t)((x) >> 8 & 0xff),    \
			(uint8_t)((x)&0xff)                                    \
	}
#define THEME_BG THEME_RGB(0x1a1b26)
#define B	 THEME_A_BOLD
#define D	 THEME_A_DIM
#define U	 THEME_A_UNDERLINE
#define R	 THEME_A_REVERSE

/* Keep in step with themes/default.yaml (test_theme compares them). */
static const struct theme_style theme_dark[THEME_NROLES] = {
	[THEME_NORMAL] = {THEME_RGB(0xc0caf5), THEME_BG, 0, 0},
	[THEME_HEADER] = {THEME_BG, THEME_RGB(0x7aa2f7), B, R | B},
	[THEME_TITLE] = {THEME_RGB(0x7aa2f7), THEME_RGB(0x24283b), B, B | U},
	[THEME_STATUS] = {THEME_RGB(0xc0caf5), THEME_RGB(0x24283b), 0, R},
	[THEME_SELECTED] = {THEME_RGB(0xc0caf5), THEME_RGB(0x364a82), B, R},
	[THEME_GROUP] = {THEME_RGB(0xbb9af7), THEME_BG, B, B | U},
	[THEME_LOOP] = {THEME_RGB(0x7dcfff), THEME_BG, 0, B},
	[THEME_BLOCK] = {THEME_RGB(0x7aa2f7), THEME_BG, 0, 0},
	[THEME_CALL] = {THEME_RGB(0x9ece6a), THEME_BG, 0, 0},
	[THEME_PARAMS] = {THEME_RGB(0xa9b1d6), THEME_BG, 0, D},
	[THEME_COUNT] = {THEME_RGB(0xff9e64), THEME_BG, 0, 0},
	[THEME_TIME] = {THEME_RGB(0xe0af68), THEME_BG, 0, 0},
	[THEME_DIM] = {THEME_RGB(0x737aa2), THEME_BG, 0, D},
	[THEME_MATCH] = {THEME_BG, THEME_RGB(0xe0af68), B, U | B},
	[THEME_BAR] = {THEME_RGB(0x7aa2f7), THEME_BG, 0, 0},
	[THEME_ERROR] = {THEME_RGB(0xf7768e), THEME_BG, B, B},
};

static const struct theme_color theme_dark_gradient[] = {
	THEME_BG,
	THEME_RGB(0x3d59a1),
	THEME_RGB(0x7aa2f7),
	THEME_RGB(0xe0af68),
	THEME_RGB(0xf7768e),
};

#undef B
#undef D
#undef U
#undef R

const char *theme_role_name(int role)
{
	if (role < 0 || role >= THEME_NROLES)
		return NULL;
	return theme_role_names[role];
}

const char *theme_shipped(int i)
{
#define THEME_SHIPPED_NAME(name) #name,
	static const char *const names[THEME_NSHIPPED] = {
		THEME_SHIPPED(THEME_SHIPPED_NAME)};
#undef THEME_SHIPPED_NAME

	if (i < 0 || i >= THEME_NSHIPPED)
		return NULL;
	return names[i];
}

void theme_default(struct theme *t)
{
	int n = (int)COUNTOF(theme_dark_gradient);

	/* Zeroed whole, so that two equal themes are equal bytes too. */
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", theme_shipped(0));
	memcpy(t->style, theme_dark, sizeof(theme_dark));
	memcpy(t->gradient, theme_dark_gradient, sizeof(theme_dark_gradient));
	t->ngradient = n;
}

/* ---- error messages ---------------------------------------------------- */

/* Formats into err, when the caller gave room for a message. */
static void theme_error(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void theme_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* The length of a control character at s[i] (C0, DEL, or C1 as UTF-8),
 * 0 for anything else: none of them may reach the terminal. */
static size_t theme_control_len(const unsigned char *s, size_t len, size_t i)
{
	if (s[i] < 0x20 || s[i] == 0x7f)
		return 1;
	if (s[i] == 0xc2 && i + 1 < len && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f)
		return 2;
	return 0;
}

/* A piece of the file as an error message can show it: at most
 * THEME_QUOTE_MAX bytes cut between characters, control characters as '?'. */
static const char *theme_quote(char *buf, size_t size, const unsigned char *s,
			       size_t len)
{
	size_t cut = len, i = 0, j = 0;

	if (cut > THEME_QUOTE_MAX) {
		cut = THEME_QUOTE_MAX;
		while (cut > 0 && (s[cut] & 0xc0) == 0x80)
			cut--;
	}
	while (i < cut && j + 4 < size) {
		size_t c = theme_control_len(s, len, i);

		buf[j++] = c ? '?' : (char)s[i];
		i += c ? c : 1;
	}
	if (i < len && j + 3 < size)
		buf[j++] = '.', buf[j++] = '.', buf[j++] = '.';
	if (size > 0)
		buf[j] = '\0';
	return buf;
}

/* ---- reading a file ---------------------------------------------------- */

/* ---- parsing ----------------------------------------------------------- */

struct theme_parser {
	const char *path;
	yaml_document_t *doc;
	char *err;
	size_t errlen;
};

static int theme_fail(const struct theme_parser *p, const yaml_node_t *n,
		      const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Sets the error "path:line:col: what" at node n; returns -1. */
static int theme_fail(const struct theme_parser *p, const yaml_node_t *n,
		      const char *fmt, ...)
{
	va_list ap;
	int k;

	if (!p->err || p->errlen == 0)
		return -1;
	k = snprintf(p->err, p->errlen, "%s:%lu:%lu: ", p->path,
		     (unsigned long)n->start_mark.line + 1,
		     (unsigned long)n->start_mark.column + 1);
	if (k < 0 || (size_t)k >= p->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err + k, p->errlen - (size_t)k, fmt, ap);
	va_end(ap);
	return -1;
}

/* The position of byte `off` (libyaml's reader errors give no mark):
 * columns count characters, as libyaml's marks do. */
static void theme_position(const unsigned char *data, size_t len, size_t off,
			   unsigned long *line, unsigned long *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		if (data[i] == '\n')
			++*line, *col = 1;
		else if ((data[i] & 0xc0) != 0x80)
			++*col;
	}
}

/* Reports what libyaml could not read or parse; returns -1. */
static int theme_yaml_error(const struct theme_parser *p,
			    const yaml_parser_t *y, const unsigned char *data,
			    size_t len)
{
	const char *what = y->problem ? y->problem : "cannot parse";
	unsigned long line = y->problem_mark.line + 1;
	unsigned long col = y->problem_mark.column + 1;

	if (y->error == YAML_MEMORY_ERROR) {
		theme_error(p->err, p->errlen, "%s: out of memory", p->path);
		return -1;
	}
	if (y->error == YAML_READER_ERROR)
		theme_position(data, len, y->problem_offset, &line, &col);
	theme_error(p->err, p->errlen, "%s:%lu:%lu: %s%s%s%s", p->path, line,
		    col, what, y->context ? " (" : "",
		    y->context ? y->context : "", y->context ? ")" : "");
	return -1;
}

static int theme_scalar_is(const yaml_node_t *n, const char *s)
{
	size_t len = strlen(s);

	return n->type == YAML_SCALAR_NODE && n->data.scalar.length == len &&
	       memcmp(n->data.scalar.value, s, len) == 0;
}

/* The index of scalar n in names, or -1. */
static int theme_lookup(const yaml_node_t *n, const char *const *names,
			int count)
{
	for (int i = 0; i < count; i++)
		if (theme_scalar_is(n, names[i]))
			return i;
	return -1;
}

/* A mapping's key: its index in names, or -1 with the error set for a key
 * that is not a name, is unknown (`expected` lists the good ones), or
 * was already given (bit i of *seen). */
static int theme_key(const struct theme_parser *p, const yaml_node_t *key,
		     const char *const *names, int count, const char *what,
		     const char *expected, unsigned *seen)
{
	char q[THEME_QUOTE_MAX + 4];
	int i;

	if (key->type != YAML_SCALAR_NODE)
		return theme_fail(p, key, "expected a %s name", what);
	theme_quote(q, sizeof(q), key->data.scalar.value,
		    key->data.scalar.length);
	i = theme_lookup(key, names, count);
	if (i < 0)
		return theme_fail(p, key, "unknown %s '%s' (expected %s)", what,
				  q, expected);
	if (*seen & 1u << i)
		return theme_fail(p, key, "%s '%s' given twice", what, q);
	*seen |= 1u << i;
	return i;
}

static int theme_hex(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "#rrggbb" into c; 0, or -1 when s is not that. */
static int theme_parse_hex(const unsigned char *s, size_t len,
			   struct theme_color *c)
{
	uint8_t v[3];

	if (len != 7 || s[0] != '#')
		return -1;
	for (int i = 0; i < 3; i++) {
		int hi = theme_hex(s[1 + 2 * i]), lo = theme_hex(s[2 + 2 * i]);

		if (hi < 0 || lo < 0)
			return -1;
		v[i] = (uint8_t)(hi << 4 | lo);
	}
	c->set = 1;
	c->r = v[0], c->g = v[1], c->b = v[2];
	return 0;
}

/* A colour: "#rrggbb", a basic colour's name (its full-intensity RGB), or
 * when allow_default "default" (unset). */
static int theme_parse_color(const struct theme_parser *p, const yaml_node_t *n,
			     int allow_default, struct theme_color *c)
{
	const char *names = allow_default ? ", a colour name or default"
					  : " or a colour name";
	char q[THEME_QUOTE_MAX + 4];
	size_t len;
	int i;

	if (n->type != YAML_SCALAR_NODE)
		return theme_fail(p, n, "expected a colour: \"#rrggbb\"%s",
				  names);
	len = n->data.scalar.length;
	if (theme_parse_hex(n->data.scalar.value, len, c) == 0)
		return 0;
	if ((i = theme_lookup(n, theme_color_names, 8)) >= 0) {
		c->set = 1;
		c->r = i & 1 ? 255 : 0;
		c->g = i & 2 ? 255 : 0;
		c->b = i & 4 ? 255 : 0;
		return 0;
	}
	if (allow_default && theme_scalar_is(n, "default")) {
		memset(c, 0, sizeof(*c));
		return 0;
	}
	/* The usual slip: an unquoted # starts a YAML comment. */
	if (len == 0)
		return theme_fail(p, n,
				  "missing colour (write \"#rrggbb\" "
				  "in quotes: a bare # starts a comment)");
	theme_quote(q, sizeof(q), n->data.scalar.value, len);
	return theme_fail(p, n, "bad colour '%s' (expected \"#rrggbb\"%s)", q,
			  names);
}

/* A list of attribute names into *attrs. */
static int theme_parse_attrs(const struct theme_parser *p, const yaml_node_t *n,
			     unsigned *attrs)
{
	char q[THEME_QUOTE_MAX + 4];
	unsigned a = 0;

	if (n->type != YAML_SEQUENCE_NODE)
		return theme_fail(p, n,
				  "expected a list of attributes, "
				  "such as [bold, underline]");
	for (yaml_node_item_t *it = n->data.sequence.items.start;
	     it < n->data.sequence.items.top; it++) {
		yaml_node_t *v = yaml_document_get_node(p->doc, *it);
		int i;

		if (!v)
			return theme_fail(p, n, "broken YAML document");
		if (v->type != YAML_SCALAR_NODE)
			return theme_fail(p, v, "expected an attribute name");
		if ((i = theme_lookup(v, theme_attr_names, THEME_NATTRS)) < 0)
			return theme_fail(p, v,
					  "unknown attribute '%s' (expected "
					  "bold, dim, underline, reverse or "
					  "italic)",
					  theme_quote(q, sizeof(q),
						      v->data.scalar.value,
						      v->data.scalar.length));
		a |= 1u << i;
	}
	*attrs = a;
	return 0;
}

/* One role's style; keys not given keep what *st holds. */
static int theme_parse_style(const struct theme_parser *p, const yaml_node_t *n,
			     struct theme_style *st)
{
	unsigned seen = 0;

	if (n->type != YAML_MAPPING_NODE)
		return theme_fail(p, n,
				  "expected a style, such as "
				  "{ fg: \"#c0caf5\", attrs: [bold] }");
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start;
	     pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
		int i, rc;

		if (!k || !v)
			return theme_fail(p, n, "broken YAML document");
		i = theme_key(p, k, theme_style_keys, 4, "key",
			      "fg, bg, attrs or mono", &seen);
		if (i < 0)
			return -1;
		if (i < 2)
			rc = theme_parse_color(p, v, 1,
					       i == 0 ? &st->fg : &st->bg);
		else
			rc = theme_parse_attrs(
				p, v, i == 2 ? &st->attrs : &st->mono_attrs);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int theme_parse_roles(const struct theme_parser *p, const yaml_node_t *n,
			     struct theme *t)
{
	unsigned seen = 0;

	if (n->type != YAML_MAPPING_NODE)
		return theme_fail(p, n,
				  "expected a mapping of role names to "
				  "styles");
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start;
	     pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
		int r;

		if (!k || !v)
			return theme_fail(p, n, "broken YAML document");
		r = theme_key(p, k, theme_role_names, THEME_NROLES, "role",
			      "a role of rondo-theme(5)", &seen);
		if (r < 0 || theme_parse_style(p, v, &t->style[r]) < 0)
			return -1;
	}
	return 0;
}

static int theme_parse_gradient(const struct theme_parser *p,
				const yaml_node_t *n, struct theme *t)
{
	int k = 0;

	if (n->type != YAML_SEQUENCE_NODE)
		return theme_fail(p, n,
				  "expected a list of colours, such as "
				  "[\"#1a1b26\", \"#f7768e\"]");
	for (yaml_node_item_t *it = n->data.sequence.items.start;
	     it < n->data.sequence.items.top; it++) {
		yaml_node_t *v = yaml_document_get_node(p->doc, *it);

		if (!v)
			return theme_fail(p, n, "broken YAML document");
		if (k == THEME_MAX_GRADIENT)
			return theme_fail(p, v, "more than %d gradient colours",
					  THEME_MAX_GRADIENT);
		if (theme_parse_color(p, v, 0, &t->gradient[k]) < 0)
			return -1;
		k++;
	}
	memset(t->gradient + k, 0,
	       sizeof(*t->gradient) * (size_t)(THEME_MAX_GRADIENT - k));
	t->ngradient = k;
	return 0;
}

/* The name is shown on the screen: a short line of printable text. */
static int theme_parse_name(const struct theme_parser *p, const yaml_node_t *n,
			    struct theme *t)
{
	const unsigned char *s;
	size_t len;

	if (n->type != YAML_SCALAR_NODE)
		return theme_fail(p, n, "expected a theme name");
	s = n->data.scalar.value;
	len = n->data.scalar.length;
	if (len == 0)
		return theme_fail(p, n, "empty theme name");
	if (len >= sizeof(t->name))
		return theme_fail(p, n, "theme name longer than %zu bytes",
				  sizeof(t->name) - 1);
	for (size_t i = 0; i < len; i++)
		if (theme_control_len(s, len, i))
			return theme_fail(p, n,
					  "control character in the "
					  "theme name");
	memcpy(t->name, s, len);
	t->name[len] = '\0';
	return 0;
}

static int theme_parse_root(const struct theme_parser *p, const yaml_node_t *n,
			    struct theme *t)
{
	unsigned seen = 0;

	/* An empty file, or one holding only "---", is the default theme. */
	if (!n || (n->type == YAML_SCALAR_NODE && n->data.scalar.length == 0 &&
		   n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return theme_fail(p, n,
				  "expected a mapping with the keys name, "
				  "roles and gradient");
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start;
	     pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
		int i, rc;

		if (!k || !v)
			return theme_fail(p, n, "broken YAML document");
		i = theme_key(p, k, theme_top_keys, 3, "key",
			      "name, roles or gradient", &seen);
		if (i < 0)
			return -1;
		if (i == 0)
			rc = theme_parse_name(p, v, t);
		else if (i == 1)
			rc = theme_parse_roles(p, v, t);
		else
			rc = theme_parse_gradient(p, v, t);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* A second document would be ignored without a word: refuse it. */
static int theme_parse_rest(struct theme_parser *p, yaml_parser_t *y,
			    const unsigned char *data, size_t len)
{
	yaml_document_t doc;
	yaml_node_t *root;
	int rc = 0;

	if (!yaml_parser_load(y, &doc))
		return theme_yaml_error(p, y, data, len);
	if ((root = yaml_document_get_root_node(&doc)) != NULL)
		rc = theme_fail(p, root, "more than one YAML document");
	yaml_document_delete(&doc);
	return rc;
}

/* A theme without a name: key is named after its file. */
static void theme_name_from_path(struct theme *t, const char *path)
{
	const char *slash = strrchr(path, '/');
	const unsigned char *base =
		(const unsigned char *)(slash ? slash + 1 : path);
	size_t len = strlen((const char *)base), i = 0, j = 0;

	if (len > 5 && strcmp((const char *)base + len - 5, ".yaml") == 0)
		len -= 5;
	if (len >= sizeof(t->name)) {
		len = sizeof(t->name) - 1;
		while (len > 0 && (base[len] & 0xc0) == 0x80)
			len--;
	}
	if (len == 0)
		return;
	while (i < len) {
		size_t c = theme_control_len(base, len, i);

		t->name[j++] = c ? '?' : (char)base[i];
		i += c ? c : 1;
	}
	t->name[j] = '\0';
}

static int theme_parse(struct theme *t, const char *path,
		       const unsigned char *data, size_t len, char *err,
		       size_t errlen)
{
	struct theme_parser p = {path, NULL, err, errlen};
	yaml_parser_t y;
	yaml_document_t doc;
	int rc;

	if (!yaml_parser_initialize(&y)) {
		theme_error(err, errlen, "%s: out of memory", path);
		return -1;
	}
	yaml_parser_set_input_string(&y, data, len);
	if (!yaml_parser_load(&y, &doc)) {
		rc = theme_yaml_error(&p, &y, data, len);
		yaml_parser_delete(&y);
		return rc;
	}
	p.doc = &doc;
	theme_name_from_path(t, path);
	rc = theme_parse_root(&p, yaml_document_get_root_node(&doc), t);
	if (rc == 0 && yaml_document_get_root_node(&doc))
		rc = theme_parse_rest(&p, &y, data, len);
	yaml_document_delete(&doc);
	yaml_parser_delete(&y);
	return rc;
}

/* Loads a theme file.  *absent (when not NULL) is set when the file or
 * its directory does not exist, for theme_load to look further. */
static int theme_load_path(struct theme *t, const char *path, char *err,
			   size_t errlen, int *absent)
{
	uint8_t *data = NULL;
	size_t len = 0;
	char why[256];
	int rc;

	theme_default(t);
	if (!path || !*path) {
		theme_error(err, errlen, "no theme file given");
		return -1;
	}
	/* a FIFO or a device is refused, not waited on */
	rc = fileio_read(path, THEME_FILE_MAX, &data, &len, why, sizeof(why));
	if (rc) {
		if (absent)
			*absent = rc == ENOENT || rc == ENOTDIR;
		theme_error(err, errlen, "%s: %s%s", path, why,
			    rc == EFBIG ? "; a theme is at most 1 MiB" : "");
		return -1;
	}
	rc = theme_parse(t, path, data, len, err, errlen);
	free(data);
	if (rc < 0)
		theme_default(t);
	else if (err && errlen)
		err[0] = '\0';
	return rc;
}

int theme_load_file(struct theme *t, const char *path, char *err, size_t errlen)
{
	return theme_load_path(t, path, err, errlen, NULL);
}

/* ---- finding a theme by name ------------------------------------------- */

/* Loads dir/name.yaml: 0 loaded, -1 failed (err set), 1 no such file. */
static int theme_load_from(struct theme *t, const char *dir, const char *name,
			   char *err, size_t errlen)
{
	size_t dlen = strlen(dir), size = dlen + strlen(name) + 7;
	char *path = malloc(size);
	int rc, absent = 0;

	if (!path) {
		theme_default(t);
		theme_error(err, errlen, "out of memory");
		return -1;
	}
	snprintf(path, size, "%s%s%s.yaml", dir,
		 dir[dlen - 1] == '/' ? "" : "/", name);
	rc = theme_load_path(t, path, err, errlen, &absent);
	free(path);
	return rc < 0 && absent ? 1 : rc;
}

/* "theme 'NAME' not found in DIR1, DIR2", cut to errlen; returns
 * THEME_E_NOT_FOUND. */
static int theme_not_found(const char *name, const char *const *dirs, int ndirs,
			   char *err, size_t errlen)
{
	size_t pos;
	int k, n = 0;

	if (!err || errlen == 0)
		return THEME_E_NOT_FOUND;
	k = snprintf(err, errlen, "theme '%s' not found", name);
	for (int i = 0; i < ndirs && k >= 0; i++) {
		if (!dirs[i] || !dirs[i][0])
			continue;
		pos = (size_t)k;
		if (pos >= errlen)
			break;
		k = snprintf(err + pos, errlen - pos, "%s%s",
			     n++ ? ", " : " in ", dirs[i]);
		k = k < 0 ? k : k + (int)pos;
	}
	if (n == 0 && k >= 0 && (size_t)k < errlen)
		snprintf(err + k, errlen - (size_t)k, " (no theme directory)");
	return THEME_E_NOT_FOUND;
}

int theme_load(struct theme *t, const char *spec, const char *const *dirs,
	       int ndirs, char *err, size_t errlen)
{
	size_t len = spec ? strlen(spec) : 0;

	if (len > 0 && (strchr(spec, '/') ||
			(len >= 5 && strcmp(spec + len - 5, ".yaml") == 0)))
		return theme_load_file(t, spec, err, errlen);
	theme_default(t);
	if (len == 0) {
		theme_error(err, errlen, "no theme name given");
		return -1;
	}
	for (int i = 0; dirs && i < ndirs; i++) {
		int rc;

		if (!dirs[i] || !dirs[i][0])
			continue;
		if ((rc = theme_load_from(t, dirs[i], spec, err, errlen)) <= 0)
			return rc;
	}
	return theme_not_found(spec, dirs, dirs ? ndirs : 0, err, errlen);
}

/* ---- the nearest palette colours --------------------------------------- */

/* The levels of each channel in xterm's 6x6x6 colour cube (16-231). */
static const uint8_t theme_cube[6] = {0, 95, 135, 175, 215, 255};

static long theme_dist(struct theme_color c, int r, int g, int b)
{
	long dr = c.r - r, dg = c.g - g, db = c.b - b;

	return dr * dr + dg * dg + db * db;
}

/* The squared distance is a sum over channels, so the nearest cube colour
 * takes the nearest level on each; a tie goes to the darker level. */
static int theme_cube_level(uint8_t v)
{
	int best = 0;

	for (int i = 1; i < 6; i++)
		if (abs(v - theme_cube[i]) < abs(v - theme_cube[best]))
			best = i;
	return best;
}

/* The cube's nearest, or the greys' (232-255: 8, 18, ... 238) when
 * strictly nearer; -1 (curses' default colour) for an unset colour. */
int theme_color_256(struct theme_color c)
{
	int r, g, b, grey = 0;
	long cube, best = LONG_MAX;

	if (!c.set)
		return -1;
	r = theme_cube_level(c.r);
	g = theme_cube_level(c.g);
	b = theme_cube_level(c.b);
	cube = theme_dist(c, theme_cube[r], theme_cube[g], theme_cube[b]);
	for (int k = 0; k < 24; k++) {
		long d = theme_dist(c, 8 + 10 * k, 8 + 10 * k, 8 + 10 * k);

		if (d < best)
			best = d, grey = k;
	}
	return best < cube ? 232 + grey : 16 + 36 * r + 6 * g + b;
}

/* The nearest corner of the RGB cube (each channel 0 or 255), which is
 * each channel cut at 128: curses numbers the 8 colours by bits, red 1,
 * green 2, blue 4.  -1 for an unset colour. */
int theme_color_8(struct theme_color c)
{
	if (!c.set)
		return -1;
	return (c.r >= 128) | (c.g >= 128) << 1 | (c.b >= 128) << 2;
}

/* ---- with curses started ----------------------------------------------- */

static int theme_curses_attr[THEME_NROLES];

static attr_t theme_curses_attrs(unsigned a)
{
	attr_t r = A_NORMAL;

	if (a & THEME_A_BOLD)
		r |= A_BOLD;
	if (a & THEME_A_DIM)
		r |= A_DIM;
	if (a & THEME_A_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & THEME_A_REVERSE)
		r |= A_REVERSE;
#ifdef A_ITALIC
	if (a & THEME_A_ITALIC)
		r |= A_ITALIC;
#endif
	return r;
}

static short theme_curses_color(struct theme_color c, int colors)
{
	return (short)(colors >= 256 ? theme_color_256(c) : theme_color_8(c));
}

/* Colour pair role+1 per role.  An unset colour is -1, which needs
 * use_default_colors(): without it init_pair fails, and such a role falls
 * back to its monochrome attributes, as does one past COLOR_PAIRS. */
void theme_apply(const struct theme *t, int colors, int use_color)
{
	int color = use_color && colors >= 8;

	for (int r = 0; r < THEME_NROLES; r++) {
		const struct theme_style *s = &t->style[r];
		short pair = (short)(r + 1);

		if (color && pair < COLOR_PAIRS &&
		    init_pair(pair, theme_curses_color(s->fg, colors),
			      theme_curses_color(s->bg, colors)) == OK)
			theme_curses_attr[r] =
				(int)(COLOR_PAIR(pair) |
				      theme_curses_attrs(s->attrs));
		else
			theme_curses_attr[r] =
				(int)theme_curses_attrs(s->mono_attrs);
	}
}

int theme_attr(enum theme_role role)
{
	if ((unsigned)role >= THEME_NROLES)
		return A_NORMAL;
	return theme_curses_attr[role];
}
