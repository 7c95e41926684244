"""Sweeps: schedulers, seeds, typed tables, honest resume, locking, failures, interruption."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import hostio
from hostio import sim, sweep
from hostio.cli import REPEAT_S

SHORT = ["run.duration_us=200", "run.warmup_us=200"]
AXES = {"nics.nic0.rx_descriptors": [128, 4096], "platform.ddio_ways": [2, 4]}
BIN = Path(sys.executable).parent


def cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "hostio", *args], capture_output=True, text=True, **kw)


def values(df):
    return df.drop(columns=["point_id"]).to_dict("records")


def test_local_jobs_and_dask_give_identical_tables(tmp_path):
    one = hostio.sweep("quickstart", AXES, set=SHORT, seeds=2, jobs=1, progress=False)
    two = hostio.sweep("quickstart", AXES, set=SHORT, seeds=2, jobs=2, progress=False)
    dask = hostio.sweep("quickstart", AXES, set=SHORT, seeds=2, jobs=2, scheduler="dask", progress=False)
    assert len(one) == 8 and one["error"].isna().all()
    pd.testing.assert_frame_equal(one, two)
    pd.testing.assert_frame_equal(one, dask)
    assert list(one["seed"]) == [1, 2] * 4
    assert one["nics.nic0.rx_descriptors"].dtype == "int64"
    # typed metrics, named as the issue says; no wall-clock column
    assert one["apps.fwd.latency_ns.p99"].dtype == "float64" and one["dropped_packets"].dtype == "int64"
    assert "wall_seconds" not in one
    # leaky DMA shows: 4096 descriptors at 2 ways miss far more than 128
    hit = one.groupby("nics.nic0.rx_descriptors")["pcie_write_hit_rate"].median()
    assert hit[128] > hit[4096] + 0.3


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def dask_scheduler(tmp_path):
    dask = BIN / "dask"
    if not dask.exists():
        pytest.skip("dask command not installed")
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    procs = [subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    try:
        for _ in range(2):
            procs.append(subprocess.Popen([str(dask), "worker", addr, "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1",
                                           "--local-directory", str(tmp_path / "dask")],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        from dask.distributed import Client

        deadline = time.monotonic() + 60
        while True:
            try:
                with Client(addr, timeout="5s") as c:
                    if len(c.scheduler_info()["workers"]) >= 2:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.skip("dask scheduler and workers did not start within 60 s")
            time.sleep(1)
        yield addr
    finally:
        for p in procs:
            with pytest.raises(ProcessLookupError) if p.poll() is not None else _nothing():
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def test_external_scheduler_gives_the_same_parquet(tmp_path, dask_scheduler):
    args = ["sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128,4096", "--axis", "platform.ddio_ways=2,4",
            "--seeds", "2", "--quiet", *sum((["--set", s] for s in SHORT), [])]
    a = cli(*args, "--out", str(tmp_path / "local"), "--jobs", "2")
    b = cli(*args, "--out", str(tmp_path / "tcp"), "--scheduler", dask_scheduler)
    assert a.returncode == 0 and b.returncode == 0, (a.stderr, b.stderr)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "local" / "results.parquet"),
                                  pd.read_parquet(tmp_path / "tcp" / "results.parquet"))


def test_unreachable_scheduler_is_one_line(tmp_path):
    p = cli("sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128", "--out", str(tmp_path / "o"),
            "--scheduler", f"tcp://127.0.0.1:{_free_port()}", *sum((["--set", s] for s in SHORT), []))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "--scheduler" in p.stderr, p.stderr
    p = cli("sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128", "--out", str(tmp_path / "o"), "--scheduler", "slurm")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "tcp://HOST:PORT" in p.stderr


def test_resume_reuses_points_and_load_reads_them(tmp_path):
    first = hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128, 256]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
    assert len((tmp_path / "points.jsonl").read_text().splitlines()) == 2
    # a second sweep into the same folder sharing one point runs only the new one
    second = hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [256, 512]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
    assert len((tmp_path / "points.jsonl").read_text().splitlines()) == 3
    assert values(first)[1] == values(second)[0]
    assert (first.attrs["reused"], second.attrs["reused"]) == (0, 1)
    loaded = hostio.load(tmp_path)
    pd.testing.assert_frame_equal(loaded, second)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "results.parquet"), second)
    assert list(pd.read_csv(tmp_path / "table.csv")["nics.nic0.rx_descriptors"]) == [256, 512]


def _platform_file(path: Path, **changes) -> None:
    facts = dict(sim.presets()["skylake-gold-6140"], **changes)
    lines = []
    for k, v in facts.items():
        if v is None:
            continue
        lines.append(f"{k} = {json.dumps(v) if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else v}")
    path.write_text("\n".join(lines) + "\n")


def test_changed_platform_file_recomputes(tmp_path):
    plat = tmp_path / "machine.toml"
    _platform_file(plat)
    sets = SHORT + [f'platform.preset="file:{plat}"', "nics.nic0.rx_descriptors=4096"]
    out = tmp_path / "o"
    a = hostio.sweep("quickstart", {"platform.ddio_ways": [2]}, set=sets, out=out, jobs=1, progress=False)
    _platform_file(plat, llc_slices=4)  # a smaller cache: the point must be simulated again
    b = hostio.sweep("quickstart", {"platform.ddio_ways": [2]}, set=sets, out=out, jobs=1, progress=False)
    assert len((out / "points.jsonl").read_text().splitlines()) == 2
    assert a["point_id"][0] != b["point_id"][0]
    assert a["pcie_write_hit_rate"][0] != b["pcie_write_hit_rate"][0]
    fresh = hostio.sweep("quickstart", {"platform.ddio_ways": [2]}, set=sets, jobs=1, progress=False)
    assert values(b) == values(fresh)


def test_a_failed_point_is_run_again_on_resume(tmp_path):
    hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128, 256]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
    log = tmp_path / "points.jsonl"
    recs = [json.loads(ln) for ln in log.read_text().splitlines()]
    recs[1] = {"id": recs[1]["id"], "error": "boom"}
    log.write_text("".join(json.dumps(r) + "\n" for r in recs))
    assert not hostio.load(tmp_path).attrs["complete"]
    df = hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128, 256]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
    assert df["error"].isna().all() and df["throughput_gbps"].notna().all()
    assert len(log.read_text().splitlines()) == 3  # the failed point ran again; the other did not


def test_a_sweep_without_seeds_has_the_scenarios_seed():
    df = hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=SHORT, jobs=1, progress=False)
    assert list(df["seed"]) == [1] and df["seed"].dtype == "int64"


def test_summarize_takes_the_median_of_the_runs_that_did_not_fail():
    df = pd.DataFrame({"a": [1, 1, 1, 1], "seed": [1, 2, 3, 4], "throughput_gbps": [1.0, 2.0, 9.0, float("nan")],
                       "error": [None, None, None, "boom"]})
    s = sweep.summarize(df, ["a"], ["throughput_gbps"])
    assert s.to_dict("records") == [{"a": 1, "seeds": 3, "throughput_gbps": 2.0, "throughput_gbps.min": 1.0, "throughput_gbps.max": 9.0}]
    # Missing seeds are not counted as repeated ones; a table naming a column twice is refused
    nan_seeds = pd.DataFrame({"a": [1, 1], "seed": [float("nan")] * 2, "throughput_gbps": [1.0, 3.0]})
    assert sweep.summarize(nan_seeds, ["a"], ["throughput_gbps"])["seeds"].tolist() == [2]
    twice = pd.DataFrame([[1, 1, 2.0]], columns=["a", "a", "throughput_gbps"])
    with pytest.raises(hostio.ConfigError, match="df = 'a': a table that names each of these columns once"):
        sweep.summarize(twice, ["a"], ["throughput_gbps"])


def test_torn_last_record_is_recomputed(tmp_path):
    hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128, 256]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
    log = tmp_path / "points.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text(lines[0] + lines[1][: len(lines[1]) // 2])  # killed while writing the second record
    assert len(hostio.load(tmp_path)) == 1
    df = hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128, 256]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
    recs = [json.loads(ln) for ln in log.read_text().splitlines()]  # every line parses again
    assert len(recs) == 2 and df["error"].isna().all() and len(df) == 2


def test_locked_folder_is_refused_in_one_line(tmp_path):
    with sweep.locked(tmp_path):
        p = cli("sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128", "--out", str(tmp_path), *sum((["--set", s] for s in SHORT), []))
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and f"pid {os.getpid()}" in p.stderr
    assert not (tmp_path / "points.jsonl").exists()


def test_two_axes_on_one_key_and_set_on_an_axis_are_errors(tmp_path):
    p = cli("sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128", "--axis", "nics.nic0.rx_descriptors=256", "--out", str(tmp_path))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "already an axis" in p.stderr
    p = cli("sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128", "--set", "nics.nic0.rx_descriptors=256", "--out", str(tmp_path))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "not also an --axis" in p.stderr
    assert not any(tmp_path.iterdir())


def test_output_path_that_is_a_folder_fails_cleanly(tmp_path):
    (tmp_path / "table.csv").mkdir()
    p = cli("sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128", "--out", str(tmp_path), *sum((["--set", s] for s in SHORT), []))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "table.csv" in p.stderr, p.stderr
    assert not list(tmp_path.rglob("*.tmp")) and not list(tmp_path.rglob("*.part")) and not (tmp_path / "points.jsonl").exists()


def test_tables_never_overwrite_a_users_tmp_file(tmp_path):
    mine = ["table.csv.tmp", "results.parquet.tmp", "sweep.json.tmp"]
    for name in mine:
        (tmp_path / name).write_text("mine\n")
    hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
    assert all((tmp_path / name).read_text() == "mine\n" for name in mine)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        mine + [".lock", "points.jsonl", "results.parquet", "sweep.json", "table.csv"])
    assert oct((tmp_path / "table.csv").stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


class FakePanic(BaseException):
    """Like pyo3_runtime.PanicException: a BaseException, and not picklable across processes."""

    def __reduce__(self):
        raise TypeError("cannot pickle")


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_panicking_point_loses_nothing_else(tmp_path, monkeypatch, jobs):
    real = sim.run

    def run(text, set=(), **kw):
        if "nics.nic0.rx_descriptors=256" in set:
            raise FakePanic("index out of bounds")
        return real(text, set=set, **kw)

    monkeypatch.setattr(sim, "run", run)  # forked workers inherit it
    df = hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128, 256, 512]}, set=SHORT, out=tmp_path, jobs=jobs, progress=False)
    assert list(df["error"].isna()) == [True, False, True]
    assert df["error"][1] == "FakePanic: index out of bounds"
    # Without --seeds each point runs with its scenario's own seed, the failed one too.
    assert df["seed"].tolist() == [1, 1, 1] and df["seed"].dtype == "int64"


def test_a_failed_point_without_seeds_shows_its_own_seed(tmp_path, monkeypatch):
    def run(text, set=(), **kw):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(sim, "run", run)
    axes = {"run.seed": [7, 9]}  # an axis may set the seed when --seeds is not given
    df = hostio.sweep("quickstart", axes, set=SHORT, jobs=1, progress=False)
    assert df["seed"].tolist() == [7, 9] and df["error"].notna().all()
    df = hostio.sweep("quickstart", axes, set=SHORT, out=tmp_path, jobs=1, progress=False)
    assert df["seed"].tolist() == [7, 9]
    assert [p["seed"] for p in json.loads((tmp_path / "sweep.json").read_text())["points"]] == [7, 9]


def _children(pid):
    kids = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids |= {int(x) for x in (task / "children").read_text().split()}
    return kids


def _alive(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_killing_the_parent_stops_its_workers(tmp_path):
    p = subprocess.Popen([sys.executable, "-m", "hostio", "sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128,256,512,1024",
                          "--set", "run.duration_us=200000", "--jobs", "2", "--out", str(tmp_path), "--quiet"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while len(_children(p.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        kids = _children(p.pid)
        assert len(kids) >= 2
    finally:
        p.kill()
        p.wait()
    deadline = time.monotonic() + 10
    while any(_alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(k) for k in kids)


def _sweep_past_its_first_point(out, jobs: int, python_args=("-m", "hostio")) -> subprocess.Popen:
    """A command-line sweep whose first point (of three) is short, returned once that point is
    logged. As from a terminal: it starts with SIGINT's default disposition, whatever the test
    runner's (a process that starts with SIGINT ignored never gets KeyboardInterrupt)."""
    p = subprocess.Popen([sys.executable, *python_args, "sweep", "quickstart", "--axis", "run.duration_us=200,200000,200001",
                          "--set", "run.warmup_us=100", "--jobs", str(jobs), "--out", str(out), "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 30
    log = out / "points.jsonl"
    while (not log.exists() or not log.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return p


def test_ctrl_c_keeps_finished_points(tmp_path):
    p = _sweep_past_its_first_point(tmp_path, jobs=1)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert err.strip().splitlines()[-1] == "hostio: interrupted"
    df = hostio.load(tmp_path)
    assert len(df) == 1 and df["run.duration_us"][0] == 200 and not df.attrs["complete"]
    assert len(pd.read_parquet(tmp_path / "results.parquet")) == 1


def test_ctrl_c_on_a_dask_cluster_is_one_line(tmp_path):
    # A terminal's Ctrl-C goes to the whole process group: the LocalCluster's workers too. They
    # leave the interrupt to the sweep, which closes the cluster and keeps the finished points.
    p = subprocess.Popen([sys.executable, "-m", "hostio", "sweep", "quickstart", "--axis", "run.duration_us=200,200000,200001",
                          "--set", "run.warmup_us=100", "--scheduler", "dask", "--jobs", "1", "--out", str(tmp_path), "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    log = tmp_path / "points.jsonl"
    while (not log.exists() or not log.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip().splitlines()[-1] == "hostio: interrupted", err
    df = hostio.load(tmp_path)
    assert 1 <= len(df) < 3 and not df.attrs["complete"]


def test_seeds_and_summary_on_the_command_line(tmp_path):
    p = cli("sweep", "quickstart", "--axis", "traffic.t0.packet_size=512,1500", "--seeds", "3", "--out", str(tmp_path),
            "--jobs", "2", *sum((["--set", s] for s in SHORT), []))
    assert p.returncode == 0, p.stderr
    assert "6 runs done, 0 failed" in p.stdout and "median over seeds" in p.stdout
    df = pd.read_parquet(tmp_path / "results.parquet")
    assert sorted(df["seed"].unique()) == [1, 2, 3]
    s = sweep.summarize(df, ["traffic.t0.packet_size"])
    assert list(s["seeds"]) == [3, 3]
    assert (s["throughput_gbps.min"] <= s["throughput_gbps"]).all() and (s["throughput_gbps"] <= s["throughput_gbps.max"]).all()
    # The axes mapping hostio.sweep takes is taken as its keys; axes that leave one out are refused
    # rather than pooling two packet sizes into one "spread over seeds".
    assert sweep.summarize(df, {"traffic.t0.packet_size": [512, 1500]}).equals(s)
    with pytest.raises(hostio.ConfigError, match=r"axes = \[\]: every column the sweep varied .* seed 1 has 2 rows"):
        sweep.summarize(df, [])
    with pytest.raises(hostio.ConfigError, match=r"axes = 3: a list of column names, .* \(got a int\)"):
        sweep.summarize(df, 3)
    with pytest.raises(hostio.ConfigError, match=r"metrics = None: column names \(strings; got a NoneType\)"):
        sweep.summarize(df, ["traffic.t0.packet_size"], [None])
    # Any iterable of names; the mapping's keys in their normal spelling; no name twice
    assert sweep.summarize(df, pd.Index(["traffic.t0.packet_size"])).equals(s)
    assert sweep.summarize(df, {'traffic."t0".packet_size': [512, 1500]}).equals(s)
    for axes, metrics, key in ((["traffic.t0.packet_size"] * 2, None, "axes = 'traffic.t0.packet_size': distinct"),
                               (["traffic.t0.packet_size"], ["traffic.t0.packet_size"], "metrics = 'traffic.t0.packet_size': distinct"),
                               (["seeds"], None, "axes = 'seeds'")):
        with pytest.raises(hostio.ConfigError, match=key):
            sweep.summarize(df, axes, metrics)
    # A column the table lacks, or axes given as one string, is named.
    for axes, metrics, key in ((["traffic.t0.packet_size"], ["nosuch"], "metrics = 'nosuch'"), (["nosuch"], None, "axes = 'nosuch'"),
                               ("traffic.t0.packet_size", None, "axes = ")):
        with pytest.raises(hostio.ConfigError, match=key):
            sweep.summarize(df, axes, metrics)


def test_every_point_is_validated_before_any_runs(tmp_path):
    with pytest.raises(hostio.ConfigError, match="rx_descriptors"):
        hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128, 100]}, out=tmp_path, progress=False)
    assert not (tmp_path / "points.jsonl").exists()


def test_run_points_records_keep_their_shape(tmp_path):
    text = sim.scenario_path("quickstart").read_text()
    with pytest.raises(hostio.ConfigError):
        sweep.run_points([(text, SHORT + ["nics.nic0.rx_descriptors=100"])], progress=False)
    recs = sweep.run_points([(text, SHORT + ["nics.nic0.rx_descriptors=128"])] * 2, out=tmp_path, jobs=2, progress=False)
    assert [sorted(r) for r in recs] == [["id", "index", "overrides", "result"]] * 2
    assert recs[0]["overrides"] == SHORT + ["nics.nic0.rx_descriptors=128"] and recs[0]["result"]["seed"] == 1


def test_a_different_engine_recomputes(tmp_path, monkeypatch):
    assert sweep.engine_id() == sweep.engine_id() and len(sweep.engine_id()) == 16
    a = hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
    hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
    assert len((tmp_path / "points.jsonl").read_text().splitlines()) == 1  # same engine: reused
    assert json.loads((tmp_path / "sweep.json").read_text())["engine"] == sweep.engine_id()
    monkeypatch.setattr(sweep, "engine_id", lambda: "0123456789abcdef")  # a rebuilt simulator, same version
    b = hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
    assert len((tmp_path / "points.jsonl").read_text().splitlines()) == 2
    assert a["point_id"][0] != b["point_id"][0]


def test_a_dying_worker_marks_only_its_own_point(tmp_path, monkeypatch):
    real = sim.run

    def run(text, set=(), **kw):
        if "nics.nic0.rx_descriptors=256" in set:
            os._exit(3)  # the worker process dies (a segfault, the OOM killer)
        return real(text, set=set, **kw)

    monkeypatch.setattr(sim, "run", run)  # forked workers inherit it
    descs = [128, 256, 512, 1024, 2048, 4096]
    df = hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": descs}, set=["run.duration_us=2000", "run.warmup_us=200"],
                      out=tmp_path, jobs=2, progress=False)
    assert list(df["error"].isna()) == [d != 256 for d in descs], list(df["error"])
    assert df["error"][1].startswith("worker died")


def test_flock_failure_closes_the_lock_file(tmp_path, monkeypatch):
    import errno
    import fcntl

    def no_locks(f, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)

    def lock_fds():
        return [fd for fd in os.listdir("/proc/self/fd") if os.path.realpath(f"/proc/self/fd/{fd}") == str(tmp_path / ".lock")]

    with pytest.raises((hostio.ConfigError, OSError)) as info:
        with sweep.locked(tmp_path):
            pass
    assert lock_fds() == []  # while the error (and its traceback's frames) is still held
    assert isinstance(info.value, hostio.ConfigError) and "No locks available" in str(info.value)


def test_a_table_error_does_not_hide_the_interruption(tmp_path, monkeypatch):
    def interrupted(*a, **kw):
        raise KeyboardInterrupt

    def disk_full(df, folder):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sweep, "_run_points", interrupted)
    monkeypatch.setattr(sweep, "write_tables", disk_full)
    with pytest.raises(KeyboardInterrupt) as info:
        hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=SHORT, out=tmp_path, progress=False)
    assert "No space left on device" in " ".join(getattr(info.value, "__notes__", []))


