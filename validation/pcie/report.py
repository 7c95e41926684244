#!/usr/bin/env python3
"""PCIe models vs pcie-bench's published measurements: writes README.md and PNG plots.

    .venv/bin/python validation/pcie/report.py [--out DIR] [--data DIR]
    .venv/bin/hostio pcie validate --out DIR

Data: the pcie-bench data set (NFP-6000 on a Haswell Xeon E5-2620 v3, gen 3 x8; plain, IOMMU with
superpages, IOMMU with 4 KiB pages), found in ``--data``, ``$HOSTIO_PCIE_BENCH_DATA``,
``shared/validation/pcie-bench`` of the checkout or next to it. Every number in the report is
computed here from the CSV files and ``hostio.pcie``; nothing is typed in by hand except the
published facts of the SIGCOMM'18 paper in the last table, which carry their source.
"""
from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PLAIN = "nfp6000-1.2GHz_hsw-Xeon-E5-2620v3_dell-t630"
RUNS = {"plain": PLAIN, "iommu": PLAIN + "-iommu", "iommu_nosp": PLAIN + "-iommu-nosp"}
CACHE = {"HWarm": "warm", "Cold": "cold", "DWarm": "device_warm", "DThrash": "thrash"}


def find_data(arg: str | None) -> Path:
    cands = [arg, os.environ.get("HOSTIO_PCIE_BENCH_DATA"), ROOT / "shared/validation/pcie-bench",
             ROOT.parent / "shared/validation/pcie-bench"]
    for c in cands:
        if c and (Path(c) / PLAIN).is_dir():
            return Path(c)
    raise SystemExit("pcie-bench data not found: pass --data DIR or set HOSTIO_PCIE_BENCH_DATA")


def rows(data: Path, run: str, name: str) -> list[dict]:
    with open(data / RUNS[run] / name, newline="") as f:
        return list(csv.DictReader(f))


def n(x: str) -> float:
    return float(x)


def stats(errs: list[float]) -> dict:
    a = [abs(e) for e in errs]
    return {"n": len(a), "median": statistics.median(a), "mean": statistics.fmean(a), "max": max(a)}


