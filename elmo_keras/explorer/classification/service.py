"""The Classification page's service: its three small classifiers on disk, and what it shows for a typed sentence.

On first visit ``CLASSIFIER_MODELS`` installs the shipped set or trains, in a background thread, the CNN, the
BiLSTM reading its last states and the BiLSTM max-pooled over its states on the toy sentiment corpus (small
settings, see ``PAGE_SETTINGS``; its time is in docs/explorer.md, "Start-up times") and saves them together under
``CLASSIFIERS_DIR_NAME`` in the models directory (one model directory per kind, the whole set replaced in one
rename); later visits load them.
``classify`` is the page's one call for a sentence: each model's class probabilities and, for the CNN, the
n-gram each strongest filter fired on. ``trained_sliding_step`` runs the worked example's sliding on the CNN's
real embeddings and one of its real filters.
"""

from __future__ import annotations

import os
import pathlib
import shutil
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from elmo_keras._quiet import ops
from elmo_keras.explorer.classification.views import MODEL_TITLES, SlidingStep, sliding_step
from elmo_keras.explorer.first_use import page_models
from elmo_keras.explorer.model_store import CLASSIFIERS_DIR_NAME, ModelRef, check_page_directory
from elmo_keras.explorer.typed_text import typed_tokens
from elmo_keras.models.classifiers import (
    KINDS,
    class_probabilities,
    encode_sentences,
    load_classifier,
    save_classifier,
    train_text_classifier,
)
from elmo_keras.models.directory_files import MODEL_FILE
from elmo_keras.safe_files import replace_directory, staging_directory
from elmo_keras.text.vocabulary import UNK_ID

MAX_SENTENCE_TOKENS = 40
DEFAULT_TOP_FILTERS = 8
# first-visit training: small enough to wait for, all three together (measured in docs/explorer.md; the
# experiments use ClassifierConfig's defaults); batch 64 divides the 1,152 training sentences, so TensorFlow traces
# one training step per model
PAGE_SETTINGS = {
    "cnn": {"epochs": 6, "batch_size": 64, "filters_per_height": 8},
    "rnn-last": {"epochs": 6, "batch_size": 64, "units": 16},
    "rnn-pooled": {"epochs": 6, "batch_size": 64, "units": 16},
}
EXAMPLE_SENTENCES = ("I like this movie very much !", "this movie is not good .", "this movie is good , not bad .",
                     "the plot was not very dull !", "the acting is bad , not great .")
Progress = Callable[[int, str], None]  # (finished models, what runs now)


@dataclass(frozen=True)
class ClassificationView:
    """What the page shows for one sentence.

    Attributes:
        tokens: the sentence's tokens.
        unknown: the tokens the models never saw in training (read as ``<unk>``).
        probabilities: one row per model and class: ``model``, ``class``, ``probability``.
        predictions: one row per model: ``model``, ``prediction``, ``confidence``.
        top_filters: the CNN's filters by pooled activation, strongest first: ``filter`` (``h2#5``: height 2,
            index 5), ``height``, ``ngram`` (the window that won its max pool), ``position`` (its first token),
            ``activation``.
    """

    tokens: list
    unknown: list
    probabilities: pd.DataFrame
    predictions: pd.DataFrame
    top_filters: pd.DataFrame


# -- the models on disk -----------------------------------------------------------------------------------------
def classifiers_directory(models_dir: str | os.PathLike) -> pathlib.Path:
    """Where the page's classifiers live: ``models_dir / CLASSIFIERS_DIR_NAME`` (one sub-directory per kind)."""
    return pathlib.Path(models_dir) / CLASSIFIERS_DIR_NAME


def classifier_refs(models_dir: str | os.PathLike) -> dict[str, ModelRef] | None:
    """``{kind: ref}`` for the three classifiers when all are saved, else None."""
    directory = classifiers_directory(models_dir)
    if not all((directory / kind / MODEL_FILE).is_file() for kind in KINDS):
        return None
    return {kind: ModelRef.of(directory, kind) for kind in KINDS}


