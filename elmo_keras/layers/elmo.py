"""``Elmo``: a frozen biLM plus one ``ScalarMix`` per requested representation (AllenNLP's ``Elmo`` semantics)."""

from __future__ import annotations

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int, check_rate
from elmo_keras.layers.bilm_base import BiLMBase
from elmo_keras.layers.scalar_mix import ScalarMix
from elmo_keras.layers.sequence_ops import add_sentence_boundaries, remove_sentence_boundaries
from elmo_keras.text.char_ids import BEGIN_OF_SENTENCE_ROW, END_OF_SENTENCE_ROW
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID


@keras.saving.register_keras_serializable(package="elmo_keras")
class Elmo(keras.layers.Layer):
    """``ELMo_k = dropout(gamma_k * sum_j s_kj * h_j)`` for ``k < num_output_representations``, over one biLM run.

    The biLM runs once per call; each output representation has its own ``ScalarMix`` over the biLM's
    ``num_layers + 1`` activations. The layer adds ``<S>``/``</S>`` to the input and, unless
    ``keep_sentence_boundaries``, removes them from every output. Besides the mixed representations it
    returns every raw biLM layer, so no wrapper is needed to inspect them.

    Args:
        bilm: a built biLM, a ``BiLM`` (e.g. ``load_pretrained_bilm(...)`` or ``load_bilm(dir).bilm``) or a
            ``TransformerBiLM`` (e.g. ``transformer_elmo_from_archive(path).bilm``), or its serialized config.
            Use ``Elmo.from_preset`` to load a released or saved model (``load_pretrained_elmo`` is its alias).
            The layer you pass is never frozen behind your back: with ``requires_grad=False`` a trainable biLM is
            copied and the copy frozen (so ``Elmo(lm.bilm, 1)`` leaves ``lm`` trainable); pass a biLM you froze
            yourself (``bilm.trainable = False``) to share it without a copy — for the original ~94M-parameter ELMo,
            ``Elmo.from_preset`` (or freezing ``load_pretrained_bilm``'s result first) avoids holding it twice.
            ``requires_grad=True`` fine-tunes the layer you pass, sharing its weights.
        num_output_representations: how many differently weighted mixtures to return (e.g. one for the
            input of a task model and one for its output layer).
        dropout: dropout rate applied to each mixture, in training only.
        do_layer_norm: normalise each biLM layer before mixing (see ``ScalarMix``).
        keep_sentence_boundaries: keep the ``<S>``/``</S>`` positions in the outputs (time + 2 steps).
        scalar_mix_parameters: fixed (non-trainable) initial weights ``w`` for every mixture; None = learned
            from equal weights.
        requires_grad: fine-tune the biLM (default: frozen, and run with ``training=False``).
        layer_norm_statistics: ``"sentence"`` (default, batch-invariant) or ``"batch"`` (AllenNLP), see
            ``ScalarMix``.

    Call arguments:
        inputs: character ids `(batch_size, time, 50)` from ``batch_to_ids`` (char biLM) or word ids
            `(batch_size, time)` (word biLM), without boundary tokens; all-zero rows / id 0 are padding.
        training: bool.

    Returns:
        A dict:
        ``"elmo_representations"``: list of ``num_output_representations`` tensors `(batch_size, time, 2 * dim)`;
        ``"mask"``: `(batch_size, time)` bool;
        ``"activations"``: list of ``bilm.num_activation_layers`` raw biLM layers `(batch_size, time, 2 * dim)`.

    Example:
        >>> elmo = Elmo.from_preset(("options.json", "weights.hdf5"), num_output_representations=2, dropout=0.0)
        >>> outputs = elmo(batch_to_ids([["I", "sat", "by", "the", "bank"], ["Hello"]]))
        >>> outputs["elmo_representations"][0].shape  # (2, 5, 2 * projection_dim)

    Reference:
        Peters et al., "Deep contextualized word representations", NAACL 2018.
    """

    def __init__(
        self,
        bilm,
        num_output_representations,
        dropout=0.5,
        do_layer_norm=False,
        keep_sentence_boundaries=False,
        scalar_mix_parameters=None,
        requires_grad=False,
        layer_norm_statistics="sentence",
        **kwargs,
    ):
        super().__init__(**kwargs)
        owned = isinstance(bilm, dict)  # deserialized here: nobody else holds it
        if owned:
            bilm = keras.saving.deserialize_keras_object(bilm)
        if not isinstance(bilm, BiLMBase):
            raise ValueError(f"bilm must be a biLM layer (BiLM or TransformerBiLM; see "
                             f"elmo_keras.load_pretrained_elmo), received {type(bilm).__name__}")
        if not requires_grad and bilm.trainable and not owned:
            bilm = bilm.copy()
        check_int(num_output_representations, "num_output_representations")
        check_rate(dropout)
        self.bilm = bilm
        # set the other way first: on TensorFlow ``layer.trainable = value`` does nothing when the flag already equals
        # ``value`` (AutoTrackable's ``self.x = self.x`` short cut), and a layer deserialized with ``trainable=False``
        # (the BiLM, its CharCNN) has that flag before it creates its sublayers, which stay trainable
        self.bilm.trainable = not requires_grad
        self.bilm.trainable = bool(requires_grad)
        self.num_output_representations = num_output_representations
        self.dropout = float(dropout)
        self.do_layer_norm = bool(do_layer_norm)
        self.keep_sentence_boundaries = bool(keep_sentence_boundaries)
        self.scalar_mix_parameters = (None if scalar_mix_parameters is None
                                      else [float(v) for v in scalar_mix_parameters])
        self.requires_grad = bool(requires_grad)
        self.layer_norm_statistics = layer_norm_statistics
        self.scalar_mixes = [
            ScalarMix(
                bilm.num_activation_layers,
                do_layer_norm=self.do_layer_norm,
                initial_scalar_parameters=self.scalar_mix_parameters,
                trainable=self.scalar_mix_parameters is None,
                layer_norm_statistics=layer_norm_statistics,
                dtype=self.dtype_policy,
                name=f"scalar_mix_{k}",
            )
            for k in range(num_output_representations)
        ]
        self.dropout_layer = keras.layers.Dropout(self.dropout, name="dropout") if self.dropout > 0 else None

    def build(self, input_shape):
        inner_shape = (input_shape[0], None) + tuple(input_shape[2:])
        if not self.bilm.built:
            self.bilm.build(inner_shape)
        layer_shape = (input_shape[0], None, self.bilm.output_dim)
        for mix in self.scalar_mixes:
            mix.build([layer_shape] * self.bilm.num_activation_layers)

    def call(self, inputs, training=None):
        inputs = ops.convert_to_tensor(inputs)
        if len(inputs.shape) == 3:  # character ids
            mask = ops.any(ops.not_equal(inputs, 0), axis=-1)
            bos, eos = BEGIN_OF_SENTENCE_ROW, END_OF_SENTENCE_ROW
        else:  # word ids
            mask = ops.not_equal(inputs, 0)
            bos, eos = BOS_ID, EOS_ID
        with_boundaries, _ = add_sentence_boundaries(inputs, mask, bos, eos)  # (B, T + 2, ...)
        outputs = self.bilm(with_boundaries, training=training if self.requires_grad else False)
        activations, mask = outputs["activations"], outputs["mask"]
        representations = []
        for mix in self.scalar_mixes:
            # AllenNLP's order: mix over <S> … </S> (layer-norm statistics count the boundaries), then strip
            mixed = mix(activations, mask=mask)  # (B, T + 2, 2 * dim)
            if not self.keep_sentence_boundaries:
                mixed, _ = remove_sentence_boundaries(mixed, mask)  # (B, T, 2 * dim)
            if self.dropout_layer is not None:
                mixed = self.dropout_layer(mixed, training=training)
            representations.append(mixed)
        if not self.keep_sentence_boundaries:
            stripped = [remove_sentence_boundaries(layer, mask) for layer in activations]
            activations, mask = [layer for layer, _ in stripped], stripped[0][1]
        return {"elmo_representations": representations, "mask": mask, "activations": activations}

    @classmethod
    def from_preset(cls, name_or_path, num_output_representations: int = 1, *, stateful: bool = False,
                    **kwargs) -> "Elmo":
        """An ``Elmo`` layer over the biLM ``name_or_path`` names (AllenNLP's ``Elmo(options, weights, ...)``).

        Args:
            name_or_path: a preset name (``"elmo_small_en"``, ``"elmo_transformer_en"``, …), an http(s) URL of a
                model.tar.gz, a model directory, an AllenNLP archive or its folder, or ``(options.json,
                weights.hdf5)``: see ``elmo_keras.pretrained.presets``.
            num_output_representations: int ≥ 1. Defaults to 1.
            stateful: bool, carry LSTM state across calls (an LSTM biLM only). Defaults to False.
            **kwargs: the other ``Elmo`` arguments (``dropout``, ``requires_grad``, ``do_layer_norm``, …).

        The biLM loaded here belongs to the layer alone, so it is frozen in place (not copied) unless
        ``requires_grad=True``.

        Raises:
            TypeError, ValueError, FileNotFoundError: as ``elmo_keras.load_preset`` (one line, before any download).
        """
        # the resolver lives on the pretrained floor, above layers: reached on first use through the package's
        # public names (elmo_keras.load_preset), so this module imports nothing from above it and has no cycle
        import elmo_keras

        bilm = elmo_keras.load_preset(name_or_path, stateful=stateful).bilm
        bilm.trainable = bool(kwargs.get("requires_grad", False))
        return cls(bilm, num_output_representations, **kwargs)

    def reset_states(self):
        """Clear the biLM's carried state (only a stateful LSTM ``BiLM`` has any)."""
        self.bilm.reset_states()

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "bilm": keras.saving.serialize_keras_object(self.bilm),
                "num_output_representations": self.num_output_representations,
                "dropout": self.dropout,
                "do_layer_norm": self.do_layer_norm,
                "keep_sentence_boundaries": self.keep_sentence_boundaries,
                "scalar_mix_parameters": self.scalar_mix_parameters,
                "requires_grad": self.requires_grad,
                "layer_norm_statistics": self.layer_norm_statistics,
            }
        )
        return config
