"""Speed of our ``CRF`` against pytorch-crf: log-likelihood and Viterbi decoding, batch 32, 40 tokens, 17 tags.

    python benchmarks/crf.py [--repeats 30] [--reference-python PATH]

Cases (ms per call on one batch; sentence lengths 20–40, so the mask matters):
  log-likelihood     ``CRF.log_likelihood`` / ``torchcrf.CRF.forward(reduction="none")``
  decode             ``CRF.viterbi_decode`` / ``torchcrf.CRF.decode``
  training gradient  gradient of the mean negative log-likelihood w.r.t. the CRF's variables / ``backward()``
  top-5 decode       ``viterbi_decode(top_k=5)`` (ours only: pytorch-crf has no k-best)

Ours runs compiled two ways, "graph" (``tf.function``: a while loop over a dynamic time axis) and "xla"
(``jit_compile=True``, one compilation per shape); the ratio uses the faster and says which. Each figure is
the fastest of ``--repeats`` calls (``timing.fastest_seconds``).

The reference is optional, never a dependency: pytorch-crf (``pip install torch pytorch-crf``, module
``torchcrf``) runs this same script with ``--reference DATA`` in a subprocess of the Python given by
``--reference-python`` or ``$CRF_REFERENCE_PYTHON`` (default: this interpreter), where it imports torch and
torchcrf; without them the reference is skipped. Both sides get the same emissions, tags, mask and CRF
parameters (a temporary ``.npz``), and the script checks that they agree before it compares speed.
Targets: at least pytorch-crf's speed for the log-likelihood, three times it for decoding.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from timing import cpu_name, fastest_seconds

BATCH, STEPS, NUM_TAGS, MIN_LENGTH = 32, 40, 17, 20
TOP_K = 5
TARGETS = {"log-likelihood": 1.0, "decode": 3.0}  # speed ratio ours / pytorch-crf
REFERENCE_PYTHON_VARIABLE = "CRF_REFERENCE_PYTHON"
AGREEMENT_TOLERANCE = 1e-3  # log-likelihoods of about −100 in float32, summed in different orders


def make_data(path):
    """Random emissions `(32, 40, 17)`, tags, a right-padded mask and CRF parameters, saved to ``path``."""
    rng = np.random.default_rng(0)
    lengths = rng.integers(MIN_LENGTH, STEPS + 1, size=BATCH)
    lengths[0] = STEPS  # pytorch-crf decodes up to the longest row
    data = {
        "emissions": rng.normal(size=(BATCH, STEPS, NUM_TAGS)).astype("float32"),
        "tags": rng.integers(NUM_TAGS, size=(BATCH, STEPS)).astype("int32"),
        "mask": np.arange(STEPS)[None] < lengths[:, None],
        "transitions": rng.normal(scale=0.5, size=(NUM_TAGS, NUM_TAGS)).astype("float32"),
        "start": rng.normal(scale=0.5, size=NUM_TAGS).astype("float32"),
        "end": rng.normal(scale=0.5, size=NUM_TAGS).astype("float32"),
    }
    np.savez(path, **data)
    return data


def measure_ours(data, repeats):
    """``{case: {"graph": s, "xla": s}}``, our log-likelihoods and best paths (for the agreement check), and
    the versions measured."""
    # imported here, not at the top: the same script runs as the reference under a Python without TensorFlow
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import tensorflow as tf  # the benchmark measures the TensorFlow backend

    import elmo_keras  # noqa: F401
    from elmo_keras._quiet import keras
    from elmo_keras.layers import CRF

    crf = CRF(NUM_TAGS)
    crf.build((None, None, NUM_TAGS))
    for variable, name in zip(crf.weights, ("transitions", "start", "end")):
        variable.assign(data[name])
    emissions, tags, mask = (tf.constant(data[name]) for name in ("emissions", "tags", "mask"))

    def gradient(emissions, tags, mask):
        with tf.GradientTape() as tape:
            loss = crf.negative_log_likelihood(emissions, tags, mask)
        return tape.gradient(loss, crf.trainable_weights)

    cases = {
        "log-likelihood": lambda e, t, m: crf.log_likelihood(e, t, m),
        "decode": lambda e, t, m: crf.viterbi_decode(e, m),
        "training gradient": gradient,
        f"top-{TOP_K} decode": lambda e, t, m: crf.viterbi_decode(e, m, top_k=TOP_K),
    }
    seconds = {}
    for case, fn in cases.items():
        seconds[case] = {}
        for label, jit in (("graph", False), ("xla", True)):
            compiled = tf.function(fn, jit_compile=jit)
            seconds[case][label] = fastest_seconds(
                lambda compiled=compiled: tf.nest.map_structure(lambda x: x.numpy(), compiled(emissions, tags, mask)),
                repeats,
            )
    best_paths, _ = crf.viterbi_decode(emissions, mask)
    outputs = {"log_likelihood": crf.log_likelihood(emissions, tags, mask).numpy(), "paths": best_paths.numpy()}
    return seconds, outputs, f"TensorFlow {tf.__version__}, Keras {keras.__version__}"


def measure_reference(data_path, repeats):
    """pytorch-crf on the saved data: ``{"version", "threads", "seconds": {case: s}, "log_likelihood", "paths"}``."""
    # imported here, not at the top: only this subprocess needs PyTorch (an optional, separate install)
    import torch
    from torchcrf import CRF as TorchCRF

    data = np.load(data_path)
    crf = TorchCRF(NUM_TAGS, batch_first=True)
    with torch.no_grad():
        for parameter, name in ((crf.transitions, "transitions"), (crf.start_transitions, "start"),
                                (crf.end_transitions, "end")):
            parameter.copy_(torch.from_numpy(data[name]))
    emissions = torch.from_numpy(data["emissions"])
    tags, mask = torch.from_numpy(data["tags"]).long(), torch.from_numpy(data["mask"])

    def gradient():
        crf.zero_grad()
        (-crf(emissions, tags, mask, reduction="mean")).backward()

    with torch.inference_mode():
        seconds = {
            "log-likelihood": fastest_seconds(lambda: crf(emissions, tags, mask, reduction="none"), repeats),
            "decode": fastest_seconds(lambda: crf.decode(emissions, mask), repeats),
        }
        log_likelihood = crf(emissions, tags, mask, reduction="none").numpy()
        paths = crf.decode(emissions, mask)
    seconds["training gradient"] = fastest_seconds(gradient, repeats)
    return {"version": torch.__version__, "threads": torch.get_num_threads(), "seconds": seconds,
            "log_likelihood": log_likelihood.tolist(), "paths": paths}


def run_reference(python, data_path, repeats):
    """The reference's results from a subprocess of ``python``, or None (with the reason printed)."""
    probe = subprocess.run([python, "-c", "import torch, torchcrf"], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        print(f"pytorch-crf reference: not importable by {python} (pip install torch pytorch-crf there, "
              f"or point --reference-python / ${REFERENCE_PYTHON_VARIABLE} at a Python that has them)")
        return None
    done = subprocess.run([python, os.path.abspath(__file__), "--reference", data_path, "--repeats", str(repeats)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"pytorch-crf reference failed:\n{done.stderr[-2000:]}")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def check_agreement(ours, reference, mask):
    """Raise unless both give the same log-likelihoods (within ``AGREEMENT_TOLERANCE``) and best paths."""
    difference = np.abs(ours["log_likelihood"] - np.array(reference["log_likelihood"])).max()
    if difference > AGREEMENT_TOLERANCE:
        raise AssertionError(f"log-likelihoods differ from pytorch-crf's by up to {difference:g}")
    ours_paths = [row[: int(n)].tolist() for row, n in zip(ours["paths"], mask.sum(1))]
    if ours_paths != reference["paths"]:
        raise AssertionError("best paths differ from pytorch-crf's")
    print(f"agreement with pytorch-crf: log-likelihoods within {difference:.1e}, identical best paths")


def report(seconds, reference):
    torch_seconds = reference["seconds"] if reference else {}
    print(f"\nbatch {BATCH}, {STEPS} tokens (lengths {MIN_LENGTH}–{STEPS}), {NUM_TAGS} tags; ms per call")
    print(f"  {'case':20s} {'graph':>8s} {'xla':>8s} {'pytorch':>8s}   ratio (pytorch / our faster)")
    for case, ours in seconds.items():
        faster = min(ours, key=ours.get)
        line = f"  {case:20s} {ours['graph'] * 1e3:8.3f} {ours['xla'] * 1e3:8.3f}"
        if case in torch_seconds:
            ratio = torch_seconds[case] / ours[faster]
            line += f" {torch_seconds[case] * 1e3:8.3f}   {ratio:5.2f}x ({faster})"
            if case in TARGETS:
                line += f", target ≥ {TARGETS[case]:g}x: {'met' if ratio >= TARGETS[case] else 'NOT met'}"
        print(line)



def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--reference-python", default=os.environ.get(REFERENCE_PYTHON_VARIABLE, sys.executable),
                        help=f"the Python that has torch and torchcrf (default: ${REFERENCE_PYTHON_VARIABLE}, "
                             "else this one)")
    parser.add_argument("--reference", metavar="DATA", help=argparse.SUPPRESS)  # the subprocess's mode
    args = parser.parse_args()
    if args.reference:
        print(json.dumps(measure_reference(args.reference, args.repeats)))
        return
    with tempfile.TemporaryDirectory() as folder:
        data_path = os.path.join(folder, "crf_data.npz")
        data = make_data(data_path)
        reference = run_reference(args.reference_python, data_path, args.repeats)  # first, alone on the CPUs
    seconds, outputs, versions = measure_ours(data, args.repeats)
    print(f"{cpu_name()}; {versions}")
    if reference:
        print(f"pytorch-crf on PyTorch {reference['version']} ({reference['threads']} threads), measured first")
        check_agreement(outputs, reference, data["mask"])
    report(seconds, reference)


if __name__ == "__main__":
    main()
