"""Fuzzing of the Python API and the command line (Hypothesis).

Properties, each over ``CASES`` generated inputs (default 25, a short campaign for ``make test``;
``make fuzz CASES=N`` runs a long one):

* ``hostio.check`` / ``hostio.run`` on mutated scenario mappings, overrides and seeds either return
  or raise ``ConfigError`` with a one-line message; an accepted scenario is simulated briefly with
  the simulator's invariants checked (packet conservation, rates in [0, 1], no negative queue).
* The PCIe model functions on arbitrary arguments: the same rule.
* ``hostio.cli.main`` in-process on generated argument lists: exit status 0 or 2, no exception,
  one line on stderr when it fails, no file written except the output path it was given.
* The installed ``hostio`` command as a subprocess (``CASES // 10`` inputs, at least 3): exit status
  0 or 2, no traceback or panic, done within 10 s, nothing written outside its output path,
  ``/dev/null`` still a device.
* ``sweep``, ``advise`` and ``report`` through ``hostio.cli.main`` in-process (``CASES // 5``
  inputs, at least 3; tiny axes and knobs, one or two seeds, 20 µs runs; ``report`` on a copy of a
  finished two-point sweep): exit status 0, 1 (failed points, advice not met) or 2, one line on
  stderr when 2, no traceback or panic, nothing written outside the output folder or file.

Every case must finish within 10 s (Hypothesis' deadline).
"""
from __future__ import annotations

import contextlib
import functools
import io
import math
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings, strategies as st

import hostio
from hostio import cli, pcie, sim

CASES = int(os.environ.get("CASES", "25"))
SETTINGS = settings(max_examples=CASES, deadline=timedelta(seconds=10), database=None, derandomize=False,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.function_scoped_fixture])
SHORT = ["run.duration_us=20", "run.warmup_us=5"]
#: Host memory grows with the simulated memory: bigger scenarios are checked but not simulated.
RUN_MEMORY_MIB = 512

KEYS = [
    "run.seed", "run.duration_us", "run.warmup_us", "run", "platform", "platform.preset", "platform.ddio",
    "platform.ddio_ways", "platform.ddio_mask", "platform.llc_ways", "platform.llc_slices",
    "platform.llc_mib_per_slice", "platform.replacement", "platform.sockets", "nics.nic0.socket",
    "nics.nic0.line_rate_gbps", "nics.nic0.rx_descriptors", "nics.nic0.tx_descriptors", "nics.nic0.pause_frames",
    "nics.nic0.ddio", "nics.nic0.ddio_lines", "nics.nic0.ddio_mask", "nics.nic0.stash_lines", "nics.nic0.buffer_kib", "nics.nic0.design", "nics.nic0.pcie", "nics.nic0.pcie.gen",
    "nics.nic0.pcie.lanes", "nics.nic0.pcie.mps", "nics.nic0.pcie.mrrs", "nics.nic0.pcie.rcb",
    "nics.nic0.pcie.addr_bits", "nics.nic1.socket", "traffic.t0.nic", "traffic.t0.rate_gbps",
    "traffic.t0.packet_size", "traffic.t0.size_mix", "traffic.t0.flows", "traffic.t0.flow_skew",
    "traffic.t0.imbalance", "traffic.t0.train_packets", "nics.nic0.tx_release", "nics.nic0.tx_read_window_kib", "apps.fwd.kind",
    "apps.fwd.nic", "apps.fwd.cores", "apps.fwd.socket", "apps.fwd.mempool_socket", "apps.fwd.cat_mask",
    "apps.fwd.cycles_per_packet", "apps.fwd.working_set_mib", "apps.fwd.accesses_per_us",
    "apps.fwd.accesses_per_packet", "apps.fwd.mba_percent", "apps.hog.kind", "apps.hog.working_set_mib",
    "apps.hog.accesses_per_us", "apps.hog.cores", "apps.hog.socket", "junk", "run.junk",
    "nics.nic0.attachment", "nics.nic0.coherent", "nics.nic0.coherent.link", "nics.nic0.coherent.signaling",
    "nics.nic0.coherent.layout", "nics.nic0.coherent.homing", "nics.nic0.coherent.pool", "nics.nic0.netdimm",
    "nics.nic0.netdimm.ncache_kib", "nics.nic0.netdimm.prefetch_lines", "nics.nic0.netdimm.channel",
    "nics.nic0.netdimm.clone", "nics.nic0.netdimm.allocator",
]
WORDS = ["nic0", "nic1", "l2fwd", "compute", "cache-hungry", "stateful-chain", "copy", "rowclone", "subarray", "imix", "campus",
         "skylake-gold-6140", "haswell-e5-2699v3", "icelake-silver-4314", "file:/nonexistent", "", "lru", "qlru",
         "plru", "random", "cx5", "simple", "kernel", "dpdk", "0x600", "completion", "threshold", "é",
         "pcie", "integrated", "coherent", "memory-channel", "upi", "cxl", "inline", "doorbell", "padded", "packed",
         "grouped", "writer", "reader", "shared", "queues", "ddr4-2400", "ddr5-4800"]
