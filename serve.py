"""subsetsel dashboard behind the foreign-origin guard: ``streamlit run serve.py``.

The same app as ``streamlit run app.py`` (``app.py`` is its script), served as an ``st.App``
whose middleware refuses a WebSocket from another site's page before Streamlit's own origin
check — which would first look up this machine's internal and external IP
(:mod:`subsetsel_app.origin_guard`). With it the server opens no connection to another host,
whatever a visitor's browser sends; CORS and XSRF protection stay on.
"""

from __future__ import annotations

import streamlit as st
from starlette.middleware import Middleware

from subsetsel_app.origin_guard import ForeignOriginGuard

app = st.App("app.py", middleware=[Middleware(ForeignOriginGuard)])
