"""The dashboard's pages, declared once.

``app.py`` builds its ``st.navigation`` from :data:`PAGES`; the AppTest helpers, the browser
tests and the screenshot script walk the same tuple. Each page file is layout only: widgets,
then :mod:`subsetsel_app.cache` calls, then figures from :mod:`subsetsel_core.viz` and the
page parts of :mod:`subsetsel_app.views`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PageSpec:
    """One page of the dashboard.

    Attributes
    ----------
    file : str
        The page script, relative to the repository root (``"pages/select.py"``).
    title : str
        Its name in the navigation.
    icon : str
        A Material icon (``":material/checklist:"``).
    url_path : str
        Its address below the app's root (``"select"``); the default page is the root itself.
    default : bool
        Whether the app opens on it.
    """

    file: str
    title: str
    icon: str
    url_path: str
    default: bool = False

    @property
    def name(self) -> str:
        """The script's stem (``"select"``)."""
        return Path(self.file).stem

    @property
    def url(self) -> str:
        """The address below the app's root: ``""`` for the default page."""
        return "" if self.default else self.url_path


PAGES: tuple[PageSpec, ...] = (
    PageSpec("pages/home.py", "Start", ":material/home:", "home", default=True),
    PageSpec("pages/benchmark.py", "Benchmark", ":material/table_chart:", "benchmark"),
    PageSpec("pages/representation.py", "Representation", ":material/scatter_plot:", "representation"),
    PageSpec("pages/select.py", "Select", ":material/checklist:", "select"),
    PageSpec("pages/evaluate.py", "Evaluate", ":material/monitoring:", "evaluate"),
    PageSpec("pages/report.py", "Report", ":material/slideshow:", "report"),
)


def page(name: str) -> PageSpec:
    """The page whose script is ``pages/<name>.py``.

    Raises
    ------
    KeyError
        No such page.
    """
    for p in PAGES:
        if p.name == name:
            return p
    raise KeyError(f"no page named {name!r}; the pages are {', '.join(p.name for p in PAGES)}")
