"""``hostio ddio``: inspect and tune Intel DDIO (Data Direct I/O) on a real machine.

**Mechanism.** With DDIO a PCIe device's writes allocate into the last-level cache instead of
DRAM, but only into the ways of the *IIO LLC WAYS* mask, MSR 0xC8B (one per socket; a CAT-style
bit mask, default two ways: the two highest, 0x600 of 11, on Skylake-SP; ways 17 and 18,
0x60000 of 20, on Haswell-EP). Setting more bits gives I/O more ways (Farshin et al., "Reexamining Direct Cache
Access to Optimize I/O Intensive Applications for Multi-hundred-gigabit Networks", USENIX ATC'20,
§7; their `ddio-bench` tool). Rules the hardware imposes: the default bits must stay set; Skylake-SP
needs a contiguous mask; Haswell/Broadwell-EP accept any value in [0x60000, 0xFFFFF]. On Ice Lake
and later the register still accepts writes but users report no effect, so this tool refuses
rather than pretend.

DDIO can also be switched off per PCIe root port: config register ``perfctrlsts_0`` at offset
0x180 of the root port above the NIC, bit 7 ``Use_Allocating_Flow_Wr`` (1 = writes allocate in
the LLC) and bit 3 ``NoSnoopOpWrEn``; *disable* sets bit 3 and clears bit 7, *enable* the reverse
(Intel Xeon Scalable datasheet vol. 2; ATC'20 §7). The root port is found by walking the PCI
topology in sysfs: the bridge (header type 1) whose secondary..subordinate bus range contains the
NIC's bus and whose PCIe capability says "root port" (port type 4); it must be Intel's (vendor
0x8086).

AMD's counterpart is SDCI, steered by PCIe TPH hints; its allocation limit is bit 1 of MSR
0xC00003FF, which Linux ≥ 6.19 exposes as the resctrl file ``info/L3/io_alloc``. This tool only
reports it.

**Access.** MSRs through ``/dev/cpu/N/msr`` (the ``msr`` module; pread/pwrite of 8 bytes, little
endian, at the MSR number as file offset); config space through
``/sys/bus/pci/devices/BDF/config`` (past its first 64 bytes only root reads it: the PCI Express
capability that marks a root port lies there). Every path is prefixed by
``root`` so the tests run on fake trees. Before any change the old values are saved to a JSON
state file (the first saved value of a register is kept), which ``restore`` writes back.
"""
from __future__ import annotations

import contextlib
import datetime
import json
import os
import re
import stat
import struct

from hostio import outfile
from hostio.errors import ConfigError, HostioError, config_error, shown

MSR_IIO_LLC_WAYS = 0xC8B
MSR_AMD_SDCI = 0xC00003FF  # bit 1: SDCI allocation limit (AMD's DDIO counterpart)
PERFCTRLSTS_0 = 0x180
NOSNOOP_OP_WR_EN = 1 << 3
USE_ALLOCATING_FLOW_WR = 1 << 7

#: Intel family-6 parts whose IIO LLC WAYS register works: model → (name, mask rule).
TUNABLE = {
    0x3F: ("Haswell-EP", "any"),
    0x4F: ("Broadwell-EP", "any"),
    0x56: ("Broadwell-DE", "any"),
    0x55: ("Skylake-SP / Cascade Lake-SP / Cooper Lake", "contiguous"),
}
#: Ice Lake and later: the register is accepted but has no effect.
NO_EFFECT = {
    0x6A: "Ice Lake-SP", 0x6C: "Ice Lake-D", 0x8F: "Sapphire Rapids", 0xCF: "Emerald Rapids",
    0xAD: "Granite Rapids", 0xAE: "Granite Rapids-D", 0xAF: "Sierra Forest",
}
#: Value range Haswell/Broadwell-EP accept (ATC'20 §4.4).
ANY_RANGE = (0x60000, 0xFFFFF)

BDF_RE = re.compile(r"^(?:([0-9a-f]{4}):)?([0-9a-f]{2}):([0-1][0-9a-f])\.([0-7])$")


