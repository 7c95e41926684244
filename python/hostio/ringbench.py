"""``hostio ringbench``: CC-NIC's descriptor-ring choices measured between two real cores.

Two pinned threads share descriptor rings: the host posts TX descriptors, the "NIC" consumes
them and echoes each one on an RX ring of the same kind (the completion path), so round trips
are timed on one clock and one-way latency = round trip / 2. The choices under test are those
of the CC-NIC paper (Schuh et al., ASPLOS'24, §4): signaling ``doorbell`` (tail index on its own
line) or ``inline`` (ready flag in the descriptor); layout ``padded`` (one 16 B descriptor per
64 B line), ``packed`` (four per line, each with its own flag) or ``grouped`` (four per line, one
flag per line, a batch starts a new line); batch size 1..64; buffer pool ``shared`` or separate
free ``queues``; optional payload copy of 64..1500 B. The ring itself is documented in
``crates/hostio-hw/src/ring.rs``.

Each configuration runs for ``duration_ms``: the first half measures latency with one batch in
flight (p50, p99, min; at most 200,000 round trips, so a fast link ends this half early), the
second max rate with the window kept full (million descriptors per
second; Gbps = rate × payload × 8). Next to every measurement the coherent-link model
(``crates/hostio-hw/src/coherent.rs``) predicts both from the measured line-transfer latency of
the same two cores, and the error is reported.

``--sweep ablation`` runs the configurations of the paper's ablation and prints the measured
ratios beside the model's and the paper's (Ice Lake over UPI: inline −37 % min latency at 64 B
and 1.3× max rate; packing 2.9× throughput over one per line; grouped 3.0× throughput at the
padded min latency).
"""
from __future__ import annotations

import json

from hostio import _core
from hostio.errors import HostioError, config_error

SIGNALINGS = ("doorbell", "inline")
LAYOUTS = ("padded", "packed", "grouped")
POOLS = ("shared", "queues")
SWEEPS = ("none", "ablation", "grid")

#: CC-NIC ablation ratios (paper §6, Ice Lake + UPI), keyed like the rows of ``ablation``.
PAPER = {
    "inline_vs_doorbell_min_latency": 0.63,
    "inline_vs_doorbell_max_rate": 1.3,
    "packed_vs_padded_max_rate": 2.9,
    "grouped_vs_padded_max_rate": 3.0,
    "grouped_vs_padded_min_latency": 1.0,
}


def config(signaling="inline", layout="grouped", batch=1, pool="shared", payload_bytes=0, window=256,
           duration_ms=200, cpus=None) -> dict:
    """Validated configuration dict (bad values raise ``ConfigError`` naming the setting as the
    command line does: ``payload`` for ``payload_bytes``)."""
    if signaling not in SIGNALINGS:
        raise config_error("signaling", signaling, " or ".join(SIGNALINGS))
    if layout not in LAYOUTS:
        raise config_error("layout", layout, ", ".join(LAYOUTS))
    if pool not in POOLS:
        raise config_error("pool", pool, " or ".join(POOLS))
    if not isinstance(batch, int) or not 1 <= batch <= 64:
        raise config_error("batch", batch, "1..=64 descriptors")
    if payload_bytes != 0 and not 64 <= payload_bytes <= 1500:
        raise config_error("payload", payload_bytes, "0 (no payload) or 64..=1500 bytes")
    if not batch <= window <= 4096:
        raise config_error("window", window, f"{batch}..=4096 descriptors (at least the batch)")
    if not 2 <= duration_ms <= 60000:
        raise config_error("duration_ms", duration_ms, "2..=60000")
    if cpus is not None:
        allowed = _core.hw_allowed_cpus()
        if len(cpus) != 2 or cpus[0] == cpus[1] or any(c not in allowed for c in cpus):
            raise config_error("cpus", ",".join(map(str, cpus)), f"two different cpus of {allowed}")
    return {"signaling": signaling, "layout": layout, "batch": batch, "pool": pool, "payload_bytes": payload_bytes,
            "window": window, "duration_ms": duration_ms, "cpus": list(cpus) if cpus else None}


def require_two_cpus(cpus=None) -> list[int]:
    allowed = _core.hw_allowed_cpus()
    use = list(cpus) if cpus else allowed[:2]
    if len(use) < 2:
        raise HostioError(f"ringbench needs two cpus (a host core and a NIC core); this process may use only {allowed}")
    return use