def md_table(header: list[str], body: list[list]) -> str:
    def cell(v):
        return f"{v:.1f}" if isinstance(v, float) else str(v)
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell(v) for v in r) + " |" for r in body]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(HERE), help="output directory (default: validation/pcie)")
    ap.add_argument("--data", default=None)
    args = ap.parse_args(argv)
    data = find_data(args.data)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from hostio import pcie

    plt.rcParams.update({"font.size": 7, "figure.dpi": 80})
    md: list[str] = []
    summary: list[list] = []

    def exp(test, size, window, cache, run="plain", engine="dma"):
        return pcie.experiment(test, size, window, cache=cache, iommu=run != "plain",
                               superpages=run != "iommu_nosp", engine=engine)

    # ---- A. bandwidth model reference values --------------------------------------------------
    ref = [("TLP bandwidth", None, "tlp_gbps", 57.884766), ("64 B write", 64, "write_gbps", 42.098011),
           ("64 B read", 64, "read_gbps", 44.102679), ("64 B read+write", 64, "read_write_gbps", 33.077009),
           ("1500 B write", 1500, "write_gbps", 52.814567), ("1500 B read", 1500, "read_gbps", 53.597005)]
    body = []
    worst = 0.0
    for label, size, key, want in ref:
        got = pcie.bandwidth([size or 64])[0][key]
        err = abs(got - want) / want
        worst = max(worst, err)
        body.append([label, f"{want:.6f}", f"{got:.9f}", f"{err:.1e}"])
    md += ["## A. Bandwidth model: reference values (gen 3 x8, MPS 256, MRRS 512, RCB 64, 64-bit)", "",
           "Published pcie-bench model values (six digits) against hostio; the test suite checks them to 1e-9 "
           "against an independent transcription of the public model for every generation, width and MPS.", "",
           md_table(["quantity", "pcie-bench (Gb/s)", "hostio (Gb/s)", "rel. diff"], body), "",
           f"Largest difference {worst:.1e} — the rounding of the published six digits.", ""]

    # ---- B. latency vs transfer size ----------------------------------------------------------
    sizes_rows = rows(data, "plain", "lat_dma_sizes.csv")
    cmd_rows = rows(data, "plain", "lat_cmd_sizes.csv")
    body, errs, plot = [], [], {}
    for engine, rs in (("dma", sizes_rows), ("cmd", cmd_rows)):
        for r in rs:
            test = "LAT_RD" if r["Test"].endswith("_RD") else "LAT_WRRD"
            size, win = int(n(r["SZ"])), int(n(r["WinSZ"]))
            m = exp(test, size, win, CACHE[r["Cache"]], engine=engine)["median_ns"]
            meas = n(r["Med(ns)"])
            errs.append(m - meas)
            body.append([f"{r['Test']}", size, meas, m, m - meas])
            plot.setdefault((r["Test"]), []).append((size, meas, m))
    s = stats(errs)
    summary.append(["latency vs size (median)", s["n"], s["median"], s["mean"], s["max"]])
    md += ["## B. Latency vs transfer size (host-warm, 8 KiB / 4 KiB window, median)", "",
           "`LAT_DMA_*` go through the NFP's DMA engine, `LAT_CMD_*` through its direct command interface "
           "(≤ 64 B). Medians are quantised to 13.3 ns (16 cycles at 1.2 GHz).", "",
           md_table(["test", "size (B)", "measured (ns)", "model (ns)", "error (ns)"], body), "",
           f"Error: median |e| {s['median']:.1f} ns, mean {s['mean']:.1f} ns, max {s['max']:.1f} ns over {s['n']} points.",
           "", "![latency vs size](lat_vs_size.png)", ""]
    fig, ax = plt.subplots(figsize=(6, 3.2))
    for key, pts in plot.items():
        xs = [p[0] for p in pts]
        line, = ax.plot(xs, [p[1] for p in pts], "o", ms=3, label=f"{key} measured")
        ax.plot(xs, [p[2] for p in pts], "-", color=line.get_color(), lw=1, label=f"{key} model")
    ax.set_xlabel("transfer size (B)")
    ax.set_ylabel("median latency (ns)")
    ax.legend(fontsize=6)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "lat_vs_size.png")
    plt.close(fig)

    # ---- C. latency vs window ------------------------------------------------------------------
    body, errs = [], []
    series = {}
    files = [("dma", "lat_dma_sweep_rd_rnd_64.csv"), ("dma", "lat_dma_sweep_wrrd_rnd_64.csv"),
             ("cmd", "lat_cmd_sweep_rd_rnd_08.csv"), ("cmd", "lat_cmd_sweep_wrrd_rnd_08.csv"),
             ("cmd", "lat_cmd_sweep_rd_rnd_64.csv"), ("cmd", "lat_cmd_sweep_wrrd_rnd_64.csv")]
    for run in RUNS:
        for engine, name in files:
            for r in rows(data, run, name):
                test = "LAT_RD" if r["Test"].endswith("_RD") else "LAT_WRRD"
                size, win, cache = int(n(r["SZ"])), int(n(r["WinSZ"])), CACHE[r["Cache"]]
                m = exp(test, size, win, cache, run, engine)["median_ns"]
                meas = n(r["Med(ns)"])
                errs.append(m - meas)
                series.setdefault((run, r["Test"], size, cache), []).append((win, meas, m))
    s = stats(errs)
    summary.append(["latency vs window (median)", s["n"], s["median"], s["mean"], s["max"]])
    for (run, test, size, cache), pts in sorted(series.items()):
        if cache not in ("cold", "warm"):
            continue
        e = [m - meas for _, meas, m in pts]
        body.append([run, test, size, cache, min(p[1] for p in pts), max(p[1] for p in pts),
                     min(p[2] for p in pts), max(p[2] for p in pts), max(abs(x) for x in e)])
    md += ["## C. Latency vs host buffer window (random offsets, median)", "",
           "Per series: range of the measured and modelled medians over windows 1 KiB … 64 MiB and the largest "
           "error. Warm reads hit the LLC until the window passes it (15 MiB); 8 B command writes (partial "
           "lines) read the line from DRAM once the window passes the DDIO share (1.5 MiB), 64 B DMA writes "
           "(full lines, ItoM) do not; with 4 KiB IOMMU pages the IO-TLB (64 entries) misses past 256 KiB.", "",
           md_table(["run", "test", "size", "cache", "meas. min", "meas. max", "model min", "model max", "max |e|"], body),
           "", f"Error over all {s['n']} points (all four cache states): median |e| {s['median']:.1f} ns, mean "
           f"{s['mean']:.1f} ns, max {s['max']:.1f} ns.", "",
           "Known disagreements: (1) the data set's command-interface reads (`LAT_CMD_RD`) show no cold/warm "
           "difference at all, while its DMA reads show 53 ns and the paper 70 ns; the model applies the DRAM part "
           "to both paths, so cold `LAT_CMD_RD` points are ~53 ns high. (2) With 4 KiB IOMMU pages, 64 B "
           "`LAT_DMA_WRRD` rises by ~150 ns, not by a full page walk (227 ns): the DMA engine hides part of the "
           "write's walk behind its dependent-DMA gap, which the model does not overlap (+80 ns). (3) Single "
           "outliers in the data (e.g. an 8 B `LAT_CMD_WRRD` thrash point at 256 KiB, 216 ns below its "
           "neighbours) set the maximum.", "", "![latency vs window](lat_vs_window.png)", ""]
    fig, axs = plt.subplots(1, 2, figsize=(8, 3))
    for ax, keys in ((axs[0], [("plain", "LAT_DMA_RD", 64, "cold"), ("plain", "LAT_DMA_RD", 64, "warm"),
                               ("iommu_nosp", "LAT_DMA_RD", 64, "cold"), ("iommu_nosp", "LAT_DMA_RD", 64, "warm")]),
                     (axs[1], [("plain", "LAT_CMD_WRRD", 8, "cold"), ("plain", "LAT_CMD_RD", 8, "cold"),
                               ("plain", "LAT_DMA_WRRD", 64, "cold")])):
        for k in keys:
            pts = series[k]
            line, = ax.plot([p[0] for p in pts], [p[1] for p in pts], "o", ms=3, label=f"{k[0]} {k[1]} {k[2]}B {k[3]}")
            ax.plot([p[0] for p in pts], [p[2] for p in pts], "-", lw=1, color=line.get_color())
        ax.set_xscale("log", base=2)
        ax.set_xlabel("window (B)")
        ax.set_ylabel("median latency (ns)")
        ax.legend(fontsize=5)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "lat_vs_window.png")
    plt.close(fig)

    # ---- D. distributions ------------------------------------------------------------------------
    det = rows(data, "plain", "lat_dma_details.csv")
    with open(data / PLAIN / "lat_dma_details_cdf.csv", newline="") as f:
        cdf_rows = [(n(r["ns"]), n(r["cdf"])) for r in csv.DictReader(f)]
    segments, cur = [], []
    for ns, c in cdf_rows:
        if c == 0 and cur:
            segments.append(cur)
            cur = []
        cur.append((ns, c))
    segments.append(cur)
    body = []
    fig, ax = plt.subplots(figsize=(6, 3))
    for r, seg in zip(det, segments):
        test = "LAT_RD" if r["Test"].endswith("_RD") else "LAT_WRRD"
        res = exp(test, int(n(r["SZ"])), int(n(r["WinSZ"])), CACHE[r["Cache"]])
        body.append([r["Test"], int(n(r["SZ"])), int(n(r["WinSZ"])), CACHE[r["Cache"]], n(r["Min(ns)"]), n(r["Med(ns)"]),
                     n(r["99.9%(ns)"]), n(r["Max(ns)"]), res["median_ns"], res["mean_ns"]])
        if int(n(r["SZ"])) == 64 and test == "LAT_RD" and int(n(r["WinSZ"])) == 8192:
            line, = ax.plot([p[0] for p in seg], [p[1] for p in seg], lw=1, label=f"measured 64 B read {CACHE[r['Cache']]}")
            ax.axvline(res["median_ns"], color=line.get_color(), ls="--", lw=0.8)
    ax.set_xlim(450, 1100)
    ax.set_xlabel("latency (ns)")
    ax.set_ylabel("CDF")
    ax.legend(fontsize=6)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "lat_cdf.png")
    plt.close(fig)
    md += ["## D. Latency distributions (16.7 M samples each)", "",
           "The model is deterministic: it gives the median (and the mean over hit/miss mixtures), not the tail. "
           "Dashed lines in the plot are the model medians.", "",
           md_table(["test", "size", "window", "cache", "min", "median", "99.9%", "max", "model median", "model mean"], body),
           "", "![latency CDF](lat_cdf.png)", ""]

    # ---- E. bandwidth vs transfer size ------------------------------------------------------------
    body, errs_link, errs_model, plot = [], [], [], {}
    link = {}
    for r in rows(data, "plain", "bw_dma_sz_sweep.csv"):
        test = {"BW_DMA_RD": "BW_RD", "BW_DMA_WR": "BW_WR", "BW_DMA_RW": "BW_RDWR"}[r["Test"]]
        size = int(n(r["SZ"]))
        meas = n(r["BW (GB/s)"])
        if size not in link:
            link[size] = pcie.bandwidth([size])[0]
        lk = link[size][{"BW_RD": "read_gbps", "BW_WR": "write_gbps", "BW_RDWR": "read_write_gbps"}[test]]
        if test == "BW_RDWR":
            lk *= 2  # pcie-bench counts the bytes of both directions
        m = exp(test, size, int(n(r["WinSZ"])), CACHE[r["Cache"]])["bw_gbps"]
        errs_link.append((lk - meas) / meas * 100)
        errs_model.append((m - meas) / meas * 100)
        plot.setdefault(test, []).append((size, meas, lk, m))
        if size in (16, 64, 128, 256, 512, 1024, 1536, 2048):
            body.append([test, size, meas, lk, m, (m - meas) / meas * 100])
    sl, sm = stats(errs_link), stats(errs_model)
    summary.append(["BW vs size, link model only (%)", sl["n"], sl["median"], sl["mean"], sl["max"]])
    summary.append(["BW vs size, experiment model (%)", sm["n"], sm["median"], sm["mean"], sm["max"]])
    md += ["## E. Bandwidth vs transfer size (host-warm, 8 KiB window)", "",
           "`link` is the pcie-bench bandwidth model alone (what the link allows); `model` is hostio's experiment "
           "model, which adds the device's DMA issue rate, its outstanding reads over the time each holds a tag "
           "(Little's law) and blends the stages; in BW_RDWR one engine moves a read's and a write's data in turn. BW_RDWR counts the bytes of both directions, as pcie-bench does.", "",
           md_table(["test", "size", "measured (Gb/s)", "link (Gb/s)", "model (Gb/s)", "model error (%)"], body), "",
           f"Error over all {sm['n']} sizes: link model alone median |e| {sl['median']:.1f} %, max {sl['max']:.1f} %; "
           f"experiment model median |e| {sm['median']:.1f} %, mean {sm['mean']:.1f} %, max {sm['max']:.1f} %. "
           "Sizes one byte past a multiple of 64 B are measured well below both (the NFP's DMA engine splits them; "
           "not modelled).", "", "![bandwidth vs size](bw_vs_size.png)", ""]
    fig, ax = plt.subplots(figsize=(6, 3.2))
    for test, pts in plot.items():
        xs = [p[0] for p in pts]
        line, = ax.plot(xs, [p[1] for p in pts], "o", ms=2.5, label=f"{test} measured")
        ax.plot(xs, [p[3] for p in pts], "-", lw=1, color=line.get_color(), label=f"{test} model")
        ax.plot(xs, [p[2] for p in pts], ":", lw=1, color=line.get_color(), label=f"{test} link only")
    ax.set_xlabel("transfer size (B)")
    ax.set_ylabel("Gb/s")
    ax.legend(fontsize=5, ncol=3)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "bw_vs_size.png")
    plt.close(fig)

    # ---- F. bandwidth vs window -----------------------------------------------------------------
    body, errs, series = [], [], {}
    for run in RUNS:
        for d in ("rd", "wr"):
            for size in (64, 128, 256, 512):
                for r in rows(data, run, f"bw_dma_win_sweep_{d}_rnd_{size}.csv"):
                    test = "BW_RD" if d == "rd" else "BW_WR"
                    win, cache = int(n(r["WinSZ"])), CACHE[r["Cache"]]
                    m = exp(test, size, win, cache, run)["bw_gbps"]
                    meas = n(r["BW (GB/s)"])
                    errs.append((m - meas) / meas * 100)
                    series.setdefault((run, test, size, cache), []).append((win, meas, m))
    s = stats(errs)
    summary.append(["BW vs window (%)", s["n"], s["median"], s["mean"], s["max"]])
    for (run, test, size, cache), pts in sorted(series.items()):
        if cache in ("warm", "cold") and size in (64, 512):
            e = [(m - meas) / meas * 100 for _, meas, m in pts]
            body.append([run, test, size, cache, pts[0][1], pts[-1][1], pts[0][2], pts[-1][2], max(abs(x) for x in e)])
    md += ["## F. Bandwidth vs host buffer window (random offsets)", "",
           "First (4 KiB) and last (64 MiB) window of each series, measured and modelled (Gb/s), and the largest "
           "error (%) along the series. Without superpages the IO-TLB reach is 64 × 4 KiB = 256 KiB: 64 B reads "
           "and writes collapse beyond it; 512 B transfers barely notice.", "",
           md_table(["run", "test", "size", "cache", "meas. 4K", "meas. 64M", "model 4K", "model 64M", "max |e| %"], body),
           "", f"Error over all {s['n']} points (4 cache states, 4 sizes, 3 runs): median |e| {s['median']:.1f} %, "
           f"mean {s['mean']:.1f} %, max {s['max']:.1f} %.", "", "![bandwidth vs window](bw_vs_window.png)", ""]
    fig, axs = plt.subplots(1, 2, figsize=(8, 3))
    for ax, keys in ((axs[0], [("plain", "BW_RD", 64, "warm"), ("plain", "BW_RD", 64, "cold"),
                               ("plain", "BW_RD", 64, "device_warm")]),
                     (axs[1], [("iommu_nosp", "BW_RD", 64, "warm"), ("iommu_nosp", "BW_WR", 64, "warm"),
                               ("iommu_nosp", "BW_RD", 512, "warm"), ("iommu", "BW_RD", 64, "warm")])):
        for k in keys:
            pts = series[k]
            line, = ax.plot([p[0] for p in pts], [p[1] for p in pts], "o", ms=2.5, label=f"{k[0]} {k[1]} {k[2]}B {k[3]}")
            ax.plot([p[0] for p in pts], [p[2] for p in pts], "-", lw=1, color=line.get_color())
        ax.set_xscale("log", base=2)
        ax.set_xlabel("window (B)")
        ax.set_ylabel("Gb/s")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=5)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "bw_vs_window.png")
    plt.close(fig)

    # ---- G. published facts -----------------------------------------------------------------------
    def lat(test, size, win, cache, **kw):
        return pcie.experiment(test, size, win, cache=cache, **kw)["median_ns"]

    def bw(test, size, win, cache, **kw):
        return pcie.experiment(test, size, win, cache=cache, **kw)["bw_gbps"]

    numa64 = 1 - bw("BW_RD", 64, 8192, "warm", numa="remote") / bw("BW_RD", 64, 8192, "warm")
    numa512 = 1 - bw("BW_RD", 512, 8192, "warm", numa="remote") / bw("BW_RD", 512, 8192, "warm")
    io_rd = 1 - bw("BW_RD", 64, 64 << 20, "warm", iommu=True, superpages=False) / bw("BW_RD", 64, 64 << 20, "warm")
    io_wr = 1 - bw("BW_WR", 64, 64 << 20, "warm", iommu=True, superpages=False) / bw("BW_WR", 64, 64 << 20, "warm")

    # The same quantities read from the data set.
    def med(run, name, cache, win):
        return next(n(r["Med(ns)"]) for r in rows(data, run, name) if r["Cache"] == cache and int(n(r["WinSZ"])) == win)

    def mbw(run, name, cache, win):
        return next(n(r["BW (GB/s)"]) for r in rows(data, run, name) if r["Cache"] == cache and int(n(r["WinSZ"])) == win)

    rd64 = "lat_dma_sweep_rd_rnd_64.csv"
    wr8 = [n(r["Med(ns)"]) - med("plain", "lat_cmd_sweep_wrrd_rnd_08.csv", "Cold", 1 << 20)
           for r in rows(data, "plain", "lat_cmd_sweep_wrrd_rnd_08.csv") if r["Cache"] == "Cold" and n(r["WinSZ"]) >= 4 << 20]
    d_io_rd = 1 - mbw("iommu_nosp", "bw_dma_win_sweep_rd_rnd_64.csv", "HWarm", 64 << 20) / \
        mbw("plain", "bw_dma_win_sweep_rd_rnd_64.csv", "HWarm", 64 << 20)
    d_io_wr = 1 - mbw("iommu_nosp", "bw_dma_win_sweep_wr_rnd_64.csv", "HWarm", 64 << 20) / \
        mbw("plain", "bw_dma_win_sweep_wr_rnd_64.csv", "HWarm", 64 << 20)
    cliff = next(int(n(r["WinSZ"])) for r in rows(data, "iommu_nosp", "bw_dma_win_sweep_rd_rnd_64.csv")
                 if r["Cache"] == "HWarm" and n(r["BW (GB/s)"]) < 0.9 * mbw("plain", "bw_dma_win_sweep_rd_rnd_64.csv", "HWarm",
                                                                              int(n(r["WinSZ"]))))
    m_cliff = next(w for w in (1 << k for k in range(12, 27))
                   if bw("BW_RD", 64, w, "warm", iommu=True, superpages=False) < 0.9 * bw("BW_RD", 64, w, "warm"))
    facts = [
        ["64 B DMA read median (warm)", "~547 ns", f"{med('plain', rd64, 'HWarm', 8192):.1f} ns",
         f"{lat('LAT_RD', 64, 8192, 'warm'):.1f} ns"],
        ["cold − warm read, window 8 KiB < LLC", "~70 ns (8 B, Fig. 7a)",
         f"{med('plain', rd64, 'Cold', 8192) - med('plain', rd64, 'HWarm', 8192):.1f} ns (64 B DMA)",
         f"{lat('LAT_RD', 64, 8192, 'cold') - lat('LAT_RD', 64, 8192, 'warm'):.1f} ns"],
        ["cold − warm read, window 32 MiB > LLC", "0",
         f"{med('plain', rd64, 'Cold', 32 << 20) - med('plain', rd64, 'HWarm', 32 << 20):.1f} ns",
         f"{lat('LAT_RD', 64, 32 << 20, 'cold') - lat('LAT_RD', 64, 32 << 20, 'warm'):.1f} ns"],
        ["8 B write+read, window ≥ 4 MiB vs 1 MiB (DDIO share 1.5 MiB)", "+70 ns",
         f"+{min(wr8):.1f} … +{max(wr8):.1f} ns (CMD)",
         f"+{lat('LAT_WRRD', 8, 8 << 20, 'cold', engine='cmd') - lat('LAT_WRRD', 8, 1 << 20, 'cold', engine='cmd'):.1f} ns"],
        ["NUMA remote latency", "+~100 ns", "not in data set",
         f"+{lat('LAT_RD', 64, 8192, 'warm', numa='remote') - lat('LAT_RD', 64, 8192, 'warm'):.1f} ns"],
        ["NUMA remote 64 B read bandwidth", "−20 … −24 %", "not in data set", f"{-numa64 * 100:.1f} %"],
        ["NUMA remote 512 B read bandwidth", "~0 %", "not in data set", f"{-numa512 * 100:.1f} %"],
        ["IOMMU 4 KiB pages, 64 MiB window: 64 B read BW", "−70 %", f"{-d_io_rd * 100:.1f} %", f"{-io_rd * 100:.1f} %"],
        ["IOMMU 4 KiB pages, 64 MiB window: 64 B write BW", "−55 %", f"{-d_io_wr * 100:.1f} %", f"{-io_wr * 100:.1f} %"],
        ["IO-TLB miss cost (64 B read, cold, 64 MiB)", "~330 ns",
         f"+{med('iommu_nosp', rd64, 'Cold', 64 << 20) - med('plain', rd64, 'Cold', 64 << 20):.1f} ns",
         f"+{lat('LAT_RD', 64, 64 << 20, 'cold', iommu=True, superpages=False) - lat('LAT_RD', 64, 64 << 20, 'cold'):.1f} ns"],
        ["IOMMU cliff (first window with −10 % 64 B read BW)", "past 256 KiB", f"{cliff >> 10} KiB", f"{m_cliff >> 10} KiB"],
    ]
    md += ["## G. Published findings (SIGCOMM'18 §6) vs this data set vs the model", "",
           "Paper values are quoted from the paper's text as summarised in the design brief; where the data set "
           "disagrees (the warm/cold gap, the page-walk cost) the model is calibrated on the data set. NUMA runs "
           "are not in the data set; the model's NUMA figures follow from the UPI latency alone.", "",
           md_table(["finding", "paper", "data set", "model"], facts), ""]

    head = ["# PCIe models vs pcie-bench measurements", "",
            "Generated by `validation/pcie/report.py` (`.venv/bin/hostio pcie validate --out validation/pcie`) "
            "from the pcie-bench data set (Neugebauer et al., SIGCOMM 2018, github.com/pcie-bench/data, Apache-2.0): "
            "NFP-6000 at 1.2 GHz on a Dell T630 with a Xeon E5-2620 v3 (Haswell, 15 MiB LLC), PCIe gen 3 x8. "
            "Model parameters: the defaults of `PcieLatencyParams` / `BenchPlatform` in `crates/hostio-pcie` "
            "(calibration notes in its `latency` module docs).", "",
            "## Error summary", "",
            md_table(["comparison", "points", "median abs. error", "mean abs. error", "max abs. error"],
                     [[c, k, f"{a:.1f}", f"{b:.1f}", f"{m:.1f}"] for c, k, a, b, m in summary]),
            "", "Latency errors in ns, bandwidth errors in % of the measurement.", ""]
    (out / "README.md").write_text("\n".join(head + md) + "\n")
    print(f"wrote {out / 'README.md'} and 5 plots")
    for c, k, a, b, m in summary:
        print(f"  {c:34s} n={k:4d} median |e| {a:6.1f}  mean {b:6.1f}  max {m:6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
