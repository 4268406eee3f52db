"""Figures, maps and reports shared by the dashboard, the CLI and the scripts.

The only part of :mod:`subsetsel_core` that imports plotly (importing ``subsetsel_core``
does not import this package); nothing here imports Streamlit. Every builder takes plain data
(arrays, DataFrames, names) and returns a ``plotly.graph_objects.Figure``, an HTML / SVG
string or a report. Import a function from the module that holds it
(``from subsetsel_core.viz import curves`` … ``curves.curves_figure(...)``).

Index
-----
:mod:`~subsetsel_core.viz.style`
    ``escape``, ``strategy_color``, ``metric_title``, ``rgba``, ``apply_layout``,
    ``for_export``; ``CATEGORY_COLORS``, ``DASHES``, ``EXPORT_TEMPLATE``.
:mod:`~subsetsel_core.viz.maps`
    ``map_figure`` (the 2-D map with a numbered selection, memoised base map),
    ``add_coverage_lines``, ``color_scale`` / ``ColorScale``; ``COVERAGE_TRACE``,
    ``POORLY_COVERED_TRACE``.
:mod:`~subsetsel_core.viz.curves`
    ``curves_figure`` (performance vs k with 95 % bands), ``mark_points`` (advised k and
    target), ``generalisation_figure`` (judging vs held-out models), ``auc_figure``
    (normalised AUC forest plot); ``MARKS_NAME``.
:mod:`~subsetsel_core.viz.profiles`
    ``k_profile_figure``, ``budget_profile_figure`` (one strategy against random subsets).
:mod:`~subsetsel_core.viz.rankings`
    ``leaderboard_figure``, ``placement_figure`` (a new model's estimated place).
:mod:`~subsetsel_core.viz.geometry`
    ``geometry_figure`` (descriptor distance against rank distance).
:mod:`~subsetsel_core.viz.theory`
    ``theory_figure`` (FAFI's coverage bound vs the observed share of inverted pairs, per k).
:mod:`~subsetsel_core.viz.svg`
    ``map_svg``, ``leaderboard_html``, ``size_tiles_html``, ``text``: plain SVG / HTML the
    browser draws without a chart library.
:mod:`~subsetsel_core.viz.critical_difference`
    ``cd_figure`` (the critical-difference diagram: mean ranks, cliques, Nemenyi's CD).
:mod:`~subsetsel_core.viz.meeting`
    ``fit``, ``spread_map_labels`` (the key figures sized for one screen, the map's labels apart).
:mod:`~subsetsel_core.viz.report`
    ``Report``, ``Section``, ``build_html`` (self-contained HTML), ``figure_images``
    (PNG / SVG through kaleido), ``table_html``, ``chromium_path``.
"""
