"""``hostio pcie``: the PCIe bandwidth and latency models on the command line (see hostio.cli).

Every sub-command calls :mod:`hostio.pcie`; this module only parses and prints. Numbers are taken
as text and converted by the API so that bad input ends as one ``ConfigError`` line (exit 2); an
error the API reports about one of its keywords (``eth_gbps``, ``addr_bits``, ...) is reported
about the option the user typed (``--eth-gbps``, ``--addr``), with the text typed.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from hostio import outfile, pcie
from hostio.errors import ConfigError, config_error

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
          "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}
_UNIT_LETTERS = ("k", "m", "g", "t")
MAX_SIZES = 1_000_000  # sizes in one list, all ranges together


def _shown(text):
    """A value as an error shows it: a plain number as a number, anything else as the text typed."""
    t = str(text).strip()
    return int(t) if t.isascii() and t.isdigit() and len(t) <= 20 else text


def parse_bytes(key: str, text: str, value=None, limit: int = pcie.MAX_TRANSFER) -> int:
    """``4096``, ``4K``, ``4KiB``, ``64M``, ``1TiB`` → bytes (binary units), at most ``limit``
    (default :data:`hostio.pcie.MAX_TRANSFER`, the largest transfer; a window takes
    :data:`hostio.pcie.MAX_WINDOW`). An error names option ``key`` and ``value`` (the option's
    whole text; default ``text``)."""
    t = str(text).strip().lower()
    num = t.rstrip("kmgtib")
    unit = t[len(num):]
    if unit not in _UNITS or not (num.isascii() and num.isdigit()) or len(num) > 20 \
            or int(num) * _UNITS[unit] > limit:
        raise config_error(key, _shown(text if value is None else value),
                           f"a byte count in {pcie.byte_range(limit)} such as 64, 4K, 256KiB, 64M "
                           f"({', '.join(u.upper() for u in _UNIT_LETTERS if _UNITS[u] <= limit)} are powers of 1024)")
    return int(num) * _UNITS[unit]


def parse_sizes(key: str, text: str) -> list[int]:
    """Comma-separated transfer sizes; ``A:B`` is every size from A to B, ``A:B:S`` steps by S;
    at most ``MAX_SIZES`` sizes in all."""
    out: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        if ":" in part:
            bits = part.split(":")
            if len(bits) not in (2, 3):
                raise config_error(key, text, "sizes like 64,128 or ranges A:B or A:B:STEP")
            lo, hi = parse_bytes(key, bits[0], text), parse_bytes(key, bits[1], text)
            step = parse_bytes(key, bits[2], text) if len(bits) == 3 else 1
            if step <= 0 or hi < lo:
                raise config_error(key, text, "ranges A:B[:STEP] with A ≤ B and STEP ≥ 1")
            sizes = range(lo, hi + 1, step)
        else:
            sizes = [parse_bytes(key, part, text)]
        if len(out) + len(sizes) > MAX_SIZES:
            raise config_error(key, text, f"at most {MAX_SIZES} sizes in all (lists and ranges together)")
        out.extend(sizes)
    return out


#: The API's keys (:mod:`hostio.pcie` and the Rust declaration behind it) that stand for an option
#: of these commands; each is the option's argparse name, but for those in ``_KEY_OPTION``.
_API_KEYS = frozenset({"gen", "lanes", "mps", "mrrs", "rcb", "addr", "addr_bits", "eth_gbps", "rate_gbps", "op",
                       "design", "kind", "location", "engine", "test", "cache", "numa", "size", "frame", "window",
                       "iommu", "iotlb_miss", "superpages"})
_KEY_OPTION = {"addr_bits": "addr", "superpages": "no_superpages"}


def allowed_part(rest: str) -> str:
    """What is allowed, from the part of an error after ``key = ``: the value is a number or a
    quoted string (Python's repr or Rust's Debug form, either of which may hold ``: ``)."""
    if rest[:1] in ("'", '"'):
        i = 1
        while i < len(rest):
            if rest[i] == "\\":
                i += 2
            elif rest[i] == rest[0]:
                if rest.startswith(": ", i + 1):
                    return rest[i + 3:]
                break
            else:
                i += 1
    return rest.partition(": ")[2]


@contextlib.contextmanager
def _as_options(args, **renamed: str):
    """Report the API's error about one of its keys as one about the option the user typed, with
    the text typed: ``size = 2147483648: ...`` for ``--size 2G`` reads ``--size = '2G': ...`` and
    ``addr_bits = 16: ...`` for ``--addr 16`` reads ``--addr = 16: ...``. ``renamed`` maps a key
    to the argparse name of its option where this command's differs (``size="sizes"``)."""
    try:
        yield
    except ConfigError as exc:
        key, _, rest = str(exc).partition(" = ")
        name = renamed.get(key, _KEY_OPTION.get(key, key)) if key in _API_KEYS else None
        text = getattr(args, name, None) if name else None
        if text is None or not rest:
            raise
        raise config_error("--" + name.replace("_", "-"), _shown(text), allowed_part(rest)) from None


