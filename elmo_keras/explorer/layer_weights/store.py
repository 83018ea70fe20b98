"""The layer-weights page's report kept on disk (``result_cache``), so that a new server process shows it at once.

The report depends on the model's files, the corpus and the seed; it is stored as JSON (arrays as
``result_cache.array_to_json`` writes them), which round-trips every float exactly.
"""

from __future__ import annotations

import pandas as pd

from elmo_keras.explorer.corpus import fingerprint
from elmo_keras.explorer.layer_weights.service import LayerWeightReport, MixHead, TaskReport, layer_weight_report
from elmo_keras.explorer.model_store import ModelRef
from elmo_keras.explorer.result_cache import array_from_json, array_to_json, cached_result, result_path

RESULT_KIND = "layer_weights"


def report_to_json(report: LayerWeightReport) -> dict:
    """``report`` as a JSON-ready dict (``report_from_json`` reads it back)."""
    tasks = [{
        "name": task.name, "title": task.title, "kind": task.kind,
        "head": {"scalar_parameters": array_to_json(task.head.scalar_parameters), "gamma": float(task.head.gamma),
                 "kernel": array_to_json(task.head.kernel), "bias": array_to_json(task.head.bias)},
        "heldout_accuracy": float(task.heldout_accuracy), "probe_accuracies": array_to_json(task.probe_accuracies),
        "majority_accuracy": float(task.majority_accuracy), "layer_logits": array_to_json(task.layer_logits),
        "test_labels": array_to_json(task.test_labels), "num_train": int(task.num_train),
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
            head=MixHead(array_from_json(head["scalar_parameters"]), float(head["gamma"]),
                         array_from_json(head["kernel"]), array_from_json(head["bias"])),
            heldout_accuracy=float(task["heldout_accuracy"]),
            probe_accuracies=array_from_json(task["probe_accuracies"]),
            majority_accuracy=float(task["majority_accuracy"]), layer_logits=array_from_json(task["layer_logits"]),
            test_labels=array_from_json(task["test_labels"]), num_train=int(task["num_train"]),
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

    return cached_result(path, lambda: report_to_json(layer_weight_report(model, corpus, seed)), report_from_json)
