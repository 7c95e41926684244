"""hostio's error types. ``HostioError`` is the base of hostio's own errors (the operating
system's, such as ``OSError``, pass through). Every error a user can cause is a ``ConfigError`` (a
``HostioError`` and a ``ValueError``) whose message names the key, the value and what is allowed;
the CLI prints it on one line and exits 2. Other failures a run can report (e.g. a machine that
refuses a measurement) are plain ``HostioError``; ``USER_ERRORS`` is the tuple the command line
turns into exit status 2."""
import contextlib
import re
import threading

from hostio._core import ConfigError, HostioError

__all__ = ["ConfigError", "HostioError", "USER_ERRORS", "UNSHOWN_CLASS", "checked_text", "config_error", "command_line", "python_set_names", "say", "shown"]

USER_ERRORS = (ConfigError, HostioError)

#: Options of the commands whose checks the Python API shares (``hostio sweep``, ``advise``,
#: ``reproduce``), and the API's parameter of each: a message names the one the caller used.
PYTHON_NAMES = {"--axis": "axes", "--seeds": "seeds", "--seed": "seed", "--set": "set", "--out": "out", "--jobs": "jobs",
                "--scheduler": "scheduler", "--goal": "goal", "--slo": "slo", "--knobs": "knobs", "--only": "only"}
#: Options whose messages may name one of their entries (``--axis KEY``: ``axes['KEY']``).
_MAPPINGS = ("--axis", "--knobs")
_commands = 0
_lock = threading.Lock()


@contextlib.contextmanager
def command_line():
    """While any thread of the process is within, messages name command-line options
    (``--seeds``); otherwise the Python API's parameters (``seeds``)."""
    global _commands
    with _lock:
        _commands += 1
    try:
        yield
    finally:
        with _lock:
            _commands -= 1


def say(cli: str, python: str) -> str:
    """The first text on the command line (:func:`command_line`), the second elsewhere: for the
    parts of a message that name an option."""
    return cli if _commands else python


def _python_key(key: str) -> str:
    """``key`` as the Python API names it: an option of :data:`PYTHON_NAMES` (alone, or several
    joined by ``and``), or a mapping option with one entry's key; anything else as it is."""
    if key in PYTHON_NAMES:
        return PYTHON_NAMES[key]
    parts = key.split(" and ")
    if len(parts) > 1 and all(p in PYTHON_NAMES for p in parts):
        return " and ".join(PYTHON_NAMES[p] for p in parts)
    for opt in _MAPPINGS:
        if key.startswith(opt + " ") and key[len(opt) + 1:].strip():
            return f"{PYTHON_NAMES[opt]}[{key[len(opt) + 1:]!r}]"
    return key


#: A regular-expression class of the characters a message escapes beyond the C0 controls: DEL
#: and the C1 controls, and the invisible ones (Unicode's default-ignorable code points, the
#: interlinear annotation controls, line and paragraph separators), as the compiled module does.
UNSHOWN_CLASS = ("\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e"
                 "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\U0001bca0-\U0001bca3"
                 "\U0001d173-\U0001d17a\U000e0000-\U000e0fff")
_UNSHOWN_ANY = re.compile(f"[\x00-\x1f{UNSHOWN_CLASS}]")


def shown(text: str) -> str:
    """``text`` with its control and invisible characters as ``\\uXXXX`` (``\\UXXXXXXXX``), for
    a message that shows a name or path the user gave."""
    return _UNSHOWN_ANY.sub(lambda m: f"\\u{ord(m.group()):04x}" if ord(m.group()) < 0x10000 else f"\\U{ord(m.group()):08x}", str(text))


#: Characters of a value an error shows (as the compiled module's errors do).
MAX_SHOWN = 200


def config_error(key: str, value, allowed: str) -> ConfigError:
    """Build the standard message: ``key = value: allowed``. Outside :func:`command_line`, a key
    that is a command-line option of :data:`PYTHON_NAMES` becomes the Python parameter (the
    message text names options through :func:`say`)."""
    if not _commands:
        key = _python_key(key)
    if isinstance(value, str) and len(repr(value)) > MAX_SHOWN:
        # Cut the text, not its quoted form (no escape is cut in half), short enough that its
        # quoted form fits; count its characters.
        k = MAX_SHOWN
        while len(repr(value[:k])) > MAX_SHOWN:
            k //= 2
        shown = f"{value[:k]!r}… ({len(value)} characters)"
    else:
        shown = show(value)
    return ConfigError(f"{key} = {shown}: {allowed}")


def show(value) -> str:
    """``repr(value)`` for a message, cut to :data:`MAX_SHOWN` characters; a value whose text
    cannot be made (nested too deeply, an integer beyond Python's digit limit for text, a
    ``__repr__`` that fails) is described instead."""
    try:
        shown = repr(value)
    except RecursionError:
        return f"<a {type(value).__name__} nested too deeply to show>"
    except Exception:  # noqa: BLE001 - any failure of a foreign __repr__ is described, not raised
        if isinstance(value, int):
            return f"<an integer of {value.bit_length()} bits>"
        return f"<a {type(value).__name__} that cannot be shown>"
    if len(shown) > MAX_SHOWN:
        shown = f"{shown[:MAX_SHOWN]}… ({len(shown)} characters of its text)"
    return shown


@contextlib.contextmanager
def python_set_names():
    """Within, a compiled-module error about an override (``--set = ...``) is raised naming the
    Python parameter (``set = ...``) outside :func:`command_line`; other errors pass as they are."""
    try:
        yield
    except ConfigError as e:
        msg = str(e)
        if _commands or not msg.startswith("--set = "):
            raise
        raise ConfigError("set = " + msg[len("--set = "):]) from None


def checked_text(key: str, value, allowed: str = "valid Unicode text") -> str:
    """`value` if it is a string the core can take (no unpaired surrogates), else the error."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            pass
    raise config_error(key, value, allowed)
