"""Command-line registration (see hostio.cli) of the real-machine tools: ``probe``, ``ringbench``
and ``ddio``. Parsing and printing only; the logic is in ``hostio.probe``, ``hostio.ringbench``
and ``hostio.ddio_tuner``."""
from __future__ import annotations

import contextlib
import json
import math
import os
import re
import sys

from hostio import outfile
from hostio.cli import integer_arg, number_arg
from hostio.errors import ConfigError, config_error


def _int_list(option: str, text: str | None) -> list[int] | None:
    if text is None:
        return None
    items = [x.strip() for x in text.split(",")]
    if not all(re.fullmatch(r"[+-]?[0-9]{1,18}", x) for x in items):
        raise config_error(option, text, "a comma list of decimal integers of up to 18 digits such as 0,1, without empty items")
    values = [int(x) for x in items]
    if len(set(values)) != len(values):
        raise config_error(option, text, "a comma list of integers such as 0,1, each once")
    return values


#: The API keys of :func:`hostio.ringbench.config` and the options that set them.
RINGBENCH_OPTIONS = {"signaling": "--signaling", "layout": "--layout", "batch": "--batch", "pool": "--pool",
                     "payload": "--payload", "window": "--window", "duration_ms": "--duration-ms", "cpus": "--cpus"}
#: The API keys of :class:`hostio.probe.ProbeOptions` and the options that set them.
PROBE_OPTIONS = {"max_mib": "--max-mib", "reps": "--reps", "seed": "--seed", "cpus": "--cpus", "tests": "--tests"}


def given(args, options: dict[str, str]) -> dict[str, tuple[str, object]]:
    """``options`` (API key → option) with the value of each option in ``args`` (parsed
    arguments), as :func:`as_options` takes them; an option ``args`` does not have is left out."""
    dests = {key: option[2:].replace("-", "_") for key, option in options.items()}
    return {key: (options[key], getattr(args, dest)) for key, dest in dests.items() if hasattr(args, dest)}


def _emit_json(dest: str, obj, lines: bool = False) -> None:
    text = "\n".join(json.dumps(o) for o in obj) if lines else json.dumps(obj, indent=2)
    if dest == "-":
        print(text)
    else:
        outfile.write_text(dest, text + "\n", "--json")


