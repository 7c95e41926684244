"""Bad input to sweeps, reports and advice: malformed records and folders, sizes, schedulers,
signals and Python argument types. Every case is one line, exit 2 (ConfigError in Python), and
leaves nothing half-written."""
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from fractions import Fraction

import pytest

import hostio
from hostio import advise, sweep
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
    page = (tmp_path / "r.html").read_text()
    assert "1 of 2 runs" in page and "partial" in page and "(complete)" not in page
    df = run_sweep(tmp_path)
    assert len(df) == 2 and df["error"].isna().all() and df["throughput_gbps"].notna().all()
    assert hostio.load(tmp_path).attrs["complete"]


# ---- sizes, jobs, schedulers, empty values -------------------------------------------------------

@pytest.mark.parametrize("args,needles", [
    # The error names the option(s) that make the count too large: --seeds alone, --axis alone, or both.
    (["sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128", "--seeds", "1000000000"],
     ["hostio: error: --seeds = 1000000000: at most 1000000 runs in all (asked for 1000000000: 1 points × 1000000000 seeds)"]),
    (["sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=" + ",".join(map(str, range(1, 1001))),
      "--axis", "platform.ddio_ways=" + ",".join(map(str, range(1, 1002)))],
     ["hostio: error: --axis = 1001000: at most 1000000 runs in all (asked for 1001000"]),
    (["sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=" + ",".join(map(str, range(1, 1001))), "--seeds", "1001"],
     ["hostio: error: --axis and --seeds = '1000 × 1001': at most 1000000 runs in all (asked for 1001000"]),
    (["sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128", "--jobs", "0"], ["--jobs = 0: an integer >= 1"]),
    # a malformed number (a hex typo) is text, which the key refuses, as with --set; not a traceback
    (["sweep", "quickstart", "--axis", "platform.ddio_mask=0x600,0x6g0"], ['platform.ddio_mask = "0x6g0": an integer']),
    (["sweep", "quickstart", "--axis", "apps.fwd.cores=1,1e"], ['apps.fwd.cores = "1e": an integer']),
    (["sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128", "--scheduler", "tcp://127.0.0.1:"], ["--scheduler", "1..=65535"]),
    (["sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128", "--scheduler", "tcp://127.0.0.1:abc"], ["--scheduler", "1..=65535"]),
    # An IPv6 host without its brackets, or with one missing: Dask would raise inside.
    (["sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128", "--scheduler", "tcp://[::1"], ["--scheduler", "in brackets"]),
    (["sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128", "--scheduler", "tcp://::1:8786"], ["--scheduler", "in brackets"]),
    (["sweep", "quickstart", "--axis", "=2,4"], ["--axis", "'=2,4'"]),
    (["sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128,256,128"], ["--axis nics.nic0.rx_descriptors = 128", "twice"]),
    (["reproduce", "--seeds", "1000000000"], ["--seeds", "at most 1000000 runs"]),
    (["reproduce", "--jobs", "-1"], ["--jobs = -1"]),
    (["reproduce", "--only", ""], ["--only = ''"]),
    (["reproduce", "--only", ","], ["--only = ','"]),
    (["reproduce", "--scheduler", "tcp://127.0.0.1:0"], ["--scheduler", "1..=65535"]),
    (["advise", "quickstart", "--goal", "p99", "--seeds", "1000000000", "--knobs", "platform.ddio_ways=2,4"],
     ["hostio: error: --seeds = 1000000000: at most 1000000 runs"]),
    (["advise", "quickstart", "--goal", "p99", "--seeds", "1000", "--knobs", "platform.ddio_ways=" + ",".join(map(str, range(1, 1001)))],
     ["hostio: error: --knobs and --seeds = '1001 × 1000': at most 1000000 runs"]),
    (["advise", "quickstart", "--goal", "p99", "--jobs", "0"], ["--jobs = 0"]),
    (["advise", "quickstart", "--goal", "p99", "--knobs", ""], ["--knobs = ''"]),
    (["advise", "quickstart", "--goal", "p99", "--slo", "0"], ["--slo = 0.0"]),
    (["advise", "quickstart", "--goal", "misses", "--slo", "1.5"], ["--slo = 1.5", "(0, 1]"]),
    (["advise", "quickstart", "--goal", "misses", "--slo", "0"], ["--slo = 0.0", "(0, 1]"]),
    (["advise", "quickstart", "--goal", "p99", "--knobs", "platform.ddio_ways=2,platform.ddio_ways=4"], ["--knobs", "given twice"]),
    (["advise", "quickstart", "--goal", "p99", "--knobs", "platform.ddio_ways=2,4,2"], ["--knobs", "2 twice"]),
    (["advise", "quickstart", "--goal", "p99", "--knobs", "run.seed=1,2"], ["--knobs", "run.seed"]),
    (["advise", "quickstart", "--goal", "p99", "--scheduler", "tcp://127.0.0.1:99999"], ["--scheduler", "1..=65535"]),
])
def test_bad_sizes_and_options_are_refused_before_anything_is_written(tmp_path, args, needles):
    out = tmp_path / "out"
    if args[0] in ("sweep", "reproduce"):
        args = args + ["--out", str(out)]
    one_line_error(cli(*args, "--quiet", cwd=tmp_path, timeout=60), *needles)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("cmd", [["sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128"], ["reproduce", "--quick"]])
