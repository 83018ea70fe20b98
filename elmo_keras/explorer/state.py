"""The explorer's session-state keys, defined once, and their initial values.

``app.py`` copies ``initial_state()`` into ``st.session_state`` (``setdefault``) at the top of every run, so
every page can read every key. Pages write only the keys listed here (widget keys are page-local).
"""

from __future__ import annotations

ACTIVE_MODEL = "active_model"  # name of the biLM shown on every page
MODEL_PICKER = "model_picker"  # the sidebar picker's widget key (synced into ACTIVE_MODEL every run)
CONTEXTUALIZER_PICKER = "contextualizer_picker"  # the sidebar's LSTM / transformer choice (a widget key)
REQUESTED_MODEL = "requested_model"  # a name a page asks the frame to select on the next run (None = none)
ACTIVE_REF = "active_model_ref"  # the ModelRef of ACTIVE_MODEL, refreshed by the frame every run
CORPUS = "corpus"  # the working corpus: a DataFrame with the polysemy corpus's columns
CORPUS_SOURCE = "corpus_source"  # where the working corpus came from, for display
CORPUS_VERSION = "corpus_version"  # incremented when CORPUS is replaced (gives the table editor a fresh key)
WORD = "word"  # the word followed on the similarity and PCA pages
TYPED_SENTENCES = "typed_sentences"  # sentences typed on the similarity page, one per line
LAST_TRAINING = "last_training"  # the last training run's summary (curves), shown after the page reruns
MESSAGE = "flash_message"  # (kind, text) to show once on the next run, e.g. after a model was saved

BUILT_IN = "built-in polysemy corpus"
DEFAULT_WORD = "bank"


def initial_state() -> dict:
    """Every key's initial value (the corpus itself is loaded lazily: ``None`` means the built-in one)."""
    return {
        ACTIVE_MODEL: None,
        REQUESTED_MODEL: None,
        ACTIVE_REF: None,
        CORPUS: None,
        CORPUS_SOURCE: BUILT_IN,
        CORPUS_VERSION: 0,
        WORD: DEFAULT_WORD,
        TYPED_SENTENCES: "",
        LAST_TRAINING: None,
        MESSAGE: None,
    }
