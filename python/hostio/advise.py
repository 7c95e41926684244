"""``hostio advise``: search knobs of a scenario for the cheapest setting that meets a goal.

Every combination of the knobs' candidate values runs on ``seeds`` seeds (on any sweep scheduler),
and so does the scenario as given ("before"). A setting meets the goal when its worst seed does:

- ``p99``: ``latency_ns.p99`` at most ``slo`` ns (default: 1.1 × the best median found);
- ``throughput``: ``throughput_gbps`` at least ``slo`` (default: 0.99 × the best median found);
- ``misses``: the DMA write miss rate, the share of DMA-written lines not found cached (1 −
  ``pcie_write_hit_rate`` × allocating lines / all lines written: lines that a ``ddio_lines``
  limit sends to DRAM count as misses), at most ``slo`` (default 0.05).

``slo`` must be finite and >= 0, above 0 for ``p99`` and in (0, 1] for ``misses``; at most
``hostio.sweep.MAX_RUNS`` runs (settings and the scenario as given, × seeds) are searched. When no searched setting produces the goal's metric (``misses``
with DDIO off has no PCIe write hit rate; ``p99`` with no completed packet has no latency) the
search is a ConfigError that says so.

For ``p99`` and ``misses`` a setting must also keep 99 % of the scenario's median throughput, so
no advice trades packets for latency or cache hits. Among the settings that meet the goal the
cheapest wins: fewest cores, then fewest DDIO ways (cache taken from code and data), then the
least change to every other knob (in steps of its candidate list); the scenario as given counts
among them, with no change, even when the knobs' values leave its own out (where its cores and
DDIO ways are known numbers). The prediction is the metrics
of that setting on the same seeds, so ``hostio run SCENARIO --set ... --seed S`` reproduces it.

Default knobs: ``platform.ddio_ways``, every NIC's ``rx_descriptors`` and the ``cores`` of every app
that is attached to a NIC (a co-runner's cores are not a default knob),
each over the values of ``DEFAULT_VALUES`` that the platform accepts, plus the current one.
"""
from __future__ import annotations

import itertools
import math
import numbers
import re
import statistics
from typing import Iterable, Mapping, Sequence

from hostio import sim
from hostio import sweep as sweeps
from hostio.errors import config_error, say

GOALS = ("p99", "throughput", "misses")
DEFAULT_VALUES = {
    "ddio_ways": [2, 3, 4, 6, 8, 11],
    "rx_descriptors": [128, 256, 512, 1024, 2048, 4096],
    "tx_descriptors": [128, 256, 512, 1024, 2048, 4096],
    "cores": [1, 2, 4, 8],
}
#: Metrics reported before and after, each as median, min and max over the seeds.
REPORTED = ("throughput_gbps", "latency_ns.p99", "dma_write_miss_rate", "dropped_packets", "pause_frames", "memory_write_gbps")
GOAL_METRIC = {"p99": "latency_ns.p99", "throughput": "throughput_gbps", "misses": "dma_write_miss_rate"}

# The DDIO paper (Farshin et al., "Reexamining Direct Cache Access to Optimize I/O Intensive
# Applications for Multi-hundred-gigabit Networks", USENIX ATC 2020), §9 and the sections it cites.
LESSONS = {
    "rx_descriptors": "Leaky DMA (DDIO paper §3.1, §5, summarised in §9): when the RX rings hold more buffers than the "
    "DDIO ways can keep, new packets evict ones not yet processed, which then come back from memory; fewer descriptors "
    "keep the I/O buffers inside the I/O ways. Too few drop packets or send PAUSE frames at high rates (§8.1), which is "
    "why the search keeps throughput.",
    "ddio_ways": "DDIO capacity (§9, Fig. 11): if an application is I/O bound, carefully sizing the DDIO capacity "
    "(IIO LLC WAYS) improves its performance and can match adding cores; the ways given to I/O are taken from code and data.",
    "cores": "Cores (§9, Figs. 10 and 12): more cores raise throughput only while the application is CPU bound; when it "
    "is I/O bound, excessive cores degrade performance (each brings its own ring), and more cores need balanced load to "
    "keep DDIO's benefit.",
}


#: Why ``run.*`` keys are not knobs: they set how a setting is measured, not the system.
def _run_knob() -> str:
    return (f"keys outside [run]: run.* sets how each setting is measured (seeds with {say('--seeds', 'seeds=')}, "
            f"the windows with {say('--set', 'set=')}), not what is tuned")


