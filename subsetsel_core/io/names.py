"""Matching dataset names between files: normalisation and close-match suggestions."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from subsetsel_core.errors import InputError
from subsetsel_core.text.safe_text import printable, shorten

_SEP = re.compile(r"[\s_\-.]+")


def normalise_name(name: str) -> str:
    """Loose form of a name: NFKC-normalised, case-folded, without spaces, underscores, hyphens or dots.

    Examples
    --------
    >>> normalise_name(" Star_Light-Curves ")
    'starlightcurves'
    >>> normalise_name("Cafe\u0301") == normalise_name("Caf\u00e9")
    True
    """
    return _SEP.sub("", unicodedata.normalize("NFKC", str(name))).casefold()


def only_normalisation(a: str, b: str) -> bool:
    """Whether two different names are the same text in different Unicode normalisations (NFC vs NFD).

    Examples
    --------
    >>> only_normalisation("Cafe\u0301", "Caf\u00e9")
    True
    """
    return a != b and unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b)


def check_normalisation(names: Iterable[str], label: str, what: str, *, field: str | None = None) -> None:
    """Refuse names of one table that differ only in Unicode normalisation.

    Such names print the same (``Café`` typed as one character or as ``e`` plus an
    accent), so keeping them apart would show one dataset twice.

    Parameters
    ----------
    names : iterable of str
        Distinct names (already stripped of surrounding spaces).
    label : str
        File name for the message.
    what : str
        What the names are (``"dataset"``, ``"'model'"``).
    field : str, optional
        The setting the error belongs to.

    Raises
    ------
    InputError
        Naming both spellings, with the fix.
    """
    seen: dict[str, str] = {}
    for name in names:
        if name.isascii():
            continue
        key = unicodedata.normalize("NFC", name)
        other = seen.setdefault(key, name)
        if other != name:
            raise InputError(
                f"{label}: {what} names '{short(other)}' ({_form(other)}) and '{short(name)}' "
                f"({_form(name)}) are the same text in different Unicode normalisations; they would "
                "count as two names. Did you mean one name? Save both the same way (NFC, as most "
                "editors type them).",
                field=field,
            )


def _form(name: str) -> str:
    """``"NFC"``, ``"NFD"`` or ``"mixed form"``: how a name's accents are encoded."""
    if unicodedata.is_normalized("NFC", name):
        return "NFC"
    return "NFD" if unicodedata.is_normalized("NFD", name) else "mixed form"


def short(name: str, limit: int = 60) -> str:
    """A name fit for a message: control characters escaped, cut to ``limit`` characters.

    :func:`~subsetsel_core.text.safe_text.printable` escapes, then
    :func:`~subsetsel_core.text.safe_text.shorten` keeps the start and the end around ``…``.
    """
    return shorten(printable(str(name)), limit)


def suggest(name: str, candidates: Sequence[str], n: int = 3) -> list[str]:
    """Close matches of ``name`` among ``candidates``, best first.

    A candidate whose loose form (see :func:`normalise_name`) equals the name's comes
    first; then matches by edit similarity (``difflib``) on the loose forms, then on
    prefixes (``MixedShapes`` → ``MixedShapesRegularTrain``).
    """
    import difflib  # only when a name is not found

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
    if not s:
        return ""
    shown = ", ".join(
        repr(short(x)) + (" — the same text in another Unicode normalisation (NFC/NFD)" if only_normalisation(name, x) else "")
        for x in s
    )
    return f" (did you mean {shown}?)"


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


def csv_quoted(name: str) -> str:
    """A name as one entry of a comma-separated list of names holds it: quoted as in CSV when it has a comma or
    a quote (``"Avg, all"``), as the command line's name lists read it."""
    return '"' + name.replace('"', '""') + '"' if "," in name or '"' in name else name
