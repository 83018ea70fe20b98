"""A corpus embedded on Ray Data (``embed --engine ray``): ``embed_corpus`` drives, ``EmbedWindows`` embeds.

The pipeline, each step the one-process ``embed``'s own code:

1. **Read and check, before Ray starts** (the driver): the corpus (a file, a glob or a list of them:
   ``data.corpus_paths``) is read file by file by embed's reader (``embedder_files.read_sentence_file``: UTF-8,
   ``.gz`` read as gzip, a blank, non-UTF-8 or over-long line refused naming the file and the line), and the output
   is checked as embed checks it (``embedder_files.check_output_destroys_nothing``: never a corpus file, a file or
   folder the model is read from, a download-cache record or another writer's temporary file, and an existing file
   there only if it is an output of ours).
2. **Windows.** The lines, the files one after the other, are cut into the windows embed's job runner sorts by length
   before batching (``batch_size × SORT_WINDOW_BATCHES`` lines, from the first line on): one dataset row each.
3. **Workers** (``Dataset.map_batches`` over an actor pool of ``workers`` actors): each loads one ``ElmoEmbedder``
   through the one load verb (``ElmoEmbedder.from_preset``: a preset name, a URL, a model directory …) and embeds a
   window as ``embed`` does (``embed_sentences``, the job runner), returning each line's vectors by its index.
4. **Write** (the driver): the rows, in line order, through embed's writer (``embedder_files.writing_hdf5`` and
   ``write_embedded``): the layout ``embed`` writes, dataset ``"i"`` for line ``i + 1`` of the files read one after
   the other.

**Bit for bit.** A window is one call of the job runner on the same lines, so its batches hold the same sentences
with the same padding as the one-process run's; the output equals ``embed``'s on the concatenated files, bit for
bit (``tests/embedding/test_ray_engine.py``), as ``embed --shard`` does. (On TensorFlow's CPU graph path a sentence's
vectors do not depend on its batch mates anyway, ``docs/determinism.md``; the engine does not rely on it.)

**Failures.** A worker that dies (killed, out of memory) is restarted by Ray Data and its window run again: the
actor pool's defaults (``max_restarts=-1``, ``max_task_retries=-1``; passing them to ``map_batches`` is deprecated
since Ray 2.60). A window's vectors depend on its lines alone, so a window run again gives the same vectors, and the
driver checks that every line comes back once, in order. An error the embedder raises (a ``ValueError``: a sentence
too long for a transformer) is not retried (``DataContext.actor_task_retry_on_errors`` is off): the job stops and
the driver raises it, one line naming the files and lines of its window.

Ray is an optional dependency (the ``ray`` extra), imported on first use: importing this module needs no Ray.
"""

from __future__ import annotations

import bisect
import contextlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from elmo_keras.argument_checks import check_int
from elmo_keras.data.corpus_files import corpus_paths
from elmo_keras.embedding.choices import AUTO, DEFAULT_RAY_WORKERS, check_execution, check_precision
from elmo_keras.embedding.embedder import ElmoEmbedder
from elmo_keras.embedding.embedder_files import (
    check_input_file,
    check_output_destroys_nothing,
    check_output_file,
    check_output_format,
    output_vectors,
    read_sentence_file,
    write_embedded,
    writing_hdf5,
)
from elmo_keras.embedding.shards import SORT_WINDOW_BATCHES
from elmo_keras.limits import check_batch_size
from elmo_keras.pretrained.model_files import model_file_paths
from elmo_keras.pretrained.presets import ARCHIVE, MODEL_DIRECTORY, PAIR, preset_kind

RAY_EXTRA = 'pip install "elmo_keras[ray]"'


class RayNotInstalledError(ImportError):
    """Ray Data is not installed: one line saying how to install it (the ``ray`` extra)."""


