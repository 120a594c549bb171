"""Test helpers shipped with pi-sdk: record provider traffic once, replay it offline forever.

The pytest plugin (:mod:`pi_sdk.testing.pytest_plugin`, registered through the ``pytest11`` entry
point, so it is active wherever pi-sdk is installed) adds the ``pi_vcr`` marker, the
``pi_cassette`` fixture and the ``--pi-record`` option; see ``docs/testing.md``. The building
blocks are importable on their own: :mod:`pi_sdk.testing._scrub` (what is removed from a cassette)
and :mod:`pi_sdk.testing._network` (the network guard used on replay).

Nothing here imports vcrpy until a cassette is opened.
"""
