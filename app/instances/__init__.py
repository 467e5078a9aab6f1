"""Instances: what a team deployed from a blueprint, with the rendered definition kept byte for
byte, and the namespaces they hold on a cluster. This package holds their schemas and their store,
which reads alone: an instance is written by an admission (app/joins/), which counts it in its
profile's usage, and served by app/api/instances.py."""
