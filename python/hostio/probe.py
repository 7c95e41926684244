"""``hostio probe``: measure this machine's memory hierarchy and turn it into a platform file.

What is measured (the mechanisms are documented in ``crates/hostio-hw/src/probe.rs``):

* load-to-use latency by working-set size, 4 KiB up to several times the LLC, by pointer
  chasing over a seeded random cyclic permutation of 64 B lines; the curve's plateaus give the
  L1/L2/LLC/DRAM latencies and where it steps gives the detected capacities. When no set of the
  LLC's range (2 × L2 to LLC / 2) ran closer to the L2 than to DRAM (another tenant evicting the
  LLC while it was measured), the sets from 2 × L2 up to the LLC are measured once more with more
  repetitions (``llc_retry`` in the report) before the LLC latency is reported missing;
* loaded latency: the DRAM-sized chase while every other cpu streams (needs ≥ 2 cpus);
* core-to-core: for every pair of cpus, ping-pong on one line (one-way = round trip / 2) and
  the latency of reading lines left Modified by the other core;
* streaming bandwidth (read, write = memset, copy = memcpy counted as read + write bytes) with
  one thread per cpu;
* cache geometry from CPUID (leaf 4 on Intel, 0x8000001D on AMD) and sysfs.

Times are TSC ticks converted with a frequency calibrated against CLOCK_MONOTONIC. Every
measurement runs on a thread pinned with ``sched_setaffinity``; each one is a separate call
into the compiled module (which releases the GIL), so Ctrl-C stops between two measurements.

Units: latencies in ns; ``bandwidth_gbps`` in gigabits per second (1e9 bit/s, the unit of the
name and of network links) and ``bandwidth_gbyte_s`` in gigabytes per second (1e9 byte/s).
"""
from __future__ import annotations

import datetime
import json
import math
import os
import statistics
from dataclasses import dataclass, field

import numpy as np

from hostio import _core
from hostio.errors import HostioError, config_error

KIB = 1024
MIB = 1024 * 1024

#: What a probe run can measure; ``tests`` selects a subset.
TESTS = ("latency", "loaded", "c2c", "bandwidth")

#: The platform-file keys a probe measures, in the order of the simulator's ``Platform`` struct
#: (which declares them, checks them and adds its optional keys with their defaults).
PLATFORM_KEYS = (
    "name", "clock_ghz", "cores_per_socket", "llc_ways", "llc_slices", "llc_mib_per_slice",
    "llc_inclusive", "l2_kib", "l2_ways", "ddio_default_mask", "ddio_mask_rule", "l1_latency_ns",
    "l2_latency_ns", "llc_latency_ns", "dram_latency_ns", "c2c_latency_ns", "memory_bandwidth_gbyte_s",
)


@dataclass
class ProbeOptions:
    """Options of one probe run. ``max_mib`` None = 4 × LLC (2 × LLC with ``quick``). ``tests``
    None = all of them, where those a single cpu cannot run are skipped with a note; tests named
    (even all four) are refused instead when they cannot run."""

    quick: bool = False
    max_mib: float | None = None
    reps: int | None = None
    seed: int = 1
    cpus: list[int] | None = None
    tests: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        self.named = self.tests is not None
        if self.tests is None:
            self.tests = TESTS

    def validate(self) -> None:
        if self.max_mib is not None and not (0.0625 <= self.max_mib <= 65536):
            raise config_error("max_mib", self.max_mib, "0.0625..=65536 MiB (at least 64 KiB)")
        if self.reps is not None and not (1 <= self.reps <= 1000):
            raise config_error("reps", self.reps, "1..=1000")
        if not 0 <= self.seed < 2**64:
            raise config_error("seed", self.seed, f"0..={2**64 - 1} (an unsigned 64-bit integer)")
        bad = [t for t in self.tests if t not in TESTS]
        if bad or not self.tests:
            raise config_error("tests", ",".join(self.tests), "a comma list of " + ", ".join(TESTS))
        allowed = _core.hw_allowed_cpus()
        for c in self.cpus or []:
            if c not in allowed:
                raise config_error("cpus", c, f"cpus this process may use: {allowed}")
        if self.cpus is not None and len(set(self.cpus)) != len(self.cpus):
            raise config_error("cpus", ",".join(map(str, self.cpus)), "distinct cpu numbers")

    def check_platform_file(self) -> None:
        """Refuse, before anything is measured, options under which no platform file can be
        written (``--platform-out``): it needs the latency curve up to DRAM (a working set of at
        least 2 × LLC), the core-to-core latency (two cpus) and the bandwidth."""
        missing = [t for t in ("latency", "c2c", "bandwidth") if t not in self.tests]
        if missing:
            raise config_error("tests", ",".join(self.tests), "latency, c2c and bandwidth among them: a platform file (--platform-out) needs all three")
        cpus = self.cpus if self.cpus is not None else _core.hw_allowed_cpus()
        if len(cpus) < 2:
            raise config_error("cpus", ",".join(map(str, cpus)), "at least 2 cpus: a platform file (--platform-out) needs the core-to-core latency")
        if self.max_mib is not None:
            llc = (geometry()["llc"] or {}).get("size_bytes") or 8 * MIB
            if self.max_mib * MIB < 2 * llc:
                raise config_error("max_mib", self.max_mib, f"at least {2 * llc / MIB:g} MiB (2 × this machine's LLC): a platform file (--platform-out) needs the DRAM latency")