def import_ray():
    """The ``ray`` module with ``ray.data``, imported on first use.

    Raises:
        RayNotInstalledError: Ray or Ray Data is not installed (one line naming ``pip install "elmo_keras[ray]"``).
    """
    try:
        import ray  # optional dependency (the ray extra), loaded on first use
        import ray.data  # noqa: F401  (optional dependency: Ray Data, the ray[data] of the extra)
    except ImportError:
        raise RayNotInstalledError(f"embedding on Ray needs Ray Data, which is not installed: {RAY_EXTRA}") from None
    return ray


class EmbedWindows:
    """The callable class ``Dataset.map_batches`` runs on each Ray worker: windows of lines → their vectors.

    Ray Data builds one per worker (actor) and calls it for each batch of rows, so the model is loaded here, once per
    worker, as Ray Data's stateful transforms are meant to.

    Args:
        model: what ``ElmoEmbedder.from_preset`` loads: a preset name, an http(s) URL, a model directory, an AllenNLP
            archive or ``(options.json, weights.hdf5)``; a path must exist on every node.
        batch_size: int, sentences per biLM call (the window is ``batch_size × SORT_WINDOW_BATCHES`` lines).
        output_format: ``"all"``, ``"top"`` or ``"average"`` (``embedder_files.output_vectors``).
        execution, precision: as ``ElmoEmbedder``. Default to ``"auto"``.

    Call arguments:
        batch: a dict of NumPy arrays, one element per window: ``"first"`` (the index of its first line in the
            corpus), ``"where"`` (its files and lines, for errors) and ``"lines"`` (its sentences' text).

    Returns:
        ``{"line": int64 (sentences,), "vectors": one float32 array per sentence}``, each sentence's vectors
        `(num_layers, tokens, dim)` (``"all"``) or `(tokens, dim)`, keyed by its line index.
    """

    def __init__(self, model, batch_size: int, output_format: str, execution: str = AUTO, precision: str = AUTO):
        self.model = model
        self.batch_size = batch_size
        self.output_format = output_format
        self.execution = execution
        self.precision = precision
        self.embedder = ElmoEmbedder.from_preset(model, execution=execution, precision=precision, progress=None)

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, object]:
        lines, vectors = [], []
        for first, where, texts in zip(batch["first"], batch["where"], batch["lines"]):
            texts = [str(text) for text in texts]
            lines.extend(range(int(first), int(first) + len(texts)))
            vectors.extend(self.embed_window(texts, str(where)))
        return {"line": np.asarray(lines, dtype=np.int64), "vectors": vectors}

    def embed_window(self, texts: Sequence[str], where: str) -> list[np.ndarray]:
        """One window's sentences as ``embed`` embeds them (one job-runner call: sorted by length, ``batch_size`` at
        a time), each in the output format. An embedder's ``ValueError`` comes back naming the window's place."""
        try:
            embedded = list(self.embedder.embed_sentences((text.split() for text in texts), self.batch_size))
        except ValueError as error:
            raise ValueError(f"in {where}: {error} (sentences[i] is the i-th of these lines, from 0)") from None
        return [output_vectors(vectors, self.output_format) for vectors in embedded]


