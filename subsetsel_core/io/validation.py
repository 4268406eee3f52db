"""Validation reports: what a loader found, in words a user can act on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import pandas as pd

Level = Literal["error", "warning", "info"]

#: Topics of notes that say the benchmark read differs from the file as written (a dataset's direction
#: flipped, cells or names rewritten, a model or dataset dropped, the text re-encoded): every face shows
#: them as warnings, like the warnings themselves (:meth:`ValidationReport.changes`). Result folders
#: report what they changed as warnings of their own.
CHANGED_TOPICS = frozenset({"direction", "dropped", "numbers", "whitespace", "encoding"})


@dataclass(frozen=True)
class Finding:
    """One finding of a validation.

    Attributes
    ----------
    level : {"error", "warning", "info"}
        ``error`` stops the run, ``warning`` changes what is computed (something was
        dropped or imputed), ``info`` is a fact worth knowing.
    topic : str
        Short key such as ``"missing-cells"`` or ``"name-mismatch"``.
    message : str
        A sentence naming the file, column or rows, and the fix.
    """

    level: Level
    topic: str
    message: str

    @property
    def is_change(self) -> bool:
        """Whether it says the benchmark differs from the file: a warning, or a note of :data:`CHANGED_TOPICS`."""
        return self.level == "warning" or (self.level == "info" and self.topic in CHANGED_TOPICS)


@dataclass(frozen=True)
class ValidationReport:
    """Findings of one validation, plus the sizes that were checked."""

    findings: tuple[Finding, ...] = ()
    facts: tuple[tuple[str, str], ...] = field(default=())

    def __add__(self, other: ValidationReport) -> ValidationReport:
        return ValidationReport(self.findings + other.findings, self.facts + other.facts)

    @property
    def errors(self) -> tuple[Finding, ...]:
        """Findings of level ``error``."""
        return tuple(f for f in self.findings if f.level == "error")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        """Findings of level ``warning``."""
        return tuple(f for f in self.findings if f.level == "warning")

    def changes(self) -> tuple[str, ...]:
        """The messages of what changed the benchmark (every warning, and every note that says the
        benchmark differs from the file), in order: what the command line prints on stderr and the
        dashboard shows as warnings."""
        return tuple(f.message for f in self.findings if f.is_change)

    @property
    def ok(self) -> bool:
        """True when there is no error."""
        return not self.errors

    def to_frame(self) -> pd.DataFrame:
        """Findings as a table with columns ``level, topic, message``."""
        return pd.DataFrame(
            [(f.level, f.topic, f.message) for f in self.findings],
            columns=["level", "topic", "message"],
        )

    def text(self) -> str:
        """Plain-text rendering, one finding per line."""
        lines = [f"{k}: {v}" for k, v in self.facts]
        lines += [f"[{f.level}] {f.message}" for f in self.findings]
        return "\n".join(lines)


def changes(report: ValidationReport) -> list[str]:
    """:meth:`ValidationReport.changes` as a list (the command line's printer reads it)."""
    return list(report.changes())


class ReportBuilder:
    """Mutable collector used by loaders; frozen into a :class:`ValidationReport`."""

    def __init__(self) -> None:
        self._findings: list[Finding] = []
        self._facts: list[tuple[str, str]] = []

    def add(self, level: Level, topic: str, message: str) -> None:
        """Record a finding."""
        self._findings.append(Finding(level, topic, message))

    def fact(self, key: str, value: object) -> None:
        """Record a size or other fact."""
        self._facts.append((key, str(value)))

    def build(self) -> ValidationReport:
        """Freeze the collected findings."""
        return ValidationReport(tuple(self._findings), tuple(self._facts))