def line_transfer_ns(cpus: list[int], quick: bool = True) -> float:
    """One-way line transfer between the two cores (ping-pong RTT / 2), the model's input."""
    cfg = {"a": cpus[0], "b": cpus[1], "samples": 21 if quick else 101, "rounds": 200}
    return json.loads(_core.hw_c2c_pair(json.dumps(cfg)))["one_way_ns"]


def predict(cfg: dict, line_ns: float, mlp: float = 4.0, desc_cpu_ns: float = 2.0) -> dict:
    """The coherent model's one-way latency and saturated rate for ``cfg``. With a ``window`` in
    ``cfg``, the rate is also held to what that many descriptors in flight allow (Little's law:
    at most ``window`` per round trip of two one-way latencies), which binds for small windows."""
    shape = {k: cfg[k] for k in ("signaling", "layout", "batch", "pool", "payload_bytes")}
    link = {"line_transfer_ns": line_ns, "mlp": mlp, "desc_cpu_ns": desc_cpu_ns}
    p = json.loads(_core.hw_ring_predict(json.dumps(shape), json.dumps(link)))
    if cfg.get("window"):
        p["max_mdesc_per_s"] = min(p["max_mdesc_per_s"], cfg["window"] / (2 * p["one_way_ns"]) * 1e3)
    return p


def run(cfg: dict, line_ns: float | None = None, mlp: float = 4.0) -> dict:
    """Measure one configuration; flat result with the contract keys first. With ``line_ns`` the
    coherent model's prediction is added, its software cost per descriptor taken from the
    one-core measurement of the same configuration (``local_ns_per_desc`` / 2 per side)."""
    r = json.loads(_core.hw_ring_run(json.dumps(cfg)))
    lat = r["latency_ns"]
    out = {
        "signaling": cfg["signaling"], "layout": cfg["layout"], "batch": cfg["batch"],
        "latency_ns_p50": lat["median"], "latency_ns_p99": lat["p99"], "mdesc_per_s": r["mdesc_per_s"],
        "latency_ns_min": lat["min"], "gbps": r["gbps"], "pool": cfg["pool"], "payload_bytes": cfg["payload_bytes"],
        "window": cfg["window"], "duration_ms": cfg["duration_ms"], "cpus": r["cpus"],
        "latency_samples": r["latency_samples"], "throughput_descs": r["throughput_descs"],
        "local_ns_per_desc": r["local_ns_per_desc"],
    }
    return with_model(out, line_ns, mlp) if line_ns is not None else out


def with_model(r: dict, line_ns: float, mlp: float = 4.0) -> dict:
    """Add the coherent model's prediction and its error to a result of ``run``."""
    cfg = {k: r[k] for k in ("signaling", "layout", "batch", "pool", "payload_bytes", "window")}
    p = predict(cfg, line_ns, mlp=mlp, desc_cpu_ns=r["local_ns_per_desc"] / 2)
    return dict(r, model={
        "line_transfer_ns": line_ns, "mlp": mlp, "desc_cpu_ns": r["local_ns_per_desc"] / 2,
        "one_way_ns": p["one_way_ns"], "max_mdesc_per_s": p["max_mdesc_per_s"],
        "lines_per_batch": p["lines"], "serial_transfers": p["serial_transfers"],
        "latency_error": p["one_way_ns"] / r["latency_ns_p50"] - 1.0,
        "rate_error": p["max_mdesc_per_s"] / r["mdesc_per_s"] - 1.0 if r["mdesc_per_s"] else None,
    })


def sweep_configs(sweep: str, base: dict) -> list[dict]:
    """Configurations of a sweep; ``base`` supplies pool, payload, window, duration and cpus."""
    if sweep not in SWEEPS:
        raise config_error("sweep", sweep, ", ".join(SWEEPS))

    if sweep == "ablation":
        shapes = [("doorbell", "padded", 1), ("inline", "padded", 1), ("inline", "grouped", 1),
                  ("inline", "padded", 16), ("inline", "packed", 16), ("inline", "grouped", 16),
                  ("inline", "grouped", 4), ("inline", "grouped", 64)]
    elif sweep == "grid":
        shapes = [(s, l, b) for s in SIGNALINGS for l in LAYOUTS for b in (1, 4, 16, 64)]
    else:
        return [base]
    most = max(b for _, _, b in shapes)
    if base["window"] < most:
        raise config_error("window", base["window"], f"{most}..=4096 descriptors (at least the sweep's largest batch)")
    return [dict(base, signaling=sig, layout=lay, batch=b) for sig, lay, b in shapes]


