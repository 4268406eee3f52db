"""Every page's number inputs and sliders that hold a setting take their range from the settings table."""

from __future__ import annotations

from typing import Any

import pytest
from apphelpers import PAGES, goto, new_app

from subsetsel_app.settings_check import RULES
from subsetsel_app.state import KEYS
from subsetsel_core.settings.table import SETTINGS


@pytest.fixture(scope="module")
def app() -> Any:
    at = new_app()
    at.session_state["rep_pca"] = True  # the variance slider shows with PCA on
    return at


@pytest.mark.parametrize("page", PAGES)
def test_widget_ranges_are_the_settings(app: Any, page: str) -> None:
    at = goto(app, page)
    seen = 0
    for widget in [*at.number_input, *at.slider]:
        name = KEYS[widget.key].setting if widget.key in KEYS else None
        if name is None:
            continue
        lo, hi = SETTINGS[name].widget_range()
        seen += 1
        assert widget.min == lo, (page, widget.key, widget.min, lo)
        # a slider may stop at the benchmark's size (k); never beyond the setting's range
        assert widget.max == hi or (widget.max < hi and widget.key == SETTINGS["k"].workspace), (page, widget.key)
        # the workspace check accepts the ends of the range and refuses what lies past them
        rule = RULES[widget.key]
        assert rule(lo, 10**6) is None and rule(hi, 10**6) is None
        past = hi + 1 if isinstance(hi, int) else hi + 0.5
        assert rule(past, 10**6) is not None
    if page in ("evaluate", "representation", "select"):
        assert seen, f"no widget holding a setting on the {page} page"


def test_every_saved_setting_has_its_session_key_and_a_rule() -> None:
    from subsetsel_app.state import SAVED

    for s in SETTINGS.values():
        if s.workspace is None:
            continue
        key = KEYS[s.workspace]
        assert key.saved_in_workspace, s.name
        if key.setting is None:  # the k range holds two settings in one slider
            assert s.name in ("k_min", "k_max") and key.default == (SETTINGS["k_min"].default, SETTINGS["k_max"].default)
            continue
        assert key.setting == s.name
        assert key.default == (list(s.dashboard_default()) if isinstance(s.dashboard_default(), tuple)
                               else s.dashboard_default())
    assert set(SAVED) <= set(RULES), sorted(set(SAVED) - set(RULES))


def test_a_recipe_travels_whole_through_the_session() -> None:
    from subsetsel_app.session import recipe_from_state, recipe_to_state
    from subsetsel_core.representations.recipe import RepresentationRecipe

    for rec in (RepresentationRecipe(("a", "b"), ("x",), text=False, log=True, pca=0.8),
                RepresentationRecipe(("a",))):
        ss: dict[str, Any] = {"rep_pca_var": 0.9}
        recipe_to_state(rec, ss)
        assert recipe_from_state(ss) == rec
