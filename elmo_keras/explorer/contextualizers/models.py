"""The two contextualizers' default biLMs, each a first-use model (``first_use.page_models``): the LSTM ``toy`` and the
transformer ``transformer-toy``, installed from the package's shipped copies the first time a page asks for them
(``tools/build_shipped_models.py`` builds both), trained on the built-in corpus only where the package ships none.

The sidebar's contextualizer choice asks for the chosen one when the models directory holds no biLM of that kind;
the LSTM vs transformer page asks for both. No Keras or Streamlit here.
"""

from __future__ import annotations

import dataclasses
import os

from elmo_keras.explorer.first_use import page_models
from elmo_keras.explorer.model_store import (
    DEFAULT_MODEL_NAME,
    DEFAULT_PRESET,
    TRANSFORMER_MODEL_NAME,
    ModelRef,
    find_model,
    load_model,
)
from elmo_keras.explorer.state import BUILT_IN
from elmo_keras.explorer.training import TrainingSettings, train_and_save
from elmo_keras.models.directory_files import MODEL_FILE, SUMMARY_FILE, VOCABULARY_FILE

TRANSFORMER_SIZE = TRANSFORMER_MODEL_NAME  # the model is named after its training size, as ``toy`` is
# the shipped transformer's epochs (the transformer-toy size's 10 separate the senses less; docs/explorer.md)
TRANSFORMER_EPOCHS = 30
LABELS = {"lstm": "LSTM", "transformer": "transformer"}  # how the pages name each contextualizer
MODEL_FILES = (MODEL_FILE, VOCABULARY_FILE, SUMMARY_FILE)


def _saved(name: str, contextualizer: str):
    def saved(models_dir: str | os.PathLike) -> ModelRef | None:
        info = find_model(models_dir, name)
        return info.ref if info is not None and info.contextualizer == contextualizer else None
    return saved


def _trainer(name: str, settings: TrainingSettings):
    def train(models_dir: str | os.PathLike, progress) -> ModelRef:
        progress(0, f"training the {name} biLM on the built-in corpus")
        # here, on first use: the corpus loads with the first training, not with the frame
        from elmo_keras.explorer.corpus import builtin_corpus

        ref = train_and_save(builtin_corpus(), settings, models_dir, name, BUILT_IN, overwrite=True)
        progress(1, "")
        return ref
    return train


def _first_use(contextualizer: str, name: str, settings: TrainingSettings):
    return page_models(
        f"{contextualizer}_bilm", f"{LABELS[contextualizer]} biLM", train=_trainer(name, settings),
        steps=[f"training the {name} biLM"], job_name=f"elmo-keras-{name}", done_message="Saving the biLM…",
        saved=_saved(name, contextualizer), load=load_model, directories={name: MODEL_FILES}, shipped=(name,))


DEFAULT_NAMES = {"lstm": DEFAULT_MODEL_NAME, "transformer": TRANSFORMER_MODEL_NAME}  # what the picker starts on
# {contextualizer: its default biLM}, in ``models.bilm.presets.CONTEXTUALIZERS`` order
DEFAULT_BILMS = {
    "lstm": _first_use("lstm", DEFAULT_NAMES["lstm"], TrainingSettings.for_preset(DEFAULT_PRESET)),
    "transformer": _first_use("transformer", TRANSFORMER_MODEL_NAME,
                              dataclasses.replace(TrainingSettings.for_preset(TRANSFORMER_SIZE),
                                                  epochs=TRANSFORMER_EPOCHS)),
}
