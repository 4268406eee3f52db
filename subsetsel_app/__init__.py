"""App-side helpers of the subsetsel dashboard.

Cached wrappers around ``subsetsel_core`` calls (:mod:`.data`, :mod:`.representation`),
session-state keys (:mod:`.state`), the background evaluation runner (:mod:`.runner`),
off-thread map projections (:mod:`.projection`), upload handling (:mod:`.upload`),
analyses the pages show (:mod:`.analysis`) and shared page pieces (:mod:`.ui`).

Importing this package does not import Streamlit; :mod:`.state`, :mod:`.data`,
:mod:`.representation` and :mod:`.ui` do.
"""
