"""The import structure the README promises: imports go one way (from the pages down to the text pipeline), no
module imports itself back through a cycle, and an import inside a function says why it is there."""

import ast
import collections
import pathlib
import re

import pytest

from tests.support.import_cycles import import_cycles
from tests.support.paths import REPO_ROOT

ROOT = REPO_ROOT
# Each package may import only from packages on a lower floor (the foundation modules of floor 0 may import each
# other; the cycle test keeps them honest). The top-level ``elmo_keras`` package re-exports everything.
FLOORS = {
    "_quiet": 0, "_lazy": 0, "_registration": 0, "_backend": 0,
    "argument_checks": 0, "config_dicts": 0, "limits": 0, "safe_files": 0,
    "text": 1,
    "data": 2, "layers": 2, "decoding": 2,
    "models": 3,
    "tagging": 4, "pretrained": 4,
    "embedding": 5,
    "analysis": 6,
    "real_text": 7,
    "explorer": 8, "cli": 9,
    "__main__": 10,
}


# The explorer's Streamlit scripts (the frame and the pages): Streamlit runs them, nothing imports them (importing
# one outside Streamlit would run a page).
STREAMLIT_APP = ROOT / "elmo_keras" / "explorer" / "app"
STREAMLIT_SCRIPTS = (STREAMLIT_APP / "app.py", *sorted((STREAMLIT_APP / "pages").glob("*.py")))


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules():
    return {_module_name(path): path for path in sorted((ROOT / "elmo_keras").rglob("*.py"))}


def _imported_modules(statements) -> set[str]:
    imported = set()
    for node in statements:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("elmo_keras"):
            imported.add(node.module)
            imported.update(f"{node.module}.{alias.name}" for alias in node.names)  # submodules imported by name
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names if alias.name.startswith("elmo_keras"))
    return imported


def _top_level_imports(path: pathlib.Path) -> set[str]:
    """The ``elmo_keras`` modules ``path`` imports when it is imported (its module-level statements)."""
    return _imported_modules(ast.parse(path.read_text(encoding="utf-8")).body)


def _all_imports(path: pathlib.Path) -> set[str]:
    """The ``elmo_keras`` modules ``path`` imports anywhere: at import time or inside a function (an import put off
    until a call is still a dependency, and counts in the floors and the cycles alike)."""
    return _imported_modules(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))


def _graph():
    modules = _modules()
    return {name: {m for m in _all_imports(path) if m in modules and m != name} for name, path in modules.items()}


def test_no_module_imports_itself_back_through_a_cycle():
    cycles = import_cycles(_graph())
    assert not cycles, cycles


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def test_imports_go_down_the_floors():
    wrong = collections.defaultdict(set)
    for name, imported in _graph().items():
        source = _package(name)
        if source == "elmo_keras":
            continue
        assert source in FLOORS, f"{name}: add its package to FLOORS"
        for target in {_package(m) for m in imported} - {source, "elmo_keras"}:
            both_foundation = FLOORS[source] == FLOORS[target] == 0
            if not both_foundation and FLOORS[target] >= FLOORS[source]:
                wrong[name].add(target)
    assert not wrong, dict(wrong)


def test_pages_import_only_the_explorer():
    scripts = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted(STREAMLIT_APP.rglob("*.py"))]
    for path in scripts:
        for imported in _top_level_imports(path):
            assert imported.startswith(("elmo_keras.explorer", "elmo_keras._quiet")), f"{path.name}: {imported}"


# What may justify an import inside a function: a heavy or optional dependency loaded on first use (Keras and the
# engines, pandas, scikit-learn, seqeval, h5py, Plotly), the backend in use, or a cycle the import avoids.
REASONS = re.compile(r"\b(keras|tensorflow|jax|pytorch|torch|pandas|scikit-learn|sklearn|seqeval|h5py|plotly|"
                     r"first use|on first|cheap|light|heavy|start-up|startup|optional|backend|cycle)", re.IGNORECASE)


def _reason(line: str, before: str) -> str:
    """The comment on an import's line, or the comment line just above it."""
    if "#" in line:
        return line.split("#", 1)[1]
    return before[1:] if before.startswith("#") else ""


@pytest.mark.parametrize("path", sorted((ROOT / "elmo_keras").rglob("*.py")), ids=lambda p: _module_name(p))
def test_an_import_inside_a_function_says_why(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    for node in ast.walk(ast.parse("\n".join(lines))):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        previous_line, previous_reason = None, ""
        for statement in sorted((n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))),
                                key=lambda n: n.lineno):
            line, before = lines[statement.lineno - 1], lines[statement.lineno - 2].strip()
            # a comment on the line or just above it, or a block of imports right under an explained one
            reason = _reason(line, before) or (previous_reason if previous_line == statement.lineno - 1 else "")
            assert REASONS.search(reason), (
                f"{path.name}:{statement.lineno}: {line.strip()} — say why it is inside the function: the heavy or "
                f"optional dependency it puts off, the backend it needs, or the cycle it avoids (found {reason!r})")
            previous_line, previous_reason = statement.lineno, reason
