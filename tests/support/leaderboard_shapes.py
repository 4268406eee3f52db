"""Score tables in the shapes of real published leaderboards, built in code (made-up numbers).

Each builder returns the table as CSV text; the tests of the score-table guess read them
as a user's file would be read, and ``benchmarks/bench_wide_tables.py`` times the wide ones.

* :func:`per_class_imagenet` — one row per weight file: ``Weight`` (unique), ``Model`` (an
  architecture shared by several weights), ``Acc@1``, ``Acc@5`` (percent), ``Params``
  (millions), ``GFLOPS``, ``Recipe`` (text), ``acc`` (the row mean of the per-class columns),
  then ``acc_0 … acc_{n-1}`` (per-class accuracy, 0–1, multiples of 1/50).
* :func:`bbh_with_error_detection` — BIG-Bench-Hard style: ``Rank, Model, Average`` and one
  column per task, one of them "Salient Translation Error Detection".
* :func:`helm_with_time` — HELM style ``<scenario> - <metric>`` headers, accuracy-like
  metrics and one ``Denoised inference time (s)`` column.
* :func:`bare_score` — a long table whose only number column is ``score``.
* :func:`with_code_column` — models as rows with a numeric code column next to the tasks.
* :func:`wide_square` — datasets as rows, models as columns (accuracies), any size.
* :func:`vtab_with_group_means` — VTAB-1k style: 19 tasks, each group's mean and their ``Mean``.
* :func:`with_average_row` — six models and five tasks with an ``Average`` row under the models.
* :func:`mmlu_with_categories` — MMLU style: ``Model, Average, STEM, Humanities, Social
  Sciences, Other``, then the subjects in alphabetical order (each category's subjects spread
  over the table); the categories equal-weighted or weighted by each subject's questions.
* :func:`mteb_leaderboard` — the MTEB leaderboard's export: ``Rank (Borda)``, ``Model``, a
  ``Zero-shot`` percent column with ``NA`` and ``⚠️`` cells, memory, parameters (``7B``),
  dimensions, ``Max Tokens`` (``Infinite``), ``Mean (Task)`` (the task types weighted by their
  tasks: 3 to 43 of 132), ``Mean (TaskType)`` (their plain mean), then the nine task types.
* :func:`gift_eval` — GIFT-Eval's long results: ``dataset`` (``m4_yearly/A/short``), ``model``, eleven
  ``eval_metrics/<metric>`` columns (MSE, MAE, MASE, sMAPE, MSIS, ND, the weighted quantile loss …,
  every one lower-is-better), then ``domain`` and ``num_variates``.
* :func:`livebench` — LiveBench style: ``Model, Organization, Global Average``, a named
  ``<category> Average`` per category (the mean of its tasks), then the 17 tasks by category.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd


def _csv(df: pd.DataFrame) -> str:
    buf = io.StringIO()
    df.to_csv(buf, index=False)
    return buf.getvalue()


def per_class_imagenet(n_weights: int = 112, n_classes: int = 1000, n_archs: int = 79, seed: int = 0) -> str:
    """The per-class ImageNet table (see the module docstring)."""
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.55, 0.88, n_weights)
    hard = rng.normal(0, 1.2, n_classes)
    logit = np.log(skill / (1 - skill))[:, None] - hard[None, :] + rng.normal(0, 0.5, (n_weights, n_classes))
    per_class = np.round(50 / (1 + np.exp(-logit))) / 50
    archs = [f"arch{a:02d}_{'vit' if a % 3 else 'resnet'}" for a in range(n_archs)]
    model = [archs[i % n_archs] for i in range(n_weights)]
    head = pd.DataFrame({
        "Weight": [f"{m.upper()}_Weights.IMAGENET1K_V{1 + i // n_archs}" for i, m in enumerate(model)],
        "Model": model,
        "Acc@1": np.round(100 * per_class.mean(axis=1), 3),
        "Acc@5": np.round(100 * np.minimum(0.995, per_class.mean(axis=1) + rng.uniform(0.08, 0.12, n_weights)), 3),
        "Params": np.round(rng.uniform(2, 600, n_weights), 1),
        "GFLOPS": np.round(rng.uniform(0.06, 300, n_weights), 2),
        "Recipe": rng.choice(["https://github.com/pytorch/vision/tree/main/references/classification",
                              "https://github.com/facebookresearch/SWAG"], n_weights),
        "acc": per_class.mean(axis=1),
    })
    classes = pd.DataFrame(per_class, columns=[f"acc_{j}" for j in range(n_classes)])
    return _csv(pd.concat([head, classes], axis=1))


BBH_TASKS = ("Boolean Expressions", "Causal Judgement", "Date Understanding", "Disambiguation QA",
             "Formal Fallacies", "Geometric Shapes", "Hyperbaton", "Logical Deduction", "Movie Recommendation",
             "Multistep Arithmetic", "Navigate", "Object Counting", "Penguins in a Table",
             "Reasoning about Colored Objects", "Ruin Names", "Salient Translation Error Detection", "Snarks",
             "Sports Understanding", "Temporal Sequences", "Tracking Shuffled Objects", "Web of Lies",
             "Word Sorting", "Dyck Languages")


def bbh_with_error_detection(n_models: int = 30, seed: int = 1) -> str:
    """BIG-Bench-Hard style, sorted by rank; the task names carry no metric."""
    rng = np.random.default_rng(seed)
    skill = np.sort(rng.uniform(20, 85, n_models))[::-1]
    scores = np.clip(skill[:, None] + rng.normal(0, 6, (n_models, len(BBH_TASKS))), 0, 100).round(1)
    df = pd.DataFrame(scores, columns=list(BBH_TASKS))
    df.insert(0, "Average", df.mean(axis=1).round(2))
    df.insert(0, "Model", [f"lm-{i:02d}-{'chat' if i % 2 else 'base'}" for i in range(n_models)])
    order = np.argsort(-df["Average"].to_numpy(), kind="stable")
    df = df.iloc[order].reset_index(drop=True)
    df.insert(0, "Rank", np.arange(1, n_models + 1))
    return _csv(df)


def helm_with_time(n_models: int = 12, seed: int = 2) -> str:
    """HELM style: ``<scenario> - <metric>`` headers, one of them an inference time."""
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.3, 0.9, n_models)
    cols = {"Model": [f"Model {chr(65 + i)} ({7 * (i + 1)}B)" for i in range(n_models)]}
    for scen, metric in (("MMLU", "EM"), ("BoolQ", "EM"), ("NarrativeQA", "F1"), ("QuAC", "F1"),
                         ("HellaSwag", "EM"), ("IMDB", "EM")):
        cols[f"{scen} - {metric}"] = np.clip(skill + rng.normal(0, 0.05, n_models), 0, 1).round(3)
    cols["MMLU - Denoised inference time (s)"] = rng.uniform(0.2, 3.0, n_models).round(3)
    return _csv(pd.DataFrame(cols))


def bare_score(seed: int = 3) -> str:
    """A long table: dataset, model, score — nothing says which way is better."""
    rng = np.random.default_rng(seed)
    rows = [(f"d{d}", f"m{m}", round(float(rng.uniform(0, 1)), 4)) for d in range(6) for m in range(5)]
    return _csv(pd.DataFrame(rows, columns=["dataset", "model", "score"]))


def with_code_column(n_models: int = 15, seed: int = 4) -> str:
    """Models as rows, accuracies in 0–1, and a ``code`` column of whole numbers."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.uniform(0.4, 0.95, (n_models, 6)).round(3), columns=[f"task{j}" for j in range(6)])
    df.insert(0, "code", rng.choice(np.arange(1000, 9999), n_models, replace=False))
    df.insert(0, "model", [f"net-{i}" for i in range(n_models)])
    return _csv(df)


