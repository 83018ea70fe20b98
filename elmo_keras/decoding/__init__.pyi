"""The names ``elmo_keras.decoding`` exports (read by ``_lazy.attach_stub``)."""

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
