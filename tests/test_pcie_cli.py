"""``hostio pcie`` commands: the JSON/CSV contracts scripts depend on, tables, plots, bad input."""
from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hostio.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *argv):
    rc = main(list(argv))
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_bandwidth_json_contract(capsys):
    rc, out, _ = run(capsys, "pcie", "bandwidth", "--gen", "3", "--lanes", "8", "--mps", "256", "--mrrs", "512",
                     "--size", "64,1500", "--json", "-")
    assert rc == 0
    rows = json.loads(out)
    assert [r["size"] for r in rows] == [64, 1500]
    for key in ("size", "raw_gbps", "tlp_gbps", "write_gbps", "read_gbps", "read_write_gbps", "write_tps",
                "read_tps", "read_write_tps"):
        assert key in rows[0]
    assert f"{rows[0]['write_gbps']:.6f}" == "42.098011"
    assert f"{rows[1]['read_gbps']:.6f}" == "53.597005"


def test_bandwidth_options_change_the_numbers(capsys):
    base = json.loads(run(capsys, "pcie", "bandwidth", "--size", "1500", "--json", "-")[1])[0]
    for opt in (["--ecrc"], ["--addr", "32"], ["--rcb-chunks"], ["--rcb", "128", "--rcb-chunks"], ["--gen", "gen4"],
                ["--lanes", "x16"]):
        other = json.loads(run(capsys, "pcie", "bandwidth", "--size", "1500", "--json", "-", *opt)[1])[0]
        assert other != base, opt


def test_bandwidth_csv_sweep(capsys):
    rc, out, _ = run(capsys, "pcie", "bandwidth", "--size", "64:1500:64", "--csv", "-")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rc == 0 and len(rows) == len(range(64, 1501, 64))
    assert rows[0]["size"] == "64"


def test_nic_json_contract(capsys):
    rc, out, _ = run(capsys, "pcie", "nic", "--design", "dpdk", "--frame", "64,1518", "--vlan", "--json", "-")
    rows = json.loads(out)
    assert rc == 0 and [r["frame"] for r in rows] == [64, 1518]
    for key in ("bidir_gbps", "tx_gbps", "rx_gbps", "line_rate_gbps"):
        assert rows[0][key] > 0


def test_nic_explain_lists_transactions(capsys):
    rc, out, _ = run(capsys, "pcie", "nic", "--design", "kernel", "--frame", "1518", "--explain")
    assert rc == 0
    for name in ("tx_desc_read_req", "rx_desc_read_req", "rx_head_read_cpl", "tx_msi"):
        assert name in out


def test_compat_differs_only_where_documented(capsys):
    fixed = json.loads(run(capsys, "pcie", "nic", "--design", "simple", "--frame", "64", "--json", "-")[1])[0]
    compat = json.loads(run(capsys, "pcie", "nic", "--design", "simple", "--frame", "64", "--json", "-",
                            "--pciebench-compat")[1])[0]
    assert compat["tx_gbps"] == fixed["tx_gbps"]
    assert compat["rx_gbps"] > fixed["rx_gbps"]


def test_link_for_json_and_none(capsys):
    rc, out, _ = run(capsys, "pcie", "link-for", "--rate-gbps", "40", "--size", "1500", "--json", "-")
    assert rc == 0 and json.loads(out)["achieved_gbps"] >= 40
    rc, out, _ = run(capsys, "pcie", "link-for", "--rate-gbps", "1e6", "--size", "64")
    assert rc == 1 and "no gen" in out


def test_bench_json_keys(capsys):
    rc, out, _ = run(capsys, "pcie", "bench", "--test", "BW_WR", "--size", "64", "--window", "64M", "--cache", "cold",
                     "--iommu", "--no-superpages", "--json", "-")
    r = json.loads(out)
    assert rc == 0 and r["bw_gbps"] > 0 and r["iotlb_miss_probability"] > 0.99 and r["median_ns"] is None


