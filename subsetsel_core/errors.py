"""Exception types of :mod:`subsetsel_core`.

Every problem caused by user input raises :class:`InputError` (a ``ValueError``) whose
message names the file, the column or row, and the fix. The CLI turns these into exit
code 2 and the dashboard into a readable message; neither shows a traceback.
"""

from __future__ import annotations


class SubsetselError(Exception):
    """Base class of every error raised on purpose by ``subsetsel_core``."""


class InputError(SubsetselError, ValueError):
    """Bad user input: a file, a column, a row, a parameter.

    The message is meant to be shown to the user as it is: it says what is wrong,
    where, and how to fix it.
    """


class Cancelled(SubsetselError):
    """Raised when a long computation was cancelled by its caller."""
