/*
 * cli.h - what the rondo command's subcommands share.
 *
 * Each subcommand is a function taking its own argv (argv[0] is the
 * subcommand's name) and returning the process exit status: 0 done, 1 the
 * work failed (message printed), 2 the command line was wrong.
 */
#ifndef RONDO_CLI_H
#define RONDO_CLI_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "fileio.h"
#include "util.h"
#include "rondo.h"

#define CLI_EXIT_OK    0
#define CLI_EXIT_FAIL  1
#define CLI_EXIT_USAGE 2

int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_contention(int argc, char **argv);
int cmd_skew(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_waits(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_proxy(int argc, char **argv);

/* Prints "rondo: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints a usage error, then the hint to run --help; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Opens `path`; on failure prints "rondo: cannot open ...: <detail>" and
 * returns NULL. */
rondo_trace *cli_open(const char *path);

/* The units of cli_scaled, each 1000 times the one before. */
enum cli_unit {
	CLI_UNIT_NONE,	  /* "950", "12.3k", "4.56M" ... "18.4E" */
	CLI_UNIT_BYTES,	  /* "850 B", "8.19 kB", "410 kB" ... "EB" */
	CLI_UNIT_NS,	  /* "850 ns", "12.3 us", "4.56 ms", "1.23 s" */
	CLI_UNIT_NS_UTF8, /* the same with the micro sign */
};

/* The one number formatter of the reports and the explorer: `prefix`,
 * then v to three significant digits at most, in the first unit that
 * keeps it under 1000 as printed (999.5 ns is "1.00 us", 999.4 ns
 * "999 ns"); v in the smallest unit has no decimals, and past the
 * largest it grows ("1000000 s"). */
void cli_scaled(char *buf, size_t size, const char *prefix, double v,
		enum cli_unit unit);

/* A duration of ns nanoseconds to three significant digits at most (the
 * trace keeps times to 0.8%): "850 ns", "12.3 us", "4.56 ms", "1.23 s",
 * with the micro sign when utf8 is set (cli_scaled). */
void cli_duration(char *buf, size_t size, double ns, int utf8);

/* Values at SAT_MAX (analyses/sat.h: a count or total that passed
 * 2^64 - 1 and stopped there) are lower bounds, and said to be.
 * cli_sat(v): whether v is one, remembered for cli_saturated.
 * cli_count: v in decimal, or ">=1.8E19" for one (cli_duration prints
 * such a total of ns with ">=" too).  cli_saturated: after the output, a
 * note on stderr when any value printed was one (csv: they were written
 * as the number 18446744073709551615). */
int cli_sat(uint64_t v);
const char *cli_count(char *buf, size_t size, uint64_t v);
void cli_saturated(int csv);

/* Where a --csv option writes: standard output for "-", else the file
 * made by fileio_create's rules (written under a temporary name, put at
 * PATH by cli_csv_close; a link of another user, a FIFO, a directory
 * refused); NULL (message printed) when it cannot be.  One at a time. */
FILE *cli_csv_open(const char *path);

/* Ends what cli_csv_open began (`failed`: the writer reported an error,
 * and the file is not kept); returns the exit status, after one message
 * when something was not written. */
int cli_csv_close(FILE *out, const char *path, int failed);

/* Parses a rank list "0-3,7,10-20:2" into *runs (malloc'd); the number
 * of runs, or -1 (syntax). */
int cli_ranks_parse(const char *s, struct util_ranks_run **runs);

/* A flag per rank of t: the ranks of runs[0..nruns-1], or every rank when
 * nruns < 0; NULL (message printed, naming file) for a rank beyond the
 * job. */
uint8_t *cli_ranks_select(const rondo_trace *t, const char *file,
			  const struct util_ranks_run *runs, int nruns);

/* A flag per signature of t: those of the functions `names` lists
 * ("MPI_Send,Recv": with or without MPI_, in any case, commas between);
 * NULL (message printed, naming file) when t has no calls of one. */
uint8_t *cli_select_function(const rondo_trace *t, const char *file,
			     const char *names);

/* Seconds since the job's origin (a decimal number), as ns: 0, or -1. */
int cli_parse_seconds(const char *s, int64_t *ns);

/* Parses a non-negative decimal number below `limit`; 0 or -1. */
int cli_parse_u32(const char *s, uint32_t limit, uint32_t *out);

/* A --comm value: "world", "self", or an id as rondo dump prints it
 * ("c3" or "3"), into AN_COMM_WORLD, AN_COMM_SELF (analyses/matrix.h) or
 * the id; 0, or -1. */
int cli_parse_comm(const char *s, int64_t *out);

/* Opens `path` for a report of `cmd` that needs per-call times; NULL
 * (message printed) when it cannot be opened or has none. */
rondo_trace *cli_open_timed(const char *path, const char *cmd);

/* Prints the error bound of the trace's per-call times (base b), for the
 * header of a report made from them. */
void cli_timing_bound(double b);

/* Figures of a report whose error bound exceeds them, marked "~" (the
 * figure could be 0, or twice what it says): how many, and the smallest
 * ratio of figure to bound among those above 0 (0: none). */
struct cli_swamp {
	unsigned marked;
	double ratio;
};

/* A duration and its bound as text ("52.3 ms", or "~52.3 ms" when the
 * bound exceeds it), counted in sw when marked. */
void cli_duration_about(char *buf, size_t size, double ns, double err_ns,
			struct cli_swamp *sw);

/* After a report's table, when some figure is marked: what "~" means,
 * and which base (of the trace's b) would bound those figures to half of
 * themselves or less (the bounds are a share b - 1 of the spans between
 * calls, so they shrink with it). */
void cli_swamp_say(const struct cli_swamp *sw, double b);

/* A round base at most `want` (8, 4, 2, 1.5, 1.2, 1.1, ..., 1.001), or 0
 * when want is below the finest. */
double cli_round_base(double want);

/* The options of the reports made from per-call times (rondo skew and
 * waits, argv[0]): --top N, --csv PATH, and --comm C when comm is not
 * NULL; --help prints usage().  Returns -1 to go on (the FILE is
 * argv[optind]), or the exit status. */
int cli_timed_args(int argc, char **argv, void (*usage)(FILE *f), uint32_t *top,
		   int64_t *comm, const char **csv);

/* How many of a report's n rows to show: --top's N (top, 0 when not
 * given), else every row in CSV and the first 10 in text. */
uint32_t cli_rows(uint32_t top, uint32_t n, int csv);

/* Says on stderr that `calls` calls had no per-call times (nothing when
 * 0). */
void cli_untimed(uint64_t calls);

#endif /* RONDO_CLI_H */
