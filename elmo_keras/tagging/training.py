"""Training the taggers: ``train_multitask_tagger`` (Tafforeau et al. 2016) and ``train_taglm`` (Peters et al. 2017),
deterministic per seed.

Examples are ``(tokens, tags)`` pairs with one tag per token. The word vocabulary is built from the training
sentences (words seen fewer than ``min_count`` times read as ``<unk>``, so ``<unk>`` is trained too); each
task's labels are the tags its examples use.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from elmo_keras._quiet import keras
from elmo_keras.layers.bilm_base import BiLMBase
from elmo_keras.layers.char_cnn import CharCNN
from elmo_keras.models.fitting import train_model
from elmo_keras.tagging.batches import TaskBatches
from elmo_keras.tagging.config import TaggerConfig
from elmo_keras.tagging.encoding import Example, TaggingVocabulary
from elmo_keras.tagging.inputs import check_batch_tokens, check_mapping_tasks, checked_examples
from elmo_keras.tagging.layers import HEAD_KINDS
from elmo_keras.tagging.multitask import MultiTaskTagger
from elmo_keras.tagging.schemes import SCHEME_PREFIXES, allowed_transitions
from elmo_keras.tagging.taglm import TagLM


def train_multitask_tagger(tasks: Mapping[str, Sequence[Example]], *, heads: str | Mapping[str, str] = "softmax",
                           schemes: Mapping[str, str] | None = None, bilm=None, config: TaggerConfig | None = None,
                           seed: int = 0, callbacks=None, verbose: int = 0, **overrides) -> MultiTaskTagger:
    """Train a ``MultiTaskTagger`` on ``{task: [(tokens, tags), …]}``, alternating batches between tasks.

    The data comes first; every option is keyword-only (``train_multitask_tagger(tasks, heads="crf")``).

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
        ValueError: before any training, naming the argument: no tasks, a task without examples, a sentence
            whose tags do not match its tokens or longer than ``tagging.inputs.MAX_SENTENCE_TOKENS`` (1,000), a
            ``batch_size`` whose batches could exceed ``MAX_BATCH_TOKENS`` (65,536) padded positions, ``heads``
            or ``schemes`` naming a task without examples, a scheme for a softmax head or one that does not fit
            the task's tags, a bad setting. TrainingDivergedError: the loss became NaN or infinite.
    """
    config = (config or TaggerConfig()).replace(**overrides)
    examples = _checked_tasks(tasks, config.batch_size)
    if isinstance(heads, str):
        heads = {task: _checked_kind(heads, "heads") for task in examples}
    head_kinds = {task: _checked_kind(kind, f"heads[{task!r}]")
                  for task, kind in check_mapping_tasks(heads, "heads", list(examples)).items()}
    schemes = check_mapping_tasks(schemes, "schemes", list(examples))
    for task, scheme in schemes.items():
        _checked_scheme(scheme, f"schemes[{task!r}]")
        if head_kinds.get(task, "softmax") != "crf":
            raise ValueError(f"schemes names task {task!r}, whose head is softmax: a scheme constrains a CRF head; "
                             f"pass heads={{{task!r}: 'crf'}} too, or leave {task!r} out of schemes")
    bilm_layer, bilm_vocabulary = _resolve_bilm(bilm)
    vocabulary = TaggingVocabulary.from_examples(examples, min_count=config.min_count, lowercase=config.lowercase,
                                                 use_chars=config.char_dim > 0, use_bilm=bilm_layer is not None,
                                                 bilm_vocabulary=bilm_vocabulary)
    constraints = {task: _constraints(scheme, vocabulary.labels[task], f"schemes[{task!r}]")
                   for task, scheme in schemes.items()}
    keras.utils.set_random_seed(int(seed))
    model = MultiTaskTagger({task: len(labels) for task, labels in vocabulary.labels.items()}, len(vocabulary.words),
                            word_dim=config.word_dim, char_dim=config.char_dim, bilm=bilm_layer,
                            bilm_mode=config.bilm_mode, units=config.units, dropout=config.dropout,
                            head_kinds=head_kinds, constraints=constraints, name="multitask_tagger")
    return _fit(model, examples, vocabulary, config, seed, callbacks, verbose, schemes)


def train_taglm(examples: Sequence[Example], *, bilm=None, config: TaggerConfig | None = None, head: str = "crf",
                scheme: str | None = "BIOES", seed: int = 0, callbacks=None, verbose: int = 0, task: str = "ner",
                **overrides) -> TagLM:
    """Train ``TagLM`` on BIOES-tagged ``examples``, reading a frozen ``bilm``'s top-layer vectors (or none).

    The data comes first; every option is keyword-only (``train_taglm(examples, bilm=bilm)``).

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

    Raises:
        ValueError, TrainingDivergedError: as ``train_multitask_tagger`` (``head``, ``scheme`` and ``task``
            named).
    """
    config = (config or TaggerConfig(bilm_mode="top")).replace(**overrides)
    if not isinstance(task, str) or not task:
        raise ValueError(f"task must be a non-empty str (the task's name), received {task!r}")
    head = _checked_kind(head, "head")
    if scheme is not None:
        _checked_scheme(scheme, "scheme")
    data = _checked_tasks({task: examples}, config.batch_size)
    bilm_layer, bilm_vocabulary = _resolve_bilm(bilm)
    vocabulary = TaggingVocabulary.from_examples(data, min_count=config.min_count, lowercase=config.lowercase,
                                                 use_chars=config.char_dim > 0, use_bilm=bilm_layer is not None,
                                                 bilm_vocabulary=bilm_vocabulary)
    constraints = None
    if scheme is not None and head == "crf":
        constraints = _constraints(scheme, vocabulary.labels[task], "scheme")
    keras.utils.set_random_seed(int(seed))
    model = TagLM(len(vocabulary.labels[task]), len(vocabulary.words), word_dim=config.word_dim,
                  char_dim=config.char_dim, bilm=bilm_layer, bilm_mode=config.bilm_mode, units=config.units,
                  dropout=config.dropout, head_kind=head, constraints=constraints, task=task, name="taglm")
    return _fit(model, data, vocabulary, config, seed, callbacks, verbose, {task: scheme} if scheme else {})


def _fit(model, examples, vocabulary, config, seed, callbacks, verbose, schemes):
    """``train_model`` on ``TaskBatches`` of ``examples`` (``{task: [(tokens, tags)]}``), the model built first on
    one batch (so Adam's slots are made before the first step)."""
    batches = TaskBatches(examples, vocabulary, config.batch_size, seed=int(seed), task_names=model.task_names)
    sample_inputs, _ = batches[0]
    model(sample_inputs)  # builds every layer
    details = {"schemes": dict(schemes),
               "num_sentences": {task: len(task_examples) for task, task_examples in examples.items()}}
    return train_model(model, batches, config=config, seed=seed, vocabulary=vocabulary, callbacks=callbacks,
                       verbose=verbose, details=details, what="the trained tagger", shuffle=False)


def _checked_tasks(tasks: Mapping[str, Sequence[Example]],
                   batch_size: int) -> dict[str, list[tuple[list[str], list[str]]]]:
    """``{task: [(tokens, tags)]}`` as lists, checked (``tagging.inputs.checked_examples``): tasks present,
    sentences of 1 to ``MAX_SENTENCE_TOKENS`` tokens with one tag each, and no batch of ``batch_size`` sentences
    over ``MAX_BATCH_TOKENS`` padded positions."""
    if not isinstance(tasks, Mapping) or not tasks:
        raise ValueError("tasks must be a non-empty dict {task: [(tokens, tags), ...]}")
    checked = {}
    for task, examples in tasks.items():
        rows = checked_examples(task, examples)
        if not rows:
            raise ValueError(f"task {task!r} has no examples")
        checked[str(task)] = rows
    check_batch_tokens(batch_size, checked)
    return checked


def _checked_kind(kind, name: str) -> str:
    if kind not in HEAD_KINDS:
        raise ValueError(f"{name} must be one of {HEAD_KINDS} (or, for heads, a dict {{task: kind}}), "
                         f"received {kind!r:.60}")
    return kind


def _checked_scheme(scheme, name: str) -> str:
    if scheme not in SCHEME_PREFIXES:
        raise ValueError(f"{name} must be one of {sorted(SCHEME_PREFIXES)}, received {scheme!r:.60}")
    return scheme


def _constraints(scheme: str, labels, name: str):
    """``allowed_transitions(scheme, labels)``; a label outside the scheme is a ``ValueError`` naming ``name``."""
    try:
        return allowed_transitions(scheme, labels)
    except ValueError as error:
        raise ValueError(f"{name} = {scheme!r} does not fit the task's tags: {error}") from None


def _resolve_bilm(bilm) -> tuple[BiLMBase | None, object]:
    """``(biLM layer, its word vocabulary or None)`` from a ``BiLanguageModel``, a biLM layer (``BiLM``,
    ``TransformerBiLM``) or None."""
    if bilm is None:
        return None, None
    if isinstance(bilm, BiLMBase):
        if not isinstance(bilm.token_encoder, CharCNN):
            raise ValueError("a word-level BiLM layer needs its vocabulary: pass the BiLanguageModel itself "
                             "(train_bilm / load_bilm), which carries it")
        return bilm, None
    layer, vocabulary = getattr(bilm, "bilm", None), getattr(bilm, "vocabulary", None)
    if not isinstance(layer, BiLMBase):
        raise ValueError(f"bilm must be a BiLanguageModel or a BiLM layer, received {type(bilm).__name__}")
    return layer, (None if isinstance(layer.token_encoder, CharCNN) else vocabulary)
