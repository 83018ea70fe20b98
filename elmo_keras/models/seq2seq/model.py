"""``Seq2Seq``: an RNN encoder-decoder (Sutskever et al. 2014), with a step API for fast decoding.

The encoder reads the source; its last hidden state (every layer's, the cell state too for an LSTM) is the
context ``φ``. The decoder has the same cell, layers and units, starts from ``s₀ = φ`` with ``<bos>`` as its
first input, and a dense layer scores the vocabulary: ``o_t = W_o s_t + b_o``, ``P(y_t | y_<t, φ) =
softmax(o_t)``. Training uses teacher forcing (the decoder reads the reference ``<bos> y_1 … y_n`` and
predicts ``y_1 … y_n <eos>``); the loss is the per-sequence *sum* of token cross-entropies, padding masked,
averaged over the batch. Decoding uses the same two halves, only the decoder's input changes: its own
previous output.

Beside the model in this package: ``Seq2SeqConfig``, ``encode_pairs``, ``train_seq2seq`` (deterministic for a
seed), ``save_seq2seq`` / ``load_seq2seq`` and ``evaluate_seq2seq``.
"""

from __future__ import annotations

import numpy as np

from elmo_keras._backend import id_graph_function
from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int, check_rate
from elmo_keras.decoding._checks import check_token_ids
from elmo_keras.decoding.prefix_scorer import (
    PrefixScorer,
    check_prefixes,
    emittable_log_probs,
    log_probs_after_prefixes,
)
from elmo_keras.limits import check_length
from elmo_keras.models.model_directory import ModelDirectory
from elmo_keras.models.seq2seq.config import CELLS, Seq2SeqConfig
from elmo_keras.models.seq2seq.encoding import MAX_SEQ2SEQ_TOKENS
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID

SCORE_TOKENS_PER_CALL = 2**16  # step_log_probs reads prefixes (with their sources) in pieces of at most this many


