"""Data parallelism on each engine (``models.bilm.distribution`` builds on these): logical CPU devices,
``tf.distribute`` strategies on TensorFlow, ``keras.distribution`` on JAX, the replicas' all-reduce, and
inference with each batch split across a strategy's replicas (``replicated_inference``, TensorFlow).
"""

from __future__ import annotations

from elmo_keras._quiet import keras


def split_cpu_devices(count: int) -> None:
    """Split this machine's CPU into ``count`` logical devices (``count`` already checked by the caller).

    TensorFlow: ``tf.config.set_logical_device_configuration``; JAX: ``jax_num_cpu_devices``. Either must run
    before the backend starts its runtime (before the first tensor is made); nothing to do when the devices are
    already split this way.

    Raises:
        RuntimeError: the backend's runtime has already started, or the backend (PyTorch) has no logical devices.
    """
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


def check_strategy_backend(strategy: str, wanted: str) -> None:
    """Raise ``ValueError`` unless this process runs the ``wanted`` backend, which ``strategy`` needs."""
    backend = keras.backend.backend()
    if backend != wanted:
        raise ValueError(f"strategy={strategy!r} needs the {wanted} backend, this process runs {backend!r} "
                         f"(set KERAS_BACKEND={wanted} before Keras is imported, or pick another strategy)")


def mirrored_strategy(devices=None):
    """``tf.distribute.MirroredStrategy`` over ``devices``; default: every GPU, else every logical CPU device."""
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    if devices is None:
        gpus = tf.config.list_logical_devices("GPU")
        devices = [d.name for d in (gpus or tf.config.list_logical_devices("CPU"))]
    # NcclAllReduce (MirroredStrategy's default on GPUs) has no CPU kernel; the CPU-only case sums on one device
    cross_device_ops = None if any("GPU" in d.upper() for d in devices) else tf.distribute.ReductionToOneDevice()
    return tf.distribute.MirroredStrategy(devices=list(devices), cross_device_ops=cross_device_ops)


def mirrored_replica_count() -> int:
    """The replicas ``mirrored_strategy()`` would make: the GPUs, else the logical CPU devices (TensorFlow)."""
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    return len(tf.config.list_logical_devices("GPU") or tf.config.list_logical_devices("CPU"))


def is_strategy_object(strategy) -> bool:
    """True when ``strategy`` is a ``tf.distribute.Strategy`` (or any TensorFlow object) on the TensorFlow backend."""
    return keras.backend.backend() == "tensorflow" and "tensorflow" in type(strategy).__module__


def is_multi_worker(strategy) -> bool:
    """True when ``strategy`` is a ``tf.distribute.MultiWorkerMirroredStrategy`` (always False off TensorFlow)."""
    if keras.backend.backend() != "tensorflow":
        return False
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    return isinstance(strategy, tf.distribute.MultiWorkerMirroredStrategy)


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


def replicated_inference(fn, strategy, input_shape: tuple, output_batch_axis: int):
    """``fn`` run with its input's rows split across the replicas of a ``tf.distribute`` strategy, as one graph.

    The rows are padded with all-zero rows (padding ids, masked) to a multiple of the replica count, split into
    equal contiguous parts (replica ``r`` gets part ``r``), ``fn`` runs on each replica's part
    (``strategy.run``), and the parts of its output are put back together along ``output_batch_axis`` with the
    padding rows dropped, so that the result is ``fn``'s on the whole batch. Traced once with symbolic batch and
    time axes (as ``compile_for_inference``'s ``"graph"``).

    Args:
        fn: ``fn(ids) -> tensor`` with ``ids`` int32 `(rows, time, ...)` and rows along ``output_batch_axis`` of
            the result.
        strategy: a ``tf.distribute.Strategy`` of this process (checked by the caller: ``is_strategy_object``).
        input_shape: the ids' shape; only the axes after ``time`` are fixed in the signature.
        output_batch_axis: the axis of ``fn``'s output that holds the rows.
    """
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    replicas = strategy.num_replicas_in_sync

    @tf.function(input_signature=[tf.TensorSpec((None, None) + tuple(input_shape[2:]), tf.int32)])
    def distributed(ids):
        rows = tf.shape(ids)[0]
        padding = [[0, -rows % replicas]] + [[0, 0]] * (len(input_shape) - 1)
        parts = tf.split(tf.pad(ids, padding), replicas)  # replicas × (rows / replicas, time, ...)
        per_replica = strategy.experimental_distribute_values_from_function(
            lambda context: parts[context.replica_id_in_sync_group])
        outputs = strategy.experimental_local_results(strategy.run(fn, args=(per_replica,)))
        return tf.gather(tf.concat(outputs, axis=output_batch_axis), tf.range(rows), axis=output_batch_axis)

    return distributed