def _add_link(p, with_gen_lanes: bool = True) -> None:
    g = p.add_argument_group("link (defaults: gen 3, x8, MPS 256, MRRS 512, RCB 64, 64-bit)" if with_gen_lanes
                             else "link (generations 1-7 and widths x1-x32 are searched; defaults: MPS 256, MRRS 512, RCB 64, 64-bit)")
    if with_gen_lanes:
        g.add_argument("--gen", default=None, help="PCIe generation 1..=7")
        g.add_argument("--lanes", default=None, help="lanes: 1, 2, 4, 8, 16, 32")
    g.add_argument("--mps", default=None, help="max payload size: 128..=4096, power of two")
    g.add_argument("--mrrs", default=None, help="max read request size: 128..=4096, power of two")
    g.add_argument("--rcb", default=None, help="read completion boundary: 64, 128, 256, 512")
    g.add_argument("--addr", default=None, help="address bits: 32 or 64")
    g.add_argument("--ecrc", action="store_true", help="add the 4 B ECRC digest to every TLP")
    g.add_argument("--rcb-chunks", action="store_true", help="completions split at RCB instead of MPS")


def _link(args) -> dict:
    kw = {k: getattr(args, k, None) for k in ("gen", "lanes", "mps", "mrrs", "rcb", "addr")}
    return dict(kw, ecrc=args.ecrc, rcb_chunks=args.rcb_chunks)


def _add_output(p, csv_too: bool = True) -> None:
    p.add_argument("--json", metavar="FILE", help="write JSON to FILE ('-' = stdout) instead of a table")
    if csv_too:
        p.add_argument("--csv", metavar="FILE", help="write CSV to FILE ('-' = stdout) instead of a table "
                                                     "(with --json too: both are written)")


def _check_outputs(args) -> None:
    """``--json`` and ``--csv`` together write both, so they must name different destinations."""
    j, c = getattr(args, "json", None), getattr(args, "csv", None)
    if j and c and (j == c or ("-" not in (j, c) and os.path.realpath(j) == os.path.realpath(c))):
        raise config_error("--csv", c, f"a destination other than --json's ({j!r}): both are written")


