/*
 * test_cli.c - the rondo command's shared helpers (tui/cli.c) that need no
 * trace: the one number formatter (cli_scaled) and its users cli_duration
 * and cli_count at their rounding edges and at a saturated total, and the
 * parsers of option values.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "matrix.h"
#include "sat.h"

/* cli_scaled(v, unit) is `want`. */
#define SCALED(v, unit, want)                                                  \
	do {                                                                   \
		char b_[64];                                                   \
		cli_scaled(b_, sizeof(b_), "", (v), (unit));                   \
		CHECKF(!strcmp(b_, (want)), "%s: got '%s', want '%s'", #v, b_, \
		       (want));                                                \
	} while (0)

static void test_scaled(void)
{
	char buf[64];

	/* the smallest unit: whole numbers, up to 999 */
	SCALED(0, CLI_UNIT_NONE, "0");
	SCALED(0, CLI_UNIT_NS, "0 ns");
	SCALED(0, CLI_UNIT_BYTES, "0 B");
	SCALED(1, CLI_UNIT_NONE, "1");
	SCALED(999, CLI_UNIT_NONE, "999");
	SCALED(999.4, CLI_UNIT_NS, "999 ns");
	SCALED(12.5, CLI_UNIT_NS, "12 ns"); /* printf's rounding to even */
	/* 999.5 would print as 1000: the next unit, carried */
	SCALED(999.5, CLI_UNIT_NS, "1.00 us");
	SCALED(1000, CLI_UNIT_NONE, "1.00k");
	SCALED(1000, CLI_UNIT_BYTES, "1.00 kB");
	/* two, one and no decimals: three significant digits */
	SCALED(1234, CLI_UNIT_NONE, "1.23k");
	SCALED(9994, CLI_UNIT_NONE, "9.99k");
	SCALED(9995, CLI_UNIT_NONE, "10.0k");
	SCALED(12345, CLI_UNIT_NONE, "12.3k");
	SCALED(99949, CLI_UNIT_NONE, "99.9k");
	SCALED(99950, CLI_UNIT_NONE, "100k");
	SCALED(999499, CLI_UNIT_NONE, "999k");
	SCALED(999500, CLI_UNIT_NONE, "1.00M");
	SCALED(4560000, CLI_UNIT_BYTES, "4.56 MB");
	SCALED(4.56e6, CLI_UNIT_NS, "4.56 ms");
	SCALED(1.23e9, CLI_UNIT_NS, "1.23 s");
	SCALED(1.23e9, CLI_UNIT_NS_UTF8, "1.23 s");
	SCALED(12.3e3, CLI_UNIT_NS_UTF8, "12.3 \xc2\xb5s");
	/* past the largest unit the number grows */
	SCALED(1e15, CLI_UNIT_NS, "1000000 s");
	SCALED((double)UINT64_MAX, CLI_UNIT_NONE, "18.4E");
	SCALED((double)UINT64_MAX, CLI_UNIT_BYTES, "18.4 EB");
	/* negative durations are not scaled */
	SCALED(-5000, CLI_UNIT_NS, "-5000 ns");
	/* the prefix comes first */
	cli_scaled(buf, sizeof(buf), ">=", 2e6, CLI_UNIT_NONE);
	CHECKF(!strcmp(buf, ">=2.00M"), "%s", buf);
	/* cut to the room given */
	cli_scaled(buf, 4, "", 123456, CLI_UNIT_BYTES);
	CHECKF(!strcmp(buf, "123"), "%s", buf);
}

static void test_duration(void)
{
	char buf[64];

	cli_duration(buf, sizeof(buf), 850, 0);
	CHECKF(!strcmp(buf, "850 ns"), "%s", buf);
	cli_duration(buf, sizeof(buf), 999.5, 0);
	CHECKF(!strcmp(buf, "1.00 us"), "%s", buf);
	cli_duration(buf, sizeof(buf), 12.3e3, 1);
	CHECKF(!strcmp(buf, "12.3 \xc2\xb5s"), "%s", buf);
	/* a total of ns that stopped at SAT_MAX is a lower bound */
	cli_duration(buf, sizeof(buf), (double)SAT_MAX, 0);
	CHECKF(!strcmp(buf, ">=18446744074 s"), "%s", buf);
	cli_duration(buf, sizeof(buf), (double)SAT_MAX, 1);
	CHECKF(!strcmp(buf, "\xe2\x89\xa5"
			    "18446744074 s"),
	       "%s", buf);
	/* the largest total below it is not */
	cli_duration(buf, sizeof(buf), 0x1p63, 0);
	CHECKF(!strcmp(buf, "9223372037 s"), "%s", buf);
}

static void test_count(void)
{
	char buf[32];

	CHECK(!strcmp(cli_count(buf, sizeof(buf), 0), "0"));
	CHECK(!strcmp(cli_count(buf, sizeof(buf), SAT_MAX - 1),
		      "18446744073709551614"));
	CHECK(!cli_sat(SAT_MAX - 1));
	CHECK(!strcmp(cli_count(buf, sizeof(buf), SAT_MAX), ">=1.8E19"));
	CHECK(cli_sat(SAT_MAX));
}

static void test_parse(void)
{
	int64_t v = 0;
	uint32_t u = 0;

	CHECK(cli_parse_comm("world", &v) == 0 && v == AN_COMM_WORLD);
	CHECK(cli_parse_comm("MPI_COMM_SELF", &v) == 0 && v == AN_COMM_SELF);
	CHECK(cli_parse_comm("c3", &v) == 0 && v == 3);
	CHECK(cli_parse_comm("7", &v) == 0 && v == 7);
	CHECK(cli_parse_comm("c", &v) < 0);
	CHECK(cli_parse_comm("-1", &v) < 0);
	CHECK(cli_parse_u32("0", 10, &u) == 0 && u == 0);
	CHECK(cli_parse_u32("10", 10, &u) < 0);
	CHECK(cli_parse_u32(" 1", 10, &u) < 0);
	CHECK(cli_parse_seconds("1.5", &v) == 0 && v == 1500000000);
	CHECK(cli_parse_seconds("1e10", &v) < 0);
	CHECK(cli_parse_seconds("", &v) < 0);
}

int main(void)
{
	test_scaled();
	test_duration();
	test_count();
	test_parse();
	return check_done("test_cli");
}
