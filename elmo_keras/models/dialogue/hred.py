"""``HRED``: a hierarchical recurrent encoder-decoder for dialogue (Serban et al. 2016), with a step API.

Words make utterances, utterances make a dialogue:

* utterance encoder (``RNN_1``, shared by every utterance): ``m_t`` = the last hidden state after reading the
  words of utterance ``t``;
* context RNN over the utterance vectors: ``c_1`` = its initial state (zeros), ``c_t = f(c_{t−1}, m_{t−1})``, so
  ``c_t`` summarises utterances ``1 … t−1`` and **never** utterance ``t`` itself;
* decoder: for the response (utterance ``n``, after ``n − 1`` history turns) its initial state is
  ``tanh(W c_n + b)`` (a dense layer: the context and decoder widths may differ); it reads ``<bos> y_1 … y_k``
  (teacher forcing) and a dense layer scores the vocabulary.

``feed_context=True`` also feeds the decoder's conditioning (``c``; VHRED: ``[c; z]``) at every step, concatenated
to the word embedding (as Serban et al. do), so it need not survive in the recurrent state until the word that
depends on it: the toy replies' topic words come third or fourth (“i love *live music*”). The conditioning is then
the last entry of the decoder states, carried unchanged from step to step.

``last_turn_only=True`` is the ablation without dialogue context: the context RNN reads only the last history
turn, so the decoder sees ``c = f(0, m_{n−1})`` and nothing said before.

The loss is the per-response sum of token cross-entropies, padding masked, averaged over the batch (as
``Seq2Seq``'s). Dialogues are int ids `(batch, turns, words)`, right-padded in both axes: padded words and whole
padded turns are masked.
"""

from __future__ import annotations

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int, check_rate
from elmo_keras.decoding.prefix_scorer import PrefixScorer, emittable_log_probs, log_probs_after_prefixes
from elmo_keras.models.dialogue.config import CELLS, DialogueConfig
from elmo_keras.models.dialogue.encoding import check_history_ids
from elmo_keras.models.model_directory import ModelDirectory
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID, UNK_ID


def response_cross_entropy(targets, logits, pad_id: int):
    """Per-response sum of token cross-entropies and the number of real tokens.

    Args:
        targets: int `(batch, response_len)` (``y_1 … y_k <eos>``, padded with ``pad_id``).
        logits: float `(batch, response_len, vocab)`.
        pad_id: int, the padding id (masked out).

    Returns:
        ``(sums (batch,), token_count scalar)``, both float.
    """
    targets = ops.cast(targets, "int32")
    weights = ops.cast(ops.not_equal(targets, pad_id), logits.dtype)  # (B, L)
    losses = keras.losses.sparse_categorical_crossentropy(targets, logits, from_logits=True)  # (B, L)
    return ops.sum(losses * weights, axis=-1), ops.sum(weights)


