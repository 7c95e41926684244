"""The README's PCIe section: every ``console`` example is run and its output compared, every
``pycon`` example is run as a doctest."""
from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path

import pytest

from hostio.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"
SECTION = "## PCIe: bandwidth and latency models"


def section() -> str:
    text = README.read_text()
    start = text.index(SECTION)
    nxt = text.find("\n## ", start + len(SECTION))
    return text[start: nxt if nxt >= 0 else len(text)]


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", section(), flags=re.S)


def examples() -> list[tuple[str, str]]:
    out = []
    for block in blocks("console"):
        cmd, expected = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if cmd is not None:
                    out.append((cmd, "\n".join(expected)))
                cmd, expected = line[2:], []
            else:
                expected.append(line)
        if cmd is not None:
            out.append((cmd, "\n".join(expected)))
    return out


def test_section_has_examples():
    assert len(examples()) >= 8
    assert len(blocks("pycon")) == 1


@pytest.mark.parametrize("cmd,expected", examples(), ids=[c for c, _ in examples()])
def test_console_example(cmd, expected, capsys):
    argv = shlex.split(cmd)
    assert argv[0] == "hostio"
    rc = main(argv[1:])
    cap = capsys.readouterr()
    got = (cap.out + cap.err).rstrip("\n")
    assert got == expected.rstrip("\n")
    assert rc == (2 if "error:" in expected else 0)


def test_python_example():
    (block,) = blocks("pycon")
    parser = doctest.DocTestParser()
    test = parser.get_doctest(block, {}, "README", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 8
