"""``execution="auto"``: which path each batch of a stateless inference job runs, and the shape it is padded to.

On TensorFlow the biLM runs two ways that give the same vectors (to float32 rounding, ≤ 1e-5):

- ``"graph"``: one graph traced once for every shape; a batch is padded only to its longest sentence.
- ``"xla"``: compiled by XLA, at most a little faster per token once compiled on a CPU (docs/speed.md), but
  compiled once per input shape (a second or more each).
  Within a job every batch is padded to ``batch_size`` rows and its time axis to a multiple of ``time_bucket``
  steps, so a job compiles at most once per such *bucket*.

``"auto"`` decides per bucket with a cost model in multiply-adds (``InferenceCost``): a bucket runs compiled when
the time its batches would take on the graph, less their time on XLA (its padding included), exceeds one compile.
A job whose batches are known before the first one runs (``embed_file``, a list of sentences) is planned whole.
A stream (``embed_sentences`` over an iterator) is planned window by window (the sorting window,
``SORT_WINDOW_BATCHES`` batches), from the work seen so far: a bucket switches to XLA once that work alone would
have repaid the compile. That is the ski-rental rule: for a short stream it is the better choice, for a long one it
costs at most one compile's worth of graph time more than compiling from the start. Single calls
(``embed_batch``, ``embed_sentence``, the explorer's sentences) run the graph: one batch never repays a compile.

JAX has no path that is not compiled per shape (``"graph"`` and ``"xla"`` are both ``jax.jit``): there ``"auto"`` is
``"graph"``, with a job's batches padded to ``batch_size`` rows and to the buckets. PyTorch runs every mode eagerly:
``"auto"`` is ``"graph"`` there, which is the eager call.

Example (``lengths``: the job's sentence lengths in tokens; ``bilm``: a built ``BiLM``):
    >>> plan = ExecutionPlan(bilm, "auto", batch_size=64)
    >>> plan.add(job_steps(lengths, 64, 64 * SORT_WINDOW_BATCHES))  # every batch of the job, before the first
    >>> plan.run_for(26)  # BatchRun("graph"), or BatchRun("xla", 64, 16) where bucket 32 repays its compile
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence

from elmo_keras._backend import compiles_per_shape, has_xla_inference
from elmo_keras.models.bilm.inference import EXECUTION_MODES

AUTO = "auto"
EXECUTION_CHOICES = (AUTO, *EXECUTION_MODES)  # what ``ElmoEmbedder(execution=)`` and ``layer_embeddings`` take
DEFAULT_TIME_BUCKET = 16  # compiled paths: the time axis is padded to a multiple of this many steps

# The cost model's constants, measured with ``benchmarks/inference_paths.py`` at the ELMo-small size, batch 64, on a
# 2-core AMD EPYC (docs/speed.md). A decision depends on how much XLA saves per token and on the compile expressed in
# graph time, which move together across CPUs of one kind (a slower CPU compiles and runs the graph more slowly alike).
ENCODER_GRAPH_MACS_PER_SECOND = 90e9  # the token encoder (character CNN, highway, projection) on the graph path
RECURRENCE_GRAPH_MACS_PER_SECOND = 70e9  # the LSTM stacks on the graph path
ENCODER_XLA_SPEEDUP = 1.07  # the XLA path's speed over the graph path's, per padded token, once compiled
RECURRENCE_XLA_SPEEDUP = 1.1
COMPILE_SECONDS = 1.2  # one XLA compile of the biLM for one shape


@dataclasses.dataclass(frozen=True)
class BatchRun:
    """How one batch runs: the execution mode and what its ids are padded to.

    Args:
        execution: ``"graph"``, ``"xla"`` or ``"eager"``.
        rows: pad the batch to this many rows (padding rows are masked); None: a power of two where the mode
            compiles per shape, else as it is.
        time_bucket: pad the time axis to a multiple of this many steps (1: as it is).
    """

    execution: str
    rows: int | None = None
    time_bucket: int = 1


@dataclasses.dataclass(frozen=True)
class InferenceCost:
    """Predicted seconds of a batch on each path, from a biLM's multiply-adds per token in its two parts.

    ``graph = rows · steps · (encoder_macs / encoder_rate + recurrence_macs / recurrence_rate)``; on XLA each part
    runs its speed-up faster, on the padded shape; a compile costs ``compile_seconds``.

    Args:
        encoder_macs, recurrence_macs: ``macs_per_token_parts(bilm)``.
        encoder_rate, recurrence_rate: graph-path multiply-adds per second of each part.
        encoder_xla_speedup, recurrence_xla_speedup: XLA's speed over the graph's, per padded token.
        compile_seconds: one XLA compile.

        All but the first two default to the module's measured constants.
    """

    encoder_macs: float
    recurrence_macs: float
    encoder_rate: float = ENCODER_GRAPH_MACS_PER_SECOND
    recurrence_rate: float = RECURRENCE_GRAPH_MACS_PER_SECOND
    encoder_xla_speedup: float = ENCODER_XLA_SPEEDUP
    recurrence_xla_speedup: float = RECURRENCE_XLA_SPEEDUP
    compile_seconds: float = COMPILE_SECONDS

    def graph_seconds(self, rows: int, steps: int) -> float:
        """A `(rows, steps)` batch on the graph path."""
        return rows * steps * (self.encoder_macs / self.encoder_rate + self.recurrence_macs / self.recurrence_rate)

    def xla_seconds(self, rows: int, steps: int) -> float:
        """A `(rows, steps)` padded batch on the XLA path, once compiled."""
        return rows * steps * (self.encoder_macs / (self.encoder_rate * self.encoder_xla_speedup)
                               + self.recurrence_macs / (self.recurrence_rate * self.recurrence_xla_speedup))


class ExecutionPlan:
    """The execution of each batch of one inference job (see the module docstring).

    Args:
        bilm: the ``BiLM`` (its sizes give the work per token).
        execution: ``"auto"``, ``"graph"``, ``"xla"`` or ``"eager"``.
        batch_size: int, the job's rows per batch: compiled batches are padded to it.
        time_bucket: int ≥ 1, compiled batches' time axis is padded to a multiple of it. Defaults to 16.
        cost: the cost model. Defaults to ``InferenceCost(*macs_per_token_parts(bilm))``.
    """

    def __init__(self, bilm, execution: str, batch_size: int, time_bucket: int = DEFAULT_TIME_BUCKET,
                 cost: InferenceCost | None = None):
        self.execution = execution
        self.batch_size = int(batch_size)
        self.time_bucket = int(time_bucket)
        self.cost = cost if cost is not None else InferenceCost(*macs_per_token_parts(bilm))
        self.chooses = execution == AUTO and has_xla_inference()
        self._saved: dict[int, float] = {}  # bucket → graph seconds − XLA seconds of the batches seen in it
        self.compiled: set[int] = set()  # the buckets that run on XLA

    def bucket(self, steps: int) -> int:
        """The padded length of a compiled batch of ``steps`` steps."""
        return math.ceil(steps / self.time_bucket) * self.time_bucket

    def add(self, batch_steps: Iterable[int]) -> None:
        """Count batches the job runs (each one's steps, boundaries included, as ``steps_per_batch`` gives) and
        move to XLA every bucket whose counted work repays its compile. Counting a batch twice counts it twice."""
        if not self.chooses:
            return
        for steps in batch_steps:
            bucket = self.bucket(steps)
            saved = self.cost.graph_seconds(self.batch_size, steps) - self.cost.xla_seconds(self.batch_size, bucket)
            self._saved[bucket] = self._saved.get(bucket, 0.0) + saved
        self.compiled |= {bucket for bucket, saved in self._saved.items() if saved > self.cost.compile_seconds}

    def run_for(self, steps: int) -> BatchRun:
        """How a batch of ``steps`` steps (boundaries included) runs."""
        execution = self.execution
        if execution == AUTO:
            execution = "xla" if self.chooses and self.bucket(steps) in self.compiled else "graph"
        if compiles_per_shape(execution):
            return BatchRun(execution, self.batch_size, self.time_bucket)
        return BatchRun(execution)


def check_execution(execution: str) -> str:
    """``execution`` checked to be one of ``EXECUTION_CHOICES`` (ValueError naming the value otherwise)."""
    if execution not in EXECUTION_CHOICES:
        raise ValueError(f"execution must be one of {EXECUTION_CHOICES}, received {execution!r}")
    return execution


def single_call_run(execution: str, time_bucket: int = DEFAULT_TIME_BUCKET) -> BatchRun:
    """How one call outside a job runs (``embed_batch``): ``"auto"`` is ``"graph"``; a mode that compiles per shape
    pads the rows to a power of two and the time axis to a multiple of ``time_bucket``."""
    execution = "graph" if execution == AUTO else execution
    return BatchRun(execution, None, time_bucket if compiles_per_shape(execution) else 1)


def window_batches(lengths: Sequence[int], batch_size: int, sort: bool = True) -> list[list[int]]:
    """The batches one window of sentences is embedded in: their indices, ``batch_size`` at a time, longest first
    when ``sort`` (stable: equal lengths keep their order), else in order."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i]) if sort else list(range(len(lengths)))
    return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]