def wide_square(n_datasets: int = 2000, n_models: int = 2000, seed: int = 5) -> str:
    """Datasets as rows (``dataset`` column), one accuracy column per model."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 1, n_models)
    hard = rng.normal(0, 1, n_datasets)
    acc = 1 / (1 + np.exp(-(skill[None, :] - hard[:, None] + rng.normal(0, 0.7, (n_datasets, n_models)))))
    df = pd.DataFrame(acc.round(4), columns=[f"model_{j}" for j in range(n_models)])
    df.insert(0, "dataset", [f"ds_{i}" for i in range(n_datasets)])
    return _csv(df)


VTAB_GROUPS = {"Natural": ("Caltech101", "CIFAR-100", "DTD", "Flowers102", "Pets", "SVHN", "Sun397"),
               "Specialized": ("Camelyon", "EuroSAT", "Resisc45", "Retinopathy"),
               "Structured": ("Clevr-Count", "Clevr-Dist", "DMLab", "KITTI-Dist", "dSpr-Loc", "dSpr-Ori",
                              "sNORB-Azim", "sNORB-Elev")}


def vtab_with_group_means(n_methods: int = 8, seed: int = 6) -> str:
    """VTAB-1k style: ``Method``, the 19 tasks, then each group's mean (``Natural``,
    ``Specialized``, ``Structured``) and ``Mean`` (of the three group means), one decimal."""
    rng = np.random.default_rng(seed)
    skill = rng.uniform(-8, 8, n_methods)
    cols: dict[str, object] = {"Method": [f"method-{chr(65 + i)}" for i in range(n_methods)]}
    groups = {}
    for g, tasks in VTAB_GROUPS.items():
        base = rng.uniform(30, 90, len(tasks))
        block = np.clip(base[None, :] + skill[:, None] + rng.normal(0, 3, (n_methods, len(tasks))), 1, 99).round(1)
        for j, t in enumerate(tasks):
            cols[t] = block[:, j]
        groups[g] = block.mean(axis=1).round(1)
    cols.update(groups)
    cols["Mean"] = np.mean(np.column_stack(list(groups.values())), axis=1).round(1)
    return _csv(pd.DataFrame(cols))


MMLU_CATEGORIES = {
    "STEM": ("abstract_algebra", "astronomy", "college_physics", "computer_security", "electrical_engineering",
             "high_school_chemistry", "machine_learning"),
    "Humanities": ("formal_logic", "high_school_world_history", "jurisprudence", "moral_disputes", "philosophy",
                   "world_religions"),
    "Social Sciences": ("econometrics", "high_school_geography", "public_relations", "sociology",
                        "us_foreign_policy"),
    "Other": ("anatomy", "business_ethics", "clinical_knowledge", "global_facts", "nutrition", "virology"),
}


def mmlu_with_categories(n_models: int = 40, weighted: bool = False, seed: int = 7) -> str:
    """MMLU style (see the module docstring): accuracies in percent with one decimal; with
    ``weighted`` each category and the average are means over the questions (subjects of
    100–300 questions)."""
    rng = np.random.default_rng(seed)
    subjects = sorted(s for group in MMLU_CATEGORIES.values() for s in group)
    skill = rng.uniform(-25, 25, n_models)
    acc = np.clip(rng.uniform(35, 75, len(subjects))[None, :] + skill[:, None]
                  + rng.normal(0, 4, (n_models, len(subjects))), 1, 99).round(1)
    questions = rng.integers(100, 300, len(subjects)).astype(float) if weighted else np.ones(len(subjects))
    cols: dict[str, object] = {"Model": [f"llm-{i}" for i in range(n_models)]}
    cats = {}
    for g, members in MMLU_CATEGORIES.items():
        idx = [subjects.index(x) for x in members]
        cats[g] = (acc[:, idx] @ questions[idx] / questions[idx].sum()).round(1)
    cols["Average"] = (acc @ questions / questions.sum()).round(1)
    cols.update(cats)
    cols.update({x: acc[:, j] for j, x in enumerate(subjects)})
    return _csv(pd.DataFrame(cols))


def with_average_row() -> str:
    """A leaderboard of six models (``m0`` … ``m5``), five ``<task> - acc`` columns, and an
    ``Average`` row under the models."""
    rows = "".join(f"m{i},{0.3 + 0.1 * i:.2f},{0.35 + 0.09 * i:.2f},{0.2 + 0.11 * i:.2f},{0.4 + 0.08 * i:.2f},"
                   f"{0.25 + 0.1 * i:.2f}\n" for i in range(6))
    return ("Model,MMLU - acc,ARC - acc,GSM8K - acc,HellaSwag - acc,TruthfulQA - acc\n" + rows
            + "Average,0.55,0.58,0.48,0.60,0.50\n")


MTEB_TYPES = {"Bitext Mining": 13, "Classification": 43, "Clustering": 17, "Instruction Retrieval": 3,
              "Multilabel Classification": 5, "Pair Classification": 11, "Reranking": 6, "Retrieval": 18, "STS": 16}


def mteb_leaderboard(n_models: int = 30, seed: int = 11) -> str:
    """The MTEB leaderboard's export (see the module docstring), sorted by ``Mean (Task)``, two decimals."""
    rng = np.random.default_rng(seed)
    tasks = np.array(list(MTEB_TYPES.values()), dtype=float)
    types = np.clip(55 + rng.normal(0, 5, n_models)[:, None] + rng.normal(0, 6, (n_models, len(tasks))), 5, 95)
    by_task, by_type = types @ tasks / tasks.sum(), types.mean(axis=1)
    order = np.argsort(-by_task, kind="stable")
    cols: dict[str, object] = {
        "Rank (Borda)": np.arange(1, n_models + 1), "Model": [f"org{i}/embed-{i}" for i in order],
        "Zero-shot": rng.choice(["100%", "95%", "NA", "⚠️ 72%"], n_models),
        "Memory Usage (MB)": rng.integers(200, 30000, n_models),
        "Number of Parameters": rng.choice(["7B", "335M", "1B", "568M", "Unknown", "110M"], n_models),
        "Embedding Dimensions": rng.choice([384, 768, 1024, 4096], n_models),
        "Max Tokens": rng.choice(["512", "8192", "32768", "Infinite"], n_models),
        "Mean (Task)": by_task[order].round(2), "Mean (TaskType)": by_type[order].round(2)}
    cols.update({name: types[order, j].round(2) for j, name in enumerate(MTEB_TYPES)})
    return _csv(pd.DataFrame(cols))