def register(subparsers) -> None:
    p = subparsers.add_parser("probe", help="measure latency by level, core-to-core latency, bandwidth, cache geometry",
                              description="Measure this machine: latency by working set (L1/L2/LLC/DRAM), loaded "
                                          "latency, core-to-core line transfers, streaming bandwidth, cache geometry.")
    p.add_argument("--quick", action="store_true", help="fewer working sets, repetitions and samples")
    p.add_argument("--max-mib", type=number_arg, help="largest working set in MiB (default 4 × LLC; 2 × LLC with --quick)")
    p.add_argument("--reps", type=integer_arg, help="timed repetitions per point (default 7; 3 with --quick)")
    p.add_argument("--seed", type=integer_arg, default=1, help="seed of the pointer-chasing permutation")
    p.add_argument("--cpus", help="comma list of cpus to use (default: all this process may use)")
    p.add_argument("--tests", help="comma list of latency, loaded, c2c, bandwidth (default: all)")
    p.add_argument("--json", metavar="FILE", help="write the report as JSON ('-' = stdout, then nothing else is printed)")
    p.add_argument("--platform-out", metavar="FILE.toml", help="write a platform file for platform.preset = "
                                                                "\"file:PATH\" ('-' = stdout, then nothing else is printed)")
    p.set_defaults(func=_probe)

    r = subparsers.add_parser("ringbench", help="CC-NIC descriptor-ring benchmark between two cores",
                              description="Measure doorbell vs inline signaling, padded/packed/grouped layouts, "
                                          "batching, buffer pools and payload copies between two pinned cores.")
    r.add_argument("--signaling", default="inline", help="doorbell, inline or all (default inline)")
    r.add_argument("--layout", default="grouped", help="padded, packed, grouped or all (default grouped)")
    r.add_argument("--batch", default="1", help="batch sizes 1..=64, comma list (default 1)")
    r.add_argument("--pool", default="shared", help="shared (CC-NIC) or queues (PCIe-style free queues)")
    r.add_argument("--payload", type=integer_arg, default=0, help="payload bytes copied each way: 0 or 64..=1500")
    r.add_argument("--window", type=integer_arg, default=256, help="descriptors in flight at most (default 256)")
    r.add_argument("--duration-ms", type=integer_arg, default=200,
                   help="time per configuration, 2..=60000 (half latency, half rate; at least 32 and at most 200,000 latency samples; the one-core cost run comes on top)")
    r.add_argument("--cpus", help="host cpu,NIC cpu (default: the first two allowed)")
    r.add_argument("--sweep", default="none", help="none, ablation (the CC-NIC ablation table) or grid")
    r.add_argument("--line-ns", type=number_arg, help="line-transfer latency for the model (default: measured now)")
    r.add_argument("--mlp", type=number_arg, help="model: independent line misses a core overlaps (default 4)")
    r.add_argument("--no-model", action="store_true", help="skip the coherent-model predictions")
    r.add_argument("--json", metavar="FILE", help="JSON lines, one object per configuration (record: config), then with --sweep ablation the ablation rows (record: ablation) ('-' = stdout)")
    r.set_defaults(func=_ringbench)

    d = subparsers.add_parser("ddio", help="Intel DDIO status and tuning (IIO LLC WAYS, per-root-port allocation)",
                              description="Inspect and tune Intel DDIO. Refuses on non-Intel CPUs, parts without the "
                                          "feature, Ice Lake and later, without root or the msr module.")
    d.add_argument("action", help="status, set, disable, enable or restore")
    d.add_argument("--ways", help="set: number of I/O ways (the default ways plus the adjacent ones, highest first)")
    d.add_argument("--mask", help="set: explicit way mask (hex), checked against the CPU's rules")
    d.add_argument("--nic", help="PCI address of the NIC (disable/enable; optional for status)")
    d.add_argument("--dry-run", action="store_true", help="print which register/file/offset would get which value")
    d.add_argument("--root", default="/", help="prefix of every path (/proc, /dev/cpu, /sys): for fake trees")
    d.add_argument("--state", help="state file (default ROOT/var/lib/hostio/ddio_state.json)")
    d.add_argument("--json", metavar="FILE", help="status as JSON ('-' = stdout)")
    d.set_defaults(func=_ddio)


def _probe(args) -> int:
    from hostio import probe

    tests = None if args.tests is None else tuple(t.strip() for t in args.tests.split(","))
    if tests is not None and len(set(tests)) != len(tests) and all(tests):
        raise config_error("--tests", args.tests, "a comma list of tests, each once")
    opts = probe.ProbeOptions(quick=args.quick, max_mib=args.max_mib, reps=args.reps, seed=args.seed,
                              cpus=_int_list("--cpus", args.cpus), tests=tests)
    with as_options(given(args, PROBE_OPTIONS)):
        opts.validate()
        if args.platform_out:
            opts.check_platform_file()
    quiet = "-" in (args.json, args.platform_out)
    report = probe.run_probe(opts, progress=None if quiet else lambda m: print(f"probe: {m}", file=sys.stderr))
    # The report first: what was measured is kept even if no platform file can be made of it.
    if args.json:
        _emit_json(args.json, report)
    if args.platform_out == "-":
        sys.stdout.write(probe.platform_toml(report))
    elif args.platform_out:
        outfile.write_text(args.platform_out, probe.platform_toml(report), "--platform-out")
        if not quiet:
            print(f"probe: platform file written to {args.platform_out}", file=sys.stderr)
    if not quiet:
        print(probe.format_summary(report))
    return 0


