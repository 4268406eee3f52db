"""The Benchmark page's reading of an uploaded score table, shown before anything runs.

The core's guess (:func:`subsetsel_core.io.guess.table.guess_table`) fills the column mapping
once per new file; every rerun reads the table with the choices on the page and says how
("I read this as: 107 models (rows) × 27 datasets (columns); set aside: …"). Everything said
follows the choices as they are now: the direction's evidence is read again under the current
mapping (a column that became the row names is no evidence any more), the directions per
dataset as ticked, the doubts that still apply (:mod:`subsetsel_app.views.upload_questions`,
each keeping *Use this benchmark* disabled until a choice answers it or the reading is
confirmed). One click flips the orientation of a wide table; a direction the evidence does not
settle is asked with nothing preselected, an assumed one is said as an assumption; the
direction can be set per dataset in a small table. Changing the column of row names reads the
table again around it (the old one is set aside with the guess's reason); a role the layout
does not read names no column.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from subsetsel_app import cache, state, upload, widgets
from subsetsel_app.active_data import NONE
from subsetsel_app.state import K
from subsetsel_app.views import upload_questions
from subsetsel_core.errors import InputError
from subsetsel_core.io.guess.result import names_of
from subsetsel_core.io.guess.table import TableGuess, release_dates
from subsetsel_core.io.score_format import (
    LAYOUT_TITLES,
    LAYOUTS,
    MISSING_POLICIES,
    MISSING_TITLES,
    ScoreFormat,
)

HIGHER, LOWER = "higher is better", "lower is better"
#: The other orientation of a wide table.
FLIPPED = {"wide": "models-as-rows", "models-as-rows": "wide"}
#: Why *Use* is disabled while the choices do not fit the table (the error above says how).
UNREAD = "the table cannot be read with the choices above: the error above says what to change"


@dataclass(frozen=True)
class Reading:
    """How the page reads the uploaded scores.

    Attributes
    ----------
    fmt : ScoreFormat or None
        The format to load the table with (None: the choices do not fit the table; the
        page shows why).
    guess : TableGuess or None
        The reading with the page's choices (and the directions per dataset as edited).
    dates : tuple of (str, str)
        Model and release date (ISO) from the release column.
    blocked : tuple of str
        Why the upload cannot be used yet (a question not answered, a choice the table does
        not fit), each with what answers it; empty when it can.
    assumption : str or None
        What the reading assumes (the direction, when nothing in the file says it), to show
        on the button that uses it.
    direction_open : bool
        Whether the direction is not answered yet (:func:`~subsetsel_app.upload.shown_report`).
    """

    fmt: ScoreFormat | None
    guess: TableGuess | None
    dates: tuple[tuple[str, str], ...] = ()
    blocked: tuple[str, ...] = ()
    assumption: str | None = None
    direction_open: bool = False


def _auto(head: pd.DataFrame, scores: upload.UploadedTable) -> TableGuess | None:
    try:
        return cache.upload_guess(scores.name, scores.digest, (), head)
    except InputError:
        return None


def _apply(g: TableGuess) -> None:
    """Put a guess into the mapping widgets' state."""
    ss = st.session_state
    ss[K.UP_LAYOUT] = g.layout
    for key, col in ((K.UP_DATASET, g.dataset_column), (K.UP_MODEL, g.model_column), (K.UP_SCORE, g.score_column)):
        if col is not None:
            ss[key] = col
    ss[K.UP_FOLD] = g.fold_column or NONE
    ss[K.UP_DROP] = [s.column for s in g.set_aside if s.column != g.release_column] if g.layout != "long" else []
    ss[K.UP_RELEASE] = g.release_column or NONE
    ss[K.UP_HIGHER] = None if g.direction_from == "unsure" else HIGHER if g.higher_is_better else LOWER


