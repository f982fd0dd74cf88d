/* tools/cli_team.c: the ranks of a command on several devices (see cli_team.h). */
#define _POSIX_C_SOURCE 200809L /* pthreads */

#include "cli_team.h"

#include "cli_args.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cli_team {
  int n;
  struct ncclComm *comms[CLI_MAX_DEVICES];
  pthread_mutex_t lock;
  pthread_cond_t changed;
  /* the vote */
  int voted, all_ok;
  uint64_t max;
  /* the turns */
  int turn; /* the rank whose turn it is: every rank before it has ended its turn */
  int failed;
};

typedef struct rank_thread {
  cli_team *team;
  int rank;
  cli_rank_fn fn;
  void *user;
  int rc;
} rank_thread;

static void *rank_main(void *p) {
  rank_thread *t = (rank_thread *)p;
  t->rc = t->fn(t->user, t->team, t->rank);
  return NULL;
}

struct ncclComm *cli_team_comm(cli_team *team, int rank) {
  return team ? team->comms[rank] : NULL;
}

/* A vote cast, with the lock held; the last one wakes the ranks that wait. */
static void cast(cli_team *team, int ok, uint64_t value) {
  team->all_ok &= ok != 0;
  if (value > team->max)
    team->max = value;
  if (++team->voted == team->n)
    pthread_cond_broadcast(&team->changed);
}

int cli_team_vote(cli_team *team, int ok, uint64_t value, uint64_t *max) {
  if (!team) {
    *max = value;
    return ok;
  }
  pthread_mutex_lock(&team->lock);
  cast(team, ok, value);
  while (team->voted < team->n)
    pthread_cond_wait(&team->changed, &team->lock);
  *max = team->max;
  const int all_ok = team->all_ok;
  pthread_mutex_unlock(&team->lock);
  return all_ok;
}

int cli_team_turn(cli_team *team, int rank) {
  if (!team)
    return 1;
  pthread_mutex_lock(&team->lock);
  while (team->turn < rank && !team->failed)
    pthread_cond_wait(&team->changed, &team->lock);
  const int ok = !team->failed;
  pthread_mutex_unlock(&team->lock);
  return ok;
}

void cli_team_turn_end(cli_team *team, int rank, int ok) {
  if (!team)
    return;
  pthread_mutex_lock(&team->lock);
  if (!ok) {
    team->failed = 1; /* the ranks waiting for their turn need not wait any longer */
    pthread_cond_broadcast(&team->changed);
  }
  while (team->turn < rank)
    pthread_cond_wait(&team->changed, &team->lock);
  team->turn = rank + 1;
  pthread_cond_broadcast(&team->changed);
  pthread_mutex_unlock(&team->lock);
}

/* The ranks on their threads, the team ready. A thread that cannot be started votes "failed"
 * through the main thread, so that the others, waiting in the vote, return before any collective
 * call. Returns the first nonzero exit code in rank order. */
static int run_threads(cli_team *team, const char *command, cli_rank_fn fn, void **users) {
  rank_thread ranks[CLI_MAX_DEVICES];
  pthread_t threads[CLI_MAX_DEVICES];
  int started[CLI_MAX_DEVICES] = {0};
  for (int r = 0; r < team->n; ++r) {
    ranks[r] = (rank_thread){team, r, fn, users[r], CLI_EXIT_FAILED};
    started[r] = pthread_create(&threads[r], NULL, rank_main, &ranks[r]) == 0;
    if (!started[r]) {
      fprintf(stderr, "cuprim %s: cannot start the thread of rank %d\n", command, r);
      pthread_mutex_lock(&team->lock);
      cast(team, 0, 0);
      pthread_mutex_unlock(&team->lock);
    }
  }
  int rc = CLI_EXIT_OK;
  for (int r = 0; r < team->n; ++r) {
    if (started[r])
      pthread_join(threads[r], NULL);
    if (!rc)
      rc = ranks[r].rc;
  }
  return rc;
}

int cli_team_run(const char *command, int n, struct ncclComm *const *comms, cli_rank_fn fn,
                 void **users) {
  if (n == 1)
    return fn(users[0], NULL, 0);
  if (n < 1 || n > CLI_MAX_DEVICES)
    return CLI_EXIT_USAGE;
  cli_team *team = (cli_team *)calloc(1, sizeof *team);
  if (!team) {
    fprintf(stderr, "cuprim %s: out of host memory\n", command);
    return CLI_EXIT_FAILED;
  }
  team->n = n;
  team->all_ok = 1;
  for (int r = 0; comms && r < n; ++r)
    team->comms[r] = comms[r];
  pthread_mutex_init(&team->lock, NULL);
  pthread_cond_init(&team->changed, NULL);
  const int rc = run_threads(team, command, fn, users);
  pthread_cond_destroy(&team->changed);
  pthread_mutex_destroy(&team->lock);
  free(team);
  return rc;
}
