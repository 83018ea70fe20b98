"""``TagLM`` (Peters et al. 2017): a BiLSTM-CRF tagger that reads a frozen biLM's vectors between
its two BiLSTM layers.

``word embedding (+ char-CNN) → BiLSTM₁ → [h₁; biLM vector] → BiLSTM₂ → Dense → CRF`` over BIOES tags. The biLM
was trained on unlabelled text only and stays frozen; its vector for a token is its top layer ``[→h; ←h]``
(the paper's choice) or an ELMo mix of every layer.
"""

from __future__ import annotations

from elmo_keras._quiet import keras, ops
from elmo_keras.tagging.layers import BiLSTM, TokenFeatures, frozen_elmo
from elmo_keras.tagging.sequence_tagger import SequenceTagger


@keras.saving.register_keras_serializable(package="elmo_keras")
class TagLM(SequenceTagger):
    """One task (default ``"ner"``) tagged by ``TagLM``'s two BiLSTM layers with the biLM vectors in between.

    Args:
        num_tags: int, the label count (BIOES tags).
        vocab_size, word_dim, char_dim: the token features below BiLSTM₁ (see ``TokenFeatures``; ``word_dim``
            defaults to 64, ``char_dim`` to 0).
        bilm: the frozen ``BiLM`` whose vectors join after BiLSTM₁, or its serialized config. Defaults to None:
            the same tagger without them, the baseline of the paper's comparison.
        bilm_mode: ``"top"`` (as in TagLM) or ``"mix"`` (ELMo's learned weights). Defaults to ``"top"``.
        units: int, LSTM units per direction, both layers. Defaults to 64.
        dropout: float, on the features and between the layers, training only. Defaults to 0.25.
        head_kind: ``"crf"`` or ``"softmax"``. Defaults to ``"crf"``.
        constraints: the CRF's ``(allowed, allowed_start, allowed_end)``
            (``allowed_transitions("BIOES", labels)``). Defaults to None (unconstrained).
        task: str, the task's name. Defaults to ``"ner"``.

    Call arguments:
        inputs: dict of int32 ``"words"`` `(batch, time)` (+ ``"chars"`` `(batch, time, 50)`; + ``"bilm"``
            `(batch, time)` or `(batch, time, 50)` with a biLM).

    Returns:
        ``{task: emissions (batch, time, num_tags)}``.

    Example (``train_taglm`` builds and trains one from tagged sentences):
        >>> from elmo_keras.layers import BiLM, WordEmbedding
        >>> bilm = BiLM(WordEmbedding(30, 16), units=32, projection_dim=16, num_layers=1)
        >>> tagger = TagLM(num_tags=5, vocab_size=20, word_dim=8, units=8, bilm=bilm)
        >>> inputs = {"words": np.array([[4, 7, 9], [5, 6, 0]]), "bilm": np.array([[11, 12, 13], [14, 15, 0]])}
        >>> tuple(tagger(inputs)["ner"].shape)
        (2, 3, 5)
    """

    def __init__(self, num_tags, vocab_size, word_dim=64, char_dim=0, bilm=None, bilm_mode="top", units=64,
                 dropout=0.25, head_kind="crf", constraints=None, task="ner", **kwargs):
        super().__init__({task: num_tags}, head_kinds={task: head_kind},
                         constraints={task: constraints} if constraints is not None else None, **kwargs)
        self.task, self.units, self.dropout = task, int(units), float(dropout)
        self.features = TokenFeatures(vocab_size, word_dim=word_dim, char_dim=char_dim, dropout=dropout,
                                      name="features")
        self.bilm_mode = bilm_mode
        self.elmo = None if bilm is None else frozen_elmo(bilm, bilm_mode, name="bilm_vectors")
        self.lower = BiLSTM(self.units, name="bilstm_1")
        self.upper = BiLSTM(self.units, name="bilstm_2")
        self.between = keras.layers.Dropout(self.dropout)

    @property
    def shared_layers(self):
        return [layer for layer in (self.features, self.elmo, self.lower, self.upper) if layer is not None]

    def represent(self, inputs, training=None):
        mask = self.features.compute_mask(inputs)
        hidden = self.lower(self.features(inputs, training=training), mask=mask, training=training)
        if self.elmo is not None:
            lm_vectors = self.elmo(inputs["bilm"], training=False)["elmo_representations"][0]  # (B, T, 2 * dim)
            hidden = ops.concatenate([hidden, ops.cast(lm_vectors, hidden.dtype)], axis=-1)
        hidden = self.between(hidden, training=training)
        return self.between(self.upper(hidden, mask=mask, training=training), training=training)

    def get_config(self):
        features = self.features.get_config()
        return {"num_tags": self.tasks[self.task], "vocab_size": features["vocab_size"],
                "word_dim": features["word_dim"], "char_dim": features["char_dim"],
                "bilm": None if self.elmo is None else keras.saving.serialize_keras_object(self.elmo.bilm),
                "bilm_mode": self.bilm_mode,
                "units": self.units, "dropout": self.dropout, "head_kind": self.head_kinds[self.task],
                "constraints": self.constraints[self.task], "task": self.task, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)