def prime(head: pd.DataFrame, scores: upload.UploadedTable) -> list[str]:
    """Guess the reading once per new score file; keep the stored choices valid.

    Returns
    -------
    list of str
        The score table's columns.
    """
    cols = [str(c) for c in head.columns]
    ss = st.session_state
    if ss[K.UP_GUESSED] != scores.digest:
        ss[K.UP_DATASET], ss[K.UP_MODEL], ss[K.UP_SCORE] = cols[0], cols[min(1, len(cols) - 1)], cols[-1]
        g = _auto(head, scores)
        if g is not None:
            _apply(g)
        else:  # never the previous file's answer: decided once the table is read (form)
            ss[K.UP_HIGHER] = None
        ss[K.UP_NAME] = scores.stem
        ss[K.UP_MISSING] = state.default(K.UP_MISSING)  # chosen per file: never carried over to the next
        ss[K.UP_GUESSED] = scores.digest
    for key in (K.UP_DATASET, K.UP_MODEL, K.UP_SCORE):
        state.ensure_choice(key, cols)
    state.ensure_choice(K.UP_FOLD, [NONE, *cols], fallback=NONE)
    state.ensure_choice(K.UP_RELEASE, [NONE, *cols], fallback=NONE)
    state.ensure_subset(K.UP_DROP, cols)
    return cols


def _reguess(head: pd.DataFrame, scores: upload.UploadedTable, layout: str, name: str | None) -> None:
    """The guess for ``layout``; a wide layout that does not fit as guessed keeps ``name`` as
    the column of row names; a long one that does not fit gets three distinct columns."""
    plain: tuple[tuple[str, object], ...] = (("layout", layout),)
    tries = [plain] if layout == "long" else [plain, (*plain, ("dataset_column" if layout == "wide" else
                                                             "model_column", name))]
    for opts in tries:
        try:
            _apply(cache.upload_guess(scores.name, scores.digest, opts, head))
            return
        except InputError:
            continue
    ss = st.session_state
    ss[K.UP_LAYOUT] = layout
    cols = [str(c) for c in head.columns]
    if layout == "long" and len(cols) >= 3:  # the same column is never in two roles
        ss[K.UP_MODEL] = next(c for c in cols if c != ss[K.UP_DATASET])
        ss[K.UP_SCORE] = next(c for c in reversed(cols) if c not in (ss[K.UP_DATASET], ss[K.UP_MODEL]))


def relayout(head: pd.DataFrame, scores: upload.UploadedTable) -> None:
    """Callback of the layout choice: the columns and the set-aside columns the guess gives it."""
    ss = st.session_state
    layout = ss[K.UP_LAYOUT]
    _reguess(head, scores, layout, ss[K.UP_MODEL] if layout == "wide" else ss[K.UP_DATASET])


def rename(head: pd.DataFrame, scores: upload.UploadedTable, old: str | None = None) -> None:
    """Callback of the model (or dataset) column of a wide table: read the table again with the
    new column of row names, so that the old one (``old``: the choice when the widget was drawn)
    is set aside with the guess's reason (names are text; a column of numbers the guess reads as
    a task stays one); when the guess cannot read the table around the new column, the old one
    is set aside all the same (names are never read as scores)."""
    ss = st.session_state
    layout = ss[K.UP_LAYOUT]
    if layout == "long":
        return
    role, key = ("model_column", K.UP_MODEL) if layout == "models-as-rows" else ("dataset_column", K.UP_DATASET)
    higher = ss[K.UP_HIGHER]
    try:
        _apply(cache.upload_guess(scores.name, scores.digest, (("layout", layout), (role, ss[key])), head))
    except InputError:  # the page reads the choices as they are and says what does not fit
        if old and old != ss[key] and old not in ss[K.UP_DROP] and old != ss[K.UP_FOLD]:
            ss[K.UP_DROP] = [*ss[K.UP_DROP], old]
    ss[K.UP_HIGHER] = higher  # an answered direction stays answered


def flip(head: pd.DataFrame, scores: upload.UploadedTable) -> None:
    """Callback: read a wide table the other way round (rows are models ↔ rows are datasets)."""
    ss = st.session_state
    layout = ss[K.UP_LAYOUT]
    name = ss[K.UP_DATASET] if layout == "wide" else ss[K.UP_MODEL]
    role = "model_column" if layout == "wide" else "dataset_column"
    try:
        _apply(cache.upload_guess(scores.name, scores.digest, (("layout", FLIPPED[layout]), (role, name)), head))
    except InputError:
        ss[K.UP_LAYOUT] = FLIPPED[layout]


