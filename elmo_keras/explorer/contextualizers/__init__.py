"""The explorer's LSTM vs transformer page: the two contextualizers' first-use models and their side-by-side view."""