def _write(key: str, path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
    else:
        outfile.write_text(path, text, key)


def _emit(args, rows: list[dict], columns: list[tuple[str, str, str]]) -> None:
    """Write rows as JSON and/or CSV (both if both are asked for), else as an aligned table.
    ``columns`` = (key, header, format)."""
    json_to, csv_to = getattr(args, "json", None), getattr(args, "csv", None)
    if json_to:
        _write("--json", json_to, json.dumps(rows, indent=2) + "\n")
    if csv_to:
        buf = io.StringIO(newline="")
        w = csv.writer(buf)
        w.writerow([c[0] for c in columns])
        for r in rows:
            w.writerow([r[c[0]] for c in columns])
        _write("--csv", csv_to, buf.getvalue())
    if not (json_to or csv_to):
        print(format_table(rows, columns))


def format_table(rows: list[dict], columns: list[tuple[str, str, str]]) -> str:
    cells = [[h for _, h, _ in columns]] + [[format(r[k], f) for k, _, f in columns] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells)


BANDWIDTH_COLUMNS = [
    ("size", "size", "d"),
    ("raw_gbps", "raw_gbps", ".3f"),
    ("tlp_gbps", "tlp_gbps", ".3f"),
    ("write_gbps", "write_gbps", ".3f"),
    ("read_gbps", "read_gbps", ".3f"),
    ("read_write_gbps", "read_write_gbps", ".3f"),
    ("write_tps", "write_Mtps", "_mtps"),
]


def _fmt_rows(rows, columns):
    # "_mtps" renders transactions/s as millions.
    out_cols = []
    for k, h, f in columns:
        if f == "_mtps":
            for r in rows:
                r.setdefault("_" + k, r[k] / 1e6)
            out_cols.append(("_" + k, h, ".3f"))
        else:
            out_cols.append((k, h, f))
    return out_cols


def cmd_bandwidth(args) -> int:
    _check_outputs(args)
    sizes = parse_sizes("--size", args.size)
    with _as_options(args):
        rows = pcie.bandwidth(sizes, **_link(args))
    if args.json or args.csv:
        cols = [(k, k, "") for k in rows[0].keys()]
        _emit(args, rows, cols)
    else:
        cols = _fmt_rows(rows, BANDWIDTH_COLUMNS + [("read_tps", "read_Mtps", "_mtps"), ("read_write_tps", "rdwr_Mtps", "_mtps")])
        print(format_table(rows, cols))
    return 0


NIC_COLUMNS = [
    ("frame", "frame", "d"),
    ("dma_bytes", "dma_B", "d"),
    ("bidir_gbps", "bidir_gbps", ".3f"),
    ("tx_gbps", "tx_gbps", ".3f"),
    ("rx_gbps", "rx_gbps", ".3f"),
    ("line_rate_gbps", "line_rate_gbps", ".3f"),
    ("bidir_mpps", "bidir_Mpps", ".3f"),
    ("line_rate_mpps", "line_Mpps", ".3f"),
]


def _explain(design: str, frame: int, info: dict) -> str:
    lines = [f"{design} NIC, frame {frame} B ({info['result']['dma_bytes']} B DMA'd per packet):"]
    for path in ("tx", "rx"):
        rows = [{"name": t["name"], "dir": t["dir"], "bytes": t["bytes_per_occurrence"],
                 "every": t["every_packets"], "per_packet": t["wire_bytes"]} for t in info[path]]
        lines.append(f"  {path.upper()} path")
        lines.append("    " + format_table(rows, [("name", "transaction", ""), ("dir", "dir", ""), ("bytes", "bytes", "d"),
                                                    ("every", "every_pkts", "d"), ("per_packet", "B/packet", ".3f")])
                     .replace("\n", "\n    "))
        r = info["result"]
        lines.append(f"    per packet: h2d {r[path + '_h2d_bytes']:.3f} B, d2h {r[path + '_d2h_bytes']:.3f} B")
    return "\n".join(lines)


def cmd_nic(args) -> int:
    _check_outputs(args)
    frames = parse_sizes("--frame", args.frame)
    with _as_options(args):
        eth = pcie.gbps("eth_gbps", args.eth_gbps, pcie.MAX_ETH_GBPS)
        rows = pcie.nic(args.design, frames, vlan=args.vlan, compat=args.pciebench_compat, eth_gbps=eth, **_link(args))
    if args.explain:
        for f in frames:
            info = pcie.nic_transactions(args.design, f, vlan=args.vlan, compat=args.pciebench_compat,
                                         eth_gbps=eth, **_link(args))
            print(_explain(args.design, f, info), file=sys.stdout if not (args.json == "-" or args.csv == "-") else sys.stderr)
    if args.json or args.csv:
        _emit(args, rows, [(k, k, "") for k in rows[0].keys()])
    else:
        print(format_table(rows, NIC_COLUMNS))
    return 0


def cmd_link_for(args) -> int:
    size = parse_bytes("--size", args.size)
    with _as_options(args):
        rate = pcie.gbps("rate_gbps", args.rate_gbps)
        res = pcie.link_for(rate, size, op=args.op, **_link(args))
    if args.json:
        _emit(args, res, [])  # type: ignore[arg-type]
        return 0 if res else 1
    if res is None:
        print(f"no gen 1-7 x1-x32 link carries {rate:g} Gb/s of {args.op} at {args.size} B")
        return 1
    print(f"gen{res['gen']} x{res['lanes']}: raw {res['raw_gbps']:.3f} Gb/s, TLP {res['tlp_gbps']:.3f} Gb/s, "
          f"{args.op} at {args.size} B {res['achieved_gbps']:.3f} Gb/s")
    return 0


def cmd_latency(args) -> int:
    size = parse_bytes("--size", args.size)
    with _as_options(args):
        res = pcie.latency(args.kind, size, location=args.location, engine=args.engine,
                           iotlb_miss=args.iotlb_miss, iommu=args.iommu)
    if args.json:
        _emit(args, res, [])  # type: ignore[arg-type]
        return 0
    for k, v in res.items():
        print(f"{k:18s} {v:10.3f}")
    return 0


def cmd_bench(args) -> int:
    size = parse_bytes("--size", args.size)
    window = parse_bytes("--window", args.window, limit=pcie.MAX_WINDOW)
    with _as_options(args):
        res = pcie.experiment(args.test, size, window, cache=args.cache, numa=args.numa, iommu=args.iommu,
                              superpages=not args.no_superpages, engine=args.engine)
    if args.json:
        _emit(args, res, [])  # type: ignore[arg-type]
        return 0
    print(f"{res['test']} size {res['size']} B window {res['window']} B: "
          f"LLC hit p={res['llc_hit_probability']:.3f}, IO-TLB miss p={res['iotlb_miss_probability']:.3f}")
    if res["median_ns"] is not None:
        print(f"  median {res['median_ns']:.1f} ns, mean {res['mean_ns']:.1f} ns")
        for k, v in res["parts"].items():
            if k != "total_ns":
                print(f"    {k:16s} {v:8.1f}")
    else:
        print(f"  {res['bw_gbps']:.3f} Gb/s, {res['transfers_per_s'] / 1e6:.3f} M transfers/s "
              f"(slowest stage: {res['bottleneck']})")
    return 0


def plot_bandwidth(sizes: list[int], link: dict, eth_gbps: float, designs: list[str], compat: bool) -> bytes:
    """PNG of the effective write/read/read+write bandwidth vs transfer size, with Ethernet line
    rate and the NIC designs' bidirectional throughput (frame = size + 4 B FCS)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = pcie.bandwidth(sizes, **link)
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    for key, label in (("write_gbps", "DMA write"), ("read_gbps", "DMA read"), ("read_write_gbps", "read+write")):
        ax.plot(sizes, [r[key] for r in rows], label=label, lw=1)
    frames = [s + 4 for s in sizes if s + 4 in pcie.ETH_FRAMES]
    if frames:
        eth = pcie.nic(designs[0] if designs else "dpdk", frames, eth_gbps=eth_gbps, compat=compat, **link)
        ax.plot([f - 4 for f in frames], [r["line_rate_gbps"] for r in eth], "k--", lw=1,
                label=f"{eth_gbps:g} GbE line rate (−FCS)")
        for d in designs:
            res = pcie.nic(d, frames, compat=compat, **link)
            ax.plot([f - 4 for f in frames], [r["bidir_gbps"] for r in res], lw=1, label=f"{d} NIC bidir")
    ax.set_xlabel("transfer size (bytes)")
    ax.set_ylabel("Gb/s")
    ax.set_title(f"PCIe gen{link.get('gen') or 3} x{link.get('lanes') or 8}: bandwidth vs transfer size", fontsize=9)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def cmd_plot(args) -> int:
    if not args.out.lower().endswith(".png"):
        raise config_error("--out", args.out, "a .png file name")
    outfile.check("--out", args.out)
    sizes = parse_sizes("--sizes", args.sizes)
    designs = [d.strip() for d in args.design.split(",")] if args.design else []
    for d in designs:
        if d not in pcie.DESIGNS:
            raise config_error("--design", args.design, f"a comma list of {', '.join(pcie.DESIGNS)} ({d!r} is not one)")
    with _as_options(args, size="sizes"):
        # Checked here: the line rate is drawn only where a size is an Ethernet frame.
        eth = pcie.gbps("eth_gbps", args.eth_gbps, pcie.MAX_ETH_GBPS)
        png = plot_bandwidth(sizes, _link(args), eth, designs, args.pciebench_compat)
    outfile.write_text(args.out, png, "--out")
    print(f"wrote {args.out}")
    return 0


def cmd_validate(args) -> int:
    import runpy

    root = Path(pcie.__file__).resolve().parents[2]
    script = root / "validation" / "pcie" / "report.py"
    if not script.exists():
        raise ConfigError(f"validation/pcie/report.py = {str(script)!r}: needs a source checkout of hostio")
    mod = runpy.run_path(str(script))
    # The report writes README.md and five PNGs into the folder: never over a README.md it did
    # not write (`--out .` in a checkout would replace the project's).
    out = Path(args.out)
    allowed = "an output directory whose README.md, if any, is an earlier pcie validation report"
    if not args.out.strip():
        raise config_error("--out", args.out, allowed)
    if out.exists() and not out.is_dir():
        raise config_error("--out", args.out, "a directory to write the report into (this path is a file)")
    readme = out / "README.md"
    if readme.exists():
        try:
            ours = mod["GENERATED_BY"] in readme.read_text(errors="replace")[:2000]
        except OSError:
            ours = False
        if not ours:
            raise config_error("--out", args.out, allowed)
    # The folders this run makes (the first of them missing now, and those below it): removed
    # again, if empty, when the report fails.
    made = [p for p in [out, *out.parents] if not p.exists()]
    try:  # the report's first step, done here so that a failure names --out
        out.mkdir(parents=True, exist_ok=True)
        # The report is written into a fresh folder inside --out and moved into place only once
        # complete: data that fails half-way leaves nothing behind.
        tmp = Path(tempfile.mkdtemp(prefix=".pcie-validate-", dir=out))
    except OSError as exc:
        raise config_error("--out", args.out, f"a directory this user may create ({outfile.folder_error(out, exc)})") from None
    ok = False
    try:
        # Looked for once --out is known to be usable (a folder made for it goes again below).
        data_key, data_value = mod["data_key"](args.data)
        shown = data_value if data_value is not None else "(not given)"
        try:
            found = mod["find_data"](args.data)
        except OSError as exc:
            raise config_error(data_key, shown, f"a folder holding the data set that this user may read "
                                                f"({exc.filename}: {exc.strerror or exc})") from None
        if found is None:
            raise config_error(data_key, shown, mod["not_found"](args.data))
        if found.resolve() == out.resolve() or found.resolve() in out.resolve().parents:
            raise config_error("--out", args.out, f"a directory outside the pcie-bench data set ({found})")
        said = io.StringIO()
        data = str(found)
        try:
            with contextlib.redirect_stdout(said):
                rc = int(mod["main"](["--out", str(tmp), "--data", data]) or 0)
        except (KeyError, ValueError, IndexError, TypeError, ArithmeticError, StopIteration, csv.Error) as exc:
            # Damaged CSVs: a missing column or row, a cell that is not a number, no rows, bad bytes.
            raise config_error(data_key, data, f"pcie-bench's CSVs as it writes them (reading them failed: {type(exc).__name__}: {exc})") from None
        except OSError as exc:
            # A file of the data set (as named, a link not followed), not one of the report's.
            where = os.path.abspath(exc.filename) if exc.filename is not None else None
            if where is None or any(where.startswith(os.path.abspath(p) + os.sep) for p in (tmp, out)) \
                    or not where.startswith(os.path.abspath(data) + os.sep):
                raise
            raise config_error(data_key, data, f"a pcie-bench data set with all its files ({exc.filename}: {exc.strerror or exc})") from None
        for f in sorted(tmp.iterdir()):
            os.replace(f, out / f.name)
        ok = True
        print(said.getvalue().replace(str(tmp), str(out)), end="")
        return rc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if not ok:
            # Only folders this run made and nothing else wrote into (another run may share them).
            for p in made:
                with contextlib.suppress(OSError):
                    p.rmdir()


def register(subparsers) -> None:
    p = subparsers.add_parser("pcie", help="PCIe bandwidth and latency models (pcie-bench semantics)",
                              description="PCIe bandwidth, NIC transaction and latency models.")
    sub = p.add_subparsers(dest="pcie_command", required=True, metavar="SUBCOMMAND")

    b = sub.add_parser("bandwidth", help="raw/TLP/effective DMA bandwidth per transfer size")
    _add_link(b)
    b.add_argument("--size", required=True, help="sizes: 64,128 or ranges 64:1500 / 64:4096:64")
    _add_output(b)
    b.set_defaults(func=cmd_bandwidth)

    n = sub.add_parser("nic", help="NIC designs: throughput vs Ethernet line rate, transaction lists")
    n.add_argument("--design", required=True, help="simple, kernel or dpdk")
    n.add_argument("--frame", required=True, help="Ethernet frame sizes incl. FCS: 64,1518 or 64:1518:8")
    _add_link(n)
    n.add_argument("--vlan", action="store_true", help="frames carry a 4 B 802.1Q tag on top of --frame")
    n.add_argument("--eth-gbps", default="40", help="Ethernet line rate, Gb/s (default 40, as pcie-bench)")
    n.add_argument("--pciebench-compat", action="store_true",
                   help="reproduce the public pcie-bench model, including its two slips (the RX descriptor-read request dropped; 16 B instead of 20 B of line-rate framing)")
    n.add_argument("--explain", action="store_true", help="print each transaction and its bytes per direction")
    _add_output(n)
    n.set_defaults(func=cmd_nic)

    lf = sub.add_parser("link-for", help="smallest gen/lanes link that carries a rate at a transfer size",
                        description="Smallest gen/lanes link that carries a rate at a transfer size. Exit status 1 when no gen 1-7 x1-x32 link does, 2 on bad input.")
    lf.add_argument("--rate-gbps", required=True)
    lf.add_argument("--size", required=True)
    lf.add_argument("--op", default="write", help="write (default), read or read_write")
    _add_link(lf, with_gen_lanes=False)
    _add_output(lf, csv_too=False)
    lf.set_defaults(func=cmd_link_for)

    la = sub.add_parser("latency", help="latency of one transaction, part by part")
    la.add_argument("--kind", default="dma_read", help="dma_read, dma_write, wrrd, mmio_read, mmio_write")
    la.add_argument("--size", required=True)
    la.add_argument("--location", default=None, help="DMA kinds: llc (default), dram, remote_llc, remote_dram")
    la.add_argument("--engine", default=None, help="DMA kinds: dma (descriptor engine, default) or cmd (direct command)")
    la.add_argument("--iommu", action="store_true", help="DMA kinds: translated by the IOMMU")
    la.add_argument("--iotlb-miss", action="store_true", help="DMA kinds: the translation misses the IO-TLB (implies --iommu)")
    _add_output(la, csv_too=False)
    la.set_defaults(func=cmd_latency)

    be = sub.add_parser("bench", help="what pcie-bench would measure on the modelled platform")
    be.add_argument("--test", required=True, help="LAT_RD, LAT_WRRD, BW_RD, BW_WR, BW_RDWR")
    be.add_argument("--size", required=True)
    be.add_argument("--window", required=True, help="host buffer window, e.g. 8K, 64M")
    be.add_argument("--cache", default="warm", help="cold, warm, device_warm, thrash")
    be.add_argument("--numa", default="local", help="local or remote")
    be.add_argument("--iommu", action="store_true")
    be.add_argument("--no-superpages", action="store_true", help="IOMMU maps 4 KiB pages only")
    be.add_argument("--engine", default="dma", help="dma (descriptor engine) or cmd (direct command): how the device issues its DMAs, in every test")
    _add_output(be, csv_too=False)
    be.set_defaults(func=cmd_bench)

    pl = sub.add_parser("plot", help="PNG of bandwidth vs transfer size with the Ethernet line rate")
    pl.add_argument("--out", required=True, help="output .png")
    pl.add_argument("--sizes", default="1:1500", help="size range (default 1:1500)")
    pl.add_argument("--design", default="", help="also draw these NIC designs, e.g. simple,kernel,dpdk")
    pl.add_argument("--eth-gbps", default="40")
    pl.add_argument("--pciebench-compat", action="store_true")
    _add_link(pl)
    pl.set_defaults(func=cmd_plot)

    v = sub.add_parser("validate", help="write the model-vs-measurement report (tables + PNGs)")
    v.add_argument("--out", required=True, help="output directory")
    v.add_argument("--data", default=None, help="pcie-bench data directory (github.com/pcie-bench/data; default: $HOSTIO_PCIE_BENCH_DATA, else "
                        "shared/validation/pcie-bench in the checkout or next to it)")
    v.set_defaults(func=cmd_validate)
