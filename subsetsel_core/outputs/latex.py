r"""The AUC table as LaTeX, ready to ``\input`` into a paper (booktabs style).

One row per entry (strategy, and its representation when there are several), one column
per metric: the mean AUC over trials and its 95 % interval (2.5–97.5 % of trials), rounded
by :mod:`subsetsel_core.text.rounding`. In each metric's column the best mean (highest, or
lowest for a lower-is-better metric) is bold; **ties**: every entry whose mean, as printed,
equals the best printed mean is bold too. The file starts with the provenance as ``%``
lines; it needs ``\usepackage{booktabs}``.

Names are escaped (:func:`escape`) so that the table always compiles with pdflatex: the
specials, every line or paragraph separator (U+2028, U+2029), control and format
characters, and every character pdflatex's default fonts cannot set.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from subsetsel_core.text.rounding import text

if TYPE_CHECKING:
    from subsetsel_core.evaluation.result import EvaluationResult

__all__ = ["auc_latex", "best_keys", "escape"]

_SPECIALS = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#",
    "$": r"\$", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",  # OT1 would print ¡ ¿ —
    "[": "{[}", "]": "{]}", "*": "{*}",  # after a row's \\ they would be read as its options
    "–": "--", "—": "---", "…": r"\dots{}", "×": r"$\times$", "±": r"$\pm$", "≤": r"$\leq$", "≥": r"$\geq$",
    "‘": "`", "’": "'", "“": "``", "”": "''", "\u00a0": "~", "«": r"\textless{}\textless{}",
    "»": r"\textgreater{}\textgreater{}", "−": "$-$", "∞": r"$\infty$", "≈": r"$\approx$", "≠": r"$\neq$",
    "√": r"$\surd$", "′": "$'$", "″": "$''$", "∑": r"$\sum$", "∏": r"$\prod$", "∫": r"$\int$",
    "µ": r"$\mu$", "Ð": "D", "ð": "d", "Þ": "Th", "þ": "th", "đ": "d", "Đ": "D", "ħ": "h", "Ħ": "H",
    "ı": r"\i{}", "ẞ": "SS", "ŧ": "t", "Ŧ": "T", "ſ": "s",
}
_GREEK = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho varsigma sigma "
          "tau upsilon phi chi psi omega").split()
_SPECIALS.update({chr(0x3B1 + i): rf"$\{g}$" for i, g in enumerate(_GREEK) if g != "omicron"})
_SPECIALS["ο"] = "o"
_UPPER = "A B Gamma Delta E Z H Theta I K Lambda M N Xi O Pi P - Sigma T Upsilon Phi X Psi Omega".split()
_SPECIALS.update({chr(0x391 + i): (rf"$\{g}$" if len(g) > 1 else g) for i, g in enumerate(_UPPER) if g != "-"})

#: Characters beyond ASCII that pdflatex sets in a default document (utf8 input, OT1 or T1 fonts), found
#: by compiling each one: Latin-1 and Latin Extended-A letters, the common punctuation and currency signs.
_NATIVE = frozenset(chr(c) for a, b in (
    (0xA1, 0xAA), (0xAC, 0xAC), (0xAE, 0xBA), (0xBC, 0xCF), (0xD1, 0xDD), (0xDF, 0xEF), (0xF1, 0xFD),
    (0xFF, 0x103), (0x106, 0x10F), (0x112, 0x117), (0x11A, 0x125), (0x128, 0x12D), (0x130, 0x137),
    (0x139, 0x13E), (0x141, 0x148), (0x14C, 0x165), (0x168, 0x171), (0x174, 0x17E), (0x192, 0x192),
    (0x1C4, 0x1D4), (0x1E2, 0x1E3), (0x1E6, 0x1E9), (0x1F0, 0x1F0), (0x1F4, 0x1F5), (0x218, 0x21B),
    (0x232, 0x233), (0x237, 0x237), (0x2010, 0x2016), (0x2018, 0x2019), (0x201C, 0x201D), (0x2020, 0x2022),
    (0x2026, 0x2026), (0x2030, 0x2031), (0x203B, 0x203B), (0x203D, 0x203D), (0x2044, 0x2044),
    (0x20AC, 0x20AC), (0x2103, 0x2103), (0x2116, 0x2117), (0x2122, 0x2122), (0x2126, 0x2126),
    (0x2190, 0x2193)) for c in range(a, b + 1))
#: Combining accents pdflatex's default fonts can put on an ASCII letter.
_ACCENTS = {"\u0300": "`", "\u0301": "'", "\u0302": "^", "\u0303": "~", "\u0304": "=", "\u0306": "u",
            "\u0307": ".", "\u0308": '"', "\u030a": "r", "\u030b": "H", "\u030c": "v", "\u0327": "c",
            "\u0323": "d", "\u0331": "b"}


def _accented(c: str) -> str | None:
    """``c`` as an ASCII letter under LaTeX accents (``\\v{z}``), or None."""
    plain = unicodedata.normalize("NFKD", c)
    if plain.isascii() and plain.isprintable():  # a ligature (ﬁ), a circled or wide digit (①, ３)
        return "".join(_SPECIALS.get(ch, ch) for ch in plain)
    base, marks = (plain or " ")[0], list((plain or " ")[1:])
    if not base.isascii() or not base.isalnum() or len(marks) > 3:
        return None
    marks = [m for m in marks if m in _ACCENTS]  # an accent the fonts lack (an ogonek in OT1): the bare letter
    out = base if base not in "ij" or not marks else "\\" + base  # a dotless i or j under an accent
    for m in marks:
        out = f"\\{_ACCENTS[m]}{{{out}}}"
    return out


def escape(name: str) -> str:
    r"""``name`` as LaTeX text that pdflatex always compiles.

    The specials ``\ { } _ % & # $ ~ ^ < > |`` are escaped; Greek letters, dashes and a few signs are
    written as LaTeX; accented letters pdflatex sets are kept, others are built from LaTeX accents
    (``{z}``) or plain letters; every line or paragraph separator (``
``, U+2028, U+2029, any other
    space) becomes a space; control and format characters (zero-width, bidirectional) are dropped;
    anything else (another script, an emoji) is written as its code point, ``[U+4E2D]`` (compile with
    lualatex and keep the names in a separate file to show those names).
    """
    out = []
    for c in unicodedata.normalize("NFC", str(name)):
        if c in _SPECIALS:
            out.append(_SPECIALS[c])
        elif " " <= c <= "~" or c in _NATIVE:
            out.append(c)
        elif c.isspace() or unicodedata.category(c).startswith("Z"):
            if not out or out[-1] != " ":  # a run of separators (\r\n) is one space
                out.append(" ")
        elif unicodedata.category(c) in ("Cc", "Cf", "Cs", "Mn", "Me", "Mc"):
            continue
        else:
            out.append(_accented(c) or f"{{[}}U+{ord(c):04X}{{]}}")
    return "".join(out)


def best_keys(result: EvaluationResult, metric: str) -> set[str]:
    """The entries in bold for a metric: the best mean AUC as printed, ties included."""
    from subsetsel_core.ranks.metrics import METRICS

    shown = {e.key: text(result.stats[e.key].auc[metric].mean, "auc") for e in result.entries}
    means = {e.key: float(shown[e.key]) for e in result.entries if shown[e.key] != "—"}
    if not means:
        return set()
    best = (max if METRICS[metric].higher_is_better else min)(means.values())
    return {k for k, v in means.items() if v == best}


def auc_latex(result: EvaluationResult, *, provenance: Mapping[str, Any] | None = None,
              label: str = "tab:subsetsel-auc", caption: str | None = None) -> str:
    r"""The AUC table of an evaluation as a LaTeX ``table`` (booktabs), with its provenance as comments.

    Parameters
    ----------
    result : EvaluationResult
    provenance : mapping, optional
        :func:`~subsetsel_core.outputs.provenance.provenance`; written as ``%`` lines first.
    label : str
        The ``\label`` of the table.
    caption : str, optional
        LaTeX text of the caption (default: what the numbers are, with the settings).

    Returns
    -------
    str
        A file to ``\input`` (needs ``\usepackage{booktabs}``).
    """
    from subsetsel_core.outputs.provenance import latex_comments
    from subsetsel_core.ranks.metrics import METRICS

    metrics = list(result.config.metrics)
    reps = {e.representation for e in result.entries if e.representation}
    with_rep = len(reps) > 1
    bold = {m: best_keys(result, m) for m in metrics}
    ks = result.ks
    head = ["Strategy", *(["Representation"] if with_rep else []),
            *(escape(METRICS[m].label) + (r" $\uparrow$" if METRICS[m].higher_is_better else r" $\downarrow$")
              for m in metrics)]
    rows = []
    for e in result.entries:
        cells = [escape(e.strategy)] + ([escape(e.representation or "---")] if with_rep else [])
        for m in metrics:
            a = result.stats[e.key].auc[m]
            mean = text(a.mean, "auc")
            mean = rf"\textbf{{{mean}}}" if e.key in bold[m] else mean
            cells.append(f"{mean} [{text(a.lo, 'auc')}, {text(a.hi, 'auc')}]")
        rows.append(" & ".join(cells) + r" \\")
    name = escape(str(result.info.get("benchmark", "")))
    cap = caption or (
        rf"Area under the rank-agreement curve over $k = {int(ks[0])}, \dots, {int(ks[-1])}$ on {name}: mean over "
        rf"$T = {result.trials_done}$ trials and 95\,\% interval (2.5--97.5\,\% of trials); pools of "
        rf"$\lfloor \alpha n \rfloor$ datasets, $\alpha = {result.config.alpha:g}$, $\beta = {result.config.beta:g}$, "
        rf"seed {result.config.seed}. Bold: the best mean per column (ties at the printed precision all bold).")
    spec = "l" + ("l" if with_rep else "") + "r" * len(metrics)
    lines = [
        latex_comments({"what": "AUC table of subsetsel evaluate", **dict(provenance or {})}).rstrip("\n"),
        r"% needs \usepackage{booktabs}",
        r"\begin{table}[htbp]",
        r"\centering",
        rf"\caption{{{cap}}}",
        rf"\label{{{re.sub(r'[^A-Za-z0-9:_.-]', '-', label)}}}",
        rf"\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        " & ".join(head) + r" \\",
        r"\midrule",
        *rows,
        r"\bottomrule",
        r"\end{tabular}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"
