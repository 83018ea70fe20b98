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

from keras import ops

from elmo_keras._quiet import keras
from elmo_keras.argument_checks import check_positive_int
from elmo_keras.models.training_sizes import check_cpu_device_count

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
    count = check_positive_int(count, "count")
    check_cpu_device_count(count)
    backend = keras.backend.backend()
    too_late = (f"configure_cpu_devices({count}) must run before the {backend} runtime starts: call it first "
                "thing in the process, before any model or tensor is made")
    if backend == "tensorflow":
        import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

        cpu = tf.config.list_physical_devices("CPU")[0]
        try:
            tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * count)
        except RuntimeError as error:
            if len(tf.config.list_logical_devices("CPU")) == count:  # already split this way: nothing to do
                return
            raise RuntimeError(f"{too_late} ({error})") from error
    elif backend == "jax":
        import jax  # here: only the backend in use is imported (others may be absent)

        try:
            jax.config.update("jax_num_cpu_devices", count)
        except RuntimeError as error:
            if len(jax.devices("cpu")) == count:
                return
            raise RuntimeError(f"{too_late} ({error})") from error
    else:
        raise RuntimeError(f"the {backend} backend has no logical CPU devices (tensorflow and jax have)")


def _mirrored_strategy(devices=None):
    """``tf.distribute.MirroredStrategy`` over ``devices``; default: every GPU, else every logical CPU device."""
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    if devices is None:
        gpus = tf.config.list_logical_devices("GPU")
        devices = [d.name for d in (gpus or tf.config.list_logical_devices("CPU"))]
    # NcclAllReduce (MirroredStrategy's default on GPUs) has no CPU kernel; the CPU-only case sums on one device
    cross_device_ops = None if any("GPU" in d.upper() for d in devices) else tf.distribute.ReductionToOneDevice()
    return tf.distribute.MirroredStrategy(devices=list(devices), cross_device_ops=cross_device_ops)


def _check_backend(strategy: str, wanted: str) -> None:
    backend = keras.backend.backend()
    if backend != wanted:
        raise ValueError(f"strategy={strategy!r} needs the {wanted} backend, this process runs {backend!r} "
                         f"(set KERAS_BACKEND={wanted} before Keras is imported, or pick another strategy)")


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
        _check_backend(strategy, "tensorflow")
        mirrored = _mirrored_strategy(devices)
        with mirrored.scope():
            yield mirrored.num_replicas_in_sync
    elif strategy == "data-parallel":
        _check_backend(strategy, "jax")
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
        _check_backend(strategy, "tensorflow")
        import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

        return len(tf.config.list_logical_devices("GPU") or tf.config.list_logical_devices("CPU"))
    if strategy == "data-parallel":
        _check_backend(strategy, "jax")
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


def _check_strategy_object(strategy, devices) -> None:
    if keras.backend.backend() != "tensorflow" or "tensorflow" not in type(strategy).__module__:
        raise ValueError(f"strategy must be None, one of {STRATEGIES} or a tf.distribute.Strategy (TensorFlow "
                         f"backend), received {type(strategy).__name__}")
    if devices is not None:
        raise ValueError("devices only goes with strategy='mirrored' or 'data-parallel'; a tf.distribute.Strategy "
                         "object already names its devices")


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
    if keras.backend.backend() != "tensorflow":
        return
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    strategy = getattr(model, "_distribute_strategy", None)
    if not isinstance(strategy, tf.distribute.MultiWorkerMirroredStrategy):
        return
    if not model.built:
        raise ValueError("adapt_to_multi_worker needs a built model: call model.build(input_shape) first")
    model._distribute_strategy = None  # workaround 1 (Keras' TensorFlowTrainer reads it, else get_strategy())
    for name in ("train_step", "test_step"):  # workaround 2
        step = getattr(type(model), name)
        setattr(model, name, lambda data, step=step: {key: ops.reshape(value, (1,))
                                                      for key, value in step(model, data).items()})


def sum_over_replicas(values):
    """``values`` summed across the replicas of a ``tf.distribute`` strategy; ``values`` itself elsewhere.

    Inside a strategy's replica function (``fit``'s ``train_step`` under ``distribution_scope("mirrored")``) each
    replica sees its own share of the global batch; this all-reduces a tensor (or a list of tensors, None
    entries kept as None) so every replica holds the global total. Outside one (one device, a cross-replica
    context, JAX's global SPMD program, PyTorch) it returns ``values`` unchanged.

    Args:
        values: a tensor, or a list of tensors and Nones (gradients).
    """
    if keras.backend.backend() != "tensorflow":
        return values
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    context = tf.distribute.get_replica_context()
    if context is None or context.num_replicas_in_sync == 1:
        return values
    if not isinstance(values, (list, tuple)):
        return context.all_reduce(tf.distribute.ReduceOp.SUM, values)
    present = [v for v in values if v is not None]
    summed = iter(context.all_reduce(tf.distribute.ReduceOp.SUM, present) if present else [])
    return [None if v is None else next(summed) for v in values]


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
