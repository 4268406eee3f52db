"""``python -m subsetsel_core``."""

from subsetsel_core.cli.entry import run

raise SystemExit(run())
