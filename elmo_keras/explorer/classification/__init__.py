"""The Classification page's service: the CNN and RNN text classifiers, their first-use training and predictions
(``service``), the convolution walk-through and filter views (``views``), and the figures (``charts``)."""
