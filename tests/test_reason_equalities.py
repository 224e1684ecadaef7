"""``equalities``: paths and substitutions name guards that imply them (checked by brute force)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from symguard.solver import load_problem
from symguard.solver.reason import equalities

NAMES = ["a", "b", "c", "d", "e"]
edges = st.lists(st.tuples(st.sampled_from(NAMES), st.one_of(st.sampled_from(NAMES), st.integers(0, 3))),
                 max_size=6)


def _holds(e: tuple[str, str | int], pt: dict[str, int]) -> bool:
    a, b = e
    return pt[a] == (b if isinstance(b, int) else pt[b])


def _points() -> list[dict[str, int]]:
    import itertools
    return [dict(zip(NAMES, v)) for v in itertools.product(range(4), repeat=len(NAMES))]


@given(edges, st.sampled_from(NAMES), st.one_of(st.sampled_from(NAMES), st.integers(0, 3)))
def test_a_path_implies_the_equality(es: list[tuple[str, str | int]], a: str, b: str | int) -> None:
    g = equalities.Graph((x, y, k) for k, (x, y) in enumerate(es))
    path = g.path(a, b)
    if path is None:
        return
    for pt in _points():
        if all(_holds(es[k], pt) for k in path):
            assert _holds((a, b), pt), (es, a, b, path, pt)


@given(edges)
def test_substitution_is_justified_by_its_guards(es: list[tuple[str, str | int]]) -> None:
    g = equalities.Graph((x, y, k) for k, (x, y) in enumerate(es))
    sub, contra = g.substitution()
    pts = _points()
    if contra is not None:
        assert not any(all(_holds(es[k], pt) for k in contra) for pt in pts)
        return
    for s, (rep, srcs) in sub.items():
        assert s != rep
        for pt in pts:
            if all(_holds(es[k], pt) for k in srcs):
                assert _holds((s, rep), pt), (es, s, rep, srcs, pt)


def test_eq_pair_reads_symbol_and_literal_equalities() -> None:
    def term(text: str):  # type: ignore[no-untyped-def]
        return load_problem({"guards": [text], "options": {"default_min": None}}).guards[0].term

    assert equalities.eq_pair(term("Eq(s0, s1)")) in (("s0", "s1"), ("s1", "s0"))
    assert equalities.eq_pair(term("Eq(2*s0, 16)")) == ("s0", 8)
    assert equalities.eq_pair(term("Eq(2*s0, 15)")) is None  # no integer point: not an equality of sizes
    assert equalities.eq_pair(term("Eq(s0, 2*s1)")) is None
    assert equalities.eq_pair(term("s0 <= s1")) is None