def _ringbench(args) -> int:
    from hostio import ringbench as rb

    # Every argument is checked before anything is measured.
    if args.no_model and args.mlp is not None:
        raise config_error("--mlp", args.mlp, "left out with --no-model (the overlap is the model's)")
    mlp = 4.0 if args.mlp is None else args.mlp
    if not 1.0 <= mlp <= 64.0:
        raise config_error("--mlp", args.mlp, "1..=64 overlapped misses")
    if args.line_ns is not None and not (math.isfinite(args.line_ns) and 0 < args.line_ns <= 1e6):
        raise config_error("--line-ns", args.line_ns, "a positive finite latency in ns (at most 1e6)")
    for opt, value, known in (("--signaling", args.signaling, rb.SIGNALINGS), ("--layout", args.layout, rb.LAYOUTS)):
        if value not in (*known, "all"):
            raise config_error(opt, value, f"{', '.join(known)} or all")
    sigs = rb.SIGNALINGS if args.signaling == "all" else (args.signaling,)
    lays = rb.LAYOUTS if args.layout == "all" else (args.layout,)
    batches = _int_list("--batch", args.batch)
    cpus = _int_list("--cpus", args.cpus)
    with as_options(given(args, RINGBENCH_OPTIONS)):
        cfgs = [rb.config(s, l, b, args.pool, args.payload, args.window, args.duration_ms, cpus)
                for s in sigs for l in lays for b in batches]
    if args.sweep not in rb.SWEEPS:
        raise config_error("--sweep", args.sweep, ", ".join(rb.SWEEPS))
    # Options a run would silently ignore are refused.
    if args.no_model and args.line_ns is not None:
        raise config_error("--line-ns", args.line_ns, "left out with --no-model (the line-transfer latency is the model's)")
    if args.sweep != "none":
        for opt, value, default in (("--signaling", args.signaling, "inline"), ("--layout", args.layout, "grouped"), ("--batch", batches, [1])):
            if value != default:
                raise config_error(opt, value, f"left out with --sweep {args.sweep}, which sets the signaling, layouts and batches itself")
        with as_options(given(args, RINGBENCH_OPTIONS)):
            cfgs = rb.sweep_configs(args.sweep, cfgs[0])
    use = rb.require_two_cpus(cpus)
    quiet = args.json == "-"
    measure_line = not args.no_model and args.line_ns is None
    before = rb.line_transfer_ns(use) if measure_line else None
    results = []
    for c in cfgs:
        if not quiet:
            print(f"ringbench: {c['signaling']} {c['layout']} batch {c['batch']} ...", file=sys.stderr)
        results.append(rb.run(c))
    if not args.no_model:
        line_ns = args.line_ns
        if measure_line:
            # Before and after: a virtual machine may move its vCPUs while the sweep runs.
            after = rb.line_transfer_ns(use)
            line_ns = (before + after) / 2
            if abs(before - after) > 0.3 * min(before, after):
                print(f"ringbench: line transfer changed from {before:.1f} to {after:.1f} ns during the run "
                      "(vCPUs moved?): model errors are unreliable", file=sys.stderr)
        results = [rb.with_model(r, line_ns, mlp) for r in results]
    rows = rb.ablation(results) if args.sweep == "ablation" else []
    if args.json:
        _emit_json(args.json, [dict(r, record="config") for r in results] + rows, lines=True)
    if not quiet:
        print(rb.format_results(results))
        if rows:
            print()
            print(rb.format_ablation(rows))
    return 0


_DECIMAL = re.compile(r"[+-]?[0-9]+")
_HEX = re.compile(r"(0[xX])?[0-9a-fA-F]+")


def _ascii_int(option: str, text: str, allowed: str) -> int:
    """``text`` as an integer written in ASCII digits (``int()`` would also take '٣' or '３'). More
    than 40 digits stand for a number beyond any bound (errors show the text as typed)."""
    t = text.strip()
    if not _DECIMAL.fullmatch(t):
        raise config_error(option, text, allowed)
    digits = t.lstrip("+-")
    return int(t) if len(digits) <= 40 else (-1 if t.startswith("-") else 1) * 10 ** 40


def _typed(text: str):
    """A value as an error shows it: a plain number as a number, anything else as the text typed."""
    t = text.strip()
    return int(t) if t.isascii() and t.isdigit() and len(t) <= 20 else text


