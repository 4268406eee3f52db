"""``python -m subsetsel_core``."""

from subsetsel_core.cli.main import main

raise SystemExit(main())
