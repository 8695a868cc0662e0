import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gbgraph.algorithms.hashing import Packing, packing_bits, xorshift_star

from reference import xorshift_hash


@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=50), st.sampled_from([32, 64]))
def test_xorshift_star_matches_the_cpp_definition(values, bits):
    assert xorshift_star(values, bits).tolist() == [xorshift_hash(v, bits) for v in values]


@pytest.mark.parametrize("bits", [32, 64])
@pytest.mark.parametrize("n", [1, 2, 6, 7, 1000, 2**17 - 2])
def test_statuses_match_the_cpp_definition(n, bits):
    pk = Packing(n, bits)
    ids = np.unique(np.r_[0, n - 1, np.random.default_rng(n).integers(0, n, 200)])
    nv = (n + 1).bit_length()
    for r in (0, 1, 9):
        want = [((i + 1) | (xorshift_hash(xorshift_hash(i, bits) ^ xorshift_hash(r, bits), bits) << nv))
                & (2**bits - 1) for i in ids.tolist()]
        assert pk.tuples(pk(ids, r)).tolist() == want


@pytest.mark.parametrize("bits", [32, 64])
def test_statuses_are_strictly_between_in_and_out_and_unique(bits):
    n = 2**12 - 2  # n + 1 = 2**12 - 1: all low nv bits but one can be set
    pk = Packing(n, bits)
    T = pk(np.arange(n), 3)
    assert T.dtype == pk.dtype and np.all(T > pk.IN) and np.all(T < pk.OUT)
    assert np.unique(T).size == n
    np.testing.assert_array_equal(pk.tuples(T) & np.uint64(2**12 - 1), np.arange(1, n + 1))
    assert pk.tuples([pk.IN, pk.OUT]).tolist() == [0, 2**bits - 1]


@pytest.mark.parametrize("bits", [32, 64])
def test_container_order_is_tuple_order(bits):
    pk = Packing(1000, bits)
    T = np.concatenate([pk(np.arange(1000), r) for r in range(3)] + [np.array([pk.IN, pk.OUT], pk.dtype)])
    np.testing.assert_array_equal(np.argsort(T, kind="stable"), np.argsort(pk.tuples(T), kind="stable"))


def test_packing_bits():
    assert packing_bits(0) == 32 and packing_bits(2**32 - 2) == 32
    assert packing_bits(2**32 - 1) == 64 and packing_bits(5, packing=64) == 64
    with pytest.raises(ValueError, match="at most 2\\*\\*32 - 2 vertices"):
        packing_bits(2**32 - 1, packing=32)
    with pytest.raises(ValueError, match="packing must be None, 32 or 64"):
        packing_bits(5, packing=8)