def test_an_empty_out_is_refused(tmp_path, cmd):
    one_line_error(cli(*cmd, "--out", "", "--quiet", cwd=tmp_path), "--out = ''")
    assert list(tmp_path.iterdir()) == []


def test_an_unreachable_scheduler_leaves_out_untouched(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for cmd in (["sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128", *SHORT_CLI], ["reproduce", "--quick", "--only", "fig2"]):
        one_line_error(cli(*cmd, "--out", str(tmp_path / "out"), "--scheduler", f"tcp://127.0.0.1:{port}"), "--scheduler", "did not answer")
        assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("reply,needle", [(None, "no handshake came within 1 s"), (b"HTTP/1.1 400 Bad Request\r\n\r\n", "not a Dask scheduler"),
                                          (b"", "closed the connection"), ((40).to_bytes(8, "little"), "no handshake came within 1 s"),
                                          ((20).to_bytes(8, "little") + b"x" * 20, "not a Dask scheduler")])
def test_a_program_that_is_not_a_scheduler_is_refused_in_time(tmp_path, monkeypatch, reply, needle):
    """Something else listening at the address (a silent program, a web server such as the
    dashboard's port, one that hangs up, one that sends a length and stalls, one whose message is
    no handshake): Dask's client would wait forever for the first and the fourth, and read the
    second's reply as a message length of exabytes."""
    import socket
    import threading

    monkeypatch.setattr(sweep, "CONNECT_S", 1)
    server = socket.create_server(("127.0.0.1", 0))
    conns = []

    def serve():
        with contextlib.suppress(OSError):
            while True:
                c, _ = server.accept()
                conns.append(c)
                if reply is not None:
                    c.sendall(reply)
                    if not reply:
                        c.close()

    threading.Thread(target=serve, daemon=True).start()
    try:
        t0 = time.monotonic()
        with pytest.raises(ConfigError, match=needle):
            run_sweep(tmp_path / "out", scheduler=f"tcp://127.0.0.1:{server.getsockname()[1]}")
        assert time.monotonic() - t0 < 10
        assert not (tmp_path / "out").exists()
    finally:
        server.close()
        for c in conns:
            c.close()


def test_a_scheduler_without_workers_is_an_error_not_a_hang(tmp_path, monkeypatch):
    import socket

    dask = os.path.join(os.path.dirname(sys.executable), "dask")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        monkeypatch.setattr(sweep, "WORKER_WAIT_S", 3)
        addr = f"tcp://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:  # the scheduler is up once a connection is accepted
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "dask scheduler did not start"
            time.sleep(0.5)
        t0 = time.monotonic()
        with pytest.raises(ConfigError, match="at least one worker"):
            run_sweep(tmp_path / "out", scheduler=addr)
        assert time.monotonic() - t0 < 30
        assert not (tmp_path / "out").exists()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


# ---- Python argument types ---------------------------------------------------------------------

@pytest.mark.parametrize("kw,needle", [
    ({"axes": None}, "axes"), ({"axes": [1, 2]}, "axes"), ({"axes": {"nics.nic0.rx_descriptors": 128}}, "axes"),
    ({"axes": {"nics.nic0.rx_descriptors": [128, None]}}, "axes"), ({"jobs": "2"}, "jobs"), ({"jobs": 1.5}, "jobs"),
    ({"jobs": 0}, "jobs"), ({"scheduler": None}, "scheduler"), ({"scheduler": 5}, "scheduler"),
    ({"seeds": 1.5}, "seeds"), ({"seeds": "12"}, "seeds"), ({"seeds": [None]}, "seeds"), ({"seeds": True}, "seeds"),
    ({"seeds": []}, "seeds"), ({"seeds": [1, 1]}, "seeds"), ({"out": ""}, "out"), ({"out": 5}, "out"),
    # A Fraction is no TOML or JSON value; a range too long to run is refused before it is read.
    ({"axes": {"platform.ddio_ways": [Fraction(4)]}}, "axes\\['platform.ddio_ways'\\] = Fraction\\(4, 1\\): values that are numbers"),
    ({"axes": {"run.duration_us": range(1, 10**12)}}, "axes\\['run.duration_us'\\] = '999999999999 values': at most 1,000,000"),
])
def test_python_sweep_arguments_are_checked(tmp_path, kw, needle):
    args = {"axes": AXES, "out": tmp_path / "out", **kw}
    axes = args.pop("axes")
    with pytest.raises(ConfigError, match=needle.replace("-", r"\-")):
        hostio.sweep("quickstart", axes, set=SHORT, progress=False, **args)
    assert not (tmp_path / "out").exists()


def test_python_sweep_out_that_is_a_file(tmp_path):
    f = tmp_path / "afile"
    f.write_text("mine")
    with pytest.raises(ConfigError, match="^out = "):
        run_sweep(f)
    assert f.read_text() == "mine"
    one_line_error(cli("sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128", "--out", str(f), *SHORT_CLI), "--out", "afile")


# ---- SIGTERM -----------------------------------------------------------------------------------

@pytest.mark.parametrize("jobs", ["1", "2"])
def test_sigterm_keeps_finished_points_like_ctrl_c(tmp_path, jobs):
    import pandas as pd

    p = subprocess.Popen([sys.executable, "-m", "hostio", "sweep", "quickstart", "--axis", "run.duration_us=200,200000,200001",
                          "--set", "run.warmup_us=100", "--jobs", jobs, "--out", str(tmp_path), "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    log = tmp_path / "points.jsonl"
    while (not log.exists() or not log.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 143, err
    assert err.strip().splitlines()[-1] == "hostio: terminated"
    assert len(pd.read_parquet(tmp_path / "results.parquet")) == 1
    assert (tmp_path / "table.csv").read_text().count("\n") == 2


# ---- damaged folders ---------------------------------------------------------------------------

@pytest.mark.parametrize("content", [b"", b"garbage{", b"[1, 2]", b'{"hostio": "0.1.0"}', "\xff\xfe".encode("latin-1"),
                                     "axes-list", "point-values"])
def test_a_damaged_sweep_json_is_one_line_naming_it(tmp_path, content):
    run_sweep(tmp_path)
    mpath = tmp_path / "sweep.json"
    if content == "axes-list":
        m = json.loads(mpath.read_text())
        m["axes"] = list(m["axes"])
        content = json.dumps(m).encode()
    elif content == "point-values":
        m = json.loads(mpath.read_text())
        m["points"][0]["values"] = []
        content = json.dumps(m).encode()
    mpath.write_bytes(content)
    with pytest.raises(ConfigError, match="sweep.json"):
        hostio.load(tmp_path)
    one_line_error(cli("report", str(tmp_path), "--out", str(tmp_path / "r.html")), "sweep.json")
    assert not (tmp_path / "r.html").exists()


def test_a_damaged_results_parquet_is_one_line_naming_it(tmp_path):
    (tmp_path / "results.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(ConfigError, match="results.parquet"):
        hostio.load(tmp_path)
    with pytest.raises(ConfigError, match="folder"):
        hostio.load(None)


def test_a_damaged_reproduction_folder_is_one_line_naming_the_file(tmp_path):
    import base64

    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
    (tmp_path / "fig2.png").write_bytes(png)
    (tmp_path / "fig2.csv").write_text('a,b\n1,"2\n')
    (tmp_path / "summary.md").write_text("# t\n\n![fig](fig2.png)\n")
    one_line_error(cli("report", str(tmp_path), "--out", str(tmp_path / "r.html")), "fig2.csv")
    (tmp_path / "fig2.csv").write_bytes(b"")
    one_line_error(cli("report", str(tmp_path), "--out", str(tmp_path / "r.html")), "fig2.csv")
    (tmp_path / "summary.md").write_bytes(b"# t\n\xff\xfe\n")
    one_line_error(cli("report", str(tmp_path), "--out", str(tmp_path / "r.html")), "summary.md")
    assert not (tmp_path / "r.html").exists()


# ---- two threads, one folder -------------------------------------------------------------------

def test_two_threads_cannot_write_one_folder(tmp_path):
    import threading

    results = {}
    barrier = threading.Barrier(2)

    def work(name):
        barrier.wait()
        try:
            results[name] = run_sweep(tmp_path)
        except ConfigError as exc:
            results[name] = exc

    with sweep.locked(tmp_path):  # held by this thread: both workers are refused
        ts = [threading.Thread(target=work, args=(n,)) for n in "ab"]
        for t in ts:
            t.start()
        for t in ts:
            t.join(timeout=120)
        assert all(isinstance(results[n], ConfigError) and "another thread" in str(results[n]) for n in "ab"), results
    assert not (tmp_path / "points.jsonl").exists()
    results.clear()
    ts = [threading.Thread(target=work, args=(n,)) for n in "ab"]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=120)
    errors = [r for r in results.values() if isinstance(r, ConfigError)]
    frames = [r for r in results.values() if not isinstance(r, ConfigError)]
    assert len(frames) >= 1 and all(len(f) == 2 for f in frames)
    assert all("another thread" in str(e) for e in errors)
    lines = (tmp_path / "points.jsonl").read_text().splitlines()
    assert len(lines) == 2  # one thread ran the points; a later one, if any, reused them


# ---- messages ----------------------------------------------------------------------------------

@pytest.mark.parametrize("override,needles", [
    ("nics.nic0.tx_release=5", ["nics.nic0.tx_release = 5", "`completion` or `threshold`"]),
    ("nics.nic0.design=[1]", ["nics.nic0.design = [1]", "`cx5`, `simple`, `kernel`, `dpdk`"]),
    ("platform.replacement=true", ["platform.replacement = true", "`lru`"]),
    ("traffic.t0.size_mix=3", ["traffic.t0.size_mix = 3", "`imix` or `campus`"]),
    ("apps.fwd.kind=1", ["apps.fwd.kind = 1", "`l2fwd`"]),
    ("traffic.t0.imbalance=1e308", ["traffic.t0.imbalance = 1e308: 1..=1 "]),
    ("traffic.t0.imbalance=0", ["traffic.t0.imbalance = 0: 1..=1 "]),
    ("traffic.t0.imbalance=1.5", ["traffic.t0.imbalance = 1.5: 1..=1 "]),
])
def test_enum_and_range_messages_name_key_value_and_allowed(override, needles):
    with pytest.raises(ConfigError) as info:
        hostio.sim.check("quickstart", set=["apps.fwd.cores=1", override])
    msg = str(info.value)
    assert "unit variant" not in msg and len(msg) < 200, msg
    for n in needles:
        assert n in msg, msg


def test_report_out_write_failure_names_the_users_path(tmp_path, monkeypatch, capsys):
    import tempfile

    from hostio import cli as hcli

    run_sweep(tmp_path / "sw")

    def refuse(*a, dir=None, prefix="", suffix=""):
        raise OSError(30, "Read-only file system", os.path.join(dir, prefix + "xyz" + suffix))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    dest = str(tmp_path / "r.html")
    assert hcli.main(["report", str(tmp_path / "sw"), "--out", dest]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"hostio: error: --out = {dest!r}: a path this user may write (Read-only file system)", err


def test_python_advise_knob_values_are_checked():
    from hostio import advise

    for knobs, needle in (({"platform.ddio_ways": [2, 2]}, "twice"), ({"platform.ddio_ways": []}, "non-empty"),
                          ({"run.seed": [1, 2]}, "run.seed")):
        with pytest.raises(ConfigError, match=needle):
            advise.advise("quickstart", goal="p99", knobs=knobs, set=SHORT, progress=False)


def test_dask_starts_no_more_workers_than_points(monkeypatch):
    import contextlib

    asked = []

    @contextlib.contextmanager
    def fake_client(scheduler, jobs):
        asked.append(jobs)
        raise ConfigError("stop here")
        yield

    monkeypatch.setattr(sweep, "dask_client", fake_client)
    with pytest.raises(ConfigError, match="stop here"):
        hostio.sweep("quickstart", AXES, set=SHORT, jobs=8, scheduler="dask", progress=False)
    assert asked == [2]


def test_report_of_a_missing_folder_names_the_folder(tmp_path):
    one_line_error(cli("report", str(tmp_path / "nosuch")), "folder = ", "nosuch")
    assert list(tmp_path.iterdir()) == []


def test_seeds_past_the_largest_run_seed_name_seeds(tmp_path):
    top = 2**63 - 1
    with pytest.raises(hostio.ConfigError, match=r"^seeds = 2: a count whose last seed, run.seed \(9223372036854775807\) \+ 1"):
        hostio.sweep("quickstart", {"traffic.t0.packet_size": [64]}, seeds=2, set=[f"run.seed={top}"], out=tmp_path / "a",
                     progress=False)
    with pytest.raises(hostio.ConfigError, match=r"^seeds = 9223372036854775808: seeds up to 9223372036854775807"):
        hostio.sweep("quickstart", {"traffic.t0.packet_size": [64]}, seeds=[1, top + 1], out=tmp_path / "b", progress=False)
    with pytest.raises(hostio.ConfigError, match=r"^seeds = 2: a count whose last seed"):
        advise.advise("quickstart", goal="p99", seeds=2, set=[f"run.seed={top}"], progress=False)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


# ---- dotted keys: one key, however it is spelt -----------------------------------------------

@pytest.mark.parametrize("args,needles", [
    # The same key spelt two ways is one key: a second axis, a --set on an axis, or a run.seed axis with --seeds.
    (["--axis", "run.duration_us=200", "--axis", 'run."duration_us"=300'], ["--axis", "run.duration_us is already an axis"]),
    (["--axis", "nics.nic0.rx_descriptors=128", "--set", 'nics.nic0."rx_descriptors"=256'],
     ["--set", "not also an --axis (nics.nic0.rx_descriptors is one)"]),
    (["--axis", "nics . nic0 . rx_descriptors=128", "--set", "nics.nic0.rx_descriptors=256"], ["--set", "not also an --axis"]),
    (["--axis", 'run."seed"=1,2', "--seeds", "2"], ["--axis = 'run.seed': --seeds instead of a run.seed axis"]),
    (["--axis", "run.'seed'=1,2", "--seeds", "2"], ["--seeds instead of a run.seed axis"]),
    # Messages spell keys as TOML does: a part that is not a bare key stays quoted.
    (["--axis", 'nics."nic 0".rx_descriptors=128,128'], ['--axis nics."nic 0".rx_descriptors = 128', "twice"]),
    (["--axis", "nics..rx_descriptors=128"], ["--axis", "TOML dotted key"]),
])
def test_a_key_spelt_two_ways_is_one_key(tmp_path, args, needles):
    out = tmp_path / "out"
    one_line_error(cli("sweep", "quickstart", *args, "--out", str(out), *SHORT_CLI), *needles)
    assert not out.exists()


def test_python_axes_and_knobs_are_compared_in_their_normal_spelling(tmp_path):
    with pytest.raises(ConfigError, match=r"^axes = 'run\.\"seed\"': each key once"):
        hostio.sweep("quickstart", {"run.seed": [1], 'run."seed"': [2]}, set=SHORT, out=tmp_path / "a", progress=False)
    with pytest.raises(ConfigError, match=r"^axes = 'run\.seed': seeds= instead"):
        hostio.sweep("quickstart", {"run . seed": [1, 2]}, seeds=2, set=SHORT, out=tmp_path / "a", progress=False)
    assert not (tmp_path / "a").exists()
    assert advise.parse_knobs('nics."nic0".rx_descriptors=128,256,platform . ddio_ways') == {
        "nics.nic0.rx_descriptors": [128, 256], "platform.ddio_ways": None}
    # A quoted part may hold a dot, a comma or an = sign.
    assert advise.parse_knobs('apps."a,b=c".cores=1,2') == {'apps."a,b=c".cores': [1, 2]}
    for spec, needle in (('run."seed"=1,2', "keys outside \\[run\\]"), ("run.duration_us=20,5000", "keys outside \\[run\\]"),
                         ("platform.ddio_ways=2,platform.'ddio_ways'=4", "given twice"),
                         ("platform..ddio_ways=2", "TOML dotted key")):
        with pytest.raises(ConfigError, match=needle):
            advise.parse_knobs(spec)
    for knobs, needle in (({'run."seed"': [1, 2]}, "run.seed"), ({"platform.ddio_ways": [2], 'platform."ddio_ways"': [4]}, "same key")):
        with pytest.raises(ConfigError, match=needle):
            advise.advise("quickstart", goal="p99", knobs=knobs, set=SHORT, progress=False)


def test_a_sweep_over_a_quoted_key_names_its_column_as_toml_does():
    text = hostio.scenario_path("quickstart").read_text().replace("[apps.fwd]", '[apps."fw.d"]')
    df = hostio.sweep(text, {"apps.'fw.d'.cores": [1, 2]}, set=SHORT, jobs=1, progress=False)
    assert list(df['apps."fw.d".cores']) == [1, 2] and df["error"].isna().all()


@pytest.mark.parametrize("cmd", [["sweep", "quickstart", "--axis", "traffic.t0.packet_size=64", *SHORT_CLI], ["reproduce", "--quick", "--quiet"]])
def test_an_out_folder_whose_name_is_too_long_names_out(tmp_path, cmd):
    line = one_line_error(cli(*cmd, "--out", str(tmp_path / ("a" * 300))), "--out = ", "a folder path the file system can name")
    assert "File name too long" in line and list(tmp_path.iterdir()) == []


def test_an_out_folder_that_cannot_be_created_names_out(tmp_path):
    one_line_error(cli("sweep", "quickstart", "--axis", "traffic.t0.packet_size=64", "--out", "/proc/hostio-sweep", *SHORT_CLI),
                   "--out = '/proc/hostio-sweep': a folder this user may create and write")


def test_a_sweep_takes_a_scenario_mapping_as_run_does():
    # The resolved scenario of a run, a mapping, sweeps to the same points as its file.
    sc = hostio.check("quickstart")["scenario"]
    a = hostio.sweep(sc, {"nics.nic0.rx_descriptors": [64, 128]}, set=SHORT, progress=False)
    b = hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [64, 128]}, set=SHORT, progress=False)
    assert a["scenario_hash"].tolist() == b["scenario_hash"].tolist()
    assert a["throughput_gbps"].tolist() == b["throughput_gbps"].tolist()


def test_python_errors_name_parameters_and_leave_user_text_alone(tmp_path):
    # The API names its parameters where the command line names its options; only the key of a
    # message is renamed, never a value, a scenario key or a path the user gave.
    from hostio import repro
    from hostio.errors import command_line

    with pytest.raises(ConfigError, match=r"^axes and seeds = '2000 × 600': at most"):
        hostio.sweep("quickstart", {"a.b": list(range(2000))}, seeds=600, progress=False)
    with pytest.raises(ConfigError, match=r"\('--seeds' is neither\)"):
        advise.parse_knobs("platform.ddio_ways=--seeds")
    with pytest.raises(ConfigError, match=r"^nics\.--seeds\.rx_descriptors = None"):
        hostio.check({"nics": {"--seeds": {"rx_descriptors": None}}})
    with pytest.raises(ConfigError, match=r"^axes = 'a \. \"--out\"': each key once \(a\.--out is already one"):
        hostio.sweep("quickstart", {'a."--out"': [1], 'a . "--out"': [2]}, progress=False)
    # The compiled module's override errors too, and reproduce's overrides under their own name.
    for call in (lambda: hostio.run("quickstart", set=["a..b=1"]),
                 lambda: hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128]}, set=["a..b=1"], progress=False)):
        with pytest.raises(ConfigError, match=r"^set = a\.\.b=1: KEY\.PATH=VALUE"):
            call()
    with pytest.raises(ConfigError, match=r"^overrides = 'a\.\.b=1': KEY\.PATH=VALUE"):
        repro.reproduce(tmp_path / "r", overrides=["a..b=1"], progress=False)
    # `only` as one id, not its characters; an unknown id among known ones is refused.
    for only in ("fig6-haswell-x", ["fig6", "nope"]):
        with pytest.raises(ConfigError, match=r"^only = '(fig6-haswell-x|nope)': experiment ids among"):
            repro.reproduce(tmp_path / "r", only=only, progress=False)
    assert not (tmp_path / "r").exists()
    # While a command runs, its options; nested and overlapping commands keep that until the last
    # one ends, in any thread.
    import threading

    entered, leave = threading.Event(), threading.Event()

    def other_command():
        with command_line():
            entered.set()
            leave.wait(10)

    t = threading.Thread(target=other_command)
    with command_line():
        t.start()
        entered.wait(10)
    with pytest.raises(ConfigError, match="^--seeds = 0"):
        hostio.sweep("quickstart", AXES, seeds=0, progress=False)
    leave.set()
    t.join()
    with pytest.raises(ConfigError, match="^seeds = 0"):
        hostio.sweep("quickstart", AXES, seeds=0, progress=False)