def ddio_defaults(vendor: str, family: int, model: int, llc_ways: int) -> tuple[int, str]:
    """(default I/O way mask, mask rule) of a CPU; (0, "contiguous") without DDIO."""
    if vendor != "GenuineIntel" or family != 6 or llc_ways < 2:
        return 0, "contiguous"
    if model in TUNABLE and TUNABLE[model][1] == "any":
        # Haswell/Broadwell-EP (20 ways): 0x60000 (ways 17-18), the lower bound of the values the
        # ATC'20 paper gives as accepted (§4.4), is taken as the register's default (an
        # inference; the simulator's preset uses the same); pqos users report 0xC0000 as the I/O
        # *contention* mask. The register's value
        # is what must be kept, so 0x60000: `set --mask 0xC0000` is refused there, and
        # `set --ways N` widens 0x60000 (`ways_mask`).
        return 0x60000, "any"
    if model in TUNABLE or model in NO_EFFECT:
        return 0b11 << (llc_ways - 2), "contiguous"
    return 0, "contiguous"


def ways_mask(n: int, llc_ways: int, default: int) -> int:
    """The default mask widened to n ways: the way just above its highest while there is one,
    then the way just below its lowest (so a contiguous default stays contiguous; the
    simulator's ``platform.ddio_ways`` uses the same rule). 0x600 of 11 → 0x780 at 4 ways;
    0x60000 of 20 → 0x60000 at 2, 0xE0000 at 3, 0xF0000 at 4."""
    full = (1 << llc_ways) - 1
    m = default & full
    while bin(m).count("1") < min(n, llc_ways):
        above = m.bit_length()
        if m == 0:
            m = 1 << (llc_ways - 1)
        elif above < llc_ways:
            m |= 1 << above
        elif m & 1 == 0:
            m |= (m & -m) >> 1
        else:  # a default with a gap: the highest free way
            m |= 1 << ((~m & full).bit_length() - 1)
    return m


def check_mask(mask: int, llc_ways: int, default: int, rule: str) -> None:
    """Raise ``ConfigError`` unless the hardware would accept ``mask``."""
    full = (1 << llc_ways) - 1
    if mask & ~full or mask == 0:
        raise config_error("mask", hex(mask), f"non-zero, within the {llc_ways} LLC ways (≤ {full:#x})")
    if mask & default != default:
        raise config_error("mask", hex(mask), f"must keep the default I/O ways {default:#x} set")
    if rule == "contiguous":
        low = mask & -mask
        if (mask + low) & mask:
            raise config_error("mask", hex(mask), "contiguous bits on this CPU (Skylake-SP and later)")
    elif rule == "any" and not (ANY_RANGE[0] <= mask <= ANY_RANGE[1]):
        raise config_error("mask", hex(mask), f"a value in [{ANY_RANGE[0]:#x}, {ANY_RANGE[1]:#x}] on Haswell/Broadwell")


def normalise_bdf(bdf: str) -> str:
    m = BDF_RE.match(bdf.strip().lower())
    if not m:
        raise config_error("nic", bdf, "a PCI address DOMAIN:BUS:DEV.FN such as 0000:3b:00.0")
    dom, bus, dev, fn = m.groups()
    return f"{dom or '0000'}:{bus}:{dev}.{fn}"