def embed_corpus(model, corpus, output_file: str | os.PathLike, *, output_format: str = "all", batch_size: int = 64,
                 workers: int = DEFAULT_RAY_WORKERS, address: str | None = None, execution: str = AUTO,
                 precision: str = AUTO, worker_cpus: float = 1, worker_gpus: float = 0,
                 progress: Callable[[int, int], None] | None = None) -> int:
    """Embed a corpus on Ray Data into the HDF5 file ``embed`` writes (see the module docstring).

    Args:
        model: as ``EmbedWindows``: a preset name, a URL, a model directory, an AllenNLP archive or
            ``(options.json, weights.hdf5)``.
        corpus: a file, a glob (``"shards/*.txt.gz"``) or a list of them (``data.corpus_paths``: sorted); lines
            are numbered across the files, one after the other.
        output_file: the HDF5 file to write (an existing output of ours is replaced, nothing else).
        output_format: ``"all"``, ``"top"`` or ``"average"``. Defaults to ``"all"``.
        batch_size: int, sentences per biLM call. Defaults to 64.
        workers: int, Ray workers, each with its own embedder. Defaults to 2.
        address: an existing cluster's address for ``ray.init`` (``"auto"``, ``"ray://host:10001"``); None: the
            cluster ``RAY_ADDRESS`` names, else a local one started here and shut down at the end. A Ray connection
            this process already holds is used as it is. Defaults to None.
        execution, precision: as ``ElmoEmbedder``. Default to ``"auto"``.
        worker_cpus, worker_gpus: the resources each worker reserves. Default to 1 CPU, no GPU.
        progress: called as ``progress(done, total)`` as windows are written. Defaults to None.

    Returns:
        The number of sentences written.

    Raises:
        RayNotInstalledError: no Ray Data (first).
        ValueError, FileNotFoundError, IsADirectoryError, …: a bad argument, corpus or output, as ``embed``: before
            Ray starts; ``SentenceFileError`` names the file and the line.
        OutputOverwritesInputError (a ValueError): ``output_file`` would replace a corpus file, a file of the model,
            a download-cache file or a file that is not an output of ours.
        ValueError: an embedder's error in a worker (one line naming its window's files and lines).

    Example:
        >>> from elmo_keras.embedding.ray_engine import embed_corpus  # doctest: +SKIP
        >>> embed_corpus("elmo_small_en", "corpus/*.txt.gz", "elmo.hdf5", workers=8)  # doctest: +SKIP
        1000000
    """
    check_output_format(output_format)
    check_batch_size(batch_size)
    check_int(workers, "workers")
    check_execution(execution)
    check_precision(precision)
    ray = import_ray()
    paths, output_file = check_corpus_paths(corpus, output_file, *model_read_paths(model))
    texts, windows = read_windows(paths, batch_size * SORT_WINDOW_BATCHES)
    worker_arguments = dict(model=model, batch_size=batch_size, output_format=output_format, execution=execution,
                            precision=precision)
    with ray_connection(ray, address):
        rows = embedded_rows(ray, windows, worker_arguments, workers, worker_cpus, worker_gpus)
        with writing_hdf5(output_file) as handle:
            try:
                write_embedded(handle, in_line_order(rows, texts, progress, batch_size))
            except ray.exceptions.RayTaskError as error:
                raise worker_error(error) from None
    return len(texts)


def model_read_paths(model) -> tuple[dict[str, str], dict[str, str]]:
    """What loading ``model`` reads, ``({description: file}, {description: folder})``, found without reading it
    (``pretrained.presets.preset_kind``), as ``LoadedPreset`` names them: what the output must never replace. A preset
    name's or a URL's files are in the download cache, which no output may touch anyway."""
    kind, what = preset_kind(model)
    if kind == PAIR:
        return dict(zip(("the options file", "the weights file"), model_file_paths(*what))), {}
    if kind == MODEL_DIRECTORY:
        return {}, {"the model directory": what}
    if kind == ARCHIVE:
        return ({"the archive": what}, {}) if os.path.isfile(what) else ({}, {"the archive folder": what})
    return {}, {}


def check_corpus_paths(corpus, output_file: str | os.PathLike, model_files: dict[str, str | None],
                       model_directories: dict[str, str | None]) -> tuple[list[str], str]:
    """The corpus files (``data.corpus_paths``, each checked as ``embed``'s input) and the output, checked to destroy
    nothing (``embedder_files.check_output_destroys_nothing``) against them and the model's ``{description: path}``.

    Raises:
        as ``corpus_paths``, ``check_input_file``, ``check_output_file`` and ``check_output_destroys_nothing``.
    """
    paths = [check_input_file(path) for path in corpus_paths(corpus)]
    output_file = check_output_file(output_file)
    check_output_destroys_nothing(output_file, {**{f"corpus file {path}": path for path in paths}, **model_files},
                                  model_directories)
    return paths, output_file