def _unused(where: DeltaGenerator, label: str, key: str, what: str) -> None:
    """A role the layout does not read: a disabled box saying where that part is (the choice kept for
    the layouts that read it)."""
    where.selectbox(label, [f"— {what}"], disabled=True, key=f"{key}_unused")


def _mapping(head: pd.DataFrame, scores: upload.UploadedTable, cols: list[str]) -> None:
    ss = st.session_state
    c = st.columns([1.7, 1, 1, 1, 1])
    c[0].radio("Layout", list(LAYOUTS), key=K.UP_LAYOUT, persist_state=state.PERSIST, format_func=LAYOUT_TITLES.get,
               on_change=relayout, args=(head, scores),
               help="long: dataset, model[, fold], score columns; wide: one row per dataset and one column per "
                    "model; models as rows: one row per model and one column per dataset (a leaderboard).")
    layout = ss[K.UP_LAYOUT]
    if layout == "models-as-rows":  # a role the layout does not read names no column (never a stale one)
        _unused(c[1], "Dataset column", K.UP_DATASET, "the column headers")
    else:
        c[1].selectbox("Dataset column", cols, key=K.UP_DATASET, persist_state=state.PERSIST, on_change=rename,
                       args=(head, scores, ss[K.UP_DATASET]))
    if layout == "wide":
        _unused(c[2], "Model column", K.UP_MODEL, "the column headers")
    else:
        c[2].selectbox("Model column", cols, key=K.UP_MODEL, persist_state=state.PERSIST,
                       on_change=rename, args=(head, scores, ss[K.UP_MODEL]),
                       help="One name per row (and fold): the model's unique identifier. The previous column is "
                            "set aside when you change it.")
    if layout != "long":
        _unused(c[3], "Score column", K.UP_SCORE, "the cells")
    else:
        c[3].selectbox("Score column", cols, key=K.UP_SCORE, persist_state=state.PERSIST)
    c[4].selectbox("Fold / seed column", [NONE, *cols], key=K.UP_FOLD, persist_state=state.PERSIST,
                   help="Optional: resamples, seeds or folds; ranks are averaged over them.")
    c = st.columns([3, 1])
    if layout != "long":
        name = ss[K.UP_DATASET] if layout == "wide" else ss[K.UP_MODEL]
        options = [x for x in cols if x not in (name, ss[K.UP_FOLD])]
        state.ensure_subset(K.UP_DROP, options)
        c[0].multiselect("Set aside (not scores)", options,
                         key=K.UP_DROP, persist_state=state.PERSIST,
                         help="Columns that are not scores: names, text, dates, sizes, and columns derived from "
                              "the scores (an average, a rank, a win rate). Every other column is a "
                              f"{'dataset' if layout == 'models-as-rows' else 'model'}.")
    if layout != "wide":
        c[1].selectbox("Release dates", [NONE, *cols], key=K.UP_RELEASE, persist_state=state.PERSIST,
                       help="Model release dates: the generalisation check on the Evaluate page holds out the "
                            "newest models.")
    if layout != "long":
        rows = [r for r in dict.fromkeys(names_of(head[name])) if r] if name in head.columns else []
        state.ensure_subset(K.UP_DROP_ROWS, rows)
        what = "models" if layout == "models-as-rows" else "datasets"
        c[0].multiselect(f"Rows set aside (not {what})", rows, key=K.UP_DROP_ROWS, persist_state=state.PERSIST,
                         help=f"Rows that are not {what}: a summary row (Average, Total), a baseline you do not "
                              "want ranked. The command line's --drop-rows NAME does the same.")


def _options() -> tuple[tuple[str, object], ...]:
    """The page's choices as guess options; the direction is left to the evidence, so that what the
    page says of it follows every other choice (the user's answer is applied by :func:`_settled`)."""
    ss = st.session_state
    fold, release = ss[K.UP_FOLD], ss[K.UP_RELEASE]
    return upload.reading_options(
        ss[K.UP_LAYOUT], ss[K.UP_DATASET], ss[K.UP_MODEL], ss[K.UP_SCORE], None if fold == NONE else fold,
        [c for c in ss[K.UP_DROP] if c != release], None if release == NONE else release, None,
        ss[K.UP_DROP_ROWS])


