"""The Tagging page's service: the two toy taggers on disk, and everything the page shows for a typed sentence.

The two taggers ship with the package and are installed on first use (``TAGGER_MODELS``); where none are
shipped, ``train_default_taggers`` trains, on the shipped toy data, a small word-level biLM on the unlabelled
tagging text (TagLM's frozen language model), the multi-task POS + frame tagger and TagLM with a constrained
BIOES CRF, and saves the two taggers beside the biLMs under reserved names (TagLM's ``.keras`` file carries its
frozen biLM). ``tag_sentence`` is the page's one call: POS and frame tags, TagLM's Viterbi path next to the
per-token argmax (invalid transitions marked), the top-k paths with their probabilities, the marginals and the
transition matrix.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from elmo_keras._quiet import ops
from elmo_keras.data import frame_examples, ner_examples, pos_examples, tagging_unlabelled_sentences
from elmo_keras.explorer.first_use import page_models
from elmo_keras.explorer.model_store import TAGGER_DIR_NAME, TAGLM_DIR_NAME, ModelRef
from elmo_keras.explorer.typed_text import typed_tokens
from elmo_keras.models import train_bilm
from elmo_keras.models.directory_files import MODEL_DIR_ENTRIES, MODEL_FILE
from elmo_keras.tagging.experiments import shipped_results, summarize
from elmo_keras.tagging.schemes import allowed_transitions
from elmo_keras.tagging.sequence_tagger import SequenceTagger
from elmo_keras.tagging.training import train_multitask_tagger, train_taglm

MAX_SENTENCE_TOKENS = 30
DEFAULT_TOP_K = 5  # CRF paths the page lists at first
# first-use training sizes: small enough that a first visit waits little, not the experiments' settings
BILM_EPOCHS = 2
TAGGER_EPOCHS = 5
TAGLM_EPOCHS = 8
BATCH_SIZE = 32  # sentences (the biLM: twice that; the multi-task tagger: half, for more frame batches)
TRAINING_STEPS = ("biLM on unlabelled text", "multi-task POS + frame tagger", "TagLM (BiLSTM-CRF + biLM)")
Progress = Callable[[int, str], None]  # (finished steps, what runs now)
# each experiment's scores, the one its chart plots first
EXPERIMENT_SCORES = {"multitask": ("label_f1", "accuracy"), "taglm": ("span_f1", "accuracy"),
                     "crf": ("invalid_sentences", "span_f1", "invalid_transitions")}
SCORE_LABELS = {"accuracy": "accuracy", "label_f1": "label F1", "span_f1": "span F1",
                "invalid_sentences": "invalid sentences", "invalid_transitions": "invalid transitions"}
COUNT_SCORES = ("invalid_sentences", "invalid_transitions")  # counts over the held-out sentences: one decimal


@dataclass(frozen=True)
class TaggingView:
    """What the page shows for one sentence.

    Attributes:
        tokens: the sentence's tokens.
        multitask: token, POS, frame (one row per token).
        ner: token, viterbi, argmax, argmax_invalid (bool: the argmax tag cannot follow the previous one).
        top_paths: rank, tags (space-joined), score, probability.
        marginals: `(tokens, labels)` probabilities (rows sum to 1), columns = labels.
        transitions: `(labels, labels)` transition scores [from, to], NaN where disallowed.
        allowed: `(labels, labels)` bool.
        labels: TagLM's labels in id order.
    """

    tokens: list
    multitask: pd.DataFrame
    ner: pd.DataFrame
    top_paths: pd.DataFrame
    marginals: pd.DataFrame
    transitions: pd.DataFrame
    allowed: np.ndarray
    labels: list


def tagger_refs(models_dir: str | os.PathLike) -> tuple[ModelRef, ModelRef] | None:
    """``(multi-task tagger, TagLM)`` refs when both are saved, else None."""
    names = (TAGGER_DIR_NAME, TAGLM_DIR_NAME)
    if not all((pathlib.Path(models_dir) / name / MODEL_FILE).is_file() for name in names):
        return None
    return ModelRef.of(models_dir, names[0]), ModelRef.of(models_dir, names[1])


def train_default_taggers(models_dir: str | os.PathLike, progress: Progress | None = None, seed: int = 0,
                          bilm_epochs: int = BILM_EPOCHS, tagger_epochs: int = TAGGER_EPOCHS,
                          taglm_epochs: int = TAGLM_EPOCHS) -> tuple[ModelRef, ModelRef]:
    """Train the page's taggers on the shipped toy data (small sizes, see the constants) and save them.

    Args:
        models_dir: the models directory; the taggers go into ``TAGGER_DIR_NAME`` and ``TAGLM_DIR_NAME``.
        progress: called as ``progress(finished steps, what runs now)`` before each step and at the end.
            Defaults to None.
        seed: int, the training seed. Defaults to 0.
        bilm_epochs, tagger_epochs, taglm_epochs: int, the three trainings' epochs.

    Returns:
        ``(multi-task tagger, TagLM)`` refs.
    """

    def report(step):
        if progress is not None:
            progress(step, TRAINING_STEPS[step] if step < len(TRAINING_STEPS) else "done")

    report(0)
    bilm = train_bilm(tagging_unlabelled_sentences(), size="tiny", epochs=bilm_epochs, seed=seed,
                      batch_size=2 * BATCH_SIZE)
    report(1)
    tagger = train_multitask_tagger({"pos": pos_examples("train"), "frame": frame_examples("train")},
                                    heads={"pos": "softmax", "frame": "crf"}, epochs=tagger_epochs,
                                    batch_size=BATCH_SIZE // 2, seed=seed)
    tagger.save(pathlib.Path(models_dir) / TAGGER_DIR_NAME)
    report(2)
    taglm = train_taglm(ner_examples("train"), bilm=bilm, epochs=taglm_epochs, batch_size=BATCH_SIZE, seed=seed)
    taglm.save(pathlib.Path(models_dir) / TAGLM_DIR_NAME)
    report(3)
    return tagger_refs(models_dir)


def load_tagger_model(ref: ModelRef):
    """The tagger saved at ``ref`` (errors as ``SequenceTagger.from_preset``)."""
    return SequenceTagger.from_preset(ref.path)


# the two taggers, declared once; ready_tagger_refs installs the shipped ones (None only where the package ships
# none), TaggerTraining(models_dir, **settings) runs train_default_taggers, discard_taggers deletes both (refused
# where a directory holds files the page did not write)
TAGGER_MODELS = page_models(
    "tagging", "taggers", train=lambda *args, **kwargs: train_default_taggers(*args, **kwargs),  # read per run
    steps=[f"training the {step}" for step in TRAINING_STEPS],
    job_name="elmo-keras-taggers", done_message="Saving the taggers…", saved=tagger_refs,
    load=lambda refs: tuple(load_tagger_model(ref) for ref in refs),
    directories={TAGGER_DIR_NAME: MODEL_DIR_ENTRIES, TAGLM_DIR_NAME: MODEL_DIR_ENTRIES},
    shipped=(TAGGER_DIR_NAME, TAGLM_DIR_NAME))
ready_tagger_refs, TaggerTraining, discard_taggers = TAGGER_MODELS.ready, TAGGER_MODELS.start, TAGGER_MODELS.discard


def example_sentences(count: int = 4) -> list[str]:
    """Held-out sentences (the taggers never saw them), alternating between the multi-task tagger's shop domain
    and TagLM's news domain (NER sentences with at least two entity tokens)."""

    ner = [" ".join(tokens) for tokens, tags in ner_examples("heldout") if sum(tag != "O" for tag in tags) >= 2]
    frames = [" ".join(tokens) for tokens, _ in frame_examples("heldout")]
    return [sentence for pair in zip(frames[:count], ner[:count]) for sentence in pair]


