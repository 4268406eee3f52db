"""Report: a clean view for screen sharing, a self-contained HTML report and PNG / SVG figures."""

from __future__ import annotations

import streamlit as st

from subsetsel_app import session, state, widgets
from subsetsel_app.state import K
from subsetsel_app.views import meeting, outputs, select
from subsetsel_app.views import report as view
from subsetsel_core.viz.report import build_html

widgets.header("Report", "Everything on one screen for a meeting, and files to take away.")
data = widgets.active_or_stop()
widgets.show_changes(data.report)  # what the reading changed against the files, said as warnings
if not st.session_state[K.RP_TITLE]:
    st.session_state[K.RP_TITLE] = session.report_title(data)
content = view.collect(data)
title = st.session_state[K.RP_TITLE]
report = view.build_report(content, title)

tab_show, tab_export = st.tabs([":material/slideshow: Presentation", ":material/download: Export"])
with tab_show:
    meeting.presentation(data, content, report, title)

with tab_export:
    st.text_input("Report title", key=K.RP_TITLE, persist_state=state.PERSIST)
    st.markdown("**HTML report** — one file, every figure interactive and inline, plotly.js embedded (works offline).")
    sections = ", ".join(s.title for s in report.sections)
    st.caption(widgets.md_escape(f"Sections: {sections}."))
    st.download_button("Download the HTML report", lambda: build_html(report).encode("utf-8"),
                       file_name=f"report_{data.name}.html", mime="text/html", type="primary",
                       icon=":material/download:", key="dl_report_html", on_click="ignore")
    if content.selection is not None:
        select.download_buttons(data, content.used_recipe, content.selection, key="rp_dl")
    outputs.config_button(data, key="rp_dl_config")
    st.divider()
    st.markdown(f"**Figures as PNG and SVG** ({', '.join(content.figures)}), rendered by kaleido with Chromium.")
    signature = view.figure_signature(content)
    if st.button("Render PNG and SVG", icon=":material/image:", key="rp_render"):
        with st.spinner("Rendering the figures (a headless Chromium starts; a few seconds) …"):
            view.render_images(content, signature)
    imgs, message = view.stored_images(signature)
    if message:
        st.error(widgets.md_escape(message), icon=widgets.ICONS["error"])
    if imgs:
        st.download_button("All figures (ZIP)", view.images_zip(imgs), file_name=f"figures_{data.name}.zip",
                           mime="application/zip", icon=":material/folder_zip:", key="rp_dl_zip", on_click="ignore")
        cols = st.columns(max(1, len(imgs)))
        for col, (name, by_fmt) in zip(cols, imgs.items(), strict=True):
            with col:
                st.image(by_fmt["png"], caption=name, width="stretch")
                for fmt, blob in by_fmt.items():
                    st.download_button(f"{name}.{fmt}", blob, file_name=f"{name}.{fmt}", key=f"rp_dl_{name}_{fmt}",
                                       mime="image/png" if fmt == "png" else "image/svg+xml", on_click="ignore")
