"""The Select page's parts: strategy choices, the budget widgets, coverage, the subset table and files.

The core chooses and writes (:mod:`subsetsel_core.selection.subsets`, :mod:`subsetsel_core.selection.coverage`,
:mod:`subsetsel_core.outputs.export`); this module turns widget values into their arguments and
draws what comes back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from subsetsel_app import cache, state, widgets
from subsetsel_app.active_data import ActiveData
from subsetsel_app.state import K
from subsetsel_core.outputs import export
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.representations.recipe import RepresentationRecipe
from subsetsel_core.selection import profiles
from subsetsel_core.selection.costs import BudgetSelection, Costs
from subsetsel_core.selection.coverage import Coverage
from subsetsel_core.selection.subsets import Selection
from subsetsel_core.strategies import REGISTRY, STRATEGIES
from subsetsel_core.text.rounding import printf, quantity_of, rounded, text
from subsetsel_core.viz import profiles as profile_figures

#: Random subsets the k profile and the budget profile compare with.
RANDOM_DRAWS = profiles.RANDOM_DRAWS


def available_strategies(rep: Representation | None) -> list[str]:
    """Registered strategies usable with this representation (those without descriptors when there is none)."""
    return [s for s in STRATEGIES if rep is not None or not REGISTRY[s].uses_features]


def budget_strategies(rep: Representation | None) -> list[str]:
    """Strategies with a cost-aware variant usable with this representation."""
    return [s for s in available_strategies(rep) if REGISTRY[s].cost_aware is not None]


def strategy_help(names: Sequence[str]) -> str:
    """Each strategy's title and description, for a widget's help."""
    return "\n\n".join(f"**{s}** — {REGISTRY[s].description}" for s in names)


def positions(data: ActiveData, names: Sequence[str]) -> tuple[int, ...]:
    """Positions of dataset names in the benchmark's order (unknown names are skipped)."""
    index = {d: i for i, d in enumerate(data.benchmark.datasets)}
    return tuple(index[n] for n in names if n in index)


def metrics_row(data: ActiveData, values: dict[str, float], k: int, seed: int) -> None:
    """The subset's agreement per metric, each against the median of random k-subsets."""
    rand = cache.random_profile_to(data, k, seed)
    for col, (name, metric) in zip(st.columns(len(METRICS)), METRICS.items(), strict=True):
        med = float(rand[name][0][k - 1])
        change = text(values[name] - med, "agreement_change")
        same = rounded(values[name] - med, "agreement_change") == 0  # no arrow, no colour for "no change"
        col.metric(metric.label, text(values[name], "agreement"),
                   delta="same as random" if same else f"{change} vs random",
                   delta_color="off" if same else "normal" if metric.higher_is_better else "inverse",
                   delta_arrow="off" if same else "auto",
                   help=f"{metric.label} of the subset's model ranking against the full ranking; the delta compares "
                        f"with the median of {RANDOM_DRAWS} random {k}-subsets ({text(med, 'agreement')}).")


# --------------------------------------------------------------------------- budget widgets


def default_budget(c: Costs) -> float:
    """A first budget: a tenth of the total cost, at least the cheapest dataset (3 significant digits)."""
    return float(f"{max(0.1 * c.total, float(c.values.min())):.3g}")


def fmt_cost(v: float) -> str:
    """A cost for display: the significant digits of the rule for costs (:mod:`subsetsel_core.text.rounding`),
    thousands separated."""
    return text(v, "cost", grouped=True)


def budget_step(total: float) -> tuple[float, str]:
    """A 1-2-5 step of about a two-hundredth of the total, and a matching number format."""
    raw = max(total / 200.0, 1e-9)
    mag = 10.0 ** np.floor(np.log10(raw))
    step = float(min((m * mag for m in (1, 2, 5, 10) if m * mag >= raw), default=10 * mag))
    decimals = int(max(0, -np.floor(np.log10(step))))
    # enough decimals to show the default budget (3 significant digits of a tenth of the total)
    decimals = max(decimals, int(2 - np.floor(np.log10(max(0.1 * total, 1e-9)))))
    return step, f"%.{min(max(decimals, 0), 6)}f"


def ensure_budget_state(data: ActiveData, c: Costs) -> None:
    """Reset the budget to its default when the benchmark or the cost source changed; keep it in range."""
    ss = st.session_state
    owner = f"{data.token}|{ss[K.SEL_COST]}"
    if ss.get(K.SEL_BUDGET_FOR) != owner or ss.get(K.SEL_BUDGET) is None:
        ss[K.SEL_BUDGET] = default_budget(c)
        ss[K.SEL_BUDGET_FOR] = owner
    b = float(ss[K.SEL_BUDGET])
    if not 0.0 <= b <= c.total:
        ss[K.SEL_BUDGET] = float(min(max(b, 0.0), c.total))


def budget_profile_chart(prof: profiles.BudgetProfile, bs: BudgetSelection, metric: str) -> go.Figure:
    """The budget profile figure with the current subset marked."""
    cur = None
    if bs.selection.k and metric in bs.selection.agreement:
        cur = (bs.budget, float(bs.selection.agreement[metric]))
    return profile_figures.budget_profile_figure(prof.budgets, prof.values, prof.random_band, metric,
                                          strategy=bs.selection.strategy, k_used=prof.k_used, spent=prof.spent,
                                          current=cur, unit=prof.unit)


