"""Every name becomes LaTeX that pdflatex compiles: each code point from U+0000 to U+2FFF (and a sample of
the planes above) goes through :func:`subsetsel_core.outputs.latex.escape` into one table, compiled once."""

from __future__ import annotations

import os
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

from subsetsel_core.outputs.latex import escape

CODE_POINTS = [*range(0x0, 0x3000), *range(0x3000, 0x110000, 997)]


def _names() -> list[str]:
    chars = [chr(c) for c in CODE_POINTS if not 0xD800 <= c <= 0xDFFF]  # no lone surrogate reaches a name
    return ["".join(chars[i:i + 40]) for i in range(0, len(chars), 40)]


@pytest.mark.parametrize("name", ["a\u2028b", "a\u2029b", "a\nb", "a\r\nb", "a\x0bb", "a\x0cb", "a\x85b",
                                  "a\u00a0b", "a\u3000b"])
def test_line_and_paragraph_separators_become_one_space(name: str) -> None:
    assert escape(name) in ("a b", "a~b")


def test_control_and_format_characters_are_dropped_and_the_rest_is_ascii_or_native() -> None:
    assert escape("x\x00\x1b\x7f\u200b\u200d\u202e\ufeffy") == "xy"
    out = escape("".join(_names()))
    assert not any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in out)
    assert "\n" not in out and "\u2028" not in out


def test_the_specials_cannot_open_a_command() -> None:
    out = escape(r"\input{/etc/passwd}\end{document}$x$%")
    assert "\\input" not in out and "\\end{" not in out and out.count("$") == 2 * out.count(r"\$") // 2


@pytest.mark.skipif(shutil.which("pdflatex") is None and not os.environ.get("CI"),
                    reason="pdflatex is not installed (CI installs it and runs this test)")
def test_every_code_point_compiles(tmp_path: Path) -> None:
    names = [*_names(), "[0.5cm] starts like an option", "*star", "中 first", "] closing"]
    rows = "\n".join(rf"{escape(n)} & {i} \\" for i, n in enumerate(names))  # each name opens its row
    (tmp_path / "doc.tex").write_text("\\documentclass{article}\n\\begin{document}\n\\begin{tabular}{ll}\n"
                                      f"{rows}\n\\end{{tabular}}\n\\end{{document}}\n", encoding="utf-8")
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300, errors="replace")
    assert r.returncode == 0, r.stdout[-3000:]
