"""elmo_keras: contextual embeddings (ELMo) for Keras 3.

Everything a notebook needs is importable from here. Importing this package does not print
TensorFlow's start-up log lines and does not import streamlit.
"""

from elmo_keras import _quiet  # noqa: F401  (must run before anything imports keras/tensorflow)
from elmo_keras.text import MAX_CHARS_PER_TOKEN, Vocabulary, batch_to_ids, tokenize

__version__ = "0.1.0"

__all__ = ["MAX_CHARS_PER_TOKEN", "Vocabulary", "batch_to_ids", "tokenize", "__version__"]
