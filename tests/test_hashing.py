import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gbgraph.hashing import HASHES, FixedPacking, Packing, packing_bits, xorshift, xorshift_star

from reference import hashed_status, xorshift_hash


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


@given(st.lists(st.tuples(st.integers(0, 99), st.integers(0, 99)), min_size=1, max_size=6))
def test_statuses_of_ranges_asked_in_any_order_match_the_cpp_definition(ranges):
    """The per-vertex half is computed for the ids asked for and widened later (a rank of
    the mpi backend asks for its block): any sequence of ranges gives the defined values."""
    n, nv = 100, 7
    pk = Packing(n, 32)
    for r, (a, b) in enumerate(ranges):
        ids = np.arange(min(a, b), max(a, b))
        want = [((i + 1) | (xorshift_hash(xorshift_hash(i, 32) ^ xorshift_hash(r, 32), 32) << nv)) & (2**32 - 1)
                for i in ids.tolist()]
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


@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=50), st.sampled_from([32, 64]))
def test_xorshift_is_table_i_xor_hash(values, bits):
    assert xorshift(values, bits).tolist() == [xorshift_hash(v, bits, star=False) for v in values]


@pytest.mark.parametrize("bits", [32, 64])
@pytest.mark.parametrize("priority_hash", HASHES)
@pytest.mark.parametrize("n", [1, 7, 1000])
def test_statuses_of_either_hash_match_the_reference(n, bits, priority_hash):
    pk = Packing(n, bits, priority_hash=priority_hash)
    ids = np.arange(n)
    for r in (0, 4):
        want = [hashed_status(i, r, n, bits, star=priority_hash == "xorshift*") for i in ids.tolist()]
        assert pk.tuples(pk(ids, r)).tolist() == want


def test_unknown_hash():
    with pytest.raises(ValueError, match="priority_hash must be 'xorshift\\*' or 'xorshift', got 'md5'"):
        Packing(5, 32, priority_hash="md5")


@pytest.mark.parametrize("bits", [32, 64])
def test_fixed_statuses_pack_priorities_and_ignore_the_round(bits):
    priorities = np.array([5, 0, 5, 2], np.uint64)
    fp = FixedPacking.from_priorities(priorities, bits)
    ids = np.array([3, 0, 2])
    assert fp.tuples(fp(ids, 0)).tolist() == [(2 << 3) | 4, (5 << 3) | 1, (5 << 3) | 3]
    np.testing.assert_array_equal(fp(ids, 0), fp(ids, 9))
    assert fp.dtype == Packing(4, bits).dtype and not fp.refresh and Packing(4, bits).refresh


def test_fixed_priorities_must_fit_beside_the_id():
    FixedPacking.from_priorities(np.array([2**29 - 1, 0, 0, 0], np.uint64), 32)  # nv = 3
    with pytest.raises(ValueError, match="priorities must be below 2\\*\\*29 for n = 4 and 32-bit statuses"):
        FixedPacking.from_priorities(np.array([2**29, 0, 0, 0], np.uint64), 32)


def test_packing_bits_reserves_priority_bits():
    assert packing_bits(2**25 - 2, priority_bits=7) == 32 and packing_bits(2**25 - 1, priority_bits=7) == 64
    with pytest.raises(ValueError, match="packing=32 holds at most 2\\*\\*25 - 2 vertices here"):
        packing_bits(2**25 - 1, packing=32, priority_bits=7)


@pytest.mark.parametrize(("n", "bits"), [(3, 32), (1000, 32), (70_000, 32), (1000, 64)])
@pytest.mark.parametrize(("r", "priority_hash"), [(0, "xorshift*"), (1, "xorshift*"), (7, "xorshift*"), (3, "xorshift")])
def test_compiled_statuses_equal_the_formula(n, bits, r, priority_hash):
    ids = np.sort(np.random.default_rng(n).choice(n, n // 3 + 1, replace=False)).astype(np.int64)
    packing = Packing(n, bits, priority_hash=priority_hash)
    compiled, formula = packing.numba(ids, r), packing(ids, r)
    assert compiled.dtype == formula.dtype
    np.testing.assert_array_equal(compiled, formula)