def test_plot_writes_png(capsys, tmp_path):
    out = tmp_path / "bw.png"
    rc, _, _ = run(capsys, "pcie", "plot", "--out", str(out), "--sizes", "1:512", "--design", "simple,dpdk")
    assert rc == 0 and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv,msg", [
    (["bandwidth", "--mps", "192", "--size", "64"], "--mps = 192: one of 128, 256, 512, 1024, 2048, 4096"),
    (["bandwidth", "--gen", "8", "--size", "64"], "--gen = 8: one of 1, 2, 3, 4, 5, 6, 7"),
    (["bandwidth", "--lanes", "3", "--size", "64"], "--lanes = 3: one of 1, 2, 4, 8, 16, 32"),
    (["bandwidth", "--lanes", "many", "--size", "64"], "--lanes = 'many'"),
    (["bandwidth", "--size", "0"], "--size = 0"),
    (["bandwidth", "--size", "64K!"], "--size = '64K!'"),
    (["nic", "--design", "smart", "--frame", "64"], "--design = 'smart'"),
    (["nic", "--design", "dpdk", "--frame", "32"], "--frame = 32"),
    (["nic", "--design", "dpdk", "--frame", "64", "--eth-gbps", "fast"], "--eth-gbps = 'fast'"),
    (["link-for", "--rate-gbps", "-3", "--size", "64"], "--rate-gbps = '-3'"),
    (["link-for", "--rate-gbps", "3", "--size", "64", "--op", "copy"], "--op = 'copy'"),
    (["bench", "--test", "LAT_XX", "--size", "64", "--window", "8K"], "--test = 'LAT_XX'"),
    (["bench", "--test", "LAT_RD", "--size", "64", "--window", "8K", "--cache", "hot"], "--cache = 'hot'"),
    (["bench", "--test", "LAT_RD", "--size", "64", "--window", "8K", "--numa", "far"], "--numa = 'far'"),
    (["latency", "--size", "64", "--location", "l4"], "--location = 'l4'"),
    (["plot", "--out", "x.svg"], "--out = 'x.svg'"),
])
def test_bad_input_is_one_line_exit_2(capsys, argv, msg):
    rc, out, err = run(capsys, "pcie", *argv)
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith("hostio: error: ")
    assert msg in err, err
    assert "Traceback" not in err


def test_bad_input_through_the_installed_command():
    exe = Path(sys.executable).with_name("hostio")
    if not exe.exists():
        pytest.skip("hostio console script not installed")
    p = subprocess.run([str(exe), "pcie", "bandwidth", "--mps", "192", "--size", "64"], capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr


def test_validation_report_command(capsys, tmp_path):
    data = [ROOT / "shared/validation/pcie-bench", ROOT.parent / "shared/validation/pcie-bench"]
    if not any((d / "nfp6000-1.2GHz_hsw-Xeon-E5-2620v3_dell-t630").is_dir() for d in data):
        pytest.skip("pcie-bench data set not available")
    rc, out, _ = run(capsys, "pcie", "validate", "--out", str(tmp_path))
    assert rc == 0
    # The terminal's error summary gives each row's unit, as the written README does.
    assert re.search(r"latency vs size \(median\) +n= *\d+ median \|e\| +[\d.]+ ns", out), out
    assert re.search(r"BW vs window \(%\) +n= *\d+ median \|e\| +[\d.]+ %", out), out
    text = (tmp_path / "README.md").read_text()
    assert "## Error summary" in text and "## G. Published findings" in text
    assert sorted(p.name for p in tmp_path.glob("*.png")) == ["bw_vs_size.png", "bw_vs_window.png", "lat_cdf.png",
                                                              "lat_vs_size.png", "lat_vs_window.png"]


def test_validation_report_without_the_data_set_says_where_it_comes_from(capsys, tmp_path, monkeypatch):
    # A clone with no data set next to it: nothing found under the checkout.
    monkeypatch.delenv("HOSTIO_PCIE_BENCH_DATA", raising=False)
    import runpy

    mod = runpy.run_path(str(ROOT / "validation/pcie/report.py"))
    is_dir = Path.is_dir
    monkeypatch.setattr(Path, "is_dir", lambda self: False if "pcie-bench" in str(self) else is_dir(self))
    assert mod["find_data"](None) is None
    rc, out, err = run(capsys, "pcie", "validate", "--out", str(tmp_path / "new"))
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "--data = '(not given)'" in err and "github.com/pcie-bench/data" in err and "HOSTIO_PCIE_BENCH_DATA" in err
    assert not (tmp_path / "new").exists()
    # The variable, when set, is the one place looked at, and is named.
    monkeypatch.setenv("HOSTIO_PCIE_BENCH_DATA", str(tmp_path))
    rc, out, err = run(capsys, "pcie", "validate", "--out", str(tmp_path / "new"))
    assert rc == 2 and err.startswith(f"hostio: error: HOSTIO_PCIE_BENCH_DATA = '{tmp_path}': a folder holding"), err
    assert not (tmp_path / "new").exists()


def test_validation_report_on_a_data_folder_it_may_not_read_names_data(capsys, tmp_path, monkeypatch):
    # As a user without read access (root is not refused, so the refusal is simulated).
    import pathlib

    real = pathlib.Path.is_dir

    def is_dir(self):
        if str(self).startswith(str(tmp_path / "data")):
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)
    monkeypatch.setattr(pathlib.Path, "is_dir", is_dir)
    (tmp_path / "data").mkdir()
    rc, out, err = run(capsys, "pcie", "validate", "--out", str(tmp_path / "new"), "--data", str(tmp_path / "data"))
    assert rc == 2 and err.count("\n") == 1, err
    assert err.startswith(f"hostio: error: --data = '{tmp_path / 'data'}': a folder holding the data set that this user may read"), err
    assert "Permission denied" in err and not (tmp_path / "new").exists()