@keras.saving.register_keras_serializable(package="elmo_keras")
class Seq2Seq(ModelDirectory, keras.Model):
    """RNN encoder-decoder whose decoder starts from the encoder's last state ``φ``.

    Args:
        vocab_size: int, size of the shared source/target vocabulary (``pad_id`` and ``bos_id`` are never
            emitted while decoding, see ``next_token_log_probs``).
        embedding_dim: int, width of the source and target word embeddings. Defaults to 32.
        units: int, hidden units per layer (the same in encoder and decoder, so ``s₀ = φ`` fits). Defaults to 64.
        num_layers: int, stacked RNN layers in each half; layer ``l`` of the decoder starts from layer ``l`` of
            the encoder. Defaults to 1.
        cell: ``"gru"`` or ``"lstm"`` (an LSTM's state is ``(h, c)``; both are handed over). Defaults to ``"gru"``.
        dropout: float in ``[0, 1)``, dropout on embeddings and between layers, training only. Defaults to 0.
        pad_id, bos_id, eos_id: int special token ids in ``[0, vocab_size)``. Default to ``PAD_ID``, ``BOS_ID``,
            ``EOS_ID`` (0, 2, 3).

    Call arguments:
        inputs: ``(source, target_in)``: int `(batch, source_len)` and `(batch, target_len)` (``target_in``
            starts with ``bos_id``), right-padded with ``pad_id``. A dict with those keys works too.
        training: bool; dropout only when True. Defaults to None (False).

    Returns:
        Logits `(batch, target_len, vocab_size)`: position ``t`` scores the token after ``target_in[:, :t+1]``.

    Step API (the decoder step API ``HRED`` shares, see ``elmo_keras.decoding``; the conditioning is the source):
        ``initial_states(source) -> states`` (the encoder run once: ``φ``), ``decoder_step(states, last_token_ids)
        -> (log_probs, new_states)`` (what beam search uses, carrying states instead of re-running prefixes),
        ``step_log_probs(source, prefixes)`` / ``step_log_probs_from_states(states, prefixes)`` (every prefix
        re-read) and ``log_prob_fn(source)`` / ``log_prob_fn_from_states(states)`` (``next_log_probs`` for the
        strategies); ``states`` a list of `(batch, units)` tensors (per layer ``h``, or ``h, c`` for an LSTM).

    Raises:
        ValueError: a size that is not a positive int, an unknown ``cell``, ``dropout`` outside ``[0, 1)``, or a
            special id outside ``[0, vocab_size)``.

    Example:
        >>> model = Seq2Seq(vocab_size=20, units=16)
        >>> logits = model((np.array([[5, 6, 0]]), np.array([[2, 7, 8]])))
        >>> tuple(logits.shape)
        (1, 3, 20)
    """

    directory_config = Seq2SeqConfig  # model.save(directory) / Seq2Seq.from_preset(directory)
    directory_compile = True  # restores the optimizer state, as load_seq2seq always did

    def __init__(self, vocab_size, embedding_dim=32, units=64, num_layers=1, cell="gru", dropout=0.0,
                 pad_id=PAD_ID, bos_id=BOS_ID, eos_id=EOS_ID, **kwargs):
        super().__init__(**kwargs)
        for name, value in (("vocab_size", vocab_size), ("embedding_dim", embedding_dim), ("units", units),
                            ("num_layers", num_layers)):
            check_int(value, name)
        if cell not in CELLS:
            raise ValueError(f"cell must be one of {CELLS}, received {cell!r}")
        check_rate(dropout)
        for name, value in (("pad_id", pad_id), ("bos_id", bos_id), ("eos_id", eos_id)):
            if not 0 <= value < vocab_size:
                raise ValueError(f"{name} must be in [0, vocab_size={vocab_size}), received {value!r}")
        self.vocab_size, self.embedding_dim, self.units = vocab_size, embedding_dim, units
        self.num_layers, self.cell, self.dropout = num_layers, cell, float(dropout)
        self.pad_id, self.bos_id, self.eos_id = pad_id, bos_id, eos_id
        rnn = keras.layers.GRU if cell == "gru" else keras.layers.LSTM

        def make(name):
            return rnn(units, return_sequences=True, return_state=True, name=name, dtype=self.dtype_policy)

        self.source_embedding = keras.layers.Embedding(vocab_size, embedding_dim, name="source_embedding")
        self.target_embedding = keras.layers.Embedding(vocab_size, embedding_dim, name="target_embedding")
        self.encoder_layers = [make(f"encoder_{i}") for i in range(num_layers)]
        self.decoder_layers = [make(f"decoder_{i}") for i in range(num_layers)]
        self.dropout_layer = keras.layers.Dropout(self.dropout, name="dropout")
        self.output_layer = keras.layers.Dense(vocab_size, name="output", dtype=self.dtype_policy)
        self.token_accuracy = keras.metrics.Mean(name="token_accuracy")
        self.vocabulary = None  # set by train_seq2seq / load_seq2seq
        self.config = None
        self.training_summary = {}
        self._compiled_step_log_probs = None  # step_log_probs as one graph, made on first use

    @property
    def states_per_layer(self) -> int:
        """State tensors each layer hands over: 1 for a GRU (``h``), 2 for an LSTM (``h, c``)."""
        return 1 if self.cell == "gru" else 2

    def build(self, input_shape=None):
        self.source_embedding.build((None, None))
        self.target_embedding.build((None, None))
        width = self.embedding_dim
        for encoder, decoder in zip(self.encoder_layers, self.decoder_layers):
            encoder.build((None, None, width))
            decoder.build((None, None, width))
            width = self.units
        self.output_layer.build((None, None, self.units))

    # -- full sequences (training, teacher forcing) ------------------------------------------------------
    def _run(self, layers, x, mask, initial_states, training):
        states = []
        for index, layer in enumerate(layers):
            start = None
            if initial_states is not None:
                per = self.states_per_layer
                start = initial_states[index * per : (index + 1) * per]
            x, *layer_states = layer(x, mask=mask, initial_state=start, training=training)  # (B, T, units)
            states += layer_states
            x = self.dropout_layer(x, training=training)
        return x, states

    def call(self, inputs, training=None):
        source, target_in = (inputs["source"], inputs["target_in"]) if isinstance(inputs, dict) else inputs
        source = ops.cast(source, "int32")
        source_x = self.dropout_layer(self.source_embedding(source), training=training)  # (B, S, E)
        _, phi = self._run(self.encoder_layers, source_x, ops.not_equal(source, self.pad_id), None, training)
        return self.decoder_logits(phi, target_in, training)

    def decoder_logits(self, states, target_in, training=False):
        """Teacher-forced decoder: ``states`` (as ``initial_states`` gives them) and int `(batch, target_len)` inputs
        → logits `(batch, target_len, vocab_size)`."""
        target_in = ops.cast(target_in, "int32")
        target_x = self.dropout_layer(self.target_embedding(target_in), training=training)  # (B, T, E)
        top, _ = self._run(self.decoder_layers, target_x, ops.not_equal(target_in, self.pad_id), states, training)
        return self.output_layer(top)  # (B, T, V)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """Per-sequence sum of token cross-entropies (padding masked), averaged over the batch.

        ``y``: int ``target_out`` `(batch, target_len)`; ``y_pred``: logits `(batch, target_len, vocab)`. Also
        updates the ``token_accuracy`` metric.
        """
        targets = ops.cast(y, "int32")  # (B, T) = target_out
        weights = ops.cast(ops.not_equal(targets, self.pad_id), y_pred.dtype)
        losses = keras.losses.sparse_categorical_crossentropy(targets, y_pred, from_logits=True)  # (B, T)
        hits = ops.cast(ops.equal(ops.cast(ops.argmax(y_pred, axis=-1), "int32"), targets), y_pred.dtype)
        count = ops.sum(weights)
        self.token_accuracy.update_state(ops.sum(hits * weights) / ops.maximum(count, 1.0), sample_weight=count)
        return ops.sum(losses * weights) / ops.cast(ops.shape(targets)[0], y_pred.dtype)

    # -- step API (decoding) -------------------------------------------------------------------------------
    def initial_states(self, source_ids):
        """The decoder's initial states ``φ``: the encoder's final states for int `(batch, source_len)`, a list of
        `(batch, units)` tensors."""
        source = ops.cast(source_ids, "int32")
        _, phi = self._run(self.encoder_layers, self.source_embedding(source), ops.not_equal(source, self.pad_id),
                           None, False)
        return phi

    def next_token_log_probs(self, logits):
        """``log_softmax`` over the tokens a decoder may emit: `(..., vocab)` logits → log-probabilities.

        ``<pad>`` and ``<S>`` never come next (their log-probability is −inf): sampling at a high temperature or
        with ``top_p=1`` could otherwise emit ``<pad>``, which the decoder then masks out of its own prefix.
        """
        return emittable_log_probs(logits, self.vocab_size, self.pad_id, self.bos_id)

    def decoder_step(self, states, last_token_ids):
        """One decoder step: ``(log_probs, new_states)`` after reading ``last_token_ids``.

        Args:
            states: the list ``initial_states`` or the previous step returned, each `(batch, units)`.
            last_token_ids: int `(batch,)`, each hypothesis's last token.

        Returns:
            Log-probabilities `(batch, vocab)` as ``next_token_log_probs`` gives them, and the new states.
        """
        x = self.target_embedding(ops.cast(last_token_ids, "int32"))  # (B, E)
        per, new_states = self.states_per_layer, []
        for index, layer in enumerate(self.decoder_layers):
            x, layer_states = layer.cell(x, list(states[index * per : (index + 1) * per]), training=False)
            new_states += list(layer_states)
        return self.next_token_log_probs(self.output_layer(x)), new_states  # (B, V)

    def step_log_probs(self, source, prefixes) -> np.ndarray:
        """Next-token log-probabilities after each prefix given ``source``: float32 `(n, vocab)` (NumPy).

        Args:
            source: int `(source_len,)` (one source for all prefixes) or `(n, source_len)`, ``source_len`` at most
                ``MAX_SEQ2SEQ_TOKENS``.
            prefixes: int `(n, t)`, each starting with ``bos_id``; ``t`` at most ``MAX_DECODE_LENGTH + 1``, ``n ×
                vocab_size`` at most ``MAX_DECODE_CANDIDATES``. The model reads them in pieces of at most
                ``SCORE_TOKENS_PER_CALL`` tokens (sources included), so the work per call is bounded for any ``n``.

        Raises:
            ValueError: ``prefixes`` is not `(n, t)` with ``t ≥ 1``, ``source`` does not match it, a source
                holds only padding, an id outside ``[0, vocab_size)`` or a size over its bound (named); all
                checked before the model runs.
        """
        prefixes, source = check_prefixes(prefixes, self.vocab_size), np.asarray(source)
        check_length("source", source.shape[-1] if source.ndim else 0, MAX_SEQ2SEQ_TOKENS)
        source = check_token_ids("source", source, self.vocab_size)
        if source.ndim == 1:
            source = np.broadcast_to(source, (len(prefixes), len(source)))
        if source.ndim != 2 or len(source) != len(prefixes):
            raise ValueError(
                f"source must be (source_len,) or (n={len(prefixes)}, source_len), received shape {source.shape}"
            )
        if source.shape[1] == 0 or (source == self.pad_id).all(axis=1).any():
            raise ValueError("every source needs at least one word (a source of only padding has nothing to encode)")
        if self._compiled_step_log_probs is None:  # traced once, for every number and length of prefixes
            self._compiled_step_log_probs = id_graph_function(self._last_log_probs, 2)
        rows = max(1, SCORE_TOKENS_PER_CALL // (source.shape[1] + prefixes.shape[1]))
        parts = [ops.convert_to_numpy(self._compiled_step_log_probs(source[i : i + rows], prefixes[i : i + rows]))
                 for i in range(0, len(prefixes), rows)]
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def _last_log_probs(self, source, prefixes):
        """`(n, source_len)`, `(n, t)` → `(n, vocab)`: ``next_token_log_probs`` of the last prefix position."""
        return self.next_token_log_probs(self((source, prefixes), training=False)[:, -1])

    def step_log_probs_from_states(self, states, prefixes):
        """Float `(n, vocab_size)` next-token log-probabilities after each prefix int `(n, t)`, every row read from
        the decoder's initial ``states`` (each `(1, units)`: one source, or `(n, units)`), as ``HRED``'s."""
        return log_probs_after_prefixes(self, states, prefixes)

    def log_prob_fn(self, source):
        """``fn(prefixes) -> (n, vocab)`` for one int `(source_len,)` source: what ``elmo_keras.decoding``
        strategies take (see ``step_log_probs``). Its ``vocab_size`` lets them check their ids and sizes before
        the first call.

        Raises:
            ValueError: ``source`` is not 1-D, holds only padding, an id outside ``[0, vocab_size)`` or more than
                ``MAX_SEQ2SEQ_TOKENS`` tokens (checked here, before any work).
        """
        source = np.asarray(source)
        if source.ndim != 1 or not (source != self.pad_id).any():
            raise ValueError(f"source must be one source's int ids (source_len,) with at least one word, received "
                             f"shape {source.shape}{' of only padding' if source.ndim == 1 else ''}")
        check_length("source", len(source), MAX_SEQ2SEQ_TOKENS)
        source = check_token_ids("source", source, self.vocab_size)

        def next_log_probs(prefixes):
            return self.step_log_probs(source, prefixes)

        next_log_probs.vocab_size = self.vocab_size
        return next_log_probs

    def log_prob_fn_from_states(self, states):
        """A ``PrefixScorer``: ``fn(prefixes) -> (n, vocab)`` NumPy log-probabilities from fixed initial ``states``
        (each `(1, units)`, e.g. ``initial_states(source[None])``), one decoder step per call."""
        return PrefixScorer(self, states)

    def get_config(self):
        config = super().get_config()
        config.update({
            "vocab_size": self.vocab_size, "embedding_dim": self.embedding_dim, "units": self.units,
            "num_layers": self.num_layers, "cell": self.cell, "dropout": self.dropout,
            "pad_id": self.pad_id, "bos_id": self.bos_id, "eos_id": self.eos_id,
        })
        return config