NUMBERS = [0, 1, 2, 3, 4, 8, 16, 32, 64, 100, 1500, 4096, 65536, -1, 2**31, 2**63 - 1, 2**64, -(2**63), 0.5, 1.375,
           1e300, -0.0, math.nan, math.inf, -math.inf]

#: Values a key accepts (or nearly), so that many generated scenarios pass validation and run.
PLAUSIBLE = {
    "run.seed": [0, 7, 2**63 - 1], "run.duration_us": [1, 15.5], "run.warmup_us": [0, 3],
    "platform.preset": ["skylake-gold-6140", "haswell-e5-2699v3", "icelake-silver-4314"],
    "platform.ddio": [True, False], "platform.ddio_ways": [2, 4, 11], "platform.ddio_mask": [0x600, 0x7ff, 0x700],
    "platform.llc_ways": [2, 11, 16, 20], "platform.llc_slices": [1, 3, 18], "platform.llc_mib_per_slice": [1.375, 2.5],
    "platform.replacement": ["lru", "plru", "qlru", "random"], "platform.sockets": [1, 2],
    "nics.nic0.socket": [0, 1], "nics.nic0.line_rate_gbps": [1, 40, 200, 800], "nics.nic0.rx_descriptors": [32, 256, 4096],
    "nics.nic0.tx_descriptors": [32, 512], "nics.nic0.pause_frames": [True, False], "nics.nic0.ddio": [True, False],
    "nics.nic0.ddio_lines": [1, 2, 24, 256], "nics.nic0.ddio_mask": [0x600, 0x180, 0x7ff, 0x1], "nics.nic0.stash_lines": [1, 2, 256],
    "nics.nic0.buffer_kib": [16, 64, 4096], "nics.nic0.design": ["cx5", "simple", "kernel", "dpdk"],
    "nics.nic0.pcie.gen": [1, 3, 5], "nics.nic0.pcie.lanes": [1, 4, 16], "nics.nic0.pcie.mps": [128, 512],
    "nics.nic0.pcie.mrrs": [128, 4096], "nics.nic0.pcie.rcb": [64, 128], "nics.nic0.pcie.addr_bits": [32, 64],
    "traffic.t0.rate_gbps": [0.5, 10, 100], "traffic.t0.packet_size": [64, 65, 1500, 9018],
    "traffic.t0.flows": [1, 7, 100000], "traffic.t0.flow_skew": [0, 0.99, 4],
    "traffic.t0.imbalance": [1, 1.69, 2.78, 8, 64], "traffic.t0.train_packets": [1, 32, 4096],
    "nics.nic0.tx_release": ["completion", "threshold"], "nics.nic0.tx_read_window_kib": [2, 11, 65536],
    "apps.fwd.kind": ["l2fwd", "stateful-chain", "copy"], "apps.fwd.cores": [1, 3, 8], "apps.fwd.socket": [0, 1],
    "apps.fwd.mempool_socket": [0, 1], "apps.fwd.cat_mask": [0x7ff, 0x3, 0x600], "apps.fwd.cycles_per_packet": [0, 500],
    "apps.fwd.working_set_mib": [0.001, 1, 64], "apps.fwd.accesses_per_packet": [0, 1, 16],
    "apps.fwd.mba_percent": [10, 50, 100], "apps.hog.kind": ["cache-hungry"], "apps.hog.working_set_mib": [0.5, 8, 100],
    "apps.hog.accesses_per_us": [0.1, 100, 10000], "apps.hog.cores": [1, 2], "apps.hog.socket": [0, 1],
    "nics.nic0.attachment": ["pcie", "integrated", "coherent", "memory-channel"],
    "nics.nic0.coherent.link": ["upi", "cxl"], "nics.nic0.coherent.signaling": ["inline", "doorbell"],
    "nics.nic0.coherent.layout": ["padded", "packed", "grouped"], "nics.nic0.coherent.homing": ["writer", "reader"],
    "nics.nic0.coherent.pool": ["shared", "queues"], "nics.nic0.netdimm.ncache_kib": [1, 256, 65536],
    "nics.nic0.netdimm.prefetch_lines": [0, 4, 64], "nics.nic0.netdimm.channel": ["ddr4-2400", "ddr5-4800"],
    "nics.nic0.netdimm.clone": ["rowclone", "copy"], "nics.nic0.netdimm.allocator": ["subarray", "any"],
}

