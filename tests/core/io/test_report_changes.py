"""What changed the benchmark against its files, as every face shows it: :meth:`ValidationReport.changes`
(every warning, and the notes of :data:`CHANGED_TOPICS`), the one list the command line prints and the
dashboard shows as warnings."""

from __future__ import annotations

import pytest

from subsetsel_core.io.validation import CHANGED_TOPICS, Finding, ValidationReport, changes

#: (finding, whether it is a change of the benchmark).
CASES = [
    (Finding("warning", "dropped", "dropped 2 models with gaps"), True),
    (Finding("warning", "name-mismatch", "3 datasets have no row"), True),
    (Finding("info", "direction", "lower is better on 1 dataset(s); negated"), True),
    (Finding("info", "dropped", "dropped 1 dataset without a score"), True),
    (Finding("info", "whitespace", "removed spaces around 4 names"), True),
    (Finding("info", "encoding", "not UTF-8; read as cp1252"), True),
    (Finding("info", "numbers", "read '1,5' as 1.5"), True),
    (Finding("info", "ties", "40% of the columns have ties"), False),
    (Finding("info", "reading", "I read this as: …"), False),
    (Finding("error", "missing", "2 scores are missing"), False),
]


@pytest.mark.parametrize(("finding", "changed"), CASES, ids=[f"{c[0].level}-{c[0].topic}" for c in CASES])
def test_a_finding_is_a_change_by_its_level_and_topic(finding: Finding, changed: bool) -> None:
    assert finding.is_change is changed
    report = ValidationReport((finding,))
    assert report.changes() == ((finding.message,) if changed else ())


def test_changes_keep_the_report_order() -> None:
    report = ValidationReport(tuple(f for f, _ in CASES))
    expected = [f.message for f, changed in CASES if changed]
    assert list(report.changes()) == expected == changes(report)
    assert {f.topic for f, changed in CASES if changed and f.level == "info"} == set(CHANGED_TOPICS)
