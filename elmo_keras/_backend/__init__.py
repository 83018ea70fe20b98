"""Everything backend-specific in elmo_keras, in one package; the rest is written with ``keras.ops`` and asks this
package wherever the engines differ. ``tests/backend/test_backend_seam.py`` fails on a ``keras.backend.backend()``
call or
a ``tensorflow``/``jax``/``torch`` import anywhere else.

What is TensorFlow-only, with its portable fallback elsewhere: the ``tf.while_loop`` runner, XLA
(``execution="xla"``; JAX jit-compiles every non-eager mode), the ``tf.data`` training pipeline (a ``PyDataset``
elsewhere), ``tf.distribute`` strategies (``keras.distribution.DataParallel`` on JAX) and the
``training_precision="auto"`` probe (float32 elsewhere).

By concern (each module imports only the engine in use, inside its functions: the others may be absent):

- ``execution``: which engine runs (``backend_name``, ``engine_version``); ``scan_time``, the symbolic loop over
  time steps (``tf.while_loop`` on TensorFlow, a Python loop on eager JAX, ``keras.ops.scan`` elsewhere);
  ``compile_function`` (XLA or ``jax.jit``, the weights read at every call), ``compile_for_inference`` and
  ``compiles_per_shape`` (the embedder's graph / XLA / eager modes),
  ``compiled_functions_take_variables_as_constants`` (no kept bfloat16 weight copies on JAX),
  ``id_graph_function`` (the seq2seq's scoring as one graph for every shape), ``is_eager`` (whether a tensor holds
  values), ``check_onnx_export_backend`` (ONNX export of any batch and length: TensorFlow).
- ``training_steps``: ``fit_jit_compile`` (``Model.compile(jit_compile=…)`` for a fast step), ``loss_and_gradients``
  (a stateful ``train_step``'s gradient: TensorFlow's tape, PyTorch's autograd), ``uses_stateless_steps`` with
  JAX's stateless ``branch_train_step`` / ``branch_test_step`` (the taggers' one-task-per-batch steps),
  ``dense_gradients`` (TensorFlow's ``IndexedSlices`` made dense), ``input_gradients`` (the gradient-flow study's
  ``∂L/∂h_t``).
- ``data_pipeline``: ``trains_from_tf_data``; ``gathered_batches`` (the biLM's batches as a ``tf.data`` pipeline),
  ``generated_batches`` (batches a Python generator makes), ``padded_time`` (rounded up on JAX, which compiles
  once per shape).
- ``distribution``: ``split_cpu_devices``, ``check_strategy_backend``, ``mirrored_strategy``,
  ``mirrored_replica_count``, ``is_strategy_object``, ``is_multi_worker``, ``sum_over_replicas`` (behind
  ``models.bilm.distribution``), ``replicated_inference`` (the embedder's batches split across a strategy's
  replicas).
- ``rng``: ``global_random_state`` / ``set_global_random_state`` (PyTorch's global generator, kept in checkpoints).
- ``sparse_rows``: ``touched_slices`` (on TensorFlow, a gradient cut down to ``IndexedSlices`` of the rows it
  touched, a repeated row summed) and ``update_touched_rows`` (an optimizer update of those rows, in place on
  TensorFlow and PyTorch; ``models.sparse_optimizers``).
- ``precision``: ``has_native_bfloat16`` and ``time_training_steps`` (``models.bilm.precision``'s measurement),
  ``has_native_bfloat16_inference`` (``embedding.precision``'s rule), ``fused_elementwise`` (XLA-fused
  elementwise steps between the bfloat16 inference loop's matmuls).
- ``strings``: ``token_strings`` (token strings given as Python or NumPy values, checked and UTF-8-encoded one by
  one) and ``utf8_bytes`` (token strings as bytes: inside the graph on TensorFlow, in Python elsewhere;
  ``layers.ElmoCharacterIds``).

The package imports none of its modules (``elmo_keras._lazy``): each name is imported on first use.
"""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras._backend.execution": ["backend_name", "check_onnx_export_backend", "compile_for_inference",
                                      "compile_function", "compiled_functions_take_variables_as_constants",
                                      "compiles_per_shape", "engine_version",
                                      "id_graph_function", "is_eager", "scan_time"],
    "elmo_keras._backend.training_steps": ["branch_test_step", "branch_train_step", "dense_gradients",
                                           "fit_jit_compile", "input_gradients", "loss_and_gradients",
                                           "uses_stateless_steps"],
    "elmo_keras._backend.data_pipeline": ["JAX_TIME_BUCKET", "gathered_batches", "generated_batches", "padded_time",
                                          "trains_from_tf_data"],
    "elmo_keras._backend.distribution": ["check_strategy_backend", "is_multi_worker", "is_strategy_object",
                                         "mirrored_replica_count", "mirrored_strategy", "replicated_inference",
                                         "split_cpu_devices", "sum_over_replicas"],
    "elmo_keras._backend.rng": ["global_random_state", "set_global_random_state"],
    "elmo_keras._backend.sparse_rows": ["touched_slices", "update_touched_rows"],
    "elmo_keras._backend.precision": ["fused_elementwise", "has_native_bfloat16", "has_native_bfloat16_inference",
                                      "time_training_steps"],
    "elmo_keras._backend.strings": ["token_strings", "utf8_bytes"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras._backend.data_pipeline import (
        JAX_TIME_BUCKET,
        gathered_batches,
        generated_batches,
        padded_time,
        trains_from_tf_data,
    )
    from elmo_keras._backend.distribution import (
        check_strategy_backend,
        is_multi_worker,
        is_strategy_object,
        mirrored_replica_count,
        mirrored_strategy,
        replicated_inference,
        split_cpu_devices,
        sum_over_replicas,
    )
    from elmo_keras._backend.execution import (
        backend_name,
        check_onnx_export_backend,
        compile_for_inference,
        compile_function,
        compiled_functions_take_variables_as_constants,
        compiles_per_shape,
        engine_version,
        id_graph_function,
        is_eager,
        scan_time,
    )
    from elmo_keras._backend.precision import (
        fused_elementwise,
        has_native_bfloat16,
        has_native_bfloat16_inference,
        time_training_steps,
    )
    from elmo_keras._backend.rng import global_random_state, set_global_random_state
    from elmo_keras._backend.sparse_rows import touched_slices, update_touched_rows
    from elmo_keras._backend.strings import token_strings, utf8_bytes
    from elmo_keras._backend.training_steps import (
        branch_test_step,
        branch_train_step,
        dense_gradients,
        fit_jit_compile,
        input_gradients,
        loss_and_gradients,
        uses_stateless_steps,
    )

__all__ = [
    "JAX_TIME_BUCKET", "backend_name", "branch_test_step", "branch_train_step",
    "check_onnx_export_backend", "check_strategy_backend", "compile_for_inference", "compile_function",
    "compiled_functions_take_variables_as_constants", "compiles_per_shape", "dense_gradients", "engine_version",
    "fit_jit_compile", "fused_elementwise", "gathered_batches", "generated_batches", "global_random_state",
    "has_native_bfloat16", "has_native_bfloat16_inference", "id_graph_function", "input_gradients",
    "is_eager", "is_multi_worker", "is_strategy_object", "loss_and_gradients", "mirrored_replica_count",
    "mirrored_strategy", "padded_time", "replicated_inference", "scan_time", "set_global_random_state",
    "split_cpu_devices", "sum_over_replicas", "time_training_steps", "token_strings", "touched_slices",
    "trains_from_tf_data",
    "update_touched_rows", "uses_stateless_steps", "utf8_bytes",
]
