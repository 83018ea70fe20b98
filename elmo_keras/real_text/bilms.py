"""The biLMs trained on real English: the ``treebank-lstm`` and ``treebank-transformer`` sizes
(``models.bilm.presets.SIZES``) on the 12,544 training sentences of UD English EWT (``data.treebank``), held-out
perplexity on its 2,001 dev sentences.

``tools/build_shipped_models.py --treebank-only`` trains both with seed 0 in float32 and ships them (without the
optimizer's state) as ``elmo_keras/data/shipped_models/treebank-lstm`` and ``treebank-transformer``;
``load_treebank_bilm(name)`` loads a shipped one. Both read characters (case kept) and predict the lowercased words
seen at least ``VOCABULARY_MIN_COUNT`` times in train (the others are ``<UNK>``), so their perplexities and the
trigram baseline's (``real_text.kneser_ney``) are over the same vocabulary and the same sentences.
"""

from __future__ import annotations

import pathlib
from importlib import resources

from elmo_keras.data.treebank import treebank_sentences

TREEBANK_BILMS = ("treebank-lstm", "treebank-transformer")  # shipped directory name = training size
VOCABULARY_MIN_COUNT = 2
SEED = 0


def train_treebank_bilm(size: str, *, seed: int = SEED, limit: int | None = None, epochs: int | None = None,
                        callbacks=None, verbose: int = 0):
    """Train a biLM of ``size`` on the treebank's training text, with dev as the held-out set.

    Args:
        size: ``"treebank-lstm"`` or ``"treebank-transformer"`` (or any training size name).
        seed: int. Defaults to ``SEED``.
        limit: train on the first ``limit`` training sentences only (None: all 12,544), e.g. in tests.
        epochs: None: the size's.
        callbacks, verbose: as ``train_bilm``'s.

    Returns:
        The trained ``BiLanguageModel`` (float32; ``training_summary["heldout"]`` holds the dev perplexities).
    """
    from elmo_keras.models import get_size, train_bilm  # Keras on first use: the package's names load light

    config = get_size(size).replace(training_precision="float32")
    return train_bilm(treebank_sentences("train", limit), size=config, epochs=epochs, seed=seed,
                      heldout=treebank_sentences("dev"), min_count=VOCABULARY_MIN_COUNT, callbacks=callbacks,
                      verbose=verbose)


def load_treebank_bilm(name: str = "treebank-lstm"):
    """The shipped biLM ``name`` (one of ``TREEBANK_BILMS``) as a ``BiLanguageModel``.

    Raises:
        ValueError: an unknown name.
        FileNotFoundError: the package holds no such model (a trimmed install): build it with
            ``tools/build_shipped_models.py --treebank-only``.
    """
    from elmo_keras.models import BiLanguageModel  # Keras on first use: the package's names load light

    if name not in TREEBANK_BILMS:
        raise ValueError(f"name must be one of {TREEBANK_BILMS}, received {name!r}")
    directory = pathlib.Path(str(resources.files("elmo_keras.data") / "shipped_models" / name))
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory}: this installation ships no {name} biLM; build it with "
                                "tools/build_shipped_models.py --treebank-only")
    return BiLanguageModel.from_preset(directory)
