"""Who may use the dashboard: with the setting ``require_login``, only visitors logged in
through Streamlit's ``st.login`` (an OpenID Connect provider configured under ``[auth]`` in
``.streamlit/secrets.toml``; see ``docs/deploy.md``). Without it, access is the business of
the network or of a reverse proxy that authenticates."""

from __future__ import annotations

import streamlit as st

from subsetsel_core.settings import server as server_settings


def _auth_configured() -> bool:
    try:
        return "auth" in st.secrets
    except Exception:  # noqa: BLE001 - no secrets file, or one that cannot be read: not configured
        return False


def gate() -> None:
    """Stop the run here unless the visitor may go on (``app.py`` calls it first)."""
    if not server_settings.get("require_login"):
        return
    if st.user.get("is_logged_in", False):
        who = st.user.get("email") or st.user.get("name") or "you"
        st.sidebar.caption(f"Logged in as {who}")
        st.sidebar.button("Log out", on_click=st.logout, icon=":material/logout:", key="logout_btn")
        return
    st.title("subsetsel")
    if not _auth_configured():
        st.error("This server asks visitors to log in, but no login provider is configured. Administrator: add an "
                 "[auth] section to .streamlit/secrets.toml (see docs/deploy.md) or turn require_login off.")
        st.stop()
    st.markdown("This dashboard is for the members of its group: log in to continue.")
    st.button("Log in", type="primary", on_click=st.login, icon=":material/login:", key="login_btn")
    st.stop()