# --------------------------------------------------------------------------- coverage


def representative_positions(cov: Coverage) -> list[int]:
    """For each dataset, the position of its representative (benchmark order)."""
    index = {d: i for i, d in enumerate(cov.datasets)}
    return [index[r] for r in cov.representative]


def poorly_positions(cov: Coverage) -> list[int]:
    """Positions of the datasets not covered well."""
    index = {d: i for i, d in enumerate(cov.datasets)}
    return [index[d] for d in cov.poorly_covered]


def poorly_frame(cov: Coverage, limit: int = 8) -> pd.DataFrame:
    """The datasets nothing covers well, farthest first: dataset, nearest chosen, distance."""
    index = {d: i for i, d in enumerate(cov.datasets)}
    rows = [{"dataset": d, "nearest chosen": cov.representative[index[d]], "distance": float(cov.distance[index[d]])}
            for d in cov.poorly_covered[:limit]]
    return pd.DataFrame(rows, columns=["dataset", "nearest chosen", "distance"])


# --------------------------------------------------------------------------- the table and the files


def subset_table(data: ActiveData, rec: RepresentationRecipe | None, sel: Selection, *,
                 bs: BudgetSelection | None = None, cov: Coverage | None = None) -> pd.DataFrame:
    """:func:`subsetsel_core.outputs.export.subset_table` with the recipe's raw descriptor columns."""
    return export.subset_table(sel, None if rec is None else cache.hover_frame(data, rec), budget=bs, coverage=cov)


def table_formats(table: pd.DataFrame) -> dict[str, Any]:
    """Number formats of the subset table's own columns (costs, distances) on the page, by the rules of
    :mod:`subsetsel_core.text.rounding` (descriptor columns are shown as they are)."""
    return {c: st.column_config.NumberColumn(format=printf(q)) for c in export.TABLE_COLUMNS
            if c in table.columns and (q := quantity_of(c)) is not None}


def subset_files(data: ActiveData, rec: RepresentationRecipe | None, sel: Selection, *,
                 bs: BudgetSelection | None = None, cov: Coverage | None = None) -> tuple[bytes, bytes]:
    """The subset CSV and its JSON sidecar (:mod:`subsetsel_core.outputs.export`), as bytes."""
    from subsetsel_app.provenance import selection_provenance

    side = export.sidecar(sel, data.benchmark, rec, title=data.title, budget=bs, coverage=cov,
                          provenance=selection_provenance(data, sel, rec, budget=bs))
    csv_text = export.subset_csv(subset_table(data, rec, sel, bs=bs, cov=cov), side)
    return csv_text.encode("utf-8"), export.sidecar_json(side).encode("utf-8")


def file_stem(sel: Selection, bs: BudgetSelection | None = None) -> str:
    """The files' name without extension (:func:`subsetsel_core.outputs.export.file_stem`)."""
    return export.file_stem(sel, None if bs is None else bs.budget)


def download_buttons(data: ActiveData, rec: RepresentationRecipe | None, sel: Selection, *, key: str,
                     bs: BudgetSelection | None = None, cov: Coverage | None = None, primary: bool = False) -> None:
    """"Subset CSV" and "JSON sidecar" buttons, side by side (the files are made when clicked)."""
    stem = file_stem(sel, bs)
    d = st.columns(2)
    d[0].download_button("Subset CSV", lambda: subset_files(data, rec, sel, bs=bs, cov=cov)[0],
                         file_name=stem + ".csv", mime="text/csv", icon=":material/download:",
                         key=f"{key}_csv", type="primary" if primary else "secondary", on_click="ignore")
    d[1].download_button("JSON sidecar", lambda: subset_files(data, rec, sel, bs=bs, cov=cov)[1],
                         file_name=stem + ".json", mime="application/json", icon=":material/data_object:",
                         key=f"{key}_json", on_click="ignore")


def coverage_panel(cov: Coverage) -> None:
    """Covering radius, the lines toggle and the datasets nothing covers well."""
    st.markdown("##### Coverage")
    cv = st.columns(2, vertical_alignment="center")
    cv[0].metric("Covering radius", text(cov.radius, "distance"),
                 help="The largest distance from any dataset to its nearest chosen dataset (Euclidean, descriptors "
                      "standardised over all datasets). Smaller means every dataset has a close stand-in in the "
                      "subset.")
    cv[1].toggle("Lines on the map", key=K.SEL_COVERAGE, persist_state=state.PERSIST,
                 help="Lines from each unchosen dataset to the chosen dataset that stands for it.")
    bad = poorly_frame(cov, limit=5)
    if not len(bad):
        st.markdown(f"**Not covered well:** none — every dataset is within {text(cov.threshold, 'distance')} of a "
                    "chosen one.")
        return
    more = len(cov.poorly_covered) - len(bad)
    st.markdown(f"**Not covered well** (farther than {text(cov.threshold, 'distance')} from every chosen dataset): "
                + ", ".join(f"{widgets.md_escape(d)} ({text(dist, 'distance')}, nearest {widgets.md_escape(near)})"
                            for d, near, dist in bad.itertuples(index=False, name=None))
                + (f", … and {more} more" if more > 0 else "") + ".",
                help="Farther from its nearest chosen dataset than the mean plus two standard deviations of the "
                     "unchosen datasets' distances; the full list is in the JSON sidecar, the stand-ins of every "
                     "dataset in the CSV's 'represents' column.")
