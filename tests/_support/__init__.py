"""Helpers shared by the tests (fakes, loopback vendors, conformance and migration cases)."""
