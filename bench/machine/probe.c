/* What a machine does to memory-bound and shared-data code, for reading the benchmarks
 * of docs/performance.md on it (issue 7): the latency of a dependent load at working sets
 * from the first-level cache out to memory, a cache line passed between two cores and
 * back, and a loop of arithmetic alone on one core and then on both at once (a machine
 * whose "cores" share one core's units runs it slower on both). Built and run by
 * bench/machine.sh. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

/* One random cycle through `bytes` of memory, each load's address the previous load's
 * value, so the prefetchers cannot guess it: ns a load. */
static double load_latency(size_t bytes) {
  size_t n = bytes / sizeof(size_t);
  size_t *next = malloc(n * sizeof(size_t)), *order = malloc(n * sizeof(size_t));
  for (size_t i = 0; i < n; i++) order[i] = i;
  srand(1);
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = (size_t)rand() % (i + 1), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (size_t i = 0; i < n; i++) next[order[i]] = order[(i + 1) % n];
  size_t p = 0, loads = 4000000;
  for (size_t i = 0; i < n; i++) p = next[p]; /* warm */
  double t0 = seconds();
  for (size_t i = 0; i < loads; i++) p = next[p];
  double ns = (seconds() - t0) * 1e9 / loads;
  if (p == (size_t)-1) puts(""); /* the chase's result is used */
  free(next);
  free(order);
  return ns;
}

static _Alignas(64) atomic_long turn;
enum { ROUND_TRIPS = 1000000 };

static void *answer(void *cpu) {
  pin(*(int *)cpu);
  for (long i = 0; i < ROUND_TRIPS; i++) {
    while (atomic_load_explicit(&turn, memory_order_acquire) != 2 * i + 1) {
    }
    atomic_store_explicit(&turn, 2 * i + 2, memory_order_release);
  }
  return NULL;
}

/* ns for a line written by core 0 to be read and answered by core 1 and read back. */
static double round_trip(void) {
  pthread_t t;
  int other = 1;
  atomic_store(&turn, 0);
  pthread_create(&t, NULL, answer, &other);
  pin(0);
  double t0 = seconds();
  for (long i = 0; i < ROUND_TRIPS; i++) {
    atomic_store_explicit(&turn, 2 * i + 1, memory_order_release);
    while (atomic_load_explicit(&turn, memory_order_acquire) != 2 * i + 2) {
    }
  }
  double ns = (seconds() - t0) * 1e9 / ROUND_TRIPS;
  pthread_join(t, NULL);
  return ns;
}

/* One core's arithmetic loop: the core to run on, and the seconds it took. */
struct arithmetic {
  int cpu;
  double seconds;
};

/* Seven independent multiply-add chains on the given core: bound by the core's
 * arithmetic, not memory. */
static void *arithmetic(void *arg) {
  struct arithmetic *run = arg;
  pin(run->cpu);
  volatile double b = 1.0000001; /* read at run time: the loop cannot be folded */
  double a[7] = {1, 1, 1, 1, 1, 1, 1}, k = b;
  double t0 = seconds();
  for (long i = 0; i < 200000000; i++)
    for (int c = 0; c < 7; c++) a[c] = a[c] * k + 1e-9;
  run->seconds = seconds() - t0;
  b = a[0] + a[6]; /* the chains' results are used */
  return NULL;
}

int main(void) {
  size_t sizes[] = {16 << 10, 256 << 10, 1 << 20, 3 << 20, 16 << 20, 256 << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    printf("dependent load, %6zu KiB working set: %6.1f ns\n", sizes[i] >> 10,
           load_latency(sizes[i]));
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
    puts("one core online: the two-core probes are skipped");
    return 0;
  }
  printf("cache line from core 0 to core 1 and back: %.1f ns\n", round_trip());
  struct arithmetic alone = {0, 0}, both[2] = {{0, 0}, {1, 0}};
  pthread_t t;
  pthread_create(&t, NULL, arithmetic, &alone);
  pthread_join(t, NULL);
  pthread_create(&t, NULL, arithmetic, &both[1]);
  arithmetic(&both[0]);
  pthread_join(t, NULL);
  printf("arithmetic loop: %.3f s on core 0 alone, %.3f and %.3f s on cores 0 and 1 at once\n",
         alone.seconds, both[0].seconds, both[1].seconds);
  return 0;
}
