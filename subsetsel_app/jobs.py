"""Background work that survives page switches: one registry for every long computation.

An evaluation, a representation check or a generalisation check runs in a daemon thread
as a :class:`Job`, kept in a module-level registry under a key. A session stores only the
key (``st.session_state[K.EV_RUN]`` …), so leaving a page and coming back — or a rerun of
any page — finds the job as it is, running or finished. Checks are keyed by every
setting that changes their answer, so the registry is also their cache (another session
with the same settings finds the result at once); an evaluation gets a fresh key per run.

The work reports progress to its job (:meth:`Job.report`), and polls
:attr:`Job.should_stop` between batches; the stop button sets it. No Streamlit here: the
threads never touch ``st``, the pages poll their job from a fragment.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import Cancelled, InputError, SubsetselError
from subsetsel_core.evaluation.parallel import Mapper
from subsetsel_core.evaluation.permutation import (
    PermutationTest,
    iter_permutation_test,
    verdict_metric,
)
from subsetsel_core.evaluation.protocol import iter_evaluate, prepare
from subsetsel_core.evaluation.result import BASELINE, EvaluationConfig, EvaluationResult
from subsetsel_core.representations.descriptors import Representation

log = logging.getLogger(__name__)

#: Seconds between two looks of a page at a running job.
POLL_SECONDS = 0.75
#: Ended jobs kept per kind (the first element of a key), oldest dropped first: evaluation runs
#: are not crowded out by the cached checks.
_KEEP = {"evaluation": 32}
_KEEP_OTHER = 48
JobKey = tuple[Hashable, ...]


@dataclass(eq=False)
class Job:
    """One background computation (running or ended).

    Attributes
    ----------
    key : tuple
        Its registry key.
    label : str
        What it is, for messages ("the representation check").
    total : int
        Units of work (trials), for the progress bar.
    request : Any
        What it was asked to do (an :class:`Evaluation` for evaluation runs).
    done : int
        Units finished so far.
    phase : str
        What it is doing now, for the progress text.
    result : Any
        The answer; for an evaluation the latest partial result while it runs.
    error : str or None
        Why it failed.
    cancelled : bool
        Whether it stopped on request before the end (``result`` keeps what was done).
    owner : str or None
        The session that started it (counted against that session's
        :data:`~subsetsel_core.settings.server.SETTINGS` ``max_running``).
    """

    key: JobKey
    label: str
    total: int
    request: Any = None
    started: float = field(default_factory=time.time)
    finished: float | None = None
    done: int = 0
    phase: str = ""
    result: Any = None
    error: str | None = None
    cancelled: bool = False
    stop_event: threading.Event = field(default_factory=threading.Event, repr=False)
    thread: threading.Thread | None = field(default=None, repr=False)
    owner: str | None = None

    @property
    def running(self) -> bool:
        """Whether the work is still going."""
        return self.finished is None

    @property
    def status(self) -> str:
        """``running``, ``done``, ``stopped`` or ``failed``."""
        if self.running:
            return "running"
        if self.error is not None:
            return "failed"
        return "stopped" if self.cancelled else "done"

    @property
    def progress(self) -> float:
        """Fraction done (0–1)."""
        return min(1.0, self.done / max(1, self.total))

    @property
    def elapsed(self) -> float:
        """Seconds since the start (until the end when ended)."""
        return (self.finished or time.time()) - self.started

    def should_stop(self) -> bool:
        """Whether a stop was asked for (the work polls this)."""
        return self.stop_event.is_set()

    def report(self, done: int, phase: str = "") -> None:
        """Progress from the work: ``done`` units finished, doing ``phase`` now."""
        self.done = int(done)
        if phase:
            self.phase = phase

    def stop(self) -> None:
        """Ask the work to stop at its next check."""
        self.stop_event.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the work ends; True if it ended."""
        if self.thread is not None:
            self.thread.join(timeout)
        return not self.running


_JOBS: OrderedDict[JobKey, Job] = OrderedDict()
_LOCK = threading.Lock()


