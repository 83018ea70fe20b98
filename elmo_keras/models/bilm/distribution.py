"""Data-parallel training on the engines' own machinery: ``tf.distribute.MirroredStrategy`` on TensorFlow,
``keras.distribution.DataParallel`` on JAX.

What each engine does for us, and what it leaves to the model:

- TensorFlow (Keras 3.15's trainer under a strategy): ``fit`` splits every global batch across the replicas, runs
  ``train_step`` once per replica and sums the replicas' gradients (``ReduceOp.SUM``) in the optimizer. A
  *compiled* Keras loss divides itself by the number of replicas so that the sum is the global mean
  (``scale_loss_for_distribution``); a hand-written ``compute_loss`` (``BiLanguageModel``'s) is not scaled. Ours
  divides each replica's summed token loss by the token count of the WHOLE global batch (``sum_over_replicas``
  of the counts), so the summed gradients equal the one-device mean gradient exactly, even when the replicas
  hold different numbers of real tokens (dividing by ``replicas`` would not). Keras also clips each replica's
  gradient *before* the sum; ``DenseGradientAdam`` sums first, so ``clipnorm`` acts on the global gradient.
- JAX: one SPMD program over the global batch sharded across the devices; sums and means in the loss are global
  already, so nothing is scaled (``sum_over_replicas`` is the identity).

Example (TensorFlow, 2 logical CPU devices; a multi-GPU host needs no ``configure_cpu_devices``):

    configure_cpu_devices(2)  # before TensorFlow runs anything
    with distribution_scope("mirrored") as replicas:  # 2
        model = build_bilm_lm(config, vocab_size)
        model.compile(optimizer=DenseGradientAdam(1e-3, clipnorm=5.0))
        model.fit(dataset)  # global batches; each replica gets batch_size / replicas rows
"""

from __future__ import annotations

import contextlib

from elmo_keras._backend.distribution import (
    check_strategy_backend,
    is_multi_worker,
    is_strategy_object,
    mirrored_replica_count,
    mirrored_strategy,
    split_cpu_devices,
    sum_over_replicas,
)
from elmo_keras._backend.execution import backend_name
from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int
from elmo_keras.models.bilm.training_sizes import check_cpu_device_count

STRATEGIES = ("mirrored", "data-parallel")


def configure_cpu_devices(count: int) -> None:
    """Split this machine's CPU into ``count`` logical devices, for data-parallel training without accelerators.

    TensorFlow: ``tf.config.set_logical_device_configuration``; JAX: ``jax_num_cpu_devices``. Either must run
    before the backend starts its runtime (before the first tensor is made).

    Args:
        count: int ≥ 1, the number of CPU devices to expose, at most ``training_sizes.max_cpu_devices()`` (64 or the
            CPU cores, whichever is more).

    Raises:
        ValueError: ``count`` is not an int ≥ 1, or is above that bound (checked before the backend is touched).
        RuntimeError: the backend's runtime has already started, or the backend (PyTorch) has no logical devices.
    """
    count = check_int(count, "count")
    check_cpu_device_count(count)
    split_cpu_devices(count)


@contextlib.contextmanager
def distribution_scope(strategy=None, devices=None):
    """A context for building, compiling and fitting a model data-parallel; yields the number of replicas.

    Args:
        strategy: None (one device: yields 1, changes nothing); ``"mirrored"``: ``tf.distribute.MirroredStrategy``
            (TensorFlow backend); ``"data-parallel"``: ``keras.distribution.DataParallel`` (JAX backend); or an
            existing ``tf.distribute.Strategy`` (TensorFlow backend, ``MultiWorkerMirroredStrategy`` included).
        devices: list of device names, e.g. ``["/gpu:0", "/gpu:1"]`` (TensorFlow) or ``["cpu:0", "cpu:1"]``
            (JAX). Defaults to None: every GPU, else every (logical) CPU device. Not used with a strategy object.

    Yields:
        int, the number of replicas the global batch is split across (``fit``'s batch size stays global).

    Raises:
        ValueError: an unknown ``strategy``, one for another backend, or ``devices`` with no strategy or with a
            strategy object.
    """
    if strategy is None:
        if devices is not None:
            raise ValueError(f"devices={devices!r} needs a strategy ('mirrored' or 'data-parallel'); with "
                             "strategy=None training runs on one device")
        yield 1
    elif strategy == "mirrored":
        check_strategy_backend(strategy, "tensorflow")
        mirrored = mirrored_strategy(devices)
        with mirrored.scope():
            yield mirrored.num_replicas_in_sync
    elif strategy == "data-parallel":
        check_strategy_backend(strategy, "jax")
        if devices is None:
            devices = keras.distribution.list_devices()
        data_parallel = keras.distribution.DataParallel(devices=list(devices))
        with data_parallel.scope():
            yield len(devices)
    elif isinstance(strategy, str):
        raise ValueError(f"strategy must be None, one of {STRATEGIES} or a tf.distribute.Strategy, received "
                         f"{strategy!r}")
    else:
        _check_strategy_object(strategy, devices)
        with strategy.scope():
            yield strategy.num_replicas_in_sync


