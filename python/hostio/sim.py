"""Run the simulator from Python.

>>> import hostio
>>> r = hostio.run(hostio.scenario_path("quickstart"), set=["run.duration_us=200", "run.warmup_us=100"])
>>> 0.0 <= r["metrics"]["pcie_write_hit_rate"] <= 1.0
True

A scenario is a path to a TOML file, the name of a bundled scenario (``"quickstart"``,
``"ddio/single_core"``), TOML text, or a ``dict`` with the same tables. ``set`` takes
``KEY.PATH=VALUE`` overrides (any key of the file; an inline table such as
``nics.nic0={attachment="coherent"}`` replaces the whole table, TOML's meaning, which is how a
key the file sets is dropped); ``seed`` overrides ``run.seed``. The result is
a dict: resolved scenario, platform, the DDIO mask, seed, version, scenario hash, wall-clock
seconds, simulated microseconds and events, ``warnings`` and ``metrics`` (see the README's metric
list). Bad input raises :class:`hostio.ConfigError`.
"""
from __future__ import annotations

import json
import math
import numbers
import os
import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Callable, Iterable, Mapping, Union

from hostio import _core
from hostio.errors import UNSHOWN_CLASS, ConfigError, checked_text, config_error, python_set_names

Scenario = Union[str, os.PathLike, Mapping]


#: Largest seed (seeds are unsigned 64-bit integers).
MAX_SEED = 2**64 - 1


#: What a key path must be (the compiled module reads ``--set`` keys the same way).
DOTTED_KEY = "a TOML dotted key of non-empty parts (bare, or quoted when a part holds a dot)"
_BARE = re.compile(r"[A-Za-z0-9_-]+")


def unquoted(text: str, char: str):
    """Indexes of ``char`` in ``text`` outside quoted parts (``'...'``, or ``"..."`` with
    backslash escapes)."""
    quote, escaped = None, False
    for i, c in enumerate(text):
        if quote == '"' and escaped:
            escaped = False
        elif quote == '"' and c == "\\":
            escaped = True
        elif quote is not None:
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == char:
            yield i


def key_end(text: str) -> int | None:
    """Index of the first ``=`` of ``text`` outside a quoted key part, or None."""
    return next(unquoted(text, "="), None)


def key_parts(path) -> tuple[str, ...] | None:
    """The parts of TOML dotted key ``path`` (``apps."fwd.1".cores`` → ``("apps", "fwd.1",
    "cores")``, spaces around the dots allowed), each non-empty; None when it is not one."""
    if not isinstance(path, str) or "\n" in path or "\r" in path or key_end(path) is not None:
        return None
    try:
        node = tomllib.loads(f"{path} = 0")
    except (tomllib.TOMLDecodeError, UnicodeError):
        return None
    parts = []
    while isinstance(node, dict) and len(node) == 1:
        (k, node), = node.items()
        if not k:
            return None
        parts.append(k)
        if type(node) is int and node == 0:
            return tuple(parts)
    return None


# Control characters json.dumps leaves as they are, and the invisible ones, escaped as the
# compiled module escapes them in keys.
_UNSHOWN = re.compile(f"[{UNSHOWN_CLASS}]")


def _quoted(text: str) -> str:
    """``text`` as a TOML basic string (every control and invisible character escaped, as the
    compiled module writes keys)."""
    return _UNSHOWN.sub(lambda m: f"\\u{ord(m.group()):04x}" if ord(m.group()) < 0x10000 else f"\\U{ord(m.group()):08x}",
                        json.dumps(text, ensure_ascii=False))


def key_text(parts: Iterable[str]) -> str:
    """The normal spelling of a dotted key: parts joined by dots, quoted only when not bare
    (``run."seed"`` and ``run . seed`` are both ``run.seed``; ``apps."fwd.1".cores`` stays so)."""
    return ".".join(p if _BARE.fullmatch(p) else _quoted(p) for p in parts)


def normal_key(key: str, option: str, value=None) -> str:
    """``key`` in its normal spelling (:func:`key_text`); a ConfigError naming ``option`` and
    ``value`` (default: the key) when it is not a dotted key."""
    parts = key_parts(key)
    if parts is None:
        raise config_error(option, key if value is None else value, f"KEY.PATH=... with {DOTTED_KEY}")
    return key_text(parts)


def override_key(override) -> str | None:
    """The normal spelling of the key of a ``KEY.PATH=VALUE`` override, or None when it has none
    (the compiled module then reports the override)."""
    if not isinstance(override, str) or (i := key_end(override)) is None:
        return None
    parts = key_parts(override[:i].strip())
    return None if parts is None else key_text(parts)


