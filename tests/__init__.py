"""The suite: one module per feature; see conftest.py for the two backends."""
