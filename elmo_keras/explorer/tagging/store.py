"""The tagging page's view of a sentence kept on disk (``result_cache``), so that the page shows its example
sentences without loading the two taggers.

The view depends on both taggers' files, the sentence and the number of CRF paths; ``stored_tagging_view`` only
reads, ``computed_tagging_view`` computes (``tagging.tag_sentence``) and keeps the result. The shipped taggers
come with the views of the page's example sentences (``tools/build_shipped_models.py``).
"""

from __future__ import annotations

import pathlib

import numpy as np

from elmo_keras.explorer.model_store import ModelRef
from elmo_keras.explorer.result_cache import frame_from_json, frame_to_json, model_digest, result_path, stored_result
from elmo_keras.explorer.tagging.service import TaggingView, tag_sentence
from elmo_keras.safe_files import write_json_object

RESULT_KIND = "tagging"


def view_to_json(view: TaggingView) -> dict:
    """``view`` as a JSON-ready dict (``view_from_json`` reads it back)."""
    return {"tokens": list(view.tokens), "labels": list(view.labels), "allowed": view.allowed.tolist(),
            **{name: frame_to_json(getattr(view, name))
               for name in ("multitask", "ner", "top_paths", "marginals", "transitions")}}


def view_from_json(data: dict) -> TaggingView:
    """The view ``view_to_json`` wrote. Raises ``KeyError``/``TypeError``/``ValueError`` on anything else."""
    return TaggingView(
        tokens=[str(t) for t in data["tokens"]],
        multitask=frame_from_json(data["multitask"], keep_index=False),
        ner=frame_from_json(data["ner"], keep_index=False),
        top_paths=frame_from_json(data["top_paths"], keep_index=False),
        marginals=frame_from_json(data["marginals"], keep_index=True),
        transitions=frame_from_json(data["transitions"], keep_index=True),
        allowed=np.asarray(data["allowed"], dtype=bool),
        labels=[str(label) for label in data["labels"]],
    )


def _path(refs: tuple[ModelRef, ModelRef], text: str, top_k: int) -> pathlib.Path:
    multitask, taglm = refs
    inputs = {"multitask": model_digest(multitask.path), "text": text, "top_k": int(top_k)}
    return result_path(taglm.directory, RESULT_KIND, taglm.path, inputs)


def stored_tagging_view(refs: tuple[ModelRef, ModelRef], text: str, top_k: int) -> TaggingView | None:
    """The view ``computed_tagging_view`` kept for this sentence, ``top_k`` and these taggers' files, or None."""
    return stored_result(_path(refs, text, top_k), view_from_json)


def computed_tagging_view(multitask, taglm, refs: tuple[ModelRef, ModelRef], text: str, top_k: int) -> TaggingView:
    """``tagging.tag_sentence(multitask, taglm, text, top_k)``, kept for next time.

    Raises:
        ValueError: as ``tag_sentence`` (nothing is kept then).
    """
    view = tag_sentence(multitask, taglm, text, top_k=top_k)
    # replaces a stored file that could not be read; where nothing can be written, the next call computes again
    write_json_object(_path(refs, text, top_k), view_to_json(view))
    return view
