"""The Dialogue page's service: the toy HRED (with and without its context RNN) and VHRED on disk, and their
replies to one dialogue context.

``train_default_dialogue_models`` trains the three on the shipped toy dialogues (``elmo_keras.data.dialogue``) at
the small sizes below and saves them under ``DIALOGUE_DIR_NAME/<name>`` (``MODELS``) in the models directory;
``DialogueTraining`` runs that in a background thread on a first visit. ``respond`` is the page's one call: HRED's
greedy and beam replies, the greedy reply of the HRED that reads only the last utterance, and VHRED's replies for
several seeded ``z ~ p(z | c)``, each with its log-probability and marked valid or not (a plausible corpus reply of
the context), and each column's distinct-1/2. ``kl_history`` and ``experiment_*`` give the KL curves, the shipped
experiment's tables and what its numbers say (``experiment_findings``).
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from elmo_keras.data.dialogue import TURN_SEPARATOR, dialogue_references, split_turns
from elmo_keras.data.packaged_results import packaged_results
from elmo_keras.explorer.first_use import page_models
from elmo_keras.explorer.model_store import DIALOGUE_DIR_NAME, check_page_directory
from elmo_keras.models.dialogue import (
    beam_responses,
    diversity,
    encode_history,
    greedy_response,
    latent_responses,
    load_dialogue_model,
    save_dialogue_model,
    train_dialogue_model,
)
from elmo_keras.models.directory_files import MODEL_FILE, VOCABULARY_FILE
from elmo_keras.models.provenance import provenance_caption

# model directory → (kind, settings): HRED, the ablation that reads only the last utterance, VHRED
MODELS = {"hred": ("hred", {}), "hred-last-turn": ("hred", {"last_turn_only": True}), "vhred": ("vhred", {})}
KINDS = tuple(MODELS)
# first-visit training, kept short: most of its time is TensorFlow building the training graphs, not the epochs
PAGE_TRAINING = {"epochs": 12, "batch_size": 64, "learning_rate": 2e-2, "feed_context": True}
PAGE_VHRED = {"bow_weight": 1.0, "free_bits": 0.25}
# the shipped models (tools/build_shipped_models.py) and the experiment (tools/run_dialogue_experiments.py, which
# reads these): 30 epochs of 41 updates, the decoder reading its conditioning at every step; VHRED with the
# combination of remedies the experiment ships (the bag-of-words loss and free bits: 0.25 nats per latent dimension)
SHIPPED_DIALOGUE_TRAINING = {"epochs": 30, "batch_size": 16, "learning_rate": 1e-2, "feed_context": True}
SHIPPED_VHRED = {"bow_weight": 1.0, "free_bits": 0.25}
EXPERIMENTS_FILE = "dialogue_experiments.json"
MAX_TURNS, MAX_TURN_WORDS = 6, 20
SAMPLING_VALID = 0.9  # HRED's ancestral samples at least this valid: the findings say sampling alone suffices here
TOPIC_GAP = 0.3  # valid share HRED must gain over the last-utterance ablation for the findings to say it uses turn 1
Progress = Callable[[int, str], None]  # (finished models, what runs now)
MODEL_LABELS = {"hred": "HRED", "hred-last-turn": "HRED (last utterance only)", "vhred": "VHRED"}


@dataclass(frozen=True)
class DialogueView:
    """What the page shows for one context.

    Attributes:
        turns: the history turns as strings.
        unknown_words: words not in the vocabulary (read as ``<unk>``).
        references: the corpus's replies to this context ([] for a context that is not in the corpus).
        hred: strategy (greedy, then the beam's hypotheses best first), reply, log_prob, valid.
        hred_last_turn: the same for the HRED that reads only the last utterance (greedy only).
        vhred: z sample (its number), reply, log_prob (the reply's log-probability given that z), valid.
        diversity: one row per column (HRED beam, VHRED z samples): distinct_1, distinct_2, unique replies, and
            valid / coverage against ``references`` when the context is from the corpus.

    ``valid`` is True / False when the context is in the corpus (the reply is / is not one of ``references``),
    None otherwise (nothing to judge it by).
    """

    turns: list
    unknown_words: list
    references: list
    hred: pd.DataFrame
    hred_last_turn: pd.DataFrame
    vhred: pd.DataFrame
    diversity: pd.DataFrame


def dialogue_dir(models_dir: str | os.PathLike) -> pathlib.Path:
    """Where the page's two models live: ``models_dir / DIALOGUE_DIR_NAME``."""
    return pathlib.Path(models_dir) / DIALOGUE_DIR_NAME


def dialogue_model_paths(models_dir: str | os.PathLike) -> tuple[pathlib.Path, ...] | None:
    """The model directories (``MODELS`` order) when every one is saved, else None."""
    paths = tuple(dialogue_dir(models_dir) / kind for kind in KINDS)
    if all((p / MODEL_FILE).is_file() and (p / VOCABULARY_FILE).is_file() for p in paths):
        return paths
    return None


def saved_version(models_dir: str | os.PathLike) -> tuple[int, ...]:
    """The saved models' modification times (ns): a key for caches that must see a retrained or reinstalled pair."""
    paths = dialogue_model_paths(models_dir) or ()
    return tuple((path / MODEL_FILE).stat().st_mtime_ns for path in paths)


def dialogue_version(models_dir: str | os.PathLike) -> tuple[str, tuple[int, ...]] | None:
    """``(models_dir, saved_version)`` when every model is saved, else None: the handle the page loads and caches by
    (``DIALOGUE_MODELS``)."""
    return None if dialogue_model_paths(models_dir) is None else (str(models_dir), saved_version(models_dir))


def train_default_dialogue_models(models_dir: str | os.PathLike, progress: Progress | None = None, seed: int = 0,
                                  vhred_settings: dict | None = None, **overrides) -> tuple[pathlib.Path, ...]:
    """Train the page's models (``MODELS``: HRED, HRED on the last utterance only, VHRED) and save them.

    Args:
        models_dir: the models directory.
        progress: called as ``progress(finished models, what runs now)`` before each and at the end.
        seed: int, the training seed. Defaults to 0.
        vhred_settings: ``DialogueConfig`` fields of the VHRED only. Defaults to None (``PAGE_VHRED``).
        **overrides: ``DialogueConfig`` fields for all three (``epochs=1`` in tests).

    Returns:
        The model directories, in ``MODELS`` order.
    """
    check_page_directory(dialogue_dir(models_dir), KINDS)
    vhred_settings = PAGE_VHRED if vhred_settings is None else vhred_settings
    for step, (name, (kind, settings)) in enumerate(MODELS.items()):
        if progress is not None:
            progress(step, MODEL_LABELS[name])
        settings = {**PAGE_TRAINING, **settings, **(vhred_settings if kind == "vhred" else {}), **overrides}
        save_dialogue_model(train_dialogue_model(kind=kind, seed=seed, **settings), dialogue_dir(models_dir) / name)
    if progress is not None:
        progress(len(KINDS), "done")
    return dialogue_model_paths(models_dir)


def load_dialogue_models(models_dir: str | os.PathLike):
    """``(hred, hred_last_turn, vhred)`` loaded from the models directory (``MODELS`` order).

    Raises:
        FileNotFoundError, ValueError: a model is missing or corrupted (as ``load_dialogue_model``, naming the file).
    """
    return tuple(load_dialogue_model(dialogue_dir(models_dir) / name, kind=kind) for name, (kind, _) in MODELS.items())


# the page's models, declared once; ready_dialogue_version installs the shipped ones (tools/build_shipped_models.py:
# the experiment's settings; None only where the package ships none), DialogueTraining(models_dir, **settings) runs
# train_default_dialogue_models, discard_dialogue_models deletes them (refused where the directory holds files the
# page did not write)
DIALOGUE_MODELS = page_models(
    "dialogue", "dialogue models", train=lambda *args, **kwargs: train_default_dialogue_models(*args, **kwargs),
    steps=[f"training the toy {MODEL_LABELS[name]}" for name in KINDS], job_name="elmo-keras-dialogue",
    done_message="Saving the dialogue models…", saved=dialogue_version,
    load=lambda handle: load_dialogue_models(handle[0]), directories={DIALOGUE_DIR_NAME: KINDS},
    shipped=(DIALOGUE_DIR_NAME,))
ready_dialogue_version, DialogueTraining = DIALOGUE_MODELS.ready, DIALOGUE_MODELS.start
discard_dialogue_models = DIALOGUE_MODELS.discard


def example_contexts() -> list[str]:
    """The held-out contexts (neither model saw them), turns joined by ``" | "``, longest histories first (those
    are where the topic sits two turns back)."""
    contexts = list(dialogue_references("heldout"))
    return sorted(contexts, key=lambda c: -c.count(TURN_SEPARATOR))


def context_turns(text: str) -> list[list[str]]:
    """A typed context (turns separated by ``|`` or one per line) as word lists.

    Raises:
        ValueError: no turn, or a turn / a dialogue over the page's limits.
    """
    turns = split_turns(text or "")
    if not turns:
        raise ValueError("Type a dialogue history: one or more turns, separated by “|” or one per line.")
    if len(turns) > MAX_TURNS:
        raise ValueError(f"The history has {len(turns)} turns; the limit is {MAX_TURNS}.")
    for index, words in enumerate(turns, start=1):
        if len(words) > MAX_TURN_WORDS:
            raise ValueError(f"Turn {index} has {len(words)} words; the limit is {MAX_TURN_WORDS}.")
    return [[word.lower() for word in words] for words in turns]


def respond(hred, hred_last_turn, vhred, text: str, num_samples: int = 5, beam_size: int = 3,
            seed: int = 0) -> DialogueView:
    """The three models' replies to the context ``text`` (see ``DialogueView``).

    Args:
        hred, hred_last_turn, vhred: the page's models (``load_dialogue_models``; one vocabulary).
        text: the history, turns separated by ``|`` or newlines.
        num_samples: int, VHRED's ``z`` draws. Defaults to 5.
        beam_size: int, HRED's beam. Defaults to 3.
        seed: int, seeds the ``z`` draws. Defaults to 0.

    Raises:
        ValueError: as ``context_turns``.
    """
    turns = context_turns(text)
    history, unknown = encode_history(turns, hred.vocabulary)
    key = f" {TURN_SEPARATOR} ".join(" ".join(t) for t in turns)
    references = dialogue_references("all").get(key, [])

    def valid(reply: str) -> bool | None:
        return (reply in references) if references else None

    greedy = greedy_response(hred, history)
    beam = beam_responses(hred, history, beam_size)
    hred_rows = [("greedy", greedy.text, greedy.log_prob, valid(greedy.text))] + [
        (f"beam #{i}", r.text, r.log_prob, valid(r.text)) for i, r in enumerate(beam, start=1)]
    last = greedy_response(hred_last_turn, history)
    samples = latent_responses(vhred, history, num_samples, seed)
    vhred_rows = [(i, r.text, r.log_prob, valid(r.text)) for i, r in enumerate(samples, start=1)]
    refs = references or None
    scores = pd.DataFrame([
        {"column": f"HRED beam (k={beam_size})", **diversity([r.text for r in beam], refs)},
        {"column": f"VHRED, {num_samples} z samples", **diversity([r.text for r in samples], refs)},
    ])
    return DialogueView(
        turns=[" ".join(t) for t in turns], unknown_words=unknown, references=references,
        hred=pd.DataFrame(hred_rows, columns=["strategy", "reply", "log_prob", "valid"]),
        hred_last_turn=pd.DataFrame([("greedy", last.text, last.log_prob, valid(last.text))],
                                    columns=["strategy", "reply", "log_prob", "valid"]),
        vhred=pd.DataFrame(vhred_rows, columns=["z sample", "reply", "log_prob", "valid"]),
        diversity=scores,
    )


def kl_history(vhred) -> pd.DataFrame:
    """The VHRED's training curves per epoch: epoch, kl_per_token, kl_weight, reconstruction_per_token."""
    history = (vhred.training_summary or {}).get("history", {})
    columns = ["kl_per_token", "kl_weight", "reconstruction_per_token"]
    frame = pd.DataFrame({c: history.get(c, []) for c in columns})
    return frame.assign(epoch=range(1, len(frame) + 1))[["epoch", *columns]]


def shipped_experiments() -> dict | None:
    """``dialogue_experiments.json`` (written by ``tools/run_dialogue_experiments.py``), or None if absent."""
    return packaged_results(EXPERIMENTS_FILE)


# the experiment's metric keys → the tables' column names (the likelihood terms are measured after training,
# teacher-forced on the held-out dialogues: not the training curves' epoch means)
METRIC_LABELS = {
    "valid": "valid", "coverage": "coverage", "unique": "unique replies", "distinct_1": "distinct-1",
    "distinct_2": "distinct-2", "nll_per_token": "NLL / token", "perplexity": "perplexity",
    "elbo_per_token": "ELBO bound / token", "reconstruction_per_token": "reconstruction / token",
    "kl_per_token": "KL / token (held-out)", "prior_mean_nll_per_token": "NLL / token at z = μ_p",
    "elbo_perplexity": "exp(ELBO bound / token)",
}
# diversity among one context's replies (then averaged over contexts): trivially 1 for a method that gives one reply
# per context (greedy decoding), so the tables show "–" there
PER_CONTEXT_DIVERSITY = ("distinct_1", "distinct_2", "unique")
ONE_REPLY_SUFFIX = ": greedy"  # the summary's methods that give one reply per context
NOT_APPLICABLE = "–"


def experiment_table(results: dict, methods=None) -> pd.DataFrame:
    """One row per method (``methods``: those of the summary whose name starts with one of them; None: all), one
    column per metric (``METRIC_LABELS``) as ``mean ± std`` strings; "–" where a metric does not apply to the
    method (an NLL for VHRED's bound, an ELBO for HRED, the diversity of one context's replies
    (``PER_CONTEXT_DIVERSITY``) for greedy decoding, which gives one reply per context)."""
    rows = []
    for method, metrics in results["summary"].items():
        if methods is not None and not method.startswith(tuple(methods)):
            continue
        one_reply = method.endswith(ONE_REPLY_SUFFIX)
        row = {"method": method}
        for name, stats in metrics.items():
            applies = not (one_reply and name in PER_CONTEXT_DIVERSITY)
            row[METRIC_LABELS.get(name, name)] = (f"{stats['mean']:.3f} ± {stats['std']:.3f}" if applies
                                                  else NOT_APPLICABLE)
        rows.append(row)
    return pd.DataFrame(rows).fillna(NOT_APPLICABLE)


def experiment_provenance(results: dict) -> str:
    """The line under the experiment's tables: which code made the numbers, and when
    (``models.provenance.provenance_caption``)."""
    return provenance_caption(results)


def experiment_kl_curves(results: dict) -> pd.DataFrame:
    """The experiment's KL-per-token curves: epoch, run (plain VHRED and each remedy), mean and std over seeds."""
    rows = []
    for run, curve in results["kl_curves"].items():
        for epoch, (mean, std) in enumerate(zip(curve["mean"], curve["std"]), start=1):
            rows.append({"epoch": epoch, "run": run, "kl_per_token": mean, "std": std})
    return pd.DataFrame(rows)


def _stat(results: dict, method: str, metric: str) -> str:
    stats = results["summary"][method][metric]
    return f"{stats['mean']:.2f} ± {stats['std']:.2f}"


def experiment_findings(results: dict) -> list[str]:
    """What the shipped experiment's numbers say, as Markdown paragraphs built from those numbers (so the text stays
    true when the experiment is rerun): HRED with and without context, then VHRED's KL and replies per run."""
    summary, threshold = results["summary"], results.get("collapse_threshold", 0.01)
    seeds, contexts, samples = len(results["seeds"]), results["num_contexts"], results["num_samples"]
    full, last = summary["HRED: greedy"]["valid"]["mean"], summary["HRED, last utterance only: greedy"]["valid"]["mean"]
    verdict = "HRED carries the topic" if full - last >= TOPIC_GAP else "HRED barely uses the earlier turns here"
    paragraphs = [
        f"**{verdict}.** On the {contexts} held-out contexts, HRED's greedy reply is a plausible reply "
        f"of its context {_stat(results, 'HRED: greedy', 'valid')} of the time (mean ± std over {seeds} seeds); "
        "the same model reading only the last utterance manages "
        f"{_stat(results, 'HRED, last utterance only: greedy', 'valid')}. The gap, {full - last:.2f}, is what the "
        "context RNN adds: the last turn (“any advice ?”) fixes the kind of reply, only turn 1 its topic. "
        "Sampling from HRED word by word (T = 1) covers "
        f"{_stat(results, 'HRED: sampling (T=1)', 'coverage')} of a context's plausible replies, with "
        f"{_stat(results, 'HRED: sampling (T=1)', 'valid')} of the samples valid"
        + (": a context's replies here mostly part at their first word, so word-level sampling needs no z either."
           if summary["HRED: sampling (T=1)"]["valid"]["mean"] >= SAMPLING_VALID else
           ": a word-level slip mixes two replies into an invalid one.")]
    lines = []
    for run, curve in results["kl_curves"].items():
        method = f"{run}: z samples"
        final = curve["mean"][-1]
        collapsed = " (collapsed)" if final < threshold else ""
        lines.append(f"- **{run}**: KL per token {curve['mean'][0]:.3f} after epoch 1, {final:.3f} after the last"
                     f"{collapsed}; over {samples} z samples per context, coverage "
                     f"{_stat(results, method, 'coverage')}, valid {_stat(results, method, 'valid')}, "
                     f"unique replies {_stat(results, method, 'unique')}.")
    paragraphs.append("**VHRED's z, run by run** (KL per token while training: epoch means on the training "
                      "dialogues, mean over seeds; replies on the held-out contexts):\n" + "\n".join(lines))
    shipped = results.get("shipped_vhred")
    if shipped:
        method = f"{shipped}: z samples"
        plain, plain_kl = "VHRED plain: z samples", results["kl_curves"]["VHRED plain"]["mean"][-1]
        why = (": the decoder can model a context's few replies on its own, so z costs KL and buys little"
               if plain_kl < threshold else "")
        held_out_kl = summary[method]["kl_per_token"]
        paragraphs.append(
            f"Without a remedy the posterior's KL ends at {plain_kl:.3f} nats per token and "
            f"{summary[plain]['unique']['mean']:.2f} of the z samples' replies are distinct{why}. The shipped "
            f"VHRED ({shipped.removeprefix('VHRED + ').removesuffix(' (shipped)')}) keeps "
            f"{results['kl_curves'][shipped]['mean'][-1]:.3f} nats per token in z over its last training epoch "
            f"({held_out_kl['mean']:.3f} ± {held_out_kl['std']:.3f} on the held-out dialogues, the table's "
            f"“{METRIC_LABELS['kl_per_token']}”), and its {samples} samples cover "
            f"{_stat(results, method, 'coverage')} of the plausible replies with "
            f"{_stat(results, method, 'valid')} valid.")
    return paragraphs
