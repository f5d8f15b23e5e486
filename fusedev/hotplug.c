// SPDX-License-Identifier: MIT
/*
 * hotplug.c - the hot-plug control file driver/hotplug (commands "add
 * [TYPE]" and "remove N") and the change log driver/events that clients
 * poll to learn about added and removed devices (docs/hotplug.md).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpu_fused.h"

/*
 * Serialises hot-plug commands with the /dev link each one changes, so
 * links follow the commands in order.
 */
static pthread_mutex_t cmd_lock = PTHREAD_MUTEX_INITIALIZER;

/**
 * struct hfd_event_reader - an open driver/events
 * @cursor: sequence number of the last change this file returned
 * @ph: poll handle to notify at the next change, or NULL
 * @next: next open reader (protected by the driver's ev_lock)
 * @prev: previous open reader (protected by the driver's ev_lock)
 */
struct hfd_event_reader {
	uint64_t cursor;
	struct fuse_pollhandle *ph;
	struct hfd_event_reader *next;
	struct hfd_event_reader *prev;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Splits @s into at most @max blank-separated words; -EINVAL beyond. */
static int split_words(char *s, char **words, int max)
{
	int n = 0;

	for (;;) {
		while (is_blank(*s))
			*s++ = '\0';
		if (!*s)
			return n;
		if (n == max)
			return -EINVAL;
		words[n++] = s;
		while (*s && !is_blank(*s))
			s++;
	}
}

/* A device index: decimal, no sign, no leading zero; -1 when not one */
static int parse_index(const char *s)
{
	unsigned long v = 0;
	const char *p;

	if (!*s || (s[0] == '0' && s[1]))
		return -1;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (unsigned long)(*p - '0');
		if (v >= HFD_MAX_DEVICES)
			return -1;
	}
	return (int)v;
}

/* One command; hfd_hotplug_command() below says what it does */
static int run_command(struct hfd_driver *drv, const char *cmd, size_t len,
		       char *msg, size_t msg_len, char *action,
		       unsigned int *index)
{
	char buf[HFD_HOTPLUG_CMD_MAX + 1];
	char *words[3];
	int n, idx, ret;

	if (len && cmd[len - 1] == '\n')
		len--;
	if (len > HFD_HOTPLUG_CMD_MAX) {
		snprintf(msg, msg_len, "error: command longer than %d bytes\n",
			 HFD_HOTPLUG_CMD_MAX);
		return -EINVAL;
	}
	if (memchr(cmd, '\0', len) || memchr(cmd, '\n', len)) {
		snprintf(msg, msg_len,
			 "error: one command per write, one line of text\n");
		return -EINVAL;
	}
	memcpy(buf, cmd, len);
	buf[len] = '\0';
	n = split_words(buf, words, 2);
	if (n < 0) {
		snprintf(msg, msg_len, "error: too many words\n");
		return -EINVAL;
	}
	if (!n) {
		snprintf(msg, msg_len,
			 "error: expected 'add [TYPE]' or 'remove N'\n");
		return -EINVAL;
	}
	if (!strcmp(words[0], "add")) {
		ret = hfd_driver_hot_add(drv, n == 2 ? words[1] : NULL, index);
		if (ret == -ENOENT) {
			snprintf(
				msg, msg_len,
				"error: unknown device type '%.20s' (gaudi, gaudi2 or gaudi3)\n",
				words[1]);
			return -EINVAL;
		}
		if (ret == -ENOSPC) {
			snprintf(msg, msg_len,
				 "error: all %d device slots are in use\n",
				 HFD_MAX_DEVICES);
			return ret;
		}
		if (ret) {
			snprintf(msg, msg_len,
				 "error: cannot add a device: %s\n",
				 strerror(-ret));
			return ret;
		}
		*action = 'a';
		snprintf(msg, msg_len, "add %u\n", *index);
		return 0;
	}
	if (!strcmp(words[0], "remove")) {
		idx = n == 2 ? parse_index(words[1]) : -1;
		if (idx < 0) {
			snprintf(msg, msg_len,
				 "error: 'remove' needs a device index 0..%d\n",
				 HFD_MAX_DEVICES - 1);
			return -EINVAL;
		}
		ret = hfd_driver_hot_remove(drv, (unsigned int)idx);
		if (ret) {
			snprintf(msg, msg_len, "error: no device hpu%d\n", idx);
			return ret;
		}
		*action = 'r';
		*index = (unsigned int)idx;
		snprintf(msg, msg_len, "remove %d\n", idx);
		return 0;
	}
	snprintf(msg, msg_len,
		 "error: unknown command '%.20s' (add [TYPE], remove N)\n",
		 words[0]);
	return -EINVAL;
}

