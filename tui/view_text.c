/*
 * view_text.c - numbers, durations and clipped text for `rondo view`.
 */
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "cli.h"
#include "view.h"

void view_count(char *buf, size_t size, uint64_t n)
{
	if (n < 1000000) {
		/* exact, thousands apart */
		if (n < 1000)
			snprintf(buf, size, "%u", (unsigned)n);
		else
			snprintf(buf, size, "%u %03u", (unsigned)(n / 1000),
				 (unsigned)(n % 1000));
		return;
	}
	/* a total that stopped at 2^64 - 1 (sat.h) is a lower bound */
	cli_scaled(buf, size, cli_sat(n) ? ">=" : "", (double)n, CLI_UNIT_NONE);
}

void view_duration(char *buf, size_t size, double ns, int utf8)
{
	cli_duration(buf, size, ns, utf8);
}

void view_percent(char *buf, size_t size, double share)
{
	double p = share * 100;

	snprintf(buf, size, p >= 99.95 || p == 0 ? "%.0f%%" : "%.1f%%", p);
}

/* Bytes of text that fit in `width` columns, and the columns they take. */
static size_t fit(const char *text, int width, int *cols)
{
	mbstate_t st;
	size_t at = 0, len = strlen(text);

	memset(&st, 0, sizeof(st));
	*cols = 0;
	while (at < len) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, text + at, len - at, &st);
		int w;

		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			/* not text in this locale: a byte is a column */
			memset(&st, 0, sizeof(st));
			n = 1;
			w = 1;
		} else {
			w = wcwidth(wc);
			w = w < 0 ? 1 : w;
		}
		if (*cols + w > width)
			break;
		*cols += w;
		at += n;
	}
	return at;
}

uint32_t view_row_moved(uint32_t cur, int64_t delta, uint32_t n)
{
	int64_t at = (int64_t)cur + delta;

	return (uint32_t)(at < 0 ? 0 : at >= n ? n - 1 : at);
}

void view_row_in_view(uint32_t cur, uint32_t *top, int lines)
{
	if (cur < *top)
		*top = cur;
	if (lines > 0 && cur >= *top + (uint32_t)lines)
		*top = cur - (uint32_t)lines + 1;
}

/* The columns text takes (view.h). */
int view_columns(const char *text)
{
	int cols;

	fit(text, 1 << 30, &cols);
	return cols;
}

int view_put(struct view *v, int y, int x, int width, int attr,
	     const char *text)
{
	int cols, more;
	size_t n;

	if (width <= 0 || (v->clip && y >= v->clip))
		return 0;
	n = fit(text, width, &cols);
	more = text[n] != '\0';
	if (more) /* room for the mark that it goes on */
		n = fit(text, width - 1, &cols);
	attrset(attr);
	mvaddnstr(y, x, text, (int)n);
	if (more) {
		addstr(v->utf8 ? "\xe2\x80\xa6" : "~");
		cols++;
	}
	attrset(A_NORMAL);
	return cols;
}

int view_put_right(struct view *v, int y, int x, int width, int attr,
		   const char *text)
{
	int cols = view_columns(text);

	if (cols >= width)
		return view_put(v, y, x, width, attr, text);
	return view_put(v, y, x + width - cols, cols, attr, text);
}

void view_rows_shown(struct view *v, int y, int n, int cur_y)
{
	v->rows_y = y;
	v->rows_n = n;
	v->rows_cur = cur_y;
}

void view_fill(int y, int x, int width, int attr)
{
	attrset(attr);
	for (int k = 0; k < width; k++)
		mvaddch(y, x + k, ' ');
	attrset(A_NORMAL);
}

void view_message(struct view *v, int error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->message, sizeof(v->message), fmt, ap);
	va_end(ap);
	v->message_is_error = error;
}