def test_validation_report_on_damaged_data_writes_nothing(capsys, tmp_path):
    import shutil

    data = next((d for d in (ROOT / "shared/validation/pcie-bench", ROOT.parent / "shared/validation/pcie-bench")
                 if (d / "nfp6000-1.2GHz_hsw-Xeon-E5-2620v3_dell-t630").is_dir()), None)
    if data is None:
        pytest.skip("pcie-bench data set not available")
    bad = tmp_path / "data"
    shutil.copytree(data, bad)
    sweep_csv = bad / "nfp6000-1.2GHz_hsw-Xeon-E5-2620v3_dell-t630" / "bw_dma_sz_sweep.csv"
    text = sweep_csv.read_text()
    # A row too short, no rows, another separator, a cell that is no finite number.
    first = text.splitlines()[1].split(",")
    nan_row = ",".join(first[:11] + ["nan"] + first[12:])  # its BW (GB/s)
    neg_row = ",".join(first[:11] + ["-5"] + first[12:])  # a negative bandwidth
    for damage in (text + "garbage\n", "", text.replace(",", ";", 3), text.replace(text.splitlines()[1], nan_row, 1),
                   text.replace(text.splitlines()[1], neg_row, 1)):
        sweep_csv.write_text(damage)
        rc, out, err = run(capsys, "pcie", "validate", "--out", str(tmp_path / "new"), "--data", str(bad))
        assert rc == 2 and err.count("\n") == 1 and "--data = " in err and "Traceback" not in err, err
        # The damaged file is named, with the line (and the column) when a row is at fault.
        assert "bw_dma_sz_sweep.csv" in err, err
        assert not (tmp_path / "new").exists()
        # An existing folder keeps what it had, and gets no half report.
        if damage and "nan" in damage:
            assert "bw_dma_sz_sweep.csv:2 column 'BW (GB/s)': a measurement" in err, err
        elif damage.endswith("garbage\n"):
            assert f"bw_dma_sz_sweep.csv:{len(text.splitlines()) + 1}: 1 cell where the header has 13" in err, err
        (tmp_path / "old").mkdir(exist_ok=True)
        (tmp_path / "old" / "keep.txt").write_text("x")
        rc, out, err = run(capsys, "pcie", "validate", "--out", str(tmp_path / "old"), "--data", str(bad))
        assert rc == 2 and sorted(p.name for p in (tmp_path / "old").iterdir()) == ["keep.txt"]
    # A cell the report looks up, a bandwidth it divides by, bytes that are not text, a renamed
    # column: each named with its file and line (and column).
    lines = text.splitlines()
    head = lines[0].split(",")
    bw, cache = head.index("BW (GB/s)"), head.index("Cache")

    def cell(i, v):
        r = lines[1].split(",")
        r[i] = v
        return text.replace(lines[1], ",".join(r), 1)
    for damage, said in ((cell(cache, "Warmish"), "bw_dma_sz_sweep.csv:2 column 'Cache': 'Warmish', not one of HWarm"),
                         (cell(bw, "0"), "bw_dma_sz_sweep.csv:2 column 'BW (GB/s)': a measurement that is not a number above 0"),
                         (cell(bw, "1e308"), "bw_dma_sz_sweep.csv:2 column 'BW (GB/s)': a measurement that is not a number above 0 up to 1e+12"),
                         (cell(head.index("Test"), "BW_FOO"), "bw_dma_sz_sweep.csv:2 column 'Test': 'BW_FOO', not one of BW_DMA_RD"),
                         (cell(head.index("SZ"), "4.7"), "bw_dma_sz_sweep.csv:2 column 'SZ': a byte count that is not a whole number"),
                         (cell(head.index("WinSZ"), "0"), "bw_dma_sz_sweep.csv:2 column 'WinSZ': a byte count that is not a whole number"),
                         ("\n".join(lines[:3]).encode() + b"\n" + lines[3].encode()[:20] + b"\xff\xfe\n", "bw_dma_sz_sweep.csv:4: not UTF-8 text"),
                         (text.replace("BW (GB/s)", "BW", 1), "bw_dma_sz_sweep.csv:1: the header has no column 'BW (GB/s)'"),
                         (text.replace("PAT", "Cache", 1), "bw_dma_sz_sweep.csv:1: the header names 'Cache' more than once"),
                         (lines[0].replace("PAT", "Cache", 1) + "\n", "bw_dma_sz_sweep.csv:1: the header names 'Cache' more than once"),
                         (cell(head.index("SZ"), str(2**31)), "column 'SZ': a byte count that is not a whole number in 1..=1073741824"),
                         (b"\xef\xbb\xbf" + "\r\n".join(lines[:3]).encode() + b"\r\n\xff\r\n", "bw_dma_sz_sweep.csv:4: not UTF-8 text"),
                         ("\n".join(lines[:2]) + '\n"' + "x" * 200_000 + '",1\n', "bw_dma_sz_sweep.csv:3: not CSV (field larger")):
        if isinstance(damage, bytes):
            sweep_csv.write_bytes(damage)
        else:
            sweep_csv.write_text(damage)
        rc, out, err = run(capsys, "pcie", "validate", "--out", str(tmp_path / "new"), "--data", str(bad))
        assert rc == 2 and err.count("\n") == 1 and said in err, err
        assert not (tmp_path / "new").exists()
    # A byte-order mark is not part of the first column's name.
    sweep_csv.write_bytes(b"\xef\xbb\xbf" + text.encode())
    rc, out, err = run(capsys, "pcie", "validate", "--out", str(tmp_path / "new"), "--data", str(bad))
    assert rc == 0, err
    shutil.rmtree(tmp_path / "new")
    # A latency test pcie-bench does not have is not taken for one it has.
    lat_csv = sweep_csv.with_name("lat_dma_sizes.csv")
    lat_text = lat_csv.read_text()
    lat_csv.write_text(lat_text.replace("LAT_DMA_WRRD", "LAT_DMA_FOO", 1))
    rc, out, err = run(capsys, "pcie", "validate", "--out", str(tmp_path / "new"), "--data", str(bad))
    assert rc == 2 and "lat_dma_sizes.csv:" in err and "column 'Test': 'LAT_DMA_FOO', not one of LAT_DMA_RD" in err, err
    lat_csv.write_text(lat_text)
    # Every folder a failed run made goes again; a missing file names --data.
    sweep_csv.unlink()
    rc, out, err = run(capsys, "pcie", "validate", "--out", str(tmp_path / "n" / "a" / "b"), "--data", str(bad))
    assert rc == 2 and "--data = " in err and "bw_dma_sz_sweep.csv is missing" in err, err
    assert not (tmp_path / "n").exists()
    # A report is not written into the data set.
    sweep_csv.write_text(text)
    inside = bad / "nfp6000-1.2GHz_hsw-Xeon-E5-2620v3_dell-t630"
    before = sorted(p.name for p in inside.iterdir())
    rc, out, err = run(capsys, "pcie", "validate", "--out", str(inside), "--data", str(bad))
    assert rc == 2 and "--out = " in err and "outside the pcie-bench data set" in err, err
    assert sorted(p.name for p in inside.iterdir()) == before
    sweep_csv.unlink()
    # A FIFO in its place is refused, not waited on.
    os.mkfifo(sweep_csv)
    rc, out, err = run(capsys, "pcie", "validate", "--out", str(tmp_path / "new"), "--data", str(bad))
    assert rc == 2 and "bw_dma_sz_sweep.csv is not a regular file" in err, err


@pytest.mark.parametrize("args, line", [
    (["latency", "--kind", "mmio_read", "--size", "64", "--location", "dram"], "--location = 'dram': left out for mmio_read"),
    (["latency", "--kind", "mmio_write", "--size", "64", "--engine", "cmd"], "--engine = 'cmd': left out for mmio_write"),
    (["latency", "--kind", "mmio_read", "--size", "64", "--iommu"], "--iommu = True: left out for mmio_read"),
    (["latency", "--kind", "mmio_read", "--size", "64", "--iotlb-miss"], "--iotlb-miss = True: left out for mmio_read"),
    (["bench", "--test", "BW_RD", "--size", "64", "--window", "8K", "--no-superpages"],
     "--no-superpages = True: left out without the IOMMU (--iommu)"),
])
def test_options_that_would_change_nothing_are_refused(capsys, args, line):
    rc, out, err = run(capsys, "pcie", *args)
    assert rc == 2 and out == "" and err.startswith("hostio: error: " + line), err
