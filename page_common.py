"""What the explorer's model pages share (Streamlit side): the frame guard, the cached model, the word picker.

Pages import this module; the computation itself stays in ``elmo_keras.explorer``.
"""

from __future__ import annotations

import streamlit as st

from elmo_keras.explorer import state
from elmo_keras.explorer.corpus import word_choices
from elmo_keras.explorer.model_store import load_model

load_bilm_cached = st.cache_resource(load_model, show_spinner="Loading the model…")


def require_frame() -> None:
    """A page opened by URL before ``app.py`` ever ran goes to the frame first.

    (Streamlit's legacy ``pages/`` mode runs such a page without its frame until ``st.navigation`` is first
    called.)
    """
    if st.session_state.get(state.ACTIVE_REF) is None:
        st.switch_page("app.py")


def active_model():
    """``(ref, corpus, model)`` of the session (after ``require_frame``)."""
    require_frame()
    ref = st.session_state[state.ACTIVE_REF]
    return ref, st.session_state[state.CORPUS], load_bilm_cached(ref)


def word_choices_for(widget_key: str, corpus, model) -> list[str]:
    """The words a page offers; its selectbox starts on the word chosen on any page (or the first choice)."""
    choices = word_choices(corpus, model.vocabulary)
    if st.session_state.get(widget_key) not in choices:
        shared = st.session_state[state.WORD]
        st.session_state[widget_key] = shared if shared in choices else choices[0]
    return choices