def replica_count(strategy=None) -> int:
    """How many replicas ``distribution_scope(strategy)`` will split each global batch across, found without
    making the strategy (so the batch size can be checked before any work): 1 for None; for ``"mirrored"`` the
    GPUs, else the logical CPU devices; for ``"data-parallel"`` ``keras.distribution.list_devices()``; a strategy
    object's ``num_replicas_in_sync``.

    Raises:
        ValueError: as ``distribution_scope`` (an unknown strategy, or one for another backend).
    """
    if strategy is None:
        return 1
    if strategy == "mirrored":
        check_strategy_backend(strategy, "tensorflow")
        return mirrored_replica_count()
    if strategy == "data-parallel":
        check_strategy_backend(strategy, "jax")
        return len(keras.distribution.list_devices())
    if isinstance(strategy, str):
        raise ValueError(f"strategy must be None, one of {STRATEGIES} or a tf.distribute.Strategy, received "
                         f"{strategy!r}")
    _check_strategy_object(strategy, None)
    return int(strategy.num_replicas_in_sync)


def strategy_name(strategy) -> str:
    """``"none"``, ``"mirrored"``, ``"data-parallel"``, or a strategy object's class and replica count
    (``"MultiWorkerMirroredStrategy×4"``): what a checkpoint records of how a run was distributed."""
    if strategy is None:
        return "none"
    if isinstance(strategy, str):
        return strategy
    return f"{type(strategy).__name__}×{getattr(strategy, 'num_replicas_in_sync', '?')}"


def writes_checkpoints(strategy=None) -> bool:
    """Whether this process writes the run's checkpoints: every process but a non-chief worker of a multi-worker
    strategy (``tf.distribute.StrategyExtended.should_checkpoint``: False on a ``MultiWorkerMirroredStrategy`` worker
    other than the chief, worker 0 when the cluster names no chief).

    Every worker still reads the state a checkpoint holds (``CheckpointCallback``): the running metrics are
    sync-on-read variables, and reading one is an all-reduce across the workers; read by the chief alone, it meets
    the others' next training step instead and the run stops (``Collective instance … expected … data_type``).
    TensorFlow's own recipe has the other workers save to a temporary directory that they delete, because its
    ``save`` reads and writes in one call; here reading and writing are separate steps, and they skip the writing.

    Args:
        strategy: as ``distribution_scope``'s (None, a strategy name, or a ``tf.distribute.Strategy``).
    """
    if strategy is None or isinstance(strategy, str):
        return True
    return bool(strategy.extended.should_checkpoint)


def inference_strategy(strategy=None):
    """The ``tf.distribute.Strategy`` that inference (``ElmoEmbedder(strategy=…)``) splits each batch across, or None.

    Args:
        strategy: None (one device); ``"mirrored"``: ``tf.distribute.MirroredStrategy`` over every GPU, else every
            logical CPU device (``configure_cpu_devices``); or a ``tf.distribute.Strategy`` of this process.

    Raises:
        ValueError: an unknown strategy, a strategy off the TensorFlow backend (JAX and PyTorch have no replicated
            inference here), or a ``MultiWorkerMirroredStrategy`` (several processes: embed shards of the input
            instead, ``embed_file(shard=(k, n))``).
    """
    if strategy is None:
        return None
    if strategy == "mirrored":
        check_strategy_backend(strategy, "tensorflow")
        return mirrored_strategy()
    if isinstance(strategy, str):
        raise ValueError(f"strategy must be None, 'mirrored' or a tf.distribute.Strategy (TensorFlow backend), "
                         f"received {strategy!r}")
    if not is_strategy_object(strategy):
        raise ValueError(f"strategy must be None, 'mirrored' or a tf.distribute.Strategy; received "
                         f"{type(strategy).__name__} on the {backend_name()} backend (inference splits "
                         "batches across devices on TensorFlow only: set KERAS_BACKEND=tensorflow, or embed "
                         "shards of the input in several processes)")
    if is_multi_worker(strategy):
        raise ValueError("a MultiWorkerMirroredStrategy spans several processes; inference splits batches across "
                         "the devices of one process: embed shards of the input in each process instead "
                         "(embed_file(..., shard=(k, n)), embed --shard K/N)")
    return strategy


