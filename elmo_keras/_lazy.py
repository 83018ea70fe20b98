"""Package attributes imported on first use (PEP 562), so that importing a package costs nothing until used.

``import elmo_keras`` used to import every layer, Keras and TensorFlow (4–6 s on 2 cores) before the first line
of user code ran; the explorer's first page, rendered from stored results, needs none of them. A package lists
what it exports and where it lives; the first access imports that module (quietly, through ``_quiet``, like
every module that uses Keras) and keeps the value, so later accesses are plain attribute reads.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Iterable, Mapping


def lazy_exports(package: str,
                 modules: Mapping[str, Iterable[str]]) -> tuple[Callable[[str], object], Callable[[], list]]:
    """``(__getattr__, __dir__)`` for ``package``: ``modules`` maps each module to the public names it defines.

    A name listed under ``f"{package}.{name}"`` itself is that subpackage or module, returned as is; so is any other
    submodule (``elmo_keras.models`` after ``import elmo_keras``, as when the package imported it eagerly).
    """
    namespace = importlib.import_module(package).__dict__
    exports = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str):
        module = exports.get(name)
        if module is None:
            if name.startswith("__") or importlib.util.find_spec(f"{package}.{name}") is None:
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            module = f"{package}.{name}"
        imported = importlib.import_module(module)
        value = imported if module == f"{package}.{name}" else getattr(imported, name)
        namespace[name] = value
        return value

    def __dir__() -> list:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
