// SPDX-License-Identifier: MIT
/*
 * test_hl_irq.c - user interrupts of the habanalabs personality
 * (docs/habanalabs.md, "User interrupts") without FUSE: a monitor whose
 * payload goes to a CQ writes the CQ's counter into a mapped kernel CB
 * and wakes a deferred WAIT_CS on the CQ's interrupt (also one on "any
 * CQ", counting in inc mode 1); a value already reached answers at once;
 * a wait whose value never comes ends BUSY at its timeout; a released
 * context answers its waiters ABORTED; bad ids, flags, handles and
 * addresses are refused, and so is a CQ set up wrong (the CS aborts).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../lib/hpu_test_hfd.h"
#include "../lib/hpu_test_hl_pkt.h"
#include "hl_personality.h"
#include "hl_sync.h"

#define BUF_SIZE	16384
#define SOB		7
#define MON		2
#define CQ		5
#define IRQ		3
#define ANY_CQ		0xFFFU
#define CQ_REG(base, c) (HL_CFG_BASE + (base) + 4ULL * (c))

/* A deferred answer, as FUSE would give it to the kernel */
struct box {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int n;
	int err;
	union hl_wait_cs_args a;
};

static bool b_interrupted(void *token)
{
	(void)token;
	return false;
}

static void b_on_interrupt(void *token, uint64_t id)
{
	(void)token;
	assert_true(id & HFD_HL_IRQ_WAITER_ID);
}

static void b_reply(void *token, int err, const void *out, size_t size)
{
	struct box *b = token;

	assert_true(size <= sizeof(b->a));
	pthread_mutex_lock(&b->lock);
	b->n++;
	b->err = err;
	memset(&b->a, 0, sizeof(b->a));
	if (out)
		memcpy(&b->a, out, size);
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

static void box_init(struct box *b)
{
	memset(b, 0, sizeof(*b));
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cond, NULL);
}

/* The number of answers after waiting up to 60 s for the first (a bound
 * against a hang, not a timing assertion) */
static unsigned int box_wait(struct box *b)
{
	struct timespec ts;
	unsigned int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 60;
	pthread_mutex_lock(&b->lock);
	while (!b->n && !pthread_cond_timedwait(&b->cond, &b->lock, &ts))
		;
	n = b->n;
	pthread_mutex_unlock(&b->lock);
	return n;
}

static unsigned int box_count(struct box *b)
{
	unsigned int n;

	pthread_mutex_lock(&b->lock);
	n = b->n;
	pthread_mutex_unlock(&b->lock);
	return n;
}

static int setup(void **state)
{
	static struct hpu_test_hfd_hl f;

	*state = &f;
	return hpu_test_hfd_hl_open(&f, BUF_SIZE, 0);
}

/* An interrupt WAIT_CS; @b: may be answered later into @b */
static int irq_wait(struct hfd_ctx *ctx, uint32_t flags, uint32_t id,
		    uint64_t what, uint64_t off, uint64_t target,
		    uint64_t timeout_us, struct box *b,
		    union hl_wait_cs_args *a)
{
	struct hfd_ioctl_defer d = { .interrupted = b_interrupted,
				     .on_interrupt = b_on_interrupt,
				     .reply = b_reply,
				     .reply_data = b_reply,
				     .token = b };
	struct hfd_ioctl_call call = { .ctx = ctx,
				       .pid = getpid(),
				       .defer = b ? &d : NULL };
	uint8_t out[HFD_IOCTL_MAX_SIZE];
	size_t out_size = sizeof(out);
	int ret;

