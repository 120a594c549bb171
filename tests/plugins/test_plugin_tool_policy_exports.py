"""pi-sdk-tool-policy's package exports: its own four names, then every name of the policy module.

Plugin discovery imports the package in every process, so it spells out the policy module's
names instead of importing it; the names it answers lazily are exactly ``policy.__all__`` (and
the module itself), each read giving the policy module's own object, and none of its own names
is sent there.
"""

from __future__ import annotations

import pi_sdk_tool_policy as package
import pi_sdk_tool_policy.policy as policy_module
import pytest

OWN = ["POLICY_ENV", "active_policy", "before_tool_call", "configure"]
"""The names the package defines itself."""


def test_the_package_exports_its_own_names_and_the_policy_modules() -> None:
    assert package.__all__ == [*OWN, *policy_module.__all__]
    assert sorted(n for n in dir(package) if n in package.__all__) == sorted(package.__all__)


def test_the_lazily_answered_names_are_the_policy_modules_names_and_the_module() -> None:
    home = "pi_sdk_tool_policy.policy"
    assert package._HOMES == dict.fromkeys(["policy", *policy_module.__all__], home)


@pytest.mark.parametrize("name", policy_module.__all__)
def test_each_policy_name_read_from_the_package_is_the_policy_modules_object(name: str) -> None:
    assert package.__getattr__(name) is getattr(policy_module, name)
    assert getattr(package, name) is getattr(policy_module, name)


@pytest.mark.parametrize("name", OWN)
def test_the_packages_own_names_are_not_looked_up_in_the_policy_module(name: str) -> None:
    assert name in vars(package)
    with pytest.raises(AttributeError) as caught:
        package.__getattr__(name)
    assert str(caught.value) == f"module 'pi_sdk_tool_policy' has no attribute {name!r}"


def test_the_policy_module_is_answered_as_a_submodule() -> None:
    assert package.__getattr__("policy") is policy_module
