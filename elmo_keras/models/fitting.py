"""The one trainer skeleton: how every trainer (``train_seq2seq``, ``train_dialogue_model``, ``train_text_classifier``,
the taggers', ``train_bilm``, ``fine_tune_pretrained``) trains the model it has built and seeded.

- ``compile_for_training``: ``DenseGradientAdam`` (or another ``make_optimizer`` name) clipped to ``CLIP_NORM``,
  compiled with ``fit_jit_compile()``;
- ``guarded_fit``: ``fit`` behind ``StopOnNonFiniteLoss`` (a NaN or infinite loss is a ``TrainingDivergedError``),
  the history as plain floats;
- ``training_summary``: what every ``model.training_summary`` starts with (config, seed, seconds, history);
- ``train_model``: the three in turn, then ``check_finite_weights`` (the last update can break the weights after a
  finite loss) and the model's ``vocabulary``, ``config`` and ``training_summary``.
"""

from __future__ import annotations

import time

from elmo_keras._backend import fit_jit_compile
from elmo_keras._quiet import keras
from elmo_keras.models.callbacks import StopOnNonFiniteLoss, as_keras_callbacks, check_finite_weights
from elmo_keras.models.optimizer import CLIP_NORM, make_optimizer


def compile_for_training(model: keras.Model, learning_rate: float, clip_norm: float | None = CLIP_NORM, *,
                         optimizer: str = "adam", row_sparse: dict | None = None, **compile_options) -> None:
    """Compile ``model`` as every trainer does: ``DenseGradientAdam(learning_rate, clipnorm=clip_norm)`` (or the
    ``optimizer`` named) and ``jit_compile=fit_jit_compile()``. A built model gets the optimizer's slots for the
    variables trainable now, not during the first step (a step that creates variables is traced twice); an unbuilt
    one gets them when ``fit`` builds it.

    Args:
        model: a ``keras.Model`` (under a ``distribution_scope``, compiled inside it).
        learning_rate: float, the optimizer's learning rate.
        clip_norm: float, the norm each gradient tensor is clipped to, or None (no clipping). Defaults to
            ``CLIP_NORM``.
        optimizer: ``"adam"``, ``"lazy_adam"`` or ``"adagrad"`` (``models.optimizer.make_optimizer``). Defaults to
            ``"adam"``.
        row_sparse: ``{variable.path: row axis}``: the variables whose touched rows alone ``"lazy_adam"`` and
            ``"adagrad"`` update. Defaults to None.
        **compile_options: further ``Model.compile`` arguments (``loss``, ``metrics``).
    """
    # On TensorFlow a plain graph, not XLA: with the hand-written LSTM backward pass (layers/recurrence/
    # sequence_loop.py) the graph step runs faster than XLA's while loop on CPU and is built sooner; jax.jit on JAX
    model.compile(optimizer=make_optimizer(optimizer, learning_rate, clip_norm, row_sparse),
                  jit_compile=fit_jit_compile(), **compile_options)
    if model.built:
        model.optimizer.build(model.trainable_variables)


def guarded_fit(model: keras.Model, x, y=None, *, learning_rate: float, callbacks=None,
                **fit_options) -> dict[str, list[float]]:
    """``model.fit(x, y, **fit_options)`` stopped by a ``TrainingDivergedError`` as soon as a batch's loss is NaN or
    infinite; returns the history, ``{metric: [float per epoch]}``.

    Args:
        model: a compiled ``keras.Model``.
        x, y: ``fit``'s data: arrays (``y`` the targets), or a ``PyDataset`` / generator of batches (``y`` None).
        learning_rate: float, named in the error as the thing to lower.
        callbacks: Keras callbacks and/or plain ``fn(epoch, logs)`` (``as_keras_callbacks``), called after the guard.
            Defaults to None (none).
        **fit_options: further ``Model.fit`` arguments (``epochs``, ``batch_size``, ``shuffle``, ``verbose``…).

    Raises:
        TypeError: ``callbacks`` is not a list of callbacks and/or functions.
        TrainingDivergedError (a ValueError): the loss became NaN or infinite.
    """
    guards = [StopOnNonFiniteLoss(learning_rate), *as_keras_callbacks(callbacks)]
    history = model.fit(x, y, callbacks=guards, **fit_options)
    return {key: [float(value) for value in values] for key, values in history.history.items()}


def training_summary(config, seed: int, seconds: float, history: dict, **details) -> dict:
    """``{"config", "seed", **details, "train_seconds", "history"}``, in that order: how every training summary
    starts (a trainer may add keys after these).

    Args:
        config: the run's config (a ``DictConfig``: ``to_dict()``).
        seed: int, the run's seed.
        seconds: float, the training time (rounded to 0.01 s).
        history: ``{metric: [float per epoch]}``.
        **details: the trainer's own entries (``num_sentences=…``).
    """
    return {"config": config.to_dict(), "seed": int(seed), **details, "train_seconds": round(seconds, 2),
            "history": history}


def train_model(model: keras.Model, x, y=None, *, config, seed: int, vocabulary, callbacks=None, verbose: int = 0,
                details: dict | None = None, what: str = "the trained model", clip_norm: float | None = CLIP_NORM,
                compile_options: dict | None = None, **fit_options) -> keras.Model:
    """Train a seeded, freshly built ``model`` for ``config.epochs`` epochs: ``compile_for_training`` with
    ``config.learning_rate``, ``guarded_fit``, ``check_finite_weights``; then set its ``vocabulary``, ``config`` and
    ``training_summary`` (``training_summary`` with ``details``).

    Args:
        model: the built or unbuilt ``keras.Model``.
        x, y: ``fit``'s data (see ``guarded_fit``).
        config: the run's config: ``epochs``, ``learning_rate`` and ``to_dict()``.
        seed: int, the seed the caller set (recorded in the summary).
        vocabulary: what ``model.vocabulary`` becomes.
        callbacks: Keras callbacks and/or plain ``fn(epoch, logs)``. Defaults to None.
        verbose: ``fit``'s verbosity. Defaults to 0 (silent).
        details: the summary's trainer-specific entries, after ``seed``. Defaults to None (none).
        what: str, how the error names the model when its weights are not finite. Defaults to
            ``"the trained model"``.
        clip_norm, compile_options: as for ``compile_for_training``.
        **fit_options: further ``Model.fit`` arguments (``batch_size``, ``shuffle``).

    Returns:
        ``model``, trained.

    Raises:
        TypeError: ``callbacks`` is not a list of callbacks and/or functions.
        TrainingDivergedError (a ValueError): the loss or the weights became NaN or infinite.
    """
    compile_for_training(model, config.learning_rate, clip_norm, **(compile_options or {}))
    started = time.perf_counter()
    history = guarded_fit(model, x, y, learning_rate=config.learning_rate, callbacks=callbacks, epochs=config.epochs,
                          verbose=verbose, **fit_options)
    check_finite_weights(model, what)
    model.vocabulary, model.config = vocabulary, config
    model.training_summary = training_summary(config, seed, time.perf_counter() - started, history, **(details or {}))
    return model
