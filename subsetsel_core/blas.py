"""One BLAS thread for a block of code (``threadpoolctl``, its controller made once per process)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

_CONTROLLER: list[Any] = []


def one_blas_thread() -> AbstractContextManager[Any]:
    """Context manager: BLAS on one thread inside it.

    The protocol's small products only contend on several threads, and the k-means
    kernels rely on single-threaded BLAS for their exact sums (finding the BLAS libraries
    takes milliseconds, so the controller is kept).
    """
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")
