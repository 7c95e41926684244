"""Captures (pcap) replayed as traffic: from Python, the command line and a sweep."""
import json
import struct
import subprocess
import sys

import pytest

from hostio import sim, sweep
from hostio.errors import ConfigError

SCENARIO = """[run]
duration_us = 400
warmup_us = 100
[nics.nic0]
[traffic.t0]
nic = "nic0"
pcap = "{pcap}"
[apps.fwd]
kind = "l2fwd"
nic = "nic0"
"""


def udp_frame(sport: int, length: int) -> bytes:
    """An Ethernet frame carrying IPv4 UDP from `sport` to 53, `length` bytes without FCS."""
    eth = bytes([2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0])
    ip = bytes([0x45, 0, 0, 0, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2])
    f = eth + ip + struct.pack(">HHHH", sport, 53, 0, 0)
    return f + bytes(max(0, length - len(f)))


def write_pcap(path, frames, snap=96):
    """A microsecond pcap of (time µs, length, source port) frames, each cut to `snap` bytes."""
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)]
    for t, length, sport in frames:
        data = udp_frame(sport, length)[:snap]
        out.append(struct.pack("<IIII", t // 1_000_000, t % 1_000_000, len(data), length) + data)
    path.write_bytes(b"".join(out))


@pytest.fixture
def capture(tmp_path):
    """A scenario file beside its capture (a relative path): 50 frames of 1514 B 2 µs apart, 16
    flows, which a run of 500 µs replays five times."""
    write_pcap(tmp_path / "trace.pcap", [(2 * i, 1514, 1000 + i % 16) for i in range(50)])
    scn = tmp_path / "scn.toml"
    scn.write_text(SCENARIO.format(pcap="trace.pcap"))
    return scn


def test_check_reads_the_capture_beside_the_scenario_from_anywhere(capture, tmp_path, monkeypatch):
    monkeypatch.chdir("/")
    r = sim.check(capture)
    assert r["scenario"]["traffic"]["t0"]["pcap"] == str(tmp_path / "trace.pcap")
    c = r["captures"]["t0"]
    assert (c["frames"], c["bytes"], c["flows"], c["padded_frames"]) == (50, 50 * 1518, 16, 0)
    assert c["span_us"] == pytest.approx(98.0)
    # 1538 B on the wire every 2 µs.
    assert c["mean_gbps"] == pytest.approx(1538 * 8 / 2000, rel=1e-9)


def test_a_run_replays_the_capture_at_its_pace_or_at_the_rate(capture, monkeypatch):
    monkeypatch.chdir("/")
    m = sim.run(capture)["metrics"]
    # 0.5 Mpps across the loop's restarts too (each one mean gap after the last frame).
    assert m["offered_mpps"] == pytest.approx(0.5, rel=0.005)
    m = sim.run(capture, set=['traffic.t0.pcap_timing="rate"', "traffic.t0.rate_gbps=20"])["metrics"]
    assert m["offered_mpps"] == pytest.approx(20e3 / (1538 * 8), rel=0.02)
    # The capture's own timing scaled to a quarter of its mean rate (6.152 Gb/s).
    m = sim.run(capture, set=["traffic.t0.rate_gbps=1.538"])["metrics"]
    assert m["offered_mpps"] == pytest.approx(0.125, rel=0.01)


def test_scenario_text_carries_the_capture_s_absolute_path(capture, tmp_path, monkeypatch):
    monkeypatch.chdir("/")
    text = sim.scenario_text(capture)
    assert str(tmp_path / "trace.pcap") in text
    # Text without captures comes back as written.
    assert sim.scenario_text(sim.scenario_path("quickstart")) == sim.scenario_path("quickstart").read_text()


def test_a_relative_path_in_an_override_or_in_text_is_read_from_the_working_directory(capture, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = sim.check(SCENARIO.format(pcap="trace.pcap"))
    assert r["scenario"]["traffic"]["t0"]["pcap"] == str(tmp_path / "trace.pcap")
    monkeypatch.chdir("/")
    with pytest.raises(ConfigError, match="cannot be opened"):
        sim.check(capture, set=['traffic.t0.pcap="trace.pcap"'])


def test_a_sweep_from_another_folder_replays_the_capture(capture, tmp_path, monkeypatch):
    monkeypatch.chdir("/")
    df = sweep.sweep(capture, axes={"traffic.t0.pcap_timing": ["capture", "rate"]}, out=tmp_path / "sw", progress=False)
    assert list(df["offered_gbps"] > 50) == [False, True]


def hostio_cli(*args):
    return subprocess.run([sys.executable, "-m", "hostio", *args], capture_output=True, text=True)


@pytest.mark.parametrize(
    "content, override, needle",
    [
        (None, None, "cannot be opened"),
        (b"", None, "the file is empty"),
        (b"\x89PNG\r\n\x1a\n", None, "starts with bytes 89 50 4e 47"),
        ("cut", None, "the file ends at byte 238, inside frame 2 (at byte 136)"),
        ("jumbo", None, "above the 9018 B of a jumbo frame"),
        ("good", "traffic.t0.packet_size=64", "not with packet_size: give one of packet_size, size_mix or pcap"),
        ("good", 'traffic.t0.size_mix="imix"', "not with size_mix: give one of packet_size, size_mix or pcap"),
        ("good", "traffic.t0.flow_skew=1", "traffic.t0.flow_skew = 1: 0 with pcap"),
        ("good", 'traffic.t0.pcap_timing="fast"', "one of `capture` or `rate`"),
        ("good", "traffic.t0.imbalance=2", "traffic.t0.imbalance = 2: 1 with pcap"),
        ("good", "traffic.t0.flows=8", "traffic.t0.flows = 8: 4096 (the default) with pcap"),
        ("good", "traffic.t0.train_packets=8", 'traffic.t0.train_packets = 8: 32 (the default) while pcap_timing = "capture"'),
        ("good", 'traffic.t0.pcap=" "', 'traffic.t0.pcap = " ": the path of a pcap or pcapng file'),
    ],
)
def test_a_capture_that_cannot_be_replayed_is_one_line_exit_2(tmp_path, content, override, needle):
    pcap = tmp_path / "trace.pcap"
    if content == "good" or content == "cut":
        write_pcap(pcap, [(0, 1514, 1), (1, 1514, 2)])
        if content == "cut":
            pcap.write_bytes(pcap.read_bytes()[:-10])
    elif content == "jumbo":
        write_pcap(pcap, [(0, 9015, 1)])
    elif content is not None:
        pcap.write_bytes(content)
    scn = tmp_path / "scn.toml"
    scn.write_text(SCENARIO.format(pcap="trace.pcap"))
    p = hostio_cli("run", str(scn), *(["--set", override] if override else []))
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert needle in lines[0], lines[0]
    if override is None:
        assert lines[0].startswith(f"hostio: error: traffic.t0.pcap = {json.dumps(str(pcap))}: a pcap or pcapng capture hostio can replay: "), lines[0]


def test_pcap_timing_needs_a_capture():
    text = SCENARIO.replace('pcap = "{pcap}"', 'packet_size = 1500\npcap_timing = "rate"')
    with pytest.raises(ConfigError, match='traffic.t0.pcap_timing = "rate": only with pcap'):
        sim.check(text)


def test_a_platform_file_beside_the_scenario_is_read_from_its_folder(capture, tmp_path, monkeypatch):
    facts = {k: v for k, v in sim.presets()["skylake-gold-6140"].items() if v is not None}
    (tmp_path / "plat.toml").write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in facts.items()))
    capture.write_text(capture.read_text().replace("[nics.nic0]", '[platform]\npreset = "file:plat.toml"\n[nics.nic0]'))
    monkeypatch.chdir("/")
    assert sim.check(capture)["scenario"]["platform"]["preset"] == f"file:{tmp_path / 'plat.toml'}"
    assert f"file:{tmp_path / 'plat.toml'}" in sim.scenario_text(capture)


def test_an_output_never_replaces_the_capture_the_command_reads(capture, tmp_path):
    before = (tmp_path / "trace.pcap").read_bytes()
    p = hostio_cli("run", str(capture), "--set", "run.duration_us=20", "--json", str(tmp_path / "trace.pcap"))
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "a path other than the capture the command reads" in p.stderr, p.stderr
    assert (tmp_path / "trace.pcap").read_bytes() == before


def test_the_run_summary_names_the_capture(capture, tmp_path):
    p = hostio_cli("run", str(capture), "--set", "run.duration_us=50")
    assert p.returncode == 0, p.stderr
    assert f"t0 replays {tmp_path / 'trace.pcap'} (pcap_timing = capture)" in p.stdout, p.stdout