def _split_items(spec: str) -> list[str]:
    """``spec`` split at the commas outside quotes (a quoted key part or a string value may hold one)."""
    bounds = [-1, *sim.unquoted(spec, ","), len(spec)]
    return [spec[a + 1:b] for a, b in zip(bounds, bounds[1:])]


def _is_key(tok: str) -> bool:
    """Whether an item without ``=`` names a knob: a dotted key of two parts or more, not a number."""
    parts = sim.key_parts(tok)
    return parts is not None and len(parts) > 1 and not re.fullmatch(r"[-+0-9.eE_]+", tok)


def parse_knobs(spec: str | None) -> dict[str, list | None] | None:
    """``key,key=v1,v2,key`` → {key: values or None (defaults)}; keys are TOML dotted keys (in
    their normal spelling, see :func:`hostio.sim.key_text`), values are numbers or true/false."""
    if spec is None:
        return None
    if not isinstance(spec, str):
        raise config_error("--knobs", spec, "a string of KEY[=V1,V2,...] items separated by commas")
    if not spec.strip():
        raise config_error("--knobs", spec, "KEY[=V1,V2,...] items separated by commas (leave the option out for the default knobs)")
    knobs: dict[str, list | None] = {}
    current = None
    for tok in (t.strip() for t in _split_items(spec)):
        if not tok:
            raise config_error("--knobs", spec, "KEY[=V1,V2,...] items separated by commas, without empty items")
        if (i := sim.key_end(tok)) is not None:
            key, v = tok[:i].strip(), tok[i + 1:]
            current = _new_knob(key, knobs, spec)
            knobs[current] = [_value(v, spec)]
        elif _is_key(tok):
            current = _new_knob(tok, knobs, spec)
            knobs[current] = None
        elif current is not None and knobs[current] is not None:
            v = _value(tok, spec)
            if any(type(v) is type(x) and v == x for x in knobs[current]):
                raise config_error("--knobs", spec, f"each value of a knob once ({current} has {tok} twice)")
            knobs[current].append(v)
        else:
            raise config_error("--knobs", spec, "values after KEY=, e.g. platform.ddio_ways=2,4,nics.nic0.rx_descriptors")
    return knobs


def _new_knob(key: str, knobs: dict, spec: str) -> str:
    if not key:
        raise config_error("--knobs", spec, "KEY[=V1,V2,...] items with a key before each =")
    key = sim.normal_key(key, "--knobs", spec)
    if key in knobs:
        raise config_error("--knobs", spec, f"each key once ({key} is given twice)")
    if key == "run" or key.startswith("run."):
        raise config_error("--knobs", spec, _run_knob())
    return key


def _normal_knobs(knobs: Mapping) -> dict[str, list | None]:
    """``knobs`` (key → values or None) with each key a dotted key in its normal spelling, given once."""
    if not isinstance(knobs, Mapping):
        raise config_error("knobs", knobs, "a mapping of KEY.PATH → list of values, or None for the defaults")
    out: dict[str, list | None] = {}
    for key, vals in knobs.items():
        if not isinstance(key, str) or not key.strip():
            raise config_error("--knobs", key, "a KEY.PATH string")
        norm = sim.normal_key(key.strip(), "--knobs")
        if norm in out:
            raise config_error("--knobs", key, f"each key once (it is the same key as {norm})")
        out[norm] = vals
    return out


def _leaf(key: str) -> str:
    """The last part of a knob key (``nics."a.b".cores`` → ``cores``)."""
    parts = sim.key_parts(key)
    return parts[-1] if parts else key


def _value(raw: str, spec: str):
    import json

    if re.fullmatch(r"0x[0-9A-Fa-f](_?[0-9A-Fa-f])*|0o[0-7](_?[0-7])*|0b[01](_?[01])*", raw.strip()):
        return int(raw.strip(), 0)  # TOML's hexadecimal, octal and binary integers (masks), as --set takes them
    try:
        return json.loads(raw)
    except ValueError:
        raise config_error("--knobs", spec, f"numbers (also 0x.., 0o.., 0b..) or true/false as values ({raw!r} is neither)") from None


