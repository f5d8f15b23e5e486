/* SPDX-License-Identifier: MIT */
/*
 * fuzz_user.h - the client of the ioctl fuzz targets: a child process
 * that only sleeps, named as the caller of every request (the handlers
 * copy its memory with process_vm_readv/writev), and that never
 * outlives the fuzzer.
 */
#ifndef HPU_FUZZ_USER_H
#define HPU_FUZZ_USER_H

#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

/* Fork the client; its pid, or -1 (fork failed). Call before threads. */
static inline pid_t fuzz_user_fork(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(0); /* the fuzzer is gone already */
		for (;;)
			pause();
	}
	return pid;
}

#endif /* HPU_FUZZ_USER_H */
