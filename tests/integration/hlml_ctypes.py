#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Drive libhlml with the standard library's ctypes only, as an HLML user
would: every function of hlml.h is called, with good and bad arguments.

    hlml_ctypes.py LIBHLML

Prints one line per device for test_hlml_ctypes.c to compare with
libhpudrv:  DEV INDEX BUS_ID UUID SERIAL NAME MEM_TOTAL
and "OK" at the end; exits 1 with the failed checks on stderr otherwise.
"""
import ctypes as C
import sys

SUCCESS, UNINIT, INVAL, NOTSUP = 0, 1, 2, 3
NOT_FOUND, INSUFF, TIMEOUT = 6, 7, 10
PCI_ADDR_LEN, PCI_LINK_INFO_LEN, HL_FIELD_MAX_SIZE = 15, 10, 32
MAC_MAX = 48


class PciCap(C.Structure):
    _fields_ = [("link_speed", C.c_char * PCI_LINK_INFO_LEN),
                ("link_width", C.c_char * PCI_LINK_INFO_LEN)]


class PciInfo(C.Structure):
    _fields_ = [("bus", C.c_uint), ("bus_id", C.c_char * PCI_ADDR_LEN),
                ("device", C.c_uint), ("domain", C.c_uint),
                ("pci_device_id", C.c_uint), ("caps", PciCap)]


class Memory(C.Structure):
    _fields_ = [("free", C.c_ulonglong), ("total", C.c_ulonglong),
                ("used", C.c_ulonglong)]


class Util(C.Structure):
    _fields_ = [("aip", C.c_uint)]


class Pcb(C.Structure):
    _fields_ = [("pcb_ver", C.c_char * HL_FIELD_MAX_SIZE),
                ("pcb_assembly_ver", C.c_char * HL_FIELD_MAX_SIZE)]


class EventData(C.Structure):
    _fields_ = [("device", C.c_void_p), ("event_type", C.c_ulonglong)]


class MacInfo(C.Structure):
    _fields_ = [("addr", C.c_ubyte * 6), ("id", C.c_int)]


class Violation(C.Structure):
    _fields_ = [("reference_time", C.c_ulonglong),
                ("violation_time", C.c_ulonglong)]


class RowAddr(C.Structure):
    _fields_ = [("hbm_idx", C.c_uint8), ("pc", C.c_uint8), ("sid", C.c_uint8),
                ("bank_idx", C.c_uint8), ("row_addr", C.c_uint16)]


class NicStats(C.Structure):
    _fields_ = [("port", C.c_uint32), ("str_buf", C.c_char_p),
                ("val_buf", C.POINTER(C.c_uint64)),
                ("num_of_counters_out", C.POINTER(C.c_uint32))]


failures = []


def check(what, got, want):
    ok = got in want if isinstance(want, (tuple, list, set)) else got == want
    if not ok:
        failures.append("%s: got %r, want %r" % (what, got, want))


def main():
    lib = C.CDLL(sys.argv[1])
    lib.hlml_device_get_handle_by_index.argtypes = [C.c_uint, C.POINTER(C.c_void_p)]
    lib.hlml_device_get_handle_by_UUID.argtypes = [C.c_char_p, C.POINTER(C.c_void_p)]
    lib.hlml_device_get_handle_by_pci_bus_id.argtypes = [C.c_char_p, C.POINTER(C.c_void_p)]
    lib.hlml_device_register_events.argtypes = [C.c_void_p, C.c_ulonglong, C.c_void_p]
    lib.hlml_event_set_free.argtypes = [C.c_void_p]
    lib.hlml_event_set_wait.argtypes = [C.c_void_p, C.POINTER(EventData), C.c_uint]

    count = C.c_uint()
    check("count before init", lib.hlml_device_get_count(C.byref(count)), UNINIT)
    check("init", lib.hlml_init(), SUCCESS)
    check("init_with_flags", lib.hlml_init_with_flags(0), SUCCESS)
    check("count", lib.hlml_device_get_count(C.byref(count)), SUCCESS)
    check("count NULL", lib.hlml_device_get_count(None), INVAL)
    h = C.c_void_p()
    check("handle past count", lib.hlml_device_get_handle_by_index(count.value, C.byref(h)),
          NOT_FOUND)

    buf = C.create_string_buffer(256)
    check("hlml version", lib.hlml_get_hlml_version(buf, 256), SUCCESS)
    check("driver version", lib.hlml_get_driver_version(buf, 256), SUCCESS)

    for i in range(count.value):
        check("handle %d" % i, lib.hlml_device_get_handle_by_index(i, C.byref(h)), SUCCESS)
        d = h

        def s(fn, size=256):
            b = C.create_string_buffer(size)
            r = getattr(lib, fn)(d, b, size)
            return r, b.value.decode()

        r, name = s("hlml_device_get_name")
        check("name", r, SUCCESS)
        r, uuid = s("hlml_device_get_uuid", HL_FIELD_MAX_SIZE)
        check("uuid", r, SUCCESS)
        r, serial = s("hlml_device_get_serial", HL_FIELD_MAX_SIZE)
        check("serial", r, SUCCESS)
        check("short name", s("hlml_device_get_name", 2)[0], INSUFF)
        check("serial_number", s("hlml_get_serial_number")[1], serial)
        check("model_number", s("hlml_get_model_number")[0], SUCCESS)
        check("fit", s("hlml_get_firmware_fit_version")[0], SUCCESS)
        for fn in ("hlml_get_firmware_spi_version", "hlml_get_fw_boot_version",
                   "hlml_get_fw_os_version", "hlml_get_cpld_version"):
            check(fn, s(fn)[0], NOTSUP)

        h2 = C.c_void_p()
        check("by uuid", lib.hlml_device_get_handle_by_UUID(uuid.encode(), C.byref(h2)),
              SUCCESS)
        check("by uuid same", h2.value, d.value)
        pci = PciInfo()
        check("pci", lib.hlml_device_get_pci_info(d, C.byref(pci)), SUCCESS)
        check("by bus id", lib.hlml_device_get_handle_by_pci_bus_id(pci.bus_id, C.byref(h2)),
              SUCCESS)
        check("by bus id same", h2.value, d.value)

        mem = Memory()
        check("memory", lib.hlml_device_get_memory_info(d, C.byref(mem)), SUCCESS)
        check("memory sum", mem.used + mem.free, mem.total)
        util = Util()
        check("util", lib.hlml_device_get_utilization_rates(d, C.byref(util)), SUCCESS)
        u = C.c_uint()
        for t in range(4):
            check("clock %d" % t, lib.hlml_device_get_clock_info(d, t, C.byref(u)), SUCCESS)
            check("max clock %d" % t, lib.hlml_device_get_max_clock_info(d, t, C.byref(u)),
                  SUCCESS)
        check("clock 4", lib.hlml_device_get_clock_info(d, 4, C.byref(u)), INVAL)
        for t in (0, 1):
            check("temp %d" % t, lib.hlml_device_get_temperature(d, t, C.byref(u)), SUCCESS)
        check("temp other", lib.hlml_device_get_temperature(d, 2, C.byref(u)), NOTSUP)
        for t in (0, 1, 3):
            check("threshold %d" % t,
                  lib.hlml_device_get_temperature_threshold(d, t, C.byref(u)), SUCCESS)
        check("threshold mem", lib.hlml_device_get_temperature_threshold(d, 2, C.byref(u)),
              NOTSUP)
        check("persistence", lib.hlml_device_get_persistence_mode(d, C.byref(u)), NOTSUP)
        check("pstate", lib.hlml_device_get_performance_state(d, C.byref(u)), SUCCESS)
        check("pstate value", u.value, 0)
        check("power", lib.hlml_device_get_power_usage(d, C.byref(u)), SUCCESS)
        check("power limit",
              lib.hlml_device_get_power_management_default_limit(d, C.byref(u)), SUCCESS)
        ull = C.c_ulonglong()
        check("energy", lib.hlml_device_get_total_energy_consumption(d, C.byref(ull)), SUCCESS)
        check("throttle",
              lib.hlml_device_get_current_clocks_throttle_reasons(d, C.byref(ull)), SUCCESS)
        cur, pend = C.c_uint(), C.c_uint()
        check("ecc mode", lib.hlml_device_get_ecc_mode(d, C.byref(cur), C.byref(pend)), SUCCESS)
        check("ecc on", cur.value, 1)
        check("ecc total", lib.hlml_device_get_total_ecc_errors(d, 1, 0, C.byref(ull)), SUCCESS)
        check("mem errors",
              lib.hlml_device_get_memory_error_counter(d, 0, 1, 1, C.byref(ull)), SUCCESS)
        check("minor", lib.hlml_device_get_minor_number(d, C.byref(u)), SUCCESS)
        check("minor value", u.value, i)
        rev = C.c_int()
        check("revision", lib.hlml_device_get_hl_revision(d, C.byref(rev)), SUCCESS)
        check("pcb", lib.hlml_device_get_pcb_info(d, C.byref(Pcb())), NOTSUP)
        check("module", lib.hlml_device_get_module_id(d, C.byref(u)), SUCCESS)
        check("board", lib.hlml_device_get_board_id(d, C.byref(u)), SUCCESS)
        check("pcie tx", lib.hlml_device_get_pcie_throughput(d, 0, C.byref(u)), NOTSUP)
        check("pcie replay", lib.hlml_device_get_pcie_replay_counter(d, C.byref(u)), SUCCESS)
        check("pcie gen", lib.hlml_device_get_curr_pcie_link_generation(d, C.byref(u)), SUCCESS)
        check("pcie width", lib.hlml_device_get_curr_pcie_link_width(d, C.byref(u)), SUCCESS)

        macs = (MacInfo * MAC_MAX)()
        n = C.c_uint()
        check("mac info", lib.hlml_device_get_mac_info(d, macs, MAC_MAX, 0, C.byref(n)),
              SUCCESS)
        check("mac count", n.value > 0, True)
        check("mac local", macs[0].addr[0], 2)
        mask, ext = (C.c_uint64 * 2)(), (C.c_uint64 * 2)()
        check("mac addr info", lib.hlml_get_mac_addr_info(d, mask, ext), SUCCESS)
        check("ports", bin(mask[0]).count("1"), n.value)
        up = C.c_bool()
        check("link", lib.hlml_nic_get_link(d, 0, C.byref(up)), SUCCESS)
        check("link up", up.value, True)
        check("nic stats", lib.hlml_nic_get_statistics(d, C.byref(NicStats())), NOTSUP)

        words = 16
        cpus = (C.c_ulong * words)()
        check("cpu affinity", lib.hlml_device_get_cpu_affinity(d, words, cpus), SUCCESS)
        check("some cpu", any(cpus), True)
        check("cpu scope", lib.hlml_device_get_cpu_affinity_within_scope(d, words, cpus, 1),
              SUCCESS)
        check("cpu scope bad", lib.hlml_device_get_cpu_affinity_within_scope(d, words, cpus, 9),
              INVAL)
        check("mem affinity", lib.hlml_device_get_memory_affinity(d, words, cpus, 0), SUCCESS)
        check("set affinity", lib.hlml_device_set_cpu_affinity(d), SUCCESS)
        check("clear affinity", lib.hlml_device_clear_cpu_affinity(d), SUCCESS)
        check("violation", lib.hlml_device_get_violation_status(d, 0, C.byref(Violation())),
              NOTSUP)
        rows = (RowAddr * 32)()
        n.value = 32
        check("rows", lib.hlml_device_get_replaced_rows(d, 1, C.byref(n), rows), SUCCESS)
        check("rows none", n.value, 0)
        check("rows pending",
              lib.hlml_device_get_replaced_rows_pending_status(d, C.byref(u)), SUCCESS)
        check("err inject bad", lib.hlml_device_err_inject(d, 5), INVAL)
        # ABI 1.4: the die overheats (DEBUG HPU_FAULT_THERMAL); nothing
        # after this reads the device's clock or temperature
        check("err inject thermal", lib.hlml_device_err_inject(d, 4), SUCCESS)

        print("DEV %d %s %s %s %s %d" % (i, pci.bus_id.decode(), uuid, serial,
                                          name.replace(" ", "_"), mem.total))

    # events: a set, a registration, a wait that times out
    st = C.c_void_p()
    check("set create", lib.hlml_event_set_create(C.byref(st)), SUCCESS)
    lib.hlml_device_get_handle_by_index(0, C.byref(h))
    check("register", lib.hlml_device_register_events(h, 2 | 1, st), SUCCESS)
    ev = EventData()
    check("wait", lib.hlml_event_set_wait(st, C.byref(ev), 10), TIMEOUT)
    check("set free", lib.hlml_event_set_free(st), SUCCESS)
    check("set free twice", lib.hlml_event_set_free(st), INVAL)

    check("shutdown", lib.hlml_shutdown(), SUCCESS)
    check("shutdown", lib.hlml_shutdown(), SUCCESS)
    check("stale", lib.hlml_device_get_memory_info(h, C.byref(Memory())), UNINIT)
    check("shutdown again", lib.hlml_shutdown(), UNINIT)
    if failures:
        for f in failures:
            print("hlml_ctypes: " + f, file=sys.stderr)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