LIVEBENCH = {"Reasoning": ("web_of_lies_v2", "zebra_puzzle", "spatial"), "Coding": ("LCB_generation", "coding_completion"),
             "Mathematics": ("AMPS_Hard", "math_comp", "olympiad"), "Data Analysis": ("tablejoin", "tablereformat"),
             "Language": ("connections", "plot_unscrambling", "typos"),
             "IF": ("paraphrase", "simplify", "story_generation", "summarize")}


def livebench(n_models: int = 40, seed: int = 8) -> str:
    """LiveBench style (see the module docstring), one decimal, sorted by the global average."""
    rng = np.random.default_rng(seed)
    tasks = [t for group in LIVEBENCH.values() for t in group]
    acc = np.clip(rng.uniform(30, 70, len(tasks))[None, :] + rng.uniform(-25, 25, n_models)[:, None]
                  + rng.normal(0, 6, (n_models, len(tasks))), 0, 100).round(1)
    cats = {f"{c} Average": acc[:, [tasks.index(t) for t in group]].mean(axis=1) for c, group in LIVEBENCH.items()}
    overall = np.mean(list(cats.values()), axis=0)
    order = np.argsort(-overall, kind="stable")
    cols: dict[str, object] = {"Model": [f"model-{i}" for i in order],
                               "Organization": rng.choice(["OpenAI", "Google", "Meta", "Alibaba"], n_models),
                               "Global Average": overall[order].round(1)}
    cols.update({name: v[order].round(1) for name, v in cats.items()})
    cols.update({t: acc[order, j] for j, t in enumerate(tasks)})
    return _csv(pd.DataFrame(cols))