scalars = st.one_of(
    st.sampled_from(NUMBERS), st.integers(-(2**70), 2**70), st.integers(0, 5000), st.floats(allow_nan=True),
    st.sampled_from(WORDS), st.text(max_size=8), st.booleans(),
)
values = st.one_of(scalars, st.lists(scalars, max_size=3), st.dictionaries(st.sampled_from(["a", "gen", "seed"]), scalars, max_size=2))


def base() -> dict:
    return {"run": {"duration_us": 20, "warmup_us": 5}, "nics": {"nic0": {}},
            "traffic": {"t0": {"nic": "nic0", "packet_size": 1500}}, "apps": {"fwd": {"kind": "l2fwd", "nic": "nic0"}}}


def put(d: dict, path: str, value) -> None:
    parts = path.split(".")
    for p in parts[:-1]:
        nxt = d.get(p)
        if not isinstance(nxt, dict):
            nxt = d[p] = {}
        d = nxt
    d[parts[-1]] = value


def literal(v) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, str):
        return v
    return repr(v)


overrides = st.lists(st.one_of(st.sampled_from(sorted(PLAUSIBLE)).flatmap(lambda k: st.tuples(st.just(k), st.sampled_from(PLAUSIBLE[k]))),
                               st.tuples(st.sampled_from(KEYS), values)).map(lambda kv: f"{kv[0]}={literal(kv[1])}"),
                     max_size=3)


def assert_user_error(e: BaseException) -> None:
    assert isinstance(e, hostio.ConfigError), f"{type(e).__name__}: {e}"
    msg = str(e)
    assert msg and "\n" not in msg, repr(msg)


def edit_for(key: str):
    good = PLAUSIBLE.get(key)
    return st.tuples(st.just(key), st.sampled_from(good) if good else values)


#: Mostly plausible edits (these scenarios run), some arbitrary ones (these exercise the checks).
edits_strategy = st.lists(st.one_of(st.sampled_from(sorted(PLAUSIBLE)).flatmap(edit_for),
                                    st.tuples(st.sampled_from(KEYS), values)), max_size=4)


@SETTINGS
@given(edits=edits_strategy, ov=overrides,
       seed=st.one_of(st.none(), st.integers(-5, 2**64 + 5), st.sampled_from([2**64 - 1, 0, -1])))
