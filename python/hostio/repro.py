"""Reproductions of the DDIO paper's experiments (Farshin et al., "Reexamining Direct Cache Access
to Optimize I/O Intensive Applications for Multi-hundred-gigabit Networks", USENIX ATC'20).

Each experiment is a set of points over a bundled scenario (``hostio/scenarios/ddio/*.toml``), a
figure, a table and a list of *claims*: what the paper reports, what hostio measured, whether they
agree, and — where they do not — why we think so. ``reproduce()`` runs them all in parallel local
processes, keeps finished points on disk (re-running resumes) and writes ``summary.md``.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from hostio import sim, sweep

#: Simulated time per point (µs) for --quick smoke runs.
QUICK = ["run.warmup_us=1500", "run.duration_us=1000"]


@dataclass
class Point:
    scenario: str
    overrides: list[str]
    labels: dict


@dataclass
class Claim:
    claim: str
    paper: str
    hostio: str
    agrees: bool
    note: str = ""


@dataclass
class Experiment:
    id: str
    title: str
    figure: str
    points: Callable[[], list[Point]]
    plot: Callable[[list[dict], Path], None]
    claims: Callable[[list[dict]], list[Claim]]
    columns: Sequence[str] = field(default_factory=list)


# ------------------------------------------------------------------------------------------------
# Row helpers
# ------------------------------------------------------------------------------------------------


def _row(point: Point, result: dict) -> dict:
    m = result["metrics"]
    row = dict(point.labels)
    row.update(
        write_hit=m["pcie_write_hit_rate"],
        read_hit=m["pcie_read_hit_rate"],
        throughput_gbps=m["throughput_gbps"],
        offered_gbps=m["offered_gbps"],
        dropped=m["dropped_packets"],
        pause_frames=m["pause_frames"],
        rx_packets=m["rx_packets"],
        p50_ns=m["latency_ns"]["p50"],
        p99_ns=m["latency_ns"]["p99"],
        memory_read_gbps=m["memory_read_gbps"],
        memory_write_gbps=m["memory_write_gbps"],
    )
    for name, a in m["apps"].items():
        row[f"{name}.throughput_gbps"] = a["throughput_gbps"]
        row[f"{name}.p99_ns"] = a["latency_ns"]["p99"]
        row[f"{name}.llc_misses"] = a["llc_misses"]
        row[f"{name}.llc_accesses"] = a["llc_accesses"]
        pk = a["rx_packets"]
        row[f"{name}.llc_misses_per_packet"] = a["llc_misses"] / pk if pk else None
        row[f"{name}.llc_misses_per_us"] = a["llc_misses_per_us"]
    return row


def _f(v, digits=2) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def _sel(rows, **kw):
    return [r for r in rows if all(r.get(k) == v for k, v in kw.items())]


def _one(rows, key, **kw):
    got = _sel(rows, **kw)
    return got[0][key] if got else None


def _fig(title: str, xlabel: str, ylabel: str):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=110)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    return fig, ax


def _hit_lines(ax, rows, x: str, legend_loc: str = "best") -> None:
    """The two PCIe hit-rate curves against the column ``x``."""
    xs = [r[x] for r in rows]
    ax.plot(xs, [r["write_hit"] for r in rows], marker="o", label="PCIe write hit")
    ax.plot(xs, [r["read_hit"] for r in rows], marker="s", label="PCIe read hit")
    ax.legend(loc=legend_loc, fontsize=8)


def _save(fig, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path)
    import matplotlib.pyplot as plt

    plt.close(fig)


# ------------------------------------------------------------------------------------------------
# Fig. 6 — descriptors × packet size
# ------------------------------------------------------------------------------------------------

DESCS = [64, 128, 256, 512, 1024, 2048, 4096]
SIZES = [64, 128, 256, 512, 1024, 1500]


def fig6_points():
    return [
        Point("ddio/single_core", [f"nics.nic0.rx_descriptors={d}", f"traffic.t0.packet_size={s}"], {"rx_descriptors": d, "packet_size": s})
        for s in SIZES
        for d in DESCS
    ]


def fig6_plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), dpi=110, sharey=True)
    for ax, key, name in ((axes[0], "write_hit", "PCIe write hit rate"), (axes[1], "read_hit", "PCIe read hit rate")):
        for s in SIZES:
            rs = _sel(rows, packet_size=s)
            ax.plot([r["rx_descriptors"] for r in rs], [r[key] for r in rs], marker="o", label=f"{s} B")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("RX descriptors")
        ax.set_title(name, fontsize=10)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("hit rate")
    axes[0].scatter([128, 4096], [0.90, 0.40], marker="*", s=140, color="k", zorder=5, label="paper (1500 B)")
    axes[0].legend(fontsize=8)
    fig.suptitle("Fig. 6: 1 core L2 forwarding at 100 Gb/s (Skylake Gold 6140)", fontsize=10)
    _save(fig, path)


def fig6_claims(rows):
    w128 = _one(rows, "write_hit", rx_descriptors=128, packet_size=1500)
    w4096 = _one(rows, "write_hit", rx_descriptors=4096, packet_size=1500)
    r4096 = _one(rows, "read_hit", rx_descriptors=4096, packet_size=1500)
    small = [r["write_hit"] for r in rows if r["packet_size"] <= 512 and r["write_hit"] is not None]
    big_mono = all(
        (_one(rows, "write_hit", rx_descriptors=128, packet_size=s) or 0) > (_one(rows, "write_hit", rx_descriptors=4096, packet_size=s) or 1)
        for s in (1024, 1500)
    )
    return [
        Claim("1500 B, 128 descriptors: ~10 % misses", "write hit ≈ 0.90", _f(w128), w128 is not None and w128 >= 0.8,
              "hostio counts the TX ring (1024 buffers held until lazy cleanup) in the reuse distance, so its footprint is ~1.7 MiB as the paper estimates; the remaining gap is the unknown slice hash"),
        Claim("1500 B, 4096 descriptors: DDIO at ~40 %", "write hit ≈ 0.40, read hit similar", f"write {_f(w4096)}, read {_f(r4096)}",
              w4096 is not None and 0.2 <= w4096 <= 0.55 and r4096 is not None and abs(r4096 - w4096) < 0.2,
              "hostio's single core keeps up with what PCIe Gen3 x16 lets through at 1500 B (~93 Gb/s), so its ring stays short and the TX DMA reads payloads before they are evicted: read hits stay high. The paper's core was the bottleneck (≤ 90 Gb/s), so its ring was full and reads missed as often as writes"),
        Claim("packets ≤ 512 B keep high hit rates", "high for all descriptor counts", f"min {_f(min(small) if small else None)}", bool(small) and min(small) >= 0.7),
        Claim("> 512 B: hit rate falls with more descriptors", "monotonic decrease", "yes" if big_mono else "no", big_mono),
    ]


# ------------------------------------------------------------------------------------------------
# Fig. 5 — DDIO ways (IIO LLC WAYS)
# ------------------------------------------------------------------------------------------------

WAYS = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]


def fig5_points():
    return [
        Point("ddio/single_core", ["traffic.t0.packet_size=1024", f"platform.ddio_ways={w}"], {"ddio_ways": w})
        for w in WAYS
    ]


def fig5_plot(rows, path):
    fig, ax = _fig("Fig. 5: IIO LLC WAYS, 1024 B at 100 Gb/s, 4096 descriptors", "DDIO ways (bits set in 0xC8B)", "hit rate")
    _hit_lines(ax, rows, "ddio_ways")
    _save(fig, path)


def fig5_claims(rows):
    w = [r["write_hit"] for r in rows]
    inc = all(b >= a - 0.02 for a, b in zip(w, w[1:])) and w[-1] > w[0]
    return [Claim("more DDIO ways → higher hit rates", "increasing", f"{_f(w[0])} at 2 ways → {_f(w[-1])} at 11", inc)]


# ------------------------------------------------------------------------------------------------
# Fig. 8 — packet rate, 2 cores
# ------------------------------------------------------------------------------------------------

RATES = [10, 20, 30, 40, 50, 60, 70, 75, 80, 90, 95, 100]


def fig8_points():
    return [Point("ddio/multi_core", [f"traffic.t0.rate_gbps={r}"], {"rate_gbps": r}) for r in RATES]


def fig8_plot(rows, path):
    fig, ax = _fig("Fig. 8: rate sweep, 2 cores, 1500 B, 2×2048 descriptors", "offered rate (Gb/s)", "hit rate")
    ax.axvline(75, color="grey", ls=":", label="75 Gb/s (paper)")
    _hit_lines(ax, rows, "rate_gbps")
    _save(fig, path)


def fig8_claims(rows):
    rd90 = min(r["read_hit"] for r in rows if r["rate_gbps"] <= 90)
    lo = [r["write_hit"] for r in rows if 40 <= r["rate_gbps"] <= 70]
    hi = [r["write_hit"] for r in rows if r["rate_gbps"] >= 80]
    mid = sum(lo) / len(lo)
    return [
        Claim("read hits good until ~98 Gb/s", "≈ 1.0 below 98 Gb/s", f"min {_f(rd90)} up to 90 Gb/s", rd90 >= 0.9),
        Claim("write hits need ~25 % allocations", "write hit ≈ 0.75", f"{_f(mid)} at 40–70 Gb/s", 0.6 <= mid <= 0.9,
              "hostio's write hit rate is set by the buffer reuse distance: 2 × 2048 posted 1500 B buffers are ~6 MiB of payload against 4.5 MiB of I/O ways, so most lines are evicted before their buffer returns. The paper's 75 % implies a smaller effective footprint than its descriptor count suggests"),
        Claim("above ~75 Gb/s write hits worsen", "drop beyond 75 Gb/s", f"{_f(mid)} → {_f(min(hi))}", min(hi) < mid - 0.02,
              "the reuse distance in hostio does not depend on the rate while the cores keep up, so neither does the write hit rate"),
    ]


# ------------------------------------------------------------------------------------------------
# Fig. 9 — processing time
# ------------------------------------------------------------------------------------------------

CALLS = [0, 10, 20, 30, 40, 50, 60, 70, 80, 100]


def fig9_points():
    # Ten mt19937 calls ≈ 70 cycles (paper §5.3).
    return [
        Point("ddio/multi_core", ['apps.fwd.kind="compute"', f"apps.fwd.cycles_per_packet={c * 7}"], {"mt19937_calls": c})
        for c in CALLS
    ]


def fig9_plot(rows, path):
    fig, ax = _fig("Fig. 9: per-packet computation, 2 cores, 1500 B, 100 Gb/s", "mt19937 calls per packet (7 cycles each)", "hit rate")
    _hit_lines(ax, rows, "mt19937_calls", legend_loc="lower left")
    ax2 = ax.twinx()
    ax2.plot([r["mt19937_calls"] for r in rows], [r["throughput_gbps"] for r in rows], color="k", ls="--", label="throughput")
    ax2.set_ylabel("throughput (Gb/s)")
    _save(fig, path)


def fig9_claims(rows):
    t0, t_last = rows[0]["throughput_gbps"], rows[-1]["throughput_gbps"]
    r0 = rows[0]["read_hit"]
    r60 = _one(rows, "read_hit", mt19937_calls=60)
    return [
        Claim("more computation lowers throughput", "substantial decrease", f"{_f(t0, 1)} → {_f(t_last, 1)} Gb/s", t_last < 0.8 * t0),
        Claim("hit rates improve slightly up to ~60 calls", "slight increase", f"read {_f(r0)} → {_f(r60)}", r60 is not None and r0 is not None and r60 >= r0 - 0.02,
              "hostio's two cores keep up at 0 calls (short rings, TX reads hit); added cycles make them the bottleneck, the rings fill and TX reads find payloads already evicted. The paper's cores were loaded from the start"),
    ]


# ------------------------------------------------------------------------------------------------
# Fig. 10 / 11 — cores and DDIO ways (4096 RX descriptors in total)
# ------------------------------------------------------------------------------------------------

CORES = [1, 2, 4, 8, 16]


def _cores_ov(n: int) -> list[str]:
    return [f"apps.fwd.cores={n}", f"nics.nic0.rx_descriptors={4096 // n}"]


def fig10_points():
    return [Point("ddio/multi_core", _cores_ov(n), {"cores": n}) for n in CORES]


def fig10_plot(rows, path):
    fig, ax = _fig("Fig. 10: cores, 1500 B at 100 Gb/s, 4096 RX descriptors in total", "cores", "hit rate")
    _hit_lines(ax, rows, "cores")
    ax.set_xscale("log", base=2)
    _save(fig, path)


def fig10_claims(rows):
    w = {r["cores"]: r["write_hit"] for r in rows}
    best = max(w, key=lambda k: w[k])
    return [
        Claim("hit rates improve up to ~4 cores", "best at 4 cores", f"best at {best} cores ({_f(w[best])})", 2 <= best <= 4,
              "with 4096 RX descriptors in total and a ConnectX-5-like driver that frees TX buffers on completion, hostio's I/O footprint is the same for every core count, so its hit rates are flat"),
        Claim("beyond 4 cores they degrade", "decrease after 4", f"{_f(w[4])} at 4 → {_f(w[16])} at 16", w[16] < w[4],
              "as above: the footprint does not grow with cores in hostio; with design = \"kernel\" (lazy TX cleanup) each core's TX ring adds to it"),
    ]


def fig11_points():
    return [
        Point("ddio/multi_core", _cores_ov(n) + [f"platform.ddio_ways={w}"], {"cores": n, "ddio_ways": w})
        for n in (1, 2, 4)
        for w in (2, 4, 6, 8, 11)
    ]


def fig11_plot(rows, path):
    fig, ax = _fig("Fig. 11: cores × DDIO ways, 1500 B at 100 Gb/s", "DDIO ways", "PCIe write hit rate")
    for n in (1, 2, 4):
        rs = _sel(rows, cores=n)
        ax.plot([r["ddio_ways"] for r in rs], [r["write_hit"] for r in rs], marker="o", label=f"{n} core(s)")
    ax.legend(fontsize=8)
    _save(fig, path)


def fig11_claims(rows):
    c1w4 = _one(rows, "write_hit", cores=1, ddio_ways=4)
    c2w2 = _one(rows, "write_hit", cores=2, ddio_ways=2)
    inc = all(_one(rows, "write_hit", cores=n, ddio_ways=11) > _one(rows, "write_hit", cores=n, ddio_ways=2) for n in (1, 2, 4))
    return [
        Claim("more ways help every core count", "increasing with ways", "yes" if inc else "no", inc),
        Claim("more DDIO ways ≈ more cores", "1 core × 4 ways ≈ 2 cores × 2 ways", f"{_f(c1w4)} vs {_f(c2w2)}",
              c1w4 is not None and c2w2 is not None and abs(c1w4 - c2w2) <= 0.15,
              "more ways enlarge the I/O capacity in hostio as in the paper, but more cores do not shrink the footprint (see Fig. 10)"),
    ]


# ------------------------------------------------------------------------------------------------
# Figs. 3–4 — I/O vs code/data interference
# ------------------------------------------------------------------------------------------------

MASKS = [0x600, 0x300, 0x180, 0x0C0, 0x060, 0x030, 0x018, 0x00C, 0x006, 0x003]


def fig3_points():
    pts = [Point("ddio/interference", [f"apps.corunner.cat_mask={m:#x}"], {"corunner_mask": f"{m:#05x}"}) for m in MASKS]
    pts.append(Point("ddio/remote", ["apps.io.mba_percent=40"], {"corunner_mask": "none"}))
    return pts


def fig3_plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rs = [r for r in rows if r["corunner_mask"] != "none"]
    x = [r["corunner_mask"] for r in rs]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), dpi=110)
    axes[0].bar(x, [r["io.llc_misses_per_packet"] for r in rs], color="tab:blue")
    alone = _one(rows, "io.llc_misses_per_packet", corunner_mask="none")
    if alone is not None:
        axes[0].axhline(alone, color="k", ls=":", label="I/O app alone")
        axes[0].legend(fontsize=8)
    axes[0].set_title("Fig. 3b: I/O app LLC misses per packet (CAT 0x0C0)", fontsize=10)
    axes[1].bar(x, [r["corunner.llc_misses_per_us"] for r in rs], color="tab:orange")
    axes[1].set_title("Fig. 4: co-runner LLC misses per µs", fontsize=10)
    for ax in axes:
        ax.set_xlabel("co-runner CAT mask")
        ax.tick_params(axis="x", rotation=45)
        ax.grid(alpha=0.3)
    _save(fig, path)


def fig3_claims(rows):
    rs = {r["corunner_mask"]: r for r in rows}
    io = {k: v["io.llc_misses_per_packet"] for k, v in rs.items() if k != "none"}
    co = {k: v["corunner.llc_misses_per_us"] for k, v in rs.items() if k != "none"}
    io_floor = min(io.values())
    co_floor = min(co.values())
    r003 = io["0x003"] / io_floor if io_floor else math.inf
    r0c0 = io["0x0c0"] / io_floor if io_floor else math.inf
    r600 = co["0x600"] / co_floor if co_floor else math.inf
    return [
        Claim("co-runner in 0x003 raises the I/O app's misses (I/O in the 'inclusive ways')", "~2.5× at 0x003", f"{r003:.2f}×", r003 >= 1.5),
        Claim("co-runner sharing the I/O app's CAT ways (0x0C0) raises its misses", "peak at 0x0C0", f"{r0c0:.2f}×", r0c0 >= 1.2,
              "the simulated forwarder's own data (mbuf metadata, descriptor rings) fits its 1 MiB L2, so nothing of it sits in its CAT ways for the co-runner to evict; FastClick's code and larger data structures are not modelled"),
        Claim("I/O evicts the co-runner in the DDIO ways (0x600)", "~3× at 0x600", f"{r600:.2f}×", r600 >= 1.5),
    ]


# ------------------------------------------------------------------------------------------------
# §4.3 — NIC on the remote socket
# ------------------------------------------------------------------------------------------------


def remote_points():
    return [Point("ddio/remote", [f"nics.nic0.socket={s}"], {"nic_socket": s}) for s in (0, 1)]


def remote_plot(rows, path):
    fig, ax = _fig("§4.3: I/O app LLC misses per packet, NIC local vs remote", "NIC socket (app on socket 0)", "LLC misses per packet")
    ax.bar(["local", "remote"], [r["io.llc_misses_per_packet"] or 0 for r in rows], color=["tab:blue", "tab:red"])
    _save(fig, path)


def remote_claims(rows):
    loc = _one(rows, "io.llc_misses_per_packet", nic_socket=0) or 0.0
    rem = _one(rows, "io.llc_misses_per_packet", nic_socket=1) or 0.0
    ratio = rem / loc if loc > 0 else math.inf
    return [
        Claim("DDIO does not serve a remote-socket NIC: I/O misses ~20× higher", "~20×",
              f"{_f(loc, 3)} → {_f(rem, 3)} misses/packet ({'∞' if math.isinf(ratio) else f'{ratio:.0f}'}×)", ratio >= 10,
              ""),
    ]


# ------------------------------------------------------------------------------------------------
# Fig. 14 — 200 Gb/s, isolation by bypassing the cache
# ------------------------------------------------------------------------------------------------

CASES = [
    ("i", "HP alone", "ddio/isolation_alone", []),
    ("ii", "LP via 2-way DDIO", "ddio/isolation", []),
    ("iii", "LP via 4-way DDIO", "ddio/isolation", ["platform.ddio_ways=4"]),
    ("iv", "LP via remote socket", "ddio/isolation", ["nics.lp.socket=1"]),
    ("v", "LP with DDIO disabled", "ddio/isolation", ["nics.lp.ddio=false"]),
]


def fig14_points():
    return [Point(sc, ov, {"case": c, "description": d}) for c, d, sc, ov in CASES]


def fig14_plot(rows, path):
    fig, ax = _fig("Fig. 14: high-priority app p99 latency at 200 Gb/s", "case", "p99 latency (µs)")
    ax.bar([f"({r['case']}) {r['description']}" for r in rows], [r["hp.p99_ns"] / 1000 for r in rows], color="tab:purple")
    ax.tick_params(axis="x", rotation=20, labelsize=7)
    _save(fig, path)


def fig14_claims(rows):
    p = {r["case"]: r["hp.p99_ns"] for r in rows}
    inc = (p["ii"] - p["i"]) / p["i"]
    return [
        Claim("two apps through DDIO: HP p99 rises", "+30 %", f"{100 * inc:+.0f} %", inc >= 0.1,
              "the low-priority app's DMA does evict the high-priority app's buffers (its write hit rate drops), but four simulated cores at 80 Gb/s keep their rings short, so the p99 is set by the DMA and wire latency and the extra misses do not show in it"),
        Claim("LP bypassing via the remote socket restores HP latency", "(iv) ≈ (i)", f"{_f(p['iv'] / 1000, 1)} vs {_f(p['i'] / 1000, 1)} µs", abs(p["iv"] - p["i"]) <= 0.1 * p["i"]),
        Claim("more DDIO ways help like bypassing", "(iii) < (ii)", f"{_f(p['iii'] / 1000, 1)} vs {_f(p['ii'] / 1000, 1)} µs", p["iii"] < p["ii"],
              "see the first claim: there is no p99 increase for the cure to remove"),
        Claim("disabling DDIO for LP helps", "(v) < (ii), slightly above (iv)", f"{_f(p['v'] / 1000, 1)} µs", p["v"] < p["ii"],
              "see the first claim"),
    ]


# ------------------------------------------------------------------------------------------------
# §3.1 — PAUSE frames
# ------------------------------------------------------------------------------------------------


def pause_points():
    return [Point("ddio/pause", [], {"rx_descriptors": 1024})]


def pause_plot(rows, path):
    fig, ax = _fig("§3.1: PAUSE frames per million received packets", "", "PAUSE frames / Mpkt")
    r = rows[0]
    ax.bar(["paper (179 k / 80 M)", "hostio"], [179e3 / 80, r["pause_frames"] / max(r["rx_packets"], 1) * 1e6], color=["grey", "tab:green"])
    _save(fig, path)


def pause_claims(rows):
    r = rows[0]
    per_m = r["pause_frames"] / max(r["rx_packets"], 1) * 1e6
    paper = 179e3 / 80
    return [
        Claim("1 core at 100 Gb/s with 1024 descriptors makes the NIC send PAUSE frames", "≈ 2240 per million packets",
              f"{per_m:.0f} per million", 0.1 * paper <= per_m <= 10 * paper,
              "the count depends on the NIC's XOFF/XON thresholds and pause quanta, which are not published; hostio uses 3/4 and 1/2 of a 512 KiB buffer and 0xFFFF quanta"),
    ]


EXPERIMENTS = [
    Experiment("fig6", "PCIe hit rates vs RX descriptors and packet size (1 core)", "Fig. 6", fig6_points, fig6_plot, fig6_claims),
    Experiment("fig5", "PCIe hit rates vs DDIO ways (IIO LLC WAYS)", "Fig. 5", fig5_points, fig5_plot, fig5_claims),
    Experiment("fig8", "PCIe hit rates vs packet rate (2 cores)", "Fig. 8", fig8_points, fig8_plot, fig8_claims),
    Experiment("fig9", "Processing time vs hit rates and throughput", "Fig. 9", fig9_points, fig9_plot, fig9_claims),
    Experiment("fig10", "Number of cores", "Fig. 10", fig10_points, fig10_plot, fig10_claims),
    Experiment("fig11", "Cores × DDIO ways", "Fig. 11", fig11_points, fig11_plot, fig11_claims),
    Experiment("fig3", "I/O vs code/data interference over the co-runner's CAT mask", "Figs. 3–4", fig3_points, fig3_plot, fig3_claims),
    Experiment("remote", "NIC on the remote socket", "§4.3", remote_points, remote_plot, remote_claims),
    Experiment("fig14", "200 Gb/s isolation: five cases", "Fig. 14", fig14_points, fig14_plot, fig14_claims),
    Experiment("pause", "PAUSE frames at 1024 descriptors", "§3.1", pause_points, pause_plot, pause_claims),
]


def _md_table(rows: list[dict], cols: Sequence[str]) -> str:
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        out.append("| " + " | ".join(_f(r.get(c), 3) for c in cols) + " |")
    return "\n".join(out)


def reproduce(out: str | Path, *, only: Sequence[str] | None = None, jobs: int | None = None, quick: bool = False, progress: bool = True) -> bool:
    """Run the experiments; write ``<out>/<id>.png``, ``<id>.csv``, ``summary.md``, ``claims.csv``.
    Returns True when every point ran (claims may still disagree: that is reported, not an error)."""
    outp = Path(out)
    outp.mkdir(parents=True, exist_ok=True)
    exps = [e for e in EXPERIMENTS if only is None or e.id in only]
    texts: dict[str, str] = {}
    all_ok = True
    sections = []
    claim_rows = []
    for e in exps:
        pts = e.points()
        jobs_list = []
        for p in pts:
            if p.scenario not in texts:
                texts[p.scenario] = sim.scenario_path(p.scenario).read_text()
            jobs_list.append((texts[p.scenario], p.overrides + (QUICK if quick else [])))
        recs = sweep.run_points(jobs_list, out=outp / "points" / e.id, jobs=jobs, label=f"{e.id:<7}", progress=progress)
        failed = [r for r in recs if "error" in r]
        rows = [_row(p, r["result"]) for p, r in zip(pts, recs) if "result" in r]
        sweep.write_csv(rows, outp / f"{e.id}.csv")
        sec = [f"## {e.figure}: {e.title}", ""]
        if failed:
            all_ok = False
            sec.append(f"**{len(failed)} of {len(recs)} points failed:**")
            sec += [f"- `{' '.join(r['overrides'])}`: {r['error']}" for r in failed]
            sec.append("")
        if not failed:
            e.plot(rows, outp / f"{e.id}.png")
            sec.append(f"![{e.id}]({e.id}.png)")
            sec.append("")
            sec.append("| claim | paper | hostio | agrees | why they differ |")
            sec.append("|---|---|---|---|---|")
            for c in e.claims(rows):
                sec.append(f"| {c.claim} | {c.paper} | {c.hostio} | {'yes' if c.agrees else '**no**'} | {'' if c.agrees else c.note} |")
                claim_rows.append({"experiment": e.id, "claim": c.claim, "paper": c.paper, "hostio": c.hostio, "agrees": c.agrees, "note": "" if c.agrees else c.note})
            sec.append("")
            label_cols = list(pts[0].labels)
            cols = label_cols + [c for c in ("write_hit", "read_hit", "throughput_gbps", "dropped", "p99_ns") if c in rows[0]]
            sec.append(f"<details><summary>table ({e.id}.csv has every column)</summary>\n\n{_md_table(rows, cols)}\n\n</details>")
            sec.append("")
        sections.append("\n".join(sec))
    agree = sum(1 for c in claim_rows if c["agrees"])
    head = [
        "# hostio: reproduction of the DDIO paper (ATC'20)",
        "",
        f"{agree} of {len(claim_rows)} claims agree{' (quick run: shorter simulated time per point)' if quick else ''}. "
        "Every number below comes from the simulator's mechanisms (buffer reuse, DDIO write-allocate/update, the "
        "recycled-line region, CAT fill masks, PCIe and DRAM queueing); calibrated parameters are documented in the "
        "scenario files and the engine's module documentation.",
        "",
    ]
    (outp / "summary.md").write_text("\n".join(head + sections))
    sweep.write_csv(claim_rows, outp / "claims.csv")
    (outp / "summary.json").write_text(json.dumps(claim_rows, indent=2))
    if progress:
        print(f"{agree}/{len(claim_rows)} claims agree; summary: {outp / 'summary.md'}")
    return all_ok
