"""Bad input to ``hostio pcie``: one line naming the option as typed, the value typed and what is
allowed; exit 2; nothing written. Outputs the user asks for are all written."""
from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest

from hostio import pcie, pcie_cli
from hostio.cli import main
from hostio.errors import ConfigError

PNG = b"\x89PNG\r\n\x1a\n"


def run(capsys, *argv):
    rc = main(["pcie", *argv])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def one_line_error(capsys, *argv):
    rc, out, err = run(capsys, *argv)
    assert rc == 2, (rc, err)
    assert err.count("\n") == 1 and err.startswith("hostio: error: ") and "Traceback" not in err, err
    return err.strip()


# ---- --json and --csv together -------------------------------------------------------------------

@pytest.mark.parametrize("argv", [["bandwidth", "--size", "64,1500"],
                                  ["nic", "--design", "dpdk", "--frame", "64,1518"]])
def test_json_and_csv_together_write_both(capsys, tmp_path, argv):
    j, c = tmp_path / "out.json", tmp_path / "out.csv"
    rc, out, _ = run(capsys, *argv, "--json", str(j), "--csv", str(c))
    assert rc == 0 and out == ""
    rows = json.loads(j.read_text())
    table = list(csv.DictReader(c.open()))
    assert len(rows) == len(table) == 2
    assert [str(r[k]) for r in rows for k in table[0]] == [r[k] for r in table for k in table[0]]


def test_json_and_csv_to_one_destination_are_refused(capsys, tmp_path):
    line = one_line_error(capsys, "bandwidth", "--size", "64", "--json", "-", "--csv", "-")
    assert "--csv = '-'" in line and "--json" in line
    same = tmp_path / "out"
    line = one_line_error(capsys, "bandwidth", "--size", "64", "--json", str(same), "--csv", f"{tmp_path}/./out")
    assert "--csv = " in line and "--json" in line
    assert list(tmp_path.iterdir()) == []


# ---- size options: the option and the text typed ------------------------------------------------

@pytest.mark.parametrize("argv,message", [
    (["plot", "--sizes", "0:10"], "--sizes = '0:10': a positive byte count"),
    (["bandwidth", "--size", "0"], "--size = 0: a positive byte count"),
    (["bandwidth", "--size", "64,2G"], "--size = '64,2G': a byte count in 1..=1073741824"),
    (["bandwidth", "--size", "64,abc"], "--size = '64,abc': a byte count of at most 1 TiB such as 64, 4K"),
    (["bandwidth", "--size", "64:32"], "--size = '64:32': ranges A:B[:STEP] with A ≤ B"),
    (["nic", "--design", "dpdk", "--frame", "32"], "--frame = 32: an Ethernet frame size in 64..=65536 bytes"),
    (["nic", "--design", "dpdk", "--frame", "64:70000:1000"], "--frame = '64:70000:1000': an Ethernet frame size"),
    (["link-for", "--rate-gbps", "10", "--size", "2G"], "--size = '2G': a byte count in 1..=1073741824"),
    (["latency", "--size", "0"], "--size = 0: a positive byte count"),
    (["bench", "--test", "LAT_RD", "--size", "100000", "--window", "1G"],
     "--size = 100000: a transfer size in 1..=65536"),
    (["bench", "--test", "LAT_RD", "--size", "64", "--window", "32"], "--window = 32: a buffer of at least"),
])
def test_size_errors_name_the_option_and_the_value_typed(capsys, tmp_path, argv, message):
    if argv[0] == "plot":
        argv = argv + ["--out", str(tmp_path / "p.png")]
    assert message in one_line_error(capsys, *argv)
    assert list(tmp_path.iterdir()) == []


def test_plot_sizes_beyond_ethernet_frames_draw_the_line_rate_where_it_exists(capsys, tmp_path):
    # Sizes whose frame (size + FCS) exceeds the largest Ethernet frame still have a bandwidth.
    out = tmp_path / "p.png"
    rc, _, err = run(capsys, "plot", "--sizes", "60000:80000:500", "--design", "dpdk", "--out", str(out))
    assert rc == 0, err
    assert out.read_bytes()[:8] == PNG


def test_a_huge_number_is_a_one_line_error(capsys):
    assert "--size = '1" in one_line_error(capsys, "bandwidth", "--size", "1" + "0" * 5000)


# ---- plot --out ----------------------------------------------------------------------------------

def test_plot_takes_an_upper_case_png_extension(capsys, tmp_path):
    out = tmp_path / "P.PNG"
    rc, _, err = run(capsys, "plot", "--sizes", "64:1500:64", "--out", str(out))
    assert rc == 0, err
    assert out.read_bytes()[:8] == PNG


def test_plot_out_is_checked_before_any_work(capsys, tmp_path, monkeypatch):
    def no_work(*args, **kwargs):
        raise AssertionError("the model ran before --out was checked")

    monkeypatch.setattr(pcie, "bandwidth", no_work)
    missing = tmp_path / "no" / "p.png"
    line = one_line_error(capsys, "plot", "--out", str(missing))
    assert line == (f"hostio: error: --out = '{missing}': "
                    f"a path in an existing directory ({missing.parent} does not exist)")
    assert "--out = 'x.svg': a .png file name" in one_line_error(capsys, "plot", "--out", "x.svg")


def test_plot_out_through_the_command(tmp_path):
    p = subprocess.run([sys.executable, "-m", "hostio", "pcie", "plot", "--out", str(tmp_path / "no" / "p.png")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.startswith("hostio: error: --out = ") and p.stderr.count("\n") == 1, p.stderr
    assert list(tmp_path.iterdir()) == []


def test_validate_names_its_options(capsys, tmp_path):
    assert "--data = " in one_line_error(capsys, "validate", "--out", str(tmp_path / "o"), "--data", str(tmp_path))


# ---- units ---------------------------------------------------------------------------------------

def test_units_up_to_tebibytes():
    assert [pcie_cli.parse_bytes("--size", t) for t in ("1k", "1KiB", "1kb", "2M", "1G", "1TiB", "1t")] == \
        [1024, 1024, 1024, 2 << 20, 1 << 30, 1 << 40, 1 << 40]
    with pytest.raises(ConfigError, match=r"^--window = '2TiB': a byte count of at most 1 TiB"):
        pcie_cli.parse_bytes("--window", "2TiB")


def test_a_window_of_one_tebibyte_is_taken(capsys):
    rc, out, err = run(capsys, "bench", "--test", "BW_RD", "--size", "64", "--window", "1TiB", "--json", "-")
    assert rc == 0, err
    assert json.loads(out)["window"] == 1 << 40


# ---- the cap on the number of sizes --------------------------------------------------------------

def test_the_size_cap_counts_the_whole_list():
    assert len(pcie_cli.parse_sizes("--size", "1:1000000")) == 1_000_000
    for text in ("1:1000001", "1:600000,1:600000", "1:500000,1:500000,7", "1:1T"):
        with pytest.raises(ConfigError) as e:
            pcie_cli.parse_sizes("--size", text)
        assert str(e.value) == f"--size = '{text}': at most 1000000 sizes in all (lists and ranges together)"


def test_the_size_cap_on_the_command_line(capsys):
    line = one_line_error(capsys, "bandwidth", "--size", "1:600000,1:600000")
    assert line == ("hostio: error: --size = '1:600000,1:600000': "
                    "at most 1000000 sizes in all (lists and ranges together)")