/**
 * hfd_hotplug_command() - run one command written to driver/hotplug
 * @drv: driver
 * @cmd: the bytes written (not NUL-terminated)
 * @len: bytes at @cmd
 * @msg: receives the answer: "add N\n", "remove N\n" or "error: ...\n"
 * @msg_len: bytes at @msg
 * @action: receives 'a' (added) or 'r' (removed) on success
 * @index: receives the device index on success
 *
 * Commands (one line, an optional final newline, blanks between words):
 * "add" (a device of the daemon's --type), "add TYPE" (gaudi, gaudi2,
 * gaudi3), "remove N". Commands run one at a time, each with the update
 * of its device's hpuN link (hfd_devlinks_hotplug()).
 *
 * Return: 0; -EINVAL for a malformed command (too long, NUL bytes, more
 * than one line, unknown verb, missing or extra words, an index that is
 * not 0..63 written plainly) or an unknown TYPE; -ENODEV when no device
 * has index N; -ENOSPC when every slot is taken; -errno of the model.
 */
int hfd_hotplug_command(struct hfd_driver *drv, const char *cmd, size_t len,
			char *msg, size_t msg_len, char *action,
			unsigned int *index)
{
	int ret;

	pthread_mutex_lock(&cmd_lock);
	ret = run_command(drv, cmd, len, msg, msg_len, action, index);
	if (!ret)
		hfd_devlinks_hotplug(*action, *index);
	pthread_mutex_unlock(&cmd_lock);
	return ret;
}

/**
 * hfd_hotplug_log() - record a device change and wake the readers of
 * driver/events
 * @drv: driver
 * @action: "add", "remove" or "change" (a string literal)
 * @index: device index
 */
void hfd_hotplug_log(struct hfd_driver *drv, const char *action,
		     unsigned int index)
{
	struct hfd_hotplug_rec *rec;
	struct hfd_event_reader *r;

	pthread_mutex_lock(&drv->ev_lock);
	drv->ev_seq++;
	rec = &drv->ev_log[drv->ev_seq % HFD_HOTPLUG_LOG_LEN];
	rec->seq = drv->ev_seq;
	rec->action = action;
	rec->index = index;
	for (r = drv->ev_readers; r; r = r->next) {
		if (!r->ph)
			continue;
		fuse_lowlevel_notify_poll(r->ph);
		fuse_pollhandle_destroy(r->ph);
		r->ph = NULL;
	}
	pthread_mutex_unlock(&drv->ev_lock);
}

/**
 * hfd_event_reader_open() - a reader of the changes from now on
 * @drv: driver
 * @out: receives the reader
 *
 * Return: 0 or -ENOMEM.
 */
int hfd_event_reader_open(struct hfd_driver *drv, struct hfd_event_reader **out)
{
	struct hfd_event_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	pthread_mutex_lock(&drv->ev_lock);
	r->cursor = drv->ev_seq;
	r->next = drv->ev_readers;
	if (drv->ev_readers)
		drv->ev_readers->prev = r;
	drv->ev_readers = r;
	pthread_mutex_unlock(&drv->ev_lock);
	*out = r;
	return 0;
}

static void reader_unlink_locked(struct hfd_driver *drv,
				 struct hfd_event_reader *r)
{
	HPU_ASSERT_HELD(&drv->ev_lock);
	if (r->prev)
		r->prev->next = r->next;
	else
		drv->ev_readers = r->next;
	if (r->next)
		r->next->prev = r->prev;
	if (r->ph)
		fuse_pollhandle_destroy(r->ph);
}

