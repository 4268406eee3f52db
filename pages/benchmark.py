"""Benchmark: choose a sample or a benchmark folder, or upload scores and descriptors."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from subsetsel_app import cache, limits, state, upload, widgets
from subsetsel_app.active_data import NAMES_NOTE
from subsetsel_app.state import K
from subsetsel_app.views import benchmark as view
from subsetsel_app.views import gaps as gaps_view
from subsetsel_app.views import result_upload, upload_reading
from subsetsel_core.errors import InputError

widgets.header("Benchmark", "Which scores and dataset descriptors to work on. Everything is validated before it is used.")
data = widgets.active_or_stop()

st.subheader(f"Active: {widgets.md_escape(data.title)}")
widgets.benchmark_metrics(data)
widgets.show_changes(data.report)  # what the reading changed against the files, said as warnings
if data.only_names:
    st.info(NAMES_NOTE, icon=":material/info:")
with st.expander("Validation report of the active benchmark", expanded=False):
    widgets.show_report(data.report, changes=False)
if data.benchmark.has_gaps:
    with st.expander("Gaps: which models and datasets lack scores (the 'partial' policy keeps them all)",
                     expanded=True):
        gaps_view.section(data)
with st.expander("Scores and descriptors (first rows)", expanded=False):
    st.dataframe(data.benchmark.to_long_frame().head(20), hide_index=True, width="stretch")
    for name, table in data.tables.items():
        if data.is_names(name):
            st.caption(f"Representation **{widgets.md_escape(name)}** — the datasets' names (weak descriptors)")
            continue
        st.caption(f"Descriptor table **{widgets.md_escape(name)}** — {table.shape[1]} column(s), {table.shape[0]} row(s)")
        st.dataframe(table.iloc[:8, :12], width="stretch")

tab_folders, tab_upload = st.tabs([":material/folder_open: Samples and benchmark folders",
                                   ":material/upload: Upload your files"])

with tab_folders:
    if limits.path_field():  # off unless the administrator turns it on (setting allow_path_field)
        st.text_input("Benchmark directory", key=K.BENCH_DIR, persist_state=state.PERSIST,
                      help="A folder inside this server's benchmark directories, with one sub-folder per benchmark, "
                           "each with a manifest.json (see sample_data/README.md); relative paths start at the first "
                           "of them. Empty: the benchmarks of every directory the server offers.")
    cat = view.offered_catalog(st.session_state[K.BENCH_DIR] if limits.path_field() else "")
    for problem in cat.errors:
        st.error(widgets.md_escape(problem))
    if cat.manifests or not cat.errors:
        for path, problem in cat.problems:
            st.warning(widgets.md_escape(f"{Path(path).name}: {problem}"), icon=widgets.ICONS["warning"])
        if not cat.manifests:
            st.info("No benchmark folder (with a manifest.json) in the benchmark directories of this server.")
        else:
            folders = {str(m.folder): m for m in cat.manifests}
            twice = {m.name for m in cat.manifests if sum(o.name == m.name for o in cat.manifests) > 1}
            current = str(data.manifest.folder) if data.manifest is not None else None
            state.ensure_choice(K.BENCH_CHOICE, list(folders), fallback=current)
            st.selectbox("Benchmark", list(folders), key=K.BENCH_CHOICE, persist_state=state.PERSIST,
                         format_func=lambda f: f"{folders[f].title}  ({folders[f].name}"
                                               + (f", in {Path(f).parent.name})" if folders[f].name in twice else ")"))
            m = folders[st.session_state[K.BENCH_CHOICE]]
            st.markdown(f"**{widgets.md_escape(m.title)}**")
            if m.description:
                st.caption(widgets.md_escape(m.description))
            reps = ", ".join(f"{r.name} ({r.kind})" for r in m.representations) or "none"
            st.markdown(f"Metric: {widgets.md_escape(m.metric or 'score')} ({'higher' if m.higher_is_better else 'lower'} is better) · "
                        f"descriptor tables: {widgets.md_escape(reps)}")
            if m.citation:
                st.caption(f"Cite: {widgets.md_escape(m.citation)}")
            is_active = current == str(m.folder)
            st.button("Active" if is_active else "Load this benchmark", type="primary", disabled=is_active,
                      on_click=view.load_folder, args=(str(m.folder),), key="load_folder_btn")

with tab_upload:
    st.markdown("Scores as a **long** table (one row per dataset, model and optional fold), a **wide** one "
                "(one row per dataset, one column per model) or a **leaderboard** (one row per model, one column "
                "per dataset, with columns such as Rank, Average or Company set aside); CSV, gzip CSV, TSV, "
                "Parquet, JSON records (a list of one object per row, or JSON Lines) or a README's markdown table. Descriptor tables have a dataset column plus numeric, categorical or text columns.")
    nonce = st.session_state[K.UP_NONCE]
    up_cols = st.columns(2)
    scores_file = widgets.file_uploader("Scores", where=up_cols[0],
                                       type=["csv", "gz", "tsv", "txt", "md", "markdown", "parquet", "pq", "json", "jsonl",
                                             "ndjson"],
                                       key=f"up_scores_{nonce}")
    desc_files = widgets.file_uploader("Descriptor tables (optional, one or more)", where=up_cols[1],
                                      type=["csv", "gz", "tsv", "txt", "parquet", "pq"],
                                      accept_multiple_files=True, key=f"up_desc_{nonce}")
    if scores_file is None:
        st.info("Upload a score table to see its validation report. The active benchmark stays as it is until "
                "you choose to use the upload.")
    else:
        scores = upload.UploadedTable(scores_file.name, scores_file.getvalue())
        try:
            head = cache.upload_header(scores.name, scores.digest, scores.content)
        except InputError as exc:
            st.error(widgets.md_escape(upload.error_text(exc)))
            head = None
        if head is not None:
            with st.expander(f"Preview of {scores.name} ({len(head)} rows × {head.shape[1]} columns)"):
                st.dataframe(head.head(8), hide_index=True, width="stretch")
            reading = upload_reading.form(head, scores)

            descs = tuple(upload.UploadedTable(f.name, f.getvalue()) for f in (desc_files or []))
            alias_map: dict[str, str] = {}
            why = list(reading.blocked)  # every part not usable yet, each with its fix (next to Use)
            if descs:
                st.markdown("##### Descriptors")
                c = st.columns([1, 2])
                c[0].text_input("Dataset column of the descriptor tables", key=K.UP_DESC_COL, persist_state=state.PERSIST)
                c[1].text_area("Aliases (name in descriptor file = name in scores, one per line)", key=K.UP_ALIASES, persist_state=state.PERSIST,
                               height=90, placeholder="StarlightCurves = StarLightCurves")
                try:
                    alias_map = upload.parse_aliases(st.session_state[K.UP_ALIASES])
                except InputError as exc:
                    st.error(widgets.md_escape(upload.error_text(exc)))
                    why.append(view.ALIASES_UNREAD)
            check = None if reading.fmt is None else cache.check_upload(
                (scores.name, scores.digest), reading.fmt, st.session_state[K.UP_NAME],
                tuple((t.name, t.digest) for t in descs), st.session_state[K.UP_DESC_COL],
                tuple(sorted(alias_map.items())), reading.guess, reading.dates, scores, descs)
            st.markdown("##### Validation report")
            if check is None:
                st.caption("Fix the reading above; the active benchmark is unchanged.")
            elif check.error:
                st.error(widgets.md_escape(check.error), icon=widgets.ICONS["error"])
                st.caption("Fix the file or the options above; the active benchmark is unchanged.")
                why.append(view.NOT_LOADED)
            else:
                widgets.show_report(upload.shown_report(check.report, reading.direction_open), expanded_info=True)
                if check.suggested_aliases:
                    st.info("Close matches found for names missing from the descriptors: "
                            + widgets.md_escape("; ".join(f"'{a}' → '{b}'" for a, b in check.suggested_aliases.items())))
                    st.button("Add these aliases", on_click=view.add_aliases, args=(check.suggested_aliases,),
                              key="add_aliases_btn")
                why += check.unusable
            view.use_button(check.data if check is not None and check.ok else None, why, reading.assumption)
    result_upload.draw(nonce)
    st.button("Clear the uploads", on_click=view.clear_upload, key="clear_upload_btn")
