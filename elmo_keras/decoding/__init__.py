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
(``initial_states`` / ``decoder_step``, e.g. ``Seq2Seq``), compiled. The seed notes' worked examples are tables,
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

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.decoding._checks": ["MAX_DECODE_CANDIDATES", "MAX_DECODE_LENGTH", "MAX_DECODE_TOKENS"],
    "elmo_keras.decoding.batched_beam": ["BatchedBeamSearch", "beam_search_batch"],
    "elmo_keras.decoding.beam": ["beam_search"],
    "elmo_keras.decoding.exhaustive": ["MAX_EXHAUSTIVE_SEQUENCES", "count_sequences", "exhaustive_search"],
    "elmo_keras.decoding.filtering": ["apply_temperature", "filter_distribution", "nucleus_indices", "top_k_indices"],
    "elmo_keras.decoding.greedy": ["greedy"],
    "elmo_keras.decoding.hypothesis": ["Hypothesis", "length_normalized_score", "token_labels"],
    "elmo_keras.decoding.prefix_scorer": ["PrefixScorer"],
    "elmo_keras.decoding.sampling": ["sample"],
    "elmo_keras.decoding.table_model": ["NGramTable", "PrefixTable"],
    "elmo_keras.decoding.trace": ["Candidates", "DecodeTrace", "StepTrace"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras.decoding._checks import MAX_DECODE_CANDIDATES, MAX_DECODE_LENGTH, MAX_DECODE_TOKENS
    from elmo_keras.decoding.batched_beam import BatchedBeamSearch, beam_search_batch
    from elmo_keras.decoding.beam import beam_search
    from elmo_keras.decoding.exhaustive import MAX_EXHAUSTIVE_SEQUENCES, count_sequences, exhaustive_search
    from elmo_keras.decoding.filtering import apply_temperature, filter_distribution, nucleus_indices, top_k_indices
    from elmo_keras.decoding.greedy import greedy
    from elmo_keras.decoding.hypothesis import Hypothesis, length_normalized_score, token_labels
    from elmo_keras.decoding.prefix_scorer import PrefixScorer
    from elmo_keras.decoding.sampling import sample
    from elmo_keras.decoding.table_model import NGramTable, PrefixTable
    from elmo_keras.decoding.trace import Candidates, DecodeTrace, StepTrace

__all__ = [
    "MAX_DECODE_CANDIDATES", "MAX_DECODE_LENGTH", "MAX_DECODE_TOKENS", "MAX_EXHAUSTIVE_SEQUENCES",
    "BatchedBeamSearch", "Candidates", "DecodeTrace", "Hypothesis", "NGramTable", "PrefixScorer",
    "PrefixTable", "StepTrace", "apply_temperature", "beam_search", "beam_search_batch", "count_sequences",
    "exhaustive_search", "filter_distribution", "greedy", "length_normalized_score", "nucleus_indices", "sample",
    "token_labels", "top_k_indices",
]
