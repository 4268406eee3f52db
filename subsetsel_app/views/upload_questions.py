"""What the reading of an uploaded score table is not sure of, asked until it is answered.

The core's guess lists what it could not decide (``TableGuess.unsure``: the layout, a column
of names, the score column, a column that may be an average, release dates, the direction).
The page names the layout and the columns itself, so the guess made with the page's choices
is sure of them: what the first guess was unsure of stays open while the page keeps the
guessed choice (:func:`open_items`), and what depends on every choice (the columns read as
tasks, the release dates, the direction) is read from the guess made with the page's
choices, so that the questions follow every edit. An open question is answered by changing
the choice, or — for everything but the direction, which the *Scores* choice answers — by
ticking *Read it as shown*; *Use this benchmark* is disabled until every one is answered
(:func:`ask` returns the reasons).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import streamlit as st

from subsetsel_app import widgets
from subsetsel_core.io.guess.table import TableGuess

#: The question each kind of doubt asks (by the topic of a ``TableGuess.unsure`` entry).
QUESTIONS: dict[str, str] = {
    "layout": "Are the rows models or datasets?",
    "dataset_column": "Which column holds the dataset names?",
    "model_column": "Which column holds the model names?",
    "score_column": "Which column holds the scores?",
    "set_aside": "Is it a task, or a column to set aside?",
    "release_column": "Which column holds the release dates?",
    "direction": "Is a higher score better?",
    "rows": "Set the row aside in “Rows set aside” above (the command line: --drop-rows NAME), or tick below to read it as one of the table's rows.",
}
#: How a reason for a disabled *Use* names each part.
PARTS: dict[str, str] = {
    "layout": "the layout", "dataset_column": "the dataset column", "model_column": "the model column",
    "score_column": "the score column", "set_aside": "the columns read as tasks", "release_column": "the release dates",
    "direction": "the direction", "rows": "a summary row", "cells": "cells that are not numbers",
}
#: The topics the page names by its own choices (the guess made with them is sure of them).
CHOSEN = ("layout", "dataset_column", "model_column", "score_column")
#: Topics the page does not ask: reading the table stops on them with the same reason (rows that repeat
#: a dataset and model: the page's error names the column that tells them apart), so no tick can
#: confirm them.
STOPS = ("fold_column", "cells")
#: The label of the tick that confirms the reading.
CONFIRM = "Read it as shown"


def topic(item: str) -> str:
    """The topic of a ``TableGuess.unsure`` entry (``"layout: not sure …"`` → ``"layout"``)."""
    return item.split(":", 1)[0].strip()


def _row_names(g: TableGuess) -> str | None:
    """The column of row names of a wide table (None for a long one)."""
    return g.model_column if g.layout == "models-as-rows" else g.dataset_column if g.layout == "wide" else None


def _kept(auto: TableGuess, t: str, choices: Mapping[str, object]) -> bool:
    """Whether the page keeps the first guess's choice of ``t`` (a topic of :data:`CHOSEN`)."""
    if t == "layout":
        return True
    if auto.layout == "long":
        return getattr(auto, t) == choices.get(t)
    if t == "score_column":
        return False  # no score column in a wide table
    names = choices.get("model_column" if auto.layout == "models-as-rows" else "dataset_column")
    return _row_names(auto) == names  # a doubt about the row names, whichever role it named first


def open_items(auto: TableGuess | None, reading: TableGuess, choices: Mapping[str, object],
               direction_answered: bool) -> list[str]:
    """The doubts that still apply to the reading on the page.

    Parameters
    ----------
    auto : TableGuess or None
        The first guess (no choices given): its doubts about the layout and the columns,
        open while the page keeps that layout and that column.
    reading : TableGuess
        The guess with the page's choices (the direction not given): its doubts about
        everything the choices do not name.
    choices : mapping
        The page's ``layout`` and ``dataset_column`` / ``model_column`` / ``score_column``.
    direction_answered : bool
        Whether the user chose the direction.
    """
    items: dict[str, None] = {}
    if auto is not None and auto.layout == choices.get("layout"):
        for u in auto.unsure:
            if topic(u) in CHOSEN and _kept(auto, topic(u), choices):
                items[u] = None
    for u in reading.unsure:
        if topic(u) not in (*CHOSEN, *STOPS) and not (topic(u) == "direction" and direction_answered):
            items[u] = None
    return list(items)


def _confirm_key(digest: str, items: Sequence[str]) -> str:
    """The tick's key: new doubts (after an edit) are never confirmed by an earlier tick."""
    return "up_ok_" + hashlib.sha256("\n".join([digest, *items]).encode()).hexdigest()[:16]


def ask(items: Sequence[str], digest: str, layout: str) -> tuple[str, ...]:
    """Say the open doubts and ask them; the reasons *Use* stays disabled (empty: none).

    The direction is asked by the *Scores* choice (drawn, and its reason given, by the caller);
    the other doubts by a tick that confirms the reading as shown.
    """
    if not items:
        return ()
    asked = list(dict.fromkeys(QUESTIONS[t] for t in map(topic, items) if t in QUESTIONS))
    listed = "\n".join(f"- **{PARTS.get(topic(u), topic(u)).removeprefix('the ').capitalize()}**: "
                       f"{widgets.md_escape(u.split(':', 1)[1].strip() if ':' in u else u)}" for u in items)
    st.warning("I am not sure about this reading:\n\n" + listed + "\n\n" + " ".join(asked),
               icon=widgets.ICONS["warning"])
    reasons: list[str] = []
    rest = [u for u in items if topic(u) != "direction"]
    if rest:
        names = {"dataset_column", "model_column"} if layout != "long" else set()  # one column of names
        parts = list(dict.fromkeys("the column of row names" if topic(u) in names else PARTS.get(topic(u), topic(u))
                                   for u in rest))
        ok = st.checkbox(CONFIRM, key=_confirm_key(digest, rest),
                         help="Tick it when the reading above is right as it is; or change the choices above "
                              "until it is.")
        if not ok:
            reasons.append(f"not sure about {', '.join(parts)} (said above): change the choices above, or tick "
                           f"'{CONFIRM}'")
    return tuple(reasons)