def test_an_axis_named_like_a_metric_keeps_its_values(tmp_path):
    # nics.<n>.pause_frames is a setting and a per-NIC count of PAUSE frames.
    df = hostio.sweep("quickstart", {"nics.nic0.pause_frames": [True, False]}, set=SHORT + ["traffic.t0.packet_size=64"], jobs=1, progress=False)
    assert list(df["nics.nic0.pause_frames"]) == [True, False]
    assert df["metrics.nics.nic0.pause_frames"].iloc[0] > 0
    assert df["metrics.nics.nic0.pause_frames"].iloc[1] == 0


def test_a_local_dask_cluster_does_not_warn_about_a_taken_port(tmp_path):
    # Another cluster (or anything) on Dask's default HTTP port 8787: the sweep's own cluster
    # serves no dashboard and takes a free port, so it has nothing to warn about.
    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", 8787))
        holder.listen()
    except OSError:
        pass  # taken already, which is the case under test too
    try:
        p = cli("sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128,256", "--scheduler", "dask", "--jobs", "2",
                "--out", str(tmp_path), "--quiet", *sum((["--set", s] for s in SHORT), []), timeout=120)
    finally:
        holder.close()
    assert p.returncode == 0, p.stderr
    assert p.stderr == "", p.stderr


SECOND_CTRL_C = """
import signal, sys, time
import hostio
from hostio import sweep
out, short = sys.argv[1], sys.argv[2:]
real_run, real_write = sweep._run_points, sweep.write_tables

def one_point_then_ctrl_c(points, ids, *rest):
    real_run(points[:1], ids[:1], *rest)
    signal.raise_signal(signal.SIGINT)
    time.sleep(10)  # KeyboardInterrupt arrives here
    raise AssertionError("SIGINT did not interrupt")

def ctrl_c_again_then_write(df, folder):
    signal.raise_signal(signal.SIGINT)
    time.sleep(5)  # and here
    real_write(df, folder)

sweep._run_points, sweep.write_tables = one_point_then_ctrl_c, ctrl_c_again_then_write
handler = signal.getsignal(signal.SIGINT)
try:
    hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128, 256]}, set=short, out=out, jobs=1, progress=False)
except KeyboardInterrupt:
    pass
else:
    raise AssertionError("no KeyboardInterrupt")
assert signal.getsignal(signal.SIGINT) is handler  # put back
"""