def test_api_scenarios(edits, ov, seed):
    sc = base()
    for k, v in edits:
        put(sc, k, v)
    try:
        resolved = sim.check(sc, set=ov)
    except Exception as e:  # noqa: BLE001 - the property is about which exceptions escape
        assert_user_error(e)
        event("scenario refused")
        return
    if resolved["simulated_memory_mib"] > RUN_MEMORY_MIB:
        event("scenario accepted, too large to simulate here")
        return
    event("scenario simulated")
    try:
        r = sim.run(sc, set=ov + SHORT, seed=seed, check_invariants=True)
    except Exception as e:  # noqa: BLE001
        assert seed is not None and not 0 <= seed < 2**64, f"{type(e).__name__}: {e}"
        assert_user_error(e)
        return
    m = r["metrics"]
    for rate in (m["pcie_write_hit_rate"], m["pcie_read_hit_rate"]):
        assert rate is None or 0 <= rate <= 1
    for n in m["nics"].values():
        for u in (n["pcie_d2h_utilization"], n["pcie_h2d_utilization"], n["attachment_metrics"].get("coherent_link_utilization")):
            assert u is None or 0 <= u <= 1 + 1e-9, n
        assert (n["pcie_d2h_utilization"] is None) == (n["attachment"] != "pcie"), n


anything = st.one_of(values, st.sampled_from(["64", "4K", "64:128", "1:1500:7", "x", "6²", "dpdk", "LAT_RD", "llc"]))


@SETTINGS
@given(which=st.sampled_from(["bandwidth", "nic", "link_for", "latency", "experiment", "link_config"]),
       a=anything, b=anything, c=anything, link=st.dictionaries(st.sampled_from(["gen", "lanes", "mps", "mrrs", "rcb", "addr"]), anything, max_size=2))
def test_api_pcie(which, a, b, c, link):
    calls = {
        "bandwidth": lambda: pcie.bandwidth(a, **link),
        "nic": lambda: pcie.nic(a if isinstance(a, str) else "dpdk", b, eth_gbps=c, **link),
        "link_for": lambda: pcie.link_for(a, b, op=c if isinstance(c, str) else "write", **link),
        "latency": lambda: pcie.latency(a, b, **link),
        "experiment": lambda: pcie.experiment(a, b, c),
        "link_config": lambda: pcie.link_config(**link),
    }
    if which in ("bandwidth", "nic") and isinstance(b if which == "nic" else a, int) and abs(b if which == "nic" else a) > 10**7:
        return
    try:
        calls[which]()
    except Exception as e:  # noqa: BLE001
        assert_user_error(e)


# ---- the command line -----------------------------------------------------------------------------

word = st.one_of(st.sampled_from(["64", "4K", "1500", "-1", "0", "1e300", "nan", "inf", "x", "6²", "", "64:1500:64",
                                  "dpdk", "simple", "kernel", "quickstart", "ddio/single_core", "nosuch", "3", "16",
                                  "18446744073709551615", "18446744073709551616", "LAT_RD", "BW_WR", "warm", "llc",
                                  "threshold", "completion", "2.78"]),
                 st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=6))
setting = st.tuples(st.sampled_from(KEYS), word).map(lambda kv: f"{kv[0]}={kv[1]}")
OUT = "out.json"
outputs = st.sampled_from([OUT, "-", ".", "missing/x.json", "/dev/null"])


