"""The ``hostio`` command line. Each command group lives in its own module and registers its
sub-commands here; the CLI only parses arguments and prints, the logic is in the Python API.

Bad input exits 2 with one line; Ctrl-C exits 130 and SIGTERM 143, both after the same clean-up
(a sweep keeps its finished points and writes its tables for them; a reproduction keeps its
finished points, which a rerun into the same folder resumes from, and the tables of the
experiments it finished, but no summary: it removed the earlier run's summary, and the tables of
the experiments it runs, when it started); a second
Ctrl-C or SIGTERM ends the process at once (exit status 130 or 143 too), and what finished
stays on disk. Two outputs may not name one destination (``--json -`` with ``--csv
/dev/stdout``), and a path to standard output is written as ``-`` is."""
from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import signal
import sys
import time

from hostio import outfile
from hostio.errors import USER_ERRORS, command_line

#: Modules that each define ``register(subparsers)``; a sub-command sets ``func(args) -> int``.
COMMAND_MODULES = ("hostio.simcli", "hostio.pcie_cli", "hostio.hw_cli")


#: Arguments that name an output file (argparse dest → option); they are checked before the
#: command does any work. Folder outputs (``sweep --out``, ``reproduce --out``) are not files.
OUTPUT_ARGS = {"json": "--json", "csv": "--csv", "platform_out": "--platform-out", "report_out": "--out"}
#: Those of them that take ``-`` for standard output.
STDOUT_ARGS = ("json", "csv", "platform_out", "report_out")


def _input_files_of(scenario: str, sets: list) -> list[tuple[str, str]]:
    """The files a scenario reads besides itself, as (what, path): its platform file
    (``platform.preset = "file:PATH"``) and the captures its traffic replays; none when the
    scenario does not resolve (the command itself then says why)."""
    from hostio import sim

    try:
        sc = sim.resolved(scenario, set=sets)["scenario"]
    except Exception:  # noqa: BLE001 - any failure is the command's to report, with its own message
        return []
    files = []
    preset = sc["platform"]["preset"]
    if isinstance(preset, str) and preset.startswith("file:"):
        files.append(("platform file", preset[len("file:"):]))
    for name, t in sc.get("traffic", {}).items():
        if isinstance(t.get("pcap"), str):
            files.append(("capture", t["pcap"]))
    return files


def _scenario_file(scenario: str) -> str:
    """The file a scenario argument reads (`simcli.resolve_scenario`), or the argument itself when
    it names none (the command then says so)."""
    from hostio.simcli import resolve_scenario

    try:
        return resolve_scenario(scenario)
    except USER_ERRORS:
        return scenario


def _a_report(rel: str) -> bool:
    """A file of a sweep or reproduce folder that a report may replace: an HTML page at its top."""
    return os.sep not in rel and rel.endswith(".html")


