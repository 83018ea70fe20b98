"""What the explorer's model pages share (Streamlit side): the frame guard, the cached model, the word picker, and
the first-use models of the pages that train their own (``first_use_models``).

Pages import this module; the computation itself stays in ``elmo_keras.explorer``.
"""

from __future__ import annotations

# before Streamlit: ``import streamlit`` configures Plotly's theme, whose validators read ``pandas.Series`` from
# ``sys.modules`` without importing pandas; a pandas another thread has only begun to import would fail them, while
# ``import pandas`` here waits for that thread to finish it
# (tests/project/backend_independent/test_half_imported_dependencies.py)
import pandas  # noqa: F401
import streamlit as st

from elmo_keras.explorer import state
from elmo_keras.explorer.corpus import fingerprint, word_choices
from elmo_keras.explorer.first_use import (
    DamagedModelsError,
    discard_advice,
    forget_job,
    load_models,
    training_job,
)
from elmo_keras.explorer.model_store import (
    ModelsUnloadableError,
    list_models,
    load_model,
    load_with_fallback,
    models_directory,
    saved_vocabulary,
)

load_bilm_cached = st.cache_resource(load_model, show_spinner="Loading the model…")
saved_vocabulary_cached = st.cache_resource(saved_vocabulary, show_spinner=False)


def require_frame() -> None:
    """A page opened by URL before the frame (``app.py``, beside ``pages/``) ever ran goes to the frame first.

    (Streamlit's legacy ``pages/`` mode runs such a page without its frame until ``st.navigation`` is first
    called.)
    """
    if st.session_state.get(state.ACTIVE_REF) is None:
        st.switch_page("app.py")


def active_model():
    """``(ref, corpus, model)`` of the session (after ``require_frame``).

    A model that fails to load (a truncated ``model.keras``, a vocabulary from another model, ...) is reported
    in an error box and the first saved model that loads is selected instead (the picker follows, so another
    model can still be chosen); with none loadable the page stops with the errors and how to recover.
    """
    require_frame()
    ref = st.session_state[state.ACTIVE_REF]
    try:
        loaded = load_with_fallback(ref, saved_models(ref.directory), load=load_bilm_cached)
    except ModelsUnloadableError as error:
        st.error("No saved biLM can be loaded:\n\n" + "\n".join(f"- **{name}**: {message}"
                                                                  for name, message in error.failures)
                 + f"\n\nTrain a new one on the *Corpus & training* page, or delete the broken ones from "
                   f"`{ref.directory}`.")
        st.stop()
    if loaded.failures:
        reasons = "\n".join(f"- **{name}**: {message}" for name, message in loaded.failures)
        st.session_state[state.MESSAGE] = ("error", f"Cannot load a saved model; showing **{loaded.ref.name}** "
                                                    f"instead.\n\n{reasons}\n\nRetrain or delete it "
                                                    f"(models directory `{ref.directory}`).")
        st.session_state[state.REQUESTED_MODEL] = loaded.ref.name
        st.session_state[state.ACTIVE_REF] = loaded.ref  # the frame sets it too; a page run on its own needs it
        st.rerun()  # the frame selects the fallback in the picker and shows the message
    return ref, st.session_state[state.CORPUS], loaded.model


def active_vocabulary():
    """``(ref, corpus, vocabulary)`` of the session, the vocabulary read from the model's directory without loading
    the model (or Keras); a vocabulary that cannot be read loads the model, which reports why (``active_model``)."""
    require_frame()
    ref = st.session_state[state.ACTIVE_REF]
    vocabulary = saved_vocabulary_cached(ref)
    if vocabulary is None:
        ref, _, model = active_model()
        vocabulary = model.vocabulary
    return ref, st.session_state[state.CORPUS], vocabulary


def stored_or_computed(stored, computed, *inputs):
    """A page's view of the session's model: ``stored(ref, corpus, *inputs)`` when it finds one on disk (no model
    loaded, so no Keras either), else ``computed(model, ref, fingerprint(corpus), corpus, *inputs)`` with the model
    loaded (``active_model``: errors and the fallback model handled)."""
    require_frame()
    view = stored(st.session_state[state.ACTIVE_REF], st.session_state[state.CORPUS], *inputs)
    if view is not None:
        return view
    ref, corpus, model = active_model()
    return computed(model, ref, fingerprint(corpus), corpus, *inputs)


def saved_models(directory):
    """The models in ``directory``, listed only when iterated (after the active model failed to load)."""
    yield from (info.ref for info in list_models(directory))


def word_choices_for(widget_key: str, corpus, vocabulary) -> list[str]:
    """The words a page offers; its selectbox starts on the word chosen on any page (or the first choice)."""
    choices = word_choices(corpus, vocabulary)
    if st.session_state.get(widget_key) not in choices:
        shared = st.session_state[state.WORD]
        st.session_state[widget_key] = shared if shared in choices else choices[0]
    return choices


# -- first-use models (``elmo_keras.explorer.first_use``): the frame's first launch and the pages' own models --------
def watch_training(spec, models_dir) -> None:
    """Start ``spec``'s first-use training, or join the one running in this process (every session watches the same
    job), and show its progress until it ends; a failure is shown in an error box and stops the page (the next run
    trains again)."""
    job = training_job(spec, models_dir)
    bar = st.progress(job.fraction, text=job.status())
    while not job.wait(0.5):  # watch without rerunning: a rerun per poll slowed the training thread down
        bar.progress(job.fraction, text=job.status())
    bar.empty()
    if job.error is not None:
        forget_job(spec, models_dir, job)
        st.error(f"Training the {spec.what} failed: {job.error}")
        st.stop()


def first_use_handle(spec):
    """The handle of ``spec``'s saved models (``spec.ready``: the shipped ones installed where missing), trained now
    in the background where there are none (``watch_training``)."""
    models_dir = str(models_directory())
    handle = spec.ready(models_dir)
    if handle is None:
        watch_training(spec, models_dir)
        handle = spec.ready(models_dir)
    if handle is None:  # deleted as soon as saved: the next run (a stale job is not reused) trains again
        st.error(f"Training the {spec.what} finished, but nothing is saved in `{models_dir}`; reload the page.")
        st.stop()
    return handle


@st.cache_resource(show_spinner=False, max_entries=16)
def _loaded_models(name: str, handle, _spec):
    """One load per page and saved version (the handle changes when the models are saved again)."""
    return load_models(_spec, handle)


def first_use_loaded(spec, handle):
    """``spec``'s models loaded from ``handle``; a missing or damaged file shows an error box naming it, with a
    button that deletes the page's own files (refused, with the reason, where a directory holds anything else) and
    starts again, and stops the page."""
    try:
        with st.spinner(f"Loading the {spec.what}…"):
            return _loaded_models(spec.name, handle, spec)
    except DamagedModelsError as error:
        models_dir = models_directory()
        st.error(f"{error}\n\n{discard_advice(models_dir)}")
        if st.button("Delete them and start again", key=f"{spec.name}_retrain"):
            try:
                spec.discard(str(models_dir))
            except ValueError as refused:
                st.error(str(refused))
                st.stop()
            st.rerun()
        st.stop()


def first_use_models(spec):
    """``(handle, models)`` of a page that needs trained models (``first_use_handle``, ``first_use_loaded``)."""
    handle = first_use_handle(spec)
    return handle, first_use_loaded(spec, handle)
