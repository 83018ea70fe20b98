"""``CNNTextClassifier``: word embeddings → n-gram filters of several heights → max over time → softmax.

As in Kim (2014): the sentence becomes a matrix (one embedding per row); each filter of height ``h`` spans the whole
embedding width and slides down the sentence, giving one value per window (the feature map, ``T − h + 1`` values
for ``T`` tokens); max pooling keeps one number per filter ("how strongly this n-gram shows up anywhere"); the
filters' numbers, concatenated, are the sentence vector, fed to a softmax.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int
from elmo_keras.decoding._checks import check_token_ids
from elmo_keras.limits import check_length
from elmo_keras.models.classifiers.base import TextClassifier
from elmo_keras.models.classifiers.encoding import MAX_CLASSIFIER_TOKENS, PREDICT_BATCH_SIZE
from elmo_keras.models.classifiers.ngram_filters import NgramFilters
from elmo_keras.text.vocabulary import PAD_ID


@dataclass(frozen=True)
class FilterResponses:
    """What every filter did on a batch (NumPy), for showing the n-gram each strongest filter fired on.

    Attributes:
        filter_heights: int `(num_filters,)`, the height of each filter (filters ordered by height, then index).
        feature_maps: one float `(batch, time, filters_per_height)` array per height, NaN where the window is not
            valid (it runs over padding).
        pooled: float `(batch, num_filters)`, each filter's max over its valid windows.
        positions: int `(batch, num_filters)`, the window (start token) where that max is.
    """

    filter_heights: np.ndarray
    feature_maps: list
    pooled: np.ndarray
    positions: np.ndarray


@keras.saving.register_keras_serializable(package="elmo_keras")
class CNNTextClassifier(TextClassifier):
    """A CNN sentence classifier (Kim 2014): n-gram filters, max over time, dropout, softmax.

    Args:
        vocab_size: int, rows of the word embedding.
        num_classes: int ≥ 2, classes of the softmax.
        embedding_dim: int, width of the word embeddings (and of every filter). Defaults to 32.
        filter_heights: non-empty sequence of positive ints, one group of filters per height. Defaults to
            ``(2, 3, 4)``.
        filters_per_height: int, filters in each group. Defaults to 16.
        activation: Keras activation name or None, applied to each window's value. Defaults to ``"relu"``.
        dropout: float in ``[0, 1)``, on the sentence vector, training only. Defaults to 0.5.
        pad_id: int, the padding id (masked everywhere). Defaults to ``PAD_ID`` (0).
        class_names: ``num_classes`` distinct strings, or None. Defaults to None.

    Call arguments:
        inputs: int `(batch, time)` word ids, right-padded with ``pad_id``.
        training: bool; dropout only when True. Defaults to None (False).

    Returns:
        Class probabilities `(batch, num_classes)` (a softmax). A sentence shorter than a filter's height is
        zero-padded to it for that filter (``NgramFilters``); padding never changes a sentence's output.

    Raises:
        ValueError: a bad size, empty or non-positive ``filter_heights`` (or a repeated height), ``dropout`` outside
            ``[0, 1)``, a ``pad_id`` outside the vocabulary or bad ``class_names``.

    Example:
        >>> model = CNNTextClassifier(vocab_size=50, num_classes=2, filter_heights=(2, 3))
        >>> tuple(model(np.array([[5, 6, 7, 0]])).shape)
        (1, 2)
    """

    def __init__(self, vocab_size, num_classes, embedding_dim=32, filter_heights=(2, 3, 4), filters_per_height=16,
                 activation="relu", dropout=0.5, pad_id=PAD_ID, class_names=None, **kwargs):
        super().__init__(vocab_size, num_classes, embedding_dim, dropout, pad_id, class_names, **kwargs)
        if isinstance(filter_heights, (int, str)) or not len(filter_heights):
            raise ValueError(f"filter_heights must be a non-empty sequence of positive ints such as (2, 3, 4), "
                             f"received {filter_heights!r}")
        heights = tuple(check_int(h, "each of filter_heights") for h in filter_heights)
        if len(set(heights)) != len(heights):
            raise ValueError(f"filter_heights must not repeat a height (raise filters_per_height instead), "
                             f"received {filter_heights!r}")
        self.filter_heights = heights
        self.filters_per_height = check_int(filters_per_height, "filters_per_height")
        self.activation = activation
        self.ngram_filters = [NgramFilters(h, self.filters_per_height, activation, name=f"filters_{h}",
                                           dtype=self.dtype_policy) for h in heights]

    @property
    def sentence_dim(self) -> int:
        """Width of the sentence vector: one max per filter."""
        return self.filters_per_height * len(self.filter_heights)

    def build(self, input_shape=None):
        self.embedding.build((None, None))
        for layer in self.ngram_filters:
            layer.build((None, None, self.embedding_dim))
        self.output_layer.build((None, self.sentence_dim))

    def _responses(self, ids):
        ids = ops.cast(ids, "int32")
        mask = ops.not_equal(ids, self.pad_id)  # (B, T)
        x = self.embedding(ids)  # (B, T, E)
        return [layer(x, mask=mask) for layer in self.ngram_filters]

    def sentence_vectors(self, ids, training=None):
        """Each filter's max over time, concatenated: float `(batch, sentence_dim)` for int `(batch, time)` ids."""
        return ops.concatenate([r["pooled"] for r in self._responses(ids)], axis=-1)  # (B, F · heights)

    def filter_responses(self, ids) -> FilterResponses:
        """Every filter's feature map and the window where its max is, for int `(batch, time)` ids (see
        ``FilterResponses``): at most ``PREDICT_BATCH_SIZE`` sentences of ``MAX_CLASSIFIER_TOKENS`` ids.

        Raises:
            ValueError: ``ids`` is not 2-D, too large, or holds an id outside ``[0, vocab_size)`` (named), before
                the model runs.
        """
        ids = np.asarray(ids)
        if ids.ndim != 2 or 0 in ids.shape:
            raise ValueError(f"ids must be int (batch, time) with batch, time >= 1, received shape {ids.shape}; "
                             "encode sentences with encode_sentences(sentences, model.vocabulary)")
        check_length("ids", len(ids), PREDICT_BATCH_SIZE, "sentences", "pass the sentences in slices")
        check_length("ids", ids.shape[1], MAX_CLASSIFIER_TOKENS, "tokens per sentence", "shorten the sentences")
        responses = self._responses(check_token_ids("ids", ids, self.vocab_size))
        maps = []
        for r in responses:
            values = ops.convert_to_numpy(r["feature_maps"]).astype(np.float64)
            values[~ops.convert_to_numpy(r["window_mask"])] = np.nan
            maps.append(values)
        return FilterResponses(
            filter_heights=np.repeat(np.array(self.filter_heights), self.filters_per_height),
            feature_maps=maps,
            pooled=np.concatenate([ops.convert_to_numpy(r["pooled"]) for r in responses], axis=-1),
            positions=np.concatenate([ops.convert_to_numpy(r["positions"]) for r in responses], axis=-1),
        )

    def architecture(self) -> dict:
        """The fields that fix the weights (compared with ``training.json``'s config on loading)."""
        return {"kind": "cnn", "embedding_dim": self.embedding_dim, "filter_heights": self.filter_heights,
                "filters_per_height": self.filters_per_height}

    def get_config(self):
        config = super().get_config()
        config.update({"filter_heights": list(self.filter_heights), "filters_per_height": self.filters_per_height,
                       "activation": self.activation})
        return config
