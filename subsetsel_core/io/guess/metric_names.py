"""Metric names: which words of a header name a metric, and which way that metric is better.

Only metric words decide a direction: a score column's name (``rmse``), the metric part of
a header (``MMLU - EM``, ``MMLU - Denoised inference time (s)``, ``mmlu/acc``), a header that
is a metric name as a whole (``acc``, ``acc_norm``, ``acc_0``, ``Acc@1``, ``word_perplexity``).
A dataset or task name is never a metric name: "Salient Translation Error Detection" has
words that are not metric words, so it says nothing about direction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from subsetsel_core.io.guess.header_words import CMC_RANK, direction_of, negated, tokens

#: Metric keys where higher is better (as result files and leaderboards spell them).
HIGHER_METRICS = frozenset({
    "acc", "accuracy", "exact", "match", "exact_match", "em", "f1", "ndcg", "map", "mrr", "recall", "precision",
    "auc", "auroc", "roc", "bleu", "sacrebleu", "rouge", "rouge1", "rouge2", "rougel", "rougelsum", "chrf",
    "meteor", "bertscore", "comet", "bleurt", "pass", "main", "spearman", "pearson", "kappa", "mcc", "r2", "hit", "hits", "top1",
    "top5", "mAP".lower(), "cos", "sim", "similarity", "v_measure", "ap", "iou", "dice", "psnr", "ssim",
    "miou", "macc", "ap50", "ap75", "aps", "apm", "apl", "pq", "stoi", "estoi", "pesq", "sdr", "sisdr", "mos",
    "dnsmos", "aucroc", "aucpr", "auprc", "aupr", "nds", "hota", "mota", "idf1", "assa", "deta", "rcll", "prcn", "tpr",
    "bwt", "fwt",
})
#: Metric keys where lower is better.
LOWER_METRICS = frozenset({
    "ppl", "perplexity", "bpb", "bits", "loss", "nll", "logloss", "error", "err", "errors", "wer", "cer", "ter",
    "rmse", "mae", "mse", "mape", "smape", "rmsle", "time", "runtime", "latency", "seconds", "minutes", "hours",
    "milliseconds", "ece", "brier", "fid", "bias", "mase", "crps", "wql", "msis", "nrmse", "wape", "rmsse",
    "hallucination", "lpips", "epe", "absrel", "sqrel", "rel", "rmselog", "fl", "forgetting", "mate", "maoe", "mce",
    "rmsd", "mindcf",
    "mave", "maae", "fpr", "fpr95", "fnr", "eer", "fp", "fn", "idsw", "frag", "ade", "fde", "minade", "minfde",
})
#: Words that qualify a metric without changing its direction (``acc_norm``, ``ndcg_at_10``, ``error rate``).
MODIFIERS = frozenset({
    "norm", "normalized", "normalised", "at", "top", "macro", "micro", "weighted", "rate", "s", "sec", "ms",
    "per", "byte", "word", "token", "char", "score", "denoised", "inference", "test", "val", "dev", "k",
    "strict", "quasi", "prefix", "mean", "avg", "overall", "total", "pct", "percent", "cosine", "max", "min",
    "neg", "negative", "log", "median", "quantile", "box", "bbox", "mask", "segm", "abs", "sq", "si", "all", "vgg",
    "alex",
})
#: Metric keys unambiguous enough to count as the last word of a header (``boolq_acc``) or in a file name.
STRONG = frozenset({
    "acc", "accuracy", "acc_norm", "exact_match", "em", "f1", "ndcg", "mrr", "auc", "auroc", "bleu", "rouge",
    "rougel", "chrf", "ppl", "perplexity", "bpb", "rmse", "mae", "mse", "wer", "cer", "nll", "logloss", "loss",
    "mase", "smape", "mape", "crps", "wql", "map", "forgetting", "ece", "fid",
    # of other fields, unambiguous after a dataset's name ("Vox1-O EER", "SVHN FPR95", "MOT17 HOTA", "ImageNet-C mCE")
    "eer", "mindcf", "fpr", "fpr95", "fnr", "tpr", "bwt", "fwt", "hota", "mota", "idf1", "nds", "ade", "fde",
    "minade", "minfde", "miou", "mce", "rmsd", "psnr", "ssim", "lpips", "epe", "aupr", "auprc",
})
SPACED = STRONG - {"loss", "accuracy", "match"}
"""Metric keys unambiguous enough to count as the last word of a header after a space (``ESOL RMSE``, ``MUTAG
Acc``); not ``loss`` (a task may be named "Hearing Loss")."""
_TIME_UNITS = frozenset({"s", "sec", "secs", "seconds", "ms", "msec", "min", "mins", "minutes", "h", "hours"})
"""A unit in brackets that says a column holds times (lower is better)."""
_PART = re.compile(r"\s+[-–—]\s+|\s*[|:/]\s*")
_BRACKET = re.compile(r"\(([^()]*)\)\s*$")
_UNIT = re.compile(r"\s*\[([^\[\]]*)\]\s*$")
_RATE = re.compile(r"(?:[\w ]+ )?(?:tokens?|samples?|images?|imgs?|queries|query|requests?|frames?|it|items?|steps?"
                   r"|sentences?|words?|chars?|characters?|examples?|seqs?|sequences?|docs?|documents?)\s*/\s*"
                   r"(?:s|sec|second)")  # "tokens/s", "images / s": a throughput (not "m/s", a velocity)
_AT_K = re.compile(r"\b(?:top|pass|hits?|recall|ndcg|map|mrr|acc|precision)\s*[-@_]?\s*\d+\s*$", re.IGNORECASE)
_COMPLEMENT = re.compile(r"(?<![\w.])1\s*[-−–]\s*([A-Za-z]\w*)")  # "1-acc", "1 − IoU": one less a metric


@dataclass(frozen=True)
class MetricName:
    """The metric a header names.

    Attributes
    ----------
    metric : str
        The metric as written (``"EM"``, ``"Denoised inference time (s)"``, ``"acc"``).
    higher_is_better : bool or None
        What its words say (None: a metric name whose direction its words do not tell).
    whole : bool
        Whether the header is the metric name as a whole (``acc``, ``Acc@5``), with no part that
        names a scenario or task.
    """

    metric: str
    higher_is_better: bool | None
    whole: bool = False


def _is_metric(text: str) -> bool:
    """Whether every word of ``text`` is a metric word, a modifier or a number (one metric word at least)."""
    words = tokens(text)
    metric = [w for w in words if w in HIGHER_METRICS or w in LOWER_METRICS]
    return bool(metric) and all(w in HIGHER_METRICS or w in LOWER_METRICS or w in MODIFIERS or w.isdigit()
                                for w in words)


def _direction(text: str) -> bool | None:
    """What a metric's words say; a word after ``1 -`` is its complement (nuScenes' ``mAAE (1-acc)``: an error)."""
    t = set(tokens(text))
    flipped = {w.lower() for w in _COMPLEMENT.findall(text)}
    lo = bool((t - flipped) & LOWER_METRICS) or bool(flipped & HIGHER_METRICS)
    hi = bool((t - flipped) & HIGHER_METRICS) or bool(flipped & LOWER_METRICS)
    return None if lo == hi else hi != negated(text)


def metric_of(header: str) -> MetricName | None:
    """The metric a column header names, or None when it names none (a plain dataset name).

    ``"MMLU - EM"`` → EM (higher); ``"MMLU - Denoised inference time (s)"`` → lower;
    ``"acc_0"``, ``"Acc@1"`` → acc (higher); ``"lambada/ppl"`` → ppl (lower); ``"boolq_acc"`` →
    acc; ``"Salient Translation Error Detection"`` → None.
    """
    text = str(header).strip()
    unit = _UNIT.search(text)  # "T850 RMSE (3 / 5 days) [K]": a unit in square brackets after the name
    if unit and text[:unit.start()].strip():
        if unit.group(1).strip().lower() in _TIME_UNITS:
            return MetricName(text, False, whole=True)
        text = text[:unit.start()].strip()
    arrow = arrow_of(text)
    if arrow is not None:  # "MMLU ↑", "Average ⬆️": the header says which way is better
        return MetricName(text, arrow)
    cmc = CMC_RANK.search(text)
    if cmc is not None:  # "Market-1501 Rank-1": the share of queries matched at rank 1, an accuracy
        return MetricName(cmc.group(0), True, whole=cmc.group(0) == text)
    parts = [p for p in _PART.split(text) if p.strip()]
    if len(parts) >= 2:  # "<scenario> - <metric>": the last part is the metric (any words of it decide)
        last = parts[-1].strip()
        if _direction(last) is not None or _is_metric(last):
            return MetricName(last, direction_of(last) if _direction(last) is None else _direction(last))
    if _is_metric(text):
        return MetricName(text, _direction(text), whole=True)
    bracket = _BRACKET.search(text)
    if bracket and _is_metric(bracket.group(1)):
        return MetricName(bracket.group(1).strip(), _direction(bracket.group(1)))
    lead_name = text.split("(", 1)[0].strip() if bracket else ""
    if bracket and bracket.group(1).strip().lower() in _TIME_UNITS and not (lead_name and metric_of(lead_name)):
        return MetricName(text, False, whole=True)  # "Prefill (s)", "End-to-End (ms)": a time; not "mIoU (MS)"
    if bracket and _RATE.fullmatch(bracket.group(1).strip().lower()):
        return MetricName(text, True, whole=True)  # "Decode (tokens/s)": a rate, a throughput
    lead = text.split("(", 1)[0].strip() if bracket else (parts[0].strip() if len(parts) >= 2 else "")
    if lead and _is_metric(lead):  # "<metric> (<subset>)", "WER - dev-clean"
        return MetricName(lead, _direction(lead))
    at_k = _AT_K.search(text)
    if at_k is not None:  # "ImageNet Top-1", "FB15k Hits@10"; "Pass@1" alone is a metric as a whole
        return MetricName(at_k.group(0), True, whole=not text[:at_k.start()].strip())
    for name in (text, lead) if lead else (text,):  # "Z500 RMSE (3 / 5 days)": the name before a bracket
        words = tokens(name)
        if len(words) >= 2 and ("_" in name or words[-1] in SPACED):
            for n in (2, 1):  # the last words after an underscore: "task_acc_norm", "boolq_acc"; "ESOL RMSE"
                tail = "_".join(words[-n:])
                if tail in STRONG or (n == 1 and words[-1] in STRONG):
                    return MetricName(tail if tail in STRONG else words[-1], _direction(tail))
    return None


#: How the evidence of an arrow in a header set aside (an average's ``Average FPR95↓``) starts, in words.
ARROW_HINT = "the arrow in the '"


def arrow_of(header: str) -> bool | None:
    """What an arrow in a header says: ``↑`` / ``⬆`` higher is better, ``↓`` / ``⬇`` lower (None: no arrow)."""
    up, down = any(a in header for a in "↑⬆▲"), any(a in header for a in "↓⬇▼")
    return None if up == down else up


def file_metric(label: str) -> MetricName | None:
    """The metric a file name names by one of the unambiguous metric words (``tsc_accuracy.csv``)."""
    stem = str(label).rsplit("/", 1)[-1].split(".")[0]
    words = [w for w in tokens(stem) if w in STRONG]
    if not words:
        return None
    direction = _direction(" ".join(words))
    return None if direction is None else MetricName(words[0], direction)


def score_metric(column: str) -> MetricName | None:
    """The metric a long table's score column names (its words decide: ``rmse``, ``test_error``)."""
    direction = _direction(column)
    if direction is None:
        direction = direction_of(column)
    return None if direction is None else MetricName(str(column), direction)