def _work(job: Job, fn: Callable[[Job], Any]) -> None:
    try:
        job.result = fn(job)
    except Cancelled:
        job.cancelled = True
    except SubsetselError as exc:
        job.error = str(exc)
    except Exception as exc:  # noqa: BLE001 - shown to the user, logged with the traceback
        log.exception("%s failed", job.label)
        job.error = f"{job.label} failed unexpectedly ({type(exc).__name__}: {exc})."
    finally:
        job.finished = time.time()


def _register_locked(job: Job) -> None:
    """Add ``job`` (the caller holds ``_LOCK``) and drop the oldest ended jobs of its kind over the limit."""
    _JOBS[job.key] = job
    _JOBS.move_to_end(job.key)
    kind = job.key[0]
    same = [k for k in _JOBS if k[0] == kind]
    for k in same[: max(0, len(same) - _KEEP.get(str(kind), _KEEP_OTHER))]:
        if not _JOBS[k].running and k != job.key:
            _JOBS.pop(k)


def _register(job: Job) -> None:
    with _LOCK:
        _register_locked(job)


def running_of(owner: str) -> list[Job]:
    """The jobs ``owner`` started that still run and were not asked to stop."""
    with _LOCK:
        return [j for j in _JOBS.values() if j.owner == owner and j.running and not j.should_stop()]


def submit(key: JobKey, label: str, total: int, fn: Callable[[Job], Any], *, request: Any = None,
           owner: str | None = None, max_running: int = 0) -> Job:
    """Start ``fn(job)`` in a background thread, unless a job with this key runs or has finished.

    A finished job with the same key is returned as it is (the cache); a failed or stopped
    one is replaced by a new run. With ``owner`` and ``max_running`` > 0, a new job is
    refused when ``owner`` already runs ``max_running`` jobs (those asked to stop do not
    count); another owner is not affected.

    Raises
    ------
    InputError
        The owner's limit is reached (the message says what runs and how to go on).
    """
    with _LOCK:  # one look-up and registration: two sessions asking at once share one job
        old = _JOBS.get(key)
        if old is not None and (old.running or old.status == "done"):
            _JOBS.move_to_end(key)
            return old
        if owner is not None and max_running > 0:
            mine = [j for j in _JOBS.values() if j.owner == owner and j.running and not j.should_stop()]
            if len(mine) >= max_running:
                names = ", ".join(dict.fromkeys(j.label for j in mine))
                raise InputError(
                    f"this session already runs {len(mine)} computation(s) ({names}); this server runs at most "
                    f"{max_running} at once per session (setting max_running). Stop one or wait until it ends.")
        job = Job(key, label, max(1, int(total)), request, owner=owner)
        job.thread = threading.Thread(target=_work, args=(job, fn), daemon=True, name=f"subsetsel-{label[:24]}")
        _register_locked(job)
    job.thread.start()
    return job


def get(key: JobKey | None) -> Job | None:
    """The job with this key, if the registry still holds it."""
    if key is None:
        return None
    with _LOCK:
        return _JOBS.get(tuple(key))


def stop(key: JobKey | None) -> None:
    """Ask a job to stop (no-op for an unknown key)."""
    job = get(key)
    if job is not None:
        job.stop()


def wait_all(timeout: float = 120.0) -> bool:
    """Wait until every job has ended (for tests and scripts); True if they all did."""
    t0 = time.time()
    with _LOCK:
        jobs = list(_JOBS.values())
    for j in jobs:
        j.wait(max(0.0, timeout - (time.time() - t0)))
    return all(not j.running for j in jobs)


# --------------------------------------------------------------------------- evaluation runs


@dataclass(frozen=True)
class Evaluation:
    """What an evaluation run was asked to do (its job's ``request``).

    Attributes
    ----------
    token : str
        The benchmark's cache token (to tell whether the run belongs to the active one).
    benchmark_name : str
    config : EvaluationConfig
    representations : tuple of str
    permutations : int
        Shuffles B of the permutation test run after the evaluation (0: none).
    permutation_trials : int
        Its trials T' (the first T' of the evaluation).
    """

    token: str
    benchmark_name: str
    config: EvaluationConfig
    representations: tuple[str, ...]
    permutations: int = 0
    permutation_trials: int = 0


