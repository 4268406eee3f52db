"""The ``subsetsel`` command (and ``python -m subsetsel_core``): BLAS on one thread from the start.

Every computation of the command line runs inside
:func:`~subsetsel_core.evaluation.parallel.one_blas_thread` (small matrices: threaded BLAS only
contends, and a threaded reduction may add in another order). Asked for before NumPy loads its
BLAS (:func:`~subsetsel_core.evaluation.parallel.one_thread_from_start`), that costs nothing
later; a user's own setting of the BLAS variables is left as it is. Nothing here loads NumPy.
"""

from __future__ import annotations

import os

from subsetsel_core.evaluation.parallel import one_thread_from_start


def run() -> int:
    """Entry point of the ``subsetsel`` command; returns the exit code of :func:`.main.main`."""
    one_thread_from_start(os.environ)
    from subsetsel_core.cli.main import main

    return main()