def geometry() -> dict:
    """CPUID and sysfs view of the caches; ``levels`` (l1d, l2, l3) and ``llc`` are the merged
    view (sysfs sizes, CPUID's inclusiveness bit) computed by the compiled module."""
    g = json.loads(_core.hw_geometry())
    g["llc"] = g["levels"].pop("llc")
    return g


def cores_per_socket(root: str = "/") -> int:
    """Distinct (package 0) core ids from sysfs topology; the cpu count when that is missing."""
    base = os.path.join(root, "sys/devices/system/cpu")
    cores = set()
    try:
        names = os.listdir(base)
    except OSError:
        names = []
    for n in names:
        if not (n.startswith("cpu") and n[3:].isdigit()):
            continue
        topo = os.path.join(base, n, "topology")
        try:
            with open(os.path.join(topo, "physical_package_id")) as f:
                pkg = f.read().strip()
            with open(os.path.join(topo, "core_id")) as f:
                core = f.read().strip()
        except OSError:
            continue
        if pkg == "0":
            cores.add(core)
    return len(cores) or (os.cpu_count() or 1)


#: How many times the usual repetitions the LLC-range working sets get when the first pass found
#: no LLC plateau (see `run_probe`).
LLC_RETRY_REPS = 3

#: The note of a probe whose second pass still found no LLC plateau.
LLC_HELD = ("no working set between 2 × L2 and LLC / 2 ran faster than the geometric mean of the L2 and DRAM "
            "latencies, measured twice: this core cannot keep data in the LLC now (shared with other tenants?)")


