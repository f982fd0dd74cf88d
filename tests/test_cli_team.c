/* The ranks of a command on several devices (tools/cli_team.c) without a GPU: the threads, the
 * vote, and the turns in which the ranks write one output. Rank functions here only vote, wait
 * and record; delays shuffle the order in which the threads get there. A hang is a failure too
 * (the test's timeout). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "test_util.h"

#include "cli_args.h"
#include "cli_team.h"

enum { RANKS = 8, PASSES = 3 };

/* What the ranks share: the output they write in turns, and what each saw. */
typedef struct shared {
  pthread_mutex_t lock;
  int written[RANKS * PASSES];
  int count;
  /* per rank */
  int ok_vote[RANKS];
  uint64_t max[RANKS];
  int team_null[RANKS];
  struct ncclComm *comm[RANKS];
  int rank_seen[RANKS]; /* the rank number each user was called with */
  /* the case */
  int fail_vote;  /* this rank votes "failed" (-1: none) */
  int fail_write; /* this rank fails before its turn (-1: none) */
  int rc_of[RANKS];
} shared;

typedef struct user {
  shared *s;
  int rank;
} user;

static void pause_us(long us) {
  const struct timespec t = {0, us * 1000L};
  nanosleep(&t, NULL);
}

/* A rank: votes (its value 3 * rank), then writes PASSES entries in its turn, each after a delay
 * that differs by rank, so that later ranks often get to their turn first. */
static int rank_fn(void *p, cli_team *team, int rank) {
  user *u = (user *)p;
  shared *s = u->s; /* no cmocka assertion here: not on the test's thread */
  s->rank_seen[u->rank] = rank;
  pause_us((long)((RANKS - rank) * 300));
  s->team_null[rank] = team == NULL;
  s->comm[rank] = cli_team_comm(team, rank);
  s->ok_vote[rank] = cli_team_vote(team, rank != s->fail_vote, 3 * (uint64_t)rank, &s->max[rank]);
  if (!s->ok_vote[rank])
    return s->rc_of[rank];
  if (rank == s->fail_write) {
    cli_team_turn_end(team, rank, 0); /* before its predecessors are done */
    return s->rc_of[rank];
  }
  int ok = 1;
  for (int k = 0; k < PASSES && ok; ++k) {
    pause_us((long)((rank * 7 + k) % 5) * 200);
    ok = cli_team_turn(team, rank);
    if (!ok)
      break;
    pthread_mutex_lock(&s->lock);
    s->written[s->count++] = rank;
    pthread_mutex_unlock(&s->lock);
  }
  cli_team_turn_end(team, rank, 1);
  return s->rc_of[rank];
}

static int run(shared *s, int n, struct ncclComm *const *comms) {
  user users[RANKS];
  void *ptrs[RANKS];
  for (int r = 0; r < n; ++r) {
    users[r] = (user){s, r};
    ptrs[r] = &users[r];
  }
  return cli_team_run("test", n, comms, rank_fn, ptrs);
}

static void init(shared *s) {
  memset(s, 0, sizeof *s);
  pthread_mutex_init(&s->lock, NULL);
  s->fail_vote = s->fail_write = -1;
}

/* One rank: the calling thread, no team, a vote of one, always its turn. */
TU_TEST(test_one_rank) {
  (void)state;
  shared s;
  init(&s);
  assert_int_equal(run(&s, 1, NULL), 0);
  assert_int_equal(s.rank_seen[0], 0);
  assert_true(s.team_null[0]);
  assert_null(s.comm[0]);
  assert_true(s.ok_vote[0]);
  assert_int_equal(s.max[0], 0);
  assert_int_equal(s.count, PASSES);
  s.rc_of[0] = CLI_EXIT_OUTPUT;
  assert_int_equal(run(&s, 1, NULL), CLI_EXIT_OUTPUT);
}

/* Several ranks: everyone's vote and the largest value, the output written in rank order
 * whatever order the threads arrive in, each rank's communicator, the first nonzero exit code in
 * rank order. */
TU_TEST(test_turns_in_rank_order) {
  (void)state;
  for (int n = 2; n <= RANKS; n += 3) {
    shared s;
    init(&s);
    struct ncclComm *comms[RANKS];
    for (int r = 0; r < n; ++r)
      comms[r] = (struct ncclComm *)(&s.written[r]); /* any distinct pointers */
    s.rc_of[n - 1] = CLI_EXIT_INPUT;
    if (n > 2)
      s.rc_of[n / 2] = CLI_EXIT_OUTPUT; /* the first nonzero one in rank order */
    const int want_rc = n > 2 ? CLI_EXIT_OUTPUT : CLI_EXIT_INPUT;
    assert_int_equal(run(&s, n, comms), want_rc);
    assert_int_equal(s.count, n * PASSES);
    for (int i = 0; i < n * PASSES; ++i)
      assert_int_equal(s.written[i], i / PASSES);
    for (int r = 0; r < n; ++r) {
      assert_int_equal(s.rank_seen[r], r);
      assert_false(s.team_null[r]);
      assert_ptr_equal(s.comm[r], comms[r]);
      assert_true(s.ok_vote[r]);
      assert_int_equal(s.max[r], 3 * (uint64_t)(n - 1));
    }
  }
}

/* One rank votes "failed": every rank learns it from the vote, nobody writes. */
TU_TEST(test_failed_vote) {
  (void)state;
  shared s;
  init(&s);
  s.fail_vote = 5;
  s.rc_of[5] = CLI_EXIT_FAILED;
  assert_int_equal(run(&s, RANKS, NULL), CLI_EXIT_FAILED);
  for (int r = 0; r < RANKS; ++r)
    assert_false(s.ok_vote[r]);
  assert_int_equal(s.count, 0);
}

/* A rank fails after the vote, before its turn: the ranks after it write nothing, and none waits
 * forever (its turn still passes on). The ranks before it may have written; in rank order. */
TU_TEST(test_failed_turn) {
  (void)state;
  for (int failing = 0; failing < RANKS; failing += 3) {
    shared s;
    init(&s);
    s.fail_write = failing;
    s.rc_of[failing] = CLI_EXIT_OUTPUT;
    assert_int_equal(run(&s, RANKS, NULL), CLI_EXIT_OUTPUT);
    for (int i = 0; i < s.count; ++i) {
      assert_true(s.written[i] < failing);
      assert_int_equal(s.written[i], i / PASSES);
    }
  }
}

TU_MAIN(NULL, NULL)
