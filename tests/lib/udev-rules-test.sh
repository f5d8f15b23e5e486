#!/bin/sh
# SPDX-License-Identifier: MIT
#
# udev-rules-test.sh - run "udevadm test" on hpu's udev rules against a
# fake sysfs of accel devices, in a private mount namespace:
#
#	unshare -m sh tests/lib/udev-rules-test.sh RULES_FILE
#
# /sys, /dev, /run, /etc/udev, the system rules directory and /etc/group
# are replaced by throwaway copies (udevadm test really creates the links
# and its database), so only RULES_FILE runs and nothing of the machine
# changes. Group "hpu" exists in the copy of /etc/group. Prints
# "HPU_GID=N", then for each device "### NAME" and udevadm's output.
set -eu

rules=$1
[ -f "$rules" ] || { echo "no rules file $rules" >&2; exit 2; }
tmp=$(mktemp -d /tmp/hpu-udev-test.XXXXXX)
cp "$rules" "$tmp/60-hpu.rules"
gid=$(awk -F: 'BEGIN { g = 4242 } { used[$3] = 1 }
	END { while (g in used) g++; print g }' /etc/group)
cp /etc/group "$tmp/group"
echo "hpu:x:$gid:" >>"$tmp/group"

mount --make-rprivate /
mount --bind "$tmp/group" /etc/group
mount -t tmpfs none /etc/udev
mkdir /etc/udev/rules.d
for d in /usr/lib/udev/rules.d /lib/udev/rules.d; do
	[ -d "$d" ] && mount -t tmpfs none "$d"
done
cp "$tmp/60-hpu.rules" /usr/lib/udev/rules.d/
mount -t tmpfs none /run
mount -t tmpfs none /dev
mknod -m 666 /dev/null c 1 3
mount -t tmpfs none /sys
rm -rf "$tmp"

# PCI function $1 bound to driver $2, module id $3 ("" for none)
pci_dev() {
	p=/sys/devices/pci0000:00/$1
	mkdir -p "$p" "/sys/bus/pci/drivers/$2"
	printf 'DRIVER=%s\nPCI_SLOT_NAME=%s\n' "$2" "$1" >"$p/uevent"
	echo "$1" >"$p/pci_addr"
	[ -z "$3" ] || echo "$3" >"$p/module_id"
	ln -s ../../../bus/pci "$p/subsystem"
	ln -s "../../../bus/pci/drivers/$2" "$p/driver"
}

# accel node $2 with minor $3 below PCI function $1
accel_node() {
	d=/sys/devices/pci0000:00/$1/accel/$2
	mkdir -p "$d" /sys/class/accel
	printf 'MAJOR=261\nMINOR=%s\nDEVNAME=accel/%s\n' "$3" "$2" >"$d/uevent"
	echo "261:$3" >"$d/dev"
	ln -s ../../../../../class/accel "$d/subsystem"
	ln -s "../../../$1" "$d/device"
	ln -s "../../devices/pci0000:00/$1/accel/$2" "/sys/class/accel/$2"
	echo "$d"
}

pci_dev 0000:19:00.0 habanalabs 3
pci_dev 0000:1a:00.0 ivpu ""
pci_dev 0000:1b:00.0 habanalabs ""
set -- \
	"$(accel_node 0000:19:00.0 accel0 0)" \
	"$(accel_node 0000:19:00.0 accel_controlD0 64)" \
	"$(accel_node 0000:1a:00.0 accel1 1)" \
	"$(accel_node 0000:1b:00.0 accel2 2)"

echo "HPU_GID=$gid"
for dev in "$@"; do
	echo "### ${dev##*/}"
	SYSTEMD_DEVICE_VERIFY_SYSFS=0 udevadm test --action=add "$dev" 2>&1 ||
		echo "udevadm test failed: $?"
done
