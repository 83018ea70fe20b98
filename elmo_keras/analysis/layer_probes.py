"""Linear probes and a learned layer mix on frozen biLM activations, for any task given as per-token features.

A ``ProbeTask`` holds `(n, L, D)` features (every layer's vector at each example token) and integer labels, split
into train and held-out. ``fit_mix_and_probes`` trains, in one Keras ``fit``, ELMo's task mix
``Dense(softmax)(γ · Σ_j softmax(s)_j h_j)`` and one linear softmax probe per layer ``j`` on ``h_j`` alone. The
explorer's Layer weights page (toy tasks) and ``real_text.probing`` (treebank tasks) both use it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from elmo_keras._quiet import keras
from elmo_keras.layers.scalar_mix import ScalarMix

MIX_EPOCHS = 30
MIX_LEARNING_RATE = 0.02
MIX_BATCH_SIZE = 256

@dataclass(frozen=True)
class ProbeTask:
    """Features and integer labels of one task, split into train and held-out."""

    name: str
    title: str
    kind: str  # "syntactic" or "semantic"
    labels: tuple  # class names, index = label id
    train_features: np.ndarray  # (n_train, L, D) float32
    train_labels: np.ndarray  # (n_train,) int
    test_features: np.ndarray  # (n_test, L, D)
    test_labels: np.ndarray  # (n_test,)

    @property
    def num_layers(self) -> int:
        """``L``, the biLM's layers (``num_layers + 1``)."""
        return int(self.train_features.shape[1])

    @property
    def majority_accuracy(self) -> float:
        """Held-out accuracy of always answering the most frequent training label."""
        majority = np.bincount(self.train_labels, minlength=len(self.labels)).argmax()
        return float(np.mean(self.test_labels == majority))


@dataclass(frozen=True)
class MixHead:
    """The trained ``ScalarMix`` parameters and the linear softmax head."""

    scalar_parameters: np.ndarray  # (L,) raw s (before the softmax)
    gamma: float
    kernel: np.ndarray  # (D, C)
    bias: np.ndarray  # (C,)

    @property
    def weights(self) -> np.ndarray:
        """``softmax(scalar_parameters)``: `(L,)` layer weights summing to 1."""
        return softmax(self.scalar_parameters)


def softmax(values) -> np.ndarray:
    """float64 softmax of a `(L,)` vector (shifted by its maximum, so large values do not overflow)."""
    values = np.asarray(values, dtype=np.float64)
    exp = np.exp(values - values.max())
    return exp / exp.sum()


def fit_mix_and_probes(task: ProbeTask, seed: int = 0, epochs: int = MIX_EPOCHS,
                       learning_rate: float = MIX_LEARNING_RATE,
                       batch_size: int = MIX_BATCH_SIZE) -> tuple[MixHead, np.ndarray]:
    """Train the mix head and the single-layer probes on the task's frozen features (deterministic for ``seed``).

    One Keras model holds ``Dense(softmax)(ScalarMix(h_0 … h_L))`` and, beside it, one ``Dense(softmax)`` probe
    per layer ``j`` on ``h_j`` alone. They share no weights, and Adam updates every weight on its own, so one
    ``fit`` on the summed losses trains each exactly as a separate ``fit`` with the same batches would; the
    probes are thus trained like for like with the mix.

    Args:
        task: the task's frozen features and labels.
        seed: int, seeds Keras (weights, shuffling). Defaults to 0.
        epochs: int. Defaults to ``MIX_EPOCHS``.
        learning_rate: float, Adam's. Defaults to ``MIX_LEARNING_RATE``.
        batch_size: int, examples per step. Defaults to ``MIX_BATCH_SIZE``.

    Returns:
        ``(MixHead, probe held-out accuracies (L,))``.
    """
    keras.utils.set_random_seed(int(seed))
    num_layers, dim, num_classes = task.num_layers, task.train_features.shape[2], len(task.labels)
    inputs = [keras.Input((1, dim), name=f"layer_{j}") for j in range(num_layers)]  # each (batch, 1, D)
    mix = ScalarMix(num_layers, name="scalar_mix")
    head = keras.layers.Dense(num_classes, activation="softmax", name="head")
    flat = [keras.layers.Flatten(name=f"flatten_{j}") for j in range(num_layers)]
    probes = [keras.layers.Dense(num_classes, activation="softmax", name=f"probe_{j}") for j in range(num_layers)]
    mixed = keras.layers.Flatten(name="flatten_mix")(mix(inputs))  # (batch, D)
    outputs = [head(mixed)] + [probe(f(x)) for probe, f, x in zip(probes, flat, inputs)]
    model = keras.Model(inputs, outputs, name=f"{task.name}_layer_weights")
    model.compile(optimizer=keras.optimizers.Adam(learning_rate),
                  loss=["sparse_categorical_crossentropy"] * len(outputs))
    model.fit([task.train_features[:, j : j + 1] for j in range(num_layers)], [task.train_labels] * len(outputs),
              epochs=epochs, batch_size=batch_size, shuffle=True, verbose=0)
    kernel, bias = (np.asarray(w, dtype=np.float64) for w in head.get_weights())
    scalars = np.asarray(keras.ops.convert_to_numpy(mix.scalar_parameters), dtype=np.float64)
    accuracies = []
    for j, probe in enumerate(probes):
        probe_kernel, probe_bias = probe.get_weights()
        logits = task.test_features[:, j] @ probe_kernel + probe_bias  # (n_test, C)
        accuracies.append(float(np.mean(np.argmax(logits, axis=1) == task.test_labels)))
    return MixHead(scalars, mix.gamma_value(), kernel, bias), np.array(accuracies)



def probe_task(name, title, kind, examples) -> ProbeTask:
    """A ``ProbeTask`` from ``examples``: ``[(split, features (k, L, D), labels [k])]``, split ``"train"`` or
    ``"heldout"``; the labels' names are sorted, the index of a name is its label id.

    Raises:
        ValueError: no train or no held-out examples, or fewer than two training labels.
    """
    labels = tuple(sorted({label for _, _, names in examples for label in names}))
    index = {label: i for i, label in enumerate(labels)}
    parts = {}
    for split in ("train", "heldout"):
        chosen = [(f, names) for s, f, names in examples if s == split]
        if not chosen or not any(len(names) for _, names in chosen):
            raise ValueError(f"the {title} task has no {split} examples in this corpus")
        parts[split] = (np.concatenate([f for f, _ in chosen]).astype(np.float32),
                        np.array([index[n] for _, names in chosen for n in names], dtype=np.int64))
    if len(set(parts["train"][1].tolist())) < 2:
        raise ValueError(f"the {title} task needs at least two different labels in its training examples")
    return ProbeTask(name, title, kind, labels, *parts["train"], *parts["heldout"])
