"""Sweeps: one scenario, keys varied over a cartesian product and over seeds, points run in local
processes or on a Dask cluster, results as a typed table.

``hostio.sweep(scenario, axes, seeds=N, out=DIR, scheduler=S)`` returns a pandas DataFrame with one
row per point and seed: a column per axis, ``seed``, ``point_id``, ``scenario_hash``, the flattened
metrics (``throughput_gbps``, ``apps.fwd.latency_ns.p99``, ...) and ``error`` (null when the point
ran). With ``out`` the folder holds ``points.jsonl`` (one record per finished point, appended as it
finishes), ``sweep.json`` (what was asked), ``results.parquet`` and ``table.csv``;
``hostio.load(DIR)`` reads a finished or a partial sweep back.

Schedulers: ``local`` (worker processes of this one), ``dask`` (a ``dask.distributed``
LocalCluster) or ``tcp://HOST:PORT`` (a running Dask scheduler with its workers). A point's result
depends only on its scenario and seed, so the table is the same whichever runs it. A ``tcp://``
scheduler is asked before the output folder is touched and must have a worker within
``WORKER_WAIT_S`` (30) seconds; a sweep asks for at most ``MAX_RUNS`` (1,000,000) points × seeds. A point that
fails, or whose local worker process dies, is recorded with its ``error``; the points a dead
worker took down with it run again. Ctrl-C (and SIGTERM under the ``hostio`` command, which turns
it into the same stop) stops a sweep: the tables of the points finished are written; a second Ctrl-C cuts that short, and the points finished stay in
``points.jsonl``, where ``hostio.load`` finds them.

Axis keys are TOML dotted keys, as ``--set`` keys are; they are compared, and named in the table
and in messages, in their normal spelling (:func:`hostio.sim.key_text`): ``run."seed"`` is
``run.seed``, and ``apps."fw.d".cores`` keeps its quotes.

A point's identity is a hash of its resolved scenario (what ``hostio check`` prints: platform file
facts, presets and defaults included), the hostio version and the engine's identity (the SHA-256
of the compiled simulator module, ``hostio._core``, read once per process: a rebuilt simulator is a
new engine even when the version number stays); a re-run with ``out`` reuses only successful records whose
identity matches, so results of another build, and failed points, are computed again. An output folder is locked
while a sweep writes it.

>>> from hostio.sweep import expand
>>> expand({"nics.nic0.rx_descriptors": [128, 256], "traffic.t0.packet_size": [64]})
[['nics.nic0.rx_descriptors=128', 'traffic.t0.packet_size=64'], ['nics.nic0.rx_descriptors=256', 'traffic.t0.packet_size=64']]
"""
from __future__ import annotations

import concurrent.futures as cf
import contextlib
import ctypes
import errno
import fcntl
import functools
import hashlib
import itertools
import json
import math
import multiprocessing
import numbers
import os
import re
import signal
import socket
import stat
import struct
import sys
import threading
import time
import tomllib
import types
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from hostio import outfile, sim
from hostio.errors import ConfigError, checked_text, config_error, say

SCHEDULERS = "local, dask, or tcp://HOST:PORT of a running Dask scheduler"
#: The most runs (points × seeds) one sweep, advice or reproduction may ask for.
MAX_RUNS = 1_000_000
#: Seconds to wait for a ``tcp://`` scheduler to have at least one worker.
WORKER_WAIT_S = 30
#: Seconds each for a ``tcp://`` scheduler's name lookup, its connection and its handshake message.
CONNECT_S = 10
#: Columns of the results table that are not metrics.
ID_COLUMNS = ("seed", "point_id", "scenario_hash", "error")


def expand(axes: Mapping[str, Sequence]) -> list[list[str]]:
    """Cartesian product of the axes as lists of ``key=value`` overrides (first axis slowest)."""
    keys = list(axes)
    return [[f"{k}={_lit(v)}" for k, v in zip(keys, combo)] for combo in itertools.product(*(axes[k] for k in keys))]