@st.composite
def argv(draw) -> list[str]:
    cmd = draw(st.sampled_from(["run", "check", "presets", "pcie bandwidth", "pcie nic", "pcie link-for",
                                "pcie latency", "pcie bench", "junk"]))
    args = cmd.split()
    if cmd in ("run", "check"):
        args.append(draw(st.sampled_from(["quickstart", "ddio/single_core", "nosuch", ".", "bad.toml", "empty.toml"])))
        args += [x for s in draw(st.lists(setting, max_size=2)) for x in ("--set", s)]
        if cmd == "run":
            args += ["--set", "run.duration_us=20", "--set", "run.warmup_us=5", "--quiet"]
            if draw(st.booleans()):
                args += ["--seed", draw(word)]
            if draw(st.booleans()):
                args += ["--json", draw(outputs)]
    elif cmd == "presets":
        args += draw(st.sampled_from([[], ["--json"], ["--json", "-"]]))
    elif cmd.startswith("pcie"):
        flags = {"pcie bandwidth": ["--size"], "pcie nic": ["--design", "--frame", "--eth-gbps"],
                 "pcie link-for": ["--rate-gbps", "--size", "--op"], "pcie latency": ["--kind", "--size", "--location"],
                 "pcie bench": ["--test", "--size", "--window", "--cache"]}[cmd]
        for f in flags + draw(st.lists(st.sampled_from(["--gen", "--lanes", "--mps", "--mrrs", "--rcb", "--addr"]), max_size=2)):
            if draw(st.integers(0, 9)):
                args += [f, draw(word)]
        if draw(st.booleans()):
            args += [draw(st.sampled_from(["--json", "--csv"])), draw(outputs)]
    return args


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def prepared_dir() -> tempfile.TemporaryDirectory:
    d = tempfile.TemporaryDirectory(prefix="hostio-fuzz-")
    Path(d.name, "bad.toml").write_bytes(b"\xff\xfe[run]\n")
    Path(d.name, "empty.toml").write_text("")
    return d


def written_ok(before: set[str], after: set[str], args: list[str]) -> None:
    allowed = {OUT} if OUT in args else set()
    extra = after - before - allowed
    assert not extra, f"files written outside the output path: {sorted(extra)}"


