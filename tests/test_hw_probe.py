"""hostio probe: short real runs (shape of the output, never timing thresholds), the platform
file's exact keys, and refusals."""
from __future__ import annotations

import copy
import json
import tomllib

import pytest

from hostio import _core, cli, probe
from hostio.errors import HostioError

TWO_CPUS = len(_core.hw_allowed_cpus()) >= 2


def run_cli(args, capsys):
    rc = cli.main(["probe", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def test_quick_json_contract(capsys):
    rc, out, _ = run_cli(["--quick", "--max-mib", "0.25", "--reps", "1", "--tests", "latency,bandwidth",
                          "--json", "-"], capsys)
    assert rc == 0
    r = json.loads(out)  # nothing but JSON on stdout
    assert set(r["latency_ns"]) == {"l1", "l2", "llc", "dram"}
    assert r["latency_ns"]["l1"] > 0
    assert set(r["bandwidth_gbps"]) >= {"read", "write"}
    assert r["bandwidth_gbps"]["read"] == pytest.approx(8 * r["bandwidth_gbyte_s"]["read"])
    assert r["c2c_ns"] is None
    sizes = [p["bytes"] for p in r["latency_curve"]]
    assert sizes[0] == 4096 and sizes[-1] == 256 * 1024
    assert r["geometry"]["levels"]["l1d"]["line_bytes"] in (32, 64, 128)


@pytest.mark.skipif(not TWO_CPUS, reason="needs two cpus")
def test_pair_measurements(capsys):
    rc, out, _ = run_cli(["--quick", "--max-mib", "1", "--reps", "1", "--tests", "c2c,loaded", "--json", "-"], capsys)
    assert rc == 0
    r = json.loads(out)
    assert r["c2c_ns"] > 0 and r["c2c_modified_read_ns"] > 0
    assert len(r["c2c_pairs"]) == len(r["machine"]["cpus"]) * (len(r["machine"]["cpus"]) - 1) // 2
    assert r["loaded_latency_ns"]["ns"] > 0


def test_pair_test_refused_on_one_cpu(capsys):
    rc, out, err = run_cli(["--cpus", "0", "--tests", "c2c"], capsys)
    assert rc == 2 and out == ""
    assert "c2c needs two cpus" in err and "--cpus gives only [0]" in err and err.count("\n") == 1
    # All four named, in their default order, are asked for too
    rc, out, err = run_cli(["--cpus", "0", "--tests", "latency,loaded,c2c,bandwidth"], capsys)
    assert rc == 2 and out == "" and "c2c and loaded need two cpus" in err


@pytest.mark.parametrize("args,msg", [
    (["--max-mib", "0"], "--max-mib = 0.0: 0.0625..=65536"),
    (["--max-mib", "nan"], "--max-mib = nan"),
    (["--reps", "0"], "--reps = 0: 1..=1000"),
    (["--reps", "99999999999999999999"], "--reps = 99999999999999999999"),
    (["--seed", "-1"], "--seed = -1: 0..=18446744073709551615"),
    (["--seed", "18446744073709551616"], "--seed = 18446744073709551616"),
    (["--tests", "smoke"], "--tests = 'smoke'"),
    (["--tests", ""], "--tests = ''"),
    (["--tests", ","], "--tests = ',': a comma list of latency, loaded, c2c, bandwidth"),
    (["--cpus", "0,x"], "--cpus = '0,x'"),
    (["--cpus", "9999"], "--cpus = '9999': cpus this process may use"),
    (["--cpus", ""], "--cpus = '': a comma list"),
])
def test_bad_input_one_line(capsys, args, msg):
    # Each error names the option as typed, never the API's key (max_mib), and comes before any
    # measurement (a bad seed used to fail in the first one, naming its internal configuration).
    rc, out, err = run_cli(["--quick", "--max-mib", "0.25", "--reps", "1", "--tests", "latency", *args], capsys)
    assert rc == 2 and out == "" and err.startswith(f"hostio: error: {msg}") and err.count("\n") == 1, err


def test_platform_out_dash_is_stdout(tmp_path, capsys, monkeypatch):
    # As with --json -: the platform file alone on standard output, no file named '-'.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(probe, "run_probe", lambda opts, progress=None: _report())
    monkeypatch.setattr(probe, "format_summary", lambda report: "summary")
    rc, out, err = run_cli(["--platform-out", "-"], capsys)
    assert rc == 0, err
    assert out == probe.platform_toml(_report())
    assert tomllib.loads(out)["llc_ways"] == 11
    assert list(tmp_path.iterdir()) == []


def _report(vendor="GenuineIntel", family=6, model=85, dram=90.0):
    lv = {
        "l1d": {"level": 1, "kind": "data", "size_bytes": 32768, "ways": 8, "sets": 64, "line_bytes": 64,
                "inclusive": False, "shared_by": 2},
        "l2": {"level": 2, "kind": "unified", "size_bytes": 1 << 20, "ways": 16, "sets": 1024, "line_bytes": 64,
               "inclusive": False, "shared_by": 2},
        "l3": {"level": 3, "kind": "unified", "size_bytes": 25952256, "ways": 11, "sets": 36864, "line_bytes": 64,
               "inclusive": False, "shared_by": 36},
    }
    return {
        "version": "0.1.0", "date_utc": "2026-01-01T00:00:00Z",
        "machine": {"vendor": vendor, "brand": "Intel(R) Xeon(R) Gold 6140 CPU @ 2.30GHz", "family": family,
                    "model": model, "hypervisor": False, "cpus": [0, 1], "tsc_ghz": 2.3, "cores_per_socket": 18},
        "geometry": {"levels": lv},
        "settings": {"seed": 1, "reps": 3, "max_bytes": 128 << 20},
        "latency_ns": {"l1": 1.3, "l2": 5.2, "llc": 20.0, "dram": dram},
        "c2c_ns": 50.0, "bandwidth_gbyte_s": {"read": 80.0, "write": 40.0, "copy": 50.0},
        "bandwidth_buffer_bytes": 128 << 20,
    }


def test_platform_file_has_exactly_the_simulator_keys():
    text = probe.platform_toml(_report())
    assert text.startswith("# hostio platform file, measured by `hostio probe`")
    p = tomllib.loads(text)
    assert tuple(p)[: len(probe.PLATFORM_KEYS)] == probe.PLATFORM_KEYS
    # Skylake-SP: 36864 sets = 18 slices of 2048 sets, 1.375 MiB each.
    assert p["llc_ways"] == 11 and p["llc_slices"] == 18 and p["llc_mib_per_slice"] == pytest.approx(1.375)
    assert "llc_slices: Intel server LLC: 2048 sets per slice" in text
    # The loaded-latency curve is not measured: the file says whose it carries.
    assert "# dram_load_curve: not measured here: the Skylake-SP preset's" in text
    assert p["dram_load_curve"][0] == [0.0, 1.0] and p["dram_load_curve"][-1] == [1.02, 1.94]
    assert p["ddio_default_mask"] == 0x600 and p["ddio_mask_rule"] == "contiguous"
    assert p["l2_kib"] == 1024 and p["llc_inclusive"] is False
    assert isinstance(p["clock_ghz"], float) and isinstance(p["cores_per_socket"], int)
    amd = tomllib.loads(probe.platform_toml(_report(vendor="AuthenticAMD", family=25, model=17)))
    assert amd["ddio_default_mask"] == 0
    assert amd["llc_slices"] == 9  # 36864 sets, no Intel rule: the odd factor


def test_a_measured_loaded_latency_gives_the_curve_its_point():
    # 135 ns while 40 GB/s streamed, against 90 ns idle and 80 GB/s: [0.5, 1.5]; above half load,
    # Skylake-SP's rise (1.2383 at 0.5 by its points 0.389 / 0.54) scaled to pass through it.
    r = dict(_report(), loaded_latency_ns={"bytes": 128 << 20, "ns": 135.0, "stream_cpus": [1], "stream_gbyte_s": 40.0})
    text = probe.platform_toml(r)
    curve = tomllib.loads(text)["dram_load_curve"]
    scale = 0.5 / (1.153 + 0.116 * (0.5 - 0.389) / (0.54 - 0.389) - 1)
    assert curve[:3] == [[0.0, 1.0], [0.5, 1.5], [0.54, round(1 + 0.269 * scale, 3)]]
    assert curve[-1] == [1.02, round(1 + 0.94 * scale, 3)]
    assert "# dram_load_curve: 135.0 ns (1.5x idle) measured while 40.0 GB/s streamed (0.5 of the read bandwidth)" in text
    # A point where a Skylake-SP point lies is not repeated; a huge latency is clamped to 100x.
    loaded = lambda ns, gbs: dict(_report(), loaded_latency_ns={"bytes": 1, "ns": ns, "stream_cpus": [1], "stream_gbyte_s": gbs})  # noqa: E731
    at = tomllib.loads(probe.platform_toml(loaded(135.0, 43.2)))["dram_load_curve"]
    assert at[1][0] == 0.54 and at[2][0] == 0.804
    huge = tomllib.loads(probe.platform_toml(loaded(1e9, 40.0)))["dram_load_curve"]
    assert huge[1] == [0.5, 100.0] and all(f == 100.0 for _, f in huge[1:])
    # No usable point leaves the Skylake-SP curve, and the header says why: numbers that are not
    # numbers, a load below a quarter or beyond the curve's loads, a latency not above idle.
    for ns, gbs, why in ((float("nan"), 40.0, "no usable numbers"), (None, 40.0, "no usable numbers"), (135.0, float("inf"), "no usable numbers"),
                         (-5.0, 40.0, "no usable numbers"), (135.0, 0.4, "no point to scale it by"), (135.0, 100.0, "no point to scale it by"),
                         (80.0, 40.0, "no point to scale it by"), (90.0, 40.0, "no point to scale it by")):
        curve, said = probe.dram_load_curve(loaded(ns, gbs))
        text = probe.platform_toml(loaded(ns, gbs))
        assert curve is None and why in said and f"# dram_load_curve: {said}" in text, (ns, gbs)
        assert tomllib.loads(text)["dram_load_curve"][-1] == [1.02, 1.94]
    assert probe.dram_load_curve(_report()) == (None, "not measured here: the Skylake-SP preset's (Intel MLC --loaded_latency on a Xeon Gold 6140)")


def test_llc_slices():
    assert probe.llc_slices("AuthenticAMD", {"sets": 32768})[0] == 1
    assert probe.llc_slices("AuthenticAMD", {"sets": 98304})[0] == 3
    assert probe.llc_slices("GenuineIntel", {"sets": 36864})[0] == 18
    assert probe.llc_slices("GenuineIntel", {"sets": 0})[0] == 1


def test_platform_file_refuses_missing_measurements():
    with pytest.raises(HostioError, match="dram_latency_ns"):
        probe.platform_toml(_report(dram=None))
    r = _report()
    r["c2c_ns"] = None
    with pytest.raises(HostioError, match="c2c_latency_ns"):
        probe.platform_toml(r)


def test_platform_keys_match_the_rust_declaration():
    # The Rust struct denies unknown and missing keys: a dict with one key too many fails there.
    p = probe.platform_dict(_report())
    bad = dict(p, extra=1)
    with pytest.raises(Exception, match="extra"):
        _core.hw_platform_toml(json.dumps(bad), [])
    short = copy.copy(p)
    del short["name"]
    with pytest.raises(Exception, match="name"):
        _core.hw_platform_toml(json.dumps(short), [])


def test_levels_from_a_curve():
    lv = json.loads(_core.hw_levels([(4096, 1.0), (8192, 1.0), (256 << 10, 4.0), (4 << 20, 12.0), (64 << 20, 90.0)],
                                    32 << 10, 1 << 20, 16 << 20))
    assert lv["latency_ns"] == [1.0, 4.0, 12.0, 90.0]


def _llc_bytes():
    g = probe.geometry()
    return (g["llc"] or {}).get("size_bytes") or 0


@pytest.mark.skipif(not TWO_CPUS or not 0 < _llc_bytes() <= 64 << 20, reason="needs two cpus and an LLC ≤ 64 MiB")
def test_platform_out_end_to_end(tmp_path, capsys):
    out = tmp_path / "platform.toml"
    mib = 2 * _llc_bytes() / (1 << 20)
    rc, _, err = run_cli(["--quick", "--reps", "1", "--max-mib", f"{mib:g}", "--platform-out", str(out)], capsys)
    if rc == 2 and "cannot keep data in the LLC now" in err:
        # Measured twice at DRAM speed: another tenant of this host holds the LLC (the refusal
        # itself is tested above with a modelled machine).
        pytest.skip("this host's LLC is held by another tenant: " + err.splitlines()[-1])
    assert rc == 0, err
    text = out.read_text()
    assert text.startswith("# hostio platform file")
    p = tomllib.loads(text)
    assert tuple(p)[: len(probe.PLATFORM_KEYS)] == probe.PLATFORM_KEYS
    assert p["dram_latency_ns"] > 0 and p["c2c_latency_ns"] > 0 and p["memory_bandwidth_gbyte_s"] > 0
    # The simulator takes the file as a platform preset.
    import hostio

    r = hostio.run("quickstart", set=[f'platform.preset="file:{out}"', "run.duration_us=100", "run.warmup_us=100"])
    assert r["platform"]["dram_latency_ns"] == p["dram_latency_ns"]
    assert r["platform"]["mba"] == p.get("mba", True) and p.get("mba") == probe.has_mba()
    # The coherent NIC's line transfer is the one the probe measured (ringbench's model uses it too).
    assert p["coherent_line_ns"] == round(max(p["c2c_latency_ns"], 1.0), 3)
    r = hostio.run("quickstart", set=[f'platform.preset="file:{out}"', 'nics.nic0.attachment="coherent"', "run.duration_us=100", "run.warmup_us=100"])
    assert r["platform"]["coherent_line_ns"] == p["coherent_line_ns"]


def test_a_platform_file_that_cannot_be_made_is_refused_before_measuring(tmp_path, capsys):
    # Too small a working set for the DRAM latency, a test left out, one cpu: refused at once,
    # and nothing written.
    half = _llc_bytes() / (1 << 20)
    for args, option in ((["--max-mib", f"{half:g}"], "--max-mib"), (["--tests", "latency,bandwidth"], "--tests"),
                         (["--cpus", str(_core.hw_allowed_cpus()[0])], "--cpus")):
        rc, _, err = run_cli(["--quick", *args, "--json", str(tmp_path / "p.json"), "--platform-out", str(tmp_path / "p.toml")], capsys)
        assert rc == 2 and err.startswith(f"hostio: error: {option} = ") and "--platform-out" in err, err
        assert list(tmp_path.iterdir()) == []


KIB_, MIB_ = 1 << 10, 1 << 20


def _machine(monkeypatch, llc_bytes=32 * MIB_, l2_bytes=1 * MIB_):
    """This host's geometry with L1 32 KiB, L2 and LLC as given, so the tests do not depend on
    the host's cache sizes."""
    g = copy.deepcopy(probe.geometry())

    def level(n, size, ways):
        return {"level": n, "kind": "data" if n == 1 else "unified", "size_bytes": size, "ways": ways,
                "sets": size // 64 // ways, "line_bytes": 64, "inclusive": False, "shared_by": 1}
    g["levels"] = {"l1d": level(1, 32 * KIB_, 8), "l2": level(2, l2_bytes, 16),
                   "l3": level(3, llc_bytes, 16) if llc_bytes else None}
    g["llc"] = g["levels"]["l3"] or g["levels"]["l2"]
    monkeypatch.setattr(probe, "geometry", lambda: g)
    return g


def _fake_chase(monkeypatch, llc_ns_at_reps, l2_bytes=1 * MIB_, llc_bytes=32 * MIB_):
    """A pointer chase on a modelled machine: L1 1 ns, L2 4 ns, DRAM 150 ns; LLC-sized sets take
    `llc_ns_at_reps(reps)` (another tenant evicting the LLC on a first pass, say). Records calls."""
    calls = []

    def chase(cfg_json):
        cfg = json.loads(cfg_json)
        b, reps = cfg["bytes"], cfg["reps"]
        calls.append((b, reps))
        ns = 1.0 if b <= 32 * KIB_ else 4.0 if b <= l2_bytes else llc_ns_at_reps(reps) if b <= llc_bytes else 150.0
        return json.dumps({"ns": {"median": ns, "min": ns, "max": ns, "p10": ns, "p90": ns}})
    monkeypatch.setattr(probe._core, "hw_chase", chase)
    return calls


def _latency_probe(max_mib=64):
    return probe.run_probe(probe.ProbeOptions(quick=True, reps=2, max_mib=max_mib, tests=("latency",)))


def test_an_llc_plateau_missed_on_the_first_pass_is_measured_again(monkeypatch):
    # First pass: the LLC-sized sets run at DRAM speed. Every set from 2 × L2 up to the LLC is
    # measured again with three times the repetitions; the LLC's latency and size come from the
    # second pass.
    _machine(monkeypatch)
    calls = _fake_chase(monkeypatch, lambda reps: 15.0 if reps >= 3 * 2 else 150.0)
    r = _latency_probe()
    assert r["latency_ns"]["llc"] == 15.0 and r["latency_ns"]["dram"] == 150.0
    again = [b >> 20 for b, reps in calls if reps == 6]
    assert again == [2, 4, 8, 16, 32]
    assert r["llc_retry"] == {"bytes": [b << 20 for b in again], "reps": 6, "found": True}
    assert r["detected_kib"]["llc"] == 32 << 10  # not the first pass's DRAM-speed 32 MiB point
    assert not r["notes"]
    # A clean first pass measures each set once.
    calls = _fake_chase(monkeypatch, lambda reps: 15.0)
    r = _latency_probe()
    assert r["llc_retry"] is None and all(reps == 2 for _, reps in calls)


def test_an_llc_never_seen_is_said_so_and_refused_for_a_platform_file(monkeypatch):
    _machine(monkeypatch)
    calls = _fake_chase(monkeypatch, lambda reps: 150.0)
    r = _latency_probe()
    assert r["latency_ns"]["llc"] is None and r["latency_ns"]["l2"] == 4.0
    assert r["llc_retry"]["found"] is False and any(reps == 6 for _, reps in calls)
    assert probe.LLC_HELD in r["notes"]
    rep = _report()
    rep["latency_ns"]["llc"] = None
    rep["llc_retry"] = r["llc_retry"]
    with pytest.raises(HostioError, match="llc_latency_ns: no working set between 2 × L2 and LLC / 2 ran faster.*"
                                          "run probe again when the host is quieter"):
        probe.platform_toml(rep)


@pytest.mark.parametrize("llc_mib", [0, 2])
def test_an_llc_range_without_working_sets_is_not_retried_nor_blamed_on_the_host(monkeypatch, llc_mib):
    # No L3 (the L2 stands for the LLC) or an LLC under 4 × L2: no set lies between 2 × L2 and
    # LLC / 2, so nothing is measured again and the note and the refusal say so.
    _machine(monkeypatch, llc_bytes=llc_mib << 20)
    calls = _fake_chase(monkeypatch, lambda reps: 15.0, llc_bytes=llc_mib << 20)
    r = _latency_probe(max_mib=8)
    assert r["latency_ns"]["llc"] is None and r["llc_retry"] is None and all(reps == 2 for _, reps in calls)
    assert probe.LLC_HELD not in r["notes"] and any("no working set between 2 × L2 and LLC / 2" in n for n in r["notes"])
    rep = _report()
    rep["latency_ns"]["llc"] = None
    rep["llc_retry"] = None
    with pytest.raises(HostioError, match=r"llc_latency_ns: no working set between 2 × L2 and LLC / 2 was measured \(there is none"):
        probe.platform_toml(rep)


def test_mba_comes_from_the_kernels_cpu_flags(tmp_path):
    f = tmp_path / "cpuinfo"
    f.write_text("processor\t: 0\nflags\t\t: fpu cat_l3 cdp_l3 mba cqm_llc\n")
    assert probe.has_mba(str(f)) is True
    f.write_text("processor\t: 0\nflags\t\t: fpu cat_l3 mbax\n")
    assert probe.has_mba(str(f)) is False
    assert probe.has_mba(str(tmp_path / "absent")) is None


def test_the_summary_names_one_streaming_cpu_in_the_singular():
    def line(cpus):
        r = dict(_report(), latency_curve=[], c2c_pairs=[], notes=[], bandwidth_gbps={"read": 640.0, "write": 320.0, "copy": 400.0},
                 loaded_latency_ns={"bytes": 128 << 20, "ns": 135.0, "stream_cpus": cpus, "stream_gbyte_s": 40.0})
        return next(x for x in probe.format_summary(r).splitlines() if x.startswith("loaded latency"))
    assert line([1]) == "loaded latency: 135.0 ns at 128 MiB while cpu 1 streams 40.0 GB/s"
    assert line([1, 2]) == "loaded latency: 135.0 ns at 128 MiB while cpus 1,2 stream 40.0 GB/s"