def test_a_second_ctrl_c_cuts_the_table_writing_short_and_keeps_the_finished_points(tmp_path):
    # The first Ctrl-C stops the sweep, the next one arrives while the tables of the points
    # finished are being written and stops that too; the finished point stays in points.jsonl.
    # In a process of its own that starts with SIGINT's default disposition, as from a terminal:
    # a test runner started with SIGINT ignored (a background job) passes that on, and Python
    # then installs no handler that raises KeyboardInterrupt.
    p = subprocess.run([sys.executable, "-c", SECOND_CTRL_C, str(tmp_path), *SHORT], capture_output=True, text=True, timeout=120,
                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert p.returncode == 0, p.stderr
    assert not (tmp_path / "results.parquet").exists()
    df = hostio.load(tmp_path)
    assert len(df) == 1 and not df.attrs["complete"]


def test_rapid_ctrl_c_on_the_command_line_keeps_finished_points(tmp_path):
    p = _sweep_past_its_first_point(tmp_path, jobs=2)
    for _ in range(10):  # within a few milliseconds, while the first is being handled
        p.send_signal(signal.SIGINT)
        time.sleep(0.001)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    # The second one, unless the system delivered them as one or it came within REPEAT_S of the
    # first, ends the clean-up.
    assert err.strip().splitlines() in (["hostio: interrupted"],
                                        ["hostio: interrupted again: stopped without cleaning up"]), err
    df = hostio.load(tmp_path)
    assert len(df) == 1 and df["run.duration_us"][0] == 200


def test_a_signal_repeated_at_once_is_one_request_and_the_tables_are_written(tmp_path):
    # As `timeout -s INT` does: the process, then its group. Microseconds apart the system may
    # deliver them as one; 30 ms apart the first has been handled when the second comes.
    p = _sweep_past_its_first_point(tmp_path, jobs=1)
    p.send_signal(signal.SIGINT)
    time.sleep(0.03)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and err.strip().splitlines() == ["hostio: interrupted"], err
    assert len(pd.read_parquet(tmp_path / "results.parquet")) == 1


# The command line with a clean-up that hangs: the sweep's table writing never returns.
_HANGING_TABLES = """
import sys, time
from hostio import cli, sweep

def hang(df, folder):
    open(sys.argv[1], "w").close()
    time.sleep(60)

sweep.write_tables = hang
sys.exit(cli.main(sys.argv[2:]))
"""


def test_a_second_ctrl_c_stops_a_clean_up_that_hangs(tmp_path):
    hanging = tmp_path / "hanging"
    out = tmp_path / "out"
    p = _sweep_past_its_first_point(out, jobs=1, python_args=("-c", _HANGING_TABLES, str(hanging)))
    try:
        p.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 30
        while not hanging.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert hanging.exists(), "the first Ctrl-C did not start the clean-up"
        time.sleep(REPEAT_S + 0.1)  # not a repeat of the first
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=10)
    finally:
        p.kill()
        p.wait()
    assert p.returncode == 130, err
    assert err.strip().splitlines() == ["hostio: interrupted again: stopped without cleaning up"], err
    df = hostio.load(out)
    assert len(df) == 1 and df["run.duration_us"][0] == 200 and not df.attrs["complete"]