@keras.saving.register_keras_serializable(package="elmo_keras")
class HRED(ModelDirectory, keras.Model):
    """Hierarchical recurrent encoder-decoder: utterance encoder → context RNN → decoder.

    Args:
        vocab_size: int, the shared vocabulary's size (one word embedding for the utterance encoder and the
            decoder).
        embedding_dim: int, word embedding width. Defaults to 32.
        utterance_units: int, the utterance encoder's hidden units (width of ``m_t``). Defaults to 64.
        context_units: int, the context RNN's hidden units (width of ``c_t``). Defaults to 64.
        decoder_units: int, the decoder's hidden units. Defaults to 64.
        cell: ``"gru"`` or ``"lstm"``, for all three RNNs. Defaults to ``"gru"``.
        word_dropout: float in ``[0, 1)``, the rate at which the decoder's input words (not ``<bos>``, not padding)
            are replaced by ``unk_id`` during training (never at inference). Defaults to 0.
        seed: int, seeds the word-dropout draws. Defaults to 0.
        last_turn_only: bool, read only the last history turn (the ablation without context). Defaults to False.
        feed_context: bool, the decoder also reads its conditioning at every step. Defaults to False.
        pad_id, bos_id, eos_id, unk_id: int special ids in ``[0, vocab_size)``. Default to the ``Vocabulary``'s.

    Call arguments:
        inputs: dict ``{"history": int (batch, turns, words), "response_in": int (batch, response_len)}``;
            ``response_in`` starts with ``bos_id``. Both right-padded with ``pad_id``.
        training: bool; word dropout only when True.

    Returns:
        Logits `(batch, response_len, vocab_size)`: position ``t`` scores the token after ``response_in[:, :t+1]``.

    Step API (the decoder step API ``Seq2Seq`` shares, see ``elmo_keras.decoding``; the conditioning is one
    dialogue's history): ``initial_states(history) -> states`` (the encoders run once: ``decoder_states(c)`` of
    ``c = context_vector(history)`` `(batch, context_units)`), ``decoder_step(states, last_token_ids) -> (log_probs,
    new_states)``, ``step_log_probs(history, prefixes)`` / ``step_log_probs_from_states(states, prefixes)`` (every
    prefix re-read) and ``log_prob_fn(history)`` / ``log_prob_fn_from_states(states)`` (``next_log_probs`` for the
    strategies).

    Example:
        >>> import numpy as np
        >>> model = HRED(vocab_size=20, utterance_units=8, context_units=8, decoder_units=8)
        >>> history = np.array([[[5, 6, 0], [7, 0, 0]]])  # one dialogue, two turns
        >>> tuple(model({"history": history, "response_in": np.array([[2, 9, 4]])}).shape)
        (1, 3, 20)
    """

    directory_config = DialogueConfig  # model.save(directory) / HRED.from_preset(directory) (VHRED too)

    def __init__(self, vocab_size, embedding_dim=32, utterance_units=64, context_units=64, decoder_units=64,
                 cell="gru", word_dropout=0.0, seed=0, last_turn_only=False, feed_context=False,
                 pad_id=PAD_ID, bos_id=BOS_ID, eos_id=EOS_ID, unk_id=UNK_ID, **kwargs):
        super().__init__(**kwargs)
        for name, value in (("vocab_size", vocab_size), ("embedding_dim", embedding_dim),
                            ("utterance_units", utterance_units), ("context_units", context_units),
                            ("decoder_units", decoder_units)):
            check_int(value, name)
        if cell not in CELLS:
            raise ValueError(f"cell must be one of {CELLS}, received {cell!r}")
        check_rate(word_dropout, "word_dropout")
        for name, value in (("last_turn_only", last_turn_only), ("feed_context", feed_context)):
            if not isinstance(value, bool):
                raise ValueError(f"{name} must be True or False, received {value!r}")
        for name, value in (("pad_id", pad_id), ("bos_id", bos_id), ("eos_id", eos_id), ("unk_id", unk_id)):
            if not 0 <= value < vocab_size:
                raise ValueError(f"{name} must be in [0, vocab_size={vocab_size}), received {value!r}")
        self.vocab_size, self.embedding_dim = vocab_size, embedding_dim
        self.utterance_units, self.context_units, self.decoder_units = utterance_units, context_units, decoder_units
        self.cell, self.word_dropout, self.seed = cell, float(word_dropout), int(seed)
        self.last_turn_only, self.feed_context = last_turn_only, feed_context
        self.pad_id, self.bos_id, self.eos_id, self.unk_id = pad_id, bos_id, eos_id, unk_id
        rnn = keras.layers.GRU if cell == "gru" else keras.layers.LSTM
        self.word_embedding = keras.layers.Embedding(vocab_size, embedding_dim, name="word_embedding")
        self.utterance_encoder = rnn(utterance_units, name="utterance_encoder", dtype=self.dtype_policy)
        self.context_rnn = rnn(context_units, return_sequences=True, return_state=True, name="context_rnn",
                               dtype=self.dtype_policy)
        self.decoder_init = keras.layers.Dense(decoder_units * self.states_per_layer, activation="tanh",
                                               name="decoder_init", dtype=self.dtype_policy)
        self.decoder = rnn(decoder_units, return_sequences=True, name="decoder", dtype=self.dtype_policy)
        self.output_layer = keras.layers.Dense(vocab_size, name="output", dtype=self.dtype_policy)
        self.word_dropout_seed = keras.random.SeedGenerator(self.seed, name="word_dropout_seed")
        self.reconstruction_per_token = keras.metrics.Mean(name="reconstruction_per_token")
        self.vocabulary = None  # set by train_dialogue_model / load_dialogue_model
        self.config = None
        self.training_summary = {}

    @property
    def states_per_layer(self) -> int:
        """State tensors of the decoder: 1 for a GRU (``h``), 2 for an LSTM (``h, c``)."""
        return 1 if self.cell == "gru" else 2

    def decoder_init_width(self) -> int:
        """Width of what ``decoder_init`` reads: ``c`` (VHRED: ``[c; z]``)."""
        return self.context_units

    def build(self, input_shape=None):
        self.word_embedding.build((None, None))
        self.utterance_encoder.build((None, None, self.embedding_dim))
        self.context_rnn.build((None, None, self.utterance_units))
        self.decoder_init.build((None, self.decoder_init_width()))
        self.decoder.build((None, None, self.embedding_dim + (self.decoder_init_width() if self.feed_context else 0)))
        self.output_layer.build((None, None, self.decoder_units))

    # -- encoders ------------------------------------------------------------------------------------------
    def utterance_vectors(self, utterances):
        """``m``: int `(batch, words)` utterances → float `(batch, utterance_units)` (padded words masked)."""
        utterances = ops.cast(utterances, "int32")
        return self.utterance_encoder(self.word_embedding(utterances), mask=ops.not_equal(utterances, self.pad_id))

    def _context_run(self, history):
        """The context RNN over the history's utterance vectors: ``(outputs (B, T, H_c), final h (B, H_c))``."""
        history = ops.cast(history, "int32")
        if self.last_turn_only:
            history = self.last_turns(history)
        batch, turns, words = ops.shape(history)[0], ops.shape(history)[1], ops.shape(history)[2]
        m = self.utterance_vectors(ops.reshape(history, (-1, words)))  # (B·T, H_u)
        m = ops.reshape(m, (batch, turns, self.utterance_units))  # (B, T, H_u)
        turn_mask = ops.any(ops.not_equal(history, self.pad_id), axis=-1)  # (B, T): padded turns masked
        outputs, final_h, *_ = self.context_rnn(m, mask=turn_mask)
        return outputs, final_h

    def last_turns(self, history):
        """The last real turn of each history: int `(batch, 1, words)` from `(batch, turns, words)` (turns are
        right-padded, so it is turn ``count − 1``)."""
        count = ops.sum(ops.cast(ops.any(ops.not_equal(history, self.pad_id), axis=-1), "int32"), axis=-1)  # (B,)
        index = ops.maximum(count - 1, 0)[:, None, None]  # (B, 1, 1)
        index = ops.broadcast_to(index, (ops.shape(history)[0], 1, ops.shape(history)[2]))
        return ops.take_along_axis(history, index, axis=1)

    def context_vector(self, history):
        """``c_n``: the context after every history turn, float `(batch, context_units)`.

        Args:
            history: int `(batch, turns, words)`, right-padded (padded turns are all ``pad_id``).
        """
        return self._context_run(history)[1]

    def context_states(self, history):
        """``c_1 … c_{T+1}``: float `(batch, turns + 1, context_units)`; ``c_t`` has read utterances ``1 … t−1``
        only (``c_1`` is the initial state, zeros), ``c_{T+1} = context_vector(history)`` for unpadded rows."""
        outputs, _ = self._context_run(history)
        initial = ops.zeros_like(outputs[:, :1])  # (B, 1, H_c)
        return ops.concatenate([initial, outputs], axis=1)

    # -- decoder -------------------------------------------------------------------------------------------
    def decoder_states(self, context):
        """The decoder's initial states from ``context`` `(batch, decoder_init_width())`: a list of
        `(batch, decoder_units)` (``h``, or ``h, c`` for an LSTM), and with ``feed_context`` ``context`` itself
        last (what every step reads)."""
        start = self.decoder_init(context)  # (B, units · states)
        states = [start[:, i * self.decoder_units : (i + 1) * self.decoder_units] for i in range(self.states_per_layer)]
        return states + [context] if self.feed_context else states

    def _decoder_inputs(self, states, embedded):
        """``(the recurrent states, the decoder's inputs)``: ``embedded`` `(batch, [length,] embedding_dim)` with the
        conditioning (the last state, with ``feed_context``) concatenated at every position."""
        states = list(states)
        if not self.feed_context:
            return states, embedded
        condition = ops.cast(states[-1], embedded.dtype)
        if len(embedded.shape) == 3:
            condition = ops.repeat(ops.expand_dims(condition, 1), ops.shape(embedded)[1], axis=1)
        return states[:-1], ops.concatenate([embedded, condition], axis=-1)

    def initial_states(self, history):
        """The decoder's initial states for int `(batch, turns, words)` histories: ``decoder_states(
        context_vector(history))`` (VHRED: at the prior's mean ``z``)."""
        return self.decoder_states(self.context_vector(history))

    def _dropped_words(self, response_in, training):
        """``response_in`` with words (not ``<bos>``, not padding) replaced by ``unk_id`` at ``word_dropout``'s rate,
        in training only."""
        if not training or self.word_dropout == 0.0:
            return response_in
        draws = keras.random.uniform(ops.shape(response_in), seed=self.word_dropout_seed)
        is_word = ops.logical_and(ops.not_equal(response_in, self.pad_id), ops.not_equal(response_in, self.bos_id))
        drop = ops.logical_and(is_word, draws < self.word_dropout)
        return ops.where(drop, self.unk_id, response_in)

    def decoder_logits(self, states, response_in, training=False):
        """Teacher-forced decoder: states (as ``decoder_states`` gives) and int `(batch, length)` inputs → logits
        `(batch, length, vocab_size)`."""
        response_in = ops.cast(response_in, "int32")
        mask = ops.not_equal(response_in, self.pad_id)
        words = self._dropped_words(response_in, training)
        states, inputs = self._decoder_inputs(states, self.word_embedding(words))
        top = self.decoder(inputs, mask=mask, initial_state=states)  # (B, L, H_d)
        return self.output_layer(top)

    def call(self, inputs, training=None):
        history, response_in = inputs["history"], inputs["response_in"]
        return self.decoder_logits(self.initial_states(history), response_in, training)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """Per-response sum of token cross-entropies (padding masked), averaged over the batch.

        ``y``: int ``response_out`` `(batch, response_len)`; ``y_pred``: logits. Also updates
        ``reconstruction_per_token`` (the same cross-entropy per real token).
        """
        sums, count = response_cross_entropy(y, y_pred, self.pad_id)
        self.reconstruction_per_token.update_state(ops.sum(sums) / ops.maximum(count, 1.0), sample_weight=count)
        return ops.mean(sums)

    # -- step API (decoding) -------------------------------------------------------------------------------
    def next_token_log_probs(self, logits):
        """``log_softmax`` over the tokens the decoder may emit (``<pad>``, ``<S>``: −inf; ``emittable_log_probs``)."""
        return emittable_log_probs(logits, self.vocab_size, self.pad_id, self.bos_id)

    def decoder_step(self, states, last_token_ids):
        """One decoder step: ``(log_probs (batch, vocab), new_states)`` after reading int `(batch,)` tokens."""
        recurrent, x = self._decoder_inputs(states, self.word_embedding(ops.cast(last_token_ids, "int32")))  # (B, E)
        x, new_states = self.decoder.cell(x, recurrent, training=False)
        kept = [states[-1]] if self.feed_context else []  # the conditioning, unchanged
        return self.next_token_log_probs(self.output_layer(x)), list(new_states) + kept

    def step_log_probs_from_states(self, states, prefixes):
        """Next-token log-probabilities after each prefix, every row starting from the same ``states``.

        Args:
            states: the decoder's initial states, each `(1, decoder_units)` (one context) or `(n, decoder_units)`.
            prefixes: int `(n, t)`, each starting with ``bos_id``.

        Returns:
            float `(n, vocab_size)`.
        """
        return log_probs_after_prefixes(self, states, prefixes)

    def step_log_probs(self, history, prefixes):
        """Next-token log-probabilities after each prefix given one dialogue ``history`` int `(turns, words)`:
        float32 `(n, vocab_size)` (NumPy), ``log_prob_fn(history)(prefixes)``.

        Raises:
            ValueError: ``history`` as ``log_prob_fn`` refuses it, or ``prefixes`` as ``check_prefixes`` does,
                before the model reads them.
        """
        return self.log_prob_fn(history)(prefixes)

    def log_prob_fn(self, history):
        """``fn(prefixes int (n, t)) -> float (n, vocab)`` (NumPy) for one dialogue history int `(turns, words)`:
        what ``elmo_keras.decoding``'s strategies take.

        Raises:
            ValueError: ``history`` is refused by ``encoding.check_history_ids`` (ids outside the vocabulary, only
                padding, an empty turn, over the bounds), before the model reads it.
        """
        history = check_history_ids(history, self)
        return self.log_prob_fn_from_states(self.initial_states(ops.expand_dims(history, 0)))

    def log_prob_fn_from_states(self, states):
        """A ``PrefixScorer``: ``fn(prefixes) -> (n, vocab)`` NumPy log-probabilities from fixed initial ``states``
        (each `(1, decoder_units)`), one decoder step per call."""
        return PrefixScorer(self, states)

    def architecture(self) -> dict:
        """The fields of ``training.json``'s config that fix the weights (checked when a directory is loaded)."""
        return {"kind": type(self).__name__.lower(), "cell": self.cell, "embedding_dim": self.embedding_dim,
                "utterance_units": self.utterance_units, "context_units": self.context_units,
                "decoder_units": self.decoder_units, "feed_context": self.feed_context}

    def get_config(self):
        config = super().get_config()
        config.update({
            "vocab_size": self.vocab_size, "embedding_dim": self.embedding_dim,
            "utterance_units": self.utterance_units, "context_units": self.context_units,
            "decoder_units": self.decoder_units, "cell": self.cell, "word_dropout": self.word_dropout,
            "seed": self.seed, "last_turn_only": self.last_turn_only, "feed_context": self.feed_context,
            "pad_id": self.pad_id, "bos_id": self.bos_id, "eos_id": self.eos_id, "unk_id": self.unk_id,
        })
        return config
