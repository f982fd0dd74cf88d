/* tools/cli_commands.h: the subcommands of the cuprim program. Each takes the parsed command line
 * and returns the program's exit status (cli_exit), having printed one line on stderr for any
 * failure.
 *   cmd_file.c   reduce, scan, histogram: the primitives on the user's data (.npy or raw)
 *   cmd_bench.c  demo, ladder, info: generated data, timed */
#ifndef CUPRIM_TOOLS_CLI_COMMANDS_H
#define CUPRIM_TOOLS_CLI_COMMANDS_H

#include "cli_args.h"

int cmd_reduce(const cli_args *a);
int cmd_scan(const cli_args *a);
int cmd_histogram(const cli_args *a);
int cmd_demo(const cli_args *a);
int cmd_ladder(const cli_args *a);
int cmd_info(const cli_args *a);

#endif /* CUPRIM_TOOLS_CLI_COMMANDS_H */