def _current(resolved: dict, key: str):
    """The value knob ``key`` has in the scenario as given; where the scenario leaves it unset,
    the value the run gives it when known (the engine's default, the platform's fact, the
    platform's DDIO setting or I/O ways), else None."""
    parts = sim.key_parts(key) or [key]
    node, default = resolved["scenario"], resolved.get("defaults", {})
    for i, part in enumerate(parts):
        if not isinstance(node, Mapping) or part not in node:
            where = sim.key_text(parts[:i]) if i else "the scenario"
            have = (f"{where} has {', '.join(sim.key_text([k]) for k in node)}" if isinstance(node, Mapping) and node
                    else f"{where} is a value, not a table" if i else f"{where} is empty")
            raise config_error("--knobs", key, f"a key of the scenario, as hostio check prints it ({have})")
        node = node[part]
        default = default.get(part) if isinstance(default, Mapping) else None
    if node is not None:
        return node
    io_mask = int(resolved["ddio_mask"], 16)
    nic_key = len(parts) == 3 and parts[0] == "nics"
    if default is not None and not isinstance(default, Mapping):
        return default
    if key == "platform.ddio_ways":
        return bin(io_mask).count("1")
    if key == "platform.ddio_mask" or nic_key and parts[2] == "ddio_mask":
        return io_mask
    if nic_key and parts[2] == "ddio":
        return resolved["scenario"]["platform"]["ddio"]
    if len(parts) == 2 and parts[0] == "platform":
        return resolved.get("platform", {}).get(parts[1])
    return None


def default_knobs(resolved: dict) -> dict[str, None]:
    sc = resolved["scenario"]
    keys = ["platform.ddio_ways"]
    keys += [sim.key_text(["nics", n, "rx_descriptors"]) for n in sc.get("nics", {})]
    keys += [sim.key_text(["apps", a, "cores"]) for a, app in sc.get("apps", {}).items()
             if app.get("cores") is not None and app.get("nic")]
    return {k: None for k in keys}


def candidates(text: str, base: list[str], resolved: dict, knobs: Mapping[str, list | None]) -> dict[str, list]:
    """Each knob's values: given ones as they are, default ones filtered to those the scenario accepts."""
    out = {}
    for key, vals in knobs.items():
        cur = _current(resolved, key)
        if vals is None:
            leaf = _leaf(key)
            if leaf not in DEFAULT_VALUES:
                raise config_error("--knobs", key, f"values for this key (KEY=V1,V2,...); defaults exist for {', '.join(DEFAULT_VALUES)}")
            vals = []
            for v in sorted(set(DEFAULT_VALUES[leaf]) | ({cur} if isinstance(cur, int) else set())):
                try:
                    sim.resolved(text, set=base + [f"{key}={sweeps._lit(v)}"])
                except ValueError:
                    continue
                vals.append(v)
        out[key] = list(vals)
    return out


def _metrics(result: dict) -> dict:
    m = result["metrics"]
    hit = m["pcie_write_hit_rate"]
    # The share of the written lines that did not find their line cached: the misses of the
    # allocating writes and, under selective DCA (`ddio_lines`), the lines sent to DRAM.
    alloc, bypass = m["pcie_write_lines"], m["dma_write_bypass_lines"]
    return {
        "throughput_gbps": m["throughput_gbps"],
        "latency_ns.p99": m["latency_ns"]["p99"],
        "dma_write_miss_rate": None if hit is None else 1.0 - hit * alloc / (alloc + bypass),
        "dropped_packets": m["dropped_packets"],
        "pause_frames": m["pause_frames"],
        "memory_write_gbps": m["memory_write_gbps"],
    }


def _spread(results: Sequence[dict]) -> dict:
    out = {}
    for k in REPORTED:
        vals = [r[k] for r in results if r[k] is not None]
        out[k] = {"median": statistics.median(vals), "min": min(vals), "max": max(vals)} if vals else None
    return out


def _cores_and_ways(setting: dict) -> tuple:
    """A setting's total cores and DDIO ways, the first two terms of its cost."""
    return (sum(v for k, v in setting.items() if _leaf(k) == "cores"), sum(v for k, v in setting.items() if _leaf(k) == "ddio_ways"))


