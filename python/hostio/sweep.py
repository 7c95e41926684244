"""Sweeps: one scenario, one or more keys varied, points run in parallel local processes.

Each finished point is appended to ``<out>/points.jsonl`` at once, so an interrupted sweep keeps
what it finished and a re-run with the same arguments skips those points. Every point runs with
the scenario's own seed, so results do not depend on the number of workers or their order.

>>> from hostio.sweep import expand
>>> expand({"nics.nic0.rx_descriptors": [128, 256], "traffic.t0.packet_size": [64]})
[['nics.nic0.rx_descriptors=128', 'traffic.t0.packet_size=64'], ['nics.nic0.rx_descriptors=256', 'traffic.t0.packet_size=64']]
"""
from __future__ import annotations

import concurrent.futures as cf
import hashlib
import itertools
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from hostio import sim
from hostio.errors import ConfigError, config_error


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
    if "=" not in spec:
        raise config_error("--axis", spec, "KEY.PATH=V1,V2,... e.g. nics.nic0.rx_descriptors=128,256")
    key, vals = spec.split("=", 1)
    out = []
    for raw in vals.split(","):
        raw = raw.strip()
        if not raw:
            raise config_error("--axis", spec, "a comma-separated list of values without empty items")
        try:
            out.append(json.loads(raw))
        except json.JSONDecodeError:
            out.append(int(raw, 16) if raw.lower().startswith("0x") else raw)
    return key.strip(), out


def _point_id(text: str, overrides: Sequence[str]) -> str:
    return hashlib.sha256((text + "\0" + "\n".join(overrides)).encode()).hexdigest()[:16]


def _run_point(job: tuple[int, str, list[str]]) -> tuple[int, dict | None, str | None]:
    index, text, overrides = job
    try:
        return index, sim.run(text, set=overrides), None
    except ConfigError as exc:
        return index, None, str(exc)
    except Exception as exc:  # a crash in one point must not lose the others
        return index, None, f"{type(exc).__name__}: {exc}"


class _Progress:
    def __init__(self, total: int, label: str, enabled: bool):
        self.total, self.label, self.enabled = total, label, enabled
        self.done = self.failed = 0
        self.start = time.monotonic()
        self.tty = sys.stderr.isatty()

    def update(self, ok: bool, note: str = "") -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        if not self.enabled:
            return
        el = time.monotonic() - self.start
        eta = el / self.done * (self.total - self.done) if self.done else 0.0
        width = 24
        fill = int(width * self.done / max(self.total, 1))
        line = f"{self.label} [{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total}"
        line += f" failed {self.failed}" if self.failed else ""
        line += f" {el:5.1f}s eta {eta:5.1f}s"
        if self.tty:
            end = "\n" if self.done == self.total else ""
            print("\r" + line + (f" {note}" if note else ""), end=end, file=sys.stderr, flush=True)
        else:
            print(line + (f" {note}" if note else ""), file=sys.stderr, flush=True)


def run_points(
    points: Sequence[tuple[str, list[str]]],
    *,
    out: str | os.PathLike | None = None,
    jobs: int | None = None,
    label: str = "sweep",
    progress: bool = True,
) -> list[dict]:
    """Run ``(scenario_text, overrides)`` points; returns one record per point, in order:
    ``{"index", "overrides", "result"}`` or ``{"index", "overrides", "error"}``."""
    jobs = max(1, jobs or os.cpu_count() or 1)
    records: dict[int, dict] = {}
    log = None
    if out is not None:
        outp = Path(out)
        outp.mkdir(parents=True, exist_ok=True)
        logp = outp / "points.jsonl"
        ids = {_point_id(t, o): i for i, (t, o) in enumerate(points)}
        if logp.exists():
            for line in logp.read_text().splitlines():
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short by an interrupt
                i = ids.get(rec.get("id"))
                if i is not None and "result" in rec:
                    records[i] = {"index": i, "overrides": points[i][1], "result": rec["result"]}
        log = logp.open("a")
    todo = [(i, t, list(o)) for i, (t, o) in enumerate(points) if i not in records]
    bar = _Progress(len(points), label, progress)
    bar.done = len(records)

    def finish(i: int, res: dict | None, err: str | None) -> None:
        rec = {"index": i, "overrides": points[i][1]}
        if err is None:
            rec["result"] = res
        else:
            rec["error"] = err
        records[i] = rec
        if log is not None:
            log.write(json.dumps({"id": _point_id(*points[i]), **rec}) + "\n")
            log.flush()
        bar.update(err is None, "" if err is None else f"point {i} failed: {err}")

    try:
        if jobs == 1 or len(todo) <= 1:
            for job in todo:
                finish(*_run_point(job))
        else:
            # fork: workers inherit the loaded module and need no importable __main__; the compiled
            # module starts no threads, so forking is safe.
            methods = multiprocessing.get_all_start_methods()
            ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
            with cf.ProcessPoolExecutor(max_workers=min(jobs, len(todo)), mp_context=ctx) as pool:
                futs = [pool.submit(_run_point, job) for job in todo]
                try:
                    for fut in cf.as_completed(futs):
                        try:
                            finish(*fut.result())
                        except cf.process.BrokenProcessPool as exc:
                            i = todo[futs.index(fut)][0]
                            finish(i, None, f"worker died: {exc}")
                except KeyboardInterrupt:
                    pool.shutdown(wait=False, cancel_futures=True)
                    raise
    finally:
        if log is not None:
            log.close()
    return [records[i] for i in range(len(points))]


def sweep(
    scenario: sim.Scenario,
    axes: Mapping[str, Sequence],
    *,
    set: Iterable[str] = (),
    out: str | os.PathLike | None = None,
    jobs: int | None = None,
    progress: bool = True,
) -> list[dict]:
    """Run the cartesian product of ``axes`` over ``scenario``; see :func:`run_points`."""
    text, is_json = sim._source(scenario)
    if is_json:
        raise config_error("scenario", "mapping", "sweeps take a TOML file or TOML text")
    base = list(set)
    combos = expand(axes)
    # Validate every point before starting any, so a typo fails fast and writes nothing.
    for combo in combos:
        sim.check(text, set=base + combo)
    return run_points([(text, base + c) for c in combos], out=out, jobs=jobs, progress=progress)


def flatten(result: dict) -> dict:
    """One tidy row of scalar metrics: ``metrics.*`` keys plus ``apps.<name>.*`` columns."""
    row: dict = {}

    def walk(prefix: str, v) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                walk(f"{prefix}.{k}" if prefix else k, x)
        elif not isinstance(v, list):
            row[prefix] = v

    walk("", result["metrics"])
    row["seed"] = result["seed"]
    row["scenario_hash"] = result["scenario_hash"]
    row["wall_seconds"] = result["wall_seconds"]
    return row


def table(records: Sequence[dict]) -> list[dict]:
    """Rows for CSV: the point's overrides as columns, then the flattened metrics."""
    rows = []
    for rec in records:
        row = {}
        for ov in rec["overrides"]:
            k, v = ov.split("=", 1)
            row[k] = v.strip('"')
        if "result" in rec:
            row.update(flatten(rec["result"]))
        else:
            row["error"] = rec["error"]
        rows.append(row)
    return rows


def write_csv(rows: Sequence[dict], path: str | os.PathLike) -> None:
    """Write rows to CSV atomically (all columns that appear in any row)."""
    import csv

    cols: list[str] = []
    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)
    tmp = Path(str(path) + ".tmp")
    with tmp.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow(r)
    tmp.replace(path)
