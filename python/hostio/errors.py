"""hostio's error types. Every error a user can cause is a ``ConfigError`` (also a ``ValueError``)
whose message names the key, the value and what is allowed; the CLI prints it on one line and exits 2."""
from hostio._core import ConfigError, HostioError

__all__ = ["ConfigError", "HostioError", "config_error"]


def config_error(key: str, value, allowed: str) -> ConfigError:
    """Build the standard message: ``key = value: allowed``."""
    return ConfigError(f"{key} = {value!r}: {allowed}")
