"""Peak memory of embedding with the transformer ELMo against sentence length: attention grows with its square.

    python benchmarks/transformer_memory.py [--lengths 100,250,500,1000,2000] [--batches 1,8] [--quick]

For each batch size × length, a fresh process builds the release-shaped transformer ELMo (``transformer_sizes``:
6 layers, width 512, feed-forward 2048, 8 heads; random weights, built with ``transformer_elmo_from_config``),
embeds one warm-up batch of 5-token sentences (tracing the graph), then ``ElmoEmbedder.embed_batch`` on ``batch``
random sentences of ``length`` tokens. The peak is the process's high-water mark of resident memory (``VmHWM``,
reset through ``/proc/self/clear_refs`` after the warm-up; ``ru_maxrss`` where that is refused) less its resident
memory before the call: what that one call added. Beside it the attention's float32 score tensor of one layer and
direction, ``batch × heads × (length + 2)² × 4`` bytes, and the ratio of the two: how many such tensors the call held
at once (at long lengths the quadratic term dominates; ``elmo_keras.limits.ATTENTION_LIVE_SCORES`` is read from this
column). Times are printed too but mean little on a shared machine; the memory does not depend on the load.
``--quick`` runs toy sizes (the smoke test).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import string
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

from timing import cpu_name  # noqa: E402
from transformer_sizes import NUM_HEADS, transformer_elmo_config  # noqa: E402

FLOAT32_BYTES = 4
BOUNDARIES = 2  # <S> and </S>
MIB = 2**20


def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _reset_peak() -> bool:
    """Reset ``VmHWM`` to the current resident size (Linux ≥ 4.0); False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
            clear.write("5")
        return True
    except OSError:
        return False


def random_sentences(batch: int, length: int, seed: int = 0) -> list[list[str]]:
    rng = random.Random(seed)
    return [["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(length)]
            for _ in range(batch)]


def measure_one(size: str, batch: int, length: int) -> dict:
    """In this process: build the model, warm up, embed ``batch`` × ``length`` once; the memory that call added."""
    from elmo_keras.embedding.embedder import ElmoEmbedder
    from elmo_keras.pretrained.allennlp_config import TransformerElmoConfig
    from elmo_keras.pretrained.transformer_loader import transformer_elmo_from_config

    bilm = transformer_elmo_from_config(TransformerElmoConfig.from_dict(transformer_elmo_config(size)))
    bilm.build(bilm.input_ids_shape)
    embedder = ElmoEmbedder(bilm=bilm)
    embedder.embed_batch(random_sentences(2, 5, seed=1))  # traces the graph
    before_kib = _status_kib("VmRSS")
    reset = _reset_peak()
    start = time.perf_counter()
    embedder.embed_batch(random_sentences(batch, length))
    seconds = time.perf_counter() - start
    peak_kib = _status_kib("VmHWM") if reset else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"peak_mib": (peak_kib - before_kib) / 1024, "seconds": seconds, "hwm_reset": reset}


def attention_mib(batch: int, length: int, heads: int = NUM_HEADS) -> float:
    """One layer's float32 attention scores for ``batch`` sentences of ``length`` tokens (boundaries added)."""
    return batch * heads * (length + BOUNDARIES) ** 2 * FLOAT32_BYTES / MIB


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lengths", default="100,250,500,1000,2000")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--quick", action="store_true", help="toy model and lengths (a smoke test)")
    parser.add_argument("--one", nargs=2, type=int, metavar=("BATCH", "LENGTH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    size = "quick" if args.quick else "release"
    if args.one:
        print(json.dumps(measure_one(size, *args.one)))
        return
    lengths = [20, 60] if args.quick else [int(n) for n in args.lengths.split(",")]
    batches = [1, 2] if args.quick else [int(n) for n in args.batches.split(",")]
    print(f"transformer ELMo ({size}) peak memory of one embed_batch call, on {cpu_name()}")
    print(f"{'batch':>5} {'tokens':>6} {'peak MiB':>9} {'scores MiB':>10} {'peak/scores':>11} {'seconds':>8}")
    for batch in batches:
        for length in lengths:
            command = [sys.executable, __file__, "--one", str(batch), str(length)] + (["--quick"] if args.quick else [])
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                print(f"{batch:>5} {length:>6} failed: {done.stderr.strip().splitlines()[-1:]}")
                continue
            result = json.loads(done.stdout.strip().splitlines()[-1])
            scores = attention_mib(batch, length)
            print(f"{batch:>5} {length:>6} {result['peak_mib']:>9.0f} {scores:>10.1f} "
                  f"{result['peak_mib'] / scores:>11.1f} {result['seconds']:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
