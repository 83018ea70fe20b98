"""Package attributes imported on first use (PEP 562), so that importing a package costs nothing until used.

``import elmo_keras`` used to import every layer, Keras and TensorFlow (seconds: docs/explorer.md) before the first
line of user code ran; the explorer's first page, rendered from stored results, needs none of them. A package lists
what it exports and where it lives; the first access imports that module (quietly, through ``_quiet``, like
every module that uses Keras) and keeps the value, so later accesses are plain attribute reads.

Each package states its public names once, in the ``__init__.pyi`` stub beside its ``__init__.py`` (``from
elmo_keras.pkg.module import name`` lines, what static tools and IDEs read), and its ``__init__.py`` attaches the
stub (``attach_stub``), as scientific Python's ``lazy_loader`` does.

It also makes the package safe to import from many threads at once: no package's ``__init__`` imports its own
modules. Python imports a package before its module, holding that module's import lock while it waits for the
package; a package whose ``__init__`` imported its modules would wait for that same lock in return (a
``_DeadlockError``, or a half-initialised module: ``cannot import name ...``) when two threads start at once.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pathlib
import sys
import types
from collections.abc import Callable, Iterable, Mapping

_EXPORTS: dict[str, dict[str, tuple[str, str]]] = {}  # package → {name: (module, its attribute)}


def resolve(package: str, exports: Mapping[str, tuple[str, str]], name: str):
    """The value of ``package.name`` from ``exports`` (``{name: (module, attribute)}``), imported and kept in the
    package's namespace; any other submodule is returned as is (``elmo_keras.models`` after ``import elmo_keras``,
    as when the package imported it eagerly). A module listed as ``(f"{package}.{name}", name)`` is that module,
    unless it defines ``name`` itself (``decoding.greedy``, the function in ``decoding/greedy.py``)."""
    module, attribute = exports.get(name, (None, name))
    exported = module is not None
    if not exported:
        if name.startswith("__") or importlib.util.find_spec(f"{package}.{name}") is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = f"{package}.{name}"
    imported = importlib.import_module(module)
    if not exported or (module == f"{package}.{name}" and attribute not in vars(imported)):
        value = imported  # a submodule that is not exported is the module, whatever it defines
    else:
        value = getattr(imported, attribute)
    sys.modules[package].__dict__[name] = value
    return value


class _LazyPackage(types.ModuleType):
    """A package whose exported names are never replaced by its submodules: the import system binds each module
    it loads as an attribute of its package, which would turn ``elmo_keras.decoding.greedy`` (the function) into
    the module ``decoding/greedy.py`` once anything imported that module directly."""

    def __setattr__(self, name, value):
        exported = _EXPORTS.get(self.__name__, {}).get(name)
        if (isinstance(value, types.ModuleType) and exported == (value.__name__, name)
                and name in vars(value)):
            value = vars(value)[name]
        super().__setattr__(name, value)


def lazy_exports(package: str,
                 modules: Mapping[str, Iterable[str]]) -> tuple[Callable[[str], object], Callable[[], list]]:
    """``(__getattr__, __dir__)`` for ``package``: ``modules`` maps each module to the public names it defines;
    ``"LABELS as SENTIMENT_LABELS"`` exports the module's ``LABELS`` under another name.

    A name listed under ``f"{package}.{name}"`` itself is that subpackage or module (or, if that module defines the
    name, its value); so is any other submodule, returned as is.
    """
    exports = {}
    for module, names in modules.items():
        for entry in names:
            attribute, _, name = entry.partition(" as ")
            exports[name or attribute] = (module, attribute)
    _EXPORTS[package] = exports
    namespace = sys.modules[package]
    if type(namespace) is types.ModuleType:
        namespace.__class__ = _LazyPackage

    def __getattr__(name: str):
        return resolve(package, exports, name)

    def __dir__() -> list:
        return sorted(set(vars(namespace)) | set(exports))

    return __getattr__, __dir__


def stub_exports(stub: str | pathlib.Path) -> dict[str, list[str]]:
    """``{module: ["name", "attribute as name", ...]}`` from the ``from MODULE import ...`` lines of a stub file."""
    exports: dict[str, list[str]] = {}
    for node in ast.parse(pathlib.Path(stub).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            exports.setdefault(node.module, []).extend(
                alias.name if alias.asname in (None, alias.name) else f"{alias.name} as {alias.asname}"
                for alias in node.names)
    return exports


def attach_stub(package: str, init_file: str) -> tuple[Callable[[str], object], Callable[[], list], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package`` from the ``__init__.pyi`` beside ``init_file``: every
    name the stub imports is exported, imported on first use (``lazy_exports``); ``from package import sub`` exports
    the subpackage ``sub``."""
    exports = stub_exports(pathlib.Path(init_file).with_suffix(".pyi"))
    for name in exports.pop(package, []):  # ``from elmo_keras import analysis``: the subpackage itself
        exports.setdefault(f"{package}.{name}", []).append(name)
    names = sorted(entry.partition(" as ")[2] or entry for entries in exports.values() for entry in entries)
    return (*lazy_exports(package, exports), names)