def default_batch_size(trials: int) -> int:
    """Trials per partial result: small enough for the curves to move about every second."""
    return max(1, min(10, trials // 10 or 1))


def _evaluate(job: Job, benchmark: Benchmark, reps: Mapping[str, Representation], config: EvaluationConfig,
              mapper: Mapper | None) -> EvaluationResult | None:
    for part in iter_evaluate(benchmark, reps, config, mapper=mapper, should_stop=job.should_stop):
        job.result = part
        job.report(part.trials_done)
    if job.result is None or not job.result.complete:
        raise Cancelled("stopped")
    req: Evaluation = job.request
    if req.permutations > 0 and any(e.strategy != BASELINE for e in job.result.entries):
        observed = job.result
        submit(permutation_key(job.key), "the permutation test", req.permutations,
               lambda j: _permute(j, benchmark, reps, observed, req, mapper), owner=job.owner)
    return job.result


def permutation_key(evaluation: JobKey) -> JobKey:
    """Key of the permutation test that follows the evaluation with key ``evaluation``."""
    return ("permutation", *tuple(evaluation)[1:])


def _permute(job: Job, benchmark: Benchmark, reps: Mapping[str, Representation], observed: EvaluationResult,
             req: Evaluation, mapper: Mapper | None) -> PermutationTest:
    trials = min(req.permutation_trials or observed.config.trials, observed.config.trials)
    metric = verdict_metric(observed.config)
    for part in iter_permutation_test(benchmark, reps, observed.config, permutations=req.permutations,
                                      trials=trials, observed=observed, verdict_metric=metric, mapper=mapper,
                                      should_stop=job.should_stop):
        job.result = part
        job.report(req.permutations if part.complete else part.drawn)
    if job.result is None or not job.result.complete:
        raise Cancelled("stopped")
    return job.result


def start_evaluation(
    benchmark: Benchmark,
    representations: Mapping[str, Representation],
    config: EvaluationConfig,
    *,
    token: str = "",
    mapper: Mapper | None = None,
    permutations: int = 0,
    permutation_trials: int = 0,
    owner: str | None = None,
    max_running: int = 0,
) -> Job:
    """Validate an evaluation and start it in the background (a new key per run).

    ``mapper`` runs the batches elsewhere (local processes, a Dask cluster; see
    :mod:`subsetsel_core.evaluation.parallel`); None runs them in the thread itself. With
    ``permutations`` > 0 the permutation test (B shuffles on the first ``permutation_trials``
    trials) starts when the evaluation ends, as the job :func:`permutation_key` names.
    ``owner`` and ``max_running``: as for :func:`submit` (the test counts for the same owner).

    Raises
    ------
    InputError
        Bad configuration (checked before the thread starts), or the owner's limit.
    """
    prepare(benchmark, representations, config)
    reps = dict(representations)
    request = Evaluation(token, benchmark.name, config, tuple(reps), int(permutations), int(permutation_trials))
    return submit(("evaluation", uuid.uuid4().hex[:12]), "the evaluation", config.trials,
                  lambda job: _evaluate(job, benchmark, reps, config, mapper), request=request, owner=owner,
                  max_running=max_running)


def restore_evaluation(result: EvaluationResult, *, token: str = "", benchmark_name: str = "",
                       representations: tuple[str, ...] = (), permutation: PermutationTest | None = None) -> Job:
    """Register a finished result (e.g. from a workspace file) as an ended run; no thread starts.

    ``permutation``, the test that followed it, is registered as ended too (under
    :func:`permutation_key`), so the restored run has its verdict.
    """
    now = time.time()
    req = Evaluation(token, benchmark_name, result.config, tuple(representations),
                     permutation.permutations if permutation is not None else 0,
                     permutation.trials if permutation is not None else 0)
    job = Job(("evaluation", uuid.uuid4().hex[:12]), "the evaluation", result.config.trials, req, started=now,
              finished=now, done=result.trials_done, result=result, cancelled=not result.complete)
    _register(job)
    if permutation is not None:
        _register(Job(permutation_key(job.key), "the permutation test", permutation.permutations, started=now,
                      finished=now, done=permutation.drawn, result=permutation, cancelled=not permutation.complete))
    return job
