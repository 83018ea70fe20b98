"""The Tagging page's section on real English: ELMo's gain on UPOS tagging of UD English EWT, from the learning curve
``tools/run_real_text_experiments.py`` ships (``elmo_keras/data/real_text_tagging.json``: ``runs`` of
``real_text.tagging_curve.learning_curve``, ``seeds``, ``fractions``, ``epochs``, ``tagger``, ``findings``,
``machine``, ``seconds``, ``provenance``).

``treebank_curve_view(results)`` is the section's one call: the mean ± std table (``curve_table``) and the sentences
(``curve_findings``) are computed from the runs, and ``PUBLISHED_UPOS_CONTEXT`` lists published scores for context.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from elmo_keras.data.packaged_results import packaged_results
from elmo_keras.real_text.tagging_curve import CURVE_HEADS, CURVE_INPUTS, WORDS_ONLY, curve_findings, curve_table

TAGGING_FILE = "real_text_tagging.json"  # the name tools/run_real_text_experiments.py writes
INPUT_TITLES = {WORDS_ONLY: "words only", "treebank-lstm": "+ treebank-lstm", "treebank-transformer":
                "+ treebank-transformer"}
HEAD_TITLES = {"softmax": "softmax head", "crf": "CRF head"}

# Published UPOS accuracies on UD English EWT test (gold tokenization), shown under the learning curve for context,
# each read in its source: the UDPipe model documentation (Straka; the repository ufal/udpipe, doc/manual_model_ud-2.5
# for UDPipe 1, branch udpipe-2 docs/models_ud212.md and models_ud215.md for UDPipe 2). One dict per system: system,
# score (0-1), source, note (treebank version, pretraining, anything that limits the comparison).
PUBLISHED_UPOS_CONTEXT: list[dict] = [
    {"system": "UDPipe 1.2 (no pretrained contextual embeddings)", "score": 0.944,
     "source": "UDPipe 1 documentation, UD 2.5 models, model performance",
     "note": "UD 2.5 EWT, gold tokenization; one decimal published"},
    {"system": "UDPipe 2 + multilingual BERT", "score": 0.9750,
     "source": "UDPipe 2 documentation, UD 2.12 models, model performance",
     "note": "UD 2.12 EWT, gold tokenization; BERT pretrained on Wikipedia in 104 languages"},
    {"system": "UDPipe 2", "score": 0.9750,
     "source": "UDPipe 2 documentation, UD 2.15 models, model performance",
     "note": "UD 2.15 EWT (this treebank's version), gold tokenization; with the pretrained embeddings that page "
             "lists"},
]
PUBLISHED_COLUMNS = ("system", "score", "source", "note")
PUBLISHED_CAVEAT = ("Published systems for context only: they use far larger models and pretraining (and often other "
                    "treebank versions), so they are not comparable one to one with these small biLMs trained on the "
                    "treebank's 12,544 sentences.")


@dataclass(frozen=True)
class TreebankCurveView:
    """What the section shows.

    Attributes:
        table: ``curve_table`` of the runs (``input, head, fraction, sentences, mean, std, seeds``).
        display: the same for reading: ``head``, ``input``, ``training sentences``, ``test accuracy`` (mean ± std).
        findings: ``curve_findings`` of the runs.
        caption: seeds, epochs, run time and machine.
    """

    table: pd.DataFrame
    display: pd.DataFrame
    findings: list
    caption: str


def tagging_results() -> dict | None:
    """The packaged ``real_text_tagging.json``, or None where it has not been produced."""
    return packaged_results(TAGGING_FILE)


def _order(values, preferred) -> list:
    """``values``' distinct items, those of ``preferred`` first in its order."""
    seen = list(dict.fromkeys(values))
    return [v for v in preferred if v in seen] + [v for v in seen if v not in preferred]


def ordered_table(runs: list[dict]) -> pd.DataFrame:
    """``curve_table(runs)`` sorted by head, input (``CURVE_HEADS``, ``CURVE_INPUTS`` order) and fraction."""
    table = curve_table(runs)
    heads, inputs = _order(table["head"], CURVE_HEADS), _order(table["input"], CURVE_INPUTS)
    key = table.assign(_head=table["head"].map(heads.index), _input=table["input"].map(inputs.index))
    return key.sort_values(["_head", "_input", "fraction"]).drop(columns=["_head", "_input"]).reset_index(drop=True)


def display_table(table: pd.DataFrame) -> pd.DataFrame:
    """``ordered_table``'s rows as strings to read: accuracy as ``"93.1 ± 0.2%"``."""
    return pd.DataFrame({
        "head": table["head"].map(lambda head: HEAD_TITLES.get(head, head)),
        "input": table["input"].map(lambda name: INPUT_TITLES.get(name, name)),
        "training sentences": [f"{count:,} ({fraction:.0%})" for count, fraction in zip(table["sentences"],
                                                                                       table["fraction"])],
        "test accuracy": [f"{m * 100:.1f} ± {s * 100:.1f}%" for m, s in zip(table["mean"], table["std"])],
        "seeds": table["seeds"]})


def curve_caption(results: dict) -> str:
    """Seeds, epochs per fraction, run time and machine of the learning curve."""
    epochs = ", ".join(f"{float(fraction):.0%}: {count}" for fraction, count in (results.get("epochs") or {}).items())
    return (f"Test accuracy on the treebank's 2,077 test sentences, mean ± std over {len(results['seeds'])} seeds "
            f"(each draws its own training sample, initialization and shuffling); fixed epochs per fraction "
            f"({epochs}), nothing tuned on dev or test. The runs took {results['seconds'] / 60:.0f} minutes on "
            f"{results['machine']}.")


def published_context(entries: list[dict] | None = None) -> pd.DataFrame | None:
    """``PUBLISHED_UPOS_CONTEXT`` (or ``entries``) as a table, None when empty."""
    entries = PUBLISHED_UPOS_CONTEXT if entries is None else entries
    if not entries:
        return None
    return pd.DataFrame([{column: entry.get(column, "") for column in PUBLISHED_COLUMNS} for entry in entries])


def treebank_curve_view(results: dict) -> TreebankCurveView:
    """Everything the section shows of ``results`` (the parsed ``real_text_tagging.json``).

    Raises:
        ValueError: ``results`` holds no runs.
    """
    runs = results.get("runs") or []
    if not runs:
        raise ValueError(f"{TAGGING_FILE} holds no runs; produce it again with tools/run_real_text_experiments.py")
    table = ordered_table(runs)
    return TreebankCurveView(table=table, display=display_table(table), findings=curve_findings(runs),
                             caption=curve_caption(results))
