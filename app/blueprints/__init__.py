"""Blueprints: application templates, readable by their owner, everyone, or a named list."""