	memset(a, 0, sizeof(*a));
	a->in.flags = HL_WAIT_CS_FLAGS_INTERRUPT | flags | id << 20;
	a->in.seq = what;	   /* addr / cq_counters_handle */
	a->in.timeout_us = target; /* target */
	a->in.cq_counters_offset = off;
	memcpy(&a->in.seq_arr_len, &timeout_us, 8); /* interrupt_timeout_us */
	ret = hfd_hl_ioctl_dispatch(&call, HL_IOCTL_WAIT_CS, a, sizeof(*a), out,
				    &out_size);
	if (ret != HFD_IOCTL_DEFERRED)
		memcpy(a, out, out_size < sizeof(*a) ? out_size : sizeof(*a));
	return ret;
}

/* CB CREATE with MAP: the handle, its device VA in @va */
static uint64_t mapped_cb(struct hfd_ctx *ctx, uint32_t size, uint64_t *va)
{
	union hl_cb_args a;
	uint64_t h;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_CB_OP_CREATE;
	a.in.cb_size = size;
	a.in.flags = HL_CB_FLAGS_MAP;
	assert_int_equal(
		hpu_test_hfd_hl_ioctl(ctx, HL_IOCTL_CB, &a, sizeof(a), 0), 0);
	h = a.out.cb_handle;
	memset(&a, 0, sizeof(a));
	a.in.op = HL_CB_OP_INFO;
	a.in.cb_handle = h;
	a.in.flags = HL_CB_FLAGS_GET_DEVICE_VA;
	assert_int_equal(
		hpu_test_hfd_hl_ioctl(ctx, HL_IOCTL_CB, &a, sizeof(a), 0), 0);
	*va = a.out.device_va;
	assert_true(*va != 0);
	return h;
}

/* CQ @c's registers: counter at @va, LBW to @lbw with @id, @inc mode */
static size_t put_cq(void *cb, size_t off, uint32_t c, uint64_t va,
		     uint64_t lbw, uint32_t id, uint32_t inc)
{
	off = hpu_test_hl_put_msg_long(cb, off,
				       CQ_REG(HL_SM_CQ_BASE_ADDR_L_0, c),
				       (uint32_t)va, HL_PKT_CTL_MB);
	off = hpu_test_hl_put_msg_long(cb, off,
				       CQ_REG(HL_SM_CQ_BASE_ADDR_H_0, c),
				       (uint32_t)(va >> 32), HL_PKT_CTL_MB);
	off = hpu_test_hl_put_msg_long(cb, off, CQ_REG(HL_SM_CQ_SIZE_LOG2_0, c),
				       3, HL_PKT_CTL_MB);
	off = hpu_test_hl_put_msg_long(cb, off, CQ_REG(HL_SM_LBW_ADDR_L_0, c),
				       (uint32_t)lbw, HL_PKT_CTL_MB);
	off = hpu_test_hl_put_msg_long(cb, off, CQ_REG(HL_SM_LBW_ADDR_H_0, c),
				       (uint32_t)(lbw >> 32), HL_PKT_CTL_MB);
	off = hpu_test_hl_put_msg_long(cb, off, CQ_REG(HL_SM_LBW_DATA_0, c), id,
				       HL_PKT_CTL_MB);
	return hpu_test_hl_put_msg_long(cb, off, CQ_REG(HL_SM_CQ_INC_MODE_0, c),
					inc, HL_PKT_CTL_MB);
}

/* SOB SET 1, then monitor MON on SOB == 1 with CQ_EN | LBW_EN to CQ @c */
static size_t put_fire(void *cb, size_t off, uint32_t c, uint32_t payload)
{
	const uint32_t b = HL_MSG_SHORT_BASE_MON, r = HL_SM_MON_PAY_ADDRL_0;
	uint32_t arm = (SOB / 8) | (~(1U << (SOB % 8)) & 0xFFU) << 8 |
		       1U << 16 | 1U << 17;

	off = hpu_test_hl_put_short(cb, off, HL_MSG_SHORT_BASE_SOB, 4 * SOB, 1);
	off = hpu_test_hl_put_short(cb, off, b,
				    HL_SM_MON_CONFIG_0 - r + 4 * MON,
				    1U << 4 | 1U << 8);
	off = hpu_test_hl_put_short(cb, off, b, 4 * MON, c);
	off = hpu_test_hl_put_short(cb, off, b,
				    HL_SM_MON_PAY_ADDRH_0 - r + 4 * MON, 0);
	off = hpu_test_hl_put_short(
		cb, off, b, HL_SM_MON_PAY_DATA_0 - r + 4 * MON, payload);
	return hpu_test_hl_put_short(cb, off, b, HL_SM_MON_ARM_0 - r + 4 * MON,
				     arm);
}

