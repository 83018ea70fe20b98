"""Text for Plotly: tokens such as ``<S>`` and ``</S>`` shown literally instead of being read as HTML tags."""


def escape(text) -> str:
    """``&``, ``<`` and ``>`` as HTML entities (Plotly reads ``<s>`` as strike-through, ``</S>`` as a closing tag)."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
