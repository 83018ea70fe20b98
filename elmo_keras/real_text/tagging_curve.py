"""ELMo's gain on a real tagging task: UPOS tagging of UD English EWT with word embeddings only vs. with a frozen
biLM's vectors, at 1 %, 10 % and 100 % of the training sentences (TagLM's claim, Peters et al. 2017 §5: the
language model's vectors help most when labels are scarce).

The tagger is the project's ``TagLM`` (``tagging.taglm``: word embedding → BiLSTM → [h; biLM vectors] → BiLSTM →
softmax or CRF), without the biLM for the baseline, with the shipped ``treebank-lstm`` or ``treebank-transformer``
(frozen, ELMo's learned mix of every layer: ``bilm_mode="mix"``) otherwise. Both biLMs were trained on the
treebank's *training text* only, so nothing of dev or test reaches the tagger through them.

Seed ``s`` draws its own sample of the training sentences (1 % = 125, 10 % = 1,254; 100 % is all 12,544) and its own
initialization and shuffling; every run trains a fixed number of epochs per fraction (``CURVE_EPOCHS``, chosen
beforehand: no early stopping, nothing tuned on dev or test) and is scored once, on the 2,077 test sentences
(25,094 words).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from elmo_keras.data.treebank import TREEBANK_COUNTS, treebank_examples

CURVE_FRACTIONS = (0.01, 0.1, 1.0)
CURVE_SEEDS = (0, 1, 2)
CURVE_HEADS = ("softmax", "crf")
WORDS_ONLY = "words only"
CURVE_INPUTS = (WORDS_ONLY, "treebank-lstm", "treebank-transformer")
# epochs per fraction, chosen beforehand: 160 optimizer steps at 1 %, 240 at 10 %, one pass (392 steps) over all of
# train; the tagger sees each 100 % sentence once, which bounds the cost of the grid's 18 full-data runs
CURVE_EPOCHS = {0.01: 40, 0.1: 6, 1.0: 1}
TAGGER_SETTINGS = {"word_dim": 64, "units": 64, "batch_size": 32, "learning_rate": 5e-3, "dropout": 0.25,
                   "min_count": 2, "bilm_mode": "mix"}
Progress = Callable[[str], None]


def training_sample(fraction: float, seed: int) -> list[tuple[list[str], list[str]]]:
    """The UPOS training examples of one run: ``round(fraction × 12,544)`` sentences drawn by ``seed`` (in file
    order), or all of them at 1.0.

    Raises:
        ValueError: ``fraction`` outside (0, 1].
    """
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], received {fraction!r}")
    examples = treebank_examples("train", "upos")
    if fraction == 1:
        return examples
    count = max(1, round(fraction * TREEBANK_COUNTS["train"][0]))
    chosen = np.sort(np.random.default_rng(seed).choice(len(examples), size=count, replace=False))
    return [examples[i] for i in chosen]


def curve_run(bilm, input_name: str, head: str, fraction: float, seed: int, test=None,
              epochs: int | None = None) -> dict:
    """Train one tagger and score it on the test set (or ``test``): one row of the learning curve.

    Args:
        bilm: the frozen ``BiLanguageModel`` whose vectors the tagger reads, or None (words only).
        input_name: recorded (``"treebank-lstm"``, ``WORDS_ONLY``).
        head: ``"softmax"`` or ``"crf"``.
        fraction, seed: the training sample (``training_sample``) and the tagger's seed.
        test: ``(tokens, tags)`` pairs to score on (None: the treebank's UPOS test set).
        epochs: None: ``CURVE_EPOCHS[fraction]``.
    """
    # Keras on first use: the learning curve's tables and findings (the Tagging page) load light
    from elmo_keras.tagging.config import TaggerConfig
    from elmo_keras.tagging.evaluation import evaluate_tagger
    from elmo_keras.tagging.training import train_taglm

    sample = training_sample(fraction, seed)
    config = TaggerConfig(epochs=epochs or CURVE_EPOCHS[fraction], **TAGGER_SETTINGS)
    started = time.perf_counter()
    tagger = train_taglm(sample, bilm=bilm, config=config, head=head, scheme=None, seed=seed, task="upos")
    scores = evaluate_tagger(tagger, "upos", test if test is not None else treebank_examples("test", "upos"))
    return {"input": input_name, "head": head, "fraction": fraction, "sentences": len(sample), "seed": int(seed),
            "epochs": config.epochs, "accuracy": round(float(scores["accuracy"]), 6),
            "seconds": round(time.perf_counter() - started, 1)}


def learning_curve(bilms: dict, fractions: Sequence[float] = CURVE_FRACTIONS, seeds: Sequence[int] = CURVE_SEEDS,
                   heads: Sequence[str] = CURVE_HEADS, progress: Progress | None = None, words_only: bool = True,
                   **run_options) -> list[dict]:
    """Every run of the learning curve: each input (words only, then each of ``bilms``), head, fraction and seed.

    Args:
        bilms: ``{name: BiLanguageModel}`` (``real_text.bilms.load_treebank_bilm``).
        fractions, seeds, heads: the grid. Defaults to ``CURVE_FRACTIONS``, ``CURVE_SEEDS``, ``CURVE_HEADS``.
        progress: ``fn(message)`` before each run.
        words_only: include the tagger without biLM vectors. Defaults to True.
        run_options: passed to ``curve_run`` (``test``, ``epochs``).
    """
    rows = []
    for input_name, bilm in [(WORDS_ONLY, None)] * words_only + list(bilms.items()):
        for head in heads:
            for fraction in fractions:
                for seed in seeds:
                    if progress is not None:
                        progress(f"UPOS tagger, {input_name}, {head}, {fraction:.0%} of train, seed {seed}")
                    rows.append(curve_run(bilm, input_name, head, fraction, seed, **run_options))
    return rows


def curve_table(runs: list[dict]) -> pd.DataFrame:
    """Mean ± std (ddof 0) test accuracy per input, head and fraction: columns ``input, head, fraction,
    sentences, mean, std, seeds``."""
    frame = pd.DataFrame(runs)
    table = frame.groupby(["input", "head", "fraction"], sort=False).agg(
        sentences=("sentences", "first"), mean=("accuracy", "mean"), std=("accuracy", lambda a: float(np.std(a))),
        seeds=("seed", "count")).reset_index()
    return table


def curve_findings(runs: list[dict]) -> list[str]:
    """Per head and biLM: the gain over words only at each fraction (mean of paired per-seed differences ± their
    std), and whether it shrinks as labels grow, as TagLM's claim says."""
    frame = pd.DataFrame(runs)
    lines = []
    for head, by_head in frame.groupby("head", sort=False):
        base = by_head[by_head.input == WORDS_ONLY].set_index(["fraction", "seed"]).accuracy
        for input_name in [name for name in by_head.input.unique() if name != WORDS_ONLY]:
            tagged = by_head[by_head.input == input_name].set_index(["fraction", "seed"]).accuracy
            gains = (tagged - base).dropna()
            parts, means = [], []
            for fraction, gain in gains.groupby(level="fraction"):
                means.append(float(gain.mean()))
                parts.append(f"{fraction:.0%}: {gain.mean() * 100:+.1f} ± {gain.std(ddof=0) * 100:.1f} points")
            shrinking = all(a > b for a, b in zip(means, means[1:]))
            verdict = ("the gain shrinks as labelled data grows, as TagLM reports" if shrinking else
                       "the gain does not shrink steadily with more labelled data here")
            lines.append(f"{head} head, + {input_name} vectors vs words only: {'; '.join(parts)} ({verdict}).")
    return lines
