"""Training the taggers: ``train_multitask_tagger`` (seed notes §2) and ``train_taglm`` (§3), deterministic per seed.

Examples are ``(tokens, tags)`` pairs with one tag per token. The word vocabulary is built from the training
sentences (words seen fewer than ``min_count`` times read as ``<unk>``, so ``<unk>`` is trained too); each
task's labels are the tags its examples use.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from elmo_keras._quiet import keras
from elmo_keras.argument_checks import check_finite_positive, check_positive_int, check_rate
from elmo_keras.config_dicts import DictConfig
from elmo_keras.layers.bilm import BiLM
from elmo_keras.layers.char_cnn import CharCNN
from elmo_keras.limits import check_batch_size
from elmo_keras.models.callbacks import StopOnNonFiniteLoss, as_keras_callbacks, check_finite_weights
from elmo_keras.models.optimizer import DenseGradientAdam
from elmo_keras.tagging.batches import TaskBatches
from elmo_keras.tagging.encoding import Example, TaggingVocabulary
from elmo_keras.tagging.multitask import MultiTaskTagger
from elmo_keras.tagging.schemes import allowed_transitions
from elmo_keras.tagging.taglm import TagLM


@dataclass(frozen=True)
class TaggerConfig(DictConfig):
    """Sizes and training settings shared by both taggers (the defaults are sized for the shipped toy tasks).

    Attributes:
        word_dim: word embedding size. char_dim: char-CNN token vector size (0 = none).
        units: LSTM units per direction. dropout: training only.
        epochs, batch_size, learning_rate: Adam training. min_count: rarer training words read as ``<unk>``.
        lowercase: lowercase words before lookup. bilm_mode: ``"mix"`` or ``"top"`` (how biLM vectors are read).
    """

    word_dim: int = 48
    char_dim: int = 0
    units: int = 48
    dropout: float = 0.25
    epochs: int = 12
    batch_size: int = 16
    learning_rate: float = 5e-3
    min_count: int = 2
    lowercase: bool = True
    bilm_mode: str = "mix"

    def __post_init__(self):
        for name in ("word_dim", "units", "epochs", "min_count"):
            check_positive_int(getattr(self, name), name)
        if isinstance(self.char_dim, bool) or not isinstance(self.char_dim, int) or self.char_dim < 0:
            raise ValueError(f"char_dim must be an int >= 0, received {self.char_dim!r}")
        check_batch_size(self.batch_size)
        check_finite_positive(self.learning_rate, "learning_rate")
        check_rate(self.dropout)


def train_multitask_tagger(tasks: Mapping[str, Sequence[Example]], heads: str | Mapping[str, str] = "softmax",
                           schemes: Mapping[str, str] | None = None, bilm=None, config: TaggerConfig | None = None,
                           seed: int = 0, callbacks=None, verbose: int = 0, **overrides) -> MultiTaskTagger:
    """Train a ``MultiTaskTagger`` on ``{task: [(tokens, tags), …]}``, alternating batches between tasks.

    Args:
        tasks: each task's training examples; a sentence needs only its own task's tags.
        heads: ``"softmax"`` or ``"crf"`` for every task, or ``{task: kind}`` (a task left out: softmax).
            Defaults to ``"softmax"``.
        schemes: ``{task: "BIO" | "BIOES"}`` for CRF heads whose transitions are constrained to valid sequences.
            Defaults to None (no constraints).
        bilm: a frozen biLM whose ELMo mix joins the word features: a ``BiLanguageModel`` (``train_bilm``,
            ``load_bilm``) or a character-level ``BiLM`` (``load_pretrained_bilm``). Defaults to None.
        config, overrides: ``TaggerConfig`` (default ``TaggerConfig()``) and single fields replacing its values
            (``epochs=3``).
        seed: int, seeds the weights, dropout and the batch order. Defaults to 0.
        callbacks: Keras callbacks and/or ``fn(epoch, logs)`` (logs: ``loss`` and ``<task>_loss``). Defaults to
            None.
        verbose: Keras ``fit`` verbosity. Defaults to 0 (silent).

    Returns:
        The model with ``vocabulary`` (``TaggingVocabulary``), ``config`` and ``training_summary``.

    Raises:
        ValueError: no tasks, a task without examples, a sentence whose tags do not match its tokens, a bad
            setting. TrainingDivergedError: the loss became NaN or infinite.
    """
    config = (config or TaggerConfig()).replace(**overrides)
    examples = _checked_tasks(tasks)
    head_kinds = {task: heads for task in examples} if isinstance(heads, str) else dict(heads)
    bilm_layer, bilm_vocabulary = _resolve_bilm(bilm)
    vocabulary = TaggingVocabulary.from_examples(examples, min_count=config.min_count, lowercase=config.lowercase,
                                                 use_chars=config.char_dim > 0, use_bilm=bilm_layer is not None,
                                                 bilm_vocabulary=bilm_vocabulary)
    constraints = {task: allowed_transitions(scheme, vocabulary.labels[task])
                   for task, scheme in (schemes or {}).items()}
    keras.utils.set_random_seed(int(seed))
    model = MultiTaskTagger({task: len(labels) for task, labels in vocabulary.labels.items()}, len(vocabulary.words),
                            word_dim=config.word_dim, char_dim=config.char_dim, bilm=bilm_layer,
                            bilm_mode=config.bilm_mode, units=config.units, dropout=config.dropout,
                            head_kinds=head_kinds, constraints=constraints, name="multitask_tagger")
    return _fit(model, examples, vocabulary, config, seed, callbacks, verbose, schemes or {})


def train_taglm(examples: Sequence[Example], bilm=None, config: TaggerConfig | None = None, head: str = "crf",
                scheme: str | None = "BIOES", seed: int = 0, callbacks=None, verbose: int = 0, task: str = "ner",
                **overrides) -> TagLM:
    """Train ``TagLM`` on BIOES-tagged ``examples``, reading a frozen ``bilm``'s top-layer vectors (or none).

    Args:
        examples: ``[(tokens, tags), …]``.
        bilm: the frozen biLM (see ``train_multitask_tagger``). Defaults to None: the same tagger without its
            vectors.
        head: ``"crf"`` or ``"softmax"``. Defaults to ``"crf"``.
        scheme: ``"BIO"``, ``"BIOES"`` or None (unconstrained): the tag scheme whose valid transitions constrain
            the CRF. Defaults to ``"BIOES"``.
        config, overrides: ``TaggerConfig`` (default ``TaggerConfig(bilm_mode="top")``, as in TagLM) and single
            fields replacing its values.
        seed, callbacks, verbose: as for ``train_multitask_tagger``.
        task: str, the task's name in the model and its outputs. Defaults to ``"ner"``.

    Returns:
        The ``TagLM`` with ``vocabulary``, ``config`` and ``training_summary``.
    """
    config = (config or TaggerConfig(bilm_mode="top")).replace(**overrides)
    data = _checked_tasks({task: examples})
    bilm_layer, bilm_vocabulary = _resolve_bilm(bilm)
    vocabulary = TaggingVocabulary.from_examples(data, min_count=config.min_count, lowercase=config.lowercase,
                                                 use_chars=config.char_dim > 0, use_bilm=bilm_layer is not None,
                                                 bilm_vocabulary=bilm_vocabulary)
    constraints = None
    if scheme is not None and head == "crf":
        constraints = allowed_transitions(scheme, vocabulary.labels[task])
    keras.utils.set_random_seed(int(seed))
    model = TagLM(len(vocabulary.labels[task]), len(vocabulary.words), word_dim=config.word_dim,
                  char_dim=config.char_dim, bilm=bilm_layer, bilm_mode=config.bilm_mode, units=config.units,
                  dropout=config.dropout, head_kind=head, constraints=constraints, task=task, name="taglm")
    return _fit(model, data, vocabulary, config, seed, callbacks, verbose, {task: scheme} if scheme else {})


def _fit(model, examples, vocabulary, config, seed, callbacks, verbose, schemes):
    batches = TaskBatches(examples, vocabulary, config.batch_size, seed=int(seed), task_names=model.task_names)
    sample_inputs, _ = batches[0]
    model(sample_inputs)  # builds every layer
    model.compile(optimizer=DenseGradientAdam(config.learning_rate, clipnorm=5.0))
    model.optimizer.build(model.trainable_variables)
    started = time.perf_counter()
    history = model.fit(batches, epochs=config.epochs, shuffle=False, verbose=verbose,
                        callbacks=[StopOnNonFiniteLoss(config.learning_rate), *as_keras_callbacks(callbacks)])
    check_finite_weights(model, "the trained tagger")
    model.vocabulary, model.config = vocabulary, config
    model.training_summary = {
        "config": config.to_dict(), "seed": int(seed), "schemes": dict(schemes),
        "num_sentences": {task: len(task_examples) for task, task_examples in examples.items()},
        "train_seconds": round(time.perf_counter() - started, 2),
        "history": {key: [float(v) for v in values] for key, values in history.history.items()},
    }
    return model


def _checked_tasks(tasks: Mapping[str, Sequence[Example]]) -> dict[str, list[tuple[list[str], list[str]]]]:
    """``{task: [(tokens, tags)]}`` as lists, checked: tasks present, sentences non-empty, one tag per token."""
    if not isinstance(tasks, Mapping) or not tasks:
        raise ValueError("tasks must be a non-empty dict {task: [(tokens, tags), ...]}")
    checked = {}
    for task, examples in tasks.items():
        rows = []
        for index, example in enumerate(examples):
            try:
                tokens, tags = example
            except (TypeError, ValueError):
                raise ValueError(f"task {task!r}: example {index} must be a (tokens, tags) pair, received "
                                 f"{example!r:.80}") from None
            tokens = tokens.split() if isinstance(tokens, str) else list(tokens)
            tags = tags.split() if isinstance(tags, str) else list(tags)
            if not tokens or len(tokens) != len(tags):
                raise ValueError(f"task {task!r}: example {index} has {len(tokens)} tokens and {len(tags)} tags; "
                                 "every sentence needs one tag per token")
            rows.append((tokens, tags))
        if not rows:
            raise ValueError(f"task {task!r} has no examples")
        checked[str(task)] = rows
    return checked


def _resolve_bilm(bilm) -> tuple[BiLM | None, object]:
    """``(BiLM layer, its word vocabulary or None)`` from a ``BiLanguageModel``, a ``BiLM`` or None."""
    if bilm is None:
        return None, None
    if isinstance(bilm, BiLM):
        if not isinstance(bilm.token_encoder, CharCNN):
            raise ValueError("a word-level BiLM layer needs its vocabulary: pass the BiLanguageModel itself "
                             "(train_bilm / load_bilm), which carries it")
        return bilm, None
    layer, vocabulary = getattr(bilm, "bilm", None), getattr(bilm, "vocabulary", None)
    if not isinstance(layer, BiLM):
        raise ValueError(f"bilm must be a BiLanguageModel or a BiLM layer, received {type(bilm).__name__}")
    return layer, (None if isinstance(layer.token_encoder, CharCNN) else vocabulary)
