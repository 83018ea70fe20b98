"""Beam search speed on the toy seq2seq model: compiled batched search vs a per-hypothesis loop.

    python benchmarks/beam_search.py [--sources 16] [--beam 5] [--max-len 20] [--repeats 20]

Trains the default toy model (GRU-128, ~50-word vocabulary; a few seconds), then decodes the same sources

* ``batched``: ``BatchedBeamSearch`` — all sources × beam hypotheses in one compiled step per token;
* ``per-hypothesis``: the same algorithm calling the (compiled, batch-1) decoder step once per live hypothesis
  per step, the way a naive implementation does (the encoder compiled too, once per source);
* ``function``: the generic ``beam_search`` on ``model.log_prob_fn(source)`` — one model call per step for
  all of a source's hypotheses, but re-reading every prefix from ``<bos>`` (no state carried).

and prints sequences (sources decoded) per second — from the median time per call — and the
batched / per-hypothesis ratio. The three must
agree on the best output of every source; the script says so.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from keras import ops

from elmo_keras._backend import compile_function
from elmo_keras._quiet import keras  # noqa: F401  (quiet TensorFlow start-up)
from elmo_keras.data.seq2seq import seq2seq_references
from elmo_keras.decoding import beam_search
from elmo_keras.decoding.batched_beam import BatchedBeamSearch
from elmo_keras.decoding.hypothesis import make_hypothesis, rank_hypotheses
from elmo_keras.models.seq2seq import encode_sources, train_seq2seq
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID


def per_hypothesis_beam(initial_states, step, source, beam_size, max_len):
    """Shrinking-beam search (as ``beam_search``) with one batch-1 decoder call per live hypothesis per step."""
    state = initial_states(source[None])
    live = [((), 0.0, state)]  # (tokens, log_prob, decoder states)
    finished = []
    for _ in range(max_len):
        candidates = []
        for rank, (tokens, log_prob, states) in enumerate(live):
            last = np.array([tokens[-1] if tokens else BOS_ID], dtype=np.int32)
            log_probs, new_states = step(states, last)
            log_probs = ops.convert_to_numpy(log_probs)[0]
            candidates.append((rank, log_prob + log_probs, new_states))
        totals = np.stack([c[1] for c in candidates])  # (n, V)
        order = np.argsort(-totals.ravel(), kind="stable")[: beam_size - len(finished)]
        next_live = []
        for flat in order:
            parent, token = divmod(int(flat), totals.shape[1])
            tokens = live[parent][0] + (token,)
            if token == EOS_ID:
                finished.append(make_hypothesis(tokens, totals.ravel()[flat], EOS_ID))
            else:
                next_live.append((tokens, float(totals.ravel()[flat]), candidates[parent][2]))
        live = next_live
        if not live:
            break
    return rank_hypotheses(finished + [make_hypothesis(t, lp, EOS_ID) for t, lp, _ in live])


def timed(fn, repeats):
    """``(median seconds per call over repeats, last result)``, after one warm-up call (compilation).

    The median, not the mean: on a shared 2-core machine other processes add long outliers.
    """
    result = fn()
    seconds = []
    for _ in range(repeats):
        started = time.perf_counter()
        result = fn()
        seconds.append(time.perf_counter() - started)
    return float(np.median(seconds)), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=16)
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--max-len", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()

    started = time.perf_counter()
    model = train_seq2seq(seed=0)
    print(f"trained toy seq2seq ({model.cell.upper()}-{model.units}, vocab {model.vocab_size}) "
          f"in {time.perf_counter() - started:.1f}s")
    texts = list(seq2seq_references("all"))
    sources = encode_sources([texts[i % len(texts)] for i in range(args.sources)], model.vocabulary)

    search = BatchedBeamSearch(model, BOS_ID, EOS_ID, args.max_len, args.beam, pad_id=PAD_ID)
    batched_s, batched = timed(lambda: search(sources), args.repeats)
    start, step = compile_function(model.initial_states), compile_function(model.decoder_step)
    loop_s, looped = timed(lambda: [per_hypothesis_beam(start, step, s, args.beam, args.max_len) for s in sources],
                           max(1, args.repeats // 10))
    function_s, functional = timed(
        lambda: [beam_search(model.log_prob_fn(s[s != PAD_ID]), BOS_ID, EOS_ID, args.max_len, args.beam)
                 for s in sources], 1)

    n = len(sources)
    rows = [("batched (compiled search)", batched_s), ("per-hypothesis loop", loop_s),
            ("function beam_search", function_s)]
    print(f"beam {args.beam}, max_len {args.max_len}, {n} sources per call, {keras.backend.backend()} backend")
    for name, seconds in rows:
        print(f"  {name:<26} {n / seconds:10.1f} sequences/s   ({seconds * 1e3:8.1f} ms per call)")
    print(f"  ratio batched / per-hypothesis: {loop_s / batched_s:.1f}x")
    print(f"  ratio batched / function:       {function_s / batched_s:.1f}x")
    same = all(a[0].tokens == b[0].tokens == c[0].tokens for a, b, c in zip(batched, looped, functional))
    print(f"  best outputs identical across the three: {same}")


if __name__ == "__main__":
    main()