def _given_cost(setting: dict) -> tuple | None:
    """:func:`_cost` of the scenario as given (no change to any knob), or None when its cores or
    DDIO ways are not known."""
    counted = [v for k, v in setting.items() if _leaf(k) in ("cores", "ddio_ways")]
    if any(not isinstance(v, numbers.Real) or isinstance(v, bool) for v in counted):
        return None
    return (*_cores_and_ways(setting), 0)


def _cost(setting: dict, current: dict, cands: dict) -> tuple:
    cores, ways = _cores_and_ways(setting)
    steps = 0
    for k, v in setting.items():
        if _leaf(k) in ("cores", "ddio_ways"):
            continue
        if current[k] is None:  # unset, with no known value: any value is one change
            steps += 1
            continue
        # Numbers in one order (a knob's values may be integers where the scenario's is a float).
        order = sorted(set(cands[k]) | {current[k]},
                       key=lambda x: ("", x) if isinstance(x, (int, float)) and not isinstance(x, bool) else (str(type(x)), x))
        steps += abs(order.index(v) - order.index(current[k]))
    return (cores, ways, steps)


def advise(
    scenario: sim.Scenario,
    *,
    goal: str,
    slo: float | None = None,
    knobs: Mapping[str, list | None] | None = None,
    set: Iterable[str] = (),
    seeds: int = 3,
    jobs: int | None = None,
    scheduler: str = "local",
    progress: bool = True,
) -> dict:
    """Search ``knobs`` and return the advice: ``goal``, ``metric`` (the result key the goal reads),
    ``slo``, ``met``, ``settings`` (key → value), ``set`` (the same as ``--set`` arguments),
    ``changed`` (the keys whose value differs from the scenario's), ``current`` (the scenario's
    values of the knobs), ``before``/``after`` (metrics: median, min, max over ``seeds``),
    ``seeds``, ``searched`` (settings tried), ``as_given`` (true when the scenario as given is the
    answer: it meets the goal and no searched setting does so for less, or nothing meets the
    goal and no searched setting comes closer), ``lesson``,
    ``commands``. ``met`` is false only when neither a searched setting nor the scenario as given
    meets the goal."""
    if goal not in GOALS:
        raise config_error("--goal", goal, "one of " + ", ".join(GOALS))
    n = sim.integer(seeds)
    if n is None or n < 1:
        raise config_error("--seeds", seeds, "a count of 1 or more")
    seeds = n
    jobs = sweeps.check_jobs(jobs)
    sweeps._check_scheduler(scheduler)
    slo_allowed = {"p99": "a finite p99 latency in ns > 0", "misses": "a DMA write miss rate in (0, 1]",
                   "throughput": "a finite throughput in Gb/s >= 0"}[goal]
    if slo is not None:
        value = None
        if isinstance(slo, numbers.Real) and not isinstance(slo, bool) and sim._numpy_type(slo) not in ("bool_", "bool"):
            try:
                value = float(slo)
            except OverflowError:  # an integer beyond floating point: not finite either
                pass
        if value is None or not math.isfinite(value) or value < 0:
            raise config_error("--slo", slo, slo_allowed)
        slo = value
    if slo is not None and goal == "p99" and slo == 0:
        raise config_error("--slo", slo, slo_allowed)
    if slo is not None and goal == "misses" and not 0 < slo <= 1:
        raise config_error("--slo", slo, slo_allowed)
    text = sim.scenario_text(scenario)
    base = sim._overrides(set)
    resolved = sim.resolved(text, set=base)
    if isinstance(knobs, Mapping) and not knobs:
        raise config_error("--knobs", knobs, "a non-empty mapping of KEY.PATH → list of values (None for the default knobs)")
    knobs = _normal_knobs(knobs) if knobs is not None else default_knobs(resolved)
    if any(k == "run" or k.startswith("run.") for k in knobs):
        raise config_error("--knobs", next(k for k in knobs if k == "run" or k.startswith("run.")), _run_knob())
    given = {k: v for k, v in knobs.items() if v is not None}
    if given:
        # Non-empty lists of distinct values, NumPy numbers made Python ones (the advice is JSON).
        knobs = {**knobs, **sweeps.check_axes(given, "--knobs")}
    cands = candidates(text, base, resolved, knobs)
    # The settings and the scenario as given, each on every seed.
    sweeps.check_product([("--knobs", math.prod(len(v) for v in cands.values()) + 1, "settings (the scenario as given too)"),
                          ("--seeds", seeds, "seeds")])
    current = {k: _current(resolved, k) for k in cands}
    seed_list = sweeps.seed_run(int(resolved["scenario"]["run"]["seed"]), seeds)
    settings = [dict(zip(cands, combo)) for combo in itertools.product(*cands.values())]
    points = [(text, base + [f"run.seed={s}"]) for s in seed_list]
    for st in settings:
        ov = [f"{k}={sweeps._lit(v)}" for k, v in st.items()]
        points += [(text, base + ov + [f"run.seed={s}"]) for s in seed_list]
    recs = sweeps.run_points(points, jobs=jobs, scheduler=scheduler, label="advise", progress=progress)

    def stats(block: Sequence[dict]) -> dict | None:
        if any("error" in r for r in block):
            return None
        return _spread([_metrics(r["result"]) for r in block])

    n = len(seed_list)
    before = stats(recs[:n])
    if before is None:
        raise config_error("scenario", scenario, "a scenario that runs as given: " + next(r["error"] for r in recs[:n] if "error" in r))
    metric = GOAL_METRIC[goal]
    blocks = [recs[n * (i + 1): n * (i + 2)] for i in range(len(settings))]
    tried = [(st, stats(b)) for st, b in zip(settings, blocks)]
    tried = [(st, s) for st, s in tried if s is not None and s[metric] is not None]
    if not tried:
        raise config_error("--goal", goal, f"a goal whose metric the searched settings produce: {_no_metric(metric, blocks)}")
    if slo is None:
        medians = [s[metric]["median"] for _, s in tried]
        slo = {"p99": lambda: 1.1 * min(medians), "throughput": lambda: 0.99 * max(medians), "misses": lambda: 0.05}[goal]()
    floor = 0.99 * before["throughput_gbps"]["median"]

    def meets(s: dict) -> bool:
        if goal == "throughput":
            return s[metric]["min"] >= slo
        return s[metric]["max"] <= slo and s["throughput_gbps"]["median"] >= floor

    ok = sorted((st for st, s in tried if meets(s)), key=lambda st: _cost(st, current, cands))
    by_key = {tuple(st.items()): s for st, s in tried}
    as_given = False
    if ok:
        best, met = ok[0], True
        after = by_key[tuple(best.items())]
        kept = {k: current[k] for k in best}
        if best != kept and meets(before) and _given_cost(kept) is not None and _given_cost(kept) <= _cost(best, current, cands):
            # The scenario as given meets the goal at no more cost (the knobs' values need not
            # include its own): nothing to change.
            best, after, as_given = kept, before, True
    else:  # nothing meets it: the setting closest to the goal, said so
        sign = -1 if goal == "throughput" else 1
        best, after = min(tried, key=lambda t: sign * t[1][metric]["median"])
        met = False
        if before[metric] is not None and (meets(before) or sign * before[metric]["median"] <= sign * after[metric]["median"]):
            # The scenario as given meets the goal, or no searched setting comes closer: nothing to change.
            best, after, met, as_given = {k: current[k] for k in best}, before, meets(before), True
    changed = [k for k in best if best[k] != current[k]]
    return {
        "goal": goal,
        "metric": metric,
        "slo": slo,
        "met": met,
        "settings": best,
        # A key the scenario leaves unset and the advice keeps so has nothing to set.
        "set": [f"{k}={sweeps._lit(v)}" for k, v in best.items() if v is not None],
        "changed": changed,
        "current": current,
        "before": before,
        "after": after,
        "seeds": seed_list,
        "searched": len(settings),
        "as_given": as_given,
        "lesson": lesson(changed, met),
        "commands": commands(resolved, best),
    }