def read_windows(paths: Sequence[str], window_lines: int) -> tuple[list[str], list[dict]]:
    """Every line of ``paths`` (``read_sentence_file`` each, in order) and the windows they are cut into:
    ``{"first", "where", "lines"}`` rows of ``window_lines`` lines (the last one shorter)."""
    texts: list[str] = []
    starts: list[int] = []  # the index of each file's first line
    for path in paths:
        starts.append(len(texts))
        texts.extend(read_sentence_file(path))

    def place(index: int) -> tuple[str, int]:
        file = bisect.bisect_right(starts, index) - 1
        return paths[file], index - starts[file] + 1

    windows = []
    for first in range(0, len(texts), window_lines):
        lines = texts[first:first + window_lines]
        (first_path, first_line), (last_path, last_line) = place(first), place(first + len(lines) - 1)
        where = (f"{first_path}, lines {first_line}–{last_line}" if first_path == last_path
                 else f"{first_path}, line {first_line} – {last_path}, line {last_line}")
        windows.append({"first": first, "where": where, "lines": lines})
    return texts, windows


@contextlib.contextmanager
def ray_connection(ray, address: str | None) -> Iterator[None]:
    """A connection to a Ray cluster for the block: the one this process holds, else ``ray.init(address=address)``
    (a local cluster without a dashboard when no address is given or set in ``RAY_ADDRESS``), shut down after."""
    if ray.is_initialized():
        yield
        return
    ray.init(address=address, **({} if address or os.environ.get("RAY_ADDRESS") else {"include_dashboard": False}))
    try:
        yield
    finally:
        ray.shutdown()


def embedded_rows(ray, windows: list[dict], worker_arguments: dict, workers: int, worker_cpus: float,
                  worker_gpus: float) -> Iterable[dict]:
    """The rows ``{"line", "vectors"}`` of every window embedded by ``workers`` ``EmbedWindows`` actors, one window per
    call, in line order."""
    dataset = ray.data.from_items(windows, override_num_blocks=len(windows))
    context = dataset.context  # this dataset's own copy of DataContext, carried to its map
    context.execution_options.preserve_order = True  # rows in line order: embed's writing order
    context.raise_original_map_exception = True  # a worker's ValueError reaches the driver as itself
    context.enable_progress_bars = False  # the caller's progress counts lines
    embedded = dataset.map_batches(EmbedWindows, fn_constructor_kwargs=worker_arguments, batch_size=1,
                                   compute=ray.data.ActorPoolStrategy(size=workers), num_cpus=worker_cpus,
                                   num_gpus=worker_gpus or None)
    return embedded.iter_rows()


def in_line_order(rows: Iterable[dict], texts: Sequence[str], progress: Callable[[int, int], None] | None,
                  every: int) -> Iterator[tuple[int, str, np.ndarray]]:
    """``(line index, text, vectors)`` for ``write_embedded``, checking that the rows hold every line once, in order;
    ``progress(done, total)`` is called every ``every`` lines and at the end.

    Raises:
        RuntimeError: a line missing, repeated or out of order (the engine lost or repeated work).
    """
    done = 0
    for row in rows:
        line = int(row["line"])
        if line != done:
            raise RuntimeError(f"Ray Data returned line {line} where line {done} was due: a window was lost or "
                               "repeated; nothing was written")
        yield line, texts[line], row["vectors"]
        done += 1
        if progress is not None and (done % every == 0 or done == len(texts)):
            progress(done, len(texts))
    if done != len(texts):
        raise RuntimeError(f"Ray Data returned {done:,} of {len(texts):,} lines; nothing was written")


def worker_error(error) -> Exception:
    """The error a worker raised, as the driver raises it: a ``ValueError``, ``TypeError`` or ``OSError`` as itself,
    on its first line (ours are one line; Ray Data adds its retry advice below), else Ray's ``error``."""
    cause = error.cause
    if isinstance(cause, (ValueError, TypeError, OSError)):
        message = str(cause).splitlines()[0] if str(cause) else ""
        try:
            return type(cause)(message)
        except TypeError:  # an exception type built from other arguments
            return cause
    return error
