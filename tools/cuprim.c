/* cuprim: the command-line program. It links the library like any user program (plain C, no CUDA
 * compiler) and is a dispatcher: the command line is parsed by cli_args.c, and each subcommand
 * is a function (cli_commands.h) and a row in `commands` below.
 *
 *   tools/cuprim.c        this dispatcher
 *   tools/cli_args.[ch]   the command line, exit codes, usage texts        (no CUDA: unit-tested)
 *   tools/npy.[ch]        the .npy reader and writer                       (no CUDA: unit-tested)
 *   tools/cli_io.[ch]     input, edges, and outputs written via a temporary (no CUDA: unit-tested)
 *   tools/cli_team.[ch]   a command's ranks on several devices: threads, vote, output turns
 *                                                                          (no CUDA: unit-tested)
 *   tools/cli_gpu.[ch]    device check, context, timing, staged transfers, progress
 *   harness/hostref*.h    host element ops and references, shared with the tests and the bench
 *   harness/gpu_timer.h   the timing harness, shared with cuprim-bench
 *   tools/cmd_file.c      reduce, scan, histogram on the user's files, on one device or several
 *   tools/cmd_bench.c     demo, ladder, info
 *
 * Exit status (cli_exit in cli_args.h): 0 success; 1 a wrong result or a failed CUDA or cuprim
 * call; 2 a usage error; 3 an input file that cannot be read; 4 an invalid input file; 5 a dtype
 * and op the primitive does not take; 6 an output that cannot be written; 77 no CUDA device or
 * driver (the usual "skipped" code of test harnesses). */
#include "cli_args.h"
#include "cli_commands.h"

#include <stdio.h>

typedef struct command {
  cli_command id;
  int (*run)(const cli_args *a);
} command;

static const command commands[] = {
    {CLI_CMD_DEMO, cmd_demo}, {CLI_CMD_INFO, cmd_info},           {CLI_CMD_REDUCE, cmd_reduce},
    {CLI_CMD_SCAN, cmd_scan}, {CLI_CMD_HISTOGRAM, cmd_histogram}, {CLI_CMD_LADDER, cmd_ladder},
};
enum { NUM_COMMANDS = sizeof commands / sizeof commands[0] };

int main(int argc, char **argv) {
  cli_args a;
  char err[512];
  if (argc < 2) {
    fputs(cli_usage(CLI_CMD_NONE), stderr);
    return CLI_EXIT_USAGE;
  }
#ifdef CUPRIM_CLI_NCCL
  const int have_nccl = 1; /* built with the NCCL component: --devices takes several devices */
#else
  const int have_nccl = 0;
#endif
  if (cli_parse(argc, argv, &a, err, sizeof err) != CLI_EXIT_OK ||
      cli_check_devices(&a, have_nccl, err, sizeof err) != CLI_EXIT_OK) {
    const char *name = cli_command_name(a.command);
    if (name)
      fprintf(stderr, "cuprim %s: %s ('cuprim %s --help' lists the options)\n", name, err, name);
    else
      fprintf(stderr, "cuprim: %s ('cuprim --help' lists the commands)\n", err);
    return CLI_EXIT_USAGE;
  }
  if (a.version) {
    printf("cuprim %s\n", cuprim_version_string());
    return CLI_EXIT_OK;
  }
  if (a.help || a.command == CLI_CMD_NONE) {
    fputs(cli_usage(a.command), stdout);
    return CLI_EXIT_OK;
  }
  int rc = CLI_EXIT_USAGE;
  for (int i = 0; i < NUM_COMMANDS; ++i)
    if (commands[i].id == a.command)
      rc = commands[i].run(&a);
  /* Results go to stdout: a failure to write them (a full disk, a closed pipe) is a failure. */
  if (fflush(stdout) != 0 && rc == CLI_EXIT_OK) {
    fprintf(stderr, "cuprim: cannot write the output to stdout\n");
    rc = CLI_EXIT_OUTPUT;
  }
  return rc;
}
