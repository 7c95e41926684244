"""Run the simulator from Python.

>>> import hostio
>>> r = hostio.run(hostio.scenario_path("quickstart"), set=["run.duration_us=200", "run.warmup_us=100"])
>>> 0.0 <= r["metrics"]["pcie_write_hit_rate"] <= 1.0
True

A scenario is a path to a TOML file, the name of a bundled scenario (``"quickstart"``,
``"ddio/single_core"``), TOML text, or a ``dict`` with the same tables. ``set`` takes
``KEY.PATH=VALUE`` overrides (any key of the file); ``seed`` overrides ``run.seed``. The result is
a dict: resolved scenario, platform, seed, version, scenario hash, wall-clock seconds, simulated
events and ``metrics`` (see the README's metric list). Bad input raises :class:`hostio.ConfigError`.
"""
from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Callable, Iterable, Mapping, Union

from hostio import _core
from hostio.errors import config_error

Scenario = Union[str, os.PathLike, Mapping]


def scenario_path(name: str) -> Path:
    """Path of a bundled scenario, e.g. ``"quickstart"`` or ``"ddio/fig6"``."""
    base = resources.files("hostio") / "scenarios"
    p = Path(str(base)) / f"{name}.toml"
    if not p.is_file():
        known = sorted(str(q.relative_to(Path(str(base))).with_suffix("")) for q in Path(str(base)).rglob("*.toml"))
        raise config_error("scenario", name, "one of the bundled scenarios: " + ", ".join(known))
    return p


def _source(scenario: Scenario) -> tuple[str, bool]:
    """(text, is_json) for the compiled module."""
    if isinstance(scenario, Mapping):
        return json.dumps(scenario), True
    s = os.fspath(scenario)
    if "\n" in s or "[" in s and not os.path.exists(s):
        return s, False
    path = Path(s)
    if not path.is_file():
        try:
            path = scenario_path(s)
        except ValueError:
            raise config_error("scenario", s, "an existing TOML file, a bundled scenario name, TOML text or a mapping") from None
    return path.read_text(), False


def run(
    scenario: Scenario,
    *,
    set: Iterable[str] = (),
    seed: int | None = None,
    progress: Callable[[float], None] | None = None,
) -> dict:
    """Simulate one scenario; returns the result dict. ``progress(fraction)`` is called as
    simulated time advances. Ctrl-C interrupts the run (KeyboardInterrupt)."""
    text, is_json = _source(scenario)
    return json.loads(_core.simulate(text, list(set), seed, progress, is_json))


def check(scenario: Scenario, *, set: Iterable[str] = ()) -> dict:
    """Validate a scenario without running it; returns the resolved scenario, platform and mask."""
    text, is_json = _source(scenario)
    return json.loads(_core.check_scenario(text, list(set), is_json))


def presets() -> dict[str, dict]:
    """The built-in platform presets and their facts."""
    return {name: json.loads(_core.preset(name)) for name in _core.presets()}
