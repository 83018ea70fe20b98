"""The PCA page's view kept on disk (``result_cache``), so that the page opens without loading a model.

The view depends on the model's files, the corpus, the word, the typed sentences and the number of components;
``stored_pca_view`` only reads, ``computed_pca_view`` computes (``projection.pca_view``) and keeps the result. The
shipped ``toy`` model comes with the 2-D views of the target words (``tools/build_shipped_models.py``).
"""

from __future__ import annotations

import pathlib

import pandas as pd

from elmo_keras.explorer.corpus import fingerprint
from elmo_keras.explorer.model_store import ModelRef
from elmo_keras.explorer.projection.view import ProjectionView, view_from_json, view_to_json
from elmo_keras.explorer.result_cache import result_path, stored_result
from elmo_keras.safe_files import write_json_object

RESULT_KIND = "pca"


def _path(ref: ModelRef, corpus: pd.DataFrame, word: str, typed_text: str, n_components: int) -> pathlib.Path:
    inputs = {"corpus": fingerprint(corpus), "word": word, "typed": typed_text, "n_components": int(n_components)}
    return result_path(ref.directory, RESULT_KIND, ref.path, inputs)


def stored_pca_view(ref: ModelRef, corpus: pd.DataFrame, word: str, typed_text: str,
                    n_components: int) -> ProjectionView | None:
    """The view ``computed_pca_view`` kept for these inputs and this model's files, or None."""
    return stored_result(_path(ref, corpus, word, typed_text, n_components), view_from_json)


def computed_pca_view(model, ref: ModelRef, corpus: pd.DataFrame, word: str, typed_text: str,
                      n_components: int) -> ProjectionView:
    """``projection.pca_view(model, corpus, word, typed_text, n_components)``, kept for next time.

    Raises:
        ValueError: as ``pca_view`` (nothing is kept then).
    """
    # here: the model's computation needs Keras, scikit-learn
    from elmo_keras.explorer.projection.service import pca_view

    view = pca_view(model, corpus, word, typed_text, n_components)
    # replaces a stored file that could not be read; where nothing can be written, the next call computes again
    write_json_object(_path(ref, corpus, word, typed_text, n_components), view_to_json(view))
    return view
