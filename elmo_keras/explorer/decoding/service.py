"""Side-by-side decoding on the toy seq2seq model: greedy, beam, top-k and nucleus sampling, with traces.

The seq2seq model is shipped, or trained on first use (``SEQ2SEQ_MODELS``: ``Seq2SeqTraining`` runs
``train_default_seq2seq`` in the background), and saved beside the biLMs under the reserved name ``seq2seq-toy``.
``compare_strategies`` is the decoding page's one service call: every strategy on one source, each output with its
total and per-token log-probabilities, ``num_samples`` draws per sampling strategy with their diversity, and the
traces the beam tree and the distribution chart need.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from elmo_keras.data.seq2seq import seq2seq_references
from elmo_keras.decoding import beam_search, greedy, sample
from elmo_keras.decoding.trace import DecodeTrace
from elmo_keras.explorer.background import BackgroundJob
from elmo_keras.explorer.first_use import page_models
from elmo_keras.explorer.model_store import SEQ2SEQ_DIR_NAME, ModelRef
from elmo_keras.explorer.typed_text import typed_tokens
from elmo_keras.models.directory_files import MODEL_DIR_ENTRIES
from elmo_keras.models.seq2seq import Seq2SeqConfig, load_seq2seq, save_seq2seq, train_seq2seq
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, SPECIAL_TOKENS

GREEDY, BEAM, TOP_K, NUCLEUS = "greedy", "beam", "top-k sampling", "nucleus sampling"
STRATEGIES = (GREEDY, BEAM, TOP_K, NUCLEUS)
MAX_SOURCE_TOKENS = 20


@dataclass(frozen=True)
class DecodeSettings:
    """The decoding page's controls.

    Attributes:
        beam_size: int, the beam's width ``k``.
        top_k: int, top-k sampling's ``k``.
        top_p: float in ``(0, 1]``, nucleus sampling's ``p``.
        temperature: float > 0, applied to both sampling strategies.
        length_penalty: float, beam search's ``α`` (0: rank by total log-probability).
        max_len: int, most tokens generated per output, ``</S>`` included.
        num_samples: int, draws per sampling strategy.
        seed: int, the sampling seed (each sampling strategy gets its own stream from it).
    """

    beam_size: int = 3
    top_k: int = 5
    top_p: float = 0.9
    temperature: float = 1.0
    length_penalty: float = 0.0
    max_len: int = 12
    num_samples: int = 10
    seed: int = 0


@dataclass(frozen=True)
class Output:
    """One decoded sequence: its words, total log-probability, score and per-token log-probabilities."""

    text: str
    log_prob: float
    score: float
    finished: bool
    tokens: pd.DataFrame  # token, log_prob (one row per generated token, </S> included when emitted)


@dataclass(frozen=True)
class StrategyResult:
    """One strategy's outputs on one source, with its trace (for the tree and distribution charts)."""

    name: str
    params: str  # the settings that apply, for the column header
    outputs: list  # [Output], best first (beam) or in draw order (sampling)
    trace: DecodeTrace
    diversity: dict | None  # sampling only: samples, distinct, distinct_fraction, repetition, mean_log_prob


@dataclass(frozen=True)
class DecodingView:
    """What the decoding page shows: the source as the model reads it, the settings and every strategy's result."""

    source: str
    settings: DecodeSettings
    results: dict  # strategy name → StrategyResult
    vocabulary: object


# -- the model on disk ---------------------------------------------------------------------------------------
def seq2seq_ref(models_dir: str | os.PathLike) -> ModelRef | None:
    """The saved seq2seq model, or None if it has not been trained yet."""
    path = pathlib.Path(models_dir) / SEQ2SEQ_DIR_NAME / "model.keras"
    if not path.is_file() or not (path.parent / "vocabulary.json").is_file():
        return None
    return ModelRef.of(models_dir, SEQ2SEQ_DIR_NAME)


def train_default_seq2seq(models_dir: str | os.PathLike, progress: Callable[[int, dict], None] | None = None,
                          seed: int = 0, **overrides) -> ModelRef:
    """Train the toy seq2seq model (``Seq2SeqConfig`` defaults, or ``overrides``) and save it.

    Args:
        models_dir: the models directory; the model goes into ``SEQ2SEQ_DIR_NAME`` there.
        progress: called as ``progress(epoch, logs)`` after every epoch. Defaults to None.
        seed: int, the training seed. Defaults to 0.
        **overrides: ``Seq2SeqConfig`` fields (``epochs=5``).

    Returns:
        The saved model's ``ModelRef``.
    """
    model = train_seq2seq(seed=seed, callbacks=[progress] if progress else None, **overrides)
    save_seq2seq(model, pathlib.Path(models_dir) / SEQ2SEQ_DIR_NAME)
    return seq2seq_ref(models_dir)