@contextlib.contextmanager
def as_options(typed: dict[str, tuple[str, object]]):
    """Report the API's error about one of the keys of ``typed`` (the tuner's ``ways``, the ring
    benchmark's ``payload``, ...) as one about the option (``--ways``, ``--payload``, ...) with
    the value the user typed; ``typed`` maps the API's key to (option, value)."""
    try:
        yield
    except ConfigError as exc:
        key, sep, rest = str(exc).partition(" = ")
        if key not in typed or not sep:
            raise
        from hostio.pcie_cli import allowed_part

        option, value = typed[key]
        raise config_error(option, value, allowed_part(rest)) from None


def _ddio(args) -> int:
    from hostio import ddio_tuner as t

    actions = ("status", "set", "disable", "enable", "restore")
    if args.action not in actions:
        raise config_error("action", args.action, ", ".join(actions))
    if not args.root.strip() or not os.path.isdir(args.root):
        raise config_error("--root", args.root, "an existing directory: / for this machine, or the top of a fake tree")
    ways_text = args.ways
    if args.ways is not None:
        args.ways = _ascii_int("--ways", args.ways, "a number of I/O ways in ASCII digits, such as 4")
    # An option the action does not read is refused rather than ignored.
    applies = {"--ways": ("set",), "--mask": ("set",), "--nic": ("status", "disable", "enable"),
               "--dry-run": ("set", "disable", "enable", "restore"), "--state": ("set", "disable", "enable", "restore"),
               "--json": ("status",)}
    for opt, acts in applies.items():
        value = getattr(args, opt[2:].replace("-", "_"))
        if value is not None and value is not False and args.action not in acts:
            raise config_error(opt, value, f"only with ddio {' / '.join(acts)} (not {args.action})")
    if args.state is not None and not args.state.strip():
        raise config_error("--state", args.state, "a state file path (omit --state for the default)")
    parent = os.path.dirname(os.path.abspath(args.state)) if args.state else None
    if parent is not None and args.action != "restore" and not os.path.isdir(parent):
        # As for every output the user names; only the default state folder is created.
        why = "is not a directory" if os.path.lexists(parent) else "does not exist"
        raise config_error("--state", args.state, f"a path in an existing directory ({parent} {why})")
    if args.nic is not None and not args.nic.strip():
        raise config_error("--nic", args.nic, "the PCI address of the NIC (BDF) such as 0000:3b:00.0")
    mask = None
    if args.mask is not None:
        if not _HEX.fullmatch(args.mask.strip()):
            raise config_error("--mask", args.mask, "a hexadecimal way mask in ASCII digits, such as 0x7c0")
        mask = int(args.mask.strip(), 16)
    if args.action == "set" and (args.ways is None) == (mask is None):
        if args.ways is None:
            raise ConfigError("ddio set needs exactly one of --ways N or --mask HEX (neither was given)")
        raise config_error("--mask", args.mask, "exactly one of --ways N or --mask HEX (not both)")
    if args.action in ("disable", "enable") and args.nic is None:
        raise ConfigError(f"ddio {args.action} needs --nic: the PCI address of the NIC (BDF) such as 0000:3b:00.0")
    # Fake trees need no privileges; the real one does. Any spelling of / (//, /./) is this machine.
    real = os.path.realpath(args.root) == "/"
    host = t.Host("/" if real else args.root, euid=None if real else 0)
    state = args.state or t.default_state_path(host)
    typed = {"ways": ("--ways", None if ways_text is None else _typed(ways_text)), "mask": ("--mask", args.mask),
             "nic": ("--nic", args.nic), "state": ("--state", state)}
    with as_options(typed):
        if args.action == "status":
            st = t.status(host, args.nic)
            if args.json:
                _emit_json(args.json, st)
            if args.json != "-":
                print(t.format_status(st))
            return 0
        if args.action == "restore":
            out = t.restore(host, state, args.dry_run)
        else:
            if args.action == "set":
                changes, note = t.plan_set(host, args.ways, mask)
            else:
                changes, note = t.plan_port(host, args.nic, enable=args.action == "enable")
            out = t.apply(host, changes, state, args.dry_run, note)
    print("\n".join(out))
    return 0
