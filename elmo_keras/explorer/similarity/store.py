"""The context-similarity view kept on disk (``result_cache``), so that the explorer's first page opens without
loading a model, Keras or TensorFlow.

The view depends on the model's files, the corpus and the page's inputs (word, typed sentences, occurrences per
sense); ``stored_context_similarity`` only reads (no model needed), ``computed_context_similarity`` computes and
keeps the result. The shipped ``toy`` model comes with its default view (``tools/build_shipped_models.py``).
"""

from __future__ import annotations

import pathlib

import pandas as pd

from elmo_keras.explorer.corpus import fingerprint
from elmo_keras.explorer.model_store import ModelRef
from elmo_keras.explorer.result_cache import result_path, stored_result
from elmo_keras.explorer.similarity.view import SimilarityView, view_from_json, view_to_json
from elmo_keras.safe_files import write_json_object

RESULT_KIND = "context_similarity"


def _path(ref: ModelRef, corpus: pd.DataFrame, word: str, typed_text: str, per_sense: int | None) -> pathlib.Path:
    inputs = {"corpus": fingerprint(corpus), "word": word, "typed": typed_text, "per_sense": per_sense}
    return result_path(ref.directory, RESULT_KIND, ref.path, inputs)


def stored_context_similarity(ref: ModelRef, corpus: pd.DataFrame, word: str, typed_text: str,
                              per_sense: int | None) -> SimilarityView | None:
    """The view ``computed_context_similarity`` kept for these inputs and this model's files, or None."""
    return stored_result(_path(ref, corpus, word, typed_text, per_sense), view_from_json)


def computed_context_similarity(model, ref: ModelRef, corpus: pd.DataFrame, word: str, typed_text: str,
                                per_sense: int | None) -> SimilarityView:
    """``similarity.context_similarity(model, corpus, word, typed_text, per_sense)``, kept for next time.

    Args:
        model: the loaded ``BiLanguageModel`` of ``ref``; ref: where it is saved (its files key the result).
        corpus, word, typed_text, per_sense: as ``context_similarity``.

    Raises:
        ValueError: as ``context_similarity`` (nothing is kept then).
    """
    from elmo_keras.explorer.similarity.service import context_similarity  # here: the model's computation needs Keras

    view = context_similarity(model, corpus, word, typed_text, per_sense)
    # replaces a stored file that could not be read; where nothing can be written, the next call computes again
    write_json_object(_path(ref, corpus, word, typed_text, per_sense), view_to_json(view))
    return view