def _overrides(items: Iterable[str]) -> list[str]:
    if items is None:
        raise config_error("set", None, "a list of KEY.PATH=VALUE strings")
    if isinstance(items, str):
        raise config_error("set", items, "a list of KEY.PATH=VALUE strings, not one string")
    try:
        out = list(items)
    except TypeError:
        raise config_error("set", items, "a list of KEY.PATH=VALUE strings") from None
    for ov in out:
        checked_text("set", ov, "KEY.PATH=VALUE strings of valid Unicode text")
    return out


def _is_file(p: Path) -> bool:
    """Whether `p` is a file; a name the file system cannot hold (too long) is not one."""
    try:
        return p.is_file()
    except OSError:
        return False


def scenario_path(name: str) -> Path:
    """Path of a bundled scenario, e.g. ``"quickstart"`` or ``"ddio/single_core"`` (``.toml`` may
    follow the name); any other name, a path included, is a ConfigError listing the bundled ones."""
    known = bundled_scenarios()
    # Only a name of the bundle (with or without `.toml`): no path that leads out of it.
    stem = name[: -len(".toml")] if name.endswith(".toml") else name
    if stem not in known:
        raise config_error("scenario", name, "one of the bundled scenarios: " + ", ".join(known))
    return _scenarios_dir() / f"{stem}.toml"


def _scenarios_dir() -> Path:
    return Path(str(resources.files("hostio") / "scenarios"))


def bundled_scenarios() -> list[str]:
    """Names of the bundled scenarios (for :func:`scenario_path`), sorted."""
    base = _scenarios_dir()
    return sorted(q.relative_to(base).with_suffix("").as_posix() for q in base.rglob("*.toml"))


#: What a scenario argument may be.
SCENARIO_KINDS = "an existing TOML file, a bundled scenario name, TOML text or a mapping"
#: Deepest nesting of tables and lists a scenario mapping may have (scenarios use 3 or 4 levels).
MAX_DEPTH = 32
#: TOML integers are 64-bit signed.
TOML_INT = (-(2**63), 2**63 - 1)


def _numpy_type(value) -> str | None:
    """The name of `value`'s NumPy scalar type (``bool`` for NumPy 2's boolean), else None."""
    t = type(value)
    return t.__name__ if t.__module__ == "numpy" else None


