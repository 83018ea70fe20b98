"""``MultiTaskTagger`` (Tafforeau et al. 2016): shared lower layers — token features and a BiLSTM — and one head per
task.

The tasks share everything below the heads, so a task with many labelled sentences (POS tags) shapes the
representation a task with few (semantic frames) reads; training alternates batches between tasks (see
``SequenceTagger``).
"""

from __future__ import annotations

from elmo_keras._quiet import keras
from elmo_keras.tagging.layers import BiLSTM, TokenFeatures
from elmo_keras.tagging.sequence_tagger import SequenceTagger


@keras.saving.register_keras_serializable(package="elmo_keras")
class MultiTaskTagger(SequenceTagger):
    """``features → BiLSTM → {task: TagHead}``.

    Args:
        tasks: ``{task: num_tags}``, label sets of any size.
        vocab_size, word_dim, char_dim, bilm, bilm_mode: the ``TokenFeatures`` (word embedding, optional
            char-CNN, optional frozen biLM read through an ELMo ``ScalarMix``); defaults as there.
        units: int, LSTM units per direction. Defaults to 64.
        dropout: float, on the features and on the BiLSTM output, training only. Defaults to 0.25.
        head_kinds, constraints: see ``SequenceTagger``. Default to None (softmax heads, no constraints).

    Call arguments:
        inputs: dict of int32 ``"words"`` `(batch, time)` (+ ``"chars"`` `(batch, time, 50)`, ``"bilm"``
            `(batch, time)` or `(batch, time, 50)` when used).

    Returns:
        ``{task: emissions (batch, time, num_tags)}``.

    Example (``train_multitask_tagger`` builds, trains and equips one with a vocabulary for ``predict_tags``):
        >>> tagger = MultiTaskTagger({"pos": 5, "frame": 3}, vocab_size=20, word_dim=8, units=8)
        >>> emissions = tagger({"words": np.array([[4, 7, 9], [5, 6, 0]])})  # word ids, 0 = padding
        >>> {task: tuple(scores.shape) for task, scores in emissions.items()}
        {'pos': (2, 3, 5), 'frame': (2, 3, 3)}
    """

    def __init__(self, tasks, vocab_size, word_dim=64, char_dim=0, bilm=None, bilm_mode="mix", units=64,
                 dropout=0.25, head_kinds=None, constraints=None, **kwargs):
        super().__init__(tasks, head_kinds=head_kinds, constraints=constraints, **kwargs)
        self.units, self.dropout = int(units), float(dropout)
        self.features = TokenFeatures(vocab_size, word_dim=word_dim, char_dim=char_dim, bilm=bilm,
                                      bilm_mode=bilm_mode, dropout=dropout, name="features")
        self.bilstm = BiLSTM(self.units, name="bilstm")
        self.output_dropout = keras.layers.Dropout(self.dropout)

    @property
    def shared_layers(self):
        return [self.features, self.bilstm]

    def represent(self, inputs, training=None):
        features = self.features(inputs, training=training)
        mask = self.features.compute_mask(inputs)
        return self.output_dropout(self.bilstm(features, mask=mask, training=training), training=training)

    def get_config(self):
        config = super().get_config()
        features = self.features.get_config()
        config.update({key: features[key] for key in ("vocab_size", "word_dim", "char_dim", "bilm", "bilm_mode")})
        config.update({"units": self.units, "dropout": self.dropout})
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)
