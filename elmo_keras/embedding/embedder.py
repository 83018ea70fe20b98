"""``ElmoEmbedder``: ELMo vectors as NumPy arrays, for sentences, batches and whole files (AllenNLP's API).

Every call runs through the one job runner (``embedding.jobs``): how ``execution`` runs a batch is said there and in
docs/speed.md, what ``precision`` computes in ``embedding.precision``. The files ``embed_file`` reads and writes are
checked and written by ``embedder_files``; one file embedded as N shards (several processes or machines) and merged
back is ``shards``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from elmo_keras.argument_checks import check_int
from elmo_keras.embedding.choices import AUTO, DEFAULT_TIME_BUCKET, check_execution, check_precision
from elmo_keras.embedding.embedder_files import (
    check_embed_paths,
    check_output_format,
    output_vectors,
    read_sentence_file,
    write_embedded,
    writing_hdf5,
)
from elmo_keras.embedding.jobs import batch_run, embed_batch, embed_job
from elmo_keras.embedding.precision import inference_matmul_dtype
from elmo_keras.embedding.shards import SORT_WINDOW_BATCHES, check_shard, read_shard_input
from elmo_keras.layers.bilm_base import BiLMBase
from elmo_keras.layers.matmul_dtype import keep_narrowed_kernels
from elmo_keras.limits import check_batch_size
from elmo_keras.models.bilm.distribution import inference_strategy
from elmo_keras.pretrained.downloads import DownloadProgress, stderr_progress
from elmo_keras.pretrained.loader import load_pretrained_bilm
from elmo_keras.pretrained.model_files import local_model_files
from elmo_keras.pretrained.presets import load_preset
from elmo_keras.text.batching import SentenceIds, char_ids_with_boundaries, check_token_lists, sentence_ids

ProgressCallback = Callable[[int, int], None]  # (sentences done, total)


class ElmoEmbedder:
    """Embed tokenized sentences with a biLM; every result is `(num_layers, tokens, dim)` NumPy float32.

    ``num_layers`` is the biLM's ``num_layers + 1`` (layer 0 = the token vectors ``[x; x]``), ``dim`` is
    ``2 * projection_dim``; ``<S>``/``</S>`` are added and removed for you.

    Stateless by default (``stateful=False``): a sentence gets the same vectors alone, in any batch and at any call
    (to float32 rounding: docs/determinism.md). ``stateful=True`` reproduces the original ELMo: LSTM state is
    carried per batch row from call to call (eager, no sorting); ``reset_states()`` clears it.

    Args:
        options_file, weight_file: the original ELMo files, paths or ``http(s)://`` URLs (downloaded once into the
            cache: ``pretrained.downloads``). Default to None. The one load verb is ``from_preset`` (a preset name,
            a URL, a model directory, an AllenNLP archive or ``(options, weights)``); ``ElmoEmbedder(options,
            weights)`` is the same as ``from_preset((options, weights))``, kept because rounds 1–3 published it.
        stateful: bool, see above. Defaults to False.
        bilm: use this biLM layer instead of loading files: a ``BiLM`` (e.g. from ``elmo_keras.models.load_bilm``;
            a copy is made if its ``stateful`` differs from ``stateful``) or a ``TransformerBiLM`` (stateless only;
            float32). Defaults to None.
        sentence_ids: how sentences become ``bilm`` input (``text.batching.sentence_ids``:
            ``char_ids_with_boundaries``, or ``WordIds(vocabulary)`` for a word-level biLM). Defaults to None
            (``char_ids_with_boundaries``, for a ``CharCNN`` biLM).
        execution: ``"auto"`` (the graph), ``"graph"``, ``"xla"`` (opt-in: compiled once per padded shape) or
            ``"eager"`` for the stateless biLM call (``embedding.jobs``; stateful mode always runs eagerly). Defaults
            to ``"auto"``.
        time_bucket: int, where compilation is per shape (``"xla"``; JAX): pad the time axis to a multiple of
            this. Defaults to 16.
        strategy: split every batch across the replicas of this ``tf.distribute.Strategy`` (equal parts of its
            rows, one graph), or ``"mirrored"`` (every GPU, else every logical CPU device:
            ``models.bilm.distribution.configure_cpu_devices``). TensorFlow backend, stateless, ``execution="graph"``
            or ``"auto"``. Defaults to None (one device).
        precision: ``"auto"``, ``"float32"`` or ``"bfloat16"`` (``embedding.precision``: ``"auto"`` is bfloat16 only
            for models of ELMo's published sizes on a CPU with native bfloat16). An embedder that loads its weights
            freezes its biLM and keeps bfloat16 copies of its kernels; with ``bilm=`` they are cast at every call.
            Defaults to ``"auto"``.

    Raises:
        ValueError: both or neither of the files and ``bilm``, a word-level ``bilm`` without ``sentence_ids``,
            an unknown ``execution`` or ``precision``, a bad ``time_bucket``, or a ``strategy`` that is unknown, not
            for this backend, stateful or with ``"xla"``/``"eager"``; loading errors as ``load_pretrained_bilm``.

    ``ElmoEmbedder.from_preset("elmo_small_en")`` embeds with AllenNLP's small ELMo, `(3, tokens, 256)` arrays;
    ``ElmoEmbedder.from_preset(("options.json", "weights.hdf5"))`` with the original files, `(3, tokens, 1024)`
    arrays; ``from_preset("elmo_transformer_en")`` with the transformer ELMo, `(7, tokens, 1024)`.

    Example:
        >>> from elmo_keras.layers import BiLM, CharCNN
        >>> char_cnn = CharCNN(embedding_dim=4, filters=((1, 8), (2, 8)), projection_dim=8)
        >>> embedder = ElmoEmbedder(bilm=BiLM(char_cnn, units=16, projection_dim=8))  # untrained, 2 layers
        >>> embedder.embed_sentence(["I", "sat", "by", "the", "bank"]).shape  # (num_layers, tokens, dim)
        (3, 5, 16)
    """

    def __init__(
        self,
        options_file: str | os.PathLike | None = None,
        weight_file: str | os.PathLike | None = None,
        stateful: bool = False,
        *,
        bilm: BiLMBase | None = None,
        sentence_ids: SentenceIds | None = None,
        execution: str = AUTO,
        time_bucket: int = DEFAULT_TIME_BUCKET,
        strategy=None,
        precision: str = AUTO,
    ):
        if strategy is not None and (stateful or execution not in (AUTO, "graph")):
            raise ValueError(f"strategy= needs stateful=False and execution='graph' or 'auto' (received "
                             f"stateful={stateful}, "
                             f"execution={execution!r}): the batch is split across the replicas in one graph, and "
                             "stateful rows carry their state on one device")
        if bilm is None:
            if options_file is None or weight_file is None:
                raise ValueError("pass options_file and weight_file, or bilm= (the files: paths or URLs; a released "
                                 "model, a model directory or an archive: ElmoEmbedder.from_preset("
                                 "'elmo_small_en'))")
            options_file, weight_file = local_model_files(options_file, weight_file)  # URLs → cached files
            bilm = load_pretrained_bilm(options_file, weight_file, stateful=stateful)
            owned = True
        elif options_file is not None or weight_file is not None:
            raise ValueError("pass either options_file/weight_file or bilm=, not both")
        else:
            owned = False
        if not isinstance(bilm, BiLMBase):
            raise ValueError(f"bilm must be a biLM layer (BiLM or TransformerBiLM), received {type(bilm).__name__}")
        if sentence_ids is None:
            if bilm.token_input != "char":
                raise ValueError(
                    f"a {type(bilm.token_encoder).__name__} biLM needs sentence_ids=WordIds(vocabulary) "
                    "(or use ElmoEmbedder.from_preset(model_directory), which reads the vocabulary)"
                )
            sentence_ids = char_ids_with_boundaries
        check_execution(execution)
        check_precision(precision)
        check_int(time_bucket, "time_bucket")
        self.stateful = bool(stateful)
        self.sentence_ids = sentence_ids
        # what embed_file must never write over: the files this embedder was loaded from
        self.source_files = {"the options file": options_file, "the weights file": weight_file}
        self.source_directories: dict[str, str | os.PathLike] = {}
        self.bilm = bilm if bilm.stateful == self.stateful else bilm.copy(stateful=self.stateful)
        self.strategy = inference_strategy(strategy)
        self.precision = precision
        self.matmul_dtype = inference_matmul_dtype(self.bilm, precision)  # None (float32) or "bfloat16"
        if owned or self.bilm is not bilm:
            self._keep_narrowed_kernels()
        # stateful rows carry their state from call to call, eagerly; a strategy splits each batch in one graph
        self.execution = "eager" if self.stateful else ("graph" if self.strategy is not None else execution)
        self.time_bucket = time_bucket
        self.num_layers = self.bilm.num_activation_layers
        self.dim = self.bilm.output_dim

    def _keep_narrowed_kernels(self) -> None:
        """Freeze the biLM this embedder loaded (or copied) itself, held by nothing else, and with bfloat16 matmuls
        keep bfloat16 copies of its kernels (``layers.matmul_dtype.keep_narrowed_kernels``); not with a strategy."""
        self.bilm.trainable = False
        if self.strategy is None:
            keep_narrowed_kernels(self.bilm, self.matmul_dtype)

    @classmethod
    def from_preset(cls, name_or_path, *, stateful: bool = False, progress: DownloadProgress | None = stderr_progress,
                    **kwargs) -> "ElmoEmbedder":
        """The embedder over the model ``name_or_path`` names: the one load verb (``pretrained.presets``).

        Args:
            name_or_path: a preset name (``"elmo_small_en"``, ``"elmo_original_en"``, ``"elmo_transformer_en"``, …;
                the old ``"small"`` … as aliases), an http(s) URL of an AllenNLP ``model.tar.gz``, a model directory
                (``model.save(directory)``, the ``train`` command: word-level models map tokens through its
                vocabulary, unknown words → ``<unk>``), an AllenNLP archive or its folder, or
                ``(options.json, weights.hdf5)`` (paths or URLs). Released files are downloaded once into the cache
                and verified at every load.
            stateful: bool, see the class docstring (an LSTM biLM only). Defaults to False.
            progress: download progress (``pretrained.downloads``); None for silence. Defaults to
                ``stderr_progress``.
            **kwargs: ``execution``, ``time_bucket``, ``strategy``, ``precision``.

        Raises:
            TypeError, ValueError, FileNotFoundError: what ``name_or_path`` is cannot load (one line, before any
                download); the loaders' errors as ``pretrained.presets.load_preset``.

        Example:
            >>> embedder = ElmoEmbedder.from_preset("elmo_small_en")  # doctest: +SKIP
            >>> embedder.embed_sentence(["I", "sat", "by", "the", "bank"]).shape  # doctest: +SKIP
            (3, 5, 256)
        """
        loaded = load_preset(name_or_path, stateful=stateful, progress=progress)
        model = loaded.model
        ids = None if model is None else sentence_ids(model.token_input, model.vocabulary)
        embedder = cls(stateful=stateful, bilm=loaded.bilm, sentence_ids=ids, **kwargs)
        if embedder.bilm is loaded.bilm:  # loaded here, so held by nothing else (a stateful copy is kept by __init__)
            embedder._keep_narrowed_kernels()
        embedder.source_files = dict(loaded.files)
        embedder.source_directories = dict(loaded.directories)
        return embedder

    @classmethod
    def from_name(cls, name: str, stateful: bool = False, **kwargs) -> "ElmoEmbedder":
        """Alias of ``from_preset(name)``, kept because rounds 1–3 published it."""
        return cls.from_preset(name, stateful=stateful, **kwargs)

    @classmethod
    def from_model_dir(cls, path: str | os.PathLike, stateful: bool = False, **kwargs) -> "ElmoEmbedder":
        """Alias of ``from_preset(path)`` for a model directory, kept because rounds 1–3 published it."""
        return cls.from_preset(path, stateful=stateful, **kwargs)

    # -- embedding ----------------------------------------------------------------------------------------------

    def embed_sentence(self, tokens: Sequence[str]) -> np.ndarray:
        """One tokenized sentence (a list of str) → float32 `(num_layers, len(tokens), dim)`."""
        return self.embed_batch([tokens])[0]

    def embed_batch(self, sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Tokenized sentences → one `(num_layers, len(tokens), dim)` array each (an empty sentence → 0 tokens).

        In stateful mode row ``i`` of this call continues the LSTM state of row ``i`` of the previous call,
        so empty sentences are an error there.

        Raises:
            TypeError: ``sentences`` or one of them is a str or not a sequence, or a token is not a str.
            ValueError: an empty token or one of lone surrogates only (character-level biLM), or (stateful mode) an
                empty sentence.

            Each names the sentence and the token by their 0-based positions in ``sentences``.
        """
        check_token_lists(sentences, self.bilm.token_input)
        return embed_batch(self.bilm, self.sentence_ids, sentences, batch_run(self.execution, self.time_bucket),
                           strategy=self.strategy, matmul_dtype=self.matmul_dtype)

    def embed_sentences(self, sentences: Iterable[Sequence[str]], batch_size: int = 64) -> Iterator[np.ndarray]:
        """Lazily embed ``sentences`` in batches; yields one array per sentence, in input order.

        Stateless mode sorts each window of ``SORT_WINDOW_BATCHES * batch_size`` sentences by length so
        that batches need little padding (the order of the results is restored). Stateful mode keeps the
        input order, as row ``i`` of each batch continues row ``i``'s state (``embedding.jobs.embed_job``).

        Raises:
            ValueError: a ``batch_size`` outside ``[1, limits.MAX_BATCH_SIZE]`` (at once); errors of
                ``embed_batch`` as the sentences are reached (naming a sentence by its index in ``sentences``).
        """
        check_batch_size(batch_size)
        return self._embed_job(sentences, batch_size)

    def _embed_job(self, sentences: Iterable[Sequence[str]], batch_size: int, on_batch=None) -> Iterator[np.ndarray]:
        return embed_job(self.bilm, self.sentence_ids, sentences, batch_size, execution=self.execution,
                         time_bucket=self.time_bucket, strategy=self.strategy, matmul_dtype=self.matmul_dtype,
                         on_batch=on_batch)

    def embed_file(
        self,
        input_file: str | os.PathLike,
        output_file: str | os.PathLike,
        output_format: str = "all",
        batch_size: int = 64,
        progress: ProgressCallback | None = None,
        shard: tuple[int, int] | None = None,
    ) -> int:
        """Embed a text file with one whitespace-tokenized sentence per line into HDF5 (AllenNLP's layout).

        The output holds one dataset per line, named by its 0-based line index (``"0"``, ``"1"``, ...):
        `(num_layers, tokens, dim)` for ``output_format="all"``, `(tokens, dim)` for ``"top"`` (last layer)
        and ``"average"`` (mean of the layers), plus ``"sentence_to_index"``: a 1-element string dataset
        with JSON mapping each sentence text to its dataset name. The file is written to a temporary name
        and renamed at the end, so a failure never leaves a partial output (``embedder_files.writing_hdf5``: a
        temporary file of its own, so two runs writing one output never destroy each other). The output may not
        be the input, a file or directory the embedder was loaded from, or part of the download cache, and an
        existing file there must be an output of ours (``embedder_files.check_output_destroys_nothing``).

        With ``shard=(k, n)`` (k counted from 1) only shard k of n is embedded: one contiguous run of whole
        sorting windows (``batch_size * SORT_WINDOW_BATCHES`` lines; ``embedding.shards`` gives the boundaries),
        its datasets named by their line index in the whole file, its ``sentence_to_index`` covering its own
        lines, and the run recorded in the file's attributes (``shards.ShardRecord``: k, n, the input's line
        count and SHA-256, ...). ``shards.merge_shards`` (``python -m elmo_keras merge-shards``) checks and
        joins the n files into the output one call without ``shard`` writes, bit for bit. More shards than
        windows leave some shards empty (written all the same, with no sentence). Stateless mode only.

        Args:
            input_file, output_file: the text file read (``read_sentence_file``) and the HDF5 file written.
            output_format: ``"all"``, ``"top"`` or ``"average"`` (above). Defaults to ``"all"``.
            batch_size: int, sentences per biLM call. Defaults to 64.
            progress: called as ``progress(done, total)`` after each batch (``total``: the shard's sentences).
                Defaults to None.
            shard: ``(k, n)``, ints with ``1 <= k <= n``: embed shard k of n (above). Defaults to None (every line).

        Returns:
            The number of sentences written.

        Raises:
            FileNotFoundError: ``input_file`` is missing, or ``output_file``'s directory does not exist.
            IsADirectoryError: ``input_file`` or ``output_file`` is a directory.
            NotADirectoryError, PermissionError: ``output_file``'s directory is a file or is not writable.
            ValueError: an empty input file, an unknown ``output_format``, a bad ``shard`` or one in stateful mode,
                or (naming the file and the line) a blank line, a line that is not UTF-8 or over 1 MiB
                (``read_sentence_file``).
            OutputOverwritesInputError (a ValueError): ``output_file`` is the input or a file the embedder
                was loaded from, lies inside its model directory or the download cache, is a cache record, lock or
                partial download, or is an existing file that is not an output of embed or merge-shards.

            All of these are raised before anything is embedded.
        """
        check_output_format(output_format)
        check_batch_size(batch_size)
        if shard is not None and self.stateful:
            raise ValueError("shard= needs a stateless embedder: in stateful mode a sentence's vectors depend on every "
                             "batch before it, so a shard cannot start in the middle of the file")
        if shard is not None:
            check_shard(shard)
        input_file, output_file = check_embed_paths(input_file, output_file, self.source_files,
                                                    self.source_directories)
        record = None
        if shard is None:
            texts = read_sentence_file(input_file)
        else:
            texts, record = read_shard_input(input_file, shard, batch_size, batch_size * SORT_WINDOW_BATCHES,
                                             output_format)
        first_index = 0 if record is None else record.lines.start
        embedded_count = 0

        def on_batch(size):
            nonlocal embedded_count
            embedded_count += size
            if progress is not None:
                progress(embedded_count, len(texts))

        with writing_hdf5(output_file) as handle:
            if record is not None:
                record.write(handle)
            embedded = self._embed_job((text.split() for text in texts), batch_size, on_batch)
            write_embedded(handle, ((first_index + offset, texts[offset], output_vectors(vectors, output_format))
                                    for offset, vectors in enumerate(embedded)))
        return len(texts)

    def reset_states(self) -> None:
        """Forget the carried LSTM state (stateful mode; harmless otherwise)."""
        self.bilm.reset_states()

