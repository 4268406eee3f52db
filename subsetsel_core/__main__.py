"""``python -m subsetsel_core``."""

from .cli import main

raise SystemExit(main())
