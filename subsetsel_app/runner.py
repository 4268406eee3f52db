"""Background evaluation runs that survive page switches.

An evaluation (:func:`subsetsel_core.evaluation.protocol.iter_evaluate`) runs in a daemon thread;
its latest partial :class:`~subsetsel_core.evaluation.protocol.EvaluationResult` is kept in a
module-level registry keyed by run id. A session stores only the id
(``st.session_state[K.EV_RUN]``), so leaving the Evaluate page and coming back — or a
rerun of any page — finds the run as it is, running or finished. The stop button sets an
event the protocol polls between batches (``should_stop``).

No Streamlit here: the thread never touches ``st``.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.descriptors import Representation
from subsetsel_core.errors import SubsetselError
from subsetsel_core.evaluation.parallel import Mapper
from subsetsel_core.evaluation.protocol import (
    EvaluationConfig,
    EvaluationResult,
    iter_evaluate,
    prepare,
)

log = logging.getLogger(__name__)

_MAX_RUNS = 32


class BackgroundWork:
    """What every piece of background work offers, from its ``started``, ``finished``,
    ``stop_event`` and ``thread`` attributes (an :class:`EvalRun`, or a job of
    :mod:`subsetsel_app.eval_tools`)."""

    started: float
    finished: float | None
    stop_event: threading.Event
    thread: threading.Thread | None

    @property
    def running(self) -> bool:
        """Whether the thread is still working."""
        return self.finished is None

    @property
    def elapsed(self) -> float:
        """Seconds since the start (until the end when finished)."""
        return (self.finished or time.time()) - self.started

    def stop(self) -> None:
        """Ask the work to stop at its next check."""
        self.stop_event.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the work ends; True if it ended."""
        if self.thread is not None:
            self.thread.join(timeout)
        return not self.running


@dataclass(eq=False)
class EvalRun(BackgroundWork):
    """One evaluation, running or finished.

    Attributes
    ----------
    id : str
    token : str
        The benchmark's cache token (to tell whether the run belongs to the active one).
    benchmark_name : str
    config : EvaluationConfig
    representations : tuple of str
    started : float
        ``time.time()`` at the start.
    latest : EvaluationResult or None
        The latest partial (or final) result.
    error : str or None
        Why the run failed.
    finished : float or None
        ``time.time()`` at the end.
    """

    id: str
    token: str
    benchmark_name: str
    config: EvaluationConfig
    representations: tuple[str, ...]
    started: float = field(default_factory=time.time)
    latest: EvaluationResult | None = None
    error: str | None = None
    finished: float | None = None
    stop_event: threading.Event = field(default_factory=threading.Event, repr=False)
    thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def status(self) -> str:
        """``running``, ``done``, ``stopped`` or ``failed``."""
        if self.error is not None:
            return "failed"
        if self.finished is None:
            return "running"
        if self.latest is not None and self.latest.complete:
            return "done"
        return "stopped"

    @property
    def trials_done(self) -> int:
        """Trials finished so far."""
        return 0 if self.latest is None else self.latest.trials_done

    @property
    def progress(self) -> float:
        """Fraction of the trials done (0–1)."""
        return min(1.0, self.trials_done / max(1, self.config.trials))



_RUNS: dict[str, EvalRun] = {}
_LOCK = threading.Lock()


def default_batch_size(trials: int) -> int:
    """Trials per partial result: small enough for the curves to move about every second."""
    return max(1, min(10, trials // 10 or 1))


def _work(run: EvalRun, benchmark: Benchmark, reps: Mapping[str, Representation], mapper: Mapper | None) -> None:
    try:
        for part in iter_evaluate(benchmark, reps, run.config, mapper=mapper, should_stop=run.stop_event.is_set):
            run.latest = part
    except SubsetselError as exc:
        run.error = str(exc)
    except Exception as exc:  # noqa: BLE001 - shown to the user, logged with the traceback
        log.exception("evaluation %s failed", run.id)
        run.error = f"the evaluation failed unexpectedly ({type(exc).__name__}: {exc})."
    finally:
        run.finished = time.time()


def start_run(
    benchmark: Benchmark,
    representations: Mapping[str, Representation],
    config: EvaluationConfig,
    *,
    token: str = "",
    mapper: Mapper | None = None,
) -> EvalRun:
    """Validate an evaluation and start it in a background thread.

    ``mapper`` runs the batches elsewhere (local processes, a Dask cluster; see
    :mod:`subsetsel_core.evaluation.parallel`); None runs them in the thread itself.

    Raises
    ------
    InputError
        Bad configuration (checked before the thread starts).
    """
    prepare(benchmark, representations, config)
    run = EvalRun(uuid.uuid4().hex[:12], token, benchmark.name, config, tuple(representations))
    run.thread = threading.Thread(target=_work, args=(run, benchmark, dict(representations), mapper), daemon=True,
                                  name=f"subsetsel-eval-{run.id}")
    with _LOCK:
        _RUNS[run.id] = run
        if len(_RUNS) > _MAX_RUNS:
            for rid in [r.id for r in _RUNS.values() if not r.running][: len(_RUNS) - _MAX_RUNS]:
                _RUNS.pop(rid, None)
    run.thread.start()
    return run


def get_run(run_id: str | None) -> EvalRun | None:
    """The run with this id, if the registry still holds it."""
    if not run_id:
        return None
    with _LOCK:
        return _RUNS.get(run_id)


def stop_run(run_id: str | None) -> None:
    """Ask a run to stop (no-op for an unknown id)."""
    run = get_run(run_id)
    if run is not None:
        run.stop()


def restore_run(
    result: EvaluationResult, *, token: str = "", benchmark_name: str = "", representations: tuple[str, ...] = ()
) -> EvalRun:
    """Register a finished result (e.g. from a loaded workspace) as an ended run; no thread is started."""
    now = time.time()
    run = EvalRun(uuid.uuid4().hex[:12], token, benchmark_name, result.config, tuple(representations), started=now,
                  latest=result, finished=now)
    with _LOCK:
        _RUNS[run.id] = run
        if len(_RUNS) > _MAX_RUNS:
            for rid in [r.id for r in _RUNS.values() if not r.running and r.id != run.id][: len(_RUNS) - _MAX_RUNS]:
                _RUNS.pop(rid, None)
    return run
