"""The ``pi_sdk`` entry point of pi-sdk-temporal.

The plugin has no hooks: it is listed (``pi-sdk plugins``) so an installation shows it, and
loading it imports nothing heavy (not ``temporalio``), because every pi-sdk process loads the
installed plugins.
"""