def load_seq2seq_model(ref: ModelRef):
    """The ``Seq2Seq`` saved at ``ref`` (errors as ``models.seq2seq.load_seq2seq``)."""
    return load_seq2seq(ref.path)


def default_epochs() -> int:
    """The epochs ``train_default_seq2seq`` trains for without overrides."""
    return Seq2SeqConfig().epochs


class Seq2SeqTraining(BackgroundJob):
    """``train_default_seq2seq`` in a background thread (see ``BackgroundJob``), followed epoch by epoch for the
    progress bar; ``result`` holds the saved model's ``ModelRef``."""

    def __init__(self, models_dir: str | os.PathLike, **overrides):
        self.epochs = int(overrides.get("epochs", default_epochs()))
        self.epoch, self.loss = 0, None
        super().__init__(lambda: train_default_seq2seq(models_dir, progress=self._progress, **overrides),
                         "elmo-keras-seq2seq")

    def _progress(self, epoch: int, logs: dict) -> None:
        self.epoch, self.loss = int(epoch), logs.get("loss")

    @property
    def fraction(self) -> float:
        """Share of the epochs finished, for the progress bar."""
        return min(1.0, self.epoch / max(self.epochs, 1))

    def status(self) -> str:
        """One line for the progress bar."""
        if self.epoch >= self.epochs:
            return "Saving the seq2seq model…"
        if self.loss is None:
            return "First use: training the toy seq2seq model…"
        return f"First use: training the toy seq2seq model: epoch {self.epoch}/{self.epochs}, loss {self.loss:.2f}"


# the page's model, declared once; ready_seq2seq_ref installs the shipped one (None only where the package ships
# none), Seq2SeqTraining trains it, discard_seq2seq deletes it (refused where its directory holds files the page did
# not write)
SEQ2SEQ_MODELS = page_models("decoding", "toy seq2seq model", start=Seq2SeqTraining, saved=seq2seq_ref,
                             load=load_seq2seq_model, directories={SEQ2SEQ_DIR_NAME: MODEL_DIR_ENTRIES},
                             shipped=(SEQ2SEQ_DIR_NAME,))
ready_seq2seq_ref, discard_seq2seq = SEQ2SEQ_MODELS.ready, SEQ2SEQ_MODELS.discard


def source_choices() -> list[str]:
    """Sources of the toy dataset, held-out ones first (the model never saw them)."""
    heldout = list(seq2seq_references("heldout"))
    return heldout + [s for s in seq2seq_references("train") if s not in heldout]


def encode_source(text: str, vocabulary) -> list[int]:
    """Word ids of a typed source, lowercased and split by ``tokenize``.

    Raises:
        ValueError: an empty source, more than ``MAX_SOURCE_TOKENS`` words, or words the model does not know
            (listed, with the model's vocabulary).
    """
    words = [t.lower() for t in typed_tokens(text, MAX_SOURCE_TOKENS, empty="Type a source sentence, or pick one "
                                             "from the dataset.", what="The source", unit="words")]
    unknown = [w for w in dict.fromkeys(words) if w not in vocabulary or w in SPECIAL_TOKENS]
    if unknown:
        known = sorted(t for t in vocabulary.tokens if t not in SPECIAL_TOKENS)
        raise ValueError(f"The model does not know {', '.join(repr(w) for w in unknown)}. "
                         f"Its {len(known)} words: {' '.join(known)}.")
    return vocabulary.encode(words)


# -- per-token log-probabilities and diversity -------------------------------------------------------------------
def token_log_probs(next_log_probs, sequences: list[tuple[int, ...]], bos_id: int = BOS_ID) -> list[np.ndarray]:
    """Each token's log-probability given its prefix, batched over ``sequences`` (one model call per position).

    Args:
        next_log_probs: ``fn(prefixes int (n, t)) -> (n, vocab)`` log-probabilities.
        sequences: token-id tuples without ``<S>``.
        bos_id: int, the id every prefix starts with. Defaults to ``BOS_ID``.

    Returns:
        One float64 `(len(sequence),)` array per sequence.
    """
    result = [np.zeros(len(s)) for s in sequences]
    for position in range(max((len(s) for s in sequences), default=0)):
        rows = [i for i, s in enumerate(sequences) if len(s) > position]
        prefixes = np.array([(bos_id, *sequences[i][:position]) for i in rows], dtype=np.int64)
        log_probs = np.asarray(next_log_probs(prefixes), dtype=np.float64)  # (len(rows), V)
        for row, i in enumerate(rows):
            result[i][position] = log_probs[row, sequences[i][position]]
    return result


