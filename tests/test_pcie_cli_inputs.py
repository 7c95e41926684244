"""Bad input to ``hostio pcie``: one line naming the option as typed, the value typed and what is
allowed; exit 2; nothing written. Outputs the user asks for are all written."""
from __future__ import annotations

import csv
import json
import re
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
    (["plot", "--sizes", "0:10"], "--sizes = '0:10': a byte count in 1..=1073741824 (1 GiB)"),
    (["bandwidth", "--size", "0"], "--size = 0: a byte count in 1..=1073741824 (1 GiB)"),
    (["bandwidth", "--size", "64,2G"], "--size = '64,2G': a byte count in 1..=1073741824 (1 GiB)"),
    (["bandwidth", "--size", "64,abc"], "--size = '64,abc': a byte count in 1..=1073741824 (1 GiB) such as 64, 4K"),
    (["bandwidth", "--size", "64:32"], "--size = '64:32': ranges A:B[:STEP] with A ≤ B"),
    (["nic", "--design", "dpdk", "--frame", "32"], "--frame = 32: an Ethernet frame size in 64..=65536 bytes"),
    (["nic", "--design", "dpdk", "--frame", "64:70000:1000"], "--frame = '64:70000:1000': an Ethernet frame size"),
    (["link-for", "--rate-gbps", "10", "--size", "2G"], "--size = '2G': a byte count in 1..=1073741824"),
    (["latency", "--size", "0"], "--size = 0: a byte count in 1..=1073741824 (1 GiB)"),
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
    assert [pcie_cli.parse_bytes("--window", t, limit=pcie.MAX_WINDOW)
            for t in ("1k", "1KiB", "1kb", "2M", "1G", "1TiB", "1t")] == \
        [1024, 1024, 1024, 2 << 20, 1 << 30, 1 << 40, 1 << 40]
    with pytest.raises(ConfigError, match=r"^--window = '2TiB': a byte count in 1\.\.=1099511627776 \(1 TiB\)"):
        pcie_cli.parse_bytes("--window", "2TiB", limit=pcie.MAX_WINDOW)


# ---- one bound per kind of byte count: transfers 1 GiB (the Rust model's), windows 1 TiB ----------

def test_transfer_sizes_are_bounded_at_one_gibibyte_everywhere():
    # The bound the parser states is the one the model enforces: every transfer size, however it is
    # written or wherever it enters, meets the same 1 GiB bound with the same words.
    assert pcie.MAX_TRANSFER == 1 << 30 and pcie.MAX_WINDOW == 1 << 40
    assert pcie_cli.parse_bytes("--size", "1G") == 1 << 30
    allowed = "a byte count in 1..=1073741824 (1 GiB)"
    for text in ("1T", "1025M", "2G"):
        with pytest.raises(ConfigError) as e:
            pcie_cli.parse_bytes("--size", text)
        assert str(e.value).startswith(f"--size = '{text}': {allowed} such as 64, 4K"), str(e.value)
        assert "1 TiB" not in str(e.value) and " T " not in str(e.value)
    for call in (lambda: pcie.bandwidth([(1 << 30) + 1]), lambda: pcie.latency("dma_read", 1 << 40),
                 lambda: pcie.link_for(10, 0)):
        with pytest.raises(ConfigError, match=r"^size = \d+: " + re.escape(allowed) + "$"):
            call()
    with pytest.raises(ConfigError, match=r"^window = \d+: a byte count in 1\.\.=1099511627776 \(1 TiB\)$"):
        pcie.experiment("BW_RD", 64, (1 << 40) + 1)


@pytest.mark.parametrize("argv", [["bandwidth", "--size", "1T"], ["link-for", "--rate-gbps", "10", "--size", "1T"],
                                  ["latency", "--size", "1TiB"], ["bench", "--test", "BW_RD", "--size", "1T",
                                                                    "--window", "1T"]])
