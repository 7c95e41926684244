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


def test_cli_examples_run():
    """Every hostio command of the section's shell blocks runs (a sweep with 20 µs per point, so
    that its options are checked without simulating for long; `advise` has its own test; the
    Dask lines need a cluster)."""
    import shlex
    import sys
    import tempfile

    ran = []
    for block in re.findall(r"```sh\n(.*?)```", SECTION, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            cmd = shlex.split(line.split("#")[0])
            if not cmd or cmd[0] != ".venv/bin/hostio" or cmd[1] == "advise" or "--scheduler" in cmd:
                continue
            if cmd[1] == "sweep":
                out = cmd.index("--out")
                with tempfile.TemporaryDirectory() as d:
                    cmd[out + 1] = d
                    p = subprocess.run([sys.executable, "-m", "hostio", *cmd[1:], "--set", "run.duration_us=20", "--set", "run.warmup_us=0"],
                                       capture_output=True, text=True)
            else:
                p = subprocess.run([sys.executable, "-m", "hostio", *cmd[1:]], capture_output=True, text=True)
            assert p.returncode == 0, (line, p.stderr)
            ran.append(cmd[1])
    assert ran.count("run") == 6 and {"sweep", "reproduce", "presets"} <= set(ran), ran


def test_advise_example_shows_what_the_command_prints():
    import shlex
    import sys

    m = re.search(r"```sh\n(\.venv/bin/hostio advise [^\n]*)\n```\n\n```\n(.*?)```", SECTION, re.S)
    cmd = shlex.split(m.group(1).split("#")[0])
    p = subprocess.run([sys.executable, "-m", "hostio", *cmd[1:]], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout == m.group(2)
