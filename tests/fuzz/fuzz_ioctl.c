// SPDX-License-Identifier: MIT
/*
 * fuzz_ioctl.c - libFuzzer target of the driver's ioctl decoder and
 * handlers, without FUSE.
 *
 * Each input is a context life: the first byte picks a compute or a
 * control context, then records of (command selector, argument bytes) are
 * dispatched in turn, and the context is released. User pointers inside
 * the arguments are resolved in a forked, sleeping copy of this process,
 * so whatever the driver reads or writes there cannot corrupt the
 * fuzzer. AddressSanitizer and UndefinedBehaviorSanitizer watch the
 * driver and the device model.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fuzz_user.h"
#include "hpu_fused.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static struct hfd_driver drv;
static pid_t user_pid;

static const unsigned int commands[] = {
	HPU_IOCTL_INFO,	  HPU_IOCTL_CB,	   HPU_IOCTL_CS,  HPU_IOCTL_WAIT_CS,
	HPU_IOCTL_MEMORY, HPU_IOCTL_DEBUG, HPU_IOCTL_NIC,
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	user_pid = fuzz_user_fork();
	if (user_pid < 0 ||
	    hfd_driver_init(&drv, &hpusim_model, "gaudi2", 1, "/fuzz"))
		abort();
	return 0;
}

/* Next command: a known one, or (selector 0xff) four raw bytes */
static unsigned int next_cmd(const uint8_t **p, size_t *left)
{
	unsigned int cmd;
	uint8_t sel = **p;

	(*p)++;
	(*left)--;
	if (sel != 0xff || *left < 4)
		return commands[sel % (sizeof(commands) / sizeof(commands[0]))];
	memcpy(&cmd, *p, 4);
	*p += 4;
	*left -= 4;
	return cmd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* as large as any _IOC_SIZE: the kernel copies that many bytes */
	static uint8_t arg[1 << 14], out[1 << 14];
	struct hfd_ioctl_call call = { .pid = user_pid };
	const uint8_t *p = data;
	size_t left = size, n, out_size;
	unsigned int cmd, calls = 0;
	struct hfd_ctx *ctx;

	if (size < 1)
		return 0;
	if (hfd_ctx_open(&drv.devs[0], data[0] & 1, user_pid, getuid(),
			 getgid(), &ctx))
		return 0;
	p++;
	left--;
	call.ctx = ctx;
	while (left > 0 && calls++ < 16) {
		cmd = next_cmd(&p, &left);
		n = _IOC_SIZE(cmd);
		memset(arg, 0, n);
		memcpy(arg, p, n < left ? n : left);
		p += n < left ? n : left;
		left -= n < left ? n : left;
		out_size = _IOC_SIZE(cmd);
		hfd_ioctl_dispatch(&call, cmd, arg, _IOC_SIZE(cmd), out,
				   &out_size);
		if (out_size > _IOC_SIZE(cmd))
			abort();
	}
	hfd_ctx_release(ctx);
	/* a fatal injection must not leave the next inputs a failed device */
	if (hfd_device_failed(&drv.devs[0]))
		hfd_device_reset(&drv.devs[0], HPU_RESET_HARD, NULL, true,
				 "fuzz input done");
	__atomic_store_n(&drv.devs[0].hang_armed, false, __ATOMIC_RELEASE);
	return 0;
}
