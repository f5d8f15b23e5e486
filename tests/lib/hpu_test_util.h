/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_util.h - small helpers every kind of test uses: a monotonic
 * clock in ms, a free loopback TCP port, a child process tied to the test,
 * bounded waits for a child and for a device monitor's event, the leading columns of a
 * CSV file, where a stuck process is, an ioctl answering -errno, a skip
 * with its reason, reproducible random bytes, malloc() that cannot fail,
 * whether this is an AddressSanitizer build.
 */
#ifndef HPU_TEST_UTIL_H
#define HPU_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

/*
 * HPU_TEST_UNDER_ASAN - 1 in an AddressSanitizer build (gcc's
 * __SANITIZE_ADDRESS__, clang's __has_feature), else 0: there freed
 * memory stays resident in the allocator's quarantine (256 MiB by
 * default), so RSS and mapping counts are compared with more slack or
 * only printed, and LeakSanitizer's report at exit checks the frees.
 */
#if defined(__SANITIZE_ADDRESS__)
#define HPU_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HPU_TEST_UNDER_ASAN 1
#endif
#endif
#ifndef HPU_TEST_UNDER_ASAN
#define HPU_TEST_UNDER_ASAN 0
#endif

struct hpu_monitor;
struct hpu_monitor_event;

/**
 * hpu_test_now_ms() - CLOCK_MONOTONIC in milliseconds
 *
 * Return: the time; only differences mean anything.
 */
long hpu_test_now_ms(void);

/**
 * hpu_test_free_port() - a TCP port of 127.0.0.1 nobody uses right now
 *
 * The port is bound and released again: nothing listens on it, and it
 * stays free unless someone else takes it meanwhile.
 *
 * Return: the port, or -1 when no socket could be bound.
 */
int hpu_test_free_port(void);

/**
 * hpu_test_fork_child() - fork a child that gets SIGKILL when the test
 * process dies
 *
 * stdout and stderr are flushed first, so the child repeats nothing. A
 * child whose parent is already gone exits with status 127. Only a
 * process without threads of its own may fork: a child inherits the locks
 * that other threads hold at the fork, and may wait for one of them
 * forever. OpenBLAS's pool, which stops itself around a fork anyway, is
 * stopped first and not counted; nor is ThreadSanitizer's background
 * thread in a TSan build (the runtime quiesces it around the fork; it is
 * told apart by blocking every signal, which no thread of ours does).
 *
 * Return: 0 in the child, its pid in the parent, -errno (-EDEADLK when
 * the process started threads).
 */
pid_t hpu_test_fork_child(void);

/**
 * hpu_test_wait_child() - reap the child @pid, waiting at most @timeout_ms
 * @pid: the child
 * @timeout_ms: bound
 * @status: receives waitpid()'s status
 *
 * Return: 0, -ETIMEDOUT when it still runs (it is left running), or the
 * -errno of waitpid().
 */
int hpu_test_wait_child(pid_t pid, int timeout_ms, int *status);

/**
 * hpu_test_kill_child() - SIGKILL the child @pid and reap it, waiting at
 * most 5 s
 * @pid: the child
 * @status: receives waitpid()'s status
 *
 * A process blocked in an answer the daemon never gives cannot die before
 * the daemon does: such a one is described on stderr (where it is stuck)
 * and left unreaped.
 *
 * Return: 0, -ETIMEDOUT or the -errno of waitpid().
 */
int hpu_test_kill_child(pid_t pid, int *status);

/**
 * hpu_test_monitor_wait() - take one device monitor event, waiting for
 * the monitor's fd up to @tries times 100 ms
 * @mon: monitor
 * @ev: receives the event
 * @tries: bound (e.g. 20 when one is expected, 5 to see that none comes)
 *
 * Return: what hpu_monitor_next() answered, -EAGAIN when nothing came.
 */
int hpu_test_monitor_wait(struct hpu_monitor *mon, struct hpu_monitor_event *ev,
			  int tries);

/**
 * hpu_test_csv_columns() - the first @ncols columns of every row of a CSV
 * file (header included), one row a line, as one string
 * @path: the file
 * @ncols: columns to keep, >= 1; every row must have more
 *
 * Return: a malloc'ed string, or NULL when the file cannot be read or a
 * row has @ncols columns or fewer.
 */
char *hpu_test_csv_columns(const char *path, int ncols);

/**
 * hpu_test_print_proc() - print to stderr where a process and its threads
 * are (state, kernel wait channel, system call), one line each, at most
 * 16 threads; for a test to say why a child it waited for is stuck
 * @pid: the process
 */
void hpu_test_print_proc(pid_t pid);

/**
 * hpu_test_ioctl() - ioctl() answering the kernel's way
 * @fd: open node
 * @cmd: request
 * @arg: its argument
 *
 * For raw ioctl tests: hpu's commands answer 0 when they succeed.
 *
 * Return: 0, or -errno of the failed call.
 */
int hpu_test_ioctl(int fd, unsigned long cmd, void *arg);

/**
 * hpu_test_fill_random() - fill @p with @n pseudo-random bytes (xorshift)
 * @p: buffer
 * @n: bytes
 * @seed: any value; the same seed gives the same bytes
 */
void hpu_test_fill_random(void *p, size_t n, uint64_t seed);

/**
 * hpu_test_xmalloc() - malloc() that aborts the test process when it fails
 * @n: bytes
 *
 * Inline, so that the compiler sees the allocation's size and that the
 * pointer is never NULL (GCC's -Warray-bounds under the sanitizers).
 *
 * Return: the memory, never NULL.
 */
static inline void *hpu_test_xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		abort(); /* tells the compiler too: never NULL below */
	return p;
}

/*
 * HPU_TEST_SKIP_IF() - in a cmocka test: when @reason (a string) is not
 * NULL, print it and skip the test
 */
#define HPU_TEST_SKIP_IF(reason)                                  \
	do {                                                      \
		if (reason) {                                     \
			print_message("skipped: %s\n", (reason)); \
			skip();                                   \
		}                                                 \
	} while (0)

#endif /* HPU_TEST_UTIL_H */
