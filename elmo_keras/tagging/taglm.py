"""``TagLM`` (Peters et al. 2017; seed notes §3): a BiLSTM-CRF tagger that reads a frozen biLM's vectors between
its two BiLSTM layers.

``word embedding (+ char-CNN) → BiLSTM₁ → [h₁; biLM vector] → BiLSTM₂ → Dense → CRF`` over BIOES tags. The biLM
was trained on unlabelled text only and stays frozen; its vector for a token is its top layer ``[→h; ←h]``
(the paper's choice) or an ELMo mix of every layer.
"""

from __future__ import annotations

from keras import ops

from elmo_keras._quiet import keras
from elmo_keras.tagging.layers import BiLSTM, TokenFeatures, frozen_elmo
from elmo_keras.tagging.sequence_tagger import SequenceTagger


@keras.saving.register_keras_serializable(package="elmo_keras")
class TagLM(SequenceTagger):
    """One task (default ``"ner"``) tagged by ``TagLM``'s two BiLSTM layers with the biLM vectors in between.

    Args:
        num_tags: the label count (BIOES tags).
        vocab_size, word_dim, char_dim: the token features below BiLSTM₁.
        bilm: the frozen ``BiLM`` whose vectors join after BiLSTM₁ (None: the same tagger without them, the
            baseline of the paper's comparison).
        bilm_mode: ``"top"`` (default, as in TagLM) or ``"mix"`` (ELMo's learned weights).
        units: LSTM units per direction, both layers.
        dropout: on the features and between the layers, training only.
        head_kind: ``"crf"`` (default) or ``"softmax"``.
        constraints: the CRF's allowed transitions (``allowed_transitions("BIOES", labels)``).
        task: the task's name.

    Call arguments:
        inputs: dict of ``"words"`` (+ ``"chars"``, + ``"bilm"`` with a biLM).

    Returns:
        ``{task: emissions (batch, time, num_tags)}``.
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