def _find(results, sig, lay, b):
    return next(r for r in results if (r["signaling"], r["layout"], r["batch"]) == (sig, lay, b))


def ablation(results: list[dict]) -> list[dict]:
    """The CC-NIC ablation as ratios: measured, model (if predictions are present), paper."""
    rows = []

    def row(key, label, a, b, metric):
        def val(r, m):
            if m == "min_latency":
                return r["latency_ns_min"], (r["model"]["one_way_ns"] if "model" in r else None)
            if m == "p50_latency":
                return r["latency_ns_p50"], (r["model"]["one_way_ns"] if "model" in r else None)
            return r["mdesc_per_s"], (r["model"]["max_mdesc_per_s"] if "model" in r else None)

        (ma, pa), (mb, pb) = val(a, metric), val(b, metric)
        rows.append({"record": "ablation", "comparison": key, "label": label, "metric": metric,
                     "measured": ma / mb if mb else None,
                     "model": pa / pb if pa and pb else None, "paper": PAPER.get(key)})

    db1, in1, gr1 = _find(results, "doorbell", "padded", 1), _find(results, "inline", "padded", 1), _find(results, "inline", "grouped", 1)
    pad16, pak16, gr16 = (_find(results, "inline", l, 16) for l in ("padded", "packed", "grouped"))
    row("inline_vs_doorbell_min_latency", "inline / doorbell, min latency (padded, batch 1)", in1, db1, "min_latency")
    row("inline_vs_doorbell_p50_latency", "inline / doorbell, p50 latency (padded, batch 1)", in1, db1, "p50_latency")
    row("inline_vs_doorbell_max_rate", "inline / doorbell, max rate (padded, batch 1)", in1, db1, "max_rate")
    row("packed_vs_padded_max_rate", "packed / padded, max rate (inline, batch 16)", pak16, pad16, "max_rate")
    row("grouped_vs_padded_max_rate", "grouped / padded, max rate (inline, batch 16)", gr16, pad16, "max_rate")
    row("grouped_vs_padded_min_latency", "grouped / padded, min latency (inline, batch 1)", gr1, in1, "min_latency")
    for b in (4, 16, 64):
        row(f"batch{b}_vs_batch1_max_rate", f"batch {b} / batch 1, max rate (inline, grouped)",
            _find(results, "inline", "grouped", b), gr1, "max_rate")
    return rows


def _f(v, nd=2):
    return "—" if v is None else f"{v:.{nd}f}"


def format_results(results: list[dict]) -> str:
    lines = [f"{'signaling':9} {'layout':8} {'batch':>5} {'pool':7} {'payload':>7}  {'p50 ns':>8} {'p99 ns':>8} "
             f"{'min ns':>7} {'Mdesc/s':>8} {'Gbps':>6}  {'model ns':>8} {'err':>6} {'model Md/s':>10} {'err':>6}"]
    for r in results:
        m = r.get("model") or {}
        lines.append(
            f"{r['signaling']:9} {r['layout']:8} {r['batch']:>5} {r['pool']:7} {r['payload_bytes']:>7}  "
            f"{r['latency_ns_p50']:8.1f} {r['latency_ns_p99']:8.1f} {r['latency_ns_min']:7.1f} {r['mdesc_per_s']:8.2f} "
            f"{_f(r['gbps'], 1):>6}  {_f(m.get('one_way_ns'), 1):>8} {_pct(m.get('latency_error')):>6} "
            f"{_f(m.get('max_mdesc_per_s')):>10} {_pct(m.get('rate_error')):>6}")
    if results and results[0].get("model"):
        m = results[0]["model"]
        lines.append(f"model: line transfer {m['line_transfer_ns']:.1f} ns (ping-pong RTT/2 of the same cores), "
                     f"mlp {m['mlp']:g}, software per descriptor and side = half the one-core cost of each "
                     "configuration; err = model / measured − 1")
    return "\n".join(lines)


def _pct(v):
    return "—" if v is None else f"{100 * v:+.0f}%"


def format_ablation(rows: list[dict]) -> str:
    lines = [f"{'comparison':52} {'measured':>9} {'model':>7} {'paper':>7}"]
    for r in rows:
        lines.append(f"{r['label']:52} {_f(r['measured']):>9} {_f(r['model']):>7} {_f(r['paper']):>7}")
    lines.append("ratios: latency rows < 1 mean lower latency; rate rows > 1 mean more descriptors/s. "
                 "Paper: CC-NIC on Ice Lake over UPI (ASPLOS'24).")
    return "\n".join(lines)
