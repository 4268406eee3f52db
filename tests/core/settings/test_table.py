"""The table of settings: every face reads its defaults, bounds, flags and keys from it."""

from __future__ import annotations

import argparse
import math
from dataclasses import fields
from typing import Any

import pytest

from subsetsel_core.cli.args import option
from subsetsel_core.cli.main import FLAGS, build_parser
from subsetsel_core.errors import FIELDS, InputError
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.outputs.run_config import SPEC, RunConfig, read_run_config
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.representations.recipe import RepresentationRecipe
from subsetsel_core.settings.table import GROUPS, SETTINGS, Setting, check, defaults, problem
from subsetsel_core.strategies import STRATEGIES

NUMBERS = [s for s in SETTINGS.values() if s.kind in ("int", "float") and s.low is not None and s.high is not None]


def test_every_setting_has_a_face_and_a_known_field() -> None:
    for s in SETTINGS.values():
        assert s.flag or s.toml or s.only == "dashboard", f"{s.name}: no flag, no run.toml key, not dashboard-only"
        assert s.workspace or s.only == "cli", f"{s.name}: no workspace key and not marked CLI-only"
        assert s.only in (None, "cli", "dashboard")
        assert s.error_field in FIELDS, f"{s.name}: error field {s.error_field!r} is not in errors.FIELDS"
        assert s.help and s.kind in ("int", "float", "bool", "str", "names", "choice")
        if s.flag:
            assert s.flag.startswith("--") and s.error_field in FLAGS
        lo, hi = s.widget_range()
        if s.low is not None and lo is not None:
            assert s.low <= lo, f"{s.name}: the widget allows less than the setting"
        if s.high is not None and hi is not None:
            assert hi <= s.high, f"{s.name}: the widget allows more than the setting"
    assert sum(len(g) for g in GROUPS.values()) == len(SETTINGS)


def test_the_settings_error_fields_come_from_the_table() -> None:
    from subsetsel_core import errors

    described: dict[str, set[str]] = {}
    for s in SETTINGS.values():
        if s.about:
            described.setdefault(s.error_field, set()).add(s.about)
    assert all(len(texts) == 1 for texts in described.values()), described
    for s in SETTINGS.values():  # a setting's field is described by the table, or is a data field of errors.py
        assert s.error_field in described or s.error_field in ("config",), s.name
        assert FIELDS[s.error_field] == next(iter(described.get(s.error_field, {FIELDS[s.error_field]})))
    with pytest.raises(ValueError, match="described twice"):
        errors.add_fields({"trials": "something else"})
    errors.add_fields({"trials": FIELDS["trials"]})  # the same description again is no change
    with pytest.raises(ValueError, match="unknown InputError field"):
        InputError("x", field="no_such_field")


