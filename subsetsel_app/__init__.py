"""The subsetsel dashboard's code (the pages are in ``pages/``, the entry point is ``app.py``).

- :mod:`.state`: the session-state keys (one table), :mod:`.entry`: every page under ``app.py``;
- :mod:`.model`: the active benchmark (pure), :mod:`.session`: the session's benchmark and recipe;
- :mod:`.cache`: every Streamlit cache, :mod:`.jobs`: background work (evaluations, checks);
- :mod:`.projection` / :mod:`.projection_worker`: map projections off the page;
- :mod:`.upload`: uploaded files and error wording, :mod:`.budgets`: the budget profile;
- :mod:`.widgets`: shared page pieces, :mod:`.views`: page sections.

Importing this package does not import Streamlit; most of its modules do.
"""