def repetition_rate(tokens) -> float:
    """Fraction of an output's words that repeat an earlier word of the same output."""
    tokens = list(tokens)
    return 0.0 if not tokens else 1.0 - len(set(tokens)) / len(tokens)


def diversity(outputs: list[Output]) -> dict:
    """How different ``outputs`` are: distinct texts, mean within-output repetition, mean log-probability."""
    texts = [o.text for o in outputs]
    return {
        "samples": len(texts),
        "distinct": len(set(texts)),
        "distinct_fraction": len(set(texts)) / max(len(texts), 1),
        "repetition": float(np.mean([repetition_rate(t.split()) for t in texts])) if texts else 0.0,
        "mean_log_prob": float(np.mean([o.log_prob for o in outputs])) if outputs else float("nan"),
    }


def _outputs(hypotheses, next_log_probs, vocabulary) -> list[Output]:
    per_token = token_log_probs(next_log_probs, [h.tokens for h in hypotheses])
    return [
        Output(h.text(vocabulary), h.log_prob, h.score, h.finished,
               pd.DataFrame({"token": vocabulary.ids_to_tokens(h.tokens), "log_prob": values}))
        for h, values in zip(hypotheses, per_token)
    ]


def run_strategies(next_log_probs, vocabulary, settings: DecodeSettings, bos_id: int = BOS_ID,
                   eos_id: int = EOS_ID) -> dict:
    """Every strategy on one ``next_log_probs`` function (a model on one source, or a table).

    Args:
        next_log_probs: ``fn(prefixes int (n, t)) -> (n, vocab)`` log-probabilities.
        vocabulary: turns token ids into words.
        settings: the page's controls.
        bos_id, eos_id: int, the start and end ids. Default to ``BOS_ID``, ``EOS_ID``.

    Returns:
        ``{strategy name: StrategyResult}`` for every name in ``STRATEGIES``.
    """
    s = settings
    greedy_result, greedy_trace = greedy(next_log_probs, bos_id, eos_id, s.max_len, return_trace=True)
    beams, beam_trace = beam_search(next_log_probs, bos_id, eos_id, s.max_len, beam_size=s.beam_size,
                                    length_penalty=s.length_penalty, return_trace=True)
    results = {
        GREEDY: StrategyResult(GREEDY, f"max length {s.max_len}", _outputs([greedy_result], next_log_probs, vocabulary),
                               greedy_trace, None),
        BEAM: StrategyResult(BEAM, f"k = {s.beam_size}, α = {s.length_penalty:g}",
                             _outputs(beams, next_log_probs, vocabulary), beam_trace, None),
    }
    for offset, (name, top_k, top_p, label) in enumerate((
        (TOP_K, s.top_k, None, f"k = {s.top_k}, T = {s.temperature:g}"),
        (NUCLEUS, None, s.top_p, f"p = {s.top_p:g}, T = {s.temperature:g}"),
    )):
        rng = np.random.default_rng([s.seed, offset])  # one stream per strategy, reproducible from the seed
        draws, trace = sample(next_log_probs, bos_id, eos_id, s.max_len, temperature=s.temperature, top_k=top_k,
                              top_p=top_p, seed=rng, num_samples=s.num_samples, return_trace=True)
        outputs = _outputs(draws, next_log_probs, vocabulary)
        results[name] = StrategyResult(name, f"{label}, {s.num_samples} samples, seed {s.seed}", outputs, trace,
                                       diversity(outputs))
    return results


def compare_strategies(model, source: str, settings: DecodeSettings) -> DecodingView:
    """Decode ``source`` with every strategy (see the module docstring).

    Args:
        model: a trained ``Seq2Seq`` carrying its ``vocabulary``.
        source: the typed source sentence.
        settings: the page's controls.

    Raises:
        ValueError: an empty source, or words the model does not know (listed).
    """
    source_ids = encode_source(source, model.vocabulary)
    next_log_probs = model.log_prob_fn(np.array(source_ids, dtype=np.int32))
    results = run_strategies(next_log_probs, model.vocabulary, settings, model.bos_id, model.eos_id)
    return DecodingView(" ".join(model.vocabulary.ids_to_tokens(source_ids)), settings, results, model.vocabulary)


def outputs_table(result: StrategyResult) -> pd.DataFrame:
    """``output, log P, score, finished, per token`` per output; the per-token column reads ``word (−0.12)``."""
    return pd.DataFrame([
        {"output": o.text, "log P": round(o.log_prob, 3), "score": round(o.score, 3), "finished": o.finished,
         "per token": " ".join(f"{t} ({lp:+.2f})" for t, lp in zip(o.tokens["token"], o.tokens["log_prob"]))}
        for o in result.outputs
    ])
