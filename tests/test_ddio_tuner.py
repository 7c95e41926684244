"""The DDIO tuner against fake /proc, /sys and /dev/cpu trees: the right register gets the right
value at the right offset, changes are restorable, and every refusal says why."""
from __future__ import annotations

import json
import os
import shutil
import signal
import struct
from pathlib import Path

import pytest

from hostio import cli
from hostio import ddio_tuner as t
from hostio.errors import ConfigError, HostioError

FIX = Path(__file__).parent / "fixtures" / "hw"
NIC = "0000:18:00.0"
ROOT_PORT = "0000:16:00.0"
SWITCH_PORT = "0000:17:00.0"


def _config(vendor=0x8086, header=0, sec=0, sub=0, port_type=None, perfctrl=None) -> bytes:
    cfg = bytearray(4096)
    struct.pack_into("<HH", cfg, 0, vendor, 0x2030)
    cfg[0x0E] = header
    if header == 1:
        cfg[0x18], cfg[0x19], cfg[0x1A] = 0, sec, sub
    if port_type is not None:
        struct.pack_into("<H", cfg, 0x06, 0x10)  # capabilities list present
        cfg[0x34] = 0x40
        cfg[0x40], cfg[0x41] = 0x05, 0x60  # MSI capability first, then PCIe at 0x60
        cfg[0x60], cfg[0x61] = 0x10, 0x00
        struct.pack_into("<H", cfg, 0x62, 0x2 | (port_type << 4))
    if perfctrl is not None:
        struct.pack_into("<I", cfg, t.PERFCTRLSTS_0, perfctrl)
    return bytes(cfg)


def make_host(tmp: Path, cpu="skylake_sp", ways=11, msr=0x600, sockets=2, msr_module=True,
              root_vendor=0x8086, perfctrl=0x0000_0080) -> Path:
    root = tmp / "root"
    (root / "proc").mkdir(parents=True)
    shutil.copy(FIX / f"{cpu}.cpuinfo", root / "proc" / "cpuinfo")
    for c in range(2):
        topo = root / f"sys/devices/system/cpu/cpu{c}/topology"
        topo.mkdir(parents=True)
        (topo / "physical_package_id").write_text(f"{c if sockets == 2 else 0}\n")
        (topo / "core_id").write_text("0\n")
        idx = root / f"sys/devices/system/cpu/cpu{c}/cache/index3"
        idx.mkdir(parents=True)
        (idx / "level").write_text("3\n")
        (idx / "ways_of_associativity").write_text(f"{ways}\n")
        if msr_module:
            d = root / f"dev/cpu/{c}"
            d.mkdir(parents=True)
            with open(d / "msr", "wb") as f:
                f.seek(t.MSR_IIO_LLC_WAYS)
                f.write(struct.pack("<Q", msr))
    pci = root / "sys/bus/pci/devices"
    devs = {
        "0000:00:00.0": _config(header=0),
        ROOT_PORT: _config(vendor=root_vendor, header=1, sec=0x17, sub=0x18, port_type=4, perfctrl=perfctrl),
        SWITCH_PORT: _config(header=1, sec=0x18, sub=0x18, port_type=6),
        # A root port elsewhere whose subordinate byte alone would fool a lazy walker.
        "0000:00:1c.0": _config(header=1, sec=0x19, sub=0x1A, port_type=4, perfctrl=0x80),
        NIC: _config(vendor=0x15B3, header=0),
        "0000:00:05.0": _config(vendor=0x1AF4, header=0),  # a virtio NIC on the root bus
    }
    for bdf, cfg in devs.items():
        (pci / bdf).mkdir(parents=True)
        (pci / bdf / "config").write_bytes(cfg)
    net = root / "sys/class/net/eth0"
    net.mkdir(parents=True)
    os.symlink(pci / NIC, net / "device")
    # virtio-net: the link points at a child of the PCI function.
    (pci / "0000:00:05.0" / "virtio2").mkdir()
    (root / "sys/class/net/eth1").mkdir(parents=True)
    os.symlink(pci / "0000:00:05.0" / "virtio2", root / "sys/class/net/eth1/device")
    return root


def msr_of(root: Path, cpu: int, msr: int = t.MSR_IIO_LLC_WAYS) -> int:
    with open(root / f"dev/cpu/{cpu}/msr", "rb") as f:
        f.seek(msr)
        return struct.unpack("<Q", f.read(8))[0]


def perfctrl_of(root: Path, bdf: str = ROOT_PORT) -> int:
    return struct.unpack_from("<I", (root / f"sys/bus/pci/devices/{bdf}/config").read_bytes(), t.PERFCTRLSTS_0)[0]


