"""Page parts bigger than a widget: each module draws one section of a page (or the sidebar).

They read the session through :mod:`subsetsel_app.state` and :mod:`subsetsel_app.session`,
compute through :mod:`subsetsel_app.cache` and :mod:`subsetsel_app.jobs`, and draw with
:mod:`subsetsel_app.widgets` and :mod:`subsetsel_core.viz`.
"""
