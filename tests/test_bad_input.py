"""Bad and extreme input on the command line and the Python API: one line, exit 2, nothing
destroyed or half-written. Each test pins one defect that a bad-input campaign found."""
import json
import math
import os
import pickle
import stat
import subprocess
import sys
import tomllib

import numpy as np
import pytest

import hostio
from hostio import cli, outfile, sim

SHORT = ["--set", "run.duration_us=30", "--set", "run.warmup_us=10", "--quiet"]


def hostio_cli(*args, cwd=None, timeout=60):
    return subprocess.run([sys.executable, "-m", "hostio", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout)


def one_line_error(p, *needles):
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


# ---- 1 and 7: output paths ----------------------------------------------------------------------

def test_json_writes_through_special_files_and_keeps_user_tmp(tmp_path):
    fifo_target = tmp_path / "target.json"
    link = tmp_path / "link.json"
    link.symlink_to(fifo_target)
    (tmp_path / "out.json.tmp").write_text("mine\n")
    for dest in ("/dev/null", str(link), str(tmp_path / "out.json")):
        p = hostio_cli("run", "quickstart", *SHORT, "--json", dest)
        assert p.returncode == 0, p.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert link.is_symlink() and os.readlink(link) == str(fifo_target)
    assert '"metrics"' in fifo_target.read_text()
    assert (tmp_path / "out.json.tmp").read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "out.json", "out.json.tmp", "target.json"]


def test_write_text_writes_through_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
    outfile.write_text(str(fifo), "hello\n", "--json")
    assert reader.communicate(timeout=10)[0] == "hello\n"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_unwritable_outputs_are_refused_before_the_work(tmp_path):
    # A directory, a missing folder: refused at once (the run would take minutes otherwise).
    line = one_line_error(hostio_cli("run", "quickstart", "--json", str(tmp_path)), "--json", "not a directory")
    assert "Traceback" not in line
    one_line_error(hostio_cli("run", "quickstart", "--json", str(tmp_path / "no" / "x.json")), "does not exist")
    one_line_error(hostio_cli("pcie", "bandwidth", "--size", "64", "--csv", str(tmp_path)), "--csv")
    assert list(tmp_path.iterdir()) == []


# ---- 2: simulated memory ------------------------------------------------------------------------

def test_memory_beyond_the_address_space_is_refused():
    apps = {f"hog{i:02d}": {"kind": "cache-hungry", "socket": i % 2, "working_set_mib": 4096, "accesses_per_us": 10}
            for i in range(17)}
    with pytest.raises(hostio.ConfigError, match=r"apps\.hog15\.working_set_mib = 4096: .*64 GiB"):
        sim.check({"apps": apps})



HOGS = [a for i in range(4) for a in ("--set", f'apps.c{i}={{kind="cache-hungry",cores=1,working_set_mib=4096,accesses_per_us=100}}')]
BIG_RINGS = ["--set", "apps.fwd.cores=18", "--set", "nics.nic0.rx_descriptors=65536", "--set", "nics.nic0.tx_descriptors=65536"]


