"""What each layer of a frozen biLM knows about real English: linear probes per layer and ELMo's learned layer mix,
on the treebank's UPOS, Penn XPOS and dependency relations and on the toy corpus' word senses, over several seeds.

For each task and seed, one ``analysis.layer_probes.fit_mix_and_probes`` call trains a linear softmax probe on each
layer ``h_j`` alone and ELMo's task mix ``γ Σ_j softmax(s)_j h_j`` under one linear head (Peters et al. 2018a,
eq. 1), on the frozen vectors of the token; accuracy is measured on held-out examples. Each layer's features are
first standardized with the training sample's mean and standard deviation per dimension (``standardized``): the
char-CNN layer's values are several times larger than the LSTM layers', and without it a probe trained for a
fixed number of epochs measured the optimizer more than the layer (UPOS on layer 0: 53% raw, 73% standardized, 77%
for scikit-learn's logistic regression run to convergence, on ``treebank-lstm``). For the mix this is ELMo's
option of normalizing each layer before weighting it (Peters et al. 2018a §3.2).

- **Syntactic tasks** (UD English EWT, ``data.treebank``): each token's UPOS (17 tags), Penn XPOS (~50) and
  dependency relation to its head (``deprel`` with subtypes, ~50). Seed ``s`` draws ``PROBE_TRAIN_SENTENCES`` of
  the first ``PROBE_POOL_SENTENCES`` training sentences (its own sample and its own initialization and shuffling)
  and is scored on every token of the 2,001 dev sentences.
- **Semantic task**: the sense of *bank*, *play* and *right* in the toy polysemy corpus (six classes; train split
  → held-out split). The treebank has no sense annotation and a sense task built from it (e.g. lemma-based) would
  measure word identity, not sense; the toy corpus is the only hand-labelled sense data the package ships, and the
  real-text biLM reads its sentences like any English (characters, no toy vocabulary). Its held-out set is small
  (72 examples): differences under about ±12 points are noise there (twice the binomial standard error at 50 %
  accuracy), as the findings say.

Layer 0 is the context-free token vector (the character CNN's output), so its probe is the context-free
baseline; the majority baseline always answers the most frequent training label. ``probe_summary``,
``layer_preferences`` and ``probe_findings`` turn the runs into tables and sentences computed from the numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from elmo_keras.analysis.embeddings import sentence_activations
from elmo_keras.analysis.layer_probes import ProbeTask, fit_mix_and_probes, probe_task
from elmo_keras.data.polysemy import load_polysemy
from elmo_keras.data.treebank import treebank_examples
from elmo_keras.real_text.tasks import SENSE_TASK, TASK_KINDS, TASK_TITLES, TREEBANK_TASKS

PROBE_POOL_SENTENCES = 4_000  # the first training sentences the seeds draw from
PROBE_TRAIN_SENTENCES = 2_000  # each seed's training sample (about 33,000 tokens)
PROBE_SEEDS = (0, 1, 2)
TREEBANK_EPOCHS = 20  # ~33,000 examples an epoch, at TREEBANK_LEARNING_RATE: near scikit-learn's converged fit
TREEBANK_LEARNING_RATE = 5e-3
SENSE_EPOCHS = 30
Progress = Callable[[str], None]


def token_features(model, sentences: Sequence[Sequence[str]]) -> np.ndarray:
    """Every layer's vector at every token of ``sentences``, in order: float32 `(tokens, L, D)`."""
    return np.concatenate([layers.transpose(1, 0, 2) for layers in sentence_activations(model, sentences)])


def standardized(task: ProbeTask) -> ProbeTask:
    """``task`` with every layer's features shifted and scaled by the training examples' mean and standard
    deviation per dimension (the held-out features with the same numbers)."""
    mean = task.train_features.mean(axis=0, keepdims=True)
    scale = task.train_features.std(axis=0, keepdims=True) + 1e-6
    return ProbeTask(task.name, task.title, task.kind, task.labels, (task.train_features - mean) / scale,
                     task.train_labels, (task.test_features - mean) / scale, task.test_labels)


def treebank_probe_data(model, pool: int = PROBE_POOL_SENTENCES, dev_limit: int | None = None) -> dict:
    """The frozen vectors and labels the treebank tasks share (computed once per model).

    Args:
        model: a ``BiLanguageModel``.
        pool: how many of the first training sentences to embed (the seeds draw their samples from these).
        dev_limit: score on the first ``dev_limit`` dev sentences (None: all 2,001), e.g. in tests.

    Returns:
        ``{"train_features": (n, L, D), "train_sentence": (n,) the sentence index of each token, "dev_features",
        "labels": {task: {"train": [n names], "dev": [m names]}}}``.
    """
    train = {task: treebank_examples("train", task, pool) for task in TREEBANK_TASKS}
    dev = {task: treebank_examples("dev", task, dev_limit) for task in TREEBANK_TASKS}
    sentences = [tokens for tokens, _ in train["upos"]]
    return {
        "train_features": token_features(model, sentences),
        "train_sentence": np.repeat(np.arange(len(sentences)), [len(tokens) for tokens in sentences]),
        "dev_features": token_features(model, [tokens for tokens, _ in dev["upos"]]),
        "labels": {task: {"train": [tag for _, tags in train[task] for tag in tags],
                          "dev": [tag for _, tags in dev[task] for tag in tags]} for task in TREEBANK_TASKS},
    }


