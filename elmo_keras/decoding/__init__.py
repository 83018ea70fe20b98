"""Decoding strategies over a next-token log-probability function.

Every strategy needs only ``next_log_probs(prefixes: int (n, t)) -> float (n, vocab)`` (each prefix starts with
``bos_id``), calls it once per step on all live hypotheses, and can return a ``DecodeTrace`` for display. So
the same functions decode the seq2seq model, the forward LM of a biLM, or a fixed probability table.

``BatchedBeamSearch`` / ``beam_search_batch`` run the same beam search for many sources at once on a model with
a step API (``encode`` / ``decode_step``, e.g. ``Seq2Seq``), compiled. The seed notes' worked examples are tables,
not strategies: they live in ``elmo_keras.decoding.worked_examples``.

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
    from elmo_keras.decoding.sampling import sample
    from elmo_keras.decoding.table_model import NGramTable, PrefixTable
    from elmo_keras.decoding.trace import Candidates, DecodeTrace, StepTrace

__all__ = [
    "MAX_DECODE_CANDIDATES", "MAX_DECODE_LENGTH", "MAX_DECODE_TOKENS", "MAX_EXHAUSTIVE_SEQUENCES",
    "BatchedBeamSearch", "Candidates", "DecodeTrace", "Hypothesis", "NGramTable",
    "PrefixTable", "StepTrace", "apply_temperature", "beam_search", "beam_search_batch", "count_sequences",
    "exhaustive_search", "filter_distribution", "greedy", "length_normalized_score", "nucleus_indices", "sample",
    "token_labels", "top_k_indices",
]