def _flip(reading: TableGuess, head: pd.DataFrame, scores: upload.UploadedTable) -> None:
    if reading.layout in FLIPPED:
        now = "datasets" if reading.layout == "wide" else "models"
        other = "models" if now == "datasets" else "datasets"
        st.button(f"Flip: the rows are {other}, not {now}", on_click=flip, args=(head, scores), key="up_flip_btn",
                  icon=":material/swap_horiz:")


def _editor_key(frame: pd.DataFrame, reading: TableGuess) -> str:
    """The directions table's key: a new table (other datasets, another direction) starts without
    edits, so that a tick never lands on another dataset's row."""
    h = hashlib.sha256(json.dumps([st.session_state[K.UP_GUESSED], reading.layout, reading.higher_is_better,
                                   frame["dataset"].tolist(), frame[upload.LOWER].tolist()]).encode())
    return f"up_dirs_{h.hexdigest()[:16]}"


def _edited(frame: pd.DataFrame, key: str) -> pd.DataFrame:
    """The directions table with the edits the user made in it (read before it is drawn, so that
    the text above it follows them)."""
    state_now = st.session_state.get(key)
    edits = state_now.get("edited_rows", {}) if isinstance(state_now, Mapping) else {}
    if not edits:
        return frame
    out = frame.copy()
    for row, change in edits.items():
        if upload.LOWER in change and 0 <= int(row) < len(out):
            out.iloc[int(row), out.columns.get_loc(upload.LOWER)] = bool(change[upload.LOWER])
    return out


def _direction_caption(found: TableGuess) -> str:
    """What the caption under *Scores* says: the file's evidence under the current choices, and
    the answer."""
    answer = st.session_state[K.UP_HIGHER]
    because = found.direction_because
    if answer is None:
        return f"Not decided: {because}. Choose which way is better; the upload cannot be used until you do."
    chosen = answer == HIGHER
    if found.direction_from == "unsure":
        own = found.own_directions()
        where = (f" on the {len(found.datasets) - len(own)} datasets whose headers name no metric of known direction "
                 f"(the other {len(own)} as their metric names say)" if own else "")
        return f"Chosen: {answer}{where}; the file does not settle it ({because})."
    if chosen != found.higher_is_better:
        return f"Chosen: {answer}, against what the file says ({because})."
    if found.direction_from == "assumed":
        return (f"{because[:1].upper()}{because[1:]}. Confirm it (the button that uses the upload says so) or "
                "change it.")
    return f"Guessed: {answer} ({because}). Confirm it or change it."


def _directions(found: TableGuess, reading: TableGuess) -> tuple[tuple[str, ...], tuple[str, ...]]:
    c = st.columns([1.2, 1, 2])
    c[0].radio("Scores", [HIGHER, LOWER], key=K.UP_HIGHER, persist_state=state.PERSIST, horizontal=True)
    c[0].caption(widgets.md_escape(_direction_caption(found)))
    c[1].selectbox("Missing scores", list(MISSING_POLICIES), key=K.UP_MISSING, persist_state=state.PERSIST,
                   format_func=lambda p: f"{p}: {MISSING_TITLES[p]}",
                   help="error: stop and list them; partial: keep every model and dataset (each dataset ranks the "
                        "models it has); complete-block: drop the most incomplete models or datasets one at a "
                        "time until complete; drop-models / drop-datasets: remove every incomplete one.")
    c[2].text_input("Benchmark name", key=K.UP_NAME, persist_state=state.PERSIST)
    frame = upload.directions_frame(reading)
    key = _editor_key(frame, reading)
    now = _edited(frame, key)
    own = int(now[upload.LOWER].sum()) if reading.higher_is_better else int((~now[upload.LOWER]).sum())
    with st.expander(f"Direction per dataset ({len(frame)} datasets"
                     + (f"; {own} {'lower' if reading.higher_is_better else 'higher'}-is-better)" if own else ")"),
                     expanded=bool(own) or not now.equals(frame)):  # open while the user edits it
        st.caption("Leaderboards mix metrics: tick the datasets whose scores are errors, losses or times. The "
                   "direction chosen above applies to every dataset not ticked otherwise here.")
        edited = st.data_editor(frame, hide_index=True, disabled=["dataset"], height=min(36 * (len(frame) + 1), 320),
                                key=key, column_config={upload.LOWER: st.column_config.CheckboxColumn(upload.LOWER)})
    return upload.directions_from_frame(edited, reading.higher_is_better)


