/* SPDX-License-Identifier: MIT */
/*
 * hpu_fused_uaccess.h - access to client memory (uaccess.c)
 * and its bound (uaccess_guard.c).
 *
 * Part of hpu_fused.h (the driver core's internal interface), which
 * includes every part; a file may include just the parts it uses.
 */
#ifndef HPU_FUSED_UACCESS_H
#define HPU_FUSED_UACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ------------------------------------------------------------------ */
/* User memory (uaccess.c)                                             */
/* ------------------------------------------------------------------ */

int hfd_copy_from_user(pid_t pid, void *dst, uint64_t uaddr, size_t len);
int hfd_copy_to_user(pid_t pid, uint64_t uaddr, const void *src, size_t len);
int hfd_pidfd_open(pid_t tgid);
bool hfd_pidfd_alive(int pidfd);
int hfd_user_range_mapped(pid_t tgid, uint64_t uaddr, uint64_t len);
int hfd_user_probe(pid_t tid, uint64_t uaddr, uint64_t len);
void hfd_uaccess_set_mount_dev(dev_t dev);

/* The bound on client memory accesses (uaccess_guard.c) */
int hfd_uaccess_guard_start(uint32_t timeout_ms, void (*abandon)(void *token));
void hfd_uaccess_guard_stop(void);
uint64_t hfd_uaccess_timeout_ms(void);
void hfd_uaccess_begin_request(void *token, pid_t tid, uid_t uid);
void hfd_uaccess_begin_task(pid_t tid, pid_t tgid, uid_t uid);
void hfd_uaccess_set_hook(void (*hook)(void *arg), void *arg);
bool hfd_uaccess_end_request(void);
bool hfd_uaccess_request_dead(void);
int hfd_uaccess_enter(void);
int hfd_uaccess_exit(void);
void hfd_uaccess_guard_stats(uint64_t *now, uint64_t *ever, uint64_t *refused);
void hfd_uaccess_guard_waits(uint64_t *now, uint64_t *ever);

#endif /* HPU_FUSED_UACCESS_H */
