/* cmd_contention.c - rondo contention (being written). */
#include "cli.h"

int cmd_contention(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_error("contention: not written yet");
	return CLI_EXIT_FAIL;
}
