"""The simulator from Python and from the command line."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import hostio
from hostio import sim, sweep

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
SHORT = ["run.duration_us=300", "run.warmup_us=300"]


def hostio_cli(*args, input=None):
    return subprocess.run([sys.executable, "-m", "hostio", *args], capture_output=True, text=True, input=input)


def strip_wall(r: dict) -> dict:
    r = dict(r)
    r.pop("wall_seconds")
    return r


def test_run_returns_the_documented_result():
    r = sim.run(sim.scenario_path("quickstart"), set=SHORT)
    for key in ("scenario", "platform", "seed", "version", "scenario_hash", "wall_seconds", "events", "metrics"):
        assert key in r
    m = r["metrics"]
    for key in ("pcie_write_hit_rate", "pcie_read_hit_rate", "offered_gbps", "throughput_gbps", "rx_packets",
                "tx_packets", "dropped_packets", "pause_frames", "memory_read_gbps", "memory_write_gbps"):
        assert key in m
    assert set(m["latency_ns"]) == {"p50", "p90", "p99", "p999", "max", "mean"}
    app = m["apps"]["fwd"]
    for key in ("throughput_gbps", "latency_ns", "llc_accesses", "llc_misses", "rx_packets", "tx_packets"):
        assert key in app
    assert 0 <= m["pcie_write_hit_rate"] <= 1 and 0 <= m["pcie_read_hit_rate"] <= 1
    assert 80 < m["offered_gbps"] < 100
    assert m["latency_ns"]["p50"] <= m["latency_ns"]["p99"] <= m["latency_ns"]["max"]
    assert r["scenario"]["nics"]["nic0"]["rx_descriptors"] == 1024


def test_dict_scenarios_and_overrides():
    sc = {
        "run": {"duration_us": 200, "warmup_us": 100},
        "nics": {"n": {"rx_descriptors": 256}},
        "traffic": {"t": {"nic": "n", "size_mix": "campus", "rate_gbps": 50}},
        "apps": {"a": {"kind": "l2fwd", "nic": "n", "cores": 2}},
    }
    r = sim.run(sc, set=["nics.n.rx_descriptors=512"], seed=3)
    assert r["seed"] == 3
    assert r["scenario"]["nics"]["n"]["rx_descriptors"] == 512
    assert 40 < r["metrics"]["offered_gbps"] < 50


def test_same_seed_identical_json_and_seed_changes_it():
    path = sim.scenario_path("quickstart")
    text = path.read_text().replace("packet_size = 1500", 'size_mix = "imix"')
    a = strip_wall(sim.run(text, set=SHORT, seed=5))
    b = strip_wall(sim.run(text, set=SHORT, seed=5))
    c = strip_wall(sim.run(text, set=SHORT, seed=6))
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert a["metrics"] != c["metrics"]


def test_config_error_is_a_value_error_naming_key_value_allowed():
    with pytest.raises(ValueError) as e:
        sim.run(sim.scenario_path("quickstart"), set=["platform.ddio_mask=0x603"])
    assert isinstance(e.value, hostio.ConfigError)
    assert str(e.value) == "platform.ddio_mask = 0x603: contiguous set bits on Intel Xeon Gold 6140 (Skylake-SP)"


def test_presets_listed():
    ps = sim.presets()
    assert {"skylake-gold-6140", "haswell-e5-2699v3"} <= set(ps)
    assert ps["skylake-gold-6140"]["llc_ways"] == 11 and ps["haswell-e5-2699v3"]["llc_inclusive"]


def test_platform_file_preset(tmp_path):
    p = tmp_path / "machine.toml"
    facts = sim.presets()["haswell-e5-2699v3"]
    lines = []
    for k, v in facts.items():
        if v is None:
            continue
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif isinstance(v, str):
            v = json.dumps(v)
        lines.append(f"{k} = {v}")
    p.write_text("\n".join(lines) + "\n")
    r = sim.check(sim.scenario_path("quickstart"), set=[f'platform.preset="file:{p}"'])
    assert r["ddio_mask"] == "0x60000"
    p.write_text("name = 1\n")
    with pytest.raises(hostio.ConfigError, match="platform file"):
        sim.check(sim.scenario_path("quickstart"), set=[f'platform.preset="file:{p}"'])


# ---- golden scenarios --------------------------------------------------------------------------

GOLDEN_CASES = {
    "quickstart_short": ("quickstart", SHORT),
    "haswell_imix": ("quickstart", SHORT + ['platform.preset="haswell-e5-2699v3"']),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_golden(name):
    scenario, ov = GOLDEN_CASES[name]
    text = sim.scenario_path(scenario).read_text()
    if name == "haswell_imix":
        text = text.replace("packet_size = 1500", 'size_mix = "imix"')
    r = sim.run(text, set=ov)
    got = {"events": r["events"], "metrics": r["metrics"]}
    path = GOLDEN / f"{name}.json"
    if os.environ.get("HOSTIO_REGEN_GOLDEN") or not path.exists():
        path.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        if not os.environ.get("HOSTIO_REGEN_GOLDEN"):
            pytest.fail(f"golden file {path.name} was missing and has been written; re-run")
    want = json.loads(path.read_text())
    assert got == want, "simulator output changed; if intended, re-run with HOSTIO_REGEN_GOLDEN=1 and review the diff"


# ---- command line ------------------------------------------------------------------------------


def test_cli_run_json_stdout():
    p = hostio_cli("run", "quickstart", *sum((["--set", s] for s in SHORT), []), "--json", "-")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["metrics"]["apps"]["fwd"]["kind"] == "l2fwd"


def test_cli_run_summary_and_json_file(tmp_path):
    out = tmp_path / "r.json"
    p = hostio_cli("run", str(sim.scenario_path("quickstart")), "--set", SHORT[0], "--set", SHORT[1], "--seed", "9", "--json", str(out))
    assert p.returncode == 0, p.stderr
    assert "PCIe write hit rate" in p.stdout and "fwd" in p.stdout
    assert json.loads(out.read_text())["seed"] == 9


@pytest.mark.parametrize(
    "args, needle",
    [
        (["run", "missing.toml"], "scenario = 'missing.toml'"),
        (["run", "quickstart", "--set", "nics.nic0.rx_descriptors=100"], "nics.nic0.rx_descriptors = 100: a power of two"),
        (["run", "quickstart", "--set", "nics.nic0.bogus=1"], "nics.nic0.bogus"),
        (["run", "quickstart", "--set", "novalue"], "--set"),
        (["run", "quickstart", "--set", 'apps.fwd.kind="router"'], "apps.fwd.kind"),
        (["run", "quickstart", "--set", "platform.ddio_ways=12"], "platform.ddio_ways = 12: 2..=11"),
        (["sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors", "--out", "/tmp/x"], "--axis"),
        (["reproduce", "--only", "fig99"], "--only = 'fig99'"),
    ],
)
def test_cli_bad_input_one_line_exit_2(args, needle):
    p = hostio_cli(*args)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert needle in lines[0], lines[0]


def test_cli_bad_toml_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[run\nseed = 1\n")
    p = hostio_cli("run", str(bad))
    assert p.returncode == 2 and "not valid TOML" in p.stderr and "Traceback" not in p.stderr
    assert p.stderr.startswith(f"hostio: error: scenario = {str(bad)!r}: a TOML file (not valid TOML: "), p.stderr


def test_cli_sweep_writes_table(tmp_path):
    p = hostio_cli("sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128,512", "--set", SHORT[0], "--set", SHORT[1],
                   "--out", str(tmp_path), "--jobs", "2", "--quiet")
    assert p.returncode == 0, p.stderr
    rows = (tmp_path / "table.csv").read_text().splitlines()
    assert len(rows) == 3 and "nics.nic0.rx_descriptors" in rows[0].split(",")


def test_cli_reproduce_one_experiment(tmp_path):
    p = hostio_cli("reproduce", "--only", "pause,remote", "--quick", "--out", str(tmp_path), "--quiet")
    assert p.returncode == 0, p.stderr
    for f in ("summary.md", "claims.csv", "pause.png", "pause.csv", "remote.png"):
        assert (tmp_path / f).exists(), f
    summary = (tmp_path / "summary.md").read_text()
    assert "PAUSE" in summary and "| claim | paper | hostio |" in summary


def test_cli_presets_and_check():
    p = hostio_cli("presets")
    assert p.returncode == 0 and "skylake-gold-6140" in p.stdout
    # --json takes PATH or - like every other command's; alone it means stdout.
    for args in (["--json"], ["--json", "-"]):
        p = hostio_cli("presets", *args)
        assert p.returncode == 0 and json.loads(p.stdout) == hostio.presets(), p.stderr
    p = hostio_cli("check", "quickstart", "--set", "platform.ddio_ways=4")
    assert p.returncode == 0 and json.loads(p.stdout)["ddio_mask"] == "0x780"


def test_check_prints_the_defaults_the_engine_applies():
    # Kind-dependent and platform-dependent defaults of the keys a scenario leaves unset, apart
    # from the scenario, which stays as given.
    r = hostio.sim.check("ddio/interference")
    d, sc = r["defaults"], r["scenario"]
    assert d["apps"]["io"] == {"working_set_mib": 2.0, "accesses_per_packet": 2, "cycles_per_packet": 0, "mempool_socket": 0}
    assert "corunner" not in d["apps"]  # its keys are all given (a co-runner has no mempool)
    assert d["platform"] == {"replacement": "lru"} and "replacement" not in sc["platform"]
    assert "working_set_mib" not in sc["apps"]["io"]
    chain = hostio.sim.check("ddio/stateful_chain")["defaults"]["apps"]["chain"]
    assert (chain["working_set_mib"], chain["accesses_per_packet"], chain["cat_mask"]) == (16.0, 4, 0x7FF)
    mc = hostio.sim.check("ddio/single_core", set=['nics.nic0.attachment="memory-channel"'])["defaults"]["apps"]["fwd"]
    assert "mempool_socket" not in mc  # its buffers live in the NIC's DRAM


def test_spelling_a_default_out_keeps_the_scenario_hash():
    short = ["run.duration_us=20", "run.warmup_us=5"]
    h = lambda extra: sim.run("quickstart", set=short + extra)["scenario_hash"]  # noqa: E731
    base = h([])
    assert h(["apps.fwd.working_set_mib=2", "apps.fwd.accesses_per_packet=2", "apps.fwd.cat_mask=0x7ff",
              "platform.replacement=\"lru\""]) == base
    assert h(["apps.fwd.working_set_mib=3"]) != base


@pytest.mark.parametrize("attachment", ["pcie", "integrated", "coherent", "memory-channel"])
def test_what_check_prints_runs_again_as_it_is(attachment):
    short = ["run.duration_us=100", "run.warmup_us=50"]
    extra = [f'nics.nic0.attachment="{attachment}"'] + (['platform.preset="icelake-silver-4314"'] if attachment == "coherent" else [])
    shown = sim.check("ddio/single_core", set=extra)["scenario"]
    assert sim.check(shown)["scenario"] == shown
    a, b = sim.run("ddio/single_core", set=extra + short), sim.run(shown, set=short)
    assert a["metrics"] == b["metrics"] and a["scenario_hash"] == b["scenario_hash"]


def test_an_attachments_counts_are_integers_and_its_rates_floats():
    r = hostio.run("quickstart", set=['nics.nic0.attachment="memory-channel"', "run.duration_us=300", "run.warmup_us=100"])
    m = r["metrics"]["nics"]["nic0"]["attachment_metrics"]
    assert all(type(m[k]) is int for k in ("host_flushes", "ncache_prefetched_lines", "clones_fpm", "clones_psm", "clones_gcm")), m
    assert all(type(m[k]) is float for k in ("ncache_hit_rate", "channel_gbyte_s", "nic_dram_gbyte_s")), m
