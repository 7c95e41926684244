"""hostio report: one self-contained HTML page for a sweep or a reproduce folder."""
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import hostio
from hostio import report, sweep

SHORT = ["run.duration_us=200", "run.warmup_us=200"]


class Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs, self.tags, self.imgs = [], set(), 0

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.imgs += tag == "img"
        for k, v in attrs:
            if k in ("src", "href", "srcset", "data", "action", "poster") and v is not None:
                self.refs.append(v)


def check_self_contained(page: str) -> Refs:
    p = Refs()
    p.feed(page)
    assert p.imgs >= 1
    assert all(r.startswith("data:image/png;base64,") for r in p.refs), [r[:40] for r in p.refs]
    assert not {"script", "link", "iframe", "object", "embed"} & p.tags
    assert not re.search(r"url\(|@import|https?://", page, re.I)
    return p


def cli(*args):
    return subprocess.run([sys.executable, "-m", "hostio", *args], capture_output=True, text=True)


def test_sweep_report_with_heat_maps(tmp_path):
    out = tmp_path / "sw"
    hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128, 4096], "platform.ddio_ways": [2, 4], "traffic.t0.packet_size": [512, 1500]},
                 set=SHORT, seeds=2, out=out, jobs=2, progress=False)
    p = cli("report", str(out), "--out", str(tmp_path / "r.html"))
    assert p.returncode == 0, p.stderr
    page = (tmp_path / "r.html").read_text()
    refs = check_self_contained(page)
    assert refs.imgs == len(report.FIGURE_METRICS)  # one heat-map grid per metric
    assert "<code>traffic.t0.packet_size</code>" in page and "[platform]" in page and "pyarrow" in page
    assert "16 of 16 runs (8 points × 2 seeds) (complete); 16 ran, 0 failed" in page


def test_a_metric_the_points_lack_is_drawn_empty_without_warnings(tmp_path):
    # PCIe hit rates are null for a memory-channel NIC: their heat maps have no value to show.
    out = tmp_path / "sw"
    hostio.sweep("quickstart", {"traffic.t0.packet_size": [512, 1500], "nics.nic0.rx_descriptors": [128, 512]},
                 set=SHORT + ['nics.nic0.attachment="memory-channel"'], seeds=1, out=out, jobs=1, progress=False)
    p = cli("report", str(out), "--out", str(tmp_path / "r.html"))
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert check_self_contained((tmp_path / "r.html").read_text()).imgs == len(report.FIGURE_METRICS)


