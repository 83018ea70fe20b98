"""How well a ``Seq2Seq`` trained on the toy corpus does on its held-out sources."""

from __future__ import annotations

import numpy as np

from elmo_keras._quiet import ops
from elmo_keras.data.seq2seq import seq2seq_references
from elmo_keras.decoding._checks import check_max_len, check_rows
from elmo_keras.decoding.batched_beam import beam_search_batch
from elmo_keras.models.seq2seq.encoding import encode_pairs
from elmo_keras.models.seq2seq.model import Seq2Seq
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID


def evaluate_seq2seq(model: Seq2Seq, split: str = "heldout", beam_size: int = 5, max_len: int = 20) -> dict:
    """Held-out quality of a model trained on the toy corpus.

    Args:
        model: a ``Seq2Seq`` carrying its ``vocabulary``.
        split: the toy corpus's sources to score: ``"heldout"``, ``"train"`` or ``"all"``. Defaults to
            ``"heldout"``.
        beam_size: int, the beam for ``beam_valid``. Defaults to 5.
        max_len: int, most tokens decoded per source (at most ``MAX_DECODE_LENGTH``). Defaults to 20.

    Returns:
        ``reference_token_accuracy``: teacher-forced token accuracy (``<eos>`` included) against each source's
        most frequent target; ``beam_valid`` / ``greedy_valid``: fraction of sources whose top beam-search
        (``beam_size``) / greedy output is one of its valid targets; ``num_sources``.

    Raises:
        ValueError: a bad ``beam_size`` or ``max_len`` (see ``BatchedBeamSearch``), before any work.
    """
    max_len = check_max_len(max_len)
    beam_size = check_rows("beam_size", beam_size, max_len)
    references = seq2seq_references(split)
    sources = list(references)
    inputs, target_out = encode_pairs([(s.split(), refs[0][0].split()) for s, refs in references.items()],
                                      model.vocabulary)
    predicted = np.argmax(ops.convert_to_numpy(model((inputs["source"], inputs["target_in"]))), axis=-1)
    mask = target_out != PAD_ID
    result = {"num_sources": len(sources),
              "reference_token_accuracy": float((predicted == target_out)[mask].mean())}
    for name, k in (("greedy_valid", 1), ("beam_valid", beam_size)):
        best = beam_search_batch(model, inputs["source"], BOS_ID, EOS_ID, max_len, k, pad_id=PAD_ID)
        outputs = [" ".join(h[0].words(model.vocabulary)) for h in best]
        result[name] = float(np.mean([out in dict(references[s]) for s, out in zip(sources, outputs)]))
    return result