def _no_metric(metric: str, blocks: Sequence[Sequence[dict]]) -> str:
    """Why no searched setting has a value of ``metric`` (every block failed or left it null)."""
    ran = [r["result"]["metrics"] for b in blocks for r in b if "result" in r]
    if not ran:
        errs = [r["error"] for b in blocks for r in b if "error" in r]
        return f"every searched setting failed ({errs[0] if errs else 'no setting searched'})"
    if metric == "dma_write_miss_rate":
        if any(m["dma_write_bypass_lines"] for m in ran):
            why = "device writes bypass the cache (DDIO off, or the NIC on another socket than its memory)"
        else:
            why = "no packet was written by DMA"
        return f"{metric} is undefined in every searched setting: {why}, so there is no PCIe write hit rate"
    return f"{metric} is undefined in every searched setting: no packet completed"


def lesson(changed: Sequence[str], met: bool) -> str:
    leaves = []
    for k in changed:
        leaf = "rx_descriptors" if _leaf(k).endswith("_descriptors") else _leaf(k)
        if leaf in LESSONS and LESSONS[leaf] not in leaves:
            leaves.append(LESSONS[leaf])
    if not leaves:
        if changed:
            # Knobs without a lesson of the paper's: say what changed, nothing more.
            leaves.append(("This setting meets the goal" if met else "No searched setting meets the goal; this one comes closest")
                          + f" by changing {', '.join(changed)} (the DDIO paper's lessons cover descriptors, DDIO ways and cores).")
        else:
            leaves.append("The scenario as given is already the cheapest setting that meets the goal." if met else
                          "No searched setting meets the goal or comes closer to it than the scenario as given; "
                          "widen the knobs' values or relax --slo.")
    elif not met:
        leaves.insert(0, "No searched setting meets the goal; this one comes closest.")
    return " ".join(leaves)