def working_sets(max_bytes: int, quick: bool) -> list[int]:
    """4 KiB × 2^k (and × 1.5 · 2^k unless quick) up to ``max_bytes``."""
    out, b = [], 4 * KIB
    while b <= max_bytes:
        out.append(b)
        if not quick and b * 3 // 2 <= max_bytes:
            out.append(b * 3 // 2)
        b *= 2
    return out


def _median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def run_probe(opts: ProbeOptions, progress=None) -> dict:
    """Run the selected measurements and return the report (see the module doc for units)."""
    opts.validate()
    say = progress or (lambda msg: None)
    geo = geometry()
    cpus = opts.cpus if opts.cpus is not None else _core.hw_allowed_cpus()
    ghz = _core.hw_tsc_ghz()
    l1 = (geo["levels"]["l1d"] or {}).get("size_bytes") or 32 * KIB
    l2 = (geo["levels"]["l2"] or {}).get("size_bytes") or 256 * KIB
    llc = (geo["llc"] or {}).get("size_bytes") or 8 * MIB
    max_bytes = int((opts.max_mib * MIB) if opts.max_mib else (2 if opts.quick else 4) * llc)
    max_bytes = max(max_bytes, 64 * KIB)
    reps = opts.reps or (3 if opts.quick else 7)
    report: dict = {
        "tool": "hostio probe",
        "version": _core.__version__,
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {
            "vendor": geo["vendor"], "brand": geo["brand"], "family": geo["family"],
            "model": geo["model"], "stepping": geo["stepping"], "hypervisor": geo["hypervisor"],
            "cpus": cpus, "tsc_ghz": ghz, "cores_per_socket": cores_per_socket(),
        },
        "geometry": {"cpuid_cache_leaf": geo["cpuid_cache_leaf"], "cpuid": geo["cpuid"], "sysfs": geo["sysfs"],
                     "levels": geo["levels"]},
        "settings": {"quick": opts.quick, "max_bytes": max_bytes, "reps": reps, "seed": opts.seed,
                     "tests": list(opts.tests)},
        "latency_curve": [], "latency_ns": {"l1": None, "l2": None, "llc": None, "dram": None},
        "detected_kib": {"l1": None, "l2": None, "llc": None},
        "loaded_latency_ns": None, "c2c_ns": None, "c2c_modified_read_ns": None, "c2c_pairs": [],
        "bandwidth_gbps": {"read": None, "write": None, "copy": None},
        "bandwidth_gbyte_s": {"read": None, "write": None, "copy": None},
        "llc_retry": None,
        "notes": [],
    }
    pair_tests = [t for t in ("c2c", "loaded") if t in opts.tests]
    if pair_tests and len(cpus) < 2:
        if opts.named:  # asked for by name: refuse
            raise HostioError(
                f"{' and '.join(pair_tests)} need{'s' if len(pair_tests) == 1 else ''} two cpus (c2c: one per side; loaded: one "
                "measuring while another streams); "
                + (f"--cpus gives only {cpus}" if opts.cpus is not None else f"this process may use only {cpus}"))
        report["notes"].append(f"one cpu ({cpus}): core-to-core and loaded latency skipped")
        pair_tests = []

    if "latency" in opts.tests or "loaded" in opts.tests:
        say(f"latency: {len(working_sets(max_bytes, opts.quick))} working sets up to {max_bytes / MIB:g} MiB")
        def chase(b: int, reps: int) -> dict:
            cfg = {"bytes": b, "seed": opts.seed, "cpu": cpus[0], "reps": reps}
            if opts.quick:
                cfg["loads"] = max(8, min(2 * b // 64, 1 << 20))
            p = json.loads(_core.hw_chase(json.dumps(cfg)))
            return {"bytes": b, "ns": p["ns"]["median"], "ns_min": p["ns"]["min"], "ns_max": p["ns"]["max"],
                    "spread": _spread(p["ns"])}

        report["latency_curve"] = [chase(b, reps) for b in working_sets(max_bytes, opts.quick)]
        lv = json.loads(_core.hw_levels([(p["bytes"], p["ns"]) for p in report["latency_curve"]], l1, l2, llc))
        lat = lv["latency_ns"]
        if lat[2] is None and lat[1] is not None and lat[3] is not None:
            # No LLC-range working set ran closer to the L2 than to DRAM: on a shared host another
            # tenant may have evicted it while it was measured. The LLC's sets (2 × L2 up to the
            # LLC, the range its latency and its size are read from) are measured once more, with
            # LLC_RETRY_REPS times the repetitions, before the LLC latency is given up.
            again = [i for i, p in enumerate(report["latency_curve"]) if 2 * l2 <= p["bytes"] <= llc]
            if any(report["latency_curve"][i]["bytes"] <= llc // 2 for i in again):
                say(f"latency: no LLC plateau; {len(again)} working sets from 2 × L2 to the LLC again")
                for i in again:
                    report["latency_curve"][i] = chase(report["latency_curve"][i]["bytes"], LLC_RETRY_REPS * reps)
                lv = json.loads(_core.hw_levels([(p["bytes"], p["ns"]) for p in report["latency_curve"]], l1, l2, llc))
                report["llc_retry"] = {"bytes": [report["latency_curve"][i]["bytes"] for i in again],
                                       "reps": LLC_RETRY_REPS * reps, "found": lv["latency_ns"][2] is not None}
                if not report["llc_retry"]["found"]:
                    report["notes"].append(LLC_HELD)
        if lv["latency_ns"][2] is None and report["llc_retry"] is None and lv["latency_ns"][1] is not None:
            report["notes"].append(f"no working set between 2 × L2 and LLC / 2 ({2 * l2 / MIB:g}–{llc / 2 / MIB:g} "
                                   "MiB): LLC latency not measured")
        report["latency_ns"] = dict(zip(("l1", "l2", "llc", "dram"), lv["latency_ns"]))
        report["detected_kib"] = {k: (v // KIB if v else None)
                                  for k, v in zip(("l1", "l2", "llc"), lv["detected_bytes"])}
        if report["latency_ns"]["dram"] is None:
            report["notes"].append(f"no working set ≥ 2 × LLC ({2 * llc / MIB:g} MiB): DRAM latency not measured")

    if "loaded" in pair_tests:
        say("loaded latency")
        cfg = {"bytes": max_bytes, "seed": opts.seed, "cpu": cpus[0], "reps": max(1, reps // 2)}
        if opts.quick:
            cfg["loads"] = max(8, min(2 * max_bytes // 64, 1 << 20))
        lp = json.loads(_core.hw_loaded_chase(json.dumps(cfg), cpus[1:], max_bytes))
        report["loaded_latency_ns"] = {"bytes": max_bytes, "ns": lp["ns"]["median"], "stream_cpus": cpus[1:],
                                       "stream_gbyte_s": lp["stream_gbyte_s"]}

    if "c2c" in pair_tests:
        pairs = [(a, b) for i, a in enumerate(cpus) for b in cpus[i + 1:]]
        say(f"core-to-core: {len(pairs)} pair(s)")
        for a, b in pairs:
            cfg = {"a": a, "b": b, "samples": 21 if opts.quick else 101, "rounds": 100 if opts.quick else 500,
                   "seed": opts.seed}
            r = json.loads(_core.hw_c2c_pair(json.dumps(cfg)))
            report["c2c_pairs"].append({"a": a, "b": b, "one_way_ns": r["one_way_ns"],
                                        "rtt_ns_p10": r["rtt_ns"]["p10"], "rtt_ns_p90": r["rtt_ns"]["p90"],
                                        "modified_read_ns": r["modified_read_ns"]["median"],
                                        "spread": _spread(r["rtt_ns"])})
        report["c2c_ns"] = _median(p["one_way_ns"] for p in report["c2c_pairs"])
        report["c2c_modified_read_ns"] = _median(p["modified_read_ns"] for p in report["c2c_pairs"])

    if "bandwidth" in opts.tests:
        bw_bytes = max(max_bytes, MIB)
        say(f"bandwidth: {bw_bytes / MIB:g} MiB over {len(cpus)} thread(s)")
        if bw_bytes < 2 * llc:
            report["notes"].append(f"bandwidth buffer {bw_bytes / MIB:g} MiB < 2 × LLC: cache, not DRAM, bandwidth")
        for kind in ("read", "write", "copy"):
            cfg = {"kind": kind, "bytes": bw_bytes, "cpus": cpus, "reps": reps}
            r = json.loads(_core.hw_bandwidth(json.dumps(cfg)))
            report["bandwidth_gbyte_s"][kind] = r["gbyte_s"]["median"]
            report["bandwidth_gbps"][kind] = r["gbyte_s"]["median"] * 8
        report["bandwidth_buffer_bytes"] = bw_bytes
    return report


def _spread(s: dict) -> float:
    """(p90 − p10) / median."""
    return (s["p90"] - s["p10"]) / s["median"] if s["median"] else 0.0


def platform_dict(report: dict) -> dict:
    """The simulator's platform table from a probe report. Raises ``HostioError`` naming the
    measurement that is missing."""
    from hostio.ddio_tuner import ddio_defaults

    lv = report["geometry"]["levels"]
    llc = lv["l3"] or lv["l2"]
    l2 = lv["l2"]
    lat = report["latency_ns"]
    need = {"l1_latency_ns": lat["l1"], "l2_latency_ns": lat["l2"], "llc_latency_ns": lat["llc"],
            "dram_latency_ns": lat["dram"], "c2c_latency_ns": report["c2c_ns"],
            "memory_bandwidth_gbyte_s": report["bandwidth_gbyte_s"]["read"], "llc": llc, "l2": l2}
    missing = [k for k, v in need.items() if v is None]
    if missing == ["llc_latency_ns"]:
        if report.get("llc_retry"):
            raise HostioError(f"platform file needs llc_latency_ns: {LLC_HELD}; run probe again when the host is quieter")
        raise HostioError("platform file needs llc_latency_ns: no working set between 2 × L2 and LLC / 2 was measured "
                          "(there is none when the LLC is under 4 × L2; without --quick, probe measures 1.5 × 2^k "
                          "sizes too)")
    if missing:
        raise HostioError(
            "platform file needs " + ", ".join(missing) + ": run probe with latency, c2c and bandwidth "
            "on ≥ 2 cpus and a working set of at least 2 × LLC (--max-mib)")
    m = report["machine"]
    mask, rule = ddio_defaults(m["vendor"], m["family"], m["model"], llc["ways"])
    slices, _why = llc_slices(m["vendor"], llc)
    return {
        "name": (m["brand"] or m["vendor"]) + (" (virtual machine)" if m["hypervisor"] else ""),
        "clock_ghz": round(m["tsc_ghz"], 4),
        "cores_per_socket": int(m["cores_per_socket"]),
        "llc_ways": int(llc["ways"]),
        "llc_slices": slices,
        "llc_mib_per_slice": llc["size_bytes"] / MIB / slices,
        "llc_inclusive": bool(llc.get("inclusive")),
        "l2_kib": int(l2["size_bytes"] // KIB),
        "l2_ways": int(l2["ways"]),
        "ddio_default_mask": int(mask),
        "ddio_mask_rule": rule,
        "l1_latency_ns": round(lat["l1"], 3),
        "l2_latency_ns": round(lat["l2"], 3),
        "llc_latency_ns": round(lat["llc"], 3),
        "dram_latency_ns": round(lat["dram"], 3),
        "c2c_latency_ns": round(report["c2c_ns"], 3),
        # The line transfer the probe measured is the one `hostio ringbench`'s coherent-link
        # model uses, so the simulator's coherent NIC on this platform uses it too.
        "coherent_line_ns": round(max(report["c2c_ns"], 1.0), 3),
        "memory_bandwidth_gbyte_s": round(report["bandwidth_gbyte_s"]["read"], 3),
        # Whether MBA can throttle this machine's cores (left to the simulator's default, true,
        # when the kernel's CPU flags cannot be read).
        **({} if (mba := has_mba()) is None else {"mba": mba}),
        **({} if (curve := dram_load_curve(report)[0]) is None else {"dram_load_curve": curve}),
    }


def dram_load_curve(report: dict) -> tuple[list | None, str]:
    """The platform file's ``dram_load_curve`` and how it was found. With a usable loaded-latency
    point: ``[0, 1]``, the measured point (the streaming cpus' bandwidth over the read bandwidth,
    the loaded latency over the idle DRAM latency), and above that load the Skylake-SP preset's
    curve (Intel MLC on a Gold 6140) with its rise scaled to pass through the measured point, since
    one point gives no shape. A point is usable from a quarter of the read bandwidth (below, the
    rise is too small to scale by) up to the top of the Skylake-SP curve's loads (streams beyond
    the read bandwidth are an inconsistent measurement), with the loaded latency above idle.
    Otherwise None, and the file takes the simulator's default, the Skylake-SP curve."""
    sky = json.loads(_core.preset("skylake-gold-6140"))["dram_load_curve"]
    skylake = "the Skylake-SP preset's (Intel MLC --loaded_latency on a Xeon Gold 6140)"
    ll, idle, bw = report.get("loaded_latency_ns"), report["latency_ns"].get("dram"), report["bandwidth_gbyte_s"]["read"]
    if not ll:
        return None, f"not measured here: {skylake}"
    numbers = (ll.get("ns"), ll.get("stream_gbyte_s"), idle, bw)
    if not all(isinstance(v, (int, float)) and math.isfinite(v) and v > 0 for v in numbers):
        return None, f"{skylake}: the loaded-latency test gave no usable numbers"
    ns, streamed = numbers[:2]
    rho, factor = round(streamed / bw, 3), round(min(ns / idle, 100.0), 3)
    if not (0.25 <= rho <= sky[-1][0] and factor > 1):
        return None, (f"{skylake}: the loaded latency measured ({ns:.1f} ns, {factor:g}x idle, while {streamed:.1f} GB/s streamed, "
                      f"{rho:g} of the read bandwidth) is no point to scale it by (a load from 0.25 to {sky[-1][0]:g}, above idle)")
    at = float(np.interp(rho, [p[0] for p in sky], [p[1] for p in sky]))
    scale = (factor - 1) / (at - 1)
    beyond = [[r, round(min(1 + (f - 1) * scale, 100.0), 3)] for r, f in sky if r > rho]
    why = (f"{ns:.1f} ns ({factor:g}x idle) measured while {streamed:.1f} GB/s streamed ({rho:g} of the read bandwidth)"
           + (f"; above that load the Skylake-SP preset's curve (Intel MLC on a Gold 6140), its rise scaled by {scale:.3g}" if beyond else ""))
    return [[0.0, 1.0], [rho, factor]] + beyond, why


def has_mba(cpuinfo: str = "/proc/cpuinfo") -> bool | None:
    """Whether the CPU has Memory Bandwidth Allocation: Linux's ``mba`` CPU flag
    (``X86_FEATURE_MBA``, from CPUID leaf 10H on Intel); None when the flags cannot be read."""
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return "mba" in line.partition(":")[2].split()
    except OSError:
        return None
    return None


def llc_slices(vendor: str, llc: dict) -> tuple[int, str]:
    """LLC slice count for the platform file, and how it was found. Neither CPUID nor sysfs
    gives it. Intel server LLCs since Haswell-EP have 2048 sets per slice (Haswell-EP E5-2699 v3:
    18 × 2.5 MiB, Skylake-SP Gold 6140: 18 × 1.375 MiB, Ice Lake-SP: 1.5 MiB, 12 ways), so there it
    is the set count / 2048. Otherwise 1 ("unknown") when the sets are a power of two, else the odd
    factor of the set count: the fewest slices with power-of-two sets each, which the simulator's
    set indexing requires."""
    sets = int(llc.get("sets") or 0)
    if sets <= 0:
        return 1, "unknown"
    if vendor == "GenuineIntel" and sets % 2048 == 0:
        return sets // 2048, "Intel server LLC: 2048 sets per slice"
    odd = sets
    while odd % 2 == 0:
        odd //= 2
    if odd == 1:
        return 1, "unknown (1)"
    return odd, "unknown: fewest slices with power-of-two sets each"


def platform_toml(report: dict) -> str:
    """Platform file text, with a comment header saying how it was measured."""
    p = platform_dict(report)
    s = report["settings"]
    header = [
        f"hostio platform file, measured by `hostio probe` {report['version']} on {report['date_utc']}",
        f"cpu: {report['machine']['brand']} ({report['machine']['vendor']} family {report['machine']['family']} "
        f"model {report['machine']['model']}){', under a hypervisor' if report['machine']['hypervisor'] else ''}",
        f"latencies: pointer chasing, 64 B lines in a random cycle (seed {s['seed']}), {s['reps']} reps, median; "
        f"working sets 4 KiB..{s['max_bytes'] / MIB:g} MiB",
        "c2c_latency_ns: ping-pong on one line, round trip / 2, median over cpu pairs",
        f"memory_bandwidth_gbyte_s: read stream over {report.get('bandwidth_buffer_bytes', 0) / MIB:g} MiB, "
        f"{len(report['machine']['cpus'])} thread(s), GB/s = 1e9 B/s",
        "clock_ghz: TSC frequency calibrated against CLOCK_MONOTONIC",
        "dram_load_curve: " + dram_load_curve(report)[1],
        f"llc_slices: {llc_slices(report['machine']['vendor'], report['geometry']['levels']['l3'] or report['geometry']['levels']['l2'])[1]}",
        "cache sizes and ways: CPUID/sysfs (nominal); where the latency curve steps (usable): "
        + ", ".join(f"{k.upper()} {v} KiB" if v else f"{k.upper()} -" for k, v in report.get("detected_kib", {}).items()),
        "use as: platform.preset = \"file:PATH\"",
    ]
    return _core.hw_platform_toml(json.dumps(p), header)


def _fmt(v, unit="", nd=1):
    return "—" if v is None else f"{v:.{nd}f}{unit}"


def format_summary(r: dict) -> str:
    """The human-readable report."""
    m = r["machine"]
    lines = [f"{m['brand'] or m['vendor']}  (family {m['family']} model {m['model']}"
             f"{', virtual machine' if m['hypervisor'] else ''}); cpus {m['cpus']}; TSC {m['tsc_ghz']:.3f} GHz"]
    for name, c in r["geometry"]["levels"].items():
        if c:
            inc = {True: "inclusive", False: "non-inclusive", None: "inclusive?"}[c.get("inclusive")]
            lines.append(f"  {name:4} {c['size_bytes'] // KIB:>7} KiB  {c['ways']:>2}-way  {c['sets']:>6} sets  "
                         f"{c['line_bytes']} B lines  shared by {c['shared_by']}  {inc}")
    if r["latency_curve"]:
        lines.append("latency by working set (ns per dependent load, median; spread = (p90-p10)/median):")
        for p in r["latency_curve"]:
            b = p["bytes"]
            size = f"{b // MIB} MiB" if b >= MIB and b % MIB == 0 else f"{b / KIB:g} KiB"
            lines.append(f"  {size:>10}  {p['ns']:8.2f}  (spread {p['spread']:.2f})")
        lat, det = r["latency_ns"], r["detected_kib"]
        lines.append(f"plateaus: L1 {_fmt(lat['l1'], ' ns', 2)}  L2 {_fmt(lat['l2'], ' ns')}  "
                     f"LLC {_fmt(lat['llc'], ' ns')}  DRAM {_fmt(lat['dram'], ' ns')}")
        lines.append("detected sizes: " + "  ".join(f"{k.upper()} {v} KiB" if v else f"{k.upper()} —"
                                                    for k, v in det.items()))
    if r["loaded_latency_ns"]:
        ll = r["loaded_latency_ns"]
        cpus = ll["stream_cpus"]
        who = f"cpu {cpus[0]} streams" if len(cpus) == 1 else f"cpus {','.join(map(str, cpus))} stream"
        lines.append(f"loaded latency: {ll['ns']:.1f} ns at {ll['bytes'] / MIB:g} MiB while {who} "
                     f"{ll['stream_gbyte_s']:.1f} GB/s")
    for p in r["c2c_pairs"]:
        lines.append(f"core-to-core {p['a']}<->{p['b']}: one-way {p['one_way_ns']:.1f} ns (ping-pong RTT/2), "
                     f"read of a line Modified there {p['modified_read_ns']:.1f} ns")
    if r["c2c_ns"] is not None:
        lines.append(f"c2c (median over pairs): {r['c2c_ns']:.1f} ns")
    bw = r["bandwidth_gbyte_s"]
    if bw["read"] is not None:
        lines.append(f"bandwidth ({len(m['cpus'])} thread(s), {r['bandwidth_buffer_bytes'] / MIB:g} MiB): "
                     f"read {bw['read']:.1f}  write {bw['write']:.1f}  copy {bw['copy']:.1f} GB/s "
                     f"(= {r['bandwidth_gbps']['read']:.0f} / {r['bandwidth_gbps']['write']:.0f} / "
                     f"{r['bandwidth_gbps']['copy']:.0f} Gbps)")
    for n in r["notes"]:
        lines.append(f"note: {n}")
    return "\n".join(lines)
