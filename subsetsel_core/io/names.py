"""Matching dataset names between files: normalisation and close-match suggestions."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

from subsetsel_core.safe_text import printable, shorten

_SEP = re.compile(r"[\s_\-.]+")


def normalise_name(name: str) -> str:
    """Loose form of a name: case-folded, without spaces, underscores, hyphens or dots.

    Examples
    --------
    >>> normalise_name(" Star_Light-Curves ")
    'starlightcurves'
    """
    return _SEP.sub("", str(name)).casefold()


def short(name: str, limit: int = 60) -> str:
    """A name fit for a message: control characters escaped, cut to ``limit`` characters.

    :func:`~subsetsel_core.safe_text.printable` escapes, then
    :func:`~subsetsel_core.safe_text.shorten` keeps the start and the end around ``…``.
    """
    return shorten(printable(str(name)), limit)


def suggest(name: str, candidates: Sequence[str], n: int = 3) -> list[str]:
    """Close matches of ``name`` among ``candidates``, best first.

    A candidate whose loose form (see :func:`normalise_name`) equals the name's comes
    first; then matches by edit similarity (``difflib``) on the loose forms, then on
    prefixes (``MixedShapes`` → ``MixedShapesRegularTrain``).
    """
    loose = normalise_name(name)
    by_loose: dict[str, list[str]] = {}
    for c in candidates:
        by_loose.setdefault(normalise_name(c), []).append(c)
    out: list[str] = list(by_loose.get(loose, []))
    for m in difflib.get_close_matches(loose, list(by_loose), n=n, cutoff=0.75):
        out.extend(c for c in by_loose[m] if c not in out)
    if len(loose) >= 4:
        for lc, cs in by_loose.items():
            if lc != loose and (lc.startswith(loose) or loose.startswith(lc)):
                out.extend(c for c in cs if c not in out)
    return out[:n]


def did_you_mean(name: str, candidates: Sequence[str], n: int = 3) -> str:
    """``" (did you mean 'a', 'b'?)"`` with the :func:`suggest` matches, or ``""`` without any.

    Examples
    --------
    >>> did_you_mean("tabluar", ["tabular", "text"], n=1)
    " (did you mean 'tabular'?)"
    """
    s = suggest(name, candidates, n)
    return f" (did you mean {', '.join(repr(short(x)) for x in s)}?)" if s else ""


def describe_mismatch(
    missing: Iterable[str], candidates: Sequence[str], *, limit: int = 10
) -> str:
    """``"A (did you mean 'a'?), B, …"`` for up to ``limit`` names."""
    missing = list(missing)
    parts = []
    for name in missing[:limit]:
        parts.append(f"'{short(name)}'" + did_you_mean(name, candidates))
    if len(missing) > limit:
        parts.append(f"… and {len(missing) - limit} more")
    return "; ".join(parts)
