"""``packaged_results``: an experiment's results as the tools wrote them into the package (``elmo_keras/data``).

``tools/run_tagging_experiments.py``, ``run_classifier_experiments.py``, ``run_dialogue_experiments.py`` and
``run_gradient_experiments.py`` each write one JSON file here; the explorer's pages show them.
"""

from __future__ import annotations

import json
from importlib import resources


def packaged_results(file_name: str) -> dict | None:
    """The JSON file ``file_name`` of ``elmo_keras/data``, parsed; None where the package does not hold it."""
    path = resources.files("elmo_keras.data") / file_name
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))