def typed_sentence_tokens(text: str) -> list[str]:
    """The typed sentence as tokens; a ``ValueError`` for an empty or too long one (``typed_text.typed_tokens``)."""
    return typed_tokens(text, MAX_SENTENCE_TOKENS, empty="Type a sentence to tag.")


def tag_sentence(multitask, taglm, text: str, top_k: int = 5) -> TaggingView:
    """Everything the page shows for ``text`` (see ``TaggingView``).

    Args:
        multitask: the multi-task POS + frame tagger.
        taglm: TagLM, whose first task has a CRF head.
        text: the typed sentence (split by ``tokenize``).
        top_k: int, Viterbi paths listed. Defaults to 5.

    Raises:
        ValueError: an empty sentence, or more than ``MAX_SENTENCE_TOKENS`` tokens.
    """

    tokens = typed_sentence_tokens(text)
    tags = multitask.predict_tags([tokens])
    table = pd.DataFrame({"token": tokens, "POS": tags["pos"][0], "frame": tags["frame"][0]})

    task = taglm.task_names[0]
    labels = list(taglm.vocabulary.labels[task])
    inputs = taglm.vocabulary.encode_inputs([tokens])
    mask = ops.not_equal(inputs["words"], 0)
    emissions = ops.cast(taglm(inputs, training=False)[task], "float32")  # (1, T, K)
    crf = taglm.head(task).crf
    paths, scores = crf.viterbi_decode(emissions, mask=mask, top_k=top_k)  # (1, k, T), (1, k)
    log_z = float(ops.convert_to_numpy(crf.log_partition(emissions, mask=mask))[0])
    paths, scores = ops.convert_to_numpy(paths)[0], ops.convert_to_numpy(scores)[0]
    argmax_ids = np.argmax(ops.convert_to_numpy(emissions)[0], axis=-1)
    scheme = (taglm.training_summary or {}).get("schemes", {}).get(task, "BIOES")
    allowed, allowed_start, allowed_end = allowed_transitions(scheme, labels)
    ner = pd.DataFrame({
        "token": tokens,
        "viterbi": [labels[i] for i in paths[0]],
        "argmax": [labels[i] for i in argmax_ids],
        "argmax_invalid": invalid_steps(argmax_ids, allowed, allowed_start, allowed_end),
    })
    finite = np.isfinite(scores)
    top = pd.DataFrame({
        "rank": np.arange(1, finite.sum() + 1),
        "tags": [" ".join(labels[i] for i in path) for path in paths[finite]],
        "score": scores[finite],
        "probability": np.exp(scores[finite] - log_z),
    })
    marginals = pd.DataFrame(ops.convert_to_numpy(crf.marginals(emissions, mask=mask))[0], columns=labels,
                             index=tokens)
    transitions = ops.convert_to_numpy(crf.transitions)
    frame = pd.DataFrame(np.where(allowed, transitions, np.nan), index=labels, columns=labels)
    return TaggingView(tokens, table, ner, top, marginals, frame, allowed, labels)


