/* tools/cli_team.h: the devices of one command (--devices), as ranks of a team: one host thread
 * per device, each with the device's NCCL communicator, a vote once every rank is set up, and
 * turns for writing one output in rank order. Plain C11 and POSIX threads; no CUDA or NCCL calls
 * (the caller makes the communicators), so that the tests run it without a GPU.
 *
 * NCCL's collectives block every rank until all of them have made the call, so a rank must never
 * skip one: the vote comes after everything that is likely to fail (contexts, memory, the input),
 * and a rank that fails after it still makes its remaining collective calls, with an empty share,
 * so that the others finish; its failure is the exit status. A collective issued outside
 * ncclGroupStart/End needs its ranks on threads of their own (cuprim/nccl.h).
 *
 * With one device there is no team: the rank runs in the calling thread and every function below
 * takes a NULL team (no communicator, a vote of one, always its turn). */
#ifndef CUPRIM_TOOLS_CLI_TEAM_H
#define CUPRIM_TOOLS_CLI_TEAM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cli_team cli_team;
struct ncclComm; /* NCCL's communicator (ncclComm_t is a pointer to it): used here by pointer only
                  */

/* One rank's work: returns an exit code (cli_exit), having printed what failed. */
typedef int (*cli_rank_fn)(void *user, cli_team *team, int rank);

/* Runs fn(users[r], team, r) for the ranks r = 0 .. n-1 (n <= CLI_MAX_DEVICES). One rank: in the
 * calling thread with team NULL. Several: one thread each, rank r with comms[r] (an ncclComm_t;
 * comms may be NULL where no rank makes a collective call). Returns the first rank's nonzero exit
 * code in rank order, else 0. */
int cli_team_run(const char *command, int n, struct ncclComm *const *comms, cli_rank_fn fn,
                 void **users);

/* The rank's NCCL communicator (comms[rank]), or NULL for a NULL team. */
struct ncclComm *cli_team_comm(cli_team *team, int rank);

/* The vote: every rank calls it exactly once, after its setup, and waits for the others. Returns
 * 1 if every rank voted ok, else 0 (then no rank makes a collective call). *max receives the
 * largest `value` of all ranks (the number of passes, for work in lock step). */
int cli_team_vote(cli_team *team, int ok, uint64_t value, uint64_t *max);

/* Turns, in rank order, for one output written by all ranks: cli_team_turn waits until every
 * rank before `rank` has ended its turn and returns 1, or 0 once any rank has failed (nothing
 * more is worth writing). Every rank calls cli_team_turn_end exactly once, also after a failure
 * (ok 0) and without having waited for its turn: it waits for its predecessors, then lets the
 * next rank go. */
int cli_team_turn(cli_team *team, int rank);
void cli_team_turn_end(cli_team *team, int rank, int ok);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_TOOLS_CLI_TEAM_H */
