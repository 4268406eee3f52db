"""``python -m subsetsel_core``."""

from subsetsel_core.cli import main

raise SystemExit(main())
