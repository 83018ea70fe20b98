"""The Classification page's views that need no trained model: the classic lecture example of a CNN (a `2 × 5`
filter sliding down the `7 × 5` matrix of "I like this movie very much !") step by step, the same for several
heights, and the shipped experiment results as a mean ± std table."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from elmo_keras.analysis.convolution_example import (
    BIGRAM_FILTER,
    FILTERS,
    SENTENCE,
    SENTENCE_MATRIX,
    convolution_steps,
    feature_map_length,
    max_pool,
)
from elmo_keras.data.packaged_results import packaged_results

EXPERIMENTS_FILE = "classifier_experiments.json"
DIMENSION_NAMES = [f"d{i + 1}" for i in range(SENTENCE_MATRIX.shape[1])]
MODEL_ORDER = ("cnn", "rnn-last", "rnn-pooled", "bag-of-words")
# the names the page shows a model kind by, in charts and tables alike
MODEL_TITLES = {"cnn": "CNN (filters 2, 3, 4 + max pool)", "rnn-last": "BiLSTM, last states",
                "rnn-pooled": "BiLSTM, max-pooled states", "bag-of-words": "bag of words (logistic regression)"}
BAG_OF_WORDS = "bag-of-words"
WHOLE_SPLIT = "all"  # the experiment's condition name for training on the whole training split
CHANCE = 0.5  # two balanced classes
PATTERN_COLUMNS = ("negated", "contrast")  # the patterns where word order decides (see data.sentiment)


@dataclass(frozen=True)
class SlidingStep:
    """The worked example with the filter at ``position``.

    Attributes:
        position: int, the window's first row (0-based).
        matrix: the sentence matrix, one row per word (index: words, made unique with their position).
        filter: the filter, rows ``row 1 …``.
        window_rows: the row numbers under the filter (for highlighting ``matrix``).
        product: window ⊙ filter (index: the window's words).
        value: the sum of ``product``.
        feature_map: the feature map filled up to ``position`` (NaN after), one value per position.
        formula: ``"7 − 2 + 1 = 6"``, computed from the shapes.
        pooled: ``(max, position)`` once the map is full, else None.
    """

    position: int
    matrix: pd.DataFrame
    filter: pd.DataFrame
    window_rows: list
    product: pd.DataFrame
    value: float
    feature_map: pd.DataFrame
    formula: str
    pooled: tuple | None


def _word_index(words) -> list[str]:
    return [f"{i + 1}. {word}" for i, word in enumerate(words)]


def length_formula(num_words: int, height: int) -> str:
    """``"7 − 2 + 1 = 6"`` for a sentence of ``num_words`` words and a filter of ``height`` rows."""
    return f"{num_words} − {height} + 1 = {feature_map_length(num_words, height)}"


def sliding_step(position: int, matrix=SENTENCE_MATRIX, filter_matrix=BIGRAM_FILTER, words=SENTENCE,
                 bias: float = 0.0) -> SlidingStep:
    """The worked example (or any matrix and filter) with the filter at ``position`` (see ``SlidingStep``).

    Raises:
        ValueError: ``position`` outside ``[0, feature map length)``, or shapes that do not fit.
    """
    steps = convolution_steps(matrix, filter_matrix, words, bias=bias)
    if not 0 <= position < len(steps):
        raise ValueError(f"position must be in [0, {len(steps)}), received {position}")
    step = steps[position]
    height, dims = np.asarray(filter_matrix).shape
    columns = DIMENSION_NAMES if dims == len(DIMENSION_NAMES) else [f"d{i + 1}" for i in range(dims)]
    index = _word_index(words)
    values = [s.value if s.position <= position else np.nan for s in steps]
    full = position == len(steps) - 1
    return SlidingStep(
        position=position,
        matrix=pd.DataFrame(np.asarray(matrix, dtype=np.float64), index=index, columns=columns),
        filter=pd.DataFrame(np.asarray(filter_matrix, dtype=np.float64), index=[f"row {k + 1}" for k in range(height)],
                            columns=columns),
        window_rows=list(range(position, position + height)),
        product=pd.DataFrame(step.product, index=index[position : position + height], columns=columns),
        value=step.value,
        feature_map=pd.DataFrame({"window": [" ".join(s.words) for s in steps], "value": values}),
        formula=length_formula(len(words), height),
        pooled=max_pool([s.value for s in steps]) if full else None,
    )


def heights_view(matrix=SENTENCE_MATRIX, filters=None, words=SENTENCE) -> pd.DataFrame:
    """One row per window and height: ``height``, ``position``, ``window`` (its words), ``value``, ``is_max``
    (max pooling's pick for that height). Default: ``FILTERS``, heights 2, 3, 4 → 6, 5, 4 values."""
    rows = []
    for filter_matrix in (FILTERS if filters is None else filters).values():
        steps = convolution_steps(matrix, filter_matrix, words)
        _, best = max_pool([s.value for s in steps])
        rows += [{"height": len(filter_matrix), "position": s.position, "window": " ".join(s.words),
                  "value": s.value, "is_max": s.position == best} for s in steps]
    return pd.DataFrame(rows)


def shipped_experiments() -> dict | None:
    """The results ``tools/run_classifier_experiments.py`` wrote into the package, or None when absent."""
    return packaged_results(EXPERIMENTS_FILE)


def experiment_table(results: dict) -> pd.DataFrame:
    """Mean ± std over seeds per model and condition: columns ``condition``, ``model`` (its ``MODEL_TITLES``
    name, in ``MODEL_ORDER``), ``seeds``, ``accuracy mean``, ``accuracy std``, ``negated mean`` and
    ``contrast mean`` (accuracy on the patterns where word order decides, ``PATTERN_COLUMNS``) and
    ``train seconds mean``."""
    runs = pd.DataFrame(results["runs"])
    for pattern in PATTERN_COLUMNS:
        runs[pattern] = [scores.get(pattern, np.nan) for scores in runs["by_pattern"]]
    table = (runs.groupby(["condition", "model"], sort=False)
             .agg(seeds=("seed", "nunique"), accuracy_mean=("accuracy", "mean"), accuracy_std=("accuracy", "std"),
                  **{f"{p} mean": (p, "mean") for p in PATTERN_COLUMNS}, seconds=("train_seconds", "mean"))
             .reset_index())
    table["model"] = pd.Categorical(table["model"], [m for m in MODEL_ORDER if m in set(table["model"])] +
                                    sorted(set(table["model"]) - set(MODEL_ORDER)))
    table["condition"] = pd.Categorical(table["condition"], list(dict.fromkeys(runs["condition"])))  # run order
    table = table.sort_values(["condition", "model"], kind="stable").reset_index(drop=True)
    table[["condition", "model"]] = table[["condition", "model"]].astype(str)
    table["model"] = [MODEL_TITLES.get(model, model) for model in table["model"]]
    return table.rename(columns={"accuracy_mean": "accuracy mean", "accuracy_std": "accuracy std",
                                 "seconds": "train seconds mean"})


def experiment_findings(results: dict) -> list[str]:
    """What the shipped experiment's numbers say, as Markdown paragraphs built from those numbers (so the text stays
    true when the experiment is rerun): the models ranked by held-out accuracy in each condition, then what the
    bag of words makes of the sentences where word order decides."""
    table = experiment_table(results)
    paragraphs = []
    for condition, rows in table.groupby("condition", sort=False):
        ranked = rows.sort_values("accuracy mean", ascending=False, kind="stable")
        scores = "; ".join(f"{model} {mean:.3f} ± {std:.3f}" for model, mean, std in
                           zip(ranked["model"], ranked["accuracy mean"], ranked["accuracy std"].fillna(0.0)))
        best = f"{ranked['accuracy mean'].iloc[0]:.3f}"
        leaders = [model for model, mean in zip(ranked["model"], ranked["accuracy mean"]) if f"{mean:.3f}" == best]
        verdict = (f"{leaders[0]} leads" if len(leaders) == 1 else
                   f"{len(leaders)} models tie at {best}" + (" (every one)" if len(leaders) == len(ranked) else ""))
        trained = "the whole training split" if condition == WHOLE_SPLIT else condition
        paragraphs.append(f"**Trained on {trained}: {verdict}.** Held-out accuracy, mean ± std over "
                          f"{len(results['seeds'])} seeds: {scores}.")
    whole = table[table["condition"] == WHOLE_SPLIT]
    is_bag = whole["model"] == MODEL_TITLES[BAG_OF_WORDS]
    if is_bag.any() and (~is_bag).any():
        contrast, negated = whole.loc[is_bag, "contrast mean"].iloc[0], whole.loc[is_bag, "negated mean"].iloc[0]
        ordered = whole[~is_bag]
        paragraphs.append(
            f"**Word order.** Trained on the whole split, the bag of words gets {contrast:.3f} of the contrast "
            f"sentences right ({'about' if abs(contrast - CHANCE) < 0.1 else 'against'} {CHANCE:.0%} by chance: "
            f"“good , not bad” and “bad , not good” have the same words) and {negated:.3f} of the negated ones"
            + (" (below chance: it reads “not good” by its “good”)" if negated < CHANCE else "")
            + f"; the models that read the words in order get {_value_range(ordered['contrast mean'])} of the "
              f"contrast sentences and {_value_range(ordered['negated mean'])} of the negated ones.")
    return paragraphs


def _value_range(values: pd.Series) -> str:
    """``"0.746–1.000"``, or one number where all are equal (to 3 decimals)."""
    low, high = f"{values.min():.3f}", f"{values.max():.3f}"
    return low if low == high else f"{low}–{high}"
