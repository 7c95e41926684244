"""hostio's error types. ``HostioError`` is the base of hostio's own errors (the operating
system's, such as ``OSError``, pass through). Every error a user can cause is a ``ConfigError`` (a
``HostioError`` and a ``ValueError``) whose message names the key, the value and what is allowed;
the CLI prints it on one line and exits 2. Other failures a run can report (e.g. a machine that
refuses a measurement) are plain ``HostioError``; ``USER_ERRORS`` is the tuple the command line
turns into exit status 2."""
import contextlib
import re

from hostio._core import ConfigError, HostioError

__all__ = ["ConfigError", "HostioError", "USER_ERRORS", "checked_text", "config_error", "command_line"]

USER_ERRORS = (ConfigError, HostioError)

#: Options of the commands whose checks the Python API shares (``hostio sweep``, ``advise``,
#: ``reproduce``), and the API's parameter of each: a message names the one the caller used.
PYTHON_NAMES = {"--axis": "axes", "--seeds": "seeds", "--set": "set", "--out": "out", "--jobs": "jobs",
                "--scheduler": "scheduler", "--goal": "goal", "--slo": "slo", "--knobs": "knobs", "--only": "only"}
_OPTION = re.compile(r"(?<![\w-])(" + "|".join(re.escape(o) for o in PYTHON_NAMES) + r")(?![\w-])")
_cli = [False]


@contextlib.contextmanager
def command_line():
    """Within (in every thread of the process: a command's workers too), messages name
    command-line options (``--seeds``); elsewhere, the Python API's parameters (``seeds``)."""
    before = _cli[0]
    _cli[0] = True
    try:
        yield
    finally:
        _cli[0] = before


def _python_key(key: str) -> str:
    if key.startswith("--axis ") and key[len("--axis "):].strip():
        return f"axes[{key[len('--axis '):]!r}]"
    return _OPTION.sub(lambda m: PYTHON_NAMES[m.group(1)], key)


def _python_text(allowed: str) -> str:
    allowed = allowed.replace("hostio sweep --out", "hostio.sweep(out=...)").replace("an --axis", "in axes")
    return _OPTION.sub(lambda m: PYTHON_NAMES[m.group(1)] + "=", allowed)


def config_error(key: str, value, allowed: str) -> ConfigError:
    """Build the standard message: ``key = value: allowed``. Outside :func:`command_line`, the
    options of :data:`PYTHON_NAMES` in ``key`` and ``allowed`` become the Python parameters."""
    if not _cli[0]:
        key, allowed = _python_key(key), _python_text(allowed)
    return ConfigError(f"{key} = {value!r}: {allowed}")


def checked_text(key: str, value, allowed: str = "valid Unicode text") -> str:
    """`value` if it is a string the core can take (no unpaired surrogates), else the error."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            pass
    raise config_error(key, value, allowed)