@pytest.mark.skipif(sys.platform != "linux", reason="address-space limit via setrlimit")
@pytest.mark.parametrize("scenario, extra, limit_bytes, needle", [
    # 16 GiB of simulated memory passes validation (64 GiB) but needs ~4.4 GB of host memory for
    # its lines' state.
    ("ddio/single_core", HOGS, 3_000_000_000, "apps = 16.0 GiB of simulated memory"),
    # 18 queues of 65536-descriptor rings: their arrays and the packet buffers' records.
    ("ddio/multi_core", BIG_RINGS, 250_000_000, "apps = "),
])
def test_state_the_host_cannot_hold_is_a_clean_error(scenario, extra, limit_bytes, needle):
    """Under an address-space limit the run is refused with one line, not an allocation abort
    (exit 134)."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    p = subprocess.run([sys.executable, "-m", "hostio", "run", scenario, *SHORT, *extra], capture_output=True, text=True,
                       timeout=120, preexec_fn=limit)
    one_line_error(p, needle, "as much as this host's memory holds")

# ---- 4: tracebacks ------------------------------------------------------------------------------

def test_non_utf8_scenario_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"\xff\xfe[run]\n")
    one_line_error(hostio_cli("check", str(bad)), "UTF-8", "0xff")


@pytest.mark.parametrize("seed", ["-1", str(2**64), "18446744073709551617"])
def test_out_of_range_seeds(seed):
    one_line_error(hostio_cli("run", "quickstart", "--seed", seed), "--seed = ", "0..=18446744073709551615")


def test_api_seed_errors_are_value_errors():
    for seed in (-1, 2**64, 1.5, True, "3"):
        with pytest.raises(ValueError, match="^seed = "):
            sim.run("quickstart", seed=seed)


def test_largest_seed_runs():
    r = sim.run("quickstart", set=["run.duration_us=20", "run.warmup_us=5"], seed=2**64 - 1)
    assert r["seed"] == 2**64 - 1
    # Any integer type is a seed; a NumPy boolean or float is not.
    r = sim.run("quickstart", set=["run.duration_us=20", "run.warmup_us=5"], seed=np.uint64(2**64 - 1))
    assert r["seed"] == 2**64 - 1 and type(r["seed"]) is int
    for seed in (np.bool_(True), np.float64(3.0), np.int64(-1), np.timedelta64(3)):
        with pytest.raises(hostio.ConfigError, match="^seed = "):
            sim.run("quickstart", seed=seed)


def test_numpy_scalars_in_scenario_dicts_and_sweep_seeds():
    from hostio import sweep
    app = {"apps": {"fwd": {"kind": "l2fwd", "nic": "nic0", "cores": np.int8(1)}}}
    r = sim.check({"platform": {"ddio": np.bool_(False)}, "nics": {"nic0": {"rx_descriptors": np.int64(512)}}, **app})
    assert r["scenario"]["platform"]["ddio"] is False and r["scenario"]["nics"]["nic0"]["rx_descriptors"] == 512
    with pytest.raises(hostio.ConfigError, match=r"^nics\.nic0\.rx_descriptors = np\.timedelta64\(512\): .*not a time"):
        sim.check({"nics": {"nic0": {"rx_descriptors": np.timedelta64(512)}}, **app})
    assert sweep._seed_count(np.int64(2)) == 2 and sweep._seed_count([np.uint8(1), 2]) == 2
    with pytest.raises(hostio.ConfigError, match="^seeds = "):
        sweep._seed_count([np.bool_(True)])


def test_a_full_device_names_the_output_path():
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    one_line_error(hostio_cli("run", "quickstart", *SHORT, "--json", "/dev/full"),
                   "hostio: error: --json = '/dev/full': a path this user may write (No space left on device)")


def test_output_paths_that_cannot_be_files_are_refused_before_the_work(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("mine\n")
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    one_line_error(hostio_cli("run", "quickstart", *SHORT, "--json", f"{afile}/"), "--json", "a file path, not a directory")
    one_line_error(hostio_cli("run", "quickstart", *SHORT, "--json", str(loop)), "--json", "a path that can be opened")
    one_line_error(hostio_cli("pcie", "bandwidth", "--size", "64", "--csv", f"{afile}/x"), "--csv", "a path that can be opened")
    assert afile.read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "loop"]


def test_override_integers_beyond_toml_are_numbers():
    # TOML integers are signed 64-bit: a larger one is a float, refused by an integer key with its
    # own range (a seed points to --seed, which takes all 64 bits) and taken by a number key.
    line = one_line_error(hostio_cli("run", "quickstart", "--set", "run.seed=18446744073709551615"),
                          "run.seed = 1.8446744073709552e19: an integer in 0..=9223372036854775807")
    assert "hostio run --seed" in line
    for small in ("-99999999999999999999", "1.5", "5e18"):
        line = one_line_error(hostio_cli("check", "quickstart", "--set", f"run.seed={small}"), "run.seed")
        assert "--seed" not in line
    with pytest.raises(hostio.ConfigError, match=r"^nics\.nic0\.rx_descriptors = 1e20: a power of two in 32\.\.=65536$"):
        sim.check("quickstart", set=["nics.nic0.rx_descriptors=100000000000000000000"])
    with pytest.raises(hostio.ConfigError, match=r"^nics\.nic0\.line_rate_gbps = 1e20: 1\.\.=800 Gb/s$"):
        sim.check("quickstart", set=["nics.nic0.line_rate_gbps=100000000000000000000"])
    with pytest.raises(hostio.ConfigError, match=r"hostio run --seed"):
        sim.check({"run": {"seed": 2**64 - 1}, "platform": {"preset": "skylake-gold-6140"}})
    # A mapping's big integers are numbers too: the key's own rule answers.
    with pytest.raises(hostio.ConfigError, match=r"^nics\.nic0\.line_rate_gbps = 1e20: 1\.\.=800 Gb/s$"):
        sim.check({**tomllib.loads(open(sim.scenario_path("quickstart")).read()), "nics": {"nic0": {"line_rate_gbps": 10**20}}})
    with pytest.raises(hostio.ConfigError, match=r"^nics\.nic0\.line_rate_gbps = 1000+… \(401 digits\): a number within 64-bit floating point$"):
        sim.check({**tomllib.loads(open(sim.scenario_path("quickstart")).read()), "nics": {"nic0": {"line_rate_gbps": 10**400}}})


@pytest.mark.parametrize("override, message", [
    ("nics.nic0.rx_descriptors=abc", 'nics.nic0.rx_descriptors = "abc": an integer: a power of two in 32..=65536'),
    # Beyond the key's type: the key's own rule where it has one, else the type's range.
    ("nics.nic0.rx_descriptors=-4", "nics.nic0.rx_descriptors = -4: a power of two in 32..=65536"),
    ("nics.nic0.rx_descriptors=4294967296", "nics.nic0.rx_descriptors = 4294967296: a power of two in 32..=65536"),
    ("apps.fwd.cores=-1", "apps.fwd.cores = -1: 1..=18 cores"),
    ("nics.nic0.buffer_kib=4294967296", "nics.nic0.buffer_kib = 4294967296: 16..=1048576 KiB"),
    # A rule that takes the type's lower bound answers from the upper one.
    ("nics.nic0.socket=-1", "nics.nic0.socket = -1: 0..=1 (platform.sockets = 2)"),
    # A whole float or a boolean is no integer either: the key's own rule, not the type's range.
    ("nics.nic0.rx_descriptors=1024.0", "nics.nic0.rx_descriptors = 1024.0: an integer: a power of two in 32..=65536"),
    ("platform.llc_slices=2.0", "platform.llc_slices = 2.0: an integer: 1..=64"),
    ("platform.llc_slices=true", "platform.llc_slices = true: an integer: 1..=64"),
    # A fraction is answered with the key's own rule.
    ("nics.nic0.rx_descriptors=1.5", "nics.nic0.rx_descriptors = 1.5: an integer: a power of two in 32..=65536"),
    ("platform.llc_slices=1.5", "platform.llc_slices = 1.5: an integer: 1..=64"),
    ("platform.llc_slices=-2.5", "platform.llc_slices = -2.5: an integer: 1..=64"),
    ("platform.llc_mib_per_slice=nan", "platform.llc_mib_per_slice = NaN: a finite positive size in MiB (e.g. 1.375)"),
    ("platform.llc_mib_per_slice=-1", "platform.llc_mib_per_slice = -1: a finite positive size in MiB (e.g. 1.375)"),
    ("platform.llc_mib_per_slice=3", "platform.llc_mib_per_slice = 3: a size giving a power-of-two number of sets per slice, "
     "at most 32768, with 11 way(s) of 64 B (e.g. 1.375 MiB = 2048 sets)"),
    # Only the ways changed: the error names them, not the preset's slice size.
    ("platform.llc_ways=2", "platform.llc_ways = 2: ways that split the preset's 1.375 MiB slices into a power-of-two number of "
     "sets, or set platform.llc_mib_per_slice too (a size giving a power-of-two number of sets per slice, at most 32768, with "
     "2 way(s) of 64 B (e.g. 0.25 MiB = 2048 sets))"),
    ("run.seed=-1", "run.seed = -1: an integer in 0..=9223372036854775807"),
    ("run.duration_us=abc", 'run.duration_us = "abc": a number'),
    ("platform.ddio=3", "platform.ddio = 3: true or false"),
    ("apps.fwd.cores=[1, 2]", "apps.fwd.cores = [1, 2]: an integer: 1..=18 cores"),
    ("nics.nic0.rx_descriptors=1979-05-27T07:32:00Z", "nics.nic0.rx_descriptors = 1979-05-27T07:32:00Z: an integer: a power of two in 32..=65536"),
    ("platform.llc_slices=nan", "platform.llc_slices = nan: an integer: 1..=64"),
    ("apps.fwd.cores=nan", "apps.fwd.cores = nan: an integer: 1..=18 cores"),
    ("platform.llc_slices=-inf", "platform.llc_slices = -inf: an integer: 1..=64"),
    ('nics.nic0.rx_descriptors="a\\nb"', 'nics.nic0.rx_descriptors = "a\\nb": an integer: a power of two in 32..=65536'),
])
def test_type_errors_name_key_value_and_what_is_allowed(override, message):
    with pytest.raises(hostio.ConfigError) as e:
        sim.check("quickstart", set=[override])
    assert str(e.value) == message


def test_key_rule_only_from_the_key_itself():
    # The check that finds the key's rule stops at another key's error: the type's range stands.
    with pytest.raises(hostio.ConfigError) as e:
        sim.check("quickstart", set=["nics.nic0.rx_descriptors=-4", "run.duration_us=0"])
    assert str(e.value) == "nics.nic0.rx_descriptors = -4: an integer in 0..=4294967295"


def test_type_errors_under_dotted_names_and_in_platform_files(tmp_path):
    with pytest.raises(hostio.ConfigError) as e:
        sim.check('[nics."a.b"]\nrx_descriptors = "x"\n[traffic.t0]\nnic = "a.b"\n[apps.fwd]\nkind = "l2fwd"\nnic = "a.b"\n')
    assert str(e.value) == 'nics."a.b".rx_descriptors = "x": an integer: a power of two in 32..=65536'
    with pytest.raises(hostio.ConfigError) as e:
        sim.check('[nics."a.b"]\nrx_descriptors = -1\n[traffic.t0]\nnic = "a.b"\n[apps.fwd]\nkind = "l2fwd"\nnic = "a.b"\n')
    assert str(e.value) == 'nics."a.b".rx_descriptors = -1: a power of two in 32..=65536'
    facts = {k: v for k, v in sim.presets()["skylake-gold-6140"].items() if v is not None}
    facts["ddio_mask_rule"] = 3
    f = tmp_path / "machine.toml"
    f.write_text("".join(f"{k} = {json.dumps(v) if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else v}\n"
                         for k, v in facts.items()))
    with pytest.raises(hostio.ConfigError, match=r"ddio_mask_rule = 3: a string, one of"):
        sim.check("quickstart", set=[f'platform.preset="file:{f}"'])


def test_slice_hash_in_a_platform_file(tmp_path):
    facts = {k: v for k, v in sim.presets()["skylake-gold-6140"].items() if v is not None}
    f = tmp_path / "machine.toml"

    def write(**kw):
        f.write_text("".join(f"{k} = {json.dumps(v) if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else v}\n"
                             for k, v in {**facts, **kw}.items()))

    write(slice_hash=1)
    with pytest.raises(hostio.ConfigError, match=r"slice_hash = 1: a string, one of `parity` or `skx`"):
        sim.check("quickstart", set=[f'platform.preset="file:{f}"'])
    write(slice_hash="SKX")
    with pytest.raises(hostio.ConfigError, match=r"slice_hash = \"SKX\": one of `parity` or `skx`$"):
        sim.check("quickstart", set=[f'platform.preset="file:{f}"'])
    # The measured map covers 18 slices of 2048 sets: another geometry resolves to the parity
    # hash, and the record says so.
    write(slice_hash="skx")
    run = ["run.duration_us=20", "run.warmup_us=0"]
    assert hostio.run("quickstart", set=run + [f'platform.preset="file:{f}"'])["platform"]["slice_hash"] == "skx"
    r = hostio.run("quickstart", set=run + [f'platform.preset="file:{f}"', "platform.llc_slices=16"])
    assert r["platform"]["slice_hash"] == "parity"
    assert any("not 16 of 2048; simulating the parity slice hash" in w for w in r["warnings"])
    assert hostio.run("quickstart", set=run + ["platform.llc_mib_per_slice=2.75"])["platform"]["slice_hash"] == "parity"


def test_overrides_that_are_not_utf8_are_config_errors():
    with pytest.raises(hostio.ConfigError, match=r"set = .*valid Unicode text"):
        hostio.run("quickstart", set=["platform.llc_slices=\udcff"])
    with pytest.raises(hostio.ConfigError, match=r"set = .*valid Unicode text"):
        sim.check("quickstart", set=["\udcff=1"])


def test_config_errors_are_hostio_errors_and_value_errors():
    assert issubclass(hostio.ConfigError, hostio.HostioError)
    assert issubclass(hostio.ConfigError, ValueError)
    # Both pickle (errors cross process pools): importable under the module they name.
    for cls in (hostio.ConfigError, hostio.HostioError):
        e = pickle.loads(pickle.dumps(cls("x = 1: y")))
        assert type(e) is cls and str(e) == "x = 1: y"
    with pytest.raises(hostio.HostioError, match="rx_descriptors"):
        sim.check("quickstart", set=["nics.nic0.rx_descriptors=abc"])


def test_pcie_extreme_numbers():
    # The error names the option as typed, with the text typed.
    one_line_error(hostio_cli("pcie", "nic", "--design", "dpdk", "--frame", "64", "--eth-gbps", "1e300"), "--eth-gbps = '1e300'")
    one_line_error(hostio_cli("pcie", "nic", "--design", "dpdk", "--frame", "64", "--eth-gbps", "nan"), "--eth-gbps = 'nan'")
    one_line_error(hostio_cli("pcie", "bandwidth", "--size", "6²"), "size")


# ---- 5: silent acceptance -----------------------------------------------------------------------

def test_arrays_are_not_tables():
    with pytest.raises(hostio.ConfigError, match=r"^run = \[7, 300, 100\]: a table"):
        sim.check("run = [7, 300, 100]\n[nics.nic0]\n")
    with pytest.raises(hostio.ConfigError, match=r"^platform = \[\]: a table"):
        sim.check({"platform": []})


def test_override_creating_an_unused_nic():
    one_line_error(hostio_cli("check", "quickstart", "--set", "nics.nic1.rx_descriptors=4096"),
                   "nics.nic1", "no app uses this NIC")


def test_ringbench_checks_line_ns_before_measuring():
    for v in ("inf", "nan", "-3", "0"):
        one_line_error(hostio_cli("ringbench", "--line-ns", v, "--duration-ms", "1", timeout=20), "--line-ns")


def test_comma_lists_and_conflicting_options_are_refused_before_measuring():
    for args, key in ((("ringbench", "--batch", "1,,2"), "--batch"), (("ringbench", "--batch", "1,1"), "--batch"),
                      (("ringbench", "--cpus", "0,1,"), "--cpus"), (("probe", "--cpus", "0,,1"), "--cpus"),
                      (("ringbench", "--sweep", "grid", "--layout", "packed"), "--layout"),
                      (("ringbench", "--sweep", "ablation", "--signaling", "doorbell"), "--signaling"),
                      (("ringbench", "--no-model", "--line-ns", "5"), "--line-ns")):
        one_line_error(hostio_cli(*args, "--duration-ms", "2", timeout=20) if args[0] == "ringbench" else hostio_cli(*args, timeout=20), key)


def test_pcie_validate_refuses_a_directory_without_data(tmp_path):
    one_line_error(hostio_cli("pcie", "validate", "--out", str(tmp_path / "o"), "--data", str(tmp_path)), "data")
    assert not (tmp_path / "o").exists()


def test_pcie_validate_never_replaces_a_readme_it_did_not_write(tmp_path):
    (tmp_path / "README.md").write_text("# a project\n")
    for out in ("", ".", "README.md"):
        one_line_error(hostio_cli("pcie", "validate", "--out", out, cwd=tmp_path), "out = ")
    assert (tmp_path / "README.md").read_text() == "# a project\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md"]


# ---- 6: unclear lines ---------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_nan_in_a_mapping_names_its_key(bad):
    sc = {"nics": {"nic0": {"line_rate_gbps": bad}}, "traffic": {"t0": {"nic": "nic0", "packet_size": 64}},
          "apps": {"fwd": {"kind": "l2fwd", "nic": "nic0"}}}
    with pytest.raises(hostio.ConfigError, match=r"^nics\.nic0\.line_rate_gbps = (nan|inf|-inf): a finite number"):
        sim.check(sc)


def test_none_in_a_mapping_names_its_key():
    sc = {"nics": {"nic0": {"rx_descriptors": None}}, "traffic": {"t0": {"nic": "nic0", "packet_size": 64}},
          "apps": {"fwd": {"kind": "l2fwd", "nic": "nic0"}}}
    with pytest.raises(hostio.ConfigError, match=r"^nics\.nic0\.rx_descriptors = None: a value \(TOML has no None; a key left out takes its default"):
        sim.check(sc)
    # The first None in the mapping's own order, not in sorted key order.
    with pytest.raises(hostio.ConfigError, match=r"^traffic\.t0\.packet_size = None"):
        sim.check({"traffic": {"t0": {"nic": "nic0", "packet_size": None}}, "nics": {"nic0": {"rx_descriptors": None}}})
    with pytest.raises(hostio.ConfigError, match=r"^run\.seed = None"):
        hostio.run({**sc, "nics": {"nic0": {}}, "run": {"seed": None}})
    with pytest.raises(hostio.ConfigError, match=r"^apps\.fwd\.cores\[1\] = None: a value \(TOML has no None\)$"):
        sim.check({**sc, "nics": {"nic0": {}}, "apps": {"fwd": {"kind": "l2fwd", "nic": "nic0", "cores": [1, None]}}})


def test_a_resolved_scenario_runs_again_as_it_is():
    # Keys left unset are left out of the resolved scenario (a scenario takes no None), so a
    # result's scenario, or check()'s, runs again with the same hash and metrics.
    r = hostio.run("quickstart", set=["run.duration_us=30", "run.warmup_us=10"])
    again = hostio.run(r["scenario"])
    assert again["scenario_hash"] == r["scenario_hash"] and again["metrics"] == r["metrics"]
    c = sim.check("quickstart")
    assert sim.check(c["scenario"])["scenario"] == c["scenario"]
    assert "null" not in json.dumps(r["scenario"])


def test_odd_values_in_a_mapping_name_their_key():
    sc = {"nics": {"nic0": {}}, "traffic": {"t0": {"nic": "nic0", "packet_size": 64}},
          "apps": {"fwd": {"kind": "l2fwd", "nic": "nic0"}}}
    bad = [
        ({"run": {"seed": 2**64}}, r"^run\.seed = 1\.8446744073709552e19: an integer in 0\.\.=9223372036854775807"),
        ({"platform": {"preset": "\ud800"}}, r"^platform\.preset = .*: valid Unicode text"),
        ({"run": {"seed": 1j}}, r"^run\.seed = 1j: a string, number, boolean, list or table"),
        ({"nics": {0: {}}}, r"^nics\.0 = \{\}: a table whose keys are strings"),
    ]
    for extra, msg in bad:
        with pytest.raises(hostio.ConfigError, match=msg):
            sim.check({**sc, **extra})
    deep = inner = {}
    for _ in range(100):
        inner["a"] = {}
        inner = inner["a"]
    with pytest.raises(hostio.ConfigError, match=r"at most 32 levels"):
        sim.check({**sc, "run": deep})
    looped = {}
    looped["me"] = looped
    with pytest.raises(hostio.ConfigError, match=r"^run\.me\.me.*at most 32 levels"):
        sim.check({**sc, "run": looped})
    # numpy-style scalars are numbers, and -0.0 is 0.0 (the same scenario).
    np = pytest.importorskip("numpy")
    a = sim.check({**sc, "run": {"seed": np.int64(3), "warmup_us": -0.0}})
    b = sim.check({**sc, "run": {"seed": 3, "warmup_us": 0.0}})
    assert json.dumps(a["scenario"], sort_keys=True) == json.dumps(b["scenario"], sort_keys=True)


@pytest.mark.parametrize("scenario", [[1, 2], None, b"[run]", 5, "x" * 300])
def test_scenarios_of_the_wrong_kind_are_config_errors(scenario):
    with pytest.raises(hostio.ConfigError, match=r"^scenario = "):
        sim.check(scenario)
    with pytest.raises(hostio.ConfigError, match=r"^set = None"):
        hostio.run("quickstart", set=None)


def test_nan_in_a_flag_names_its_key():
    with pytest.raises(hostio.ConfigError, match=r"nics\.nic0\.line_rate_gbps = NaN"):
        sim.check("quickstart", set=["nics.nic0.line_rate_gbps=nan"])


def test_argument_errors_are_one_line_everywhere(capsys):
    for argv in (["run"], ["pcie", "bandwidth"], ["probe", "--reps", "x"], ["pcie", "nosuch"], ["nosuch"],
                 ["run", "quickstart", "--seed", "x"]):
        with pytest.raises(SystemExit) as e:
            cli.main(argv)
        assert e.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "error:" in err[0], (argv, err)


# ---- 7: null latency ----------------------------------------------------------------------------

def test_latency_is_null_without_completed_packets():
    sc = sim.scenario_path("quickstart")
    r = sim.run(sc, set=["apps.fwd.kind=compute", "apps.fwd.cycles_per_packet=1000000", "run.duration_us=10",
                         "run.warmup_us=0"], check_invariants=True)
    assert r["metrics"]["tx_packets"] == 0
    assert set(r["metrics"]["latency_ns"].values()) == {None}
    from hostio.simcli import summary
    assert "latency    n/a: no frame that arrived in the measured window was transmitted within it" in summary(r, "x")


def test_counts_print_as_whole_numbers_and_small_values_to_four_digits():
    import numpy as np

    from hostio.simcli import _num
    cases = [(None, "n/a"), (float("nan"), "n/a"), (1234, "1,234"), (1234.0, "1,234"), (np.int64(12345), "12,345"),
             (24370.0, "24,370"), (9999.6, "10,000"), (2425.6, "2,426"), (999.6, "999.6"), (999.96, "1,000"),
             (0.3426, "0.3426"), (123.456, "123.5"), (1e20, "1e+20"), (3e-7, "3e-07")]
    assert [_num(v) for v, _ in cases] == [want for _, want in cases]
    # A median between two counts keeps the counts' form (a sweep's "2,426 [2,419, 2,430]").
    assert (_num(1234.5, 3), _num(99.7, 3), _num(99.97, 3)) == ("1,234", "99.7", "100")


def _platform_file(path, **kw):
    facts = {k: v for k, v in {**sim.presets()["skylake-gold-6140"], **kw}.items() if v is not None}
    path.write_text("".join(f"{k} = {json.dumps(v) if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else v}\n"
                            for k, v in facts.items()))
    return path


def test_platform_files_that_are_not_small_regular_text_files(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big.toml"
    big.write_text("#" * ((1 << 20) + 1))
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b"name = \"\xff\"\n")
    cases = [(fifo, "a regular file"), (tmp_path, "a regular file"), (big, "a platform file of at most 1024 KiB"),
             (latin, "a platform file in UTF-8 text"), (tmp_path / "none.toml", "cannot read the platform file")]
    long_line = tmp_path / "line.toml"
    long_line.write_text("x" * 100_000)
    if os.path.exists("/dev/zero"):
        cases.append(("/dev/zero", "a regular file"))
    for path, why in cases:
        # A FIFO with no writer would block an open(): the check comes first (the timeout catches a hang).
        p = hostio_cli("run", "quickstart", "--set", f'platform.preset="file:{path}"', *SHORT, timeout=30)
        one_line_error(p, f"platform.preset = file:{path}: {why}")
    # A valid file of exactly 1 MiB is read.
    ok = _platform_file(tmp_path / "ok.toml")
    ok.write_text(ok.read_text() + "#" * ((1 << 20) - len(ok.read_bytes()) - 1) + "\n")
    assert ok.stat().st_size == 1 << 20
    sim.check("quickstart", set=[f'platform.preset="file:{ok}"'])
    # A parser's message quotes the offending line; it is cut, not the whole file.
    p = hostio_cli("run", "quickstart", "--set", f'platform.preset="file:{long_line}"', *SHORT)
    assert len(one_line_error(p, "not valid TOML")) < 500


@pytest.mark.parametrize("name", ["two\nlines", "", "   ", "\u3000", "x" * 101, "tab\there", "a\u2028b", "a\u2029b",
                                  "Gold\u202e0416", "Gold\u200b6140", "\ufeffGold"])
def test_platform_names_are_one_short_line(tmp_path, name):
    f = _platform_file(tmp_path / "n.toml", name=name)
    with pytest.raises(hostio.ConfigError, match=r"platform file .*: name = .*: one line of 1\.\.=100 characters, not blank, without control characters or invisible ones \(zero-width, bidirectional, line separators\)$"):
        sim.check("quickstart", set=[f'platform.preset="file:{f}"'])


def test_one_way_llc_keeps_its_recycled_ways_inside_the_cache(tmp_path):
    run = ["run.duration_us=30", "run.warmup_us=10"]
    r = hostio.run("quickstart", set=run + ["platform.llc_ways=1", "platform.llc_mib_per_slice=0.125"])
    assert (r["platform"]["llc_ways"], r["platform"]["recycled_io_mask"], r["platform"]["ddio_default_mask"]) == (1, 1, 1)
    f = _platform_file(tmp_path / "m.toml", llc_ways=1, llc_mib_per_slice=0.125, ddio_default_mask=1,
                       recycled_io_mask=None, slice_hash="parity", llc_slices=16)
    r = hostio.run("quickstart", set=run + [f'platform.preset="file:{f}"'])
    assert (r["platform"]["llc_ways"], r["platform"]["recycled_io_mask"]) == (1, 1)
    with pytest.raises(hostio.ConfigError, match=r"^platform\.llc_ways = 33: 1\.\.=32$"):
        sim.check("quickstart", set=["platform.llc_ways=33"])
    # A recycled region that is not the lowest ways is not cut down silently: the check refuses it.
    f = _platform_file(tmp_path / "r.toml", recycled_io_mask=0x600)
    with pytest.raises(hostio.ConfigError, match=r"recycled_io_mask = 0x600: a mask within the 8 LLC ways"):
        sim.check("quickstart", set=[f'platform.preset="file:{f}"', "platform.llc_ways=8", "platform.llc_mib_per_slice=1"])


# ---- override keys are TOML dotted keys ----------------------------------------------------------

def test_quoted_override_keys_keep_their_dots_and_equals():
    base = "ddio/single_core"
    # A dot or `=` inside a quoted part belongs to that part: one app named "a.b", one named "x=y".
    for key, name in [('apps."a.b"', "a.b"), ("apps.'x=y'", "x=y")]:
        with pytest.raises(hostio.ConfigError) as e:
            sim.check(base, set=[f"{key}.kind=l2fwd"])
        # The error names the app as the TOML key that reaches it, quoted.
        assert str(e.value).startswith(f'apps."{name}".nic: required'), e.value
    c = sim.check(base, set=['apps."fwd".cores=2', "apps.fwd . cores = 2"])
    assert c["scenario"]["apps"]["fwd"]["cores"] == 2


@pytest.mark.parametrize("override", ["apps..cores=2", 'apps."".cores=2', "apps.my app.cores=2", ".x=1"])
def test_override_keys_that_are_not_dotted_keys(override):
    p = hostio_cli("check", "ddio/single_core", "--set", override)
    one_line_error(p, "--set", override, "TOML dotted key")


# ---- reproduce --list -----------------------------------------------------------------------------

def test_reproduce_list_checks_only_and_keeps_ids_apart():
    one_line_error(hostio_cli("reproduce", "--list", "--only", "nosuch"), "--only", "nosuch")
    one_line_error(hostio_cli("reproduce", "--list", "--seeds", "abc"), "--seeds", "abc")
    p = hostio_cli("reproduce", "--list", "--only", "remote,fig6-haswell")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert [ln.split()[0] for ln in lines] == ["fig6-haswell", "remote"], lines
    p = hostio_cli("reproduce", "--list")
    assert all(len(ln.split(maxsplit=1)) == 2 and not ln.split()[0].endswith(("Fig.", "'s")) for ln in p.stdout.splitlines())
    assert "fig6-haswell  " in p.stdout


@pytest.mark.parametrize("override", ["[apps]\nfwd.cores=2", "[[apps]]\nfwd.cores=2", "apps.fwd\n.cores=2", "# c\nrun.seed=7"])
def test_override_keys_cannot_hide_toml_lines(override):
    with pytest.raises(hostio.ConfigError, match="(?s)^set = .*TOML dotted key"):
        sim.check("ddio/single_core", set=[override])


def test_override_values_cannot_hide_a_second_key():
    with pytest.raises(hostio.ConfigError, match="(?s)^set = .*one TOML value"):
        sim.check("ddio/single_core", set=["run.seed=3\nrun.duration_us=5"])
    assert sim.check("ddio/single_core", set=['apps.fwd.kind="""l2fwd"""'])["scenario"]["apps"]["fwd"]["kind"] == "l2fwd"


def test_os_errors_without_a_file_name_are_one_clean_line(monkeypatch, capsys):
    def fail(args):
        raise OSError(5, "device gone")

    monkeypatch.setattr(cli, "_ringbench", fail, raising=False)
    from hostio import hw_cli
    monkeypatch.setattr(hw_cli, "_ringbench", fail)
    assert cli.main(["ringbench"]) == 2
    assert capsys.readouterr().err == "hostio: error: device gone\n"


# ---- integer options take ASCII digits only -------------------------------------------------------

@pytest.mark.parametrize("args,option,value", [
    (["run", "quickstart", "--seed", "٣"], "--seed", "٣"),
    (["sweep", "quickstart", "--axis", "run.seed=1", "--out", "never", "--seeds", "３"], "--seeds", "３"),
    (["advise", "quickstart", "--goal", "p99", "--seeds", "٢"], "--seeds", "٢"),
    (["advise", "quickstart", "--goal", "p99", "--jobs", "1_0"], "--jobs", "1_0"),
    (["advise", "quickstart", "--goal", "p99", "--slo", "３"], "--slo", "３"),
    (["reproduce", "--list", "--seeds", "٣"], "--seeds", "٣"),
    (["reproduce", "--list", "--jobs", "２"], "--jobs", "２"),
])
def test_integer_options_take_ascii_digits_only(tmp_path, args, option, value):
    p = hostio_cli(*args, *(SHORT if args[0] != "reproduce" else []), cwd=tmp_path)
    one_line_error(p, option, repr(value))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args,option,value", [
    (["probe", "--reps", "٣"], "--reps", "٣"),
    (["probe", "--max-mib", "４"], "--max-mib", "４"),
    (["ringbench", "--window", "２５６"], "--window", "２５６"),
    (["ringbench", "--mlp", "1_0"], "--mlp", "1_0"),
    (["ringbench", "--batch", "٣"], "--batch", "٣"),
    (["ringbench", "--cpus", "0,１"], "--cpus", "0,１"),
])
def test_real_machine_tools_take_ascii_digits_only(tmp_path, args, option, value):
    p = hostio_cli(*args, cwd=tmp_path)
    one_line_error(p, option, repr(value))
    assert list(tmp_path.iterdir()) == []


def test_an_integer_option_too_long_to_read_is_one_line():
    line = one_line_error(hostio_cli("advise", "quickstart", "--goal", "p99", "--seeds", "9" * 5000), "--seeds", "5000 digits")
    assert len(line) < 200


# ---- outputs that name one destination --------------------------------------------------------

@pytest.mark.parametrize("first,second", [("-", "/dev/stdout"), ("/dev/stdout", "-"), ("/proc/self/fd/1", "-"), ("SAME", "SAME"),
                                          ("SAME", "./SAME")])
def test_two_outputs_to_one_destination_are_refused(tmp_path, first, second):
    p = hostio_cli("pcie", "bandwidth", "--size", "64", "--json", first, "--csv", second, cwd=tmp_path)
    one_line_error(p, f"--csv = {second!r}: a destination other than --json's ({first!r}")
    assert p.stdout == "" and list(tmp_path.iterdir()) == []


def test_an_output_never_replaces_the_scenario_or_a_result_it_reads(tmp_path):
    scen = tmp_path / "my.toml"
    text = sim.scenario_path("quickstart").read_text()
    scen.write_text(text)
    for cmd in (["run", "my.toml", *SHORT, "--json", "./my.toml"],
                ["advise", "my.toml", "--goal", "p99", "--seeds", "1", *SHORT, "--json", "my.toml"]):
        one_line_error(hostio_cli(*cmd, cwd=tmp_path), "a path other than the scenario file the command reads")
        assert scen.read_text() == text
    # A bundled scenario named by its name is its file too (restored whatever happens).
    bundled = sim.scenario_path("quickstart")
    try:
        one_line_error(hostio_cli("run", "quickstart", *SHORT, "--json", str(bundled), cwd=tmp_path),
                       "a path other than the scenario file the command reads")
    finally:
        if bundled.read_text() != text:
            bundled.write_text(text)
            pytest.fail("the bundled scenario was overwritten")
    p = hostio_cli("sweep", "my.toml", "--axis", "nics.nic0.rx_descriptors=64,128", *SHORT, "--out", "s", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    log = (tmp_path / "s" / "points.jsonl").read_text()
    for name in ("points.jsonl", "sweep.json", "table.csv"):
        one_line_error(hostio_cli("report", "s", "--out", f"s/{name}", cwd=tmp_path), f"{name!r} in 's' is one")
    assert (tmp_path / "s" / "points.jsonl").read_text() == log
    # A page of its own at the folder's top may be written, and written again.
    for _ in range(2):
        assert hostio_cli("report", "s", "--out", "s/mine.html", cwd=tmp_path).returncode == 0


def test_sweep_and_reproduce_folders_are_not_mixed(tmp_path):
    p = hostio_cli("sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=64", *SHORT, "--out", "s", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    before = sorted(x.name for x in (tmp_path / "s").iterdir())
    one_line_error(hostio_cli("reproduce", "--only", "pause", "--quick", "--seeds", "1", "--quiet", "--out", "s", cwd=tmp_path),
                   "--out = 's'", "holds a sweep")
    assert sorted(x.name for x in (tmp_path / "s").iterdir()) == before
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "summary.json").write_text("[]")
    one_line_error(hostio_cli("sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=64", *SHORT, "--out", "r", cwd=tmp_path),
                   "--out = 'r'", "holds a reproduction")
    assert sorted(x.name for x in (tmp_path / "r").iterdir()) == ["summary.json"]


def test_a_path_to_stdout_is_stdout(tmp_path):
    # Piped: the JSON alone, as with --json -, not the JSON followed by the summary.
    p = hostio_cli("run", "quickstart", *SHORT, "--json", "/dev/stdout")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["seed"] == 1
    # Redirected to a file: the file keeps the command's output (it is not replaced under it).
    with open(tmp_path / "out.txt", "w") as f:
        p = subprocess.run([sys.executable, "-m", "hostio", "pcie", "bandwidth", "--size", "64", "--csv", "/dev/stdout"], stdout=f)
    assert p.returncode == 0 and (tmp_path / "out.txt").read_text().startswith("size,")
    assert list(tmp_path.iterdir()) == [tmp_path / "out.txt"]


def test_an_output_in_a_folder_that_takes_no_files_is_refused_before_the_work():
    # /proc is writable by permission bits (for root) but takes no new files.
    # (The run would take a minute: the error must come first.)
    one_line_error(hostio_cli("run", "quickstart", "--json", "/proc/hostio.json", "--set", "run.duration_us=10000000", timeout=20),
                   "--json = '/proc/hostio.json': a path this user may write")
    one_line_error(hostio_cli("run", "quickstart", "--json", ""), "--json = '': a file path, or - for stdout")


# ---- inline tables in --set ----------------------------------------------------------------------

def test_an_inline_table_in_set_replaces_the_table():
    # TOML's meaning: the table is replaced, so a key the file sets can be dropped this way.
    r = sim.run("quickstart", set=['traffic.t0={nic="nic0", packet_size=64}', "run.duration_us=50", "run.warmup_us=10"])
    assert r["scenario"]["traffic"]["t0"]["packet_size"] == 64
    # A value that only starts with a brace is not a table: the key reports it.
    with pytest.raises(hostio.ConfigError, match=r'^platform\.preset = "\{x"'):
        sim.check("quickstart", set=["platform.preset={x"])


def test_mapping_keys_in_messages_are_spelt_as_toml_does():
    with pytest.raises(hostio.ConfigError, match=r'^apps\."fw\.d"\.cores = nan: a finite number'):
        sim.check({"apps": {"fw.d": {"kind": "l2fwd", "cores": math.nan}}})


def _skylake_platform_file(path):
    facts = {k: v for k, v in hostio.presets()["skylake-gold-6140"].items() if v is not None}
    path.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in facts.items()))


def test_an_output_never_replaces_the_platform_file_the_scenario_reads(tmp_path):
    _skylake_platform_file(tmp_path / "plat.toml")
    text = (tmp_path / "plat.toml").read_text()
    sim.check("quickstart", set=['platform.preset="file:' + str(tmp_path / "plat.toml") + '"'])  # a valid file
    one_line_error(hostio_cli("run", "quickstart", "--set", 'platform.preset="file:plat.toml"', *SHORT, "--json", "plat.toml", cwd=tmp_path),
                   "--json = 'plat.toml': a path other than the platform file the command reads")
    assert (tmp_path / "plat.toml").read_text() == text


def test_a_sweep_never_writes_over_its_own_scenario(tmp_path):
    (tmp_path / "s").mkdir()
    scen = tmp_path / "s" / "table.csv"
    scen.write_text(sim.scenario_path("quickstart").read_text())
    before = scen.read_text()
    one_line_error(hostio_cli("sweep", "s/table.csv", "--axis", "nics.nic0.rx_descriptors=64", *SHORT, "--out", "s", cwd=tmp_path),
                   "--out = 's': a folder whose results do not include the scenario file (table.csv is it)")
    assert scen.read_text() == before and sorted(p.name for p in (tmp_path / "s").iterdir()) == ["table.csv"]


def test_numpy_axis_values_and_empty_mappings(tmp_path):
    df = hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [np.int64(64), np.int64(128)]}, set=SHORT[1::2],
                      out=tmp_path / "o", progress=False)
    assert df["nics.nic0.rx_descriptors"].tolist() == [64, 128]
    assert json.loads((tmp_path / "o" / "sweep.json").read_text())["axes"] == {"nics.nic0.rx_descriptors": [64, 128]}
    with pytest.raises(hostio.ConfigError, match=r"^apps: at least one \[apps\.<name>\] table"):
        hostio.sweep({}, {"nics.nic0.rx_descriptors": [64]}, progress=False)


def test_run_takes_progress_false_and_refuses_what_it_cannot_call():
    assert hostio.run("quickstart", set=SHORT[1::2], progress=False)["seed"] == 1
    with pytest.raises(hostio.ConfigError, match=r"^progress = 'x': a function of the fraction simulated"):
        hostio.run("quickstart", set=SHORT[1::2], progress="x")


def test_pcie_flags_are_booleans():
    from hostio import pcie

    for call, key in ((lambda: pcie.latency("dma_read", 64, iotlb_miss="no"), "iotlb_miss"), (lambda: pcie.latency("dma_read", 64, iommu=1), "iommu"),
                      (lambda: pcie.nic_transactions("dpdk", 64, vlan="no"), "vlan"), (lambda: pcie.nic("dpdk", [64], compat=[1]), "compat"),
                      (lambda: pcie.bandwidth(64, ecrc="no"), "ecrc"), (lambda: pcie.bandwidth(64, rcb_chunks=2), "rcb_chunks"),
                      (lambda: pcie.experiment("LAT_RD", 64, 1 << 20, superpages="no"), "superpages"),
                      (lambda: pcie.experiment("LAT_RD", 64, 1 << 20, iommu="no"), "iommu"),
                      (lambda: pcie.latency("dma_read", 64, params={"iommu": {"enabled": "no"}}), r"params\.iommu\.enabled")):
        with pytest.raises(hostio.ConfigError, match=rf"^{key} = .*: True or False"):
            call()
    # NumPy's booleans are booleans
    assert pcie.bandwidth(64, ecrc=np.bool_(True)) == pcie.bandwidth(64, ecrc=True)


def test_long_values_are_cut_without_splitting_an_escape():
    from hostio.errors import config_error

    assert str(config_error("k", "a" * 300, "ok")).endswith("… (300 characters): ok")
    msg = str(config_error("k", "\x00" * 300, "ok"))
    shown = msg[len("k = "):msg.index("…")]
    assert msg.endswith("… (300 characters): ok") and len(shown) <= 200 and shown.endswith("\\x00'"), msg


def test_scheduler_hosts_and_other_api_inputs_are_checked():
    for bad in ("tcp://[::1]:[::2]:8786", "tcp://a..b:8786", "tcp://" + "a" * 64 + ":1", "tcp://a/b:1", "tcp://user@host:1"):
        with pytest.raises(hostio.ConfigError, match=r"^scheduler = .*tcp://HOST:PORT"):
            hostio.sweep("quickstart", {"run.seed": [1]}, scheduler=bad, progress=False)
    # valid forms Dask connects to: a zone, a trailing dot, another script, underscores
    from hostio.sweep import _check_scheduler

    for good in ("tcp://[fe80::1%eth0]:8786", "tcp://head.example.com.:8786", "tcp://bücher.example:8786", "tcp://Head_Node:8786", "tcp://10.0.0.1:8786"):
        _check_scheduler(good)
    from hostio import advise

    with pytest.raises(hostio.ConfigError, match=r"^slo = -1: a finite throughput in Gb/s >= 0"):
        advise.advise("quickstart", goal="throughput", slo=-1)
    one_line_error(hostio_cli("ringbench", "--no-model", "--mlp", "8", "--duration-ms", "2", timeout=20), "--mlp")
    one_line_error(hostio_cli("probe", "--tests", "latency,latency", timeout=20), "--tests")


def test_set_that_is_not_a_list_is_named():
    for call in (lambda: hostio.run("quickstart", set=5), lambda: hostio.check("quickstart", set=5)):
        with pytest.raises(hostio.ConfigError, match=r"^set = 5: a list of KEY.PATH=VALUE strings"):
            call()


def test_pcie_parameter_tables_check_each_value_where_it_is():
    from hostio import pcie

    for call, msg in ((lambda: pcie.latency("dma_read", 64, params={"iommu": 5}), r"^params\.iommu = 5: a mapping"),
                      (lambda: pcie.latency("dma_read", 64, params={"iommu": None}), r"^params\.iommu = None: a mapping"),
                      (lambda: pcie.latency("dma_read", 64, params={"llc_ns": math.nan}), r"^params\.llc_ns = nan: a finite number"),
                      (lambda: pcie.latency("dma_read", 64, params={"llc_ns": "5"}), r"^params\.llc_ns = '5': a finite number"),
                      (lambda: pcie.latency("dma_read", 64, params={"llc_ns": True}), r"^params\.llc_ns = True: a finite number"),
                      (lambda: pcie.latency("dma_read", 64, params={1: 2}), r"^params = \{1: 2\}: parameter names that are strings"),
                      (lambda: pcie.experiment("LAT_RD", 64, 1 << 20, platform={"latency": 5}), r"^platform\.latency = 5: a mapping"),
                      (lambda: pcie.latency("dma_read", 64, params={"dram_ns": 10 ** 400}), r"^params\.dram_ns = .*: a finite number"),
                      (lambda: pcie.latency("dma_read", 64, params={"iommu": {"iotlb_entries": -1}}), r"^params\.iommu\.iotlb_entries = -1: a whole number"),
                      (lambda: pcie.latency("dma_read", 64, params={"dram_ns": 5.0}), r"^params\.dram_ns = 5"),
                      # The compiled module names a nested key by its last part only.
                      (lambda: pcie.latency("dma_read", 64, params={"link": {"gen": 99}}), r"^params\.link\.gen = 99: one of 1, 2"),
                      (lambda: pcie.latency("dma_read", 64, params={"link": {"lanes": 3}}), r"^params\.link\.lanes = 3: one of 1, 2, 4"),
                      # params.link and link keywords together: which one sets the link would be a guess
                      (lambda: pcie.latency("dma_read", 64, params={"link": {"gen": 9}}, gen=4), r"^params\.link = \{'gen': 9\}: left out when link keywords"),
                      # an unknown parameter at any depth, before anything reaches the compiled module
                      (lambda: pcie.latency("dma_read", 64, params={"zzz": object()}), r"^params\.zzz = .*: a known parameter of params: link, "),
                      (lambda: pcie.latency("dma_read", 64, params={"link": {"speed": 3}}), r"^params\.link\.speed = 3: a known parameter of params\.link: gen, "),
                      # too large for the field's integer type: named, with what the field allows (a link's
                      # values as for the link keywords, other fields the type's range)
                      (lambda: pcie.latency("dma_read", 64, params={"link": {"gen": 300}}), r"^params\.link\.gen = 300: one of 1, 2, 3, 4, 5, 6, 7$"),
                      (lambda: pcie.experiment("LAT_RD", 64, 1 << 20, platform={"latency": {"link": {"lanes": 2 ** 40}}}), r"^platform\.latency\.link\.lanes = 1099511627776: one of 1, 2, 4, 8, 16, 32$"),
                      (lambda: pcie.latency("dma_read", 64, params={"iommu": {"iotlb_entries": 2 ** 63}}), r"^params\.iommu\.iotlb_entries = 9223372036854775808: a whole number in 0\.\.=4294967295$"),
                      # a value too deeply nested to show
                      (lambda: pcie.latency("dma_read", 64, params=_nested(1500)), r"^params\.a = <a dict nested too deeply to show>: a known parameter"),
                      (lambda: pcie.experiment("LAT_RD", 64, 1 << 20, platform={"llc_bytes": -1}), r"^platform\.llc_bytes = -1: a whole number")):
        with pytest.raises(hostio.ConfigError, match=msg):
            call()
    assert pcie.latency("dma_read", 64, params={"llc_ns": np.float64(5.0)}) == pcie.latency("dma_read", 64, params={"llc_ns": 5.0})


def test_a_tx_ring_of_32_descriptors_is_raised_to_64_as_the_mlx5_pmd_does():
    r = sim.check("quickstart", set=["nics.nic0.tx_descriptors=32"])
    assert any("tx_descriptors = 32 is raised to 64" in w for w in r["warnings"]), r["warnings"]
    assert r["scenario"]["nics"]["nic0"]["tx_descriptors"] == 64
    assert not any("raised" in w for w in sim.check("quickstart", set=["nics.nic0.tx_descriptors=64"])["warnings"])


def test_a_polled_nic_that_no_traffic_reaches_warns():
    r = sim.check("quickstart", set=["traffic={}"])
    assert any("nics.nic0: no [traffic.<name>] table sends to it" in w for w in r["warnings"]), r["warnings"]
    assert not any("no [traffic" in w for w in sim.check("quickstart")["warnings"])


def test_ddio_keys_on_a_nic_whose_buffers_are_remote_warn():
    r = sim.check("quickstart", set=["platform.sockets=2", "nics.nic0.socket=1", "nics.nic0.ddio_lines=1"])
    assert any("ddio_mask and stash_lines have no effect" in w for w in r["warnings"]), r["warnings"]
    assert not sim.check("quickstart", set=["nics.nic0.ddio_lines=1"])["warnings"]


@pytest.mark.parametrize("part", ["a\u202eb", "zw\u200bsp", "del\x7f", "nel\x9f", "bom\ufeff", "f\u206aw", "tag\U000e0041"])
def test_python_spells_keys_with_unshown_characters_as_the_simulator_does(part):
    # The key an error names is the one hostio.sim.key_text writes (sweeps name columns so),
    # with control and invisible characters escaped in both.
    with pytest.raises(hostio.ConfigError) as e:
        sim.check("quickstart", set=[f"{sim.key_text(['run', part])}=1"])
    key = sim.key_text(["run", part])
    assert str(e.value).startswith(key + ":"), (key, str(e.value))
    assert key.isprintable(), key


def _nested(depth: int) -> dict:
    d = cur = {}
    for _ in range(depth):
        cur["a"] = {}
        cur = cur["a"]
    return d


def test_scenario_text_with_an_unpaired_surrogate_is_named():
    with pytest.raises(hostio.ConfigError, match=r"^scenario = .*: TOML text of valid Unicode \(no unpaired surrogates\)"):
        sim.check("[run]\nseed = 1\n# \ud800\n")


def test_a_sweep_axis_key_with_an_unpaired_surrogate_is_named_as_the_axis(tmp_path):
    with pytest.raises(hostio.ConfigError, match=r"^axes = .*: a KEY\.PATH string of valid Unicode text$"):
        hostio.sweep("quickstart", {'apps."x\ud800y".cores': [1, 2]}, out=tmp_path / "s")
    assert not (tmp_path / "s").exists()


def test_a_scenario_name_that_is_not_bundled_lists_the_bundled_ones_and_their_file_names_work():
    line = one_line_error(hostio_cli("run", "nosuch"), "scenario = 'nosuch'", "quickstart", "ddio/single_core")
    assert line.count(",") == len(sim.bundled_scenarios()) - 1, line
    p = hostio_cli("run", "ddio/single_core.toml", *SHORT, cwd="/")
    assert p.returncode == 0 and "ddio/single_core.toml" in p.stdout, p.stderr



def test_an_output_folder_through_a_link_to_nothing_is_named_as_such(tmp_path):
    # mkdir says only "File exists" for a link whose target is missing; the error names the link
    # and the missing path it leads to (a relative target read from the link's folder, a chain
    # of links followed to its end).
    link = tmp_path / "out"
    link.symlink_to(tmp_path / "missing" / "x")
    missing = f"{link} is a link to {tmp_path / 'missing' / 'x'}, which does not exist"
    for args in (["reproduce", "--quick", "--out", str(link)], ["reproduce", "--quick", "--out", str(link / "sub")],
                 ["pcie", "validate", "--out", str(link)],
                 ["sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=64", *SHORT, "--out", str(link)]):
        one_line_error(hostio_cli(*args), missing)
    (tmp_path / "rel").symlink_to("missing/x")
    (tmp_path / "chain").symlink_to("rel")
    one_line_error(hostio_cli("reproduce", "--quick", "--out", "chain", cwd=tmp_path),
                   f"{tmp_path / 'chain'} is a link to {tmp_path / 'missing' / 'x'}, which does not exist")
    # A loop is not a link to nothing: the system's words stand.
    (tmp_path / "loop_a").symlink_to("loop_b")
    (tmp_path / "loop_b").symlink_to("loop_a")
    one_line_error(hostio_cli("reproduce", "--quick", "--out", "loop_a/sub", cwd=tmp_path), "(Too many levels of symbolic links)")
    one_line_error(hostio_cli("reproduce", "--quick", "--out", "loop_a", cwd=tmp_path), f"({tmp_path / 'loop_a'} is a link that leads into a loop of links)")
    # A link into a loop, and a chain longer than the system follows, though it ends at a folder.
    (tmp_path / "into").symlink_to("loop_a")
    assert outfile.folder_error(tmp_path / "into", FileExistsError(17, "File exists")) == \
        f"{tmp_path / 'into'} is a link that leads into a loop of links"
    (tmp_path / "real").mkdir()
    prev = "real"
    for i in range(41):
        (tmp_path / f"l{i}").symlink_to(prev)
        prev = f"l{i}"
    assert outfile.folder_error(tmp_path / "l40", FileExistsError(17, "File exists")) == \
        f"{tmp_path / 'l40'} starts a chain of more than 40 links, more than the system follows"
    assert not (tmp_path / "missing").exists()
    assert outfile.folder_error(tmp_path / "plain", OSError(13, "Permission denied")) == "Permission denied"


def test_a_size_source_given_with_another_says_to_give_the_whole_table(tmp_path):
    p = hostio_cli("check", "quickstart", "--set", "traffic.t0.size_mix=imix")
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    hint = "e.g. --set 'traffic.t0={nic=\"nic0\", size_mix=\"imix\"}'"
    assert "not with packet_size = 1500" in p.stderr and hint in p.stderr
    # The example, followed, is accepted
    example = p.stderr.split("e.g. --set '")[1].rsplit("'", 1)[0]
    assert hostio_cli("check", "quickstart", "--set", example).returncode == 0
    # A table or NIC name that needs quoting gets placeholders, never a broken command
    scenario = ('[nics."n 1"]\n[traffic."t\'x"]\nnic = "n 1"\npacket_size = 64\nsize_mix = "imix"\n'
                '[apps.fwd]\nkind = "l2fwd"\nnic = "n 1"\n')
    (tmp_path / "s.toml").write_text(scenario)
    p = hostio_cli("check", str(tmp_path / "s.toml"))
    assert p.returncode == 2 and "e.g. --set 'traffic.NAME={nic=\"NIC\", size_mix=\"imix\"}'" in p.stderr, p.stderr


def test_a_scenario_file_nested_past_pythons_reach_is_a_config_error(tmp_path):
    for text in ("a=" + "[" * 500 + "]" * 500, "a=" + "{b=" * 500 + "1" + "}" * 500):
        deep = tmp_path / "deep.toml"
        deep.write_text(text + "\n")
        one_line_error(hostio_cli("check", str(deep)), "deep.toml", "nest fewer than a few hundred levels")
        with pytest.raises(hostio.ConfigError, match="nest fewer than a few hundred levels"):
            sim.run(deep)


def test_a_missing_traffic_nic_is_required_and_a_non_file_path_says_so(tmp_path):
    one_line_error(hostio_cli("check", "quickstart", "--set", "traffic.t0={}"), "traffic.t0.nic: required: one of the NICs: nic0")
    one_line_error(hostio_cli("check", str(tmp_path)), "exists but is not a regular file")


def test_json_to_a_closed_standard_output_is_refused():
    cmd = [sys.executable, "-m", "hostio", "run", "quickstart", *SHORT[:4], "--json", "-"]
    p = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *cmd], capture_output=False, stderr=subprocess.PIPE, text=True, timeout=60)
    assert p.returncode == 2 and "standard output open (it is closed)" in p.stderr, p.stderr


def test_a_dotted_key_too_deep_for_toml_says_so():
    one_line_error(hostio_cli("check", "quickstart", "--set", "a." * 100 + "b=1"), "at most 32 of them")
    one_line_error(hostio_cli("check", "quickstart", "--set", "a..b=1"), "non-empty parts")


def test_same_results_replaces_only_a_reference(tmp_path):
    script = os.path.join(os.path.dirname(__file__), "..", "bench", "same_results.py")
    mine = tmp_path / "notes.txt"
    mine.write_text("my notes\n")
    p = subprocess.run([sys.executable, str(script), "--save", str(mine)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "a new file or a reference an earlier --save wrote" in p.stderr.splitlines()[-1], p.stderr
    assert mine.read_text() == "my notes\n"


def test_an_integral_whose_conversion_fails_is_no_integer():
    import numbers

    class Broken:
        def __int__(self):
            raise ValueError("no")

        __index__ = __int__

    numbers.Integral.register(Broken)
    assert sim.integer(Broken()) is None
    with pytest.raises(hostio.ConfigError, match="^seed = "):
        sim.run("quickstart", seed=Broken())
