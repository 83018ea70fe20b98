"""The names ``elmo_keras.embedding`` exports (read by ``_lazy.attach_stub``)."""

from elmo_keras.embedding.choices import EXECUTION_CHOICES, PRECISION_CHOICES
from elmo_keras.embedding.embedder import ElmoEmbedder
from elmo_keras.embedding.jobs import embed_job
from elmo_keras.embedding.onnx_embedder import OnnxEmbedder, OnnxFileError
from elmo_keras.embedding.onnx_export import export_onnx
from elmo_keras.embedding.shards import merge_shards