/* Run f->cb[0, @size) on PDMA_0 stream 0; its end status */
static uint32_t run_cb(struct hpu_test_hfd_hl *f, size_t size)
{
	struct hl_wait_cs_out o;

	hpu_test_hfd_hl_wait_cs(
		f->ctx, hpu_test_hfd_hl_submit_cb(f, 0, 0, size, 0), &o);
	return o.status;
}

static uint64_t counter(struct hfd_ctx *ctx, uint64_t h, uint64_t idx)
{
	uint64_t v = ~0ULL;

	assert_int_equal(hfd_hl_cb_peek(ctx, h, idx * 8, 8, &v), 0);
	return v;
}

/*
 * A kernel-CQ waiter on IRQ, deferred, in @b: a fresh mapped CB of @size
 * bytes (its handle returned, its VA in @va), the counter at @off
 */
static uint64_t kcq_waiter(struct hpu_test_hfd_hl *f, uint32_t size,
			   uint64_t off, uint64_t target, uint64_t timeout_us,
			   struct box *b, union hl_wait_cs_args *a,
			   uint64_t *va)
{
	uint64_t h;

	box_init(b);
	h = mapped_cb(f->ctx, size, va);
	assert_int_equal(irq_wait(f->ctx, HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ,
				  IRQ, h, off, target, timeout_us, b, a),
			 HFD_IOCTL_DEFERRED);
	return h;
}

/* A waiter on CQ's interrupt is woken by the monitor's payload (101 >=
 * 100); a wait on a value already reached answers at once, one on a
 * value not reached with timeout 0 answers BUSY */
