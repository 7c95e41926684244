"""``hostio run | check | presets | sweep | report | advise | reproduce``: the simulator's command line."""
from __future__ import annotations

import argparse
import json
import numbers
import os
import sys
from pathlib import Path

from hostio import outfile, sim, sweep as sweeps
from hostio.cli import integer_arg, number_arg
from hostio.errors import ConfigError, config_error


def _set_help(where: str = "") -> str:
    """Help of a command's --set."""
    return f"override any key{where}: a TOML dotted key and a TOML value, or bare text (repeatable)"


def register(sub) -> None:
    p = sub.add_parser("run", help="simulate one scenario", description="Simulate one scenario file.")
    p.add_argument("scenario", help="scenario TOML file (or the name of a bundled one, e.g. quickstart)")
    p.add_argument("--set", action="append", default=[], metavar="KEY.PATH=VALUE", help=_set_help())
    p.add_argument("--seed", type=integer_arg, help="override run.seed")
    p.add_argument("--json", metavar="PATH|-", help="write the full result as JSON to PATH, or to stdout with -")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("check", help="validate a scenario and print it resolved",
                       description="Validate a scenario and print it resolved (overrides applied; under 'defaults', the values "
                                   "the engine gives the app keys and replacement policy it leaves unset), with the platform it "
                                   "runs on and each replayed capture's figures. Exit status 2 on bad input.")
    p.add_argument("scenario", help="scenario TOML file (or the name of a bundled one, e.g. quickstart)")
    p.add_argument("--set", action="append", default=[], metavar="KEY.PATH=VALUE", help=_set_help())
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("presets", help="list the platform presets and their facts",
                       description="List the platform presets (the names `platform.preset` takes) and their facts.")
    p.add_argument("--json", metavar="PATH|-", nargs="?", const="-",
                   help="write every preset's facts as JSON to PATH, or to stdout with - (the default when no PATH follows)")
    p.set_defaults(func=cmd_presets)

    p = sub.add_parser("sweep", help="run a scenario over keys and seeds, locally or on a Dask cluster",
                       description="Run a scenario over the cartesian product of --axis values and over seeds, locally or on a "
                                   "Dask cluster, into a folder (sweep.json, points.jsonl, results.parquet, table.csv); running "
                                   "it again resumes. Exit status 1 when a point failed, 2 on bad input.")
    p.add_argument("scenario", help="scenario TOML file (or the name of a bundled one, e.g. quickstart)")
    p.add_argument("--axis", action="append", required=True, metavar="KEY.PATH=V1,V2,...", help="a swept key (repeatable, each key once; cartesian product)")
    p.add_argument("--set", action="append", default=[], metavar="KEY.PATH=VALUE", help=_set_help(" of every point"))
    p.add_argument("--seeds", type=integer_arg, default=None, metavar="N", help="run every point on N seeds (run.seed and the N-1 after it)")
    p.add_argument("--out", required=True, help="folder for sweep.json, points.jsonl, results.parquet and table.csv (re-running resumes)")
    _scheduler_options(p)
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("report", help="one self-contained HTML page for a sweep or reproduce folder",
                       description="Write one self-contained HTML page (figures inlined) for a folder written by hostio sweep "
                                   "--out or hostio reproduce --out. Exit status 2 on bad input.")
    p.add_argument("folder", help="a folder written by hostio sweep --out or hostio reproduce --out")
    p.add_argument("--out", dest="report_out", default=None, metavar="PATH",
                   help="HTML file to write, or - for stdout (default FOLDER/report.html); a FIFO, a device or a symbolic link is written through")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("advise", help="search knobs for the cheapest setting that meets a latency, throughput or miss goal",
                       description="Search knobs for the cheapest setting that meets a latency, throughput or miss goal. "
                                   "Exit status 1 when neither a searched setting nor the scenario as given meets it (the closest is "
                                   "reported), 2 on bad input.")
    p.add_argument("scenario", help="scenario TOML file (or the name of a bundled one, e.g. quickstart)")
    p.add_argument("--goal", required=True, choices=("p99", "throughput", "misses"))
    p.add_argument("--slo", type=number_arg, default=None, metavar="VALUE",
                   help="p99: ns at most (default 1.1 x the best median found); throughput: Gb/s at least (default 0.99 x the "
                        "best median found); misses: DMA write miss rate at most (default 0.05)")
    p.add_argument("--knobs", default=None, metavar="KEY[=V1,V2..],...",
                   help="keys to search, not run.* (default platform.ddio_ways, every NIC's rx_descriptors, the cores of every app on a NIC)")
    p.add_argument("--set", action="append", default=[], metavar="KEY.PATH=VALUE", help=_set_help(" of the scenario searched"))
    p.add_argument("--seeds", type=integer_arg, default=3, metavar="N", help="seeds per setting (default 3)")
    p.add_argument("--json", metavar="PATH|-", help="write the advice as JSON to PATH, or to stdout with -")
    _scheduler_options(p)
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=cmd_advise)

    p = sub.add_parser("reproduce", help="reproduce the DDIO, CC-NIC and NetDIMM papers' experiments: figures, tables, summary",
                       description="Reproduce the DDIO, CC-NIC and NetDIMM papers' experiments on several seeds: per experiment "
                                   "a figure, per-run and summary CSVs, then summary.md, claims.csv and summary.json with each "
                                   "claim's criterion and verdict. Interrupting it keeps finished runs; running it again resumes. "
                                   "Exit status 2 on bad input.")
    p.add_argument("--out", default="out/ddio", help="output folder (default out/ddio)")
    p.add_argument("--only", default=None, help="comma-separated experiment ids (default: all); see --list")
    p.add_argument("--list", action="store_true", help="list the experiments (those of --only, if given) and exit")
    p.add_argument("--jobs", type=integer_arg, default=None, help="worker processes (default: CPU count)")
    p.add_argument("--quick", action="store_true", help="shorter simulated time per point (smoke runs)")
    p.add_argument("--scheduler", default="local", metavar="S", help="local (default), dask (a LocalCluster; a Ctrl-C during its start, about a second, is lost), or tcp://HOST:PORT")
    p.add_argument("--seeds", default=None, metavar="N",
                   help="run every point on seeds 1..=N; claims use the median over them (default 5)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=cmd_reproduce)


def _scheduler_options(p) -> None:
    p.add_argument("--scheduler", default="local", metavar="S",
                   help="local (default: processes here), dask (a LocalCluster; a Ctrl-C during its start, about a second, is lost), "
                        "or tcp://HOST:PORT (a running Dask scheduler)")
    p.add_argument("--jobs", type=integer_arg, default=None, help="local or dask worker processes (default: CPU count)")


def resolve_scenario(arg: str) -> str:
    """A file path, or the name of a bundled scenario."""
    if os.path.isfile(arg):
        return arg
    try:  # a bundled scenario, by its name or as the file name it has in the package
        return str(sim.scenario_path(arg))
    except ConfigError:
        what = " (this path exists but is not a regular file)" if os.path.exists(arg) else ""
        raise config_error("scenario", arg, f"an existing TOML file{what} or a bundled scenario ({', '.join(sim.bundled_scenarios())})") from None


def _pct(v) -> str:
    return "n/a" if v is None else f"{100 * v:.1f} %"


def _ns(v) -> str:
    """A latency in ns; null when no packet completed."""
    return "n/a" if v is None else f"{v:.0f}"


def _num(v, digits: int = 4) -> str:
    """A metric for a table: ``digits`` significant digits, but whole numbers (counts, as int,
    NumPy int or float) and values whose ``digits`` significant digits leave no decimal (from
    999.95 up at 4, written 1,000 rather than 1000 or 1e+03) with thousands separators, up to 1e18;
    n/a for no value."""
    if v is None or v != v:
        return "n/a"
    if isinstance(v, bool):
        return str(v)
    short = f"{v:.{digits}g}"
    if isinstance(v, numbers.Integral) or abs(v) < 1e18 and (float(v).is_integer() or abs(v) >= 1 and ("e" in short or "." not in short)):
        return f"{v:,.0f}"
    return short


def summary(r: dict, name: str) -> str:
    m = r["metrics"]
    lat = m["latency_ns"]
    sim_s = r["simulated_us"] * 1e-6
    lines = [
        f"scenario   {name}  (hash {r['scenario_hash']}, seed {r['seed']}, hostio {r['version']})",
        f"platform   {r['platform']['name']}, DDIO mask {r['ddio_mask']}",
        f"simulated  {r['simulated_us']:.0f} µs in {r['wall_seconds']:.2f} s wall "
        f"({r['wall_seconds'] / sim_s:.1f} s per simulated s), {r['events']:,} events",
        f"traffic    offered {m['offered_gbps']:.1f} Gb/s ({m['offered_mpps']:.2f} Mpps) -> "
        f"throughput {m['throughput_gbps']:.1f} Gb/s ({m['throughput_mpps']:.2f} Mpps)",
        f"           dropped {m['dropped_packets']:,} ({sum(n['out_of_buffer_packets'] for n in m['nics'].values()):,} out of RX descriptors), "
        f"PAUSE frames {m['pause_frames']:,}",
        *(f"           {t} replays {c['pcap']} (pcap_timing = {c.get('pcap_timing', 'capture')}"
          + (f", its gaps scaled to {c['rate_gbps']:g} Gb/s" if c.get("rate_gbps") and c.get("pcap_timing", "capture") == "capture" else "")
          + ")"
          for t, c in r["scenario"].get("traffic", {}).items() if c.get("pcap")),
        f"DDIO       PCIe write hit rate {_pct(m['pcie_write_hit_rate'])}, read hit rate {_pct(m['pcie_read_hit_rate'])}; "
        f"allocations {m['ddio_allocations']:,}, evictions {m['ddio_evictions']:,}",
        f"latency    p50 {_ns(lat['p50'])} ns, p90 {_ns(lat['p90'])}, p99 {_ns(lat['p99'])}, p99.9 {_ns(lat['p999'])}, "
        f"max {_ns(lat['max'])}" if lat["p50"] is not None else
        "latency    n/a: no frame that arrived in the measured window was transmitted within it (a longer run.duration_us, "
        "or fewer descriptors, gives it one)",
        f"memory     read {m['memory_read_gbps']:.1f} Gb/s, write {m['memory_write_gbps']:.1f} Gb/s",
    ]
    for nname, n in m["nics"].items():
        if n["attachment"] == "pcie":
            link = f"PCIe d2h {n['pcie_d2h_utilization'] * 100:.1f} %, h2d {n['pcie_h2d_utilization'] * 100:.1f} %"
        else:
            link = ", ".join(f"{k} {_num(v, 3)}" for k, v in n["attachment_metrics"].items()) or "no link"
        lines.append(f"NIC        {nname}: {n['attachment']}; {link}")
    for w in r.get("warnings", []):
        lines.append(f"warning    {w}")
    lines.append("")
    hdr = f"{'app':<14}{'kind':<15}{'Gb/s':>8}{'Mpps':>8}{'p99 ns':>11}{'LLC acc':>11}{'LLC miss':>10}"
    lines.append(hdr)
    for name_, a in m["apps"].items():
        lines.append(
            f"{name_:<14}{a['kind']:<15}{a['throughput_gbps']:>8.1f}{a['throughput_mpps']:>8.2f}"
            f"{_ns(a['latency_ns']['p99']):>11}{a['llc_accesses']:>11,}{a['llc_misses']:>10,}"
        )
    parts = [(n, a["latency_breakdown_ns"]) for n, a in m["apps"].items() if any(v is not None for v in a["latency_breakdown_ns"].values())]
    if parts:
        lines += ["", "p50 breakdown (ns): " + ", ".join(f"{n}: " + " ".join(f"{k} {_ns(v)}" for k, v in b.items()) for n, b in parts)]
    return "\n".join(lines)


def _progress_printer(enabled: bool):
    if not enabled or not sys.stderr.isatty():
        return None
    state = {"last": -1}

    def cb(frac: float) -> None:
        pct = int(frac * 100)
        if pct != state["last"]:
            state["last"] = pct
            print(f"\rsimulating {pct:3d} %", end="" if pct < 100 else "\n", file=sys.stderr, flush=True)

    return cb


def write_json(obj, dest: str) -> None:
    text = json.dumps(obj, indent=2, sort_keys=False)
    if dest == "-":
        print(text)
        return
    outfile.write_text(dest, text + "\n", "--json")


def cmd_run(args) -> int:
    path = resolve_scenario(args.scenario)
    quiet = args.quiet or args.json == "-"
    r = sim.run(path, set=args.set, seed=args.seed, progress=_progress_printer(not quiet))
    if args.json:
        write_json(r, args.json)
    if args.json != "-":
        print(summary(r, args.scenario))
    return 0


def cmd_check(args) -> int:
    r = sim.check(resolve_scenario(args.scenario), set=args.set)
    print(json.dumps(r, indent=2))
    return 0


def cmd_presets(args) -> int:
    ps = sim.presets()
    if args.json:
        write_json(ps, args.json)
        return 0
    for name, p in ps.items():
        llc = p["llc_slices"] * p["llc_mib_per_slice"]
        print(
            f"{name:<22}{p['name']}: {p['cores_per_socket']} cores @ {p['clock_ghz']} GHz, LLC {llc:g} MiB "
            f"{p['llc_ways']}-way {'inclusive' if p['llc_inclusive'] else 'non-inclusive'} in {p['llc_slices']} slices, "
            f"L2 {p['l2_kib']} KiB {p['l2_ways']}-way, I/O ways {p['ddio_default_mask']:#x}"
            + (" (IIO LLC WAYS writes have no effect)" if p.get("ddio_ways_ignored") else "")
        )
    return 0


def cmd_sweep(args) -> int:
    path = resolve_scenario(args.scenario)
    axes = sweeps.parse_axes(args.axis)
    if not args.out:
        raise config_error("--out", args.out, "a folder path")
    out = Path(args.out)
    df = sweeps.sweep(path, axes, set=args.set, seeds=args.seeds, out=out, jobs=args.jobs,
                      scheduler=args.scheduler, progress=not args.quiet)
    failed = df[df["error"].notna()]
    reused = df.attrs.get("reused", 0)
    kept = f" ({reused} of them kept from the folder's earlier runs)" if reused else ""
    print(f"{len(df) - len(failed)} runs done{kept}, {len(failed)} failed; table: {out / 'results.parquet'} (and table.csv)")
    if args.seeds and args.seeds > 1 and len(failed) < len(df):
        summ = sweeps.summarize(df, list(axes))
        cols = [c for c in summ.columns if not c.endswith((".min", ".max"))]
        print("median over seeds [min, max]:")
        for r in summ.to_dict("records"):
            cells = [f"{k}={r[k]}" for k in axes]
            cells += [f"{m} {_num(r[m])} [{_num(r[m + '.min'])}, {_num(r[m + '.max'])}]" for m in cols if m not in axes and m != "seeds"]
            print("  " + "  ".join(cells))
    for r in failed.to_dict("records"):
        where = " ".join(f"{k}={r[k]}" for k in axes)
        print(f"  point {where} seed {r['seed']}: {r['error']}", file=sys.stderr)
    return 1 if len(failed) else 0


def cmd_report(args) -> int:
    from hostio import report

    if not os.path.isdir(args.folder):
        raise config_error("folder", args.folder, "a folder written by hostio sweep --out or hostio reproduce --out")
    dest = args.report_out or str(Path(args.folder) / "report.html")
    outfile.check("--out", dest)
    report.write(args.folder, dest)
    if dest != "-":
        print(f"report: {dest}")
    return 0


def cmd_advise(args) -> int:
    from hostio import advise

    path = resolve_scenario(args.scenario)
    adv = advise.advise(path, goal=args.goal, slo=args.slo, knobs=advise.parse_knobs(args.knobs), set=args.set,
                        seeds=args.seeds, jobs=args.jobs, scheduler=args.scheduler,
                        progress=not (args.quiet or args.json == "-"))
    if args.json:
        write_json(adv, args.json)
    if args.json != "-":
        print(advise.describe(adv))
    return 0 if adv["met"] else 1


def cmd_reproduce(args) -> int:
    from hostio import repro

    only = None
    known = {e.id for e in repro.EXPERIMENTS}
    if args.only is not None:
        only = [s.strip() for s in args.only.split(",")]
        if not all(only):
            raise config_error("--only", args.only, "comma-separated experiment ids without empty items, among: " + ", ".join(sorted(known)))
        bad = [s for s in only if s not in known]
        if bad:
            raise config_error("--only", ",".join(bad), "experiment ids among: " + ", ".join(sorted(known)))
    seeds = repro.DEFAULT_SEEDS
    if args.seeds is not None:
        try:
            seeds = shown = integer_arg(args.seeds)
        except argparse.ArgumentTypeError:
            seeds, shown = 0, args.seeds
        if seeds < 1:
            raise config_error("--seeds", shown, "an integer >= 1")
    if args.list:
        listed = [e for e in repro.EXPERIMENTS if only is None or e.id in only]
        width = max(len(e.id) for e in listed) + 2
        for e in listed:
            print(f"{e.id:<{width}}{e.title}")
        return 0
    if not args.out:
        raise config_error("--out", args.out, "a folder path")
    ok = repro.reproduce(args.out, only=only, jobs=args.jobs, quick=args.quick, progress=not args.quiet, seeds=seeds,
                         scheduler=args.scheduler)
    return 0 if ok else 1