def invalid_steps(tag_ids, allowed, allowed_start, allowed_end) -> list[bool]:
    """Per token: whether the step into it (from the sentence start for the first) is not allowed, or, for the
    last token, the step out of it to the sentence end.

    Args:
        tag_ids: int `(tokens,)` tag ids of one sentence.
        allowed: bool `(labels, labels)` [from, to]; allowed_start, allowed_end: bool `(labels,)`.
    """
    flags = [not allowed_start[tag_ids[0]]] + [not allowed[a, b] for a, b in zip(tag_ids[:-1], tag_ids[1:])]
    flags[-1] = flags[-1] or not allowed_end[tag_ids[-1]]
    return [bool(flag) for flag in flags]


def shipped_experiments() -> dict | None:
    """The tagging experiments shipped with the package (``tools/run_tagging_experiments.py``), or None."""
    return shipped_results()


def experiments_caption(results: dict) -> str:
    """The line above the experiments' charts: over how many seeds, and how long the tool took on which CPU."""
    return (f"Mean ± standard deviation over {len(results['seeds'])} seeds on the held-out splits; reproduce with "
            f"`python tools/run_tagging_experiments.py` ({results['seconds'] / 60:.0f} minutes on "
            f"{results['machine']}).")


def experiment_tables(results: dict) -> dict[str, pd.DataFrame]:
    """The shipped experiments as mean ± std tables: ``{"multitask", "taglm", "crf"}`` → DataFrame with one
    row per condition and ``<score> mean`` / ``<score> std`` columns (``EXPERIMENT_SCORES``)."""
    tables = {}
    for name, scores in EXPERIMENT_SCORES.items():
        summary = summarize(pd.DataFrame(results[name]), scores)
        summary.columns = [f"{score} {stat}" for score, stat in summary.columns]
        tables[name] = summary.reset_index()
    return tables


def score_decimals(score: str) -> int:
    """Decimals a score is shown with: 1 for a count (``COUNT_SCORES``), 3 for a rate."""
    return 1 if score in COUNT_SCORES else 3


def mean_std(mean: float, std: float, decimals: int = 3) -> str:
    """``"0.847 ± 0.016"`` (just the mean where ``std`` is NaN: one seed)."""
    return f"{mean:.{decimals}f}" + ("" if np.isnan(std) else f" ± {std:.{decimals}f}")