static void test_wake_on_monitor(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	union hl_wait_cs_args a;
	struct box b;
	uint64_t h, va;
	size_t off;

	h = kcq_waiter(f, 64, 1, 100, 60000000, &b, &a, &va);
	assert_int_equal(box_count(&b), 0);
	off = put_cq(f->cb, 0, CQ, va + 8, HL_PCIE_MSIX_DB, IRQ, 0);
	off = put_fire(f->cb, off, CQ, 101);
	assert_int_equal(run_cb(f, off), HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(box_wait(&b), 1);
	assert_int_equal(b.err, 0);
	assert_int_equal(b.a.out.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(counter(f->ctx, h, 1), 101);
	assert_int_equal(counter(f->ctx, h, 0), 0);

	/* reached already: no deferral even when allowed */
	assert_int_equal(irq_wait(f->ctx, HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ,
				  IRQ, h, 1, 101, 60000000, &b, &a),
			 0);
	assert_int_equal(a.out.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(irq_wait(f->ctx, HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ,
				  IRQ, h, 1, 102, 0, &b, &a),
			 0);
	assert_int_equal(a.out.status, HL_WAIT_CS_STATUS_BUSY);
	assert_int_equal(box_count(&b), 1);
}

/* Inc mode 1: +1 per fire; a waiter on "any CQ" for 3 wakes at the
 * third, one on another interrupt id is not woken (ends BUSY at its
 * timeout) */
static void test_inc_mode_any(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	union hl_wait_cs_args a;
	struct box any, other;
	uint64_t h, va;
	size_t off;
	int i;

	box_init(&any);
	box_init(&other);
	h = mapped_cb(f->ctx, 8, &va);
	assert_int_equal(irq_wait(f->ctx, HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ,
				  ANY_CQ, h, 0, 3, 60000000, &any, &a),
			 HFD_IOCTL_DEFERRED);
	assert_int_equal(irq_wait(f->ctx, HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ,
				  IRQ + 1, h, 0, 1, 1000, &other, &a),
			 HFD_IOCTL_DEFERRED);
	off = put_cq(f->cb, 0, CQ, va, HL_PCIE_MSIX_DB, IRQ, 1);
	off = put_fire(f->cb, off, CQ, 0);
	assert_int_equal(run_cb(f, off), HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(counter(f->ctx, h, 0), 1);
	for (i = 0; i < 2; i++) {
		assert_int_equal(box_count(&any), 0);
		off = put_fire(f->cb, 0, CQ, 0);
		assert_int_equal(run_cb(f, off), HL_WAIT_CS_STATUS_COMPLETED);
	}
	assert_int_equal(box_wait(&any), 1);
	assert_int_equal(any.err, 0);
	assert_int_equal(any.a.out.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(counter(f->ctx, h, 0), 3);
	/* the other id: not woken by these interrupts, BUSY at its end */
	assert_int_equal(box_wait(&other), 1);
	assert_int_equal(other.err, 0);
	assert_int_equal(other.a.out.status, HL_WAIT_CS_STATUS_BUSY);
}

/* A waiter whose value never comes: BUSY at its timeout, answer 0 */
static void test_timeout(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	union hl_wait_cs_args a;
	struct box b;
	uint64_t va;

	kcq_waiter(f, 8, 0, 1, 2000, &b, &a, &va);
	assert_int_equal(box_wait(&b), 1);
	assert_int_equal(b.err, 0);
	assert_int_equal(b.a.out.status, HL_WAIT_CS_STATUS_BUSY);
}

/* The release answers a waiter ABORTED (EIO), exactly once */
static void test_close_with_waiter(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	union hl_wait_cs_args a;
	struct box b;
	uint64_t va;

	kcq_waiter(f, 8, 0, 1, 60000000, &b, &a, &va);
	hfd_ctx_release(f->ctx);
	f->ctx = NULL;
	assert_int_equal(box_count(&b), 1);
	assert_int_equal(b.err, -EIO);
	assert_int_equal(b.a.out.status, HL_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(hpu_test_hfd_hl_ctx(f), 0);
}

/* Bad ids, flags, handles and addresses: refused, nothing kept */
static void test_bad_args(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	const uint32_t kcq = HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ;
	union hl_wait_cs_args a;
	uint64_t h, va, v = 42;
	struct box b;

	box_init(&b);
	h = mapped_cb(f->ctx, 16, &va);
	/* ids: past the user interrupts, "any decoder" (none modelled) */
	assert_int_equal(irq_wait(f->ctx, kcq,
				  HL_USER_IRQ_FIRST + HL_USER_IRQ_NUM, h, 0, 1,
				  1000, &b, &a),
			 -EINVAL);
	assert_int_equal(irq_wait(f->ctx, kcq, 0xFFE, h, 0, 1, 1000, &b, &a),
			 -EINVAL);
	/* timestamp registration and MULTI_CS with an interrupt */
	assert_int_equal(irq_wait(f->ctx,
				  kcq | HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT,
				  IRQ, h, 0, 1, 1000, &b, &a),
			 -EINVAL);
	assert_int_equal(irq_wait(f->ctx, HL_WAIT_CS_FLAGS_MULTI_CS, IRQ,
				  (uintptr_t)&v, 0, 1, 1000, &b, &a),
			 -EINVAL);
	/* a handle that is no CB, an index past it */
	assert_int_equal(irq_wait(f->ctx, kcq, IRQ, h + 0x1000, 0, 1, 1000, &b,
				  &a),
			 -EINVAL);
	assert_int_equal(irq_wait(f->ctx, kcq, IRQ, h, 2, 1, 1000, &b, &a),
			 -EINVAL);
	assert_int_equal(irq_wait(f->ctx, kcq, IRQ, h, 1ULL << 62, 1, 1000, &b,
				  &a),
			 -EINVAL);
	/* an address: unreadable, then a value reached and one not */
	assert_int_equal(irq_wait(f->ctx, 0, IRQ, 8, 0, 1, 1000, &b, &a),
			 -EFAULT);
	assert_int_equal(irq_wait(f->ctx, 0, IRQ, (uintptr_t)&v, 0, 42, 1000,
				  &b, &a),
			 0);
	assert_int_equal(a.out.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(
		irq_wait(f->ctx, 0, IRQ, (uintptr_t)&v, 0, 43, 0, &b, &a), 0);
	assert_int_equal(a.out.status, HL_WAIT_CS_STATUS_BUSY);
	/* interrupt flags without HL_WAIT_CS_FLAGS_INTERRUPT: a CS wait */
	memset(&a, 0, sizeof(a));
	a.in.seq = 1;
	a.in.flags = kcq;
	assert_int_equal(hpu_test_hfd_hl_ioctl(f->ctx, HL_IOCTL_WAIT_CS, &a,
					       sizeof(a), 0),
			 -EINVAL);
	a.in.flags = IRQ << 20;
	assert_int_equal(hpu_test_hfd_hl_ioctl(f->ctx, HL_IOCTL_WAIT_CS, &a,
					       sizeof(a), 0),
			 -EINVAL);
	assert_int_equal(box_count(&b), 0);
}

/* A CQ set up wrong: the monitor is a bad packet, the CS aborts and the
 * counter is not written */
static void test_bad_cq_aborts(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint64_t h, va;
	size_t off;

	h = mapped_cb(f->ctx, 8, &va);
	/* LBW not to the MSI-X doorbell */
	off = put_cq(f->cb, 0, CQ, va, HL_PCIE_MSIX_DB + 4, IRQ, 0);
	off = put_fire(f->cb, off, CQ, 5);
	assert_int_equal(run_cb(f, off), HL_WAIT_CS_STATUS_ABORTED);
	/* an interrupt id past the user ones */
	off = put_cq(f->cb, 0, CQ, va, HL_PCIE_MSIX_DB, HL_USER_IRQ_NUM, 0);
	off = put_fire(f->cb, off, CQ, 5);
	assert_int_equal(run_cb(f, off), HL_WAIT_CS_STATUS_ABORTED);
	/* a counter not 8-byte aligned, a CQ past the model's, inc mode 2 */
	off = put_cq(f->cb, 0, CQ, va + 4, HL_PCIE_MSIX_DB, IRQ, 0);
	off = put_fire(f->cb, off, CQ, 5);
	assert_int_equal(run_cb(f, off), HL_WAIT_CS_STATUS_ABORTED);
	off = put_fire(f->cb, 0, HL_SYNC_NUM_CQS, 5);
	assert_int_equal(run_cb(f, off), HL_WAIT_CS_STATUS_ABORTED);
	off = put_cq(f->cb, 0, CQ, va, HL_PCIE_MSIX_DB, IRQ, 2);
	assert_int_equal(run_cb(f, off), HL_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(counter(f->ctx, h, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wake_on_monitor, setup,
						hpu_test_hfd_hl_teardown),
		cmocka_unit_test_setup_teardown(test_inc_mode_any, setup,
						hpu_test_hfd_hl_teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup,
						hpu_test_hfd_hl_teardown),
		cmocka_unit_test_setup_teardown(test_close_with_waiter, setup,
						hpu_test_hfd_hl_teardown),
		cmocka_unit_test_setup_teardown(test_bad_args, setup,
						hpu_test_hfd_hl_teardown),
		cmocka_unit_test_setup_teardown(test_bad_cq_aborts, setup,
						hpu_test_hfd_hl_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