def test_points_and_manifest_that_are_no_regular_files_or_nest_too_deep_are_refused(tmp_path):
    hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
    log = tmp_path / "points.jsonl"
    good = log.read_text()
    log.write_text(good + "[" * 100000 + "]" * 100000 + "\n")  # a line no record is: skipped
    assert len(sweep.read_log(log)) == 1
    (tmp_path / "sweep.json").write_text("[" * 100000 + "]" * 100000)
    with pytest.raises(hostio.ConfigError, match="nests deeper"):
        sweep.manifest(tmp_path)
    for name in ("points.jsonl", "sweep.json"):
        (tmp_path / name).unlink()
        os.mkfifo(tmp_path / name)  # would block a read for ever
    with pytest.raises(hostio.ConfigError, match="not a regular file"):
        sweep.read_log(log)
    with pytest.raises(hostio.ConfigError, match="not a regular file"):
        sweep.manifest(tmp_path)


def test_ctrl_c_once_every_point_is_done_still_writes_the_tables(tmp_path, monkeypatch):
    real_load, calls = sweep.load, []

    def interrupted_once(folder):
        calls.append(folder)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real_load(folder)

    monkeypatch.setattr(sweep, "load", interrupted_once)
    with pytest.raises(KeyboardInterrupt):
        hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128, 256]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
    assert len(pd.read_parquet(tmp_path / "results.parquet")) == 2 and (tmp_path / "table.csv").exists()