def test_axis_values_read_numbers_as_set_does():
    """``--set`` reads TOML numbers (``+2``, ``1_0``, ``0x600``, ``nan``); an axis value does too,
    besides JSON and bare words."""
    assert sweep.parse_axis("apps.fwd.cores=+3,1_0,0X2") == ("apps.fwd.cores", [3, 10, 2])
    assert sweep.parse_axis("platform.ddio_mask=0x600,1536") == ("platform.ddio_mask", [0x600, 1536])
    key, (v,) = sweep.parse_axis("traffic.t0.rate_gbps=nan")
    assert v != v
    assert sweep.parse_axis('platform.replacement=lru,"plru",true') == ("platform.replacement", ["lru", "plru", True])
    # text that is no number stays text, as --set takes it (a NIC named 25g)
    assert sweep.parse_axis("traffic.t0.nic=100g,25g") == ("traffic.t0.nic", ["100g", "25g"])


@pytest.mark.parametrize("cmd,theirs", [(["sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128", *SHORT_CLI], "table.csv"),
                                        (["reproduce", "--quick", "--only", "pause", "--seeds", "1", "--quiet"], "summary.md")])
def test_a_folder_of_someone_elses_files_is_not_written_into(tmp_path, cmd, theirs):
    """A folder hostio did not write (no sweep.json, no points/) that holds a file of a name hostio
    writes: it refuses instead of replacing it."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / theirs).write_text("precious")
    (out / "notes.txt").write_text("mine too")  # a file of another name is no obstacle
    one_line_error(cli(*cmd, "--out", str(out)), "--out", "a new folder, or one", theirs, "would replace")
    assert sorted(p.name for p in out.iterdir()) == sorted([theirs, "notes.txt"]) and (out / theirs).read_text() == "precious"


def test_a_report_of_an_interrupted_reproduction_says_how_to_finish_it(tmp_path):
    (tmp_path / "points" / "fig2").mkdir(parents=True)
    (tmp_path / "points" / "fig2" / "points.jsonl").write_text("")
    one_line_error(cli("report", str(tmp_path)), "no summary.md yet", "again finishes it")
    empty = tmp_path / "empty"
    empty.mkdir()
    one_line_error(cli("report", str(empty)), "reproduce --out (summary.md)")
    assert list(empty.iterdir()) == []


def test_seeds_as_a_numpy_array_and_an_experiment_named_twice():
    import numpy as np

    df = hostio.sweep("quickstart", AXES, set=SHORT, seeds=np.array([1, 2]), progress=False)
    assert sorted(df["seed"]) == [1, 1, 2, 2]
    with pytest.raises(ConfigError, match="seeds"):
        hostio.sweep("quickstart", AXES, set=SHORT, seeds=np.array([[1, 2]]), progress=False)
    one_line_error(cli("reproduce", "--only", "pause,pause", "--out", "x", cwd="/"), "--only = 'pause,pause': each experiment id once")


def test_load_without_the_run_log_reads_the_finished_table_or_gives_the_columns(tmp_path):
    out = tmp_path / "s"
    done = hostio.sweep("quickstart", AXES, set=SHORT, out=out, jobs=1, progress=False)
    # Another sweep's finished table in the folder is not this one's results.
    other = tmp_path / "o"
    hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [512]}, set=SHORT, out=other, jobs=1, progress=False)
    shutil.copy(out / "results.parquet", tmp_path / "mine.parquet")
    shutil.copy(other / "results.parquet", out / "results.parquet")
    (out / "points.jsonl").unlink()
    df = hostio.load(out)
    assert len(df) == 0 and list(df.columns)[0] == "nics.nic0.rx_descriptors"
    shutil.copy(tmp_path / "mine.parquet", out / "results.parquet")
    loaded = hostio.load(out)
    assert loaded.shape == done.shape and loaded.attrs["complete"]
    # A table with a failed point is the sweep's, but not complete.
    import pandas as pd

    table = pd.read_parquet(out / "results.parquet")
    table.loc[1, "error"] = "boom"
    table.to_parquet(out / "results.parquet", index=False)
    assert not hostio.load(out).attrs["complete"]
    (out / "results.parquet").unlink()
    df = hostio.load(out)
    assert len(df) == 0 and list(df.columns) == ["nics.nic0.rx_descriptors", "seed", "point_id", "scenario_hash", "error"]


def test_a_marker_hostio_did_not_write_does_not_make_a_folder_hostios(tmp_path):
    """A sweep.json that is not a sweep's manifest, or a points/ that holds no runs, does not
    let hostio replace the user's files beside it."""
    s = tmp_path / "s"
    s.mkdir()
    (s / "sweep.json").write_text('{"my": "own notes"}')
    (s / "table.csv").write_text("user,data\n")
    one_line_error(cli("sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128", *SHORT_CLI, "--out", str(s)), "would replace", "sweep.json")
    r = tmp_path / "r"
    (r / "points").mkdir(parents=True)
    (r / "summary.md").write_text("my summary\n")
    one_line_error(cli("reproduce", "--quick", "--only", "pause", "--seeds", "1", "--quiet", "--out", str(r)), "would replace", "summary.md")
    assert (s / "sweep.json").read_text() == '{"my": "own notes"}' and (r / "summary.md").read_text() == "my summary\n"
    assert not (s / ".lock").exists() and not (r / ".lock").exists()


