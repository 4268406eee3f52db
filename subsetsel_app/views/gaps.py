"""The gaps of the active benchmark: a sentence, a heat strip and the models and datasets with most gaps."""

from __future__ import annotations

import streamlit as st

from subsetsel_app import widgets
from subsetsel_app.active_data import ActiveData
from subsetsel_core.evaluation.gaps import gaps
from subsetsel_core.viz.gaps import gaps_figure


def section(data: ActiveData) -> None:
    """Layout of the gaps view (the active benchmark has gaps under the ``partial`` policy)."""
    g = gaps(data.benchmark)
    st.markdown(widgets.md_escape(g.summary()))
    st.caption("Under 'partial', each dataset ranks the models it has (rescaled to 1…M), a model's rank on a subset "
               "is its mean over the subset's datasets that rank it, and every metric uses the models both the "
               "subset and the full benchmark rank; the Evaluate page reports the share of models covered per k.")
    widgets.chart(gaps_figure(g), key="gaps_strip")
    left, right = st.columns(2)
    share = st.column_config.ProgressColumn("share", format="percent", min_value=0.0, max_value=1.0)
    left.markdown("**Models with fewest datasets**")
    left.dataframe(g.by_model().head(50), hide_index=True, width="stretch", column_config={"share": share})
    right.markdown("**Datasets with fewest models**")
    right.dataframe(g.by_dataset().head(50), hide_index=True, width="stretch", column_config={"share": share})
