"""The README's simulator examples run as written."""
import re
import subprocess
from pathlib import Path

README = (Path(__file__).parent.parent / "README.md").read_text()
SECTION = README[README.index("## The simulator"):README.index("### Speed")]


def test_python_example_runs():
    code = re.search(r"```python\n(.*?)```", SECTION, re.S).group(1)
    ns: dict = {}
    exec(compile(code, "README.md", "exec"), ns)
    assert len(ns["rows"]) == 2 and 0 <= ns["r"]["metrics"]["pcie_write_hit_rate"] <= 1


def test_toml_example_is_the_bundled_quickstart():
    import hostio

    block = re.search(r"```toml\n(.*?)```", SECTION, re.S).group(1)
    resolved = hostio.check(block)
    bundled = hostio.check(hostio.scenario_path("quickstart"))
    assert resolved["scenario"]["apps"] == bundled["scenario"]["apps"]
    assert resolved["scenario"]["traffic"] == bundled["scenario"]["traffic"]


def test_cli_examples_parse():
    import shlex
    import sys

    block = re.search(r"```sh\n(.*?)```", SECTION, re.S).group(1).replace("\\\n", " ")
    for line in block.splitlines():
        cmd = shlex.split(line.split("#")[0])
        if not cmd or "sweep" in cmd or cmd[1:2] == ["run"] and "--json" not in cmd:
            continue
        p = subprocess.run([sys.executable, "-m", "hostio", *cmd[1:]], capture_output=True, text=True)
        assert p.returncode == 0, (line, p.stderr)


def test_advise_example_shows_what_the_command_prints():
    import shlex
    import sys

    m = re.search(r"```sh\n(\.venv/bin/hostio advise [^\n]*)\n```\n\n```\n(.*?)```", SECTION, re.S)
    cmd = shlex.split(m.group(1).split("#")[0])
    p = subprocess.run([sys.executable, "-m", "hostio", *cmd[1:]], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout == m.group(2)
