// SPDX-License-Identifier: MIT
/*
 * hpu_access.c - the message the tools print when a device node refuses
 * them (EACCES): which node, which group it needs, how to get in.
 */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpu_access.h"

/* getgrgid/getpwuid answer in static buffers: copy before the next call */
static const char *group_name(gid_t gid, char *buf, size_t len)
{
	struct group *gr = getgrgid(gid);

	if (gr)
		snprintf(buf, len, "%s", gr->gr_name);
	else
		snprintf(buf, len, "%u", (unsigned int)gid);
	return buf;
}

static const char *user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		snprintf(buf, len, "%s", pw->pw_name);
	else
		snprintf(buf, len, "%u", (unsigned int)uid);
	return buf;
}

const char *hpu_access_hint(const char *path, char *buf, size_t len)
{
	char gbuf[64], obuf[64], ubuf[64];
	const char *group, *owner, *me;
	struct stat st;

	if (stat(path, &st)) {
		snprintf(buf, len,
			 "%s: permission denied; ask an administrator to add "
			 "you to the group of the HPU device nodes "
			 "(docs/install.md)",
			 path);
		return buf;
	}
	group = group_name(st.st_gid, gbuf, sizeof(gbuf));
	owner = user_name(st.st_uid, obuf, sizeof(obuf));
	me = user_name(geteuid(), ubuf, sizeof(ubuf));
	snprintf(buf, len,
		 "%s: permission denied (mode %04o, owner %s, group %s): "
		 "user %s is not in group '%s'; an administrator can run "
		 "'usermod -aG %s %s' (then log in again), see docs/install.md",
		 path, (unsigned int)(st.st_mode & 07777), owner, group, me,
		 group, group, me);
	return buf;
}