def _lit(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    return str(v)


def parse_axis(spec: str) -> tuple[str, list]:
    """``key=v1,v2,...`` → (key, [values]); values are read as JSON where possible."""
    i = sim.key_end(spec)
    if i is None:
        raise config_error("--axis", spec, "KEY.PATH=V1,V2,... e.g. nics.nic0.rx_descriptors=128,256")
    key, vals = spec[:i], spec[i + 1:]
    if not key.strip():
        raise config_error("--axis", spec, "KEY.PATH=V1,V2,... with a key before the =")
    key = sim.normal_key(key.strip(), "--axis", spec)
    parts = _split_values(vals)
    if parts is None:
        raise config_error("--axis", spec, "a comma-separated list of values whose double quotes and brackets are closed")
    out = []
    for raw in parts:
        raw = raw.strip()
        if not raw:
            raise config_error("--axis", spec, "a comma-separated list of values without empty items")
        out.append(_axis_value(raw))
    return key, out


def _split_values(text: str) -> list[str] | None:
    """``text`` split at the commas outside double quotes and brackets (``"a,b"``, ``[1,2]``
    stay whole); None when a quote or bracket is left open."""
    parts, cur, depth, quoted, escaped = [], [], 0, False, False
    for ch in text:
        if quoted:
            quoted = not (ch == '"' and not escaped)
            escaped = ch == "\\" and not escaped
        elif ch == '"':
            quoted = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return None if quoted or depth else parts


def _axis_value(raw: str):
    """One axis value: JSON (numbers, strings in quotes, true/false, lists), else a number or
    boolean as ``--set`` reads it (TOML: ``+2``, ``1_000``, ``0x600``, ``inf``, ``nan``; ``0X600``
    too), else the text as a string, as ``--set`` takes it (``lru``, ``25g``; a malformed number
    such as ``0x6g0`` is then refused by the key it is for)."""
    # ValueError covers both parsers' errors and an integer too long to convert.
    try:
        return json.loads(raw)
    except ValueError:
        pass
    try:
        v = tomllib.loads(f"v = {raw}")["v"]
        if isinstance(v, (bool, int, float)):
            return v
    except ValueError:
        pass
    if re.fullmatch(r"0[xX][0-9a-fA-F]+", raw):
        return int(raw, 16)
    return raw


def parse_axes(specs: Iterable[str]) -> dict[str, list]:
    """Several ``--axis`` options; a key given twice is an error (its values belong in one option)."""
    axes: dict[str, list] = {}
    for spec in specs:
        key, vals = parse_axis(spec)
        if key in axes:
            raise config_error("--axis", spec, f"each key once; {key} is already an axis: give all its values in one --axis {key}=V1,V2,...")
        axes[key] = vals
    return axes


def check_runs(key: str, value, n: int) -> None:
    """Refuse a request of more than :data:`MAX_RUNS` runs before anything is built for it."""
    if n > MAX_RUNS:
        raise config_error(key, value, f"at most {MAX_RUNS} runs (asked for {n})")


def check_product(sizes: Sequence[tuple[str, int, str]]) -> None:
    """Refuse more than :data:`MAX_RUNS` runs, naming the options that make the count: ``sizes``
    is (option, count, what it counts) for each factor, e.g. ``("--seeds", 5, "seeds")``. An option
    that alone asks for too many is named alone; otherwise every option that multiplies (count > 1)."""
    n = math.prod(c for _, c, _ in sizes)
    if n <= MAX_RUNS:
        return
    asked = f"asked for {n}: " + " × ".join(f"{c} {w}" for _, c, w in sizes)
    alone = [f for f in sizes if f[1] > MAX_RUNS]
    if alone:
        raise config_error(alone[0][0], alone[0][1], f"at most {MAX_RUNS} runs in all ({asked})")
    named = [f for f in sizes if f[1] > 1]
    raise config_error(" and ".join(o for o, _, _ in named), " × ".join(str(c) for _, c, _ in named),
                       f"at most {MAX_RUNS} runs in all ({asked})")


def check_jobs(jobs) -> int | None:
    """``jobs``: None (the CPU count) or an integer >= 1 of any integer type; returned as an int."""
    if jobs is None:
        return None
    n = sim.integer(jobs)
    if n is None or n < 1:
        raise config_error("--jobs", jobs, "an integer >= 1")
    return n


#: The files a sweep writes into its ``out`` folder.
RESULT_FILES = ("sweep.json", "points.jsonl", "results.parquet", "table.csv")


def check_axes(axes, option: str = "--axis") -> dict[str, list]:
    """``axes``: a mapping of key → a non-empty list of distinct values (numbers, strings,
    true/false), each key a TOML dotted key given once; returned with the keys in their normal
    spelling (:func:`hostio.sim.key_text`: ``run."seed"`` is ``run.seed``) and the values as lists."""
    if not isinstance(axes, Mapping) or not axes:
        raise config_error("axes", axes, "a non-empty mapping of KEY.PATH → list of values")
    out: dict[str, list] = {}
    spelt: dict[str, str] = {}
    for key, vals in axes.items():
        if not isinstance(key, str) or not key.strip():
            raise config_error(option, key, "a KEY.PATH string")
        checked_text(option, key, "a KEY.PATH string of valid Unicode text")
        norm = sim.normal_key(key.strip(), option)
        if norm in out:
            raise config_error(option, key, f"each key once ({norm} is already one, spelt {spelt[norm]!r})")
        spelt[norm] = key
        if isinstance(vals, (str, bytes, Mapping)) or not isinstance(vals, Iterable) or not hasattr(vals, "__len__") or not len(vals):
            raise config_error(f"{option} {norm}", vals, "a non-empty list of values")
        if len(vals) > MAX_RUNS:  # before the values are read: a range of 10**12 would not fit in memory
            raise config_error(f"{option} {norm}", f"{len(vals)} values", f"at most {MAX_RUNS:,} (the most runs one search may ask for)")
        seen = set()
        plain = []
        for v in vals:
            if not isinstance(v, (str, bool, int, float)) and isinstance(v, numbers.Real) and hasattr(v, "item"):
                v = v.item()  # a NumPy scalar: the Python number it holds (sweep.json is JSON)
            if not isinstance(v, (str, bool, int, float)):
                # A Fraction or Decimal is no TOML value (and sweep.json is JSON).
                raise config_error(f"{option} {norm}", v, "values that are numbers (integers or floats), strings or true/false")
            if type(v) is int and not sim.TOML_INT[0] <= v <= sim.TOML_INT[1]:
                shown = str(v) if v.bit_length() < 4000 else f"an integer of {v.bit_length()} bits"
                raise config_error(f"{option} {norm}", shown, f"integers in {sim.TOML_INT[0]}..={sim.TOML_INT[1]} (TOML's)")
            ident = (type(v) is bool, v)
            if ident in seen:
                raise config_error(f"{option} {norm}", v, "each value once (it is given twice)")
            seen.add(ident)
            plain.append(v)
        out[norm] = plain
    return out


def _filled(given, defaults):
    """``given`` (a resolved scenario) with the unset keys ``defaults`` names set to its values."""
    if not isinstance(given, dict) or not isinstance(defaults, dict):
        return given if given is not None else defaults
    out = dict(given)
    for k, v in defaults.items():
        out[k] = _filled(given.get(k), v)
    return out


def point_id(text: str, overrides: Sequence[str]) -> str:
    """Identity of a point: its resolved scenario, the hostio version and the engine identity
    (raises ConfigError when invalid)."""
    return _point(text, overrides)[0]


def _point(text: str, overrides: Sequence[str]) -> tuple[str, int]:
    """A point's identity (:func:`point_id`) and the seed it runs with (its ``run.seed``)."""
    resolved = sim.resolved(text, set=overrides)
    # A default spelt out is the same point (as a run's scenario_hash counts it).
    defaults = resolved.pop("defaults", {})
    resolved["scenario"] = _filled(resolved["scenario"], defaults)
    blob = json.dumps({"hostio": _version(), "engine": engine_id(), "resolved": resolved}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:20], resolved["scenario"]["run"]["seed"]


@functools.cache
def engine_id() -> str:
    """SHA-256 (hex, 16 digits) of the compiled simulator module's file, computed once per process."""
    from hostio import _core

    h = hashlib.sha256()
    with open(_core.__file__, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def _version() -> str:
    from hostio import __version__

    return __version__


def _run_point(job: tuple[int, str, list[str]]) -> tuple[int, dict | None, str | None]:
    """Run one point; every failure comes back as a string (a Rust panic is a BaseException that
    neither ``except Exception`` catches nor pickle carries between processes)."""
    index, text, overrides = job
    try:
        return index, sim.run(text, set=overrides), None
    except ConfigError as exc:
        return index, None, str(exc)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - a crash in one point must not lose the others
        return index, None, f"{type(exc).__name__}: {exc}"


def _worker_init(parent: int) -> None:
    """Local workers: Ctrl-C is the parent's to handle, and a worker dies with its parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's handler is for the parent
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    if os.getppid() != parent:
        os._exit(1)


# ---------------------------------------------------------------------------------------------
# The output folder: lock, record log, atomic files


#: Folders this process holds: real path → (holding thread, depth, lock file). ``flock`` excludes
#: other processes only, so threads of this one are excluded here.
_held: dict[str, tuple[int, int, object]] = {}
_held_guard = threading.Lock()


@contextlib.contextmanager
def locked(folder: str | os.PathLike):
    """Hold ``folder/.lock`` (created with the folder); a second writer, another process or
    another thread of this one, gets a ConfigError."""
    key = os.path.realpath(folder)
    me = threading.get_ident()
    with _held_guard:
        held = _held.get(key)
        if held is not None and held[0] != me:
            raise config_error("--out", str(folder), "a folder no other hostio run is writing (another thread of this process holds it)")
        if held is not None:  # re-entered by this thread (sweep → run_points)
            _held[key] = (me, held[1] + 1, held[2])
    if held is not None:
        try:
            yield
        finally:
            with _held_guard:
                t, n, f = _held[key]
                _held[key] = (t, n - 1, f)
        return
    with _held_guard:
        if key in _held:
            raise config_error("--out", str(folder), "a folder no other hostio run is writing (another thread of this process holds it)")
        _held[key] = (me, 1, None)  # claimed; the file lock follows
    try:
        f = _lock_file(folder)
    except BaseException:
        with _held_guard:
            del _held[key]
        raise
    with _held_guard:
        _held[key] = (me, 1, f)
    try:
        yield
    finally:
        with _held_guard:
            del _held[key]
        f.close()


def _lock_file(folder: str | os.PathLike):
    """Create the folder, open ``.lock`` and ``flock`` it; a ConfigError when another process holds
    it, when the folder cannot be created or written, or when ``.lock`` is a symbolic link or no
    regular file (the pid is written into it)."""
    lock = Path(folder) / ".lock"
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise config_error("--out", str(folder), f"a folder this user may create and write ({outfile.folder_error(folder, exc)})") from None
    try:
        # Not through a symbolic link: the pid written below would land in whatever it names.
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY, 0o666)
    except OSError as exc:
        if exc.errno == errno.ELOOP and lock.is_symlink():
            raise config_error("--out", str(folder), "a folder whose .lock is hostio's own file, not a symbolic link") from None
        if exc.errno == errno.EISDIR:
            raise config_error("--out", str(folder), "a folder whose .lock is hostio's own file, a regular file (a folder here)") from None
        raise config_error("--out", str(folder), f"a folder this user may create and write ({outfile.folder_error(folder, exc)})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise config_error("--out", str(folder), "a folder whose .lock is hostio's own file, a regular file")
    os.set_blocking(fd, True)
    f = os.fdopen(fd, "a+")
    try:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            who = f.read().strip() or "?"
            raise config_error("--out", str(folder), f"a folder no other hostio run is writing (pid {who} holds it)") from None
        except OSError as exc:  # e.g. ENOLCK: a file system without locks
            raise config_error("--out", str(folder), f"a folder on a file system that can lock files ({exc.strerror or exc})") from None
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()))
        f.flush()
    except BaseException:
        f.close()
        raise
    return f


def _check_log(path: Path, *, write: bool = False) -> None:
    """Refuse a ``points.jsonl`` that is there but no regular file (a FIFO or device would block
    a read or never end it), and one to be written (repaired or appended to) that is a symbolic
    link, which would change whatever it points to."""
    if write and path.is_symlink():
        raise config_error(str(path), "(a symbolic link)", "the points.jsonl that hostio writes, a regular file of its own")
    if path.exists() and not path.is_file():
        raise config_error(str(path), "(not a regular file)", "the points.jsonl that hostio writes, a regular file")


def check_run_folder(folder: Path) -> None:
    """Refuse a folder of runs whose ``points.jsonl`` or ``.lock`` hostio could not write as its
    own (a symbolic link, or no regular file), or that is no folder, before anything is changed."""
    if os.path.lexists(folder) and not folder.is_dir():
        raise config_error("--out", str(folder), "a folder of runs (it is a file or a link to nothing here)")
    _check_log(folder / "points.jsonl", write=True)
    lock = folder / ".lock"
    if lock.is_symlink() or lock.exists() and not lock.is_file():
        raise config_error("--out", str(folder), "a folder whose .lock is hostio's own file, a regular file and not a symbolic link")


def _open_log(path: Path, mode: str):
    """``path`` opened with ``mode`` (``"a"`` to append, ``"r+b"`` to repair) but never through a
    symbolic link (one made since :func:`_check_log` is refused as it was)."""
    flags = {"a": os.O_WRONLY | os.O_APPEND | os.O_CREAT, "r+b": os.O_RDWR}[mode]
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NOCTTY, 0o666)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            _check_log(path, write=True)
        raise
    return os.fdopen(fd, mode)


def read_log(path: Path, *, repair: bool = False) -> dict[str, dict]:
    """Finished records of ``points.jsonl`` by point id. A torn last record (an interrupted write)
    is skipped, and with ``repair`` cut off so the next record starts on a line of its own; a
    record that is not :func:`well_formed` is skipped too."""
    _check_log(path, write=repair)
    if not path.exists():
        return {}
    data = path.read_bytes()
    recs: dict[str, dict] = {}
    good_end = 0
    pos = 0
    for line in data.splitlines(keepends=True):
        pos += len(line)
        if not line.endswith(b"\n"):
            break
        try:
            rec = json.loads(line)
        except (ValueError, RecursionError):  # not a record hostio wrote
            continue
        good_end = pos
        if well_formed(rec):
            recs[rec["id"]] = rec
    if repair and good_end < len(data) and not data.endswith(b"\n"):
        with _open_log(path, "r+b") as f:
            f.truncate(good_end)
    return recs


#: Metrics every record's result has (numbers, or null where undefined) that tables and advice read.
_RECORD_METRICS = ("throughput_gbps", "offered_gbps", "pcie_write_hit_rate", "pcie_read_hit_rate", "dropped_packets",
                   "pause_frames", "rx_packets", "memory_read_gbps", "memory_write_gbps")


def _int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def well_formed(rec) -> bool:
    """Whether a ``points.jsonl`` record has the shape this module writes: a string ``id`` and
    either a string ``error`` or a ``result`` whose ``seed``, ``events``, ``scenario_hash`` and
    ``metrics`` have their types. Any other record is treated like a torn one: its point runs again."""
    if not isinstance(rec, dict) or not isinstance(rec.get("id"), str):
        return False
    if "result" not in rec:
        return isinstance(rec.get("error"), str)
    res = rec["result"]
    if not isinstance(res, dict) or not _int(res.get("seed")) or not _int(res.get("events")):
        return False
    m = res.get("metrics")
    if not isinstance(res.get("scenario_hash"), str) or not isinstance(m, dict):
        return False
    if not isinstance(m.get("latency_ns"), dict) or not isinstance(m.get("apps"), dict):
        return False
    if not all(k in m for k in _RECORD_METRICS) or not _LATENCY_KEYS <= m["latency_ns"].keys():
        return False
    return _leaves_ok(m)


#: A latency summary's keys (every one, null where no packet completed).
_LATENCY_KEYS = frozenset({"p50", "p90", "p99", "p999", "max", "mean"})
#: The metrics that are no number: an app's kind and a NIC's attachment (text), a NIC's DDIO (a boolean).
_TEXT_METRICS, _BOOL_METRICS = frozenset({"kind", "attachment"}), frozenset({"ddio"})


def _leaves_ok(node, depth: int = 0) -> bool:
    """Every value in a result's metrics has the type a run gives it: a number or null, but for
    ``_TEXT_METRICS`` (text) and ``_BOOL_METRICS`` (a boolean); tables of them nest a few deep."""
    if depth > 8:
        return False
    for k, v in node.items():
        if isinstance(v, dict):
            if not _leaves_ok(v, depth + 1):
                return False
        elif k in _TEXT_METRICS:
            if not isinstance(v, str):
                return False
        elif k in _BOOL_METRICS:
            if not isinstance(v, bool):
                return False
        elif not (v is None or isinstance(v, (int, float)) and not isinstance(v, bool)):
            return False
    return True


def check_own_folder(outp: Path, marker: str, writer: str, names: Iterable[str], ours) -> None:
    """Refuse ``--out`` when it is a folder ``writer`` did not write (``ours(outp)`` is false: no
    valid ``marker``) that holds a file of one of the ``names`` ``writer`` writes: hostio would
    replace it without asking. Other files are left alone."""
    if not outp.is_dir() or ours(outp):
        return
    theirs = sorted(n for n in set(names) if os.path.lexists(outp / n))
    if theirs:
        shown = ", ".join(theirs[:3]) + (", ..." if len(theirs) > 3 else "")
        raise config_error("--out", str(outp), f"a new folder, or one {writer} wrote (with its {marker}): this one holds "
                                               f"files of the names it writes ({shown}), which it would replace")


def _is_sweep_folder(outp: Path) -> bool:
    """``outp/sweep.json`` is one that hostio sweep wrote (it parses as its manifest)."""
    try:
        manifest(outp)
    except (ConfigError, OSError, RecursionError):
        return False
    return True


def _writable(path: Path) -> Path:
    if path.is_dir():
        raise config_error("--out", str(path), "a path where a file can be written (a folder of that name is in the way)")
    return path


def write_atomic(path: str | os.PathLike, write) -> None:
    """``write(tmp_path)`` to a uniquely named file beside ``path`` (never a fixed ``PATH.tmp``,
    which could be the user's), then rename it over ``path``; see :func:`hostio.outfile.replace`."""
    outfile.replace(_writable(Path(path)), lambda tmp: write(Path(tmp)))


# ---------------------------------------------------------------------------------------------
# Running points


def run_points(
    points: Sequence[tuple[str, list[str]]],
    *,
    out: str | os.PathLike | None = None,
    jobs: int | None = None,
    label: str = "sweep",
    progress: bool = True,
    scheduler: str = "local",
) -> list[dict]:
    """Run ``(scenario_text, overrides)`` points; returns one record per point, in order:
    ``{"index", "id", "overrides", "result"}`` or ``{"index", "id", "overrides", "error"}``; a
    result taken from ``out``'s earlier records rather than run again also has ``"reused": True``.
    Every point is validated first (ConfigError before anything runs). ``scheduler``: see the
    module doc; ``jobs`` is the number of local worker processes (default: CPU count)."""
    _check_scheduler(scheduler)
    check_jobs(jobs)
    check_runs("points", f"{len(points)} runs", len(points))
    return _run_points(points, [point_id(t, o) for t, o in points], out, jobs, label, progress, scheduler)


def _run_points(points, ids, out, jobs, label, progress, scheduler) -> list[dict]:
    _check_scheduler(scheduler)
    jobs = max(1, jobs or os.cpu_count() or 1)
    if out is None:
        return _run(points, ids, {}, None, jobs, label, progress, scheduler)
    outp = Path(out)
    with locked(outp):
        logp = _writable(outp / "points.jsonl")
        done = read_log(logp, repair=True)
        with _open_log(logp, "a") as log:
            return _run(points, ids, done, log, jobs, label, progress, scheduler)


def _check_scheduler(s: str) -> None:
    if s in ("local", "dask"):
        return
    if isinstance(s, str) and s.startswith("tcp://"):
        host, sep, port = s[6:].rpartition(":")
        # An IPv6 address goes in brackets (as Dask parses it), with its zone if any; a name is
        # DNS labels of letters (any script), digits, '-' and '_' (1 to 63 each, 253 in all, a
        # trailing dot allowed), which covers IPv4 addresses too.
        bracketed = re.fullmatch(r"\[[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(%[A-Za-z0-9_.-]+)?\]", host) is not None
        plain = len(host) <= 254 and re.fullmatch(r"\w([\w-]{0,61}\w)?(\.\w([\w-]{0,61}\w)?)*\.?", host) is not None
        if not sep or not (bracketed or plain) or not port.isascii() or not port.isdigit() or not 1 <= int(port) <= 65535:
            raise config_error("--scheduler", s, "tcp://HOST:PORT with a port in 1..=65535 (an IPv6 host in brackets: tcp://[::1]:8786)")
        return
    raise config_error("--scheduler", s, SCHEDULERS)


def _run(points, ids, done, log, jobs, label, progress, scheduler) -> list[dict]:
    from tqdm import tqdm

    records: dict[int, dict] = {}
    for i, pid in enumerate(ids):
        rec = done.get(pid)
        if rec is not None and "result" in rec:  # failed points are tried again
            records[i] = {"index": i, "id": pid, "overrides": list(points[i][1]), "result": rec["result"], "reused": True}
    todo = [(i, t, list(o)) for i, (t, o) in enumerate(points) if i not in records]
    bar = tqdm(total=len(points), initial=len(records), desc=label.strip(), unit="run", file=sys.stderr,
               disable=not (progress and sys.stderr.isatty()), dynamic_ncols=True)
    failed = 0

    def finish(i: int, res: dict | None, err: str | None) -> None:
        nonlocal failed
        rec = {"index": i, "id": ids[i], "overrides": list(points[i][1])}
        if err is None:
            rec["result"] = res
        else:
            rec["error"] = err
            failed += 1
            bar.set_postfix_str(f"failed {failed}", refresh=False)
        records[i] = rec
        if log is not None:
            log.write(json.dumps(rec) + "\n")
            log.flush()
        bar.update(1)

    try:
        if todo and scheduler != "local":
            _run_dask(todo, finish, scheduler, jobs)
        elif jobs == 1 or len(todo) <= 1:
            for job in todo:
                finish(*_run_point(job))
        elif todo:
            _run_local(todo, finish, jobs)
    finally:
        bar.close()
    return [records[i] for i in range(len(points))]


def _run_local(todo, finish, jobs) -> None:
    """A worker that dies (a crash, the OOM killer) breaks the whole pool, and every point not yet
    finished fails with it. Those points run once more in a fresh pool; the ones that break that
    one too run one process each, so that only a point that kills its own worker is marked."""
    broken = _pool_run(todo, finish, jobs)
    if broken:
        broken = _pool_run(broken, finish, jobs)
    for job in broken:
        if _pool_run([job], finish, 1):
            finish(job[0], None, "worker died: the process running this point exited abruptly")


def _pool_run(todo, finish, jobs) -> list:
    """Run ``todo`` in a process pool; returns the jobs lost to a broken pool (not finished)."""
    # fork: workers inherit the loaded module and need no importable __main__; the compiled
    # module starts no threads, so forking is safe.
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    pool = cf.ProcessPoolExecutor(max_workers=min(jobs, len(todo)), mp_context=ctx,
                                  initializer=_worker_init, initargs=(os.getpid(),))
    futs = {pool.submit(_run_point, job): job for job in todo}
    broken = []
    try:
        for fut in cf.as_completed(futs):
            try:
                res = fut.result()
            except cf.process.BrokenProcessPool:
                broken.append(futs[fut])
                continue
            finish(*res)
    except BaseException:
        for p in list(getattr(pool, "_processes", {}).values()):
            p.kill()
        # Waited for: the workers are gone, so the pool's manager thread ends at once; left
        # running, it could race the interpreter's exit for its wake-up pipe and print a
        # traceback after "interrupted".
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()
    return sorted(broken, key=lambda job: job[0])


@contextlib.contextmanager
def _sigint_ignored():
    """SIGINT ignored inside the block: processes started there inherit that. Only in the main
    thread (elsewhere signals cannot be changed), and not over a handler set outside Python
    (``getsignal`` is None: it could not be put back)."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is None:
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def dask_client(scheduler: str, jobs: int):
    """A ``dask.distributed`` Client: a LocalCluster of ``jobs`` processes, or the scheduler at
    ``tcp://HOST:PORT``. A scheduler that does not answer is a ConfigError."""
    import logging

    from dask.distributed import Client, LocalCluster

    if scheduler == "dask":
        # Ctrl-C reaches the whole process group; it is the sweep's to handle (it closes the
        # cluster and keeps what finished), so the workers start with SIGINT ignored (inherited)
        # and do not die mid-point printing tracebacks of their own. The price: a Ctrl-C during
        # the cluster's start (about a second) is ignored too.
        with contextlib.ExitStack() as stack:
            with _sigint_ignored():
                # No dashboard; the scheduler's HTTP server (health and metrics routes), which
                # starts anyway, takes a free port instead of Dask's default 8787, so a cluster
                # already on that port does not make Dask warn that it is taken.
                cluster = stack.enter_context(LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                                           dashboard_address=None, silence_logs=logging.ERROR,
                                                           scheduler_kwargs={"dashboard": False,
                                                                             "dashboard_address": "127.0.0.1:0"}))
            yield stack.enter_context(Client(cluster))
        return
    _probe(scheduler)
    try:
        client = Client(scheduler, timeout=f"{CONNECT_S}s")
    except Exception as exc:  # whatever the address's program made the connection fail with
        raise config_error("--scheduler", scheduler, f"{SCHEDULERS} (connecting failed: {type(exc).__name__}: {exc})") from None
    with client:
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT_S)
        except (OSError, TimeoutError):
            raise config_error("--scheduler", scheduler, f"a scheduler with at least one worker (none joined in {WORKER_WAIT_S} s)") from None
        yield client


def _lookup(host: str, port: str):
    """The addresses of ``host:port`` for a TCP connection, or the exception the lookup raised."""
    try:
        return socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
    except (OSError, UnicodeError, ValueError) as exc:
        return exc


def _first_message(family, kind, proto, addr, fail) -> bytes:
    """Connect to ``addr`` and read the first message a Dask peer sends (an 8-byte length, then
    that many bytes), the connection and the message each within ``CONNECT_S`` seconds."""
    head = b""
    with socket.socket(family, kind, proto) as conn:
        conn.settimeout(CONNECT_S)
        conn.connect(addr)
        deadline = time.monotonic() + CONNECT_S
        need = 8
        while len(head) < need:
            conn.settimeout(max(0.01, deadline - time.monotonic()))
            chunk = conn.recv(need - len(head))
            if not chunk:
                raise ConnectionError(f"it closed the connection after {len(head)} bytes" if head else "it closed the connection without a word")
            head += chunk
            if len(head) == 8:
                n = struct.unpack("<Q", head)[0]
                # A Dask handshake is some tens of bytes.
                if not 8 <= n <= 1 << 16:
                    raise fail(f"the program there answered {head!r}: not a Dask scheduler")
                need = 8 + n
    return head


def _probe(scheduler: str) -> None:
    """Connect to ``tcp://HOST:PORT`` and read the message a Dask scheduler sends first (its
    handshake: an 8-byte length, then frames naming ``pickle-protocol``), the name lookup, the
    connection and the message each within ``CONNECT_S`` seconds. Dask's own client waits
    without limit for that message, and reads a reply of another program (an HTTP server: the
    dashboard's port typed for the scheduler's) as a length, so both are refused here."""
    host, _, port = scheduler[6:].rpartition(":")
    host = host.strip("[]")

    def fail(why: str):
        return config_error("--scheduler", scheduler, f"{SCHEDULERS} ({why})")

    # The name lookup runs in a daemon thread: one that outlasts its time does not hold the
    # process (getaddrinfo cannot be interrupted).
    found: list = []
    lookup = threading.Thread(target=lambda: found.append(_lookup(host, port)), daemon=True)
    lookup.start()
    lookup.join(CONNECT_S)
    if not found:
        raise fail(f"it did not answer: looking up {host!r} took over {CONNECT_S} s")
    if isinstance(found[0], Exception):
        raise fail(f"it did not answer: {found[0]}")
    # Every address in turn, as Dask's client tries them (localhost may give ::1 first).
    why = "the name has no address"
    for family, kind, proto, _, addr in found[0]:
        try:
            head = _first_message(family, kind, proto, addr, fail)
            break
        except (OSError, UnicodeError) as exc:
            why = f"no handshake came within {CONNECT_S} s" if isinstance(exc, TimeoutError) else str(exc)
    else:
        raise fail(f"it did not answer: {why}")
    if b"pickle-protocol" not in head:
        raise fail(f"the program there answered {head[:40]!r}...: not a Dask scheduler")


def check_reachable(scheduler: str) -> None:
    """For ``tcp://HOST:PORT``: connect and wait for a worker now, before an output folder is
    created, so that a scheduler that does not answer leaves nothing behind."""
    if scheduler.startswith("tcp://"):
        with dask_client(scheduler, 1):
            pass


def _run_dask(todo, finish, scheduler, jobs) -> None:
    from dask.distributed import as_completed

    with dask_client(scheduler, min(jobs, len(todo))) as client:
        futs = {client.submit(_run_point, job, pure=False): job[0] for job in todo}
        try:
            for fut in as_completed(list(futs)):
                try:
                    finish(*fut.result())
                except Exception as exc:  # a worker lost (KilledWorker) or a result that did not come back
                    finish(futs[fut], None, f"{type(exc).__name__}: {exc}")
        except BaseException:
            client.cancel(list(futs))
            raise


# ---------------------------------------------------------------------------------------------
# Sweeps and their tables


def sweep(
    scenario: sim.Scenario,
    axes: Mapping[str, Sequence],
    *,
    set: Iterable[str] = (),
    seeds: int | Sequence[int] | None = None,
    out: str | os.PathLike | None = None,
    jobs: int | None = None,
    scheduler: str = "local",
    progress: bool = True,
):
    """Run the cartesian product of ``axes`` (× ``seeds``) over ``scenario``; returns the results
    DataFrame (see the module doc). ``seeds``: a count N (the scenario's ``run.seed`` and the N-1
    after it) or a list of seeds; default the scenario's own seed. With ``out``, the frame's
    ``attrs["reused"]`` counts the runs taken from the folder's earlier records rather than run
    again."""
    _check_scheduler(scheduler)
    jobs = check_jobs(jobs)
    axes = check_axes(axes)
    _check_out(out)
    n_seeds = _seed_count(seeds)
    n_points = math.prod(len(v) for v in axes.values())
    check_product([("--axis", n_points, "points"), ("--seeds", n_seeds, "seeds")])
    text = sim.scenario_text(scenario)
    if out is not None and isinstance(scenario, (str, os.PathLike)) and os.path.isfile(scenario):
        for name in (*RESULT_FILES, ".lock"):
            target = Path(out) / name
            if target.exists() and os.path.samefile(scenario, target):
                raise config_error("--out", str(out), f"a folder whose results do not include the scenario file ({name} is it)")
    base = sim._overrides(set)
    for ov in base:
        if sim.override_key(ov) in axes:
            raise config_error("--set", ov, f"a key that is not also {say('an --axis', 'in axes')} ({sim.override_key(ov)} is one)")
    seed_list = _seeds(text, base, seeds)
    if seed_list is not None and "run.seed" in axes:
        raise config_error("--axis", "run.seed", say("--seeds", "seeds=") + " instead of a run.seed axis")
    combos = list(itertools.product(expand(axes), seed_list or [None]))
    points = [(text, base + c + ([] if s is None else [f"run.seed={s}"])) for c, s in combos]
    values = list(itertools.product(*axes.values()))
    # Validated before the folder is touched; without --seeds a point runs with its own run.seed,
    # which its rows show even when it fails.
    ids, point_seeds = zip(*(_point(t, o) for t, o in points))
    keys = [(v, s) for (v, _), s in zip(itertools.product(values, seed_list or [None]), point_seeds)]
    outp = Path(out) if out is not None else None
    if outp is None:
        recs = _run_points(points, list(ids), None, jobs, "sweep", progress, scheduler)
        return _frame(axes, keys, recs)
    check_reachable(scheduler)
    if any((outp / name).exists() for name in ("summary.json", "claims.csv")):
        raise config_error("--out", str(out), "a folder of hostio sweep, or a new one (this one holds a reproduction: its summary.json or claims.csv)")
    check_own_folder(outp, "sweep.json", "hostio sweep", RESULT_FILES, _is_sweep_folder)
    for name in ("sweep.json", "results.parquet", "table.csv"):
        _writable(outp / name)  # before the lock file goes into the folder
    _check_log(outp / "points.jsonl", write=True)  # before sweep.json is replaced
    with locked(outp):
        manifest = {
            "hostio": _version(), "engine": engine_id(), "scenario": text, "set": base, "axes": dict(axes), "seeds": seed_list,
            "points": [{"id": pid, "values": list(v), "seed": s} for pid, (v, s) in zip(ids, keys)],
        }
        write_atomic(outp / "sweep.json", lambda p: p.write_text(json.dumps(manifest, indent=1) + "\n"))
        try:
            reused = sum(1 for r in _run_points(points, list(ids), outp, jobs, "sweep", progress, scheduler) if r.get("reused"))
            df = load(outp)
            write_tables(df, outp)
        except BaseException as exc:  # also after Ctrl-C, even once every point is done: the tables hold the points finished so far
            try:
                write_tables(load(outp), outp)
            except Exception as inner:  # noqa: BLE001 - the original error is the one to report
                exc.add_note(f"the tables of {outp} were not written: {type(inner).__name__}: {inner}")
            raise
    # Runs taken from the folder's earlier records rather than run again.
    df.attrs["reused"] = reused
    return df


def _check_out(out) -> None:
    """``out``: None, or the path of a folder (existing or not; not a file)."""
    if out is None:
        return
    if not isinstance(out, (str, os.PathLike)) or not os.fspath(out):
        raise config_error("--out", out, "a folder path")
    outfile.check_folder_names("--out", out, ".results.parquet.XXXXXXXX.part")  # its longest, a table being written
    if os.path.exists(out) and not os.path.isdir(out):
        raise config_error("--out", os.fspath(out), "a folder (a file of that name is in the way)")


def _plain_seeds(seeds):
    """``seeds`` with integers of any integer type (NumPy's too) as Python ints, and a
    one-dimensional NumPy array as a list."""
    if (n := sim.integer(seeds)) is not None:
        return n
    if type(seeds).__module__ == "numpy" and getattr(seeds, "ndim", None) == 1:
        seeds = seeds.tolist()
    if isinstance(seeds, Sequence) and not isinstance(seeds, (str, bytes)):
        return [s if (n := sim.integer(s)) is None else n for s in seeds]
    return seeds


def _seed_count(seeds) -> int:
    """How many seeds ``seeds`` asks for: None (1), a count >= 1, or a non-empty list of distinct
    integers >= 0."""
    if seeds is None:
        return 1
    seeds = _plain_seeds(seeds)
    if _int(seeds):
        if seeds < 1:
            raise config_error("--seeds", seeds, "a count of 1 or more")
        return seeds
    if isinstance(seeds, (str, bytes, bool)) or not isinstance(seeds, Sequence) or not seeds:
        raise config_error("--seeds", seeds, "a count of 1 or more, or a non-empty list of integer seeds")
    for s in seeds:
        if not _int(s) or s < 0:
            raise config_error("--seeds", s, "integer seeds >= 0")
    if len(set(seeds)) < len(seeds):
        raise config_error("--seeds", list(seeds), "each seed once")
    return len(seeds)


#: The largest seed a point can run with: points set ``run.seed``, a TOML integer.
MAX_POINT_SEED = sim.TOML_INT[1]


def seed_run(first: int, count: int) -> list[int]:
    """``count`` seeds from the scenario's ``run.seed`` (``first``) on, each one a point can run."""
    if first + count - 1 > MAX_POINT_SEED:
        raise config_error("--seeds", count, f"a count whose last seed, run.seed ({first}) + {count - 1}, is at most "
                                             f"{MAX_POINT_SEED} (the largest run.seed)")
    return [first + k for k in range(count)]


def _seeds(text: str, base: list[str], seeds) -> list[int] | None:
    if seeds is None:
        return None
    seeds = _plain_seeds(seeds)
    if _int(seeds):
        return seed_run(int(sim.resolved(text, set=base)["scenario"]["run"]["seed"]), seeds)
    if max(seeds) > MAX_POINT_SEED:
        raise config_error("--seeds", max(seeds), f"seeds up to {MAX_POINT_SEED} (the largest run.seed)")
    return list(seeds)


def flatten(result: dict) -> dict:
    """One row of scalar metrics (``throughput_gbps``, ``apps.fwd.latency_ns.p99``, ...) and
    ``scenario_hash``; wall-clock time is left out so a table does not depend on the machine."""
    row: dict = {"scenario_hash": result["scenario_hash"]}

    def walk(prefix: str, v) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                walk(f"{prefix}.{k}" if prefix else k, x)
        elif not isinstance(v, list):
            row[prefix] = v

    walk("", result["metrics"])
    row["events"] = result["events"]
    return row


def _frame(axes: Mapping[str, Sequence], keys: Sequence[tuple[tuple, int | None]], recs: Sequence[dict | None]):
    """The results DataFrame: for each (axis values, seed) with a record, one typed row (a metric
    whose name is an axis's is renamed ``metrics.<name>``)."""
    import pandas as pd

    rows = []
    for (vals, seed), rec in zip(keys, recs):
        if rec is None:
            continue
        row = dict(zip(axes, vals))
        res = rec.get("result")
        row["seed"] = res["seed"] if res else seed
        row["point_id"] = rec["id"]
        if res:
            # A metric named like an axis (``nics.<n>.pause_frames`` is both a setting and a
            # count) keeps the axis column and goes under ``metrics.<name>``.
            row.update((f"metrics.{k}" if k in axes else k, v) for k, v in flatten(res).items())
        row["error"] = rec.get("error")
        rows.append(row)
    df = pd.DataFrame(rows)
    if df.empty:  # no point has run: the columns every table has
        return pd.DataFrame(columns=[*axes, *ID_COLUMNS])
    cols = list(axes) + [c for c in ID_COLUMNS[:3] if c in df] + [c for c in df if c not in axes and c not in ID_COLUMNS] + ["error"]
    df = df[cols]
    for c in df.columns:
        if df[c].dtype == object and c != "error":
            vals = df[c].dropna()
            if len(vals) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
                df[c] = pd.to_numeric(df[c]).astype("float64" if any(isinstance(v, float) for v in vals) or df[c].isna().any() else "int64")
    df["error"] = df["error"].astype("string")
    return df


def manifest(folder: Path) -> dict:
    """``folder/sweep.json``, checked: a JSON object with the scenario text, the axes (key → list
    of values), the seeds and one entry per point (id, one value per axis, seed). A file that is
    not is a ConfigError naming it."""
    mpath = Path(folder) / "sweep.json"

    def bad(why: str):
        return config_error(str(mpath), "(damaged)", f"the sweep.json that hostio sweep --out writes ({why})")

    if mpath.exists() and not mpath.is_file():  # a FIFO or device would block or never end
        raise bad("it is not a regular file")
    try:
        m = json.loads(mpath.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise bad("it is not UTF-8 text") from None
    except ValueError as exc:
        raise bad(f"it is not JSON: {exc}") from None
    except RecursionError:
        raise bad("its JSON nests deeper than Python reads") from None
    if not isinstance(m, dict):
        raise bad("not a JSON object")
    for key, typ in (("hostio", str), ("scenario", str), ("axes", dict), ("points", list)):
        if not isinstance(m.get(key), typ):
            raise bad(f"{key} missing or not a {'mapping' if typ is dict else typ.__name__}")
    if not all(isinstance(v, list) for v in m["axes"].values()):
        raise bad("an axis whose values are not a list")
    if not isinstance(m.get("set", []), list) or not isinstance(m.get("seeds"), (list, type(None))):
        raise bad("set or seeds not a list")
    for p in m["points"]:
        if not (isinstance(p, dict) and isinstance(p.get("id"), str) and isinstance(p.get("values"), list)
                and len(p["values"]) == len(m["axes"]) and (p.get("seed") is None or _int(p.get("seed")))):
            raise bad("a point without a string id, one value per axis and an integer or null seed")
    return m


def load(folder: str | os.PathLike):
    """The results DataFrame of a sweep folder, finished or not (points not yet run are absent)."""
    import pandas as pd

    if not isinstance(folder, (str, os.PathLike)) or not os.fspath(folder):
        raise config_error("folder", folder, "the path of a sweep folder")
    outp = Path(folder)
    mpath = outp / "sweep.json"
    if not mpath.is_file():
        table = outp / "results.parquet"
        if table.is_file():
            try:
                return pd.read_parquet(table)
            except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a damaged file
                raise config_error(str(table), "(unreadable)", f"a results table written by hostio sweep ({type(exc).__name__}: {exc})") from None
        raise config_error("folder", str(folder), "a sweep folder (with sweep.json from hostio sweep --out)")
    m = manifest(outp)
    if not (outp / "points.jsonl").exists() and (outp / "results.parquet").is_file():
        # The run log is gone but the finished table is there: it is the results, if it is this
        # sweep's (the points of an earlier sweep into the folder would carry other ids).
        try:
            table = pd.read_parquet(outp / "results.parquet")
        except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a damaged file
            raise config_error(str(outp / "results.parquet"), "(unreadable)", f"a results table written by hostio sweep ({type(exc).__name__}: {exc})") from None
        ids = {p["id"] for p in m["points"]}
        if "point_id" in table and set(table["point_id"]) <= ids:
            done = set(table.loc[table["error"].isna(), "point_id"]) if "error" in table else set()
            table.attrs["complete"] = done == ids
            return table
    log = read_log(outp / "points.jsonl")
    keys = [(tuple(p["values"]), p["seed"]) for p in m["points"]]
    recs = [log.get(p["id"]) for p in m["points"]]
    recs = [dict(r, id=p["id"]) if r else None for r, p in zip(recs, m["points"])]
    df = _frame(m["axes"], keys, recs)
    df.attrs["complete"] = all(r is not None and "result" in r for r in recs)
    return df


def write_tables(df, folder: str | os.PathLike) -> None:
    """``results.parquet`` (typed) and ``table.csv`` (for spreadsheets), each written atomically."""
    folder = Path(folder)
    write_atomic(folder / "results.parquet", lambda p: df.to_parquet(p, index=False))
    write_atomic(folder / "table.csv", lambda p: df.to_csv(p, index=False))


def metric_columns(df, axes: Sequence[str] = ()) -> list[str]:
    """Numeric metric columns of a results table (not the axes, the seed or the ids)."""
    import pandas as pd

    skip = set(axes) | set(ID_COLUMNS) | {"events"}
    return [c for c in df.columns if c not in skip and pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])]


