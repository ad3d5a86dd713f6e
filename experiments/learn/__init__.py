"""The learned-policy pipeline (``boardlab learn``): teacher data through the runner
(:mod:`experiments.learn.collect`), data sets (:mod:`experiments.learn.data`), the model and its
training on JAX/optax (:mod:`experiments.learn.model`, :mod:`experiments.learn.train`), and the
evaluation on shared deals (:mod:`experiments.learn.evaluate`). The compiled inference the
games play with lives in :mod:`agents.net`; only training needs the ``learn`` extra."""
