# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# daemon-lib.sh - start and stop hpu-fused on a temporary mount for the
# tools/run-* scripts. Sourced, not run.
#
# After hpu_daemon_start: HPU_DEV_DIR is exported and points at the mount,
# hpu_daemon_pid is the daemon. hpu_daemon_cleanup is safe to call at any
# time and more than once; callers install it as their EXIT trap.
# HPU_LOG_LEVEL sets the daemon's --log-level (default info).
#
# hpu_blas_export (called by hpu_daemon_start, and by tests/run-tests):
# exports the OPENBLAS_CORETYPE hpu's programs choose on this machine
# (hpu-fused --blas-coretype), so that every process of the run, the
# daemon, the tools and the test binaries that compare with an
# in-process OpenBLAS, computes on the same OpenBLAS core
# (docs/building.md, "OpenBLAS's core"). A set OPENBLAS_CORETYPE and
# HPU_BLAS_CORETYPE=keep are left alone.

: "${O:=build}"
hpu_bin=$O/bin
hpu_daemon_pid=
hpu_daemon_mount=
hpu_ready_timeout_s=${HPU_READY_TIMEOUT:-10}
hpu_stop_timeout_s=${HPU_STOP_TIMEOUT:-10}
hpu_log_level=${HPU_LOG_LEVEL:-info}

hpu_say() {
	printf '>>> %s\n' "$*"
}

hpu_is_mounted() {
	awk -v d="$1" '$5 == d { found = 1 } END { exit !found }' \
		/proc/self/mountinfo
}

hpu_blas_export() {
	local core

	[[ -z ${OPENBLAS_CORETYPE+set} ]] || return 0
	[[ ${HPU_BLAS_CORETYPE:-auto} != keep ]] || return 0
	if [[ ! -x $hpu_bin/hpu-fused ]]; then
		printf 'OpenBLAS core: not chosen (%s/hpu-fused is not built)\n' \
		       "$hpu_bin" >&2
		return 0
	fi
	core=$("$hpu_bin/hpu-fused" --blas-coretype) || core=
	if [[ -n $core ]]; then
		export OPENBLAS_CORETYPE=$core
		hpu_say "OPENBLAS_CORETYPE=$core (hpu-fused --blas-coretype)"
	fi
}

hpu_daemon_alive() {
	[[ -n $hpu_daemon_pid ]] && kill -0 "$hpu_daemon_pid" 2>/dev/null
}

# hpu_daemon_start NDEV TYPE: mount NDEV devices of TYPE, wait until ready
hpu_daemon_start() {
	local ndev=$1 type=$2 last tries

	if [[ ! -x $hpu_bin/hpu-fused ]]; then
		printf '%s/hpu-fused is not built (run make O=%s)\n' \
		       "$hpu_bin" "$O" >&2
		return 1
	fi
	[[ -e /dev/fuse ]] || printf 'warning: /dev/fuse does not exist\n' >&2
	hpu_blas_export

	hpu_daemon_mount=$(mktemp -d /tmp/hpu-run.XXXXXX) || return 1
	export HPU_DEV_DIR=$hpu_daemon_mount

	hpu_say "starting: hpu-fused --foreground --devices $ndev --type $type --mount $hpu_daemon_mount --log-level $hpu_log_level"
	# the daemon's own output, prefixed so it reads apart from ours
	"$hpu_bin/hpu-fused" --foreground --devices "$ndev" --type "$type" \
		--mount "$hpu_daemon_mount" --log-level "$hpu_log_level" \
		> >(sed -u 's/^/    [hpu-fused] /') 2>&1 &
	hpu_daemon_pid=$!

	last=$hpu_daemon_mount/hpu$((ndev - 1))
	for ((tries = 0; tries < hpu_ready_timeout_s * 20; tries++)); do
		if ! hpu_daemon_alive; then
			local rc=0

			wait "$hpu_daemon_pid" || rc=$?
			printf 'hpu-fused exited with status %d before it was ready\n' \
			       "$rc" >&2
			hpu_daemon_pid=
			return 1
		fi
		if hpu_is_mounted "$hpu_daemon_mount" && [[ -e $last ]]; then
			hpu_say "hpu-fused (pid $hpu_daemon_pid) ready after $((tries * 50)) ms: HPU_DEV_DIR=$HPU_DEV_DIR"
			return 0
		fi
		sleep 0.05
	done
	printf 'hpu-fused did not become ready within %d s\n' \
	       "$hpu_ready_timeout_s" >&2
	return 1
}

# hpu_daemon_stop: SIGTERM, reap, check the mount is gone; 0 when clean
hpu_daemon_stop() {
	local status=0 tries

	if hpu_daemon_alive; then
		hpu_say "stopping hpu-fused (SIGTERM to pid $hpu_daemon_pid)"
		kill -TERM "$hpu_daemon_pid"
		for ((tries = 0; tries < hpu_stop_timeout_s * 20; tries++)); do
			hpu_daemon_alive || break
			sleep 0.05
		done
		if hpu_daemon_alive; then
			printf 'hpu-fused did not stop within %d s: SIGKILL\n' \
			       "$hpu_stop_timeout_s" >&2
			kill -KILL "$hpu_daemon_pid"
		fi
		wait "$hpu_daemon_pid" || status=$?
		hpu_say "hpu-fused exited with status $status"
	fi
	hpu_daemon_pid=
	if [[ -n $hpu_daemon_mount ]] && hpu_is_mounted "$hpu_daemon_mount"; then
		printf '%s is still mounted: unmounting it\n' \
		       "$hpu_daemon_mount" >&2
		fusermount3 -u -z "$hpu_daemon_mount" 2>/dev/null ||
			umount -l "$hpu_daemon_mount" || true
		status=1
	elif [[ -n $hpu_daemon_mount ]]; then
		hpu_say "$hpu_daemon_mount is unmounted"
	fi
	return "$status"
}

hpu_daemon_cleanup() {
	hpu_daemon_stop >/dev/null 2>&1
	if [[ -n $hpu_daemon_mount ]]; then
		rmdir "$hpu_daemon_mount" 2>/dev/null
		hpu_daemon_mount=
	fi
	return 0
}
