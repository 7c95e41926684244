"""``hostio report DIR``: one self-contained HTML page for a sweep folder (``hostio sweep --out``) or
a reproduction folder (``hostio reproduce --out``).

Everything is inside the file: figures are PNG data URIs, styles are inline, nothing is fetched.
A sweep page has heat maps of the median over seeds when two axes vary (a grid of them, one per
combination of the other axes' values, when more vary: at most 12, the title says when there were
more), lines with the min–max band over seeds when one varies,
the median/min/max table, the failed points, the scenario and the versions. A reproduction page
renders ``summary.md`` with each experiment's figure embedded and its CSV as a table, and adds the
resolved scenario of each experiment's first point.
"""
from __future__ import annotations

import base64
import html
import io
import itertools
import json
import platform
import re
import sys
from pathlib import Path

from hostio import outfile, sweep as sweeps
from hostio.errors import config_error

#: Metrics drawn for a sweep, in this order, when the table has them.
FIGURE_METRICS = (
    ("throughput_gbps", "throughput (Gb/s)"),
    ("latency_ns.p99", "p99 latency (ns)"),
    ("pcie_write_hit_rate", "PCIe write hit rate"),
    ("dropped_packets", "dropped packets"),
    ("memory_write_gbps", "memory write (Gb/s)"),
)
MAX_PANELS = 12

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}
th{background:#f3f3f3}pre{background:#f7f7f7;padding:.6em;overflow:auto;font-size:.85em}
img{max-width:100%;height:auto}.bad{color:#a00}.muted{color:#666;font-size:.9em}
"""


def write(folder: str | Path, dest: str | Path) -> None:
    """Write the report of ``folder`` to ``dest`` (``-``: stdout): a regular file is replaced
    atomically, a FIFO, a device or a symbolic link's target is written through (see
    :mod:`hostio.outfile`)."""
    outfile.check("dest", str(dest))
    folder = Path(folder)
    if (folder / "sweep.json").is_file():
        page = sweep_page(folder)
    elif (folder / "summary.md").is_file():
        page = reproduce_page(folder)
    elif (folder / "points").is_dir() and any((folder / "points").glob("*/points.jsonl")):
        raise config_error("folder", str(folder), "a finished reproduction: this one has no summary.md yet (interrupted?); "
                                                  "running hostio reproduce --out on it again finishes it, keeping the points already run")
    else:
        raise config_error("folder", str(folder), "a folder written by hostio sweep --out (sweep.json) or hostio reproduce --out (summary.md)")
    if str(dest) == "-":
        sys.stdout.write(page)
        return
    outfile.write_text(str(dest), page, "--out")


def _doc(title: str, body: list[str]) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _png(fig) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return _img(buf.getvalue(), "figure")


def _img(data: bytes, alt: str) -> str:
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{base64.b64encode(data).decode()}">'


def versions() -> dict[str, str]:
    """hostio, Python and the libraries that made the tables and figures."""
    from importlib.metadata import PackageNotFoundError, version

    from hostio import __version__

    out = {"hostio": __version__, "python": platform.python_version(), "machine": f"{platform.system()} {platform.machine()}"}
    for pkg in ("numpy", "pandas", "pyarrow", "matplotlib", "dask", "distributed"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            pass
    return out


def _versions_html() -> str:
    return "<h2>Versions</h2>" + _kv_table(versions())


def _kv_table(d: dict) -> str:
    rows = "".join(f"<tr><th style='text-align:left'>{html.escape(str(k))}</th><td style='text-align:left'>{html.escape(str(v))}</td></tr>" for k, v in d.items())
    return f"<table>{rows}</table>"


def _frame_html(df, max_rows: int | None = None) -> str:
    shown = df if max_rows is None else df.head(max_rows)
    return shown.to_html(index=False, float_format=lambda v: f"{v:.4g}", na_rep="", border=0)


# ---------------------------------------------------------------------------------------------
# Sweep folders


def sweep_page(folder: Path) -> str:
    m = sweeps.manifest(folder)
    df = sweeps.load(folder)
    axes = {k: v for k, v in m["axes"].items()}
    varying = [k for k, v in axes.items() if len(v) > 1]
    total = len(m["points"])
    ok = df[df["error"].isna()] if len(df) else df
    body = [f"<h1>hostio sweep: {html.escape(folder.name)}</h1>"]
    state = "complete" if df.attrs.get("complete") else "<span class='bad'>partial</span>"
    seeds = m.get("seeds")
    points = f" ({total // len(seeds)} points × {len(seeds)} seeds)" if seeds and len(seeds) > 1 and total % len(seeds) == 0 else ""
    body.append(f"<p>{len(df)} of {total} runs{points} ({state}); {len(ok)} ran, {len(df) - len(ok)} failed. "
                f"Axes: {', '.join(f'<code>{html.escape(k)}</code> ({len(v)})' for k, v in axes.items())}; "
                f"seeds: {html.escape(', '.join(map(str, seeds)) if seeds else 'the scenario' + chr(39) + 's own')}.</p>")
    metrics = [(c, label) for c, label in FIGURE_METRICS if c in ok]
    if len(ok) and metrics:
        body.append("<h2>Figures</h2>")
        body += _sweep_figures(ok, axes, varying, metrics)
        summ = sweeps.summarize(ok, list(axes), [c for c, _ in metrics])
        body.append("<h2>Median over seeds, with min and max</h2>")
        body.append(_frame_html(summ))
    failed = df[df["error"].notna()] if len(df) else df
    if len(failed):
        body.append("<h2 class='bad'>Failed points</h2><ul>")
        for _, r in failed.iterrows():
            where = ", ".join(f"{k}={r[k]}" for k in axes)
            body.append(f"<li><code>{html.escape(where)}</code> seed {r['seed']}: {html.escape(str(r['error']))}</li>")
        body.append("</ul>")
    if len(df):
        body.append(f"<details><summary>every row ({len(df)}; results.parquet and table.csv have them all)</summary>")
        cols = list(axes) + ["seed"] + [c for c in sweeps.metric_columns(df, list(axes)) if not c.startswith(("nics.", "apps."))]
        body.append(_frame_html(df[cols]))
        body.append("</details>")
    body.append("<h2>Scenario</h2>")
    if m.get("set"):
        body.append("<p>with " + " ".join(f"<code>--set {html.escape(s)}</code>" for s in m["set"]) + "</p>")
    body.append(f"<pre>{html.escape(m['scenario'])}</pre>")
    engine = f" (engine {html.escape(m['engine'])})" if m.get("engine") else ""
    body.append(f"<p class='muted'>points computed by hostio {html.escape(m['hostio'])}{engine}</p>")
    body.append(_versions_html())
    return _doc(f"hostio sweep {folder.name}", body)


def _sweep_figures(ok, axes: dict, varying: list[str], metrics) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summ = sweeps.summarize(ok, list(axes), [c for c, _ in metrics])
    out = []
    if len(varying) == 1:
        x = varying[0]
        ncol = min(len(metrics), 3)
        nrow = -(-len(metrics) // ncol)
        fig, axs = plt.subplots(nrow, ncol, figsize=(4.2 * ncol, 3.3 * nrow), squeeze=False)
        for ax in axs.flat[len(metrics):]:
            ax.set_visible(False)
        s = summ.sort_values(x) if _numeric(axes[x]) else summ
        xs = s[x].astype(float) if _numeric(axes[x]) else range(len(s))
        for ax, (c, label) in zip(axs.flat, metrics):
            ax.plot(xs, s[c], marker="o", color="tab:blue", label="median")
            ax.fill_between(xs, s[c + ".min"], s[c + ".max"], color="tab:blue", alpha=0.2, label="min–max over seeds")
            ax.set_xlabel(x)
            ax.set_title(label, fontsize=10)
            if not _numeric(axes[x]):
                ax.set_xticks(list(xs), [str(v) for v in s[x]], rotation=30)
            elif _log_spaced(axes[x]):
                ax.set_xscale("log", base=2)
            ax.grid(alpha=0.3)
        axs[0][0].legend(fontsize=8)
        fig.tight_layout()
        out.append(_png(fig))
    elif len(varying) >= 2:
        ya, xa = varying[0], varying[1]
        rest = varying[2:]
        every = list(itertools.product(*(axes[k] for k in rest)))
        combos = every[:MAX_PANELS]
        cut = f"; the first {MAX_PANELS} of {len(every)} panels, the table has every point" if len(every) > MAX_PANELS else ""
        for c, label in metrics:
            ncol = min(len(combos), 3)
            nrow = -(-len(combos) // ncol)
            fig, axs = plt.subplots(nrow, ncol, figsize=(4.4 * ncol, 3.6 * nrow), squeeze=False)
            for ax in axs.flat[len(combos):]:
                ax.set_visible(False)
            for ax, combo in zip(axs.flat, combos):
                part = summ
                for k, v in zip(rest, combo):
                    part = part[part[k] == v]
                grid = part.pivot_table(index=ya, columns=xa, values=c, aggfunc="median", sort=False)
                grid = grid.reindex(index=[v for v in _ordered(axes[ya]) if v in grid.index], columns=[v for v in _ordered(axes[xa]) if v in grid.columns])
                if grid.size == 0 or grid.isna().all().all():
                    # A metric these points do not have (e.g. PCIe hit rates off PCIe).
                    ax.set_axis_off()
                    ax.text(0.5, 0.5, "no value", ha="center", va="center", transform=ax.transAxes, fontsize=8)
                    continue
                im = ax.imshow(grid.to_numpy(dtype=float), aspect="auto", cmap="viridis", origin="lower")
                ax.set_xticks(range(len(grid.columns)), [str(v) for v in grid.columns], rotation=30, fontsize=8)
                ax.set_yticks(range(len(grid.index)), [str(v) for v in grid.index], fontsize=8)
                ax.set_xlabel(xa, fontsize=8)
                ax.set_ylabel(ya, fontsize=8)
                if len(grid.index) * len(grid.columns) <= 64:
                    for (i, j), v in _cells(grid):
                        light = im.norm(v) > 0.6  # viridis is light at the top: dark text there
                        ax.text(j, i, f"{v:.3g}", ha="center", va="center", fontsize=7, color="k" if light else "w")
                if rest:
                    ax.set_title(", ".join(f"{k}={v}" for k, v in zip(rest, combo)), fontsize=8)
                fig.colorbar(im, ax=ax)
            fig.suptitle(f"{label} (median over seeds{cut})", fontsize=11)
            fig.tight_layout()
            out.append(_png(fig))
    return out


def _cells(grid):
    arr = grid.to_numpy(dtype=float)
    for i in range(arr.shape[0]):
        for j in range(arr.shape[1]):
            if arr[i, j] == arr[i, j]:  # not NaN
                yield (i, j), arr[i, j]


def _ordered(values) -> list:
    """An axis's values in the order a plot shows them: numbers ascending, others as given."""
    return sorted(values) if _numeric(values) else list(values)


def _numeric(values) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _log_spaced(values) -> bool:
    v = sorted(values)
    return len(v) >= 3 and v[0] > 0 and v[-1] / v[0] >= 16


# ---------------------------------------------------------------------------------------------
# Reproduction folders


def reproduce_page(folder: Path) -> str:
    try:
        md = (folder / "summary.md").read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise config_error(str(folder / "summary.md"), "(damaged)", "the UTF-8 summary.md that hostio reproduce --out writes") from None
    title = next((ln[2:] for ln in md.splitlines() if ln.startswith("# ")), "hostio reproduction")
    body = [markdown(md, folder)]
    scen = _scenarios(folder)
    if scen:
        body.append("<h2>Scenarios</h2><p class='muted'>the resolved scenario of each experiment's first point</p>")
        for eid, s in scen.items():
            body.append(f"<details><summary>{html.escape(eid)}</summary><pre>{html.escape(json.dumps(s, indent=1))}</pre></details>")
    body.append(_versions_html())
    return _doc(title, body)


def _scenarios(folder: Path) -> dict:
    """Each experiment's resolved scenario of its first point: the finished record with the lowest
    point index, then seed (``points.jsonl`` is in completion order, which depends on the workers)."""
    out = {}
    for log in sorted((folder / "points").glob("*/points.jsonl")):
        done = [r for r in sweeps.read_log(log).values() if "result" in r]
        if done:
            first = min(done, key=lambda r: (r["index"] if sweeps._int(r.get("index")) else 0, r["result"]["seed"], r["id"]))
            out[log.parent.name] = first["result"].get("scenario")
    return out


def _inline(text: str) -> str:
    text = html.escape(text, quote=False)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", text)
    return text


def _pipe_cells(line: str) -> list[str]:
    """The cells of a pipe-table row; ``\\|`` inside a cell is a literal bar, not a separator."""
    line = line.strip()
    line = line[1:] if line.startswith("|") else line
    line = line[:-1] if line.endswith("|") and not line.endswith("\\|") else line
    return re.split(r"(?<!\\)\|", line)


def _read_csv(path: Path):
    """A CSV table that hostio reproduce wrote; a damaged one is a ConfigError naming it."""
    import pandas as pd

    try:
        return pd.read_csv(path)
    except (ValueError, UnicodeDecodeError) as exc:  # pandas' ParserError and EmptyDataError are ValueErrors
        raise config_error(str(path), "(damaged)", f"a CSV table as hostio reproduce writes it ({type(exc).__name__}: {one_line(exc)})") from None


def one_line(exc) -> str:
    return " ".join(str(exc).split())


def markdown(md: str, folder: Path) -> str:
    """The subset of Markdown that ``summary.md`` uses: headings, paragraphs, lists, pipe tables,
    images (embedded from ``folder``), ``<details>`` blocks; a CSV next to an image becomes a table."""
    out: list[str] = []
    lines = md.splitlines()
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("#"):
            level = len(ln) - len(ln.lstrip("#"))
            out.append(f"<h{level}>{_inline(ln[level:].strip())}</h{level}>")
        elif m := re.fullmatch(r"!\[([^\]]*)\]\(([^)]+)\)", ln.strip()):
            img = folder / m.group(2)
            if img.is_file() and img.resolve().is_relative_to(folder.resolve()):
                out.append(_img(img.read_bytes(), m.group(1)))
                csv = img.with_suffix(".csv")
                if csv.is_file() and csv.resolve().is_relative_to(folder.resolve()):  # as the figure, only from the folder
                    out.append(f"<details><summary>{html.escape(csv.name)}</summary>{_frame_html(_read_csv(csv))}</details>")
            else:
                out.append(f"<p class='bad'>missing figure {html.escape(m.group(2))}</p>")
        elif ln.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = [c.strip().replace("\\|", "|") for c in _pipe_cells(lines[i])]
                if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                    rows.append(cells)
                i += 1
            i -= 1
            if rows:  # (separator rows only: nothing to show)
                head = "".join(f"<th>{_inline(c)}</th>" for c in rows[0])
                rest = "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
                out.append(f"<table><tr>{head}</tr>{rest}</table>")
        elif ln.startswith("- "):
            out.append("<ul>")
            while i < len(lines) and lines[i].startswith("- "):
                out.append(f"<li>{_inline(lines[i][2:])}</li>")
                i += 1
            i -= 1
            out.append("</ul>")
        elif ln.startswith("<details><summary>") or ln.startswith("</details>"):
            summ = re.match(r"<details><summary>(.*?)</summary>", ln)
            out.append(f"<details><summary>{html.escape(summ.group(1))}</summary>" if summ else "</details>")
        elif ln.strip():
            out.append(f"<p>{_inline(ln)}</p>")
        i += 1
    return "\n".join(out)