class Host:
    """The machine (or a fake tree under ``root``) the tuner reads and writes."""

    def __init__(self, root: str = "/", euid: int | None = None):
        self.root = root
        self.euid = os.geteuid() if euid is None else euid

    def path(self, p: str) -> str:
        return os.path.join(self.root, p.lstrip("/"))

    # --- CPU -------------------------------------------------------------------------------
    def cpuinfo(self) -> dict:
        info: dict = {"vendor": "", "family": 0, "model": 0, "name": "", "flags": [], "cpus": 0}
        where = self.path("/proc/cpuinfo")
        try:
            with open(where, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise HostioError(f"cannot read {where}: {e.strerror}") from None
        except UnicodeDecodeError:
            raise config_error(where, "(not UTF-8)", "a /proc/cpuinfo text file") from None

        def number(key: str, v: str) -> int:
            try:
                return int(v)
            except ValueError:
                raise config_error(f"{where}: {key}", v, "a decimal integer") from None

        first = True
        for line in text.splitlines():
            if not line.strip():
                if info["cpus"]:
                    first = False
                continue
            k, _, v = (s.strip() for s in line.partition(":"))
            if k == "processor":
                info["cpus"] += 1
            elif first and k == "vendor_id":
                info["vendor"] = v
            elif first and k == "cpu family":
                info["family"] = number(k, v)
            elif first and k == "model":
                info["model"] = number(k, v)
            elif first and k == "model name":
                info["name"] = v
            elif first and k == "flags":
                info["flags"] = v.split()
        return info

    def llc_ways(self) -> int:
        """From CPUID leaf 4 on the real machine, else from sysfs (index3, or the highest index)."""
        if self.root == "/":
            from hostio.probe import geometry

            g = geometry()
            if g["vendor"] == "GenuineIntel" and g["cpuid"]:
                return max(g["cpuid"], key=lambda c: c["level"])["ways"]
        base = self.path("/sys/devices/system/cpu/cpu0/cache")
        best = (0, 0)
        try:
            for d in os.listdir(base):
                try:
                    lvl = int(open(os.path.join(base, d, "level")).read())
                    ways = int(open(os.path.join(base, d, "ways_of_associativity")).read())
                except (OSError, ValueError):
                    continue
                best = max(best, (lvl, ways))
        except OSError:
            pass
        if not best[1]:
            raise HostioError(f"cannot find the LLC's way count (CPUID leaf 4 or {base}/index*/ways_of_associativity)")
        return best[1]

    def socket_cpus(self) -> list[int]:
        """The first cpu of every package (IIO LLC WAYS is per socket)."""
        base = self.path("/sys/devices/system/cpu")
        seen: dict[str, int] = {}
        try:
            names = sorted((n for n in os.listdir(base) if n.startswith("cpu") and n[3:].isdigit()),
                           key=lambda n: int(n[3:]))
        except OSError:
            names = []
        for n in names:
            try:
                pkg = open(os.path.join(base, n, "topology/physical_package_id")).read().strip()
            except OSError:
                continue
            seen.setdefault(pkg, int(n[3:]))
        return sorted(seen.values()) or [0]

    def msr_path(self, cpu: int) -> str:
        return self.path(f"/dev/cpu/{cpu}/msr")

    def msr_read(self, cpu: int, msr: int) -> int:
        with _named(self.msr_path(cpu)):
            fd = os.open(self.msr_path(cpu), os.O_RDONLY)
            try:
                data = os.pread(fd, 8, msr)
            finally:
                os.close(fd)
        if len(data) != 8:
            raise OSError(5, f"MSR {msr:#x} gave {len(data)} of 8 bytes (an msr device gives 8)", self.msr_path(cpu))
        return struct.unpack("<Q", data)[0]

    def msr_write(self, cpu: int, msr: int, value: int) -> None:
        with _named(self.msr_path(cpu)):
            fd = os.open(self.msr_path(cpu), os.O_WRONLY)
            try:
                os.pwrite(fd, struct.pack("<Q", value), msr)
            finally:
                os.close(fd)

    # --- PCI -------------------------------------------------------------------------------
    def pci_dir(self) -> str:
        return self.path("/sys/bus/pci/devices")

    def config_path(self, bdf: str) -> str:
        return os.path.join(self.pci_dir(), bdf, "config")

    def config(self, bdf: str) -> bytes:
        with open(self.config_path(bdf), "rb") as f:
            return f.read()

    def config_read32(self, bdf: str, off: int) -> int:
        cfg = self.config(bdf)
        if len(cfg) < off + 4:
            raise HostioError(f"{self.config_path(bdf)}: only {len(cfg)} bytes readable, offset {off:#x} needs the "
                              "extended config space (root)")
        return struct.unpack_from("<I", cfg, off)[0]

    def config_write32(self, bdf: str, off: int, value: int) -> None:
        with open(self.config_path(bdf), "r+b") as f:
            f.seek(off)
            f.write(struct.pack("<I", value))

    def nics(self) -> list[str]:
        """PCI addresses of the devices behind /sys/class/net/*/device. The link may point at a
        child of the PCI function (virtio-net: ``.../0000:00:05.0/virtio2``), so the nearest
        PCI address on the resolved path is taken."""
        base = self.path("/sys/class/net")
        out: list[str] = []
        try:
            names = sorted(os.listdir(base))
        except OSError:
            names = []
        for n in names:
            dev = os.path.join(base, n, "device")
            if not os.path.exists(dev):
                continue
            parts = os.path.realpath(dev).split(os.sep)
            bdf = next((p for p in reversed(parts) if BDF_RE.match(p)), None)
            if bdf and bdf not in out:
                out.append(bdf)
        return out

    def find_root_port(self, nic: str) -> str:
        """The root port above ``nic`` (see the module doc); raises ``HostioError`` if none."""
        nic = normalise_bdf(nic)
        if not os.path.exists(self.config_path(nic)):
            raise config_error("nic", nic, f"a PCI device present in {self.pci_dir()}")
        dom, bus = nic.split(":")[0], int(nic.split(":")[1], 16)
        bridges = []
        for d in sorted(os.listdir(self.pci_dir())):
            if not d.startswith(dom + ":") or d == nic:
                continue
            try:
                cfg = self.config(d)
            except OSError:
                continue
            if len(cfg) < 0x40 or cfg[0x0E] & 0x7F != 1:
                continue
            sec, sub = cfg[0x19], cfg[0x1A]
            if sec <= bus <= sub:
                bridges.append((sub - sec, d, pcie_port_type(cfg)))
        roots = sorted(b for b in bridges if b[2] == 4)
        if not roots and bridges and self.euid != 0 and all(len(self.config(d)) <= 0x40 for _, d, _ in bridges):
            # The kernel shows other users a device's first 64 bytes only: no capability list.
            raise HostioError(f"needs root to find the PCIe root port above {nic}: only root reads the bridges' "
                              "capabilities in their PCI config space (run with sudo)")
        if not roots:
            found = ", ".join(f"{d} (port type {t})" for _, d, t in bridges) or "none"
            raise HostioError(f"no PCIe root port above {nic} (bridges whose bus range holds bus {bus:#04x}: {found}); "
                              "a device on the root complex's own bus (as in a virtual machine) has none")
        return roots[0][1]


def pcie_port_type(cfg: bytes) -> int | None:
    """Device/port type of the PCI Express capability (4 = root port), or None."""
    if len(cfg) < 0x40 or not (struct.unpack_from("<H", cfg, 0x06)[0] & 0x10):
        return None
    ptr, hops = cfg[0x34] & 0xFC, 0
    while ptr and ptr + 4 <= len(cfg) and hops < 48:
        if cfg[ptr] == 0x10:
            return (struct.unpack_from("<H", cfg, ptr + 2)[0] >> 4) & 0xF
        ptr, hops = cfg[ptr + 1] & 0xFC, hops + 1
    return None


# --- checks --------------------------------------------------------------------------------
def amd_counterpart(host: Host) -> dict:
    """SDCI state on AMD: MSR 0xC00003FF bit 1 (if readable) and resctrl io_alloc (if present)."""
    out: dict = {"msr": f"{MSR_AMD_SDCI:#x}", "sdci_alloc_limit_bit1": None, "msr_note": None, "io_alloc": None}
    try:
        v = host.msr_read(0, MSR_AMD_SDCI)
        out["msr_value"] = f"{v:#x}"
        out["sdci_alloc_limit_bit1"] = bool(v >> 1 & 1)
    except FileNotFoundError:
        out["msr_note"] = f"{host.msr_path(0)} missing (msr module not loaded)"
    except OSError as e:
        out["msr_note"] = f"{host.msr_path(0)}: {e.strerror or e} (not implemented here, e.g. under a hypervisor)"
    p = host.path("/sys/fs/resctrl/info/L3/io_alloc")
    try:
        out["io_alloc"] = open(p).read().strip()
    except OSError:
        out["io_alloc_note"] = f"{p} absent (resctrl not mounted or kernel < 6.19)"
    return out


def _amd_line(a: dict) -> str:
    msr = (f"bit 1 = {int(a['sdci_alloc_limit_bit1'])}" if a["sdci_alloc_limit_bit1"] is not None
           else a["msr_note"])
    io = a["io_alloc"] if a["io_alloc"] is not None else a.get("io_alloc_note")
    return f"AMD counterpart (SDCI): MSR {a['msr']}: {msr}; resctrl io_alloc: {io}"


def require_tunable(host: Host) -> tuple[dict, str]:
    """Raise ``HostioError`` unless this is an Intel part with a working IIO LLC WAYS register."""
    cpu = host.cpuinfo()
    if cpu["vendor"] != "GenuineIntel":
        raise HostioError(f"{cpu['name'] or cpu['vendor']}: not an Intel CPU, no DDIO to tune. "
                          + _amd_line(amd_counterpart(host)))
    if cpu["family"] == 6 and cpu["model"] in NO_EFFECT:
        raise HostioError(f"{cpu['name']} ({NO_EFFECT[cpu['model']]}, model {cpu['model']:#x}): MSR 0xC8B is "
                          "accepted on Ice Lake and later but has no effect; refusing to pretend")
    if cpu["family"] != 6 or cpu["model"] not in TUNABLE:
        raise HostioError(f"{cpu['name']} (family {cpu['family']} model {cpu['model']:#x}): no known DDIO way control "
                          "(supported: Haswell-EP, Broadwell-EP/DE, Skylake-SP/Cascade Lake)")
    return cpu, TUNABLE[cpu["model"]][1]


def require_root(host: Host) -> None:
    if host.euid != 0:
        raise HostioError("needs root: writes MSRs and PCI config space (run with sudo)")


def require_msr(host: Host, cpus: list[int]) -> None:
    for c in cpus:
        if not os.path.exists(host.msr_path(c)):
            if not os.path.isdir(host.path(f"/sys/devices/system/cpu/cpu{c}")):
                raise HostioError(f"{host.msr_path(c)} missing: this host has no cpu {c}")
            raise HostioError(f"{host.msr_path(c)} missing: msr module not loaded (modprobe msr)")


@contextlib.contextmanager
def _named(path: str):
    """An OSError from a read or write of `path` names it (``os.pread`` errors carry no path)."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            raise OSError(exc.errno, exc.strerror or str(exc), path) from None
        raise


# --- state file ------------------------------------------------------------------------------
def default_state_path(host: Host) -> str:
    return host.path("/var/lib/hostio/ddio_state.json")


#: The largest state file read back (one entry per socket and root port is a few hundred bytes).
MAX_STATE_BYTES = 1 << 20
#: The registers hostio changes, by kind: (offset, width in bytes).
_REGISTERS = {"msr": (MSR_IIO_LLC_WAYS, 8), "pci": (PERFCTRLSTS_0, 4)}


def _load_state(path: str) -> dict:
    """A state file written by `_save_state`, every entry's form checked before anything is
    changed: its kind, the one register hostio writes for that kind, the width, an old value that
    fits it, and a target that is a CPU number or a PCI address."""
    def bad(what: str, value) -> ConfigError:
        return config_error("state", path, f"a state file written by an earlier `hostio ddio` change ({what}: {value!r})")

    try:
        # A FIFO would block the open and a device (/dev/zero) never end: regular files only.
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise config_error("state", path, "a regular file written by an earlier `hostio ddio` change")
        with open(path, "rb") as f:
            data = f.read(MAX_STATE_BYTES + 1)
        if len(data) > MAX_STATE_BYTES:
            raise config_error("state", path, f"a state file written by an earlier `hostio ddio` change "
                                              f"(at most {MAX_STATE_BYTES} bytes)")
        state = json.loads(data.decode("utf-8"))
    except OSError as e:
        raise config_error("state", path, f"a readable state file ({e.strerror})") from None
    except ConfigError:
        raise
    except (ValueError, RecursionError) as e:
        # Not UTF-8, not JSON, an integer past Python's digit limit, or nesting too deep.
        raise bad("not JSON", str(e)[:200] or type(e).__name__) from None
    if not isinstance(state, dict) or not isinstance(state.get("entries"), list):
        raise bad("no list of entries", type(state).__name__)
    for i, e in enumerate(state["entries"]):
        if not isinstance(e, dict):
            raise bad(f"entry {i}", e)
        kind = e.get("kind")
        if kind not in _REGISTERS:
            raise bad(f"entry {i} kind", kind)
        offset, width = _REGISTERS[kind]
        if type(e.get("offset")) is not int or e["offset"] != offset:
            raise bad(f"entry {i} offset (hostio writes {offset:#x} for {kind})", e.get("offset"))
        if type(e.get("width")) is not int or e["width"] != width:
            raise bad(f"entry {i} width", e.get("width"))
        old = e.get("old")
        if type(old) is not int or not 0 <= old < 1 << (8 * width):
            raise bad(f"entry {i} old value ({8 * width}-bit)", old)
        target = e.get("target")
        if kind == "msr":
            if not isinstance(target, str) or not re.fullmatch(r"[0-9]+", target):
                raise bad(f"entry {i} target (a CPU number)", target)
        elif not isinstance(target, str) or not BDF_RE.match(target) or normalise_bdf(target) != target:
            raise bad(f"entry {i} target (a PCI address 0000:00:00.0)", target)
    return state


def _save_state(path: str, changes: list[dict]) -> None:
    """Record the old value of every target, keeping the first saved value of each."""
    state = {"version": 1, "entries": []}
    if os.path.exists(path):
        state = _load_state(path)
    have = {(e["kind"], e["target"], e["offset"]) for e in state["entries"]}
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    for c in changes:
        key = (c["kind"], c["target"], c["offset"])
        if key not in have:
            state["entries"].append({k: c[k] for k in ("kind", "target", "path", "offset", "width", "old")} | {"saved": now})
            have.add(key)

    def write(tmp: str) -> None:
        with open(tmp, "w") as f:
            json.dump(state, f, indent=2)

    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        outfile.replace(path, write)
    except OSError as e:
        raise config_error("state", path, f"a state file path this user may write ({e.strerror or e})") from None


# --- plans -----------------------------------------------------------------------------------
def _describe(c: dict) -> str:
    w = 16 if c["width"] == 8 else 8
    return (f"{c['path']} offset {c['offset']:#x} ({c['what']}): {c['old']:#0{w + 2}x} -> {c['new']:#0{w + 2}x}")


def apply(host: Host, changes: list[dict], state_path: str, dry_run: bool, note: str = "") -> list[str]:
    """Save the old values, then write (or, with ``dry_run``, only say what would be written)."""
    out = []
    if state_path.endswith(os.sep) or (os.altsep and state_path.endswith(os.altsep)):
        raise config_error("state", state_path, "a state file path (this one names a folder)")
    if dry_run:
        if os.path.exists(state_path):
            # Refused as the real run would refuse it (a folder, a damaged file).
            _load_state(state_path)
        out.append(f"dry run: would save old values to {shown(state_path)}")
        out += [f"dry run: would write {_describe(c)}" for c in changes]
        return out
    _save_state(state_path, changes)
    out.append(f"saved old values to {shown(state_path)}")
    for i, c in enumerate(changes):
        try:
            _write(host, c)
        except OSError as exc:
            raise _partly(exc, c, changes[:i], f"`hostio ddio restore --state {shown(state_path)}` puts them back") from None
        out.append(f"wrote {_describe(c)}")
    if note:
        out.append(note)
    return out


def _write(host: Host, c: dict) -> None:
    if c["kind"] == "msr":
        host.msr_write(int(c["target"]), c["offset"], c["new"])
    else:
        host.config_write32(c["target"], c["offset"], c["new"])


def _partly(exc: OSError, failed: dict, done: list[dict], undo: str) -> HostioError:
    """The error of a write that failed after `done` were written: says which were, and how to
    undo them."""
    where = f"{exc.filename or failed['path']}: {exc.strerror or exc}"
    if not done:
        return HostioError(f"{where} (nothing was written)")
    return HostioError(f"{where}; already written: " + "; ".join(_describe(c) for c in done) + f" ({undo})")


def plan_set(host: Host, ways: int | None = None, mask: int | None = None) -> tuple[list[dict], str]:
    """Changes that set the IIO LLC WAYS mask on every socket."""
    cpu, rule = require_tunable(host)
    llc_ways = host.llc_ways()
    default, _ = ddio_defaults(cpu["vendor"], cpu["family"], cpu["model"], llc_ways)
    if (ways is None) == (mask is None):
        raise config_error("ways/mask", f"{ways}/{mask}", "exactly one of --ways N or --mask HEX")
    if ways is not None:
        if not (2 <= ways <= llc_ways):
            raise config_error("ways", ways, f"2..={llc_ways} (fewer than the 2 default ways would clear default bits)")
        mask = ways_mask(ways, llc_ways, default)
    check_mask(mask, llc_ways, default, rule)
    require_root(host)
    sockets = host.socket_cpus()
    require_msr(host, sockets)
    changes = []
    for c in sockets:
        old = host.msr_read(c, MSR_IIO_LLC_WAYS)
        changes.append({"kind": "msr", "target": str(c), "path": host.msr_path(c), "offset": MSR_IIO_LLC_WAYS,
                        "width": 8, "old": old, "new": mask, "what": f"MSR 0xC8B IIO_LLC_WAYS, socket of cpu {c}"})
    return changes, f"I/O ways: {bin(mask).count('1')} of {llc_ways} (mask {mask:#x}, default {default:#x})"


def plan_port(host: Host, nic: str, enable: bool) -> tuple[list[dict], str]:
    """Changes that enable or disable allocating writes at the NIC's root port."""
    require_tunable(host)
    require_root(host)  # before the root port is looked for: other users cannot see its capabilities
    nic = normalise_bdf(nic)
    rp = host.find_root_port(nic)
    vendor = struct.unpack_from("<H", host.config(rp), 0)[0]
    if vendor != 0x8086:
        raise HostioError(f"root port {rp} of {nic} has vendor {vendor:#06x}, not Intel (0x8086): no perfctrlsts_0 there")
    old = host.config_read32(rp, PERFCTRLSTS_0)
    new = (old | USE_ALLOCATING_FLOW_WR) & ~NOSNOOP_OP_WR_EN if enable else (old | NOSNOOP_OP_WR_EN) & ~USE_ALLOCATING_FLOW_WR
    change = {"kind": "pci", "target": rp, "path": host.config_path(rp), "offset": PERFCTRLSTS_0, "width": 4,
              "old": old, "new": new, "what": f"perfctrlsts_0 of root port {rp} above {nic}"}
    return [change], f"DDIO {'enabled' if enable else 'disabled'} for {nic} at root port {rp}"


def plan_restore(host: Host, state_path: str) -> list[dict]:
    require_root(host)
    if not os.path.exists(state_path):
        raise config_error("state", state_path, "a state file written by an earlier `hostio ddio` change "
                           "(there is none: no change to undo, or it was written elsewhere, see --state)")
    state = _load_state(state_path)
    changes = []
    for e in state["entries"]:
        # The register's path on this host (the file's `path` is informational only).
        if e["kind"] == "msr":
            cpu = int(e["target"])
            require_msr(host, [cpu])
            cur, path = host.msr_read(cpu, e["offset"]), host.msr_path(cpu)
        else:
            cur, path = host.config_read32(e["target"], e["offset"]), host.config_path(e["target"])
        changes.append(dict(e, path=path, old=cur, new=e["old"], what="restore"))
    return changes


def restore(host: Host, state_path: str, dry_run: bool) -> list[str]:
    changes = plan_restore(host, state_path)
    if dry_run:
        return [f"dry run: would write {_describe(c)}" for c in changes] + [f"dry run: would rename {shown(state_path)} to {shown(state_path)}.restored"]
    out = []
    for i, c in enumerate(changes):
        try:
            _write(host, c)
        except OSError as exc:
            raise _partly(exc, c, changes[:i], f"the state file {shown(state_path)} is kept: run the restore again once the register is writable") from None
        out.append(f"wrote {_describe(c)}")
    os.replace(state_path, state_path + ".restored")
    out.append(f"restored; state kept as {shown(state_path)}.restored")
    return out


def status(host: Host, nic: str | None = None) -> dict:
    """Everything the tuner knows about this machine; never raises for a missing feature."""
    cpu = host.cpuinfo()
    st: dict = {"cpu": cpu["name"], "vendor": cpu["vendor"], "family": cpu["family"], "model": cpu["model"],
                "hypervisor": "hypervisor" in cpu["flags"], "ddio": None, "notes": []}
    intel = cpu["vendor"] == "GenuineIntel"
    if not intel:
        st["ddio"] = "no (not an Intel CPU)"
        st["amd"] = amd_counterpart(host) if cpu["vendor"] == "AuthenticAMD" else None
    elif cpu["family"] == 6 and cpu["model"] in TUNABLE:
        st["ddio"] = f"yes, tunable ({TUNABLE[cpu['model']][0]}, mask rule {TUNABLE[cpu['model']][1]})"
    elif cpu["family"] == 6 and cpu["model"] in NO_EFFECT:
        st["ddio"] = f"yes, but MSR 0xC8B has no effect on {NO_EFFECT[cpu['model']]}"
        st["notes"].append("warning: Ice Lake and later accept writes to 0xC8B without effect")
    else:
        st["ddio"] = "unknown part: no known DDIO way control"
    try:
        st["llc_ways"] = host.llc_ways()
    except HostioError as e:
        st["llc_ways"] = None
        st["notes"].append(str(e))
    if intel and st["llc_ways"]:
        default, rule = ddio_defaults(cpu["vendor"], cpu["family"], cpu["model"], st["llc_ways"])
        st["default_mask"] = f"{default:#x}"
        st["iio_llc_ways"] = []
        for c in host.socket_cpus():
            try:
                v = host.msr_read(c, MSR_IIO_LLC_WAYS)
                st["iio_llc_ways"].append({"cpu": c, "value": f"{v:#x}", "ways": bin(v).count("1")})
            except FileNotFoundError:
                st["iio_llc_ways"].append({"cpu": c, "error": "msr module not loaded (modprobe msr)"})
            except OSError as e:
                st["iio_llc_ways"].append({"cpu": c, "error": e.strerror or str(e)})
    st["nics"] = []
    for bdf in ([normalise_bdf(nic)] if nic else host.nics()):
        entry: dict = {"nic": bdf}
        try:
            rp = host.find_root_port(bdf)
            entry["root_port"] = rp
            v = host.config_read32(rp, PERFCTRLSTS_0)
            entry["perfctrlsts_0"] = f"{v:#010x}"
            entry["allocating_writes"] = bool(v & USE_ALLOCATING_FLOW_WR)
            entry["nosnoop_op_wr_en"] = bool(v & NOSNOOP_OP_WR_EN)
            if struct.unpack_from("<H", host.config(rp), 0)[0] != 0x8086:
                entry["note"] = "root port is not Intel's: bits above are meaningless there"
        except ConfigError:
            raise  # bad input (a NIC that is not there) is an error, not a status note
        except HostioError as e:
            entry["root_port"] = None
            entry["note"] = str(e)
        st["nics"].append(entry)
    return st


def format_status(st: dict) -> str:
    lines = [f"cpu: {st['cpu']} ({st['vendor']} family {st['family']} model {st['model']:#x})"
             + (", virtual machine" if st["hypervisor"] else ""),
             f"DDIO: {st['ddio']}", f"LLC ways: {st['llc_ways']}"]
    if st.get("amd"):
        lines.append(_amd_line(st["amd"]))
    if "default_mask" in st:
        lines.append(f"default I/O way mask: {st['default_mask']}")
        for e in st["iio_llc_ways"]:
            lines.append(f"MSR 0xC8B (cpu {e['cpu']}): " + (f"{e['value']} = {e['ways']} ways" if "value" in e else e["error"]))
    for n in st["nics"]:
        if n.get("root_port"):
            lines.append(f"NIC {n['nic']}: root port {n['root_port']}, perfctrlsts_0 {n['perfctrlsts_0']}: "
                         f"allocating writes {'on' if n['allocating_writes'] else 'off'}, "
                         f"NoSnoopOpWrEn {'on' if n['nosnoop_op_wr_en'] else 'off'}" + (f" ({n['note']})" if n.get("note") else ""))
        else:
            lines.append(f"NIC {n['nic']}: {n['note']}")
    if not st["nics"]:
        lines.append("NICs: none found under /sys/class/net")
    lines += st["notes"]
    return "\n".join(lines)
