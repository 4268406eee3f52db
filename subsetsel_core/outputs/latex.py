r"""The AUC table as LaTeX, ready to ``\input`` into a paper (booktabs style).

One row per entry (strategy, and its representation when there are several), one column
per metric: the mean AUC over trials and its 95 % interval (2.5–97.5 % of trials), rounded
by :mod:`subsetsel_core.text.rounding`. In each metric's column the best mean (highest, or
lowest for a lower-is-better metric) is bold; **ties**: every entry whose mean, as printed,
equals the best printed mean is bold too. The file starts with the provenance as ``%``
lines; it needs ``\usepackage{booktabs}``.

Names are escaped (:func:`escape`): ``\ { } _ % & # $ ~ ^`` and control characters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from subsetsel_core.text.rounding import text

if TYPE_CHECKING:
    from subsetsel_core.evaluation.result import EvaluationResult

__all__ = ["auc_latex", "best_keys", "escape"]

_SPECIALS = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#",
    "$": r"\$", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "–": "--", "—": "---", "…": r"\dots{}", "×": r"$\times$", "±": r"$\pm$", "≤": r"$\leq$", "≥": r"$\geq$",
    "‘": "`", "’": "'", "“": "``", "”": "''", "\u00a0": "~",
}
_GREEK = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho varsigma sigma "
          "tau upsilon phi chi psi omega").split()
_SPECIALS.update({chr(0x3B1 + i): rf"$\{g}$" for i, g in enumerate(_GREEK) if g != "omicron"})
_SPECIALS["ο"] = "o"


def escape(name: str) -> str:
    """``name`` as LaTeX text: the specials escaped, Greek letters and dashes as LaTeX, control characters
    dropped, line breaks as spaces. Other characters stay (pdflatex reads accented Latin letters; a
    name in another script needs lualatex or xelatex)."""
    out = []
    for c in str(name):
        if c in _SPECIALS:
            out.append(_SPECIALS[c])
        elif c in "\r\n\t":
            out.append(" ")
        elif ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F:
            continue
        else:
            out.append(c)
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