def test_a_tebibyte_transfer_is_refused_with_the_gibibyte_bound(capsys, argv):
    assert one_line_error(capsys, *argv) == ("hostio: error: --size = '" + argv[argv.index("--size") + 1] +
                                             "': a byte count in 1..=1073741824 (1 GiB) such as 64, 4K, 256KiB, "
                                             "64M (K, M, G are powers of 1024)")


def test_a_window_of_one_tebibyte_is_taken(capsys):
    rc, out, err = run(capsys, "bench", "--test", "BW_RD", "--size", "64", "--window", "1TiB", "--json", "-")
    assert rc == 0, err
    assert json.loads(out)["window"] == 1 << 40


# ---- the cap on the number of sizes --------------------------------------------------------------

def test_the_size_cap_counts_the_whole_list():
    assert len(pcie_cli.parse_sizes("--size", "1:1000000")) == 1_000_000
    for text in ("1:1000001", "1:600000,1:600000", "1:500000,1:500000,7", "1:1G"):
        with pytest.raises(ConfigError) as e:
            pcie_cli.parse_sizes("--size", text)
        assert str(e.value) == f"--size = '{text}': at most 1000000 sizes in all (lists and ranges together)"


def test_the_size_cap_on_the_command_line(capsys):
    line = one_line_error(capsys, "bandwidth", "--size", "1:600000,1:600000")
    assert line == ("hostio: error: --size = '1:600000,1:600000': "
                    "at most 1000000 sizes in all (lists and ranges together)")


# ---- errors name the option typed, never the API's keyword ----------------------------------------

@pytest.mark.parametrize("argv,line", [
    (["bandwidth", "--size", "64", "--addr", "16"], "--addr = 16: one of 32, 64"),
    (["bandwidth", "--size", "64", "--gen", "gen9"], "--gen = 'gen9': one of 1, 2, 3, 4, 5, 6, 7"),
    (["bandwidth", "--size", "64", "--rcb", "3"], "--rcb = 3: one of 64, 128, 256, 512"),
    (["bandwidth", "--size", "64", "--mrrs", "100"], "--mrrs = 100: one of 128, 256, 512, 1024, 2048, 4096"),
    (["nic", "--design", "dpdk", "--frame", "64", "--eth-gbps", "nan"], "--eth-gbps = 'nan': a line rate in (0, 10000] Gb/s"),
    (["nic", "--design", "dpdk", "--frame", "64", "--eth-gbps", "1e400"],
     "--eth-gbps = '1e400': a line rate in (0, 10000] Gb/s"),
    (["nic", "--design", "", "--frame", "64"], "--design = '': one of simple, kernel, dpdk"),
    (["link-for", "--rate-gbps", "0", "--size", "64"], "--rate-gbps = 0: a positive finite number of Gb/s"),
    (["link-for", "--rate-gbps", "inf", "--size", "64"], "--rate-gbps = 'inf': a positive finite number of Gb/s"),
    (["link-for", "--rate-gbps", "fast", "--size", "64"], "--rate-gbps = 'fast': a positive finite number of Gb/s"),
    (["link-for", "--rate-gbps", "3", "--size", "64", "--op", "a: b"], '--op = \'a: b\': one of "write", "read", "read_write"'),
    (["link-for", "--rate-gbps", "3", "--size", "64", "--mps", "192"], "--mps = 192: one of 128, 256, 512, 1024, 2048, 4096"),
    (["latency", "--size", "64", "--kind", "dma"], '--kind = \'dma\': one of "dma_read", "dma_write", "wrrd", '
                                                   '"mmio_read", "mmio_write"'),
    (["latency", "--size", "64", "--engine", "x"], '--engine = \'x\': one of "dma", "cmd"'),
    (["bench", "--test", "LAT_RD", "--size", "64", "--window", "8K", "--engine", "x"], "--engine = 'x': one of dma, cmd"),
    (["bench", "--test", "LAT_RD", "--size", "100K", "--window", "1G"],
     "--size = '100K': a transfer size in 1..=65536 bytes (pcie-bench uses 4 B..4 KiB)"),
])
def test_errors_name_the_option_typed_not_the_api_key(capsys, argv, line):
    assert one_line_error(capsys, *argv) == "hostio: error: " + line