def test_a_log_that_is_no_regular_file_is_refused_before_the_manifest_changes(tmp_path):
    hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
    manifest = (tmp_path / "sweep.json").read_bytes()
    (tmp_path / "points.jsonl").unlink()
    (tmp_path / "points.jsonl").symlink_to(tmp_path / "gone")  # dangling
    with pytest.raises(hostio.ConfigError, match="a symbolic link"):
        hostio.sweep("quickstart", {"nics.nic0.tx_descriptors": [256]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
    assert (tmp_path / "sweep.json").read_bytes() == manifest


def test_a_default_spelt_out_is_the_same_point_and_a_changed_one_is_not():
    text = Path(sim.scenario_path("quickstart")).read_text()
    base = sweep.point_id(text, [])
    assert sweep.point_id(text, ["apps.fwd.cat_mask=0x7ff"]) == base
    assert sweep.point_id(text, ["apps.fwd.working_set_mib=2.0", 'platform.replacement="lru"']) == base
    assert sweep.point_id(text, ["apps.fwd.working_set_mib=3.0"]) != base
    assert sweep.point_id(text, ['platform.preset="haswell-e5-2699v3"']) != base


def test_run_points_refuses_a_log_that_is_a_dangling_link(tmp_path):
    (tmp_path / "points.jsonl").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(hostio.ConfigError, match="a symbolic link"):
        sweep.run_points([(Path(sim.scenario_path("quickstart")).read_text(), SHORT)], out=tmp_path, jobs=1, progress=False)
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.parametrize("name", ["points.jsonl", ".lock"])
def test_a_log_or_lock_that_links_to_a_file_elsewhere_is_refused_and_the_file_kept(tmp_path, name):
    # Repairing, appending or locking through the link would change a file outside the folder.
    elsewhere = tmp_path / "precious.txt"
    elsewhere.write_text("precious 1\nprecious 2 without a newline")
    out = tmp_path / "out"
    hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=SHORT, out=out, jobs=1, progress=False)
    (out / name).unlink()
    (out / name).symlink_to(elsewhere)
    with pytest.raises(hostio.ConfigError, match="symbolic link"):
        hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=SHORT, out=out, jobs=1, progress=False)
    assert elsewhere.read_text() == "precious 1\nprecious 2 without a newline"