def integer(value) -> int | None:
    """`value` as an int when it is an integer of any integer type (NumPy's too), else None: not
    a boolean, not a NumPy time, which NumPy files under the integers, and not a value of an
    integer type whose conversion to int fails."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or _numpy_type(value) in ("timedelta64", "datetime64"):
        return None
    if isinstance(value, int):
        return int.__int__(value)  # an int subclass's own value, whatever its __int__ does
    try:
        return int(value)
    except Exception:  # an Integral type whose conversion fails gives no integer
        return None


def _plain(value, key: str, depth: int = 0):
    """A scenario mapping as plain JSON-ready data (dicts with string keys, lists, str, bool, int,
    float; numpy-style scalars become Python numbers, -0.0 becomes 0.0). Refuses, naming the first
    offending key in the mapping's order: None (TOML has no null), NaN and infinities, integers
    too large for a float (those beyond TOML's 64 bits but within a float become floats, and the
    key's own range decides), text that is not valid Unicode, keys that are not strings, other types,
    and nesting deeper than MAX_DEPTH (which also stops a mapping that contains itself)."""
    if depth > MAX_DEPTH:
        raise config_error(key, "...", f"at most {MAX_DEPTH} levels of nested tables and lists")
    if value is None:
        item = key.endswith("]")
        raise config_error(key, None, "a value (TOML has no None" + (")" if item else "; a key left out takes its default, if it has one)"))
    if isinstance(value, bool) or _numpy_type(value) in ("bool_", "bool"):
        return bool(value)
    if _numpy_type(value) in ("timedelta64", "datetime64"):
        raise config_error(key, value, "a string, number, boolean, list or table (not a time)")
    if isinstance(value, numbers.Integral):
        v = int(value)
        if not TOML_INT[0] <= v <= TOML_INT[1]:
            # Beyond TOML's integers it is still a number, as on the command line: the key decides.
            try:
                return float(v)
            except OverflowError:
                digits = str(v)
                raise ConfigError(f"{key} = {digits[:20]}… ({len(digits)} digits): a number within 64-bit floating point") from None
        return v
    if isinstance(value, numbers.Real):
        v = float(value)
        if not math.isfinite(v):
            raise config_error(key, v, "a finite number")
        return v + 0.0
    if isinstance(value, str):
        return checked_text(key, value)
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise config_error(f"{key}.{k!r}" if key else repr(k), v, "a table whose keys are strings")
            name = key_text([k])  # quoted when not a bare key, as it would be written in TOML
            out[k] = _plain(v, f"{key}.{name}" if key else name, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(v, f"{key}[{i}]", depth + 1) for i, v in enumerate(value)]
    raise config_error(key, value, "a string, number, boolean, list or table")


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise config_error("scenario", str(path), f"UTF-8 text (byte {data[e.start]:#04x} at offset {e.start} is not)") from None
    try:  # a file that is not TOML is named (the simulator's own parser would not know the path)
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise config_error("scenario", str(path), f"a TOML file (not valid TOML: {e})") from None
    except RecursionError:
        raise config_error("scenario", str(path), "a TOML file whose tables and lists nest fewer than a few hundred levels deep") from None
    return text


def _source(scenario: Scenario) -> tuple[str, bool, str | None]:
    """(text, is_json, base) for the compiled module; base is a scenario file's folder, which its
    relative file paths (captures, a platform file) are read from (None: the working
    directory)."""
    if isinstance(scenario, Mapping):
        return json.dumps(_plain(scenario, ""), allow_nan=False), True, None
    s = os.fspath(scenario) if isinstance(scenario, (str, os.PathLike)) else None
    if not isinstance(s, str):
        raise config_error("scenario", type(scenario).__name__, SCENARIO_KINDS)
    if "\n" in s or "[" in s and not os.path.exists(s):
        return checked_text("scenario", s, "TOML text of valid Unicode (no unpaired surrogates), a file or a bundled name"), False, None
    path = Path(s)
    if not _is_file(path):
        try:
            path = scenario_path(s)
        except ValueError:
            raise config_error("scenario", s, f"{SCENARIO_KINDS} (bundled: {', '.join(bundled_scenarios())})") from None
    return _read_text(path), False, os.path.abspath(path.parent)


def scenario_text(scenario: Scenario) -> str:
    """The TOML text of a scenario given as a file, a bundled name, TOML text or a mapping. A
    file's relative paths (captures, a platform file) are made absolute, so the text runs the
    same from any folder: the file's text is then written anew (its comments and layout are not
    kept); a file without such paths comes back as written."""
    text, is_json, base = _source(scenario)
    if not is_json:
        # Relative file paths made absolute: the text may run elsewhere (a sweep's workers).
        return _core.scenario_at(text, base) if base is not None else text
    toml_text = _core.scenario_toml(text)
    if not toml_text.strip():
        resolved(scenario)  # an empty mapping: the simulator's own error (what a scenario needs)
    return toml_text


def run(
    scenario: Scenario,
    *,
    set: Iterable[str] = (),
    seed: int | None = None,
    progress: Callable[[float], None] | None = None,
    check_invariants: bool = False,
) -> dict:
    """Simulate one scenario; returns the result dict. ``progress(fraction)`` is called as
    simulated time advances (``progress=False`` or None: no calls). Ctrl-C interrupts the run (KeyboardInterrupt). With
    ``check_invariants`` a run that breaks one of the simulator's invariants (packet conservation,
    rates within [0, 1], no negative queue) raises :class:`hostio.HostioError`; debug builds always
    check them."""
    if seed is not None:
        v = integer(seed)
        if v is None or not 0 <= v <= MAX_SEED:
            raise config_error("--seed", seed, f"an integer in 0..={MAX_SEED}")
        seed = v
    if progress is False:
        progress = None
    if progress is not None and not callable(progress):
        raise config_error("progress", progress, "a function of the fraction simulated, or None (or False)")
    text, is_json, base = _source(scenario)
    with python_set_names():
        out = _core.simulate(text, _overrides(set), seed, progress, is_json, check_invariants, base)
    return _runnable(json.loads(out))


def check(scenario: Scenario, *, set: Iterable[str] = ()) -> dict:
    """Validate a scenario without running it; returns the resolved scenario, the values the engine
    gives the keys it leaves unset (``defaults``: each app's CAT mask, mempool socket, working set,
    accesses and cycles per packet, the platform's replacement), platform, DDIO mask,
    the memory the simulation will hold (``simulated_memory_mib``), ``warnings`` and, by traffic
    source, the totals of each capture it replays (``captures``: frames, bytes, span, mean rate,
    distinct flows, padded frames, digest), read in full here."""
    return _runnable(resolved(scenario, set=set))


def resolved(scenario: Scenario, *, set: Iterable[str] = ()) -> dict:
    """:func:`check`'s result as the simulator gives it: every key of the resolved scenario, the
    unset ones as None (what a point's identity and the advisor's knob lookup read)."""
    text, is_json, base = _source(scenario)
    with python_set_names():
        out = _core.check_scenario(text, _overrides(set), is_json, base)
    return json.loads(out)


def _without_none(value):
    """``value`` with the keys whose value is None left out, at every depth."""
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


def _runnable(result: dict) -> dict:
    """A result whose resolved ``scenario`` runs again as it is: the keys left unset (null in the
    simulator's JSON) are left out, as a scenario leaves them out (a scenario takes no None)."""
    if isinstance(result.get("scenario"), dict):
        result["scenario"] = _without_none(result["scenario"])
    return result


def presets() -> dict[str, dict]:
    """The built-in platform presets and their facts."""
    return {name: json.loads(_core.preset(name)) for name in _core.presets()}
