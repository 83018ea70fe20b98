"""The other side of ``tests/embedding/test_embed_shards.py``'s strategy test, run in a subprocess (logical devices
must be made
before TensorFlow starts its runtime):

    KERAS_BACKEND=tensorflow python -m tests.support.embed_strategy_worker OUT.json

It splits the CPU into 2 logical devices, embeds the same sentences with one tiny untrained biLM on one device and
with ``ElmoEmbedder(strategy="mirrored")`` (each batch split across the 2 replicas), and writes the replica count and
the largest difference per batch to OUT.json: a batch of 5 sentences (an odd count: one padding row) and one of a
single sentence (fewer rows than replicas).
"""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np

from elmo_keras._quiet import keras  # imports the backend's Python modules only: its runtime is not started yet
from elmo_keras.models.bilm.distribution import configure_cpu_devices

REPLICAS = 2
BATCHES = {
    "five": [["The", "cat", "sat", "on", "the", "mat", "."], ["Hi"], ["a", "b", "c"],
             ["A", "much", "longer", "sentence", "about", "the", "river", "bank", "that", "flooded"], ["x", "y"]],
    "one": [["only", "one", "sentence"]],
}


def tiny_bilm():
    """A small untrained character biLM (2 layers), its weights from seed 0, built by one eager call (on JAX, weights
    first made inside the embedder's ``jax.jit`` trace would leak that trace's values)."""
    from elmo_keras.layers import CharCNN  # after configure_cpu_devices: making layers starts the runtime
    from elmo_keras.layers.bilm import BiLM
    from elmo_keras.text.batching import char_ids_with_boundaries

    keras.utils.set_random_seed(0)
    bilm = BiLM(CharCNN(embedding_dim=4, filters=((1, 8), (2, 8)), projection_dim=8), units=16, projection_dim=8)
    bilm(char_ids_with_boundaries([["build"]], 3))
    return bilm


def main(out: pathlib.Path) -> None:
    configure_cpu_devices(REPLICAS)
    from elmo_keras.embedding.embedder import ElmoEmbedder  # after configure_cpu_devices (runtime start-up)

    bilm = tiny_bilm()
    one_device = ElmoEmbedder(bilm=bilm)
    replicated = ElmoEmbedder(bilm=bilm, strategy="mirrored")
    result = {"replicas": int(replicated.strategy.num_replicas_in_sync)}
    for name, batch in BATCHES.items():
        expected, got = one_device.embed_batch(batch), replicated.embed_batch(batch)
        assert [g.shape for g in got] == [e.shape for e in expected]
        result[name] = max(float(np.max(np.abs(g - e))) for g, e in zip(got, expected))
        result[f"{name}_scale"] = max(float(np.max(np.abs(e))) for e in expected)
    out.write_text(json.dumps(result))


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