def commands(resolved: dict, setting: Mapping) -> list[str]:
    """Commands that apply a setting on a real machine: DDIO ways, the DPDK ring sizes and core
    list (testpmd), and the kernel driver's ring sizes."""
    sc = resolved["scenario"]
    out = []
    if "platform.ddio_ways" in setting:
        out.append(f"sudo hostio ddio set --ways {setting['platform.ddio_ways']}   # hostio ddio restore undoes it")
    for name, app in sc.get("apps", {}).items():
        nic = app.get("nic")
        if not nic or nic not in sc.get("nics", {}):
            continue
        cores = setting.get(sim.key_text(["apps", name, "cores"]), app.get("cores"))
        rxd = setting.get(sim.key_text(["nics", nic, "rx_descriptors"]), sc["nics"][nic]["rx_descriptors"])
        txd = setting.get(sim.key_text(["nics", nic, "tx_descriptors"]), sc["nics"][nic]["tx_descriptors"])
        lcores = "0,1" if cores == 1 else f"0-{cores}"
        out.append(f"dpdk-testpmd -l {lcores} -a <{nic} PCI address> -- --forward-mode=mac --nb-cores={cores} "
                   f"--rxq={cores} --txq={cores} --rxd={rxd} --txd={txd}   # app {name}: lcore 0 is the main core")
        out.append(f"sudo ethtool -L <{nic} interface> combined {cores} && sudo ethtool -G <{nic} interface> rx {rxd} tx {txd}   # kernel driver")
    return out


def _num(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}"


def _fmt(s: dict | None) -> str:
    if s is None:
        return "n/a"
    return f"{_num(s['median'])} [{_num(s['min'])}, {_num(s['max'])}]"


def describe(adv: dict) -> str:
    """The advice as text: goal, setting, before/after table, lesson, commands."""
    rel = {"p99": "<=", "throughput": ">=", "misses": "<="}[adv["goal"]]
    lines = [
        f"goal      {adv['metric']} {rel} {adv['slo']:.4g} on every seed ({len(adv['seeds'])} seed{'s' if len(adv['seeds']) != 1 else ''}: {', '.join(map(str, adv['seeds']))})"
        + ("" if adv["met"] else "  -- NOT MET by any searched setting"),
        f"setting   {' '.join(adv['set'])}   "
        + (f"(as given: it meets the goal, and none of {adv['searched']} searched does so for less)" if adv["met"] and adv.get("as_given")
           else f"(cheapest of {adv['searched']} searched; changed: {', '.join(adv['changed']) or 'nothing'})" if adv["met"]
           else f"(closest of {adv['searched']} searched; changed: {', '.join(adv['changed'])})" if adv["changed"]
           else f"(as given: none of {adv['searched']} searched comes closer)"),
        "",
        f"{'metric: median [min, max]':<26}{'before':>32}{'after':>32}",
    ]
    for k in REPORTED:
        lines.append(f"{k:<26}{_fmt(adv['before'][k]):>32}{_fmt(adv['after'][k]):>32}")
    lines += ["", "lesson    " + adv["lesson"], ""]
    lines += ["commands  " + c if i == 0 else "          " + c for i, c in enumerate(adv["commands"])]
    return "\n".join(lines)