def experiment_display_table(table: pd.DataFrame, scores) -> pd.DataFrame:
    """``condition`` and one ``mean ± std`` string column per score (named by ``SCORE_LABELS``, in ``scores``
    order) of one of ``experiment_tables``' tables."""
    return pd.DataFrame({"condition": table["condition"], **{
        SCORE_LABELS[score]: [mean_std(m, s, score_decimals(score))
                              for m, s in zip(table[f"{score} mean"], table[f"{score} std"])] for score in scores}})


def _stat(table: pd.DataFrame, row: int, score: str) -> str:
    return mean_std(table[f"{score} mean"].iloc[row], table[f"{score} std"].iloc[row], score_decimals(score))


def _difference(table: pd.DataFrame, score: str) -> int:
    """+1 / -1 where row 1 (the method) beats / trails row 0 (the baseline) on ``score`` by more than the two
    standard deviations together, else 0 (within the seeds' spread)."""
    gap = table[f"{score} mean"].iloc[1] - table[f"{score} mean"].iloc[0]
    spread = table[f"{score} std"].iloc[:2].fillna(0.0).sum()
    return int(np.sign(gap)) if abs(gap) > spread else 0


def experiment_findings(results: dict) -> list[str]:
    """What the shipped experiments' numbers say, as Markdown paragraphs built from those numbers (so the text stays
    true when the experiments are rerun): multi-task frames, TagLM's biLM, the CRF against the softmax."""
    tables, seeds = experiment_tables(results), len(results["seeds"])
    multitask, taglm, crf = tables["multitask"], tables["taglm"], tables["crf"]
    pos = {1: "the POS task helps", -1: "the POS task hurts", 0: "no clear effect of the POS task"}
    bilm = {1: "the biLM's vectors help", -1: "the biLM's vectors hurt", 0: "no clear effect of the biLM"}
    paragraphs = [
        f"**Frames: {pos[_difference(multitask, 'label_f1')]}.** Trained together with POS tagging (“"
        f"{multitask['condition'][1]}”), the frame head's held-out label F1 is {_stat(multitask, 1, 'label_f1')} "
        f"against {_stat(multitask, 0, 'label_f1')} for “{multitask['condition'][0]}” (accuracy "
        f"{_stat(multitask, 1, 'accuracy')} against {_stat(multitask, 0, 'accuracy')}; mean ± std over {seeds} "
        "seeds; “clear” means apart by more than the two standard deviations together).",
        f"**NER with {results['taglm'][0]['labelled_sentences']} labelled sentences: "
        f"{bilm[_difference(taglm, 'span_f1')]}.** Reading the frozen biLM (trained on unlabelled text only), "
        f"TagLM's span F1 is {_stat(taglm, 1, 'span_f1')} against {_stat(taglm, 0, 'span_f1')} without it."]
    runs = {row["condition"]: (row["head"], row["labelled_sentences"]) for row in results["crf"]}
    by_size = {}
    for index, condition in enumerate(crf["condition"]):
        head, size = runs[condition]
        by_size.setdefault(size, {})[head] = index
    invalid = "; ".join(f"{size} labelled sentences: softmax {_stat(crf, rows['softmax'], 'invalid_sentences')}, "
                        f"CRF {_stat(crf, rows['crf'], 'invalid_sentences')}" for size, rows in by_size.items())
    span = "; ".join(f"{size} sentences: CRF {_stat(crf, rows['crf'], 'span_f1')}, softmax "
                     f"{_stat(crf, rows['softmax'], 'span_f1')}" for size, rows in by_size.items())
    constant = [condition for condition, std in zip(crf["condition"], crf["span_f1 std"]) if seeds > 1 and std == 0]
    whole = len(ner_examples("train"))
    note = "".join(
        f" Every seed of “{condition}” scores the same span F1"
        + (f": with all {whole} training sentences every seed reads the same data; only the initialisation and the "
           "batch order differ." if runs[condition][1] == whole else ".") for condition in constant)
    paragraphs.append(
        "**CRF against per-token softmax.** Held-out sentences (of "
        f"{len(ner_examples('heldout'))}) whose predicted tags break the BIOES scheme — {invalid}: the CRF's "
        f"forbidden transitions have probability 0. Span F1 — {span}.{note}")
    return paragraphs