def treebank_task(data: dict, task: str, seed: int, sample: int = PROBE_TRAIN_SENTENCES) -> ProbeTask:
    """One treebank task for one seed: ``sample`` training sentences drawn by ``seed`` from the embedded pool.

    A dev label never seen in the sample is kept (the probe cannot predict it, so it counts as an error).
    """
    sentences = int(data["train_sentence"].max()) + 1
    chosen = np.random.default_rng(seed).choice(sentences, size=min(sample, sentences), replace=False)
    rows = np.flatnonzero(np.isin(data["train_sentence"], chosen))
    names = data["labels"][task]
    labels = tuple(sorted(set(names["train"]) | set(names["dev"])))
    index = {label: i for i, label in enumerate(labels)}
    train_labels = np.array([index[names["train"][row]] for row in rows], dtype=np.int64)
    dev_labels = np.array([index[name] for name in names["dev"]], dtype=np.int64)
    return ProbeTask(task, TASK_TITLES[task], TASK_KINDS[task], labels, data["train_features"][rows], train_labels,
                     data["dev_features"], dev_labels)


def sense_probe_task(model) -> ProbeTask:
    """The toy corpus' word-sense task on ``model``'s vectors (train split → held-out split)."""
    corpus = load_polysemy()
    labelled = corpus[corpus.word != ""]
    features = token_features(model, [list(tokens) for tokens in labelled.tokens])
    offsets = np.cumsum([0] + [len(tokens) for tokens in labelled.tokens])[:-1]
    examples = [(row.split, features[offset + row.target_index][None], [f"{row.word}:{row.sense}"])
                for row, offset in zip(labelled.itertuples(index=False), offsets)]
    return probe_task(SENSE_TASK, TASK_TITLES[SENSE_TASK], TASK_KINDS[SENSE_TASK], examples)


def probe_runs(model, model_name: str, seeds: Sequence[int] = PROBE_SEEDS, tasks: Sequence[str] | None = None,
               pool: int = PROBE_POOL_SENTENCES, sample: int = PROBE_TRAIN_SENTENCES, dev_limit: int | None = None,
               progress: Progress | None = None) -> list[dict]:
    """Probe every layer of ``model`` and fit the task mix, per task and seed.

    Args:
        model: a ``BiLanguageModel`` (LSTM or transformer).
        model_name: recorded in each row (``"treebank-lstm"``).
        seeds: one run per seed and task. Defaults to ``PROBE_SEEDS``.
        tasks: a subset of ``TASK_TITLES`` (None: all four).
        pool, sample, dev_limit: the treebank slices (``treebank_probe_data``, ``treebank_task``).
        progress: ``fn(message)`` before each run.

    Returns:
        One dict per (task, seed), computed on standardized features (``standardized``): ``model``, ``task``,
        ``seed``, ``probe_accuracies`` (L floats), ``mix_weights`` (L floats summing to 1), ``gamma``,
        ``mix_accuracy``, ``majority_accuracy``, ``num_train``, ``num_test``, ``num_classes``.

    Raises:
        ValueError: an unknown task.
    """
    tasks = list(TASK_TITLES) if tasks is None else list(tasks)
    unknown = [task for task in tasks if task not in TASK_TITLES]
    if unknown:
        raise ValueError(f"unknown probe task(s) {unknown}; choose from {list(TASK_TITLES)}")
    data = treebank_probe_data(model, pool, dev_limit) if set(tasks) & set(TREEBANK_TASKS) else None
    sense = sense_probe_task(model) if SENSE_TASK in tasks else None
    rows = []
    for task in tasks:
        for seed in seeds:
            if progress is not None:
                progress(f"{model_name}: {TASK_TITLES[task]} probes, seed {seed}")
            probe = standardized(sense if task == SENSE_TASK else treebank_task(data, task, seed, sample))
            if task == SENSE_TASK:
                head, accuracies = fit_mix_and_probes(probe, seed=seed, epochs=SENSE_EPOCHS)
            else:
                head, accuracies = fit_mix_and_probes(probe, seed=seed, epochs=TREEBANK_EPOCHS,
                                                      learning_rate=TREEBANK_LEARNING_RATE)
            mixed = head.gamma * np.einsum("l,nld->nd", head.weights, probe.test_features.astype(np.float64))
            predictions = np.argmax(mixed @ head.kernel + head.bias, axis=1)
            rows.append({
                "model": model_name, "task": task, "seed": int(seed),
                "probe_accuracies": [round(float(a), 6) for a in accuracies],
                "mix_weights": [round(float(w), 6) for w in head.weights], "gamma": round(float(head.gamma), 6),
                "mix_accuracy": round(float(np.mean(predictions == probe.test_labels)), 6),
                "majority_accuracy": round(probe.majority_accuracy, 6), "num_train": int(len(probe.train_labels)),
                "num_test": int(len(probe.test_labels)), "num_classes": len(probe.labels),
            })
    return rows