def run_cli(args, capsys):
    rc = cli.main(["ddio", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def test_masks():
    assert t.ways_mask(2, 11, 0x600) == 0x600
    assert t.ways_mask(4, 11, 0x600) == 0x780
    # Haswell's default ways (17, 18) stay set; more come from above, then below.
    assert [t.ways_mask(n, 20, 0x60000) for n in (2, 3, 4)] == [0x60000, 0xE0000, 0xF0000]
    assert t.ways_mask(4, 8, 0xC0) == 0xF0 and t.ways_mask(3, 8, 0x81) == 0xC1 and t.ways_mask(8, 8, 0x81) == 0xFF
    assert t.ddio_defaults("GenuineIntel", 6, 85, 11) == (0x600, "contiguous")
    assert t.ddio_defaults("GenuineIntel", 6, 63, 20) == (0x60000, "any")
    assert t.ddio_defaults("AuthenticAMD", 25, 17, 16) == (0, "contiguous")
    t.check_mask(0x7C0, 11, 0x600, "contiguous")
    with pytest.raises(ConfigError, match="contiguous"):
        t.check_mask(0x6C0, 11, 0x600, "contiguous")
    with pytest.raises(ConfigError, match="default I/O ways"):
        t.check_mask(0x180, 11, 0x600, "contiguous")
    t.check_mask(0x60003, 20, 0x60000, "any")


def test_status_skylake(tmp_path):
    root = make_host(tmp_path)
    st = t.status(t.Host(str(root), euid=0))
    assert st["ddio"].startswith("yes, tunable")
    assert st["llc_ways"] == 11 and st["default_mask"] == "0x600"
    assert [e["ways"] for e in st["iio_llc_ways"]] == [2, 2]
    nic, virtio = st["nics"]
    assert nic["nic"] == NIC and nic["root_port"] == ROOT_PORT and nic["allocating_writes"] is True
    assert virtio["nic"] == "0000:00:05.0" and virtio["root_port"] is None and "no PCIe root port" in virtio["note"]


def test_status_of_a_missing_nic_is_bad_input(tmp_path):
    # ConfigError is a HostioError too: status must not file it as a note.
    with pytest.raises(ConfigError, match="nic = '0000:99:00.0'"):
        t.status(t.Host(str(make_host(tmp_path)), euid=0), nic="0000:99:00.0")


def test_root_port_walk_skips_switch_ports(tmp_path):
    host = t.Host(str(make_host(tmp_path)), euid=0)
    assert host.find_root_port(NIC) == ROOT_PORT
    assert host.find_root_port("18:00.0") == ROOT_PORT
    with pytest.raises(HostioError, match="no PCIe root port above 0000:00:05.0"):
        host.find_root_port("0000:00:05.0")
    with pytest.raises(ConfigError, match="nic = 'zz'"):
        host.find_root_port("zz")


def test_set_ways_writes_every_socket_and_restores(tmp_path, capsys):
    root = make_host(tmp_path)
    rc, out, _ = run_cli(["set", "--ways", "4", "--root", str(root)], capsys)
    assert rc == 0, out
    assert msr_of(root, 0) == 0x780 and msr_of(root, 1) == 0x780
    state = json.loads((root / "var/lib/hostio/ddio_state.json").read_text())
    assert {(e["target"], e["offset"], e["old"]) for e in state["entries"]} == {("0", 0xC8B, 0x600), ("1", 0xC8B, 0x600)}
    # A second change keeps the first saved (original) value.
    assert run_cli(["set", "--ways", "6", "--root", str(root)], capsys)[0] == 0
    assert msr_of(root, 0) == 0x7E0
    rc, out, _ = run_cli(["restore", "--root", str(root)], capsys)
    assert rc == 0 and "restored" in out
    assert msr_of(root, 0) == 0x600 and msr_of(root, 1) == 0x600


def test_a_write_that_fails_half_way_says_what_was_written_and_how_to_undo_it(tmp_path, capsys, monkeypatch):
    root = make_host(tmp_path)
    real = t.Host.msr_write

    def refuse_cpu1(self, cpu, msr, value):
        if cpu == 1:
            raise OSError(1, "Operation not permitted")  # as os.pwrite raises it: no path
        real(self, cpu, msr, value)

    monkeypatch.setattr(t.Host, "msr_write", refuse_cpu1)
    rc, _, err = run_cli(["set", "--ways", "3", "--root", str(root)], capsys)
    assert rc == 2 and err.count("\n") == 1, err
    assert f"{root}/dev/cpu/1/msr: Operation not permitted" in err
    assert f"already written: {root}/dev/cpu/0/msr offset 0xc8b" in err and "hostio ddio restore --state" in err
    assert msr_of(root, 0) == 0x700 and msr_of(root, 1) == 0x600
    monkeypatch.setattr(t.Host, "msr_write", real)
    assert run_cli(["restore", "--root", str(root)], capsys)[0] == 0 and msr_of(root, 0) == 0x600


def test_msr_errors_name_the_file_and_the_cause(tmp_path, capsys):
    root = make_host(tmp_path)
    (root / "dev/cpu/1/msr").unlink()
    (root / "dev/cpu/1/msr").mkdir()
    rc, _, err = run_cli(["set", "--ways", "3", "--root", str(root)], capsys)
    assert rc == 2 and f"{root}/dev/cpu/1/msr: Is a directory" in err, err
    # A state file naming a CPU this host does not have: not "msr module not loaded".
    root2 = make_host(tmp_path / "b")
    assert run_cli(["set", "--ways", "3", "--root", str(root2)], capsys)[0] == 0
    sp = root2 / "var/lib/hostio/ddio_state.json"
    st = json.loads(sp.read_text())
    st["entries"][1]["target"] = "999"
    sp.write_text(json.dumps(st))
    rc, _, err = run_cli(["restore", "--root", str(root2)], capsys)
    assert rc == 2 and "has no cpu 999" in err, err


def test_dry_run_changes_nothing_and_says_what(tmp_path, capsys):
    root = make_host(tmp_path)
    rc, out, _ = run_cli(["set", "--ways", "3", "--dry-run", "--root", str(root)], capsys)
    assert rc == 0
    assert f"{root}/dev/cpu/0/msr offset 0xc8b" in out and "0x0000000000000600 -> 0x0000000000000700" in out
    assert msr_of(root, 0) == 0x600
    assert not (root / "var/lib/hostio/ddio_state.json").exists()
    # A state path the real run would refuse (a folder, a damaged file) is refused here too.
    (tmp_path / "folder").mkdir()
    (tmp_path / "bad.json").write_text("{")
    for state in (tmp_path / "folder", tmp_path / "bad.json", f"{tmp_path}/new/"):
        rc, _, err = run_cli(["set", "--ways", "3", "--dry-run", "--state", str(state), "--root", str(root)], capsys)
        assert rc == 2 and f"--state = '{state}'" in err, err
        assert run_cli(["set", "--ways", "3", "--state", str(state), "--root", str(root)], capsys)[0] == 2
    assert not (tmp_path / "new").exists()
    # A state path with an escape sequence or a right-to-left override is shown escaped.
    odd = tmp_path / "s\x1b[31m\u202e.json"
    rc, out, _ = run_cli(["set", "--ways", "3", "--dry-run", "--state", str(odd), "--root", str(root)], capsys)
    assert rc == 0 and "s\\u001b[31m\\u202e.json" in out and "\x1b" not in out and "\u202e" not in out, out


def test_haswell_accepts_any_mask_in_range(tmp_path, capsys):
    root = make_host(tmp_path, cpu="haswell_ep", ways=20, msr=0x60000)
    assert run_cli(["set", "--mask", "0x60003", "--root", str(root)], capsys)[0] == 0
    assert msr_of(root, 0) == 0x60003
    rc, _, err = run_cli(["set", "--mask", "0x100000", "--root", str(root)], capsys)
    assert rc == 2 and "mask = '0x100000'" in err
    # A left-aligned 0xc0000 would clear the register's default bit 17: refused as a mask, while
    # --ways keeps the default ways and adds the adjacent ones.
    rc, _, err = run_cli(["set", "--mask", "0xc0000", "--root", str(root)], capsys)
    assert rc == 2 and "default I/O ways 0x60000" in err
    assert run_cli(["set", "--ways", "2", "--root", str(root)], capsys)[0] == 0
    assert msr_of(root, 0) == 0x60000
    assert run_cli(["set", "--ways", "3", "--root", str(root)], capsys)[0] == 0
    assert msr_of(root, 0) == 0xE0000


def test_disable_enable_root_port(tmp_path, capsys):
    root = make_host(tmp_path, perfctrl=0x1234_0080)
    rc, out, _ = run_cli(["disable", "--nic", NIC, "--root", str(root)], capsys)
    assert rc == 0, out
    assert perfctrl_of(root) == 0x1234_0008  # bit 3 set, bit 7 cleared, the rest untouched
    assert perfctrl_of(root, "0000:00:1c.0") == 0x80  # the other root port is left alone
    assert run_cli(["enable", "--nic", NIC, "--root", str(root)], capsys)[0] == 0
    assert perfctrl_of(root) == 0x1234_0080
    assert run_cli(["disable", "--nic", NIC, "--root", str(root)], capsys)[0] == 0
    assert run_cli(["restore", "--root", str(root)], capsys)[0] == 0
    assert perfctrl_of(root) == 0x1234_0080


def test_disable_dry_run(tmp_path, capsys):
    root = make_host(tmp_path)
    rc, out, _ = run_cli(["disable", "--nic", NIC, "--dry-run", "--root", str(root)], capsys)
    assert rc == 0
    assert f"{ROOT_PORT}/config offset 0x180" in out and "0x00000080 -> 0x00000008" in out
    assert perfctrl_of(root) == 0x80


@pytest.mark.parametrize("cpu,args,reason", [
    ("amd_epyc", ["set", "--ways", "4"], "not an Intel CPU"),
    ("icelake_sp", ["set", "--ways", "4"], "no effect"),
    ("coffeelake", ["set", "--ways", "4"], "no known DDIO way control"),
    ("skylake_sp", ["set", "--ways", "1"], "ways = 1"),
    ("skylake_sp", ["set", "--ways", "12"], "ways = 12"),
    ("skylake_sp", ["set", "--mask", "0x6c0"], "contiguous"),
    ("skylake_sp", ["set", "--mask", "0x180"], "default I/O ways"),
    ("skylake_sp", ["set"], "exactly one of"),
    ("skylake_sp", ["disable"], "ddio disable needs --nic"),
    ("skylake_sp", ["disable", "--nic", "0000:00:05.0"], "no PCIe root port"),
    ("skylake_sp", ["restore"], "state = "),
    ("skylake_sp", ["frobnicate"], "action = 'frobnicate'"),
])
def test_refusals_exit_2_with_one_line(tmp_path, capsys, cpu, args, reason):
    root = make_host(tmp_path, cpu=cpu, ways=12 if cpu == "icelake_sp" else 11)
    before = msr_of(root, 0)
    rc, out, err = run_cli([*args, "--root", str(root)], capsys)
    assert rc == 2
    assert reason in err and err.count("\n") == 1 and "Traceback" not in err
    assert msr_of(root, 0) == before


def test_amd_refusal_reports_sdci(tmp_path, capsys):
    root = make_host(tmp_path, cpu="amd_epyc", ways=16, msr=0)
    with open(root / "dev/cpu/0/msr", "r+b") as f:
        f.seek(t.MSR_AMD_SDCI)
        f.write(struct.pack("<Q", 0b10))
    (root / "sys/fs/resctrl/info/L3").mkdir(parents=True)
    (root / "sys/fs/resctrl/info/L3/io_alloc").write_text("enabled\n")
    rc, _, err = run_cli(["set", "--ways", "4", "--root", str(root)], capsys)
    assert rc == 2 and "MSR 0xc00003ff: bit 1 = 1" in err and "io_alloc: enabled" in err
    st = t.status(t.Host(str(root), euid=0))
    assert st["ddio"].startswith("no") and st["amd"]["sdci_alloc_limit_bit1"] is True


def test_missing_msr_module_and_not_root(tmp_path):
    root = make_host(tmp_path, msr_module=False)
    with pytest.raises(HostioError, match="msr module not loaded"):
        t.plan_set(t.Host(str(root), euid=0), ways=4)
    st = t.status(t.Host(str(root), euid=0))
    assert "msr module not loaded" in st["iio_llc_ways"][0]["error"]
    with pytest.raises(HostioError, match="needs root"):
        t.plan_set(t.Host(str(make_host(tmp_path / "b")), euid=1000), ways=4)


def test_non_intel_root_port_refused(tmp_path):
    root = make_host(tmp_path, root_vendor=0x1022)
    with pytest.raises(HostioError, match="not Intel"):
        t.plan_port(t.Host(str(root), euid=0), NIC, enable=False)


def test_status_on_this_machine_runs(capsys):
    rc, out, _ = run_cli(["status"], capsys)
    assert rc == 0 and out.startswith("cpu: ")


def _state(root: Path) -> Path:
    return root / "var/lib/hostio/ddio_state.json"


@pytest.mark.parametrize("text,what", [
    ("{", "not JSON"),
    ("[1, 2]", "no list of entries"),
    ('{"version": 1}', "no list of entries"),
    ('{"entries": [{"kind": "msr", "offset": 3211, "width": 8, "old": 1536}]}', "target"),
    ('{"entries": [{"kind": "msr", "target": "0", "offset": "x", "width": 8, "old": 1536}]}', "offset"),
    ('{"entries": [{"kind": "msr", "target": "0", "offset": 16, "width": 8, "old": 1536}]}', "offset"),
    ('{"entries": [{"kind": "pci", "target": "0000:17:00.0", "offset": 384, "width": 4, "old": 4294967296}]}', "old value"),
    ('{"entries": [{"kind": "bar", "target": "0", "offset": 3211, "width": 8, "old": 1}]}', "kind"),
])
def test_restore_refuses_a_bad_state_file_before_writing(tmp_path, capsys, text, what):
    root = make_host(tmp_path)
    _state(root).parent.mkdir(parents=True)
    _state(root).write_text(text)
    rc, _, err = run_cli(["restore", "--root", str(root)], capsys)
    assert rc == 2 and "state = " in err and what in err and "Traceback" not in err
    assert _state(root).read_text() == text


def test_restore_writes_nothing_when_one_entry_is_bad(tmp_path, capsys):
    # The first entry is fine, the second's old value is negative: neither register is written.
    root = make_host(tmp_path)
    assert run_cli(["set", "--ways", "4", "--root", str(root)], capsys)[0] == 0
    state = json.loads(_state(root).read_text())
    state["entries"][1]["old"] = -1
    _state(root).write_text(json.dumps(state))
    rc, _, err = run_cli(["restore", "--root", str(root)], capsys)
    assert rc == 2 and "old value" in err
    assert msr_of(root, 0) == 0x780 and msr_of(root, 1) == 0x780


def test_restore_names_this_hosts_register_not_the_files_path(tmp_path, capsys):
    root = make_host(tmp_path)
    assert run_cli(["set", "--ways", "4", "--root", str(root)], capsys)[0] == 0
    state = json.loads(_state(root).read_text())
    for e in state["entries"]:
        e["path"] = "/tmp/elsewhere.bin"
    _state(root).write_text(json.dumps(state))
    rc, out, _ = run_cli(["restore", "--dry-run", "--root", str(root)], capsys)
    assert rc == 0 and "elsewhere" not in out and f"{root}/dev/cpu/0/msr" in out


@pytest.mark.parametrize("line", ["cpu family\t: x", "model\t\t: 8x"])
def test_malformed_cpuinfo_is_a_clear_error(tmp_path, capsys, line):
    root = make_host(tmp_path)
    info = root / "proc/cpuinfo"
    key = line.split("\t")[0]
    info.write_text("\n".join(line if l.startswith(key + "\t") else l for l in info.read_text().splitlines()) + "\n")
    rc, _, err = run_cli(["status", "--root", str(root)], capsys)
    assert rc == 2 and "cpuinfo" in err and "a decimal integer" in err and "Traceback" not in err


@pytest.mark.parametrize("text", [
    '{"entries": [{"kind": "msr", "target": "\u00b2", "offset": 3211, "width": 8, "old": 1536}]}',
    '{"entries": [{"kind": "msr", "target": "0", "offset": 3211, "width": 8, "old": ' + "9" * 5000 + "}]}",
    "[" * 200000,
])
def test_restore_refuses_odd_json_without_a_traceback(tmp_path, capsys, text):
    root = make_host(tmp_path)
    _state(root).parent.mkdir(parents=True)
    _state(root).write_text(text)
    rc, _, err = run_cli(["restore", "--root", str(root)], capsys)
    assert rc == 2 and "state = " in err and "Traceback" not in err
    assert msr_of(root, 0) == 0x600


@pytest.mark.parametrize("args, needle", [
    (["status", "--ways", "3"], "--ways = 3: only with ddio set (not status)"),
    (["status", "--mask", "0x600"], "--mask = '0x600': only with ddio set"),
    (["status", "--dry-run"], "--dry-run = True: only with ddio set / disable / enable / restore"),
    (["restore", "--json", "-"], "--json = '-': only with ddio status"),
    (["set", "--nic", "0000:17:00.0", "--ways", "4"], "--nic = '0000:17:00.0': only with ddio status / disable / enable"),
    (["set", "--ways", "4", "--state", ""], "--state = '': a state file path"),
    (["status", "--state", "s.json"], "--state = 's.json': only with ddio set"),
])
def test_options_the_action_does_not_read_are_refused(tmp_path, capsys, args, needle):
    root = make_host(tmp_path)
    rc, out, err = run_cli([*args, "--root", str(root)], capsys)
    assert rc == 2 and needle in err and not out, (rc, out, err)
    assert msr_of(root, 0) == 0x600 and not (root / "var/lib/hostio/ddio_state.json").exists()


def test_a_short_msr_read_names_the_device(tmp_path, capsys):
    root = make_host(tmp_path)
    for c in range(2):
        (root / f"dev/cpu/{c}/msr").write_bytes(b"")
    rc, out, err = run_cli(["set", "--ways", "4", "--root", str(root)], capsys)
    assert rc == 2 and err.startswith(f"hostio: error: {root}/dev/cpu/0/msr: MSR 0xc8b gave 0 of 8 bytes"), err
    rc, out, err = run_cli(["status", "--root", str(root)], capsys)
    assert rc == 0 and "MSR 0xC8B (cpu 0): MSR 0xc8b gave 0 of 8 bytes" in out, out


def test_a_zero_option_value_is_still_an_option_given(tmp_path, capsys):
    rc, out, err = run_cli(["status", "--ways", "0", "--root", str(make_host(tmp_path))], capsys)
    assert rc == 2 and "--ways = 0: only with ddio set" in err, (rc, err)


# ---- errors name the option typed (--ways, --mask, --nic, --state, --root) --------------------------

def _one_line(capsys, args):
    rc, out, err = run_cli(args, capsys)
    assert rc == 2 and not out and err.count("\n") == 1 and "Traceback" not in err, (rc, out, err)
    return err.strip()


@pytest.mark.parametrize("args, line", [
    (["set", "--ways", "1"], "--ways = 1: 2..=11 (fewer than the 2 default ways would clear default bits)"),
    (["set", "--ways", "12"], "--ways = 12: 2..=11 (fewer than the 2 default ways would clear default bits)"),
    (["set", "--ways=-3"], "--ways = '-3': 2..=11 (fewer than the 2 default ways would clear default bits)"),
    (["set", "--ways", "9" * 50], f"--ways = '{'9' * 50}': 2..=11 (fewer than the 2 default ways would clear default bits)"),
    (["set", "--mask", "0x6c0"], "--mask = '0x6c0': contiguous bits on this CPU (Skylake-SP and later)"),
    (["set", "--mask", "7c"], "--mask = '7c': must keep the default I/O ways 0x600 set"),
    (["set"], "ddio set needs exactly one of --ways N or --mask HEX (neither was given)"),
    (["set", "--ways", "4", "--mask", "0x780"], "--mask = '0x780': exactly one of --ways N or --mask HEX (not both)"),
    (["disable", "--nic", "zz"], "--nic = 'zz': a PCI address DOMAIN:BUS:DEV.FN such as 0000:3b:00.0"),
    (["disable", "--nic", ""], "--nic = '': the PCI address of the NIC (BDF) such as 0000:3b:00.0"),
    (["disable"], "ddio disable needs --nic: the PCI address of the NIC (BDF) such as 0000:3b:00.0"),
    (["status", "--nic", ""], "--nic = '': the PCI address of the NIC (BDF) such as 0000:3b:00.0"),
    (["status", "--nic", "0000:99:00.0"], "--nic = '0000:99:00.0': a PCI device present in "),
])
def test_set_and_port_errors_name_the_option_typed(tmp_path, capsys, args, line):
    root = make_host(tmp_path)
    assert _one_line(capsys, [*args, "--root", str(root)]).startswith("hostio: error: " + line)
    assert msr_of(root, 0) == 0x600 and perfctrl_of(root) == 0x80 and not _state(root).exists()


def test_state_errors_name_the_state_option(tmp_path, capsys):
    root = make_host(tmp_path)
    missing = tmp_path / "a: b" / "none.json"
    assert _one_line(capsys, ["restore", "--state", str(missing), "--root", str(root)]) == \
        f"hostio: error: --state = '{missing}': a state file written by an earlier `hostio ddio` change " \
        "(there is none: no change to undo, or it was written elsewhere, see --state)"
    # The default path is --state's value too.
    assert _one_line(capsys, ["restore", "--root", str(root)]).startswith(f"hostio: error: --state = '{_state(root)}': ")
    # A state file that cannot be written is refused before any register is.
    blocked = root / "proc" / "cpuinfo" / "state.json"
    line = _one_line(capsys, ["set", "--ways", "4", "--state", str(blocked), "--root", str(root)])
    assert line == f"hostio: error: --state = '{blocked}': a path in an existing directory ({blocked.parent} is not a directory)", line
    assert msr_of(root, 0) == 0x600 and msr_of(root, 1) == 0x600


@pytest.mark.parametrize("root", ["", " ", "missing", "file"])
def test_a_root_that_is_not_a_directory_is_named(tmp_path, capsys, root):
    if root == "missing":
        root = str(tmp_path / "nowhere")
    elif root == "file":
        (tmp_path / "f").write_text("")
        root = str(tmp_path / "f")
    for args in (["status"], ["set", "--ways", "4"]):
        assert _one_line(capsys, [*args, "--root", root]) == \
            f"hostio: error: --root = {root!r}: an existing directory: / for this machine, or the top of a fake tree"


@pytest.mark.parametrize("args, line", [
    (["set", "--ways", "٣"], "--ways = '٣': a number of I/O ways in ASCII digits, such as 4"),
    (["set", "--ways", "３"], "--ways = '３': a number of I/O ways in ASCII digits, such as 4"),
    (["set", "--ways", ""], "--ways = '': a number of I/O ways in ASCII digits, such as 4"),
    (["set", "--ways", "4.0"], "--ways = '4.0': a number of I/O ways in ASCII digits, such as 4"),
    (["status", "--ways", "٣"], "--ways = '٣': a number of I/O ways in ASCII digits, such as 4"),
    (["set", "--mask", "０x７c0"], "--mask = '０x７c0': a hexadecimal way mask in ASCII digits, such as 0x7c0"),
    (["set", "--mask", "0x_7c0"], "--mask = '0x_7c0': a hexadecimal way mask in ASCII digits, such as 0x7c0"),
    (["set", "--mask=-0x7c0"], "--mask = '-0x7c0': a hexadecimal way mask in ASCII digits, such as 0x7c0"),
])
def test_ways_and_mask_take_ascii_digits_only(tmp_path, capsys, args, line):
    root = make_host(tmp_path)
    assert _one_line(capsys, [*args, "--root", str(root)]) == "hostio: error: " + line
    assert msr_of(root, 0) == 0x600 and not _state(root).exists()


@pytest.mark.parametrize("kind", ["device", "fifo", "directory", "huge"])
def test_a_state_file_that_is_no_regular_file_or_too_large_is_refused(tmp_path, capsys, kind):
    # A device such as /dev/zero used to be read to the end of memory and a FIFO to block forever
    # (/dev/null stands for the devices here: harmless even where the check is missing).
    root = make_host(tmp_path)
    path = {"device": "/dev/null", "fifo": str(tmp_path / "fifo"), "directory": str(tmp_path),
            "huge": str(tmp_path / "huge.json")}[kind]
    if kind == "fifo":
        os.mkfifo(path)
    if kind == "huge":
        Path(path).write_text(" " * (t.MAX_STATE_BYTES + 1) + "{}")

    def blocked(signum, frame):
        raise TimeoutError(f"blocked on the state file {path}")

    previous = signal.signal(signal.SIGALRM, blocked)
    signal.alarm(30)
    try:
        for args in (["restore"], ["set", "--ways", "4"]):
            line = _one_line(capsys, [*args, "--state", path, "--root", str(root)])
            assert line.startswith(f"hostio: error: --state = '{path}': a "), line
            assert ("at most 1048576 bytes" in line) if kind == "huge" else ("a regular file" in line), line
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert msr_of(root, 0) == 0x600 and msr_of(root, 1) == 0x600


def test_every_spelling_of_the_root_is_this_machine(capsys):
    # // and /./ are / (the tuner used to compare the text with "/", and read another way then).
    this_machine = run_cli(["status", "--root", "/"], capsys)
    for root in ("//", "/./"):
        assert run_cli(["status", "--root", root], capsys) == this_machine, root


def test_a_state_file_in_a_missing_folder_is_refused_not_created(tmp_path, capsys):
    root = make_host(tmp_path)
    state = tmp_path / "nowhere" / "deeper" / "state.json"
    line = _one_line(capsys, ["set", "--ways", "4", "--state", str(state), "--root", str(root)])
    assert line == f"hostio: error: --state = '{state}': a path in an existing directory ({state.parent} does not exist)"
    assert not (tmp_path / "nowhere").exists() and msr_of(root, 0) == 0x600


# ---- the root port walk, the socket list, the LLC's level, restore's end -----------------------------

def _put_config(root: Path, bdf: str, cfg: bytes) -> None:
    (root / "sys/bus/pci/devices" / bdf).mkdir(parents=True, exist_ok=True)
    (root / "sys/bus/pci/devices" / bdf / "config").write_bytes(cfg)


def test_a_root_port_whose_bus_range_ends_below_the_nic_is_not_its_port(tmp_path):
    # An Intel root port on buses 0x10..0x10: below the NIC's 0x18, and narrower than the real
    # port's 0x17..0x18, so a walk that checks only sec <= bus would pick it.
    root = make_host(tmp_path)
    _put_config(root, "0000:00:02.0", _config(header=1, sec=0x10, sub=0x10, port_type=4, perfctrl=0x80))
    assert t.Host(str(root), euid=0).find_root_port(NIC) == ROOT_PORT


def test_a_multi_function_root_port_is_a_bridge_too(tmp_path, capsys):
    # Header type 0x81: a type-1 header with the multi-function bit set.
    root = make_host(tmp_path)
    cfg = bytearray(_config(header=1, sec=0x17, sub=0x18, port_type=4, perfctrl=0x80))
    cfg[0x0E] = 0x81
    _put_config(root, ROOT_PORT, bytes(cfg))
    assert t.Host(str(root), euid=0).find_root_port(NIC) == ROOT_PORT
    assert run_cli(["disable", "--nic", NIC, "--root", str(root)], capsys)[0] == 0
    assert perfctrl_of(root) == 0x08


def test_one_socket_gets_one_msr_write_on_its_first_cpu(tmp_path, capsys):
    root = make_host(tmp_path, sockets=1)
    assert t.Host(str(root), euid=0).socket_cpus() == [0]
    rc, out, _ = run_cli(["set", "--ways", "4", "--root", str(root)], capsys)
    assert rc == 0, out
    assert [e["target"] for e in json.loads(_state(root).read_text())["entries"]] == ["0"]
    assert msr_of(root, 0) == 0x780 and msr_of(root, 1) == 0x600


def test_restore_retires_the_state_file(tmp_path, capsys):
    root = make_host(tmp_path)
    assert run_cli(["set", "--ways", "4", "--root", str(root)], capsys)[0] == 0
    assert run_cli(["restore", "--root", str(root)], capsys)[0] == 0
    assert not _state(root).exists() and Path(f"{_state(root)}.restored").exists()
    # Nothing left to undo: a second restore is refused and writes nothing.
    t.Host(str(root), euid=0).msr_write(0, t.MSR_IIO_LLC_WAYS, 0x700)  # changed since, by someone else
    assert _one_line(capsys, ["restore", "--root", str(root)]).startswith(f"hostio: error: --state = '{_state(root)}': ")
    assert msr_of(root, 0) == 0x700
    # The next change saves the value the register has now, not the one the old file held.
    assert run_cli(["set", "--ways", "6", "--root", str(root)], capsys)[0] == 0
    entries = json.loads(_state(root).read_text())["entries"]
    assert {(e["target"], e["old"]) for e in entries} == {("0", 0x700), ("1", 0x600)}


def test_status_reads_nosnoop_from_bit_3(tmp_path, capsys):
    root = make_host(tmp_path)
    assert run_cli(["disable", "--nic", NIC, "--root", str(root)], capsys)[0] == 0
    st = t.status(t.Host(str(root), euid=0))
    nic = st["nics"][0]
    assert nic["perfctrlsts_0"] == "0x00000008"
    assert nic["nosnoop_op_wr_en"] is True and nic["allocating_writes"] is False
    assert "allocating writes off, NoSnoopOpWrEn on" in t.format_status(st)


@pytest.mark.parametrize("order", [sorted, lambda names: sorted(names, reverse=True)])
def test_llc_ways_are_the_highest_cache_levels(tmp_path, monkeypatch, order):
    # L1 with 8 ways, L2 with 16 (more ways than the LLC), L3 with 11, listed in either order.
    root = make_host(tmp_path)
    cache = root / "sys/devices/system/cpu/cpu0/cache"
    for idx, level, ways in (("index0", 1, 8), ("index2", 2, 16)):
        (cache / idx).mkdir()
        (cache / idx / "level").write_text(f"{level}\n")
        (cache / idx / "ways_of_associativity").write_text(f"{ways}\n")
    real = os.listdir
    monkeypatch.setattr(t.os, "listdir", lambda p: order(real(p)) if str(p) == str(cache) else real(p))
    host = t.Host(str(root), euid=0)
    assert host.llc_ways() == 11
    assert t.status(host)["default_mask"] == "0x600"


def test_another_user_is_told_it_needs_root_not_that_there_is_no_root_port(tmp_path):
    # The kernel shows other users a device's first 64 bytes, without the capability list that
    # marks a root port.
    root = make_host(tmp_path)
    for bdf in (ROOT_PORT, SWITCH_PORT, "0000:00:1c.0"):
        cfg = root / "sys/bus/pci/devices" / bdf / "config"
        cfg.write_bytes(cfg.read_bytes()[:64])
    host = t.Host(str(root), euid=1000)
    with pytest.raises(t.HostioError, match="needs root to find the PCIe root port above"):
        host.find_root_port(NIC)
    # Disabling DDIO on the port says it needs root before it looks for the port.
    with pytest.raises(t.HostioError, match="^needs root"):
        t.plan_port(host, NIC, enable=False)
