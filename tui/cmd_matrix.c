/* cmd_matrix.c - rondo matrix (being written). */
#include "cli.h"

int cmd_matrix(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_error("matrix: not written yet");
	return CLI_EXIT_FAIL;
}
