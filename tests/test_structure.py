"""The house rules of docs/architecture.md, checked on the source tree.

* Layers point one way: ``pages`` → ``subsetsel_app`` → ``subsetsel_core``; the core never
  imports streamlit, and only ``subsetsel_core.viz`` imports plotly.
* No import cycles between the project's modules, counting imports inside functions.
* No ``_private`` name imported from another module, and no private API of a dependency.
* No module over 400 lines.
* Importing the core loads neither streamlit nor plotly.
* Comments and docstrings say what is true now: no "issue N", no "first version".
* Tests do not import the benchmark scripts.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("subsetsel_core", "subsetsel_app", "pages")
MAX_LINES = 400
#: Modules still over MAX_LINES (path → lines today). This list may only shrink.
TOO_LONG: dict[str, int] = {}


def _sources() -> list[Path]:
    files = [ROOT / "app.py"]
    for pkg in PACKAGES:
        files += sorted((ROOT / pkg).rglob("*.py"))
    return files


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in _sources()}


def _imports(path: Path) -> Iterator[tuple[str, list[str], int]]:
    """Every import in a file (module level or not): (module, imported names, line)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield module, [a.name for a in node.names], node.lineno


def _project_targets(module: str, names: list[str]) -> list[str]:
    """The project modules an import statement loads by name."""
    out = []
    for name in names:
        if f"{module}.{name}" in MODULES:
            out.append(f"{module}.{name}")
    if module in MODULES and (not names or len(out) < len(names)):
        out.append(module)
    return out


def test_layers_point_one_way() -> None:
    bad = []
    for mod, path in MODULES.items():
        layer = mod.split(".")[0]
        for imported, _, line in _imports(path):
            top = imported.split(".")[0]
            if layer == "subsetsel_core" and top in ("subsetsel_app", "pages", "streamlit"):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {imported}")
            if layer == "subsetsel_core" and top == "plotly" and not mod.startswith("subsetsel_core.viz"):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports plotly outside subsetsel_core.viz")
            if layer == "subsetsel_app" and top == "pages":
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {imported}")
    assert not bad, "\n".join(bad)


#: The core's layers, lowest first: a module imports only from its own layer or lower ones. A
#: module's layer is the longest entry its name starts with (``settings.server``, the deploy
#: settings the readers obey, sits below ``io``; ``settings``, the table of user-facing settings
#: whose choices read the strategy and metric registries, above ``strategies``).
CORE_LAYERS = tuple(f"subsetsel_core.{m}" for m in (
    "text", "errors", "_extras", "version", "synthetic", "settings.server", "io", "ranks", "strategies", "settings",
    "benchmark", "representations", "loading", "selection", "evaluation", "outputs", "workspace", "viz", "cli"))


def _layer(module: str) -> int | None:
    best = None
    for i, prefix in enumerate(CORE_LAYERS):
        if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > len(CORE_LAYERS[best])):
            best = i
    return best


def test_core_layers_point_down() -> None:
    bad = []
    for mod, path in MODULES.items():
        here = _layer(mod)
        if here is None:
            continue  # the package's own __init__ and __main__ gather every layer
        for imported, names, line in _imports(path):
            for target in _project_targets(imported, names):
                there = _layer(target)
                if there is not None and there > here:
                    bad.append(f"{path.relative_to(ROOT)}:{line} ({CORE_LAYERS[here]}) imports {target} "
                               f"({CORE_LAYERS[there]}, a higher layer)")
    assert not bad, "\n".join(bad)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles() -> None:
    graph: dict[str, set[str]] = {}
    for mod, path in MODULES.items():
        deps = graph.setdefault(mod, set())
        for imported, names, _ in _imports(path):
            deps.update(t for t in _project_targets(imported, names) if t != mod)
    # a package's __init__ that imports its own submodules to build a registry is not a cycle
    # unless a submodule imports the package back
    assert not _cycles(graph), _cycles(graph)


