"""Bad input to sweeps, reports and advice: malformed records and folders, sizes, schedulers,
signals and Python argument types. Every case is one line, exit 2 (ConfigError in Python), and
leaves nothing half-written."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

import hostio
from hostio import sweep
from hostio.errors import ConfigError

SHORT = ["run.duration_us=200", "run.warmup_us=200"]
SHORT_CLI = ["--set", "run.duration_us=200", "--set", "run.warmup_us=200", "--quiet"]
AXES = {"nics.nic0.rx_descriptors": [128, 256]}


def cli(*args, timeout=120, **kw):
    return subprocess.run([sys.executable, "-m", "hostio", *args], capture_output=True, text=True, timeout=timeout, **kw)


def one_line_error(p, *needles):
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def run_sweep(out, **kw):
    return hostio.sweep("quickstart", AXES, set=SHORT, out=out, jobs=1, progress=False, **kw)


# ---- malformed points.jsonl records ------------------------------------------------------------

@pytest.mark.parametrize("bad", [
    {"result": None}, {"result": {}}, {"result": {"metrics": 5}}, {"result": "oops"}, {"result": [1, 2]},
    "seed", "id",
])
def test_malformed_records_are_rerun_and_reported_missing(tmp_path, bad):
    run_sweep(tmp_path)
    log = tmp_path / "points.jsonl"
    recs = [json.loads(ln) for ln in log.read_text().splitlines()]
    if bad == "seed":
        recs[1]["result"]["seed"] = "one"
    elif bad == "id":
        recs[1]["id"] = ["x"]
    else:
        recs[1] = dict(recs[1], **bad)
        recs[1].pop("error", None)
    log.write_text("".join(json.dumps(r) + "\n" for r in recs))
    df = hostio.load(tmp_path)
    assert len(df) == 1 and not df.attrs["complete"]
    p = cli("report", str(tmp_path), "--out", str(tmp_path / "r.html"))
    assert p.returncode == 0, p.stderr
    assert "1 of 2 points" in (tmp_path / "r.html").read_text()
    df = run_sweep(tmp_path)
    assert len(df) == 2 and df["error"].isna().all() and df["throughput_gbps"].notna().all()
    assert hostio.load(tmp_path).attrs["complete"]