def steps_per_batch(lengths: Sequence[int], batches: Iterable[Sequence[int]]) -> list[int]:
    """Each batch's time steps with the two boundary tokens (its longest sentence + 2); batches of empty sentences
    only (nothing to run) are left out."""
    return [max(lengths[i] for i in batch) + 2 for batch in batches if max(lengths[i] for i in batch) > 0]


def job_steps(lengths: Sequence[int], batch_size: int, window_size: int, sort: bool = True) -> list[int]:
    """``steps_per_batch`` of a whole job: ``lengths`` cut into windows of ``window_size`` sentences, each batched
    by ``window_batches``."""
    steps = []
    for start in range(0, len(lengths), window_size):
        window = lengths[start : start + window_size]
        steps += steps_per_batch(window, window_batches(window, batch_size, sort))
    return steps


def macs_per_token(bilm) -> float:
    """The multiply-adds per token of a ``BiLM``'s forward pass (``macs_per_token_parts``, summed)."""
    return sum(macs_per_token_parts(bilm))


def macs_per_token_parts(bilm) -> tuple[float, float]:
    """``(encoder, recurrence)``: the multiply-adds per token of a ``BiLM``'s forward pass in its token encoder (a
    character CNN: each kernel at every position of the token's characters, highway and projection; a word
    embedding's lookup counts nothing) and in its LSTM stacks (per direction and layer the input, recurrent and
    projection matrices)."""
    encoder = bilm.token_encoder
    encoder_macs = 0.0
    if hasattr(encoder, "num_filters"):  # a CharCNN
        chars, dim, filters = encoder.max_characters_per_token, encoder.embedding_dim, encoder.num_filters
        encoder_macs += sum(count * width * dim * (chars - width + 1) for width, count in encoder.filters)
        encoder_macs += encoder.n_highway * filters * 2 * filters + filters * encoder.projection_dim
    units = bilm.units
    width = bilm.projection_dim or units
    token_dim = bilm.output_dim // 2
    recurrence_macs = 0.0
    for layer in range(bilm.num_layers):
        inputs = token_dim if layer == 0 else width
        recurrence_macs += 2 * ((inputs + width) * 4 * units + (units * width if bilm.projection_dim else 0))
    return encoder_macs, recurrence_macs