def _settled(found: TableGuess) -> TableGuess:
    """The reading with the user's direction (:meth:`~subsetsel_core.io.guess.result.TableGuess.answered`);
    undecided: the evidence as it is (the upload cannot be used until the answer)."""
    answer = st.session_state[K.UP_HIGHER]
    return found if answer is None else found.answered(answer == HIGHER)


def _ticked(reading: TableGuess, lower: tuple[str, ...], higher: tuple[str, ...]) -> TableGuess:
    """The reading with the directions per dataset as ticked (said so when they differ from the file's)."""
    if (lower, higher) == (reading.lower_is_better_datasets, reading.higher_is_better_datasets):
        return reading
    because = reading.direction_because
    if reading.direction_from in ("evidence", "assumed"):
        because += "; the datasets' own directions as ticked"
    return replace(reading, lower_is_better_datasets=lower, higher_is_better_datasets=higher,
                   direction_because=because)


def form(head: pd.DataFrame, scores: upload.UploadedTable) -> Reading:
    """The reading of an uploaded score table: the mapping, the guess in words, the questions the
    guess could not decide, the directions; every text follows the choices as they are now."""
    ss = st.session_state
    was = ss[K.UP_MISSING] if ss[K.UP_GUESSED] != scores.digest else None
    cols = prime(head, scores)
    auto = _auto(head, scores)
    st.markdown("##### How the table is read")
    if was is not None and was != ss[K.UP_MISSING]:
        st.info(widgets.md_escape(f"Missing scores: back to '{ss[K.UP_MISSING]}' for this new file (it was '{was}' "
                                  "for the previous one)."), icon=widgets.ICONS["info"])
    _mapping(head, scores, cols)
    try:
        found = cache.upload_guess(scores.name, scores.digest, _options(), head)
    except InputError as exc:
        st.error(widgets.md_escape(upload.error_text(exc)), icon=widgets.ICONS["error"])
        return Reading(None, None, blocked=(UNREAD,))
    if ss[K.UP_HIGHER] is None and found.direction_from in ("evidence", "assumed"):
        ss[K.UP_HIGHER] = HIGHER if found.higher_is_better else LOWER  # the evidence decides now (no conflict)
    reading = _settled(found)
    sentence = st.empty()  # filled once the directions per dataset are read: the text follows every edit
    items = upload_questions.open_items(auto, found, {"layout": ss[K.UP_LAYOUT], "dataset_column": ss[K.UP_DATASET],
                                                      "model_column": ss[K.UP_MODEL], "score_column": ss[K.UP_SCORE]},
                                        ss[K.UP_HIGHER] is not None)
    blocked = list(upload_questions.ask(items, scores.digest, ss[K.UP_LAYOUT]))
    _flip(reading, head, scores)
    lower, higher = _directions(found, reading)
    reading = _ticked(reading, lower, higher)
    sentence.info(widgets.md_escape(reading.sentence()), icon=":material/visibility:")
    assumption = None
    if ss[K.UP_HIGHER] is None:
        blocked.insert(0, "the direction is not decided: choose under 'Scores' whether a higher or a lower score is "
                          f"better ({found.direction_because})")
    elif reading.direction_from == "assumed":
        assumption = f"{'higher' if reading.higher_is_better else 'lower'} is better, assumed"
    try:
        fmt = reading.to_format(st.session_state[K.UP_MISSING], lower_is_better_datasets=lower,
                                higher_is_better_datasets=higher)
    except InputError as exc:
        st.error(widgets.md_escape(upload.error_text(exc)), icon=widgets.ICONS["error"])
        return Reading(None, reading, blocked=(UNREAD,))
    return Reading(fmt, reading, tuple(release_dates(head, reading).items()), tuple(blocked), assumption,
                   ss[K.UP_HIGHER] is None)
