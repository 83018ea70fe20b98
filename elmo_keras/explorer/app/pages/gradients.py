"""Vanishing gradients: ‖∂L/∂h_t‖ by distance for a vanilla RNN and an LSTM, what clipping does, and the quiz."""

from __future__ import annotations

import streamlit as st

from elmo_keras.explorer.app.page_common import first_use_models, require_frame
from elmo_keras.explorer.gradients import charts
from elmo_keras.explorer.gradients.quiz import OPTIONS, QUESTION, quiz_explanation
from elmo_keras.explorer.gradients.service import (
    DEFAULT_THETA,
    EXPLODING_SCALE,
    GRADIENT_MODELS,
    INITIAL,
    INITIAL_FORGET_BIAS,
    THETA_CHOICES,
    TRAINED,
    final_accuracies,
    measurements_for,
    page_defaults,
    page_study,
    training_table,
)

require_frame()

LENGTH_KEY, SCALE_KEY, BIAS_KEY, THETA_KEY, QUIZ_KEY = (
    "gradients_length", "gradients_rnn_scale", "gradients_forget_bias", "gradients_theta", "gradients_quiz")
LENGTHS = tuple(range(10, 61, 10))
RNN_SCALES = (0.5, 0.8, 1.0, 1.5, 2.0)
FORGET_BIASES = (0.0, 1.0, 2.0, 3.0, 5.0)


@st.cache_data(show_spinner="Measuring the gradients…", max_entries=32)
def measurements(_trained, models_dir, version, length, rnn_scale, forget_bias):
    """The gradients for these settings, once per models directory, training (``version``) and settings."""
    return measurements_for(models_dir, _trained, length, rnn_scale, forget_bias)


st.title("Vanishing gradients")
st.caption("After Pascanu et al. (2013): going backward, the gradient is multiplied by one Jacobian per step: "
           "diag(1 − h_t²)·Uᵀ in a vanilla RNN, diag(f_t) along an LSTM's cell. Both models below read a symbol, then "
           "distractors, and must say at the last step which symbol came first; we measure ‖∂L/∂h_t‖ for every "
           "step t by differentiating the loss with respect to a zero added to each hidden state.")

(models_dir, version), trained = first_use_models(GRADIENT_MODELS)
settings = trained.settings
st.plotly_chart(charts.training_curves(training_table(trained)), width="stretch", key="gradients_training")
st.caption(f"Both trained {settings.epochs} epochs on {settings.count} sequences of length {settings.length} "
           f"({settings.units} units, Adam {settings.learning_rate:g}, no clipping); vanilla RNN: orthogonal U of gain "
           f"{settings.rnn_scale:g}; LSTM: forget-gate bias {settings.forget_bias:g}.")

left, middle, right = st.columns(3)
with left:
    length = st.select_slider("Sequence length T (measured)", sorted({*LENGTHS, settings.length}),
                              value=settings.length, key=LENGTH_KEY)
with middle:
    rnn_scale = st.select_slider("Untrained vanilla RNN: gain of U", sorted({*RNN_SCALES, settings.rnn_scale}),
                                 value=settings.rnn_scale, key=SCALE_KEY)
with right:
    forget_bias = st.select_slider("Untrained LSTM: forget-gate bias", FORGET_BIASES, value=INITIAL_FORGET_BIAS,
                                   key=BIAS_KEY)
measured = measurements(trained, models_dir, version, length, rnn_scale, forget_bias)

theta = st.select_slider("Clip threshold θ (clipnorm)", THETA_CHOICES, value=DEFAULT_THETA, key=THETA_KEY)
study = page_study(measured, theta)

left, right = st.columns(2)
with left:
    st.plotly_chart(charts.norms_by_distance(study.curves, (INITIAL,), "At initialisation"), width="stretch",
                    key="gradients_initial")
with right:
    st.plotly_chart(charts.norms_by_distance(study.curves, (TRAINED,), "After training"), width="stretch",
                    key="gradients_trained")

st.subheader("Clipping by norm: g ← g · θ / max(‖g‖, θ)")
st.caption("Keras' clipnorm rescales each weight gradient ∂L/∂W = Σ_t ∂L/∂h_t · ∂h_t/∂W by one factor "
           "min(1, θ/‖∂L/∂W‖): every step's share of it keeps its size relative to the others. The chart applies that "
           "rescaling to each model's whole ∂L/∂h (all steps, all sequences) as one tensor, which shows the same thing "
           "step by step: one factor for all steps, so the far/near ratio cannot change. "
           f"The dash-dotted line is a vanilla RNN with U of gain {EXPLODING_SCALE:g}, whose "
           "gradient grows with distance (exploding).")
st.plotly_chart(charts.clipping_by_distance(study.clipped, theta), width="stretch", key="gradients_clipping")
st.dataframe(study.clip_summary.rename(columns={
    "gradient_norm": "‖g‖", "factor": "factor min(1, θ/‖g‖)", "clipped_norm": "‖g‖ clipped",
    "ratio": f"far/near (d={study.far} / d=0)", "clipped_ratio": "far/near, clipped"}),
    hide_index=True, width="stretch")

left, right = st.columns(2)
with left:
    st.plotly_chart(charts.forget_gates(study.forget), width="stretch", key="gradients_forget")
with right:
    st.markdown("**Weight decay** multiplies U by (1 − ηλ) at every step. The untrained vanilla RNN's far/near ratio "
                "with U shrunk by a factor:")
    st.dataframe(study.decay.rename(columns={"shrink": "U × factor", "ratio": f"far/near (d={study.far} / d=0)"}),
                 hide_index=True, width="stretch")

st.subheader("Quiz")
choice = st.radio(QUESTION, OPTIONS, index=None, key=QUIZ_KEY)
if choice is not None:
    # the explanation quotes the page's default settings (the sliders can make any untrained model explode)
    defaults = measurements(trained, models_dir, version, *page_defaults(trained.settings))
    correct, explanation = quiz_explanation(page_study(defaults, theta), final_accuracies(trained),
                                            OPTIONS.index(choice))
    (st.success if correct else st.info)(explanation)
