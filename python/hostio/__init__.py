"""hostio: simulate, measure and tune the host network I/O path (NIC, PCIe, DDIO, LLC, cores)."""
from hostio._core import __version__
from hostio.errors import ConfigError, HostioError
from hostio.sim import check, presets, run, scenario_path
from hostio import sweep  # a callable module: hostio.sweep(...) runs a sweep, hostio.sweep.run_points etc. stay
from hostio.sweep import load

__all__ = ["__version__", "ConfigError", "HostioError", "check", "load", "presets", "run", "scenario_path", "sweep"]
