import pi_sdk


def test_all_is_sorted_unique_and_resolvable():
    names = pi_sdk.__all__
    assert names == sorted(names, key=str)
    assert len(set(names)) == len(names)
    for name in names:
        assert getattr(pi_sdk, name) is not None, name