def test_plot_errors_name_the_option_typed(capsys, tmp_path):
    out = str(tmp_path / "p.png")
    assert one_line_error(capsys, "plot", "--out", out, "--eth-gbps", "fast") == \
        "hostio: error: --eth-gbps = 'fast': a line rate in (0, 10000] Gb/s"
    assert one_line_error(capsys, "plot", "--out", out, "--design", "simple,smart") == \
        "hostio: error: --design = 'simple,smart': a comma list of simple, kernel, dpdk ('smart' is not one)"
    assert one_line_error(capsys, "plot", "--out", out, "--gen", "9") == "hostio: error: --gen = 9: one of 1, 2, 3, 4, 5, 6, 7"
    assert list(tmp_path.iterdir()) == []


def test_plot_checks_the_line_rate_even_where_no_frame_is_drawn(capsys, tmp_path):
    # Sizes past the largest Ethernet frame draw no line rate; a bad one is refused all the same.
    out = tmp_path / "p.png"
    assert one_line_error(capsys, "plot", "--sizes", "70000:80000:5000", "--eth-gbps", "nan", "--out", str(out)) == \
        "hostio: error: --eth-gbps = 'nan': a line rate in (0, 10000] Gb/s"
    assert list(tmp_path.iterdir()) == []


# ---- integer and number options take ASCII digits only ---------------------------------------------

@pytest.mark.parametrize("argv,line", [
    (["bandwidth", "--size", "64", "--mps", "２５６"], "--mps = '２５６': an integer (ASCII digits)"),
    (["bandwidth", "--size", "64", "--gen", "٣"], "--gen = '٣': an integer (ASCII digits)"),
    (["bandwidth", "--size", "64", "--lanes", "x١٦"], "--lanes = 'x١٦': an integer (ASCII digits)"),
    (["bandwidth", "--size", "64", "--mrrs", "5_12"], "--mrrs = '5_12': an integer (ASCII digits)"),
    (["bandwidth", "--size", "64", "--addr", ""], "--addr = '': an integer (ASCII digits)"),
    (["bandwidth", "--size", "64", "--gen", "-1"], "--gen = '-1': a non-negative integer"),
    (["bandwidth", "--size", "٦٤"], "--size = '٦٤': a byte count in 1..=1073741824 (1 GiB) such as 64, 4K"),
    (["nic", "--design", "dpdk", "--frame", "64", "--eth-gbps", "４０"], "--eth-gbps = '４０': a line rate in (0, 10000] Gb/s"),
    (["link-for", "--rate-gbps", "1_0", "--size", "64"], "--rate-gbps = '1_0': a positive finite number of Gb/s"),
])
def test_numbers_take_ascii_digits_only(capsys, argv, line):
    assert one_line_error(capsys, *argv).startswith("hostio: error: " + line)


@pytest.mark.parametrize("value", ["300", "1" + "0" * 60])
def test_a_generation_too_large_for_the_model_is_named(capsys, value):
    shown = value if len(value) <= 20 else repr(value)
    assert one_line_error(capsys, "bandwidth", "--size", "64", "--gen", value) == \
        f"hostio: error: --gen = {shown}: one of 1, 2, 3, 4, 5, 6, 7"


def test_validate_names_an_out_directory_that_cannot_be_made(capsys, tmp_path):
    (tmp_path / "f").write_text("")
    line = one_line_error(capsys, "validate", "--out", str(tmp_path / "f" / "report"))
    assert line.startswith(f"hostio: error: --out = '{tmp_path / 'f' / 'report'}': a directory this user may create ("), line
    assert [p.name for p in tmp_path.iterdir()] == ["f"]