/**
 * hfd_event_reader_close() - release an open driver/events
 * @drv: driver
 * @r: reader
 */
void hfd_event_reader_close(struct hfd_driver *drv, struct hfd_event_reader *r)
{
	pthread_mutex_lock(&drv->ev_lock);
	reader_unlink_locked(drv, r);
	pthread_mutex_unlock(&drv->ev_lock);
	free(r);
}

/**
 * hfd_event_reader_read() - the changes the reader has not seen, as lines
 * "SEQ ACTION INDEX\n"; "SEQ overflow COUNT\n" first when COUNT changes
 * were dropped from the log before the reader got them
 * @drv: driver
 * @r: reader
 * @buf: destination
 * @size: bytes at @buf; only whole lines are returned
 *
 * Return: bytes written, -EAGAIN when there is nothing new, -EINVAL when
 * @size cannot hold one line.
 */
int hfd_event_reader_read(struct hfd_driver *drv, struct hfd_event_reader *r,
			  char *buf, size_t size)
{
	const struct hfd_hotplug_rec *rec;
	size_t used = 0;
	char line[64];
	uint64_t oldest;
	int n, ret;

	pthread_mutex_lock(&drv->ev_lock);
	if (r->cursor == drv->ev_seq) {
		ret = -EAGAIN;
		goto out_unlock;
	}
	oldest = drv->ev_seq > HFD_HOTPLUG_LOG_LEN ?
			 drv->ev_seq - HFD_HOTPLUG_LOG_LEN + 1 :
			 1;
	if (r->cursor + 1 < oldest) {
		n = snprintf(line, sizeof(line), "%llu overflow %llu\n",
			     (unsigned long long)(oldest - 1),
			     (unsigned long long)(oldest - 1 - r->cursor));
		if ((size_t)n > size) {
			ret = -EINVAL;
			goto out_unlock;
		}
		memcpy(buf, line, (size_t)n);
		used = (size_t)n;
		r->cursor = oldest - 1;
	}
	while (r->cursor < drv->ev_seq) {
		rec = &drv->ev_log[(r->cursor + 1) % HFD_HOTPLUG_LOG_LEN];
		n = snprintf(line, sizeof(line), "%llu %s %u\n",
			     (unsigned long long)rec->seq, rec->action,
			     rec->index);
		if (used + (size_t)n > size)
			break;
		memcpy(buf + used, line, (size_t)n);
		used += (size_t)n;
		r->cursor++;
	}
	ret = used ? (int)used : -EINVAL;
out_unlock:
	pthread_mutex_unlock(&drv->ev_lock);
	return ret;
}

/**
 * hfd_event_reader_poll() - readiness of an open driver/events
 * @drv: driver
 * @r: reader
 * @ph: poll handle to notify at the next change, or NULL; taken over
 *
 * Return: POLLIN | POLLRDNORM when changes are unread, else 0.
 */
unsigned int hfd_event_reader_poll(struct hfd_driver *drv,
				   struct hfd_event_reader *r,
				   struct fuse_pollhandle *ph)
{
	struct fuse_pollhandle *old = NULL;
	unsigned int revents = 0;

	pthread_mutex_lock(&drv->ev_lock);
	if (r->cursor != drv->ev_seq)
		revents = POLLIN | POLLRDNORM;
	if (ph) {
		old = r->ph;
		r->ph = ph;
	}
	pthread_mutex_unlock(&drv->ev_lock);
	if (old)
		fuse_pollhandle_destroy(old);
	return revents;
}

/**
 * hfd_event_readers_fini() - free the readers whose RELEASE never came
 * @drv: driver (no request may be running)
 */
void hfd_event_readers_fini(struct hfd_driver *drv)
{
	struct hfd_event_reader *r;

	/* nothing else runs, but the unlink's lock rule holds here too */
	pthread_mutex_lock(&drv->ev_lock);
	while ((r = drv->ev_readers)) {
		reader_unlink_locked(drv, r);
		free(r);
	}
	pthread_mutex_unlock(&drv->ev_lock);
}
