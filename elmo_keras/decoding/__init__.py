"""Decoding strategies over a next-token log-probability function.

Every strategy needs only ``next_log_probs(prefixes: int (n, t)) -> float (n, vocab)`` (each prefix starts with
``bos_id``), calls it once per step on all live hypotheses, and can return a ``DecodeTrace`` for display. So
the same functions decode the seq2seq model, the forward LM of a biLM, or a fixed probability table.

The encoder-decoders (``Seq2Seq``; ``HRED`` and ``VHRED``) share one decoder step API, the *conditioning* being
a source (int `(batch, source_len)`) or dialogue histories (int `(batch, turns, words)`):

* ``initial_states(conditioning) -> states``: the encoder run once, the decoder's initial states (a list of
  `(batch, units)` tensors);
* ``decoder_step(states, last_token_ids int (batch,)) -> (log_probs (batch, vocab), new_states)``: one token;
* ``step_log_probs(conditioning, prefixes int (n, t)) -> float32 (n, vocab)`` (NumPy, checked) and
  ``step_log_probs_from_states(states, prefixes)``: the next token after each prefix, every prefix re-read (one
  conditioning: a 1-D source or one `(turns, words)` history; ``Seq2Seq`` also takes one source per row);
* ``log_prob_fn(conditioning)`` / ``log_prob_fn_from_states(states)``: a ``next_log_probs`` for the strategies
  (``PrefixScorer`` adapts any step model to it, one ``decoder_step`` per call).

``BatchedBeamSearch`` / ``beam_search_batch`` run the same beam search for many sources at once on a step model
(``initial_states`` / ``decoder_step``, e.g. ``Seq2Seq``), compiled. The classic worked examples are tables,
not strategies: they live in ``elmo_keras.decoding.worked_examples``.

One meaning per word in the public API:

* ``next_log_probs``: only the contract above, ``fn(prefixes) -> (n, vocab)``;
* *decode*: run a decoding strategy, searching for the output tokens (``greedy``, ``beam_search``, ``sample``,
  ``exhaustive_search``, ``DecodeTrace``, ``MAX_DECODE_*``; for tags, ``TagHead.decode`` / ``CRF.viterbi_decode``);
* *decoder*: the network that emits the tokens (``decoder_step``, ``decoder_logits``, ``decoder_states``);
* *encode*: text (tokens, labels, dialogues) to integer ids (``Vocabulary.encode``, ``encode_sources``,
  ``encode_pairs``, ``encode_sentences``, ``encode_labels``, ``encode_history``, ``encode_dialogues``,
  ``TaggingVocabulary.encode_inputs`` / ``encode_tags``); running an encoder RNN is ``initial_states`` (and HRED's
  ``context_vector`` / ``utterance_vectors``);
* ids back to text: ``Vocabulary.ids_to_tokens``, ``TaggingVocabulary.ids_to_tags``.

Sizes are bounded before any work: ``max_len`` ≤ ``MAX_DECODE_LENGTH``, hypotheses × ``max_len`` ≤
``MAX_DECODE_TOKENS``, hypotheses × vocabulary ≤ ``MAX_DECODE_CANDIDATES`` (see ``_checks``).
"""

from elmo_keras._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