def test_one_axis_report_draws_the_spread(tmp_path):
    out = tmp_path / "sw"
    hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128, 512, 4096]}, set=SHORT, seeds=2, out=out, jobs=1, progress=False)
    report.write(out, tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text()
    assert check_self_contained(page).imgs == 1
    assert "rx_descriptors" in page and "min" in page


def test_reproduce_folder_report(tmp_path):
    p = cli("reproduce", "--only", "pause", "--quick", "--out", str(tmp_path), "--quiet")
    assert p.returncode == 0, p.stderr
    p = cli("report", str(tmp_path))
    assert p.returncode == 0, p.stderr
    page = (tmp_path / "report.html").read_text()
    check_self_contained(page)
    assert "PAUSE" in page and "<table>" in page and "Scenarios" in page and "pause.csv" in page


def test_report_of_a_folder_that_is_neither(tmp_path):
    p = cli("report", str(tmp_path))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "sweep.json" in p.stderr


def test_makefile_writes_the_report_next_to_the_summary():
    mk = (Path(__file__).parent.parent / "Makefile").read_text()
    assert "hostio report out/ddio --out out/ddio/report.html" in mk


def test_report_out_writes_through_special_files_and_keeps_user_tmp(tmp_path):
    import os
    import stat

    out = tmp_path / "sw"
    hostio.sweep("quickstart", {"nics.nic0.rx_descriptors": [128, 256]}, set=SHORT, out=out, jobs=1, progress=False)
    target = tmp_path / "target.html"
    link = tmp_path / "link.html"
    link.symlink_to(target)
    (tmp_path / "r.html.tmp").write_text("mine\n")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
    # a FIFO stands for every special file (a device such as /dev/null takes the same path; writing
    # one here would replace it if this ever broke, so the test does not)
    for dest in (str(link), str(tmp_path / "r.html"), str(fifo)):
        p = cli("report", str(out), "--out", dest)
        assert p.returncode == 0, p.stderr
    assert "<!DOCTYPE html>" in reader.communicate(timeout=30)[0]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert link.is_symlink() and os.readlink(link) == str(target) and "<!DOCTYPE html>" in target.read_text()
    assert (tmp_path / "r.html.tmp").read_text() == "mine\n"
    p = subprocess.run([sys.executable, "-m", "hostio", "report", "sw", "--out", "-"], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.startswith("<!DOCTYPE html>"), p.stderr  # - is stdout, not a file named -
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.html", "pipe", "r.html", "r.html.tmp", "sw", "target.html"]


def test_report_out_is_checked_before_the_work(tmp_path):
    p = cli("report", str(tmp_path / "not-a-sweep"), "--out", str(tmp_path))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "--out" in p.stderr and "not a directory" in p.stderr, p.stderr
    p = cli("report", str(tmp_path), "--out", str(tmp_path / "no" / "r.html"))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "does not exist" in p.stderr, p.stderr
    assert list(tmp_path.iterdir()) == []


def test_reproduce_page_shows_the_first_point_whatever_finished_first(tmp_path):
    import json

    log = tmp_path / "points" / "fig0" / "points.jsonl"
    log.parent.mkdir(parents=True)

    def rec(index, seed, name):
        metrics = {k: 0 for k in sweep._RECORD_METRICS} | {"latency_ns": dict.fromkeys(sweep._LATENCY_KEYS), "apps": {}}
        return {"index": index, "id": f"id{index}", "overrides": [],
                "result": {"seed": seed, "events": 0, "scenario_hash": "h", "metrics": metrics, "scenario": {"name": name}}}

    # completion order: the second point's seed 2, then its seed 1, then the first point
    log.write_text("".join(json.dumps(r) + "\n" for r in (rec(3, 2, "late"), rec(2, 1, "second"), rec(0, 1, "first"))))
    assert report._scenarios(tmp_path) == {"fig0": {"name": "first"}}


def test_heat_maps_put_numeric_axes_in_ascending_order(monkeypatch):
    import matplotlib.axes
    import pandas as pd

    ticks = []
    real = matplotlib.axes.Axes.set_yticks

    def record(self, pos, labels=None, **kw):
        ticks.append(list(labels or []))
        return real(self, pos, labels, **kw)

    monkeypatch.setattr(matplotlib.axes.Axes, "set_yticks", record)
    axes = {"nics.nic0.rx_descriptors": [128, 1024, 4096, 512], "traffic.t0.flows": ["a", "b"]}
    ok = pd.DataFrame([{"nics.nic0.rx_descriptors": d, "traffic.t0.flows": f, "seed": 1, "throughput_gbps": float(d)}
                       for d in axes["nics.nic0.rx_descriptors"] for f in axes["traffic.t0.flows"]])
    report._sweep_figures(ok, axes, list(axes), [("throughput_gbps", "throughput")])
    assert ["128", "512", "1024", "4096"] in ticks, ticks


def test_a_figures_table_is_read_only_from_the_folder(tmp_path):
    folder = tmp_path / "rep"
    folder.mkdir()
    (folder / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "secret.csv").write_text("key\nXYZ123\n")
    (folder / "a.csv").symlink_to(tmp_path / "secret.csv")
    page = report.markdown("![a](a.png)", folder)
    assert "XYZ123" not in page and "a.csv" not in page
    (folder / "a.csv").unlink()
    (folder / "a.csv").write_text("key\nmine\n")
    assert "mine" in report.markdown("![a](a.png)", folder)
