"""Runs every ```python block of the book (book/src/**/*.md), as crates/rt/tests/it/book.rs runs
the ptl blocks.

The blocks of one chapter run in order in one namespace (a later block may use the names an
earlier one defined), with ``exec`` and the repository root as the working directory. If a ```text or ```output block follows it directly (only blank lines
between), what the block prints must equal that block (trailing blanks ignored). A block
whose info string is ``python,norun`` is not run.

The blocks use ``pytensor_ptl``; when it cannot be imported (the extension is not built),
every block is skipped with a message saying so, and the skip is also written to stderr so
it shows up even under ``pytest -q``.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book" / "src"
FENCE = re.compile(r"^(```+|~~~+)\s*([^\s`]*)\s*$")


def code_blocks(text: str):
    """(info, code, first line, adjacent to the previous block) for each fenced block."""
    blocks = []
    lines = text.split("\n")
    i, last_end = 0, None
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info, start = m.group(1), m.group(2), i
        j = i + 1
        while j < len(lines) and not lines[j].startswith(fence):
            j += 1
        between = lines[last_end + 1 : start] if last_end is not None else ["x"]
        adjacent = all(not l.strip() for l in between)
        blocks.append((info, "\n".join(lines[i + 1 : j]) + "\n", start + 1, adjacent))
        last_end, i = j, j + 1
    return blocks


def python_blocks(md: Path):
    """(info, code, line, expected output or None) for each python block of one chapter."""
    out = []
    blocks = code_blocks(md.read_text())
    for k, (info, code, line, _) in enumerate(blocks):
        if info.split(",")[0] != "python":
            continue
        expected = None
        if k + 1 < len(blocks):
            n_info, n_code, _, n_adjacent = blocks[k + 1]
            if n_adjacent and n_info in ("text", "output"):
                expected = n_code
        out.append((info, code, line, expected))
    return out


CHAPTERS = [
    pytest.param(md, id=str(md.relative_to(BOOK))) for md in sorted(BOOK.rglob("*.md")) if python_blocks(md)
]

try:
    import pytensor_ptl  # noqa: F401

    MISSING = None
except Exception as e:  # the extension is not built, or fails to load
    MISSING = f"pytensor_ptl cannot be imported ({e!r}): the book's python blocks were NOT run"
    print(f"\n*** tests/python/test_book.py: {MISSING} ***", file=sys.stderr)


def normalize(s: str) -> str:
    return "\n".join(l.rstrip() for l in s.strip("\n").split("\n")).rstrip()


@pytest.mark.skipif(not CHAPTERS, reason="the book has no python blocks yet")
@pytest.mark.parametrize("md", CHAPTERS or [pytest.param(None, id="none")])
def test_book_python_blocks(md, monkeypatch):
    if MISSING:
        pytest.skip(MISSING)
    monkeypatch.chdir(ROOT)
    namespace = {"__name__": "__book__"}
    for info, code, line, expected in python_blocks(md):
        if info == "python,norun":
            continue
        where = f"{md.relative_to(BOOK)}:{line}"
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, where, "exec"), namespace)
        if expected is not None:
            assert normalize(out.getvalue()) == normalize(expected), f"output of the block at {where}"


def test_book_blocks_are_found():
    """The extractor sees the book (a guard against running nothing after a move)."""
    assert (BOOK / "SUMMARY.md").exists()
    assert any(info.startswith("ptl") for md in BOOK.rglob("*.md") for info, *_ in code_blocks(md.read_text()))