def train_default_classifiers(models_dir: str | os.PathLike, progress: Progress | None = None, seed: int = 0,
                              settings: dict | None = None) -> dict[str, ModelRef]:
    """Train the page's three classifiers on the toy sentiment corpus and save them as one set.

    The models are written into a hidden sibling of ``CLASSIFIERS_DIR_NAME`` that then replaces it in one rename:
    an interrupted training leaves the previous set (or none), never a mix.

    Args:
        models_dir: the models directory.
        progress: called as ``progress(finished models, what runs now)`` before each model and at the end.
            Defaults to None.
        seed: int, the training seed. Defaults to 0.
        settings: ``{kind: ClassifierConfig overrides}``. Defaults to None (``PAGE_SETTINGS``).

    Returns:
        ``{kind: ref}``.
    """
    settings = PAGE_SETTINGS if settings is None else settings
    target = classifiers_directory(models_dir)
    check_page_directory(target, KINDS)
    staging = staging_directory(target)
    try:
        for step, kind in enumerate(KINDS):
            if progress is not None:
                progress(step, MODEL_TITLES[kind])
            save_classifier(train_text_classifier(kind=kind, seed=seed, **settings.get(kind, {})), staging / kind)
        if progress is not None:
            progress(len(KINDS), "done")
        replace_directory(staging, target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return classifier_refs(models_dir)


def load_classifier_model(ref: ModelRef):
    """The classifier saved at ``ref`` (errors as ``models.classifiers.load_classifier``)."""
    return load_classifier(ref.path)


# the three classifiers, declared once; ready_classifier_refs installs the shipped set (tools/build_shipped_models.py;
# None only where the package ships none), ClassifierTraining(models_dir, **options) runs train_default_classifiers,
# discard_classifiers deletes the set (refused where the directory holds files the page did not write)
CLASSIFIER_MODELS = page_models(
    "classification", "classifiers", train=train_default_classifiers,
    steps=[f"training the {MODEL_TITLES[kind]}" for kind in KINDS], job_name="elmo-keras-classifiers",
    done_message="Saving the classifiers…", saved=classifier_refs,
    load=lambda refs: {kind: load_classifier_model(ref) for kind, ref in refs.items()},
    directories={CLASSIFIERS_DIR_NAME: KINDS}, shipped=(CLASSIFIERS_DIR_NAME,))
ready_classifier_refs, ClassifierTraining = CLASSIFIER_MODELS.ready, CLASSIFIER_MODELS.start
discard_classifiers = CLASSIFIER_MODELS.discard


# -- a typed sentence -------------------------------------------------------------------------------------------
def typed_sentence_tokens(text: str) -> list[str]:
    """The typed sentence as tokens; a ``ValueError`` for an empty or too long one (``typed_text.typed_tokens``)."""
    return typed_tokens(text, MAX_SENTENCE_TOKENS, empty="Type a sentence to classify.")


def classify(models: dict, text: str, top_filters: int = DEFAULT_TOP_FILTERS) -> ClassificationView:
    """Everything the page shows for ``text`` (see ``ClassificationView``).

    Args:
        models: ``{kind: trained classifier}``; the CNN's filters are listed when ``"cnn"`` is among them.
        text: the typed sentence (split by ``tokenize``).
        top_filters: int, how many of the CNN's strongest filters to list. Defaults to ``DEFAULT_TOP_FILTERS``.

    Raises:
        ValueError: an empty sentence, or more than ``MAX_SENTENCE_TOKENS`` tokens.
    """
    tokens = typed_sentence_tokens(text)
    rows, predictions, unknown = [], [], []
    for kind, model in models.items():
        probabilities = class_probabilities(model, [tokens])[0]
        rows += [{"model": kind, "class": name, "probability": float(p)}
                 for name, p in zip(model.class_names, probabilities)]
        best = int(np.argmax(probabilities))
        predictions.append({"model": kind, "prediction": model.class_names[best],
                            "confidence": float(probabilities[best])})
        unknown = [t for t, i in zip(tokens, model.vocabulary.encode(tokens)) if i == UNK_ID]
    filters = strongest_filters(models["cnn"], tokens, top_filters) if "cnn" in models else pd.DataFrame()
    return ClassificationView(tokens, unknown, pd.DataFrame(rows), pd.DataFrame(predictions), filters)


def strongest_filters(cnn, tokens: list[str], count: int = DEFAULT_TOP_FILTERS) -> pd.DataFrame:
    """The CNN's ``count`` filters with the largest pooled activation on ``tokens``, each with the n-gram where
    its max is (see ``ClassificationView.top_filters``; a sentence shorter than the filter shows all of it)."""
    responses = cnn.filter_responses(encode_sentences([tokens], cnn.vocabulary))
    pooled, positions = responses.pooled[0], responses.positions[0]
    order = np.argsort(-pooled, kind="stable")[:count]
    per_height = cnn.filters_per_height
    return pd.DataFrame([{
        "filter": f"h{responses.filter_heights[i]}#{i % per_height}",
        "height": int(responses.filter_heights[i]),
        "ngram": " ".join(tokens[positions[i] : positions[i] + responses.filter_heights[i]]),
        "position": int(positions[i]),
        "activation": float(pooled[i]),
    } for i in order])


def trained_sliding_step(cnn, text: str, height: int, filter_index: int, position: int) -> SlidingStep:
    """The worked example's sliding on the trained CNN: the sentence's real embeddings (rows) and the real filter
    ``filter_index`` of height ``height`` (its bias included; the model then applies ReLU to each value).

    Raises:
        ValueError: an empty or too long sentence, a height the CNN does not have, a filter index out of range,
            a sentence shorter than ``height`` or a position outside the feature map.
    """
    tokens = typed_sentence_tokens(text)
    if height not in cnn.filter_heights:
        raise ValueError(f"the CNN has filters of heights {cnn.filter_heights}, not {height}")
    if not 0 <= filter_index < cnn.filters_per_height:
        raise ValueError(f"filter_index must be in [0, {cnn.filters_per_height}), received {filter_index}")
    layer = cnn.ngram_filters[cnn.filter_heights.index(height)]
    ids = encode_sentences([tokens], cnn.vocabulary)
    matrix = ops.convert_to_numpy(cnn.embedding(ids))[0].astype(np.float64)  # (T, E)
    kernel = ops.convert_to_numpy(layer.kernel)[:, :, filter_index].astype(np.float64)  # (h, E)
    bias = float(ops.convert_to_numpy(layer.bias)[filter_index])
    return sliding_step(position, matrix, kernel, tokens, bias=bias)