def one_line(message: str) -> str:
    """The message with control characters (a value's newline, carriage return, ...) escaped, so
    that an error stays on one line whatever the user typed."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(message))


def integer_arg(text: str) -> int:
    """An argparse ``type`` for integer options: ASCII digits with an optional sign (Python's
    ``int`` would also take other scripts' digits, ``٣`` or ``３``, and ``1_000``)."""
    t = text.strip(" \t")
    if not re.fullmatch(r"[+-]?[0-9]+", t):
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer (ASCII digits 0-9, with an optional sign)")
    try:
        return int(t)
    except ValueError:  # beyond Python's limit on digits converted (4300): far beyond any count
        raise argparse.ArgumentTypeError(f"{t[:20]}… ({len(t)} digits) is not an integer of at most "
                                         f"{sys.get_int_max_str_digits()} digits") from None


def number_arg(text: str) -> float:
    """An argparse ``type`` for number options: what ``float`` reads, in ASCII only (``1.5``,
    ``2e3``; ``nan`` and ``inf`` too, for the command to refuse with its own message)."""
    t = text.strip(" \t")
    if not t.isascii() or "_" in t:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (ASCII digits, e.g. 1.5 or 2e3)")
    try:
        return float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (ASCII digits, e.g. 1.5 or 2e3)") from None


class Parser(argparse.ArgumentParser):
    """argparse with its own errors (a missing argument, ``--reps x``) on one line and exit 2,
    like every other bad input; sub-command parsers inherit it."""

    def error(self, message: str):
        print(f"{self.prog}: error: {one_line(message)}", file=sys.stderr)
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    from hostio import __version__

    parser = Parser(prog="hostio", description="The host network I/O path laboratory.")
    parser.add_argument("--version", action="version", version=f"hostio {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that the same clean-up runs (a sweep writes its tables for
    the points finished so far); the command then exits 143 (128 + SIGTERM) instead of 130."""


def _terminate(signum, frame):
    raise Terminated()


#: Seconds within which a repeat of the first SIGINT or SIGTERM counts as the same one.
REPEAT_S = 0.2


@contextlib.contextmanager
def _interrupted_once():
    """Inside the block the first Ctrl-C (SIGINT) or SIGTERM raises as it would (KeyboardInterrupt,
    or ``Terminated``) and the command cleans up after it; the next one ends the process there and
    then with 128 + its number (130, 143), so that a clean-up that hangs can still be stopped. What
    finished is on disk already: sweeps and reproductions log each point as it finishes. Only
    Python handlers are wrapped (a signal ignored or left to the system stays so). A repeat of
    the first signal within ``REPEAT_S`` is the same request (``timeout -s INT`` signals the
    process and then its group)."""
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    previous = {s: h for s, h in previous.items() if callable(h)}
    fired = None  # (signal, monotonic time) of the first

    def handler(signum, frame):
        nonlocal fired
        if fired is not None and fired[0] == signum and time.monotonic() - fired[1] < REPEAT_S:
            return
        if fired is not None:
            for s in previous:  # one message, however many signals follow
                signal.signal(s, signal.SIG_IGN)
            what = "terminated" if signum == signal.SIGTERM else "interrupted"
            print(f"hostio: {what} again: stopped without cleaning up", file=sys.stderr, flush=True)
            os._exit(128 + signum)
        try:
            previous[signum](signum, frame)
        except BaseException:
            fired = (signum, time.monotonic())
            raise

    for s in previous:
        signal.signal(s, handler)
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        with _interrupted_once(), command_line():
            return _main(args)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _main(args) -> int:
    try:
        outputs = [(name, option, getattr(args, name, None)) for name, option in OUTPUT_ARGS.items()]
        outputs = [(name, option, value) for name, option, value in outputs if isinstance(value, str)]
        outfile.check_distinct([(option, value) for _, option, value in outputs])
        # An output never replaces the scenario file a command reads (a bundled scenario's too),
        # nor the platform file or a capture it reads, nor a result in the folder a report reads (an HTML page at its top, such as its
        # report.html, may be rewritten).
        scenario, folder = getattr(args, "scenario", None), getattr(args, "folder", None)
        files = []
        if isinstance(scenario, str):
            files.append(("scenario file", _scenario_file(scenario)))
        if isinstance(scenario, str) and any(value != "-" for _, _, value in outputs):
            # Resolved only when a file is written: the command resolves it again anyway.
            files += _input_files_of(scenario, getattr(args, "set", None) or [])
        outfile.check_not_inputs(
            [(option, value) for _, option, value in outputs],
            files=files,
            folders=[("folder it reports on", folder, _a_report)] if isinstance(folder, str) else [],
        )
        for name, option, value in outputs:
            outfile.check(option, value)
            if name in STDOUT_ARGS and value != "-" and outfile.destination(value) == outfile.STDOUT:
                # A path to standard output (/dev/stdout, or the file it is redirected to) is
                # standard output: written in place, and the command prints nothing else there,
                # as with -, rather than the file being replaced under the command's other output.
                setattr(args, name, "-")
        return int(args.func(args) or 0)
    except USER_ERRORS as exc:
        print(f"hostio: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except OSError as exc:
        # A path the user named cannot be read or written (missing folder, permissions, ...).
        where = f"{one_line(exc.filename)}: " if exc.filename else ""
        print(f"hostio: error: {where}{one_line(exc.strerror or exc)}", file=sys.stderr)
        return 2
    except Terminated as exc:
        print("hostio: terminated", file=sys.stderr)
        _print_notes(exc)
        return 143
    except KeyboardInterrupt as exc:
        print("hostio: interrupted", file=sys.stderr)
        _print_notes(exc)
        return 130


def _print_notes(exc: BaseException) -> None:
    """What the clean-up after an interruption could not do (e.g. a sweep's tables not written)."""
    for note in getattr(exc, "__notes__", ()):
        print(f"hostio: {one_line(note)}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
