/* cmd_stats.c - rondo stats (being written). */
#include "cli.h"

int cmd_stats(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_error("stats: not written yet");
	return CLI_EXIT_FAIL;
}