def test_a_lock_that_is_no_regular_file_is_refused(tmp_path):
    os.mkfifo(tmp_path / ".lock")
    with pytest.raises(hostio.ConfigError, match="a folder whose .lock is hostio's own file, a regular file"):
        hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=SHORT, out=tmp_path, jobs=1, progress=False)


@pytest.mark.parametrize("damage", [
    lambda m: m.update(latency_ns={"p99": 1.0}),  # keys missing
    lambda m: m.update(latency_ns={"p99": "abc"}),  # keys missing, a value of the wrong type
    lambda m: m["latency_ns"].update(p50="abc"),
    lambda m: m["nics"]["nic0"].update(dropped_packets="many"),
    lambda m: m["nics"]["nic0"].update(ddio="yes"),
    lambda m: m["apps"]["fwd"].update(kind=5),
])
def test_a_record_whose_metrics_have_the_wrong_types_runs_again(tmp_path, damage):
    hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
    log = tmp_path / "points.jsonl"
    rec = json.loads(log.read_text())
    assert sweep.well_formed(rec)
    damage(rec["result"]["metrics"])
    assert not sweep.well_formed(rec)
    log.write_text(json.dumps(rec) + "\n")
    df = hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
    assert df["error"].isna().all() and df.attrs["reused"] == 0


def test_a_folder_whose_log_links_to_a_file_can_still_be_read(tmp_path):
    # Reading through a link changes nothing: load and report take it; resuming (a repair or an
    # append) does not.
    out = tmp_path / "out"
    hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=SHORT, out=out, jobs=1, progress=False)
    (out / "points.jsonl").rename(tmp_path / "kept.jsonl")
    (out / "points.jsonl").symlink_to(tmp_path / "kept.jsonl")
    assert len(hostio.load(out)) == 1
    with pytest.raises(hostio.ConfigError, match="a symbolic link"):
        hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=SHORT, out=out, jobs=1, progress=False)


def test_a_lock_that_is_a_folder_is_named(tmp_path):
    (tmp_path / ".lock").mkdir()
    with pytest.raises(hostio.ConfigError, match="a folder whose .lock is hostio's own file, a regular file \\(a folder here\\)"):
        hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=SHORT, out=tmp_path, jobs=1, progress=False)