def test_odd_folder_contents_give_one_line_errors(tmp_path):
    o = tmp_path / "o"
    hostio.sweep("quickstart", AXES, set=SHORT, out=o, jobs=1, progress=False)
    (o / ".lock").unlink()
    (o / "table.csv").unlink()
    (o / "table.csv").mkdir()  # a folder where a file goes: refused before the lock file
    one_line_error(cli("sweep", "quickstart", "--axis", "nics.nic0.rx_descriptors=128,256", *SHORT_CLI, "--out", str(o)), "--out", "table.csv")
    assert not (o / ".lock").exists()
    r = tmp_path / "r"
    r.mkdir()
    (r / "points").write_text("mine")
    one_line_error(cli("reproduce", "--quick", "--only", "pause", "--quiet", "--out", str(r)), "points is a file here")
    p = tmp_path / "p"
    p.mkdir()
    (p / "summary.md").write_text("# t\n\n|---|\n|---|\n\ntext\n")  # a table of separator rows only
    assert cli("report", str(p), "--out", str(p / "r.html"), timeout=30).returncode == 0


def test_reproduce_replaces_a_linked_summary_instead_of_writing_through_it(tmp_path):
    out = tmp_path / "r"
    cmd = ["reproduce", "--quick", "--only", "pause", "--seeds", "1", "--quiet", "--out", str(out)]
    assert cli(*cmd).returncode == 0
    mine = tmp_path / "mine.txt"
    mine.write_text("mine")
    (out / "summary.md").unlink()
    (out / "summary.md").symlink_to(mine)
    (out / "pause.png").unlink()
    (out / "pause.png").symlink_to(mine)
    (out / "points" / ".DS_Store").write_text("")  # a stray file does not make the folder someone else's
    assert cli(*cmd).returncode == 0
    assert mine.read_text() == "mine" and not (out / "summary.md").is_symlink() and not (out / "pause.png").is_symlink()


def test_axis_values_split_outside_quotes_and_brackets_and_integers_stay_in_tomls_range():
    assert sweep.parse_axis('nics.nic0.design="a,b",cx5') == ("nics.nic0.design", ["a,b", "cx5"])
    assert sweep.parse_axis('k=[1,2],{"a":1,"b":2},"q\\"x,y"') == ("k", [[1, 2], {"a": 1, "b": 2}, 'q"x,y'])
    for bad in ('k="abc,def', "k=x[,y"):
        with pytest.raises(ConfigError, match="closed"):
            sweep.parse_axis(bad)
    with pytest.raises(ConfigError, match="TOML"):
        sweep.check_axes({"nics.nic0.rx_descriptors": [2 ** 63]})


def test_a_name_lookup_that_hangs_is_given_up_in_time(monkeypatch):
    monkeypatch.setattr(sweep, "CONNECT_S", 1)
    monkeypatch.setattr(sweep, "_lookup", lambda host, port: time.sleep(5))
    t0 = time.monotonic()
    with pytest.raises(ConfigError, match="looking up 'slow.example' took over 1 s"):
        sweep._probe("tcp://slow.example:8786")
    assert time.monotonic() - t0 < 3