GIFT_METRICS = ("MSE[mean]", "MSE[0.5]", "MAE[0.5]", "MASE[0.5]", "MAPE[0.5]", "sMAPE[0.5]", "MSIS", "RMSE[mean]",
                "NRMSE[mean]", "ND[0.5]", "mean_weighted_sum_quantile_loss")


def gift_eval(n_models: int = 8, seed: int = 9) -> str:
    """GIFT-Eval's long results (see the module docstring): 12 series configurations × ``n_models``."""
    rng = np.random.default_rng(seed)
    names = [f"{d}/{f}/{t}" for d, f in (("m4_yearly", "A"), ("electricity", "H"), ("solar", "10T"), ("ett1", "H"))
             for t in ("short", "medium", "long")]
    skill = rng.uniform(0.6, 1.4, n_models)
    rows = []
    for name in names:
        scale, hard = 10 ** rng.uniform(0, 4), rng.uniform(0.5, 2)
        for m in range(n_models):
            e = skill[m] * hard * rng.uniform(0.9, 1.1)
            values = [(e * scale) ** 2, (e * scale) ** 2 * 0.98, e * scale * 0.8, e, e * 0.3, e * 0.25, e * 8,
                      e * scale, e * 0.9, e * 0.2, e * 0.15]
            rows.append({"dataset": name, "model": f"tsfm-{m}",
                         **{f"eval_metrics/{k}": float(f"{v:.6g}") for k, v in zip(GIFT_METRICS, values, strict=True)},
                         "domain": rng.choice(["Econ/Fin", "Energy", "Nature"]), "num_variates": int(rng.choice([1, 7]))})
    return _csv(pd.DataFrame(rows))
