"""The layer-weights page's report kept on disk (``result_cache``), so that a new server process shows it at once.

The report depends on the model's files, the corpus and the seed; it is stored as JSON (arrays as lists with
their dtype), which round-trips every float exactly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from elmo_keras.explorer.corpus import fingerprint
from elmo_keras.explorer.layer_weights import LayerWeightReport, MixHead, TaskReport, layer_weight_report
from elmo_keras.explorer.model_store import ModelRef
from elmo_keras.explorer.result_cache import cached_result, result_path

RESULT_KIND = "layer_weights"


def _array(values: np.ndarray) -> dict:
    return {"dtype": str(values.dtype), "values": values.tolist()}


def _from_array(data: dict) -> np.ndarray:
    return np.asarray(data["values"], dtype=data["dtype"])


def report_to_json(report: LayerWeightReport) -> dict:
    """``report`` as a JSON-ready dict (``report_from_json`` reads it back)."""
    tasks = [{
        "name": task.name, "title": task.title, "kind": task.kind,
        "head": {"scalar_parameters": _array(np.asarray(task.head.scalar_parameters)), "gamma": float(task.head.gamma),
                 "kernel": _array(np.asarray(task.head.kernel)), "bias": _array(np.asarray(task.head.bias))},
        "heldout_accuracy": float(task.heldout_accuracy), "probe_accuracies": _array(np.asarray(task.probe_accuracies)),
        "majority_accuracy": float(task.majority_accuracy), "layer_logits": _array(np.asarray(task.layer_logits)),
        "test_labels": _array(np.asarray(task.test_labels)), "num_train": int(task.num_train),
        "num_classes": int(task.num_classes),
    } for task in report.reports]
    return {"reports": tasks, "skipped": list(report.skipped), "findings": list(report.findings)}


def report_from_json(data: dict) -> LayerWeightReport:
    """The report ``report_to_json`` wrote. Raises ``KeyError``/``TypeError``/``ValueError`` on anything else."""
    tasks = []
    for task in data["reports"]:
        head = task["head"]
        tasks.append(TaskReport(
            name=str(task["name"]), title=str(task["title"]), kind=str(task["kind"]),
            head=MixHead(_from_array(head["scalar_parameters"]), float(head["gamma"]), _from_array(head["kernel"]),
                         _from_array(head["bias"])),
            heldout_accuracy=float(task["heldout_accuracy"]), probe_accuracies=_from_array(task["probe_accuracies"]),
            majority_accuracy=float(task["majority_accuracy"]), layer_logits=_from_array(task["layer_logits"]),
            test_labels=_from_array(task["test_labels"]), num_train=int(task["num_train"]),
            num_classes=int(task["num_classes"]),
        ))
    return LayerWeightReport(tasks, [str(s) for s in data["skipped"]], [str(s) for s in data["findings"]])


def stored_layer_weight_report(model, ref: ModelRef, corpus: pd.DataFrame, seed: int = 0) -> LayerWeightReport:
    """``layer_weight_report(model, corpus, seed)``, read from the models directory when computed before.

    Args:
        model: the loaded ``BiLanguageModel`` of ``ref``.
        ref: where the model is saved (its files key the stored result).
        corpus: the working corpus; seed: int, the training seed of the mix and the probes. Defaults to 0.
    """
    path = result_path(ref.directory, RESULT_KIND, ref.path, {"corpus": fingerprint(corpus), "seed": int(seed)})

    def compute() -> dict:
        return report_to_json(layer_weight_report(model, corpus, seed))

    try:
        return report_from_json(cached_result(path, compute))
    except (KeyError, TypeError, ValueError):  # a stored file of another shape: compute it again, replace it
        path.unlink(missing_ok=True)
        return report_from_json(cached_result(path, compute))