def summarize(df, axes: Sequence[str] | Mapping[str, Sequence], metrics: Sequence[str] | None = None):
    """Median and spread over seeds: per point of the axes, ``<metric>`` (median), ``<metric>.min``,
    ``<metric>.max`` and ``seeds`` (how many ran). ``axes`` is a list (any iterable but a string)
    of the table's column names, or the mapping given to :func:`sweep` (its keys are taken, in
    their normal spelling, as the table names its columns); ``metrics`` likewise a list of column
    names (``None``: throughput, p99 latency, PCIe write hit rate and drops, those the table has);
    a metric must hold numbers. Names must be distinct, in and between the two lists, and no axis
    may be called ``seeds`` (the count's column). When the table has a ``seed`` column, each point
    of the axes must hold a seed once: axes that leave out one the sweep varied would pool
    different points into one "spread over seeds", and are refused."""
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise config_error("df", type(df).__name__, "a pandas DataFrame (hostio.sweep's or hostio.load's table)")
    if isinstance(axes, Mapping):
        axes = [sim.normal_key(k.strip(), "axes") if isinstance(k, str) else k for k in axes]
    names = {}
    for key, cols in (("axes", axes), ("metrics", [] if metrics is None else metrics)):
        # One string is not a list of names; a list must hold names only.
        if isinstance(cols, (str, bytes)) or not isinstance(cols, Iterable):
            raise config_error(key, cols, f"a list of column names, e.g. ['nics.nic0.rx_descriptors'] (got a {type(cols).__name__})")
        cols = list(cols)
        bad = [c for c in cols if not isinstance(c, str)]
        if bad:
            raise config_error(key, bad[0], f"column names (strings; got a {type(bad[0]).__name__})")
        names[key] = cols
    axes, metrics = names["axes"], None if metrics is None else names["metrics"]
    again = next((c for i, c in enumerate(axes + (metrics or [])) if c in (axes + (metrics or []))[:i]), None)
    if again is not None:
        raise config_error("axes" if again in axes and axes.count(again) > 1 else "metrics", again,
                           "distinct column names, none both an axis and a metric")
    if "seeds" in axes:
        raise config_error("axes", "seeds", "column names other than seeds (the summary's count of runs)")
    ok = df[df["error"].isna()] if "error" in df else df
    metrics = list(metrics) if metrics is not None else [
        c for c in ("throughput_gbps", "latency_ns.p99", "pcie_write_hit_rate", "dropped_packets") if c in ok]
    for name, cols in (("axes", list(axes)), ("metrics", metrics)):
        missing = [c for c in cols if c not in df.columns]
        if missing:
            shown = ", ".join(map(str, df.columns)) if len(df.columns) <= 40 else f"{len(df.columns)} columns, e.g. {', '.join(map(str, df.columns[:10]))}"
            raise config_error(name, missing[0] if len(missing) == 1 else missing, f"columns of the table ({shown})")
    twice = next((c for c in axes + metrics if (df.columns == c).sum() > 1), None)
    if twice is not None:
        raise config_error("df", twice, "a table that names each of these columns once")
    for m in metrics:
        col = pd.to_numeric(ok[m], errors="coerce")
        if (col.isna() & ok[m].notna()).any():
            raise config_error("metrics", m, "columns of numbers (a metric, not a label such as scenario_hash)")
    for a in axes:
        if ok[a].map(lambda v: isinstance(v, (list, dict, set))).any():
            raise config_error("axes", a, "columns of single values (one axis value per row)")
    cols = list(axes) + ["seeds"] + [c for m in metrics for c in (m, m + ".min", m + ".max")]
    if ok.empty:
        return pd.DataFrame(columns=cols)
    g = ok.groupby(list(axes), sort=False, dropna=False) if axes else [((), ok)]
    rows = []
    for key, part in g:
        key = key if isinstance(key, tuple) else (key,)
        seeds = part["seed"].dropna() if "seed" in part else None
        if seeds is not None and seeds.duplicated().any():
            seed = seeds[seeds.duplicated()].iloc[0]
            at = "at " + ", ".join(f"{a}={v}" for a, v in zip(axes, key)) if axes else "with no axes"
            raise config_error("axes", list(axes), f"every column the sweep varied (its sweep.json lists them): {at}, seed {seed} "
                               f"has {int((seeds == seed).sum())} rows, so these axes would pool different points")
        row = dict(zip(axes, key))
        row["seeds"] = len(part)
        for m in metrics:
            col = pd.to_numeric(part[m], errors="coerce").astype("float64")
            row[m] = col.median()
            row[m + ".min"] = col.min()
            row[m + ".max"] = col.max()
        rows.append(row)
    return pd.DataFrame(rows, columns=cols)


def write_csv(rows: Sequence[dict], path: str | os.PathLike) -> None:
    """Write rows to CSV atomically (all columns that appear in any row)."""
    import csv

    cols: list[str] = []
    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)

    def write(tmp: Path) -> None:
        with tmp.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols)
            w.writeheader()
            for r in rows:
                w.writerow(r)

    write_atomic(path, write)


class _CallableModule(types.ModuleType):
    """``hostio.sweep(...)`` is :func:`sweep`; the module's other names stay attributes."""

    def __call__(self, *args, **kwargs):
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
