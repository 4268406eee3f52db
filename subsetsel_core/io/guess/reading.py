"""How a score source was read, as rows a face can print: :func:`describe_reading`.

One :class:`ReadingRow` per fact: the reading as a whole, each task (its metric, the
subsets or splits used, its direction and where that came from), each column, row or file set
aside (with the reason) and each thing not decided (``unsure``). ``subsetsel inspect``
prints them as text or JSON; a reader of result folders makes the same rows from its own
reading (the ``subsets`` of a task, the files set aside), so every source is shown one way.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from subsetsel_core.io.guess.result import DROPPED_ROW, TableGuess

Part = Literal["reading", "task", "set aside", "unsure", "assumption"]
#: The parts of a reading, in the order they are printed.
PARTS: tuple[str, ...] = ("reading", "assumption", "unsure", "task", "set aside")


@dataclass(frozen=True)
class ReadingRow:
    """One fact of a reading.

    Attributes
    ----------
    part : {"reading", "task", "set aside", "unsure", "assumption"}
    name : str
        The task, the column or file set aside, the undecided topic, or ``""`` for the reading.
    metric : str
        The metric a task is scored by (``""`` when nothing names it).
    subsets : str
        The splits or subsets a task's score is taken over (``""``: the table's one score).
    direction : {"higher", "lower", "unsure", ""}
    source : str
        Where the direction came from (``given``, ``evidence``, ``assumed``, ``unsure``, or the
        task's own metric name: ``metric name``).
    detail : str
        The reason (set aside), the sentence (reading, unsure, assumption).
    """

    part: Part
    name: str = ""
    metric: str = ""
    subsets: str = ""
    direction: str = ""
    source: str = ""
    detail: str = ""

    def to_json_dict(self) -> dict[str, Any]:
        """The row as JSON-ready values."""
        return asdict(self)


def task_direction(guess: TableGuess, dataset: str) -> tuple[str, str]:
    """A dataset's direction as read and where it came from: ``("lower", "metric name")`` …"""
    own = dataset in guess.lower_is_better_datasets or dataset in guess.higher_is_better_datasets
    if own:
        way = "lower" if dataset in guess.lower_is_better_datasets else "higher"
        return way, "given" if guess.direction_from == "given" else "metric name"
    if guess.direction_from == "unsure":
        return "unsure", "unsure"
    return ("higher" if guess.higher_is_better else "lower"), guess.direction_from


def describe_reading(guess: TableGuess) -> list[ReadingRow]:
    """The rows of a score table's reading (see the module's description)."""
    rows = [ReadingRow("reading", guess.label, detail=guess.sentence())]
    if guess.direction_from == "assumed":
        rows.append(ReadingRow("assumption", "direction", direction=guess.direction, source="assumed",
                               detail=guess.direction_because))
    for u in guess.unsure:
        topic, _, text = u.partition(":")
        rows.append(ReadingRow("unsure", topic.strip(), detail=text.strip()))
    metrics = {m.dataset: m.metric for m in guess.dataset_metrics}
    for d in guess.datasets:
        way, source = task_direction(guess, d)
        rows.append(ReadingRow("task", d, metric=metrics.get(d, guess.score_column or ""), direction=way,
                               source=source))
    rows += [ReadingRow("set aside", s.column, detail=s.reason) for s in guess.set_aside]
    rows += [ReadingRow("set aside", r, detail=f"row {DROPPED_ROW}") for r in guess.dropped_rows]
    return rows