def main_in(root: Path, args: list) -> tuple:
    """Run the command line in this process with `root` as the working directory: (exit, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli.main(args)
            except SystemExit as e:
                rc = e.code
    finally:
        os.chdir(cwd)
    return rc, out, err


@SETTINGS
@given(args=argv())
def test_cli_in_process(args):
    with prepared_dir() as d:
        root = Path(d)
        before = files_under(root)
        rc, out, err = main_in(root, args)
        ok = {0, 1} if args[:2] == ["pcie", "link-for"] else {0}  # link-for: 1 = no link carries the rate
        assert rc in ok | {2}, (args, rc, err.getvalue())
        if rc == 2:
            assert len(err.getvalue().strip().splitlines()) == 1, (args, err.getvalue())
        written_ok(before, files_under(root), args)


@settings(SETTINGS, max_examples=max(3, CASES // 10))
@given(args=argv())
def test_cli_subprocess(args):
    with prepared_dir() as d:
        root = Path(d)
        before = files_under(root)
        try:
            p = subprocess.run([sys.executable, "-m", "hostio", *args], cwd=root, capture_output=True, text=True,
                               timeout=10)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"hang over 10 s: {args}") from None
        ok = {0, 1} if args[:2] == ["pcie", "link-for"] else {0}
        assert p.returncode in ok | {2}, (args, p.returncode, p.stderr[-2000:])
        for bad in ("Traceback", "panicked", "RUST_BACKTRACE"):
            assert bad not in p.stderr, (args, p.stderr[-2000:])
        written_ok(before, files_under(root), args)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


# ---- sweep, advise and report ---------------------------------------------------------------------

CLI_SHORT = ["--set", "run.duration_us=20", "--set", "run.warmup_us=5", "--quiet"]
AXES = (["nics.nic0.rx_descriptors=128,256", "nics.nic0.rx_descriptors=128", "traffic.t0.packet_size=64,1500",
         "traffic.t0.imbalance=1,1.5", "nics.nic0.tx_release=completion,threshold"],
        ["platform.ddio_ways=2,x", "traffic.t0.imbalance=1,2", "run.seed=1,2", "junk", "nics.nic0.rx_descriptors=",
         "nics.nic0.rx_descriptors=100"])
KNOBS = (["nics.nic0.rx_descriptors=128,256", "platform.ddio_ways=2,4", "nics.nic0.rx_descriptors=128",
          "nics.nic0.tx_release=\"completion\",\"threshold\""],
         ["traffic.t0.flows", "nics.nic9.rx_descriptors", "x=1", "", ",", "platform.ddio_ways=2,y"])
#: Output folders (sweep) and files (report, advise --json): mostly good, some bad (bad.toml is a
#: file in the way of a folder, "." a folder in the way of a file).
FOLDERS = (["sw", "done", "empty"], ["missing/x", "bad.toml"])
FILES = (["r.html", "-", "/dev/null"], [".", "missing/x.html"])


def mostly(draw, choices: tuple[list, list]):
    """A draw from the good choices three times in four, else from the bad ones."""
    good, bad = choices
    return draw(st.sampled_from(good if draw(st.integers(0, 3)) else bad))


@functools.cache
def finished_sweep() -> Path:
    """A finished two-point sweep folder, made once per test session."""
    d = Path(tempfile.mkdtemp(prefix="hostio-fuzz-sweep-"))
    hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128, 256]}, set=SHORT, out=d / "done", jobs=1, progress=False)
    return d / "done"


@st.composite
def workflow_argv(draw) -> tuple[list[str], set[str]]:
    """Arguments, and the paths (relative to the case's folder) the command may write."""
    cmd = draw(st.sampled_from(["sweep", "advise", "report"]))
    args, may_write = [cmd], set()
    if cmd == "report":
        folder = mostly(draw, (["done"], ["empty", "nosuch", "bad.toml"]))
        args.append(folder)
        if draw(st.booleans()):
            dest = mostly(draw, FILES)
            args += ["--out", dest]
        else:
            dest = f"{folder}/report.html"
        may_write.add(dest)
        return args, may_write
    args.append(mostly(draw, (["quickstart"], ["nosuch", "bad.toml"])))
    if draw(st.integers(0, 3)) == 0:
        args += ["--set", draw(setting)]
    if cmd == "sweep":
        for _ in range(draw(st.sampled_from([1, 1, 2, 0]))):
            args += ["--axis", mostly(draw, AXES)]
        out = mostly(draw, FOLDERS)
        args += ["--out", out]
        may_write.add(out)
    else:
        args += ["--goal", mostly(draw, (["p99", "throughput", "misses"], ["x"]))]
        args += ["--knobs", mostly(draw, KNOBS)]
        if draw(st.booleans()):
            args += ["--slo", mostly(draw, (["100000", "0.05", "90"], ["-1", "nan", "inf", "x"]))]
        if draw(st.booleans()):
            dest = mostly(draw, FILES)
            args += ["--json", dest]
            may_write.add(dest)
    args += ["--seeds", mostly(draw, (["1", "2"], ["0", "-1", "x"]))]
    if draw(st.booleans()):
        args += ["--jobs", draw(st.sampled_from(["1", "2"]))]
    if draw(st.integers(0, 4)) == 0:
        args += ["--scheduler", draw(st.sampled_from(["local", "slurm", "tcp://x", ""]))]
    return args + CLI_SHORT, may_write


@settings(SETTINGS, max_examples=max(3, CASES // 5))
@given(case=workflow_argv())
def test_cli_workflows(case):
    args, may_write = case
    with prepared_dir() as d:
        root = Path(d)
        shutil.copytree(finished_sweep(), root / "done")
        (root / "empty").mkdir()
        before = files_under(root)
        rc, out, err = main_in(root, args)
        event(f"{args[0]} exit {rc}")
        assert rc in (0, 1, 2), (args, rc, err.getvalue())
        assert rc != 1 or args[0] != "report", (args, err.getvalue())
        for bad in ("Traceback", "panicked", "PanicException"):
            assert bad not in err.getvalue(), (args, err.getvalue())
        if rc == 2:
            assert len(err.getvalue().strip().splitlines()) == 1, (args, err.getvalue())
        extra = files_under(root) - before
        # the output path, what is under it (a sweep folder), and the folders made for it
        outside = [p for p in extra if not any(p == w or p.startswith(w + "/") or w.startswith(p + "/") for w in may_write)]
        assert not outside, (args, sorted(outside))
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
