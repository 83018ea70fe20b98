"""The sizes of a ``train_bilm`` run that are checked before any work starts: the sampled softmax's negatives and the
data-parallel replicas. Each check names the setting and the value and says what would fit (the CLI names its
flags: ``--negative-samples``, ``--devices``).

The rules:

- ``n_negative_samples`` = S (``models.bilm.sampled_softmax``):

  1. S ≤ ``MAX_NEGATIVE_SAMPLES`` (2³¹ − 2): the ``1 + S`` candidate ids and the `(positions, 1 + S)` logits are
     indexed with int32;
  2. one step's sampled-softmax arrays fit in memory: per direction the `(token_dim, 1 + S)` softmax rows gathered
     and the `(batch × time, 1 + S)` logits, and as much again for their gradients, so at least
     ``4 · (1 + S) · (token_dim + batch_size)`` float32 values (time ≥ 1);
  3. S < V − 1, the ids the sampler draws from (every vocabulary entry but padding): a position scores its word,
     padding and the S draws, so at S ≥ V − 1 that is more logits than the full softmax's V, which is also exact.
     Checked as soon as V is known: before any work for a given vocabulary, after the scan that builds the
     vocabulary of a streamed corpus.

- replicas R (``strategy``; ``--devices`` logical CPU devices):

  1. ``configure_cpu_devices(count)``: count ≤ ``max_cpu_devices()``, 64 or this machine's CPU cores, whichever is
     more: logical devices beyond that only simulate more devices, each costing start-up time and (mirrored) a
     copy of the model in the same memory;
  2. R ≤ ``batch_size``: the global batch is split evenly, so each replica needs at least one sentence;
  3. ``batch_size`` is a multiple of R.
"""

from __future__ import annotations

import os

from elmo_keras.limits import FLOAT32_BYTES, available_memory_bytes

MAX_NEGATIVE_SAMPLES = 2**31 - 2  # 1 + S candidates indexed with int32
SAMPLED_SOFTMAX_COPIES = 4  # two directions, each the values and their gradients
MIN_CPU_DEVICE_LIMIT = 64
BILM_TF_NEGATIVES = "bilm-tf drew 8,192 of 793,471 words"


def max_cpu_devices() -> int:
    """The most logical CPU devices ``configure_cpu_devices`` makes: 64 or the CPU cores, whichever is more."""
    return max(MIN_CPU_DEVICE_LIMIT, os.cpu_count() or 1)


def check_cpu_device_count(count: int, name: str = "count") -> None:
    """Refuse more logical CPU devices than ``max_cpu_devices()``.

    Raises:
        ValueError: naming ``name`` and the value.
    """
    limit = max_cpu_devices()
    if count > limit:
        raise ValueError(f"{name} {count:,} is more logical CPU devices than useful (at most {limit:,}: "
                         f"{MIN_CPU_DEVICE_LIMIT} or this machine's {os.cpu_count() or 1} CPU cores, whichever is "
                         "more); each one costs start-up time and a copy of the model: use e.g. 2-8 to simulate a "
                         "multi-device host")


def check_replicas(replicas: int, batch_size: int, where: str, batch_origin: str = "",
                   batch_name: str = "batch_size") -> None:
    """Refuse a global batch that ``replicas`` cannot split evenly with at least one sentence each.

    Args:
        replicas: int, the devices the batch is split across.
        batch_size: int, the global batch.
        where: names the replicas in the message (``"the 3 replicas of strategy='mirrored'"``, ``"--devices 3"``).
        batch_origin: where the batch size came from, for the message (``"the preset's"``), or ``""``.
        batch_name: how the message names the batch size (``"--batch-size"`` in the CLI).

    Raises:
        ValueError: naming the batch size (and its origin), the replicas and the fix.
    """
    batch = f"{batch_name} {batch_size:,}" + (f" ({batch_origin})" if batch_origin else "")
    if replicas > batch_size:
        raise ValueError(f"{where}: more devices than sentences per batch ({batch}): the global batch is split evenly, "
                         f"so each device needs at least one sentence; use at most {batch_size:,} devices (a divisor "
                         "of the batch size) or a larger batch size")
    if batch_size % replicas:
        raise ValueError(f"{where}: {batch} is not divisible by the {replicas:,} devices the batch is split across "
                         f"evenly; choose a batch size that is a multiple of {replicas:,}, or a number of devices that "
                         "divides it")


def check_negative_samples(count: int | None, token_dim: int, batch_size: int, vocabulary_size: int | None = None,
                           name: str = "n_negative_samples") -> None:
    """Refuse a number of sampled-softmax negatives that int32 indices cannot hold, whose arrays cannot fit in
    memory, or (with ``vocabulary_size``) that costs more than the full softmax. None: the full softmax, nothing
    to check.

    Raises:
        ValueError: naming ``name`` and ``count``, and what would fit.
    """
    if count is None:
        return
    advice = f"use far fewer ({BILM_TF_NEGATIVES}), or none for the full softmax"
    if count > MAX_NEGATIVE_SAMPLES:
        raise ValueError(f"{name} {count:,} is more than the {MAX_NEGATIVE_SAMPLES:,} negatives int32 indices can "
                         f"hold; {advice}")
    needed = SAMPLED_SOFTMAX_COPIES * (1 + count) * (token_dim + batch_size) * FLOAT32_BYTES
    available = available_memory_bytes()
    if available is not None and needed > available:
        raise ValueError(f"{name} {count:,} needs at least {needed / 2**30:,.1f} GiB per training step (the sampled "
                         f"logits and softmax rows of {batch_size:,} sentences, width {token_dim:,}), but "
                         f"{available / 2**30:,.1f} GiB is available; {advice}")
    if vocabulary_size is not None and count >= vocabulary_size - 1:
        raise ValueError(f"{name} {count:,} is not below the {vocabulary_size - 1:,} words the sampler draws from (a "
                         f"vocabulary of {vocabulary_size:,} with padding): the sampled softmax would score more "
                         f"words per position than the full softmax over all {vocabulary_size:,}, which is exact; use "
                         f"fewer (e.g. under a tenth of the vocabulary; {BILM_TF_NEGATIVES}), or none for the full "
                         "softmax")


def check_training_sizes(config, replicas: int = 1, vocabulary_size: int | None = None, strategy=None,
                         batch_origin: str = "") -> None:
    """``check_negative_samples`` and ``check_replicas`` for a ``BiLMConfig`` (``train_bilm``'s API names).

    Args:
        config: the ``BiLMConfig`` (``n_negative_samples``, ``token_dim``, ``batch_size``).
        replicas: int, what ``models.bilm.distribution.replica_count(strategy)`` says.
        vocabulary_size: int or None (not known yet).
        strategy: the ``strategy`` argument, named in the message.
        batch_origin: where ``config.batch_size`` came from (``"the preset's"``), or ``""``.
    """
    check_negative_samples(config.n_negative_samples, config.token_dim, config.batch_size, vocabulary_size)
    if replicas != 1:
        check_replicas(replicas, config.batch_size, f"the {replicas:,} replicas of strategy={strategy!r}",
                       batch_origin)
