"""Layer 3, models: providers, model catalogs and API keys, and the calls made through them.

The registries read the plugin manager's hooks; ``stream()`` / ``complete()`` look up the wire
API for a model and run it on the ``_stream`` machinery. Imports layers 0-2.
"""
