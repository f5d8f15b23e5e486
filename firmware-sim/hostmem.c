// SPDX-License-Identifier: MIT
/*
 * hostmem.c - every access of the model to a client's pageable host memory
 * (host mappings made by map_host): DMA, MEMSET, monitor payloads and the
 * probe of map_host, each bounded in time and tied to the client's pidfd.
 *
 * The accesses themselves run in the access pool of hostmem_pool.c,
 * which bounds them and checks the owner's pidfd right before each
 * call; this file checks it again after the call (hostmem_pool.c,
 * "Identity") and chooses how the bytes travel.
 *
 * Speed. A transfer into or out of device memory goes zero-copy between
 * the client and the pool (the pin makes that safe). Memory that cannot
 * be pinned (shared host memory of map_shared, the caller's stack, a
 * per-thread bounce buffer) goes through the request's own 64 KiB buffer.
 * Each access costs one hand-off to an access thread and back.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "hostmem.h"

/* Copy @len bytes at offset @off of an iovec array to or from @buf */
static void iov_copy(const struct iovec *iov, unsigned int niov, uint64_t off,
		     uint8_t *buf, uint64_t len, bool to_buf)
{
	unsigned int i;

	for (i = 0; i < niov && len; i++) {
		uint64_t l = iov[i].iov_len, c;
		uint8_t *p = iov[i].iov_base;

		if (off >= l) {
			off -= l;
			continue;
		}
		c = l - off < len ? l - off : len;
		if (to_buf)
			memcpy(buf, p + off, c);
		else
			memcpy(p + off, buf, c);
		buf += c;
		len -= c;
		off = 0;
	}
}

/* Zero the first @len bytes of an iovec array (a read to discard) */
static void iov_zero(const struct iovec *iov, unsigned int niov, uint64_t len)
{
	unsigned int i;

	for (i = 0; i < niov && len; i++) {
		uint64_t c = iov[i].iov_len < len ? iov[i].iov_len : len;

		memset(iov[i].iov_base, 0, c);
		len -= c;
	}
}

/* Zero-copy between the client and @local's memory */
static uint64_t copy_direct(struct hpu_fw_as *as,
			    const struct hpusim_mapping *map,
			    uint64_t host_addr, const struct iovec *iov,
			    unsigned int niov, uint64_t len, bool to_host,
			    struct hpu_fw_mem *local, const bool *stop)
{
	struct hm_req *req = hpusim_hm_req_get();
	int64_t n;

	if (!req)
		return 0;
	req->op = to_host ? HM_WRITE : HM_READ;
	req->pid = map->pid;
	req->pidfd = map->pidfd;
	req->host_addr = host_addr;
	req->len = len;
	memcpy(req->iov, iov, niov * sizeof(*iov));
	req->niov = niov;
	n = hpusim_hm_run(as->hostmem, req, stop, local);
	if (n <= 0)
		return 0;
	/* the owner is gone: its pid may be someone else's */
	if (hpusim_hm_pidfd_dead(map->pidfd)) {
		if (!to_host)
			iov_zero(iov, niov, (uint64_t)n);
		return 0;
	}
	return (uint64_t)n;
}

/* Through the request's own buffer, HM_BOUNCE bytes per access */
static uint64_t copy_bounced(struct hpu_fw_as *as,
			     const struct hpusim_mapping *map,
			     uint64_t host_addr, const struct iovec *iov,
			     unsigned int niov, uint64_t len, bool to_host,
			     const bool *stop)
{
	uint64_t done = 0, piece;
	struct hm_req *req;
	int64_t n;

	while (done < len) {
		req = hpusim_hm_req_get();
		if (!req)
			break;
		if (!req->bounce)
			req->bounce = malloc(HM_BOUNCE);
		if (!req->bounce)
			break;
		piece = len - done < HM_BOUNCE ? len - done : HM_BOUNCE;
		if (to_host)
			iov_copy(iov, niov, done, req->bounce, piece, true);
		req->op = to_host ? HM_WRITE : HM_READ;
		req->pid = map->pid;
		req->pidfd = map->pidfd;
		req->host_addr = host_addr + done;
		req->len = piece;
		req->iov[0].iov_base = req->bounce;
		req->iov[0].iov_len = piece;
		req->niov = 1;
		n = hpusim_hm_run(as->hostmem, req, stop, NULL);
		if (n <= 0 || hpusim_hm_pidfd_dead(map->pidfd))
			break; /* what it read is never copied out */
		if (!to_host)
			iov_copy(iov, niov, done, req->bounce, (uint64_t)n,
				 false);
		done += (uint64_t)n;
		if ((uint64_t)n < piece)
			break;
	}
	return done;
}

uint64_t hpusim_host_copyv(struct hpu_fw_as *as,
			   const struct hpusim_mapping *map, uint64_t host_addr,
			   const struct iovec *iov, unsigned int niov,
			   bool to_host, struct hpu_fw_mem *local,
			   const bool *stop)
{
	uint64_t len = 0;
	unsigned int i;

	if (niov > HPUSIM_DMA_IOV)
		niov = HPUSIM_DMA_IOV;
	for (i = 0; i < niov; i++)
		len += iov[i].iov_len;
	if (!len)
		return 0;
	if (local)
		return copy_direct(as, map, host_addr, iov, niov, len, to_host,
				   local, stop);
	return copy_bounced(as, map, host_addr, iov, niov, len, to_host, stop);
}

uint64_t hpusim_host_copy(struct hpu_fw_as *as,
			  const struct hpusim_mapping *map, uint64_t host_addr,
			  uint8_t *ptr, uint64_t len, bool to_host,
			  struct hpu_fw_mem *local, const bool *stop)
{
	struct iovec iov = { ptr, len };

	return hpusim_host_copyv(as, map, host_addr, &iov, 1, to_host, local,
				 stop);
}

int hpusim_host_probe(struct hpu_fw_as *as, const struct hpu_fw_host_range *r)
{
	struct hm_req *req;
	int64_t n;

	if (hpusim_hm_pidfd_dead(r->pidfd))
		return -EFAULT;
	req = hpusim_hm_req_get();
	if (!req)
		return -ENOMEM;
	req->op = HM_PROBE;
	req->pid = r->pid;
	req->pidfd = r->pidfd;
	req->host_addr = r->addr;
	req->len = r->size;
	req->niov = 0;
	n = hpusim_hm_run(as->hostmem, req, NULL, NULL);
	if (n || hpusim_hm_pidfd_dead(r->pidfd))
		return -EFAULT;
	return 0;
}