def _check_strategy_object(strategy, devices) -> None:
    if not is_strategy_object(strategy):
        raise ValueError(f"strategy must be None, one of {STRATEGIES} or a tf.distribute.Strategy (TensorFlow "
                         f"backend), received {type(strategy).__name__}")
    if devices is not None:
        raise ValueError("devices only goes with strategy='mirrored' or 'data-parallel'; a tf.distribute.Strategy "
                         "object already names its devices")


class SumsReplicasBeforeClipping:
    """Optimizer mixin for an ``apply`` that sums the replicas' gradients itself (``sum_over_replicas``) before
    Keras clips them: Keras' TensorFlow optimizer would otherwise sum them again, after clipping, in
    ``_all_reduce_sum_gradients`` (``DenseGradientAdam``, ``models.sparse_optimizers``)."""

    def _all_reduce_sum_gradients(self, grads_and_vars):
        """Keras' TensorFlow optimizer sums the replicas' gradients here, after clipping; ``apply`` did it before."""
        return grads_and_vars


def adapt_to_multi_worker(model) -> None:
    """Let ``model.fit``/``evaluate`` run under ``tf.distribute.MultiWorkerMirroredStrategy`` (Keras 3.15 fails there).

    Two workarounds, applied only when ``model`` was made under a multi-worker strategy (a no-op otherwise):

    1. ``fit`` first builds the model symbolically from one data batch, which it averages across the workers
       with ``strategy.reduce("MEAN", batch)``; under MultiWorkerMirroredStrategy that raises ``ValueError:
       Attempt to convert a value (PerReplica…) with an unsupported type``. The model keeps no strategy of its
       own, so Keras reads the one of the enclosing ``distribution_scope`` (``tf.distribute.get_strategy()``) and
       skips that build: ``model`` must be built already (``model.build(input_shape)``) and ``fit`` called inside
       the scope.
    2. The step's logs are averaged across workers with ``strategy.reduce("MEAN", log, axis=0)``, which fails for
       scalar logs (``Invalid reduction dimension 0 for input with 0 dimensions``); the steps return them with
       shape `(1,)`, reduced to scalars.

    Args:
        model: a built ``keras.Model`` made inside ``distribution_scope(strategy)``.

    Raises:
        ValueError: under a multi-worker strategy, ``model`` is not built.
    """
    if not is_multi_worker(getattr(model, "_distribute_strategy", None)):
        return
    if not model.built:
        raise ValueError("adapt_to_multi_worker needs a built model: call model.build(input_shape) first")
    model._distribute_strategy = None  # workaround 1 (Keras' TensorFlowTrainer reads it, else get_strategy())
    for name in ("train_step", "test_step"):  # workaround 2
        step = getattr(type(model), name)
        setattr(model, name, lambda data, step=step: {key: ops.reshape(value, (1,))
                                                      for key, value in step(model, data).items()})


def global_token_means(totals, counts):
    """Mean losses over the global batch's real tokens, from each replica's sums, with one all-reduce.

    For each pair ``(total, count)`` (one per loss, e.g. per direction), with ``G = max(Σ_replicas count, 1)``:

    - the *share* ``total / G``: this replica's summed loss over the global batch's token count, what the replica
      minimizes: summing the replicas' shares (and their gradients, as the optimizer does) gives the one-device
      mean (0 tokens anywhere: ``total``);
    - the *mean* ``Σ_replicas total / G``: the global batch's mean loss, for the metrics (no gradient);
    - the *count* ``Σ_replicas count``: its weight in a running mean.

    On one device, JAX, PyTorch or outside a replica context the sums are over this process alone
    (``sum_over_replicas``): share and mean are both ``total / max(count, 1)``.

    Args:
        totals: scalars, this replica's summed losses over its real tokens.
        counts: scalar floats, the matching numbers of real tokens (no gradient flows through them).

    Returns:
        ``(shares, means, global_counts)``: three lists of scalars, in the order of ``totals``.
    """
    totals, counts = list(totals), list(counts)
    summed = sum_over_replicas([ops.stop_gradient(value) for value in (*totals, *counts)])
    global_totals, global_counts = summed[: len(totals)], summed[len(totals) :]
    tokens = [ops.maximum(count, 1.0) for count in global_counts]
    shares = [total / n for total, n in zip(totals, tokens)]
    means = [total / n for total, n in zip(global_totals, tokens)]
    return shares, means, list(global_counts)