def test_no_private_names_across_modules() -> None:
    bad = []
    for mod, path in MODULES.items():
        for imported, names, line in _imports(path):
            if imported.split(".")[0] in PACKAGES and imported != mod:
                bad += [f"{path.relative_to(ROOT)}:{line} imports {n} from {imported}"
                        for n in names if n.startswith("_") and not n.startswith("__")]
            parts = imported.split(".")
            if parts[0] not in PACKAGES and any(p.startswith("_") for p in parts[1:]):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports private module {imported}")
            if imported.startswith("streamlit.runtime"):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {imported} (Streamlit's internals)")
    assert not bad, "\n".join(bad)



def test_no_private_api_of_dependencies() -> None:
    bad = []
    for path in MODULES.values():
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            for m in re.finditer(r"_validate\s*=|ISeedSequence|_sparsetools|PagesManager", code):
                bad.append(f"{path.relative_to(ROOT)}:{i}: {m.group(0)}")
    assert not bad, "\n".join(bad)


def test_module_sizes() -> None:
    over = {}
    for path in MODULES.values():
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES:
            over[str(path.relative_to(ROOT))] = n
    unexpected = {p: n for p, n in over.items() if p not in TOO_LONG or n > TOO_LONG[p]}
    assert not unexpected, f"modules over {MAX_LINES} lines: {unexpected}"
    fixed = sorted(set(TOO_LONG) - set(over))
    assert not fixed, f"remove from TOO_LONG (now short enough): {fixed}"


def test_core_import_loads_no_dashboard_stack() -> None:
    code = ("import sys, subsetsel_core, subsetsel_core.cli.main; "
            "print(sorted(m for m in ('streamlit', 'plotly') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


HISTORY = re.compile(r"\bissue #?\d+|\b(first|earlier|previous|old) version\b", re.I)


def test_comments_tell_no_history() -> None:
    bad = []
    for path in MODULES.values():
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if HISTORY.search(line):
                bad.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("path", sorted((ROOT / "tests").glob("*.py")), ids=lambda p: p.name)
def test_tests_do_not_import_benchmarks(path: Path) -> None:
    for imported, _, line in _imports(path):
        assert not imported.startswith("benchmarks"), f"{path.name}:{line} imports {imported}"


# --- registry names, library internals ------------------------------------------------------------

#: Modules that define a registry: the only places a registry name may be written as a string.
REGISTRY_MODULES = ("subsetsel_core/strategies/", "subsetsel_core/ranks/metrics.py")
#: Files read for the registry-name and patching rules: the packages, the tests and the benchmarks.
CHECKED_DIRS = (*PACKAGES, "tests", "benchmarks")


def _checked_files() -> list[Path]:
    files = [ROOT / "app.py"]
    for d in CHECKED_DIRS:
        files += sorted((ROOT / d).rglob("*.py"))
    return [f for f in files if not str(f.relative_to(ROOT)).startswith(REGISTRY_MODULES)]


def _registry_names() -> set[str]:
    from subsetsel_core.ranks.metrics import METRICS
    from subsetsel_core.strategies import REGISTRY

    return set(REGISTRY) | set(METRICS)


def _registry_prefixes(names: set[str]) -> set[str]:
    """Family prefixes of the names (``fafi-`` of ``fafi-cosine``)."""
    return {n[: n.index("-") + 1] for n in names if "-" in n}


def _str(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def name_comparisons(tree: ast.AST, names: set[str]) -> Iterator[tuple[int, str]]:
    """Registry names compared as string literals: ``x == "random"``, ``m in ("mae", …)``,
    ``s.startswith("fafi-")``."""
    prefixes = _registry_prefixes(names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for op, right in zip(node.ops, node.comparators, strict=True):
                left = node.left
                sides = [left, right]
                if isinstance(op, ast.In | ast.NotIn) and isinstance(right, ast.Tuple | ast.List | ast.Set):
                    sides += list(right.elts)
                for side in sides:
                    if _str(side) in names:
                        yield node.lineno, f"compares {_str(side)!r}"
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("startswith", "endswith") and node.args):
            text = _str(node.args[0])
            if text and (text in names or text in prefixes):
                yield node.lineno, f"{node.func.attr}({text!r})"


def name_lists(tree: ast.AST, names: set[str]) -> Iterator[tuple[int, str]]:
    """Hand-written lists, tuples, sets or dict keys of two or more registry names (and nothing else)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            elts = node.elts
        elif isinstance(node, ast.Dict):
            elts = [k for k in node.keys if k is not None]
        else:
            continue
        found = [s for s in map(_str, elts) if s in names]
        if len(found) >= 2 and len(found) == len(elts):  # words that merely include a name are not a list of names
            yield node.lineno, f"lists {', '.join(found[:4])}"


def test_no_registry_name_compared_as_text() -> None:
    names = _registry_names()
    bad = []
    for path in _checked_files():
        if path.relative_to(ROOT).parts[0] in ("tests", "benchmarks"):
            continue  # a test's assertion names the expected entry
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bad += [f"{path.relative_to(ROOT)}:{line}: {what}" for line, what in name_comparisons(tree, names)]
    assert not bad, "ask the registry record instead of the name:\n" + "\n".join(bad)


#: Files that still write lists of registry names by hand (path → how many). May only shrink: a
#: test that runs a few strategies picks them from the registry (``STRATEGIES[:2]``, the
#: ``deterministic`` ones, …).
NAME_LISTS: dict[str, int] = {
    "benchmarks/bench_interactions.py": 2,
    "benchmarks/bench_protocol.py": 4,
    "benchmarks/bench_scale.py": 2,
    "benchmarks/naive_protocol.py": 3,
    "benchmarks/reproduce_paper.py": 3,
    "tests/app/test_app_compute.py": 1,
    "tests/app/test_app_decision_tools.py": 5,
    "tests/app/test_app_evaluate.py": 4,
    "tests/app/test_app_parts.py": 5,
    "tests/app/test_app_persistence.py": 1,
    "tests/app/test_app_report.py": 1,
    "tests/app/test_app_select_views.py": 2,
    "tests/app/test_app_theory.py": 5,
    "tests/app/test_session_store.py": 1,
    "tests/browser/test_browser_outputs.py": 1,
    "tests/core/cli/test_main.py": 2,
    "tests/core/evaluation/test_decision_tools.py": 5,
    "tests/core/evaluation/test_headroom.py": 10,
    "tests/core/evaluation/test_permutation.py": 8,
    "tests/core/evaluation/test_protocol.py": 13,
    "tests/core/evaluation/test_theory.py": 4,
    "tests/core/outputs/test_report_outputs.py": 4,
    "tests/core/ranks/test_metrics.py": 1,
    "tests/core/ranks/test_partial_policy.py": 1,
    "tests/core/representations/test_names.py": 1,
    "tests/core/test_float_limits.py": 1,
    "tests/core/workspace/test_files.py": 1,
    "tests/core/workspace/test_hostile_workspace.py": 1,
}


def test_no_hand_written_list_of_registry_names() -> None:
    names = _registry_names()
    found: dict[str, list[str]] = {}
    for path in _checked_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = str(path.relative_to(ROOT))
        found.update({rel: [f"{rel}:{line}: {what}" for line, what in hits]}
                     if (hits := list(name_lists(tree, names))) else {})
    bad = [h for rel, hits in found.items() if len(hits) > NAME_LISTS.get(rel, 0) for h in hits]
    assert not bad, "read the registry (STRATEGIES, METRICS, …) instead:\n" + "\n".join(bad)
    fixed = sorted(rel for rel, n in NAME_LISTS.items() if len(found.get(rel, [])) < n)
    assert not fixed, f"lower NAME_LISTS (fewer hand-written lists now): {fixed}"


#: Names of the project's own modules and folders (the tests import each other by file name).
LOCAL = {p.stem for d in CHECKED_DIRS for p in (ROOT / d).rglob("*.py")} | {*CHECKED_DIRS, "app", "__future__"}


def _third_party(module: str) -> bool:
    top = module.split(".")[0]
    return bool(top) and top not in sys.stdlib_module_names and top not in LOCAL


def library_patches(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Patches of a dependency's internals: an assignment to an attribute of an imported
    third-party module, ``mock.patch`` / ``monkeypatch.setattr`` of a third-party path or object,
    and an import of a dependency's private module or name."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
                if _third_party(a.name) and any(p.startswith("_") for p in a.name.split(".")[1:]):
                    yield node.lineno, f"imports private module {a.name}"
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
            if _third_party(node.module):
                if any(p.startswith("_") for p in node.module.split(".")[1:]):
                    yield node.lineno, f"imports private module {node.module}"
                for a in node.names:
                    if a.name.startswith("_") and not a.name.startswith("__"):
                        yield node.lineno, f"imports private name {a.name} from {node.module}"

    def root(expr: ast.AST) -> str | None:
        while isinstance(expr, ast.Attribute):
            expr = expr.value
        return aliases.get(expr.id) if isinstance(expr, ast.Name) else None

    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for t in targets:
            if (isinstance(t, ast.Attribute) and (mod := root(t.value)) and _third_party(mod)
                    and ".session_state" not in ast.unparse(t)):  # session state is Streamlit's public API
                yield node.lineno, f"assigns {ast.unparse(t)} (an attribute of {mod})"
        if isinstance(node, ast.Call) and node.args:
            func = ast.unparse(node.func)
            if not (func.endswith(("patch", "patch.object", "setattr", "delattr")) and func != "setattr"):
                continue
            first = node.args[0]
            text = _str(first)
            if text is not None and _third_party(text) and "." in text:
                yield node.lineno, f"{func}({text!r})"
            elif text is None and (mod := root(first)) and _third_party(mod):
                yield node.lineno, f"{func}({ast.unparse(first)}, …) (an object of {mod})"


def test_no_patch_of_a_library_and_no_private_module() -> None:
    bad = []
    for path in _checked_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bad += [f"{path.relative_to(ROOT)}:{line}: {what}" for line, what in library_patches(tree)]
    assert not bad, "use the library's public API:\n" + "\n".join(bad)
