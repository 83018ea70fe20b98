"""Run code around a module's first import, whoever triggers it (an import hook used once, then removed).

``_quiet`` runs TensorFlow's first import with its start-up log lines silenced; ``_registration`` installs its
registry right after Keras' first import.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable


class _WrappedLoader(importlib.abc.Loader):
    """Runs another loader's ``exec_module`` through ``run(exec_module, module)``."""

    def __init__(self, loader, run):
        self.loader, self.run = loader, run

    def __getattr__(self, name):  # everything else (resources, source, file name) is the real loader's
        return getattr(self.loader, name)

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.run(self.loader.exec_module, module)


class _FirstImportFinder(importlib.abc.MetaPathFinder):
    """Finds ``name`` the usual way (once) and hands back its spec with a wrapped loader."""

    def __init__(self, name: str, run):
        self.name, self.run = name, run

    def find_spec(self, name, path=None, target=None):
        if name != self.name:
            return None
        sys.meta_path.remove(self)  # one use: the real finders answer from now on
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _WrappedLoader(spec.loader, self.run)
        return spec


def around_first_import(name: str, run: Callable) -> bool:
    """Make the first import of the top-level module ``name`` call ``run(exec_module, module)``, which must call
    ``exec_module(module)``. Returns False (and installs nothing) when ``name`` is imported already."""
    if name in sys.modules:
        return False
    if not any(isinstance(f, _FirstImportFinder) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _FirstImportFinder(name, run))
    return True
