"""hostio ringbench: the JSON contract, the ablation table, the model, and refusals. Runs are a
few milliseconds per configuration; timing is never asserted."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hostio import _core, cli, ringbench

TWO_CPUS = len(_core.hw_allowed_cpus()) >= 2
CONTRACT = {"signaling", "layout", "batch", "latency_ns_p50", "latency_ns_p99", "mdesc_per_s"}


def run_cli(args, capsys):
    rc = cli.main(["ringbench", *args])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.skipif(not TWO_CPUS, reason="needs two cpus")
def test_json_one_object_per_configuration(capsys):
    rc, out, _ = run_cli(["--signaling", "all", "--layout", "all", "--batch", "1,5", "--payload", "128",
                          "--pool", "queues", "--window", "32", "--duration-ms", "10", "--line-ns", "100",
                          "--json", "-"], capsys)
    assert rc == 0
    objs = [json.loads(line) for line in out.splitlines()]
    assert len(objs) == 2 * 3 * 2
    assert {(o["signaling"], o["layout"], o["batch"]) for o in objs} == {
        (s, l, b) for s in ("doorbell", "inline") for l in ("padded", "packed", "grouped") for b in (1, 5)}
    for o in objs:
        assert CONTRACT <= set(o)
        assert o["latency_ns_p99"] >= o["latency_ns_p50"] >= o["latency_ns_min"] > 0
        assert o["mdesc_per_s"] > 0 and o["gbps"] > 0
        assert o["model"]["line_transfer_ns"] == 100 and o["model"]["one_way_ns"] > 0


@pytest.mark.skipif(not TWO_CPUS, reason="needs two cpus")
def test_ablation_table(capsys):
    rc, out, _ = run_cli(["--sweep", "ablation", "--duration-ms", "6", "--window", "64", "--line-ns", "80"], capsys)
    assert rc == 0
    assert "inline / doorbell, min latency" in out and "grouped / padded, max rate" in out
    rc, out, _ = run_cli(["--sweep", "ablation", "--duration-ms", "6", "--window", "64", "--line-ns", "80",
                          "--json", "-"], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    abl = {r["comparison"]: r for r in rows if r["record"] == "ablation"}
    assert abl["inline_vs_doorbell_min_latency"]["paper"] == 0.63
    assert abl["packed_vs_padded_max_rate"]["paper"] == 2.9
    assert abl["grouped_vs_padded_max_rate"]["paper"] == 3.0
    assert all(r["measured"] > 0 and r["model"] > 0 for r in abl.values())


def test_model_orders_the_designs():
    p = {lay: ringbench.predict(ringbench.config("inline", lay, 16), 100.0) for lay in ("padded", "packed", "grouped")}
    assert p["grouped"]["max_mdesc_per_s"] > 2 * p["padded"]["max_mdesc_per_s"]
    d1 = ringbench.predict(ringbench.config("doorbell", "padded", 1), 100.0)
    i1 = ringbench.predict(ringbench.config("inline", "padded", 1), 100.0)
    assert i1["one_way_ns"] < d1["one_way_ns"] and i1["serial_transfers"] == 1


def test_the_models_rate_is_held_to_what_the_window_allows():
    wide = ringbench.predict(ringbench.config("inline", "grouped", 1, window=4096), 100.0)
    assert wide == ringbench.predict({k: v for k, v in ringbench.config("inline", "grouped", 1).items() if k != "window"}, 100.0)
    one = ringbench.predict(ringbench.config("inline", "grouped", 1, window=1), 100.0)
    assert one["max_mdesc_per_s"] == pytest.approx(1 / (2 * one["one_way_ns"]) * 1e3)
    assert one["max_mdesc_per_s"] < wide["max_mdesc_per_s"]


@pytest.mark.parametrize("args,msg", [
    (["--batch", "65"], "--batch = '65': 1..=64"),
    (["--batch", "1,0"], "--batch = '1,0': 1..=64"),
    (["--batch", ""], "--batch = '': a comma list"),
    (["--layout", "diagonal"], "--layout = 'diagonal': padded, packed, grouped or all"),
    (["--signaling", "smoke"], "--signaling = 'smoke': doorbell, inline or all"),
    (["--pool", "lake"], "--pool = 'lake'"),
    (["--payload", "10"], "--payload = 10: 0 (no payload) or 64..=1500"),
    (["--window", "0"], "--window = 0: 1..=4096"),
    (["--window", "-5"], "--window = -5: 1..=4096"),
    (["--window", "5000"], "--window = 5000: 1..=4096"),
    (["--batch", "16", "--window", "1"], "--window = 1: 16..=4096 descriptors (at least the batch)"),
    (["--window", "4", "--sweep", "ablation"], "--window = 4: 64..=4096 descriptors (at least the sweep's largest batch)"),
    (["--duration-ms", "1"], "--duration-ms = 1: 2..=60000"),
    (["--duration-ms", "99999999999999999999"], "--duration-ms = 99999999999999999999"),
    (["--cpus", "0,0"], "--cpus = '0,0'"),
    (["--cpus", ""], "--cpus = ''"),
    (["--sweep", "wide"], "--sweep = 'wide'"),
    (["--mlp", "nan"], "--mlp = nan"),
    (["--line-ns", "0"], "--line-ns = 0.0"),
])
def test_bad_input_one_line(capsys, args, msg):
    # Each error names the option as typed, never the API's key (payload_bytes, duration_ms).
    rc, _, err = run_cli(args, capsys)
    assert rc == 2 and err.startswith(f"hostio: error: {msg}") and err.count("\n") == 1, err


@pytest.mark.skipif(not TWO_CPUS, reason="needs two cpus")
def test_bench_script_names_its_own_options(tmp_path):
    script = Path(__file__).parent.parent / "bench" / "hw_ringbench.py"
    p = subprocess.run([sys.executable, str(script), "--payload", "5", "--out", str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert p.stderr.splitlines()[-1] == "hw_ringbench.py: error: --payload = 5: 0 (no payload) or 64..=1500 bytes"
    assert not (tmp_path / "out").exists()


def test_refused_on_one_cpu(capsys, monkeypatch):
    monkeypatch.setattr(_core, "hw_allowed_cpus", lambda: [0])
    rc, _, err = run_cli(["--duration-ms", "10"], capsys)
    assert rc == 2 and "needs two cpus" in err and err.count("\n") == 1


def test_argparse_errors_are_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["probe", "--reps", "many"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "hostio probe: error: argument --reps: 'many' is not an integer" in err and err.count("\n") == 1