def test_an_error_of_a_setting_field_needs_no_import_of_the_table() -> None:
    import subprocess
    import sys

    code = ("from subsetsel_core.errors import InputError\n"
            "print(InputError('bad k', field='k_range').field, InputError('bad', field='fraction').field)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split() == ["k_range", "fraction"]


def test_the_library_defaults_are_the_tables() -> None:
    cfg = EvaluationConfig()
    protocol = defaults(GROUPS["protocol"])
    for f in fields(cfg):
        if f.name in protocol:
            assert getattr(cfg, f.name) == protocol[f.name], f.name
    assert cfg.strategies == STRATEGIES and cfg.metrics == tuple(METRICS)
    rec = RepresentationRecipe(("t",))
    for name, value in defaults(GROUPS["recipe"]).items():
        if name != "tables":
            assert getattr(rec, name) == value, name


def test_run_toml_keys_and_defaults_come_from_the_table() -> None:
    cfg = RunConfig()
    for s in SETTINGS.values():
        if s.toml is None:
            continue
        section, _, key = s.toml.rpartition(".")
        attr, kind, low, high = SPEC[section][key]
        if s.kind in ("int", "float") and s.default is not None:
            assert getattr(cfg, attr) == s.default, s.name
            assert high == s.high
            raw = f"[{section}]\n{key} = {s.high * 2 if s.high else 2}\n" if section else f"{key} = -1\n"
            with pytest.raises(InputError):
                read_run_config(raw.encode())


@pytest.mark.parametrize("s", NUMBERS, ids=lambda s: s.name)
def test_check_states_the_bounds(s: Setting) -> None:
    assert check(s, s.low if not s.low_open else (s.low + s.high) / 2) is not None or s.default is None
    if s.high_open:
        assert problem(s, s.high) is not None and check(s, (s.low + s.high) / 2) == (s.low + s.high) / 2
    else:
        assert check(s, s.high) == s.high
    over = s.high + 1
    with pytest.raises(InputError) as info:
        check(s, int(over) if s.kind == "int" else over)
    assert info.value.field == s.error_field
    shown = f"{int(s.high):,}" if s.kind == "int" else f"{s.high:g}"
    assert shown in str(info.value), (shown, str(info.value))
    under = s.low if s.low_open else s.low - 1
    assert problem(s, under) is not None
    assert problem(s, True) is not None and problem(s, "3") is not None
    if s.kind == "float":
        assert problem(s, math.nan) is not None


def test_check_of_names_reads_the_registry() -> None:
    assert check("strategies", list(STRATEGIES)) == list(STRATEGIES)
    with pytest.raises(InputError, match="not one of") as info:
        check("strategies", ["random", "no-such-strategy"])
    assert info.value.field == "strategy"
    with pytest.raises(InputError):
        check("metric", "no-such-metric")
    assert check("metric", next(iter(METRICS)))


@pytest.mark.parametrize("s", [s for s in NUMBERS if s.flag], ids=lambda s: s.name)
def test_cli_option_has_the_settings_bounds(s: Setting) -> None:
    p = argparse.ArgumentParser(exit_on_error=False)
    option(p, s.name)
    dest = s.flag.lstrip("-").replace("-", "_")  # type: ignore[union-attr]
    inside = s.high if s.kind == "int" else (s.low + s.high) / 2
    assert getattr(p.parse_args([s.flag, str(inside)]), dest) == inside  # type: ignore[list-item]
    bad = str(int(s.high) + 1) if s.kind == "int" else str(s.high + 1)
    with pytest.raises((SystemExit, argparse.ArgumentError)):
        p.parse_args([s.flag, bad])  # type: ignore[list-item]
    assert p.parse_args([]).__dict__[dest] == s.default_value()


def test_the_commands_take_the_tables_defaults() -> None:
    args = build_parser().parse_args(["evaluate", "--benchmark", "x"])
    for name in ("trials", "alpha", "k_min", "k_max", "seed", "permutations", "resamples"):
        assert getattr(args, name) == SETTINGS[name].default, name
    assert args.model_fraction == SETTINGS["beta"].default
    assert args.strategies == list(STRATEGIES) and args.metrics == list(METRICS)
    assert FLAGS["k_range"] == "--k-min K and --k-max K" and FLAGS["trials"] == "--trials T"


# --- no default or bound of a setting written again outside the table ----------------------------

ROOT = __import__("pathlib").Path(__file__).resolve().parents[3]
TABLE = "subsetsel_core/settings/table.py"
#: Calls whose numeric arguments are widget ranges, option types or settings.
RANGED_CALLS = {"number_input", "slider", "add_argument", "count", "fraction", "_whole", "_number", "Key",
                "EvaluationConfig", "RunConfig", "option"}
#: Files that still write a setting's default or bound as a literal (path → how many). May only
#: shrink: read the value from subsetsel_core.settings.table instead.
LITERALS: dict[str, int] = {}


def _values() -> dict[str, set[float]]:
    """setting name → its defaults and bounds (0 and 1 are too common to tell apart)."""
    out: dict[str, set[float]] = {}
    for s in NUMBERS + [s for s in SETTINGS.values() if s.kind in ("int", "float")]:
        vals = {s.default, s.low, s.high, s.widget_low, s.widget_high, s.widget_default}
        out[s.name] = {v for v in vals if isinstance(v, int | float) and not isinstance(v, bool) and v not in (0, 1)}
    return out


def _literal_hits(tree: Any) -> list[tuple[int, str]]:
    import ast

    values = _values()
    hits: list[tuple[int, str]] = []

    def number(node: ast.AST) -> float | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow | ast.Sub | ast.Mult):
            try:
                v = eval(compile(ast.Expression(node), "<n>", "eval"), {})  # noqa: S307 - constant folding only
            except Exception:  # noqa: BLE001 - not a constant expression
                return None
            return v if isinstance(v, int | float) else None
        return None

    from subsetsel_app.state import K

    by_key = {s.workspace: s.name for s in SETTINGS.values() if s.workspace}
    by_flag: dict[str, str] = {}
    for s in SETTINGS.values():  # a flag several commands' settings share stands for all of them
        if s.flag:
            before = by_flag.get(s.flag)
            by_flag[s.flag] = f"{before} or {s.name}" if before else s.name
            values[by_flag[s.flag]] = values.get(before or s.name, set()) | values.get(s.name, set())

    def held(expr: ast.AST | None) -> str | None:
        """The setting a ``K.NAME`` session key or a ``"--flag"`` names."""
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "K":
            return by_key.get(getattr(K, expr.attr, ""))
        return by_flag.get(expr.value) if isinstance(expr, ast.Constant) and isinstance(expr.value, str) else None

    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):  # KEYS = {K.EV_TRIALS: Key(50, …)}
            for k, v in zip(node.keys, node.values, strict=True):
                name = held(k)
                if name and isinstance(v, ast.Call):
                    hits += [(v.lineno, f"{name}: {n}") for a in [*v.args, *(kw.value for kw in v.keywords)]
                             if (n := number(a)) is not None and n in values[name]]
        if isinstance(node, ast.Call):
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            name = held(next((kw.value for kw in node.keywords if kw.arg == "key"), None)) or (
                held(node.args[0]) if node.args else None)
            for kw in node.keywords:
                v = number(kw.value)
                if v is None or kw.arg == "step":
                    continue
                if (kw.arg in values and v in values[kw.arg]) or (name and func in RANGED_CALLS and v in values[name]):
                    hits.append((node.lineno, f"{func}({kw.arg}={v})"))
            if name and func in RANGED_CALLS:
                hits += [(node.lineno, f"{func}(…{v}…)") for a in node.args[1:] if (v := number(a)) is not None
                         and v in values[name]]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            v = number(node.value)
            if node.target.id in values and v is not None and v in values[node.target.id]:
                hits.append((node.lineno, f"{node.target.id} = {v}"))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args.args + node.args.kwonlyargs
            defaults = [None] * (len(node.args.args) - len(node.args.defaults)) + list(node.args.defaults) \
                + list(node.args.kw_defaults)
            for a, d in zip(args, defaults, strict=True):
                v = None if d is None else number(d)
                if a.arg in values and v is not None and v in values[a.arg]:
                    hits.append((node.lineno, f"def {node.name}({a.arg}={v})"))
    return hits


def test_no_default_or_bound_of_a_setting_outside_the_table() -> None:
    import ast

    found: dict[str, list[str]] = {}
    for pkg in ("subsetsel_core", "subsetsel_app", "pages"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            if rel == TABLE:
                continue
            hits = _literal_hits(ast.parse(path.read_text(encoding="utf-8")))
            if hits:
                found[rel] = [f"{rel}:{line}: {what}" for line, what in hits]
    bad = [h for rel, hits in found.items() if len(hits) > LITERALS.get(rel, 0) for h in hits]
    assert not bad, "read it from subsetsel_core.settings.table:\n" + "\n".join(bad)
    fixed = sorted(rel for rel, n in LITERALS.items() if len(found.get(rel, [])) < n)
    assert not fixed, f"lower LITERALS (fewer literals now): {fixed}"
