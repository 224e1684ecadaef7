"""``periodic``: residue splitting is exact and removes every division by a literal it reaches.

Claims (module docstring of ``solver.reason.periodic``), each checked against Python integers:

* ``substitute`` keeps the value: ``t[s := L*q + r]`` at ``q`` equals ``t`` at ``s = L*q + r``,
  for any ``L``, negatives, zero and negative divisors included;
* with ``L`` a multiple of ``periods``, no division by a literal is left over a split symbol;
* ``_residues`` is a bijection between ``[lo, hi]`` and the ``(r, q)`` pairs it lists;
* ``cases``: a conjunction holds at some point of a box iff some case holds at some point of its
  ``q`` ranges (and every point of a case maps back to a point of the conjunction).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symguard.solver import load_problem
from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate, holds
from symguard.solver.reason import periodic

NAMES = ["x", "y"]
DIVS = ["-4", "-2", "2", "3", "4", "8"]


def terms(nonliteral_divisors: bool = True) -> st.SearchStrategy[str]:
    leaf = st.one_of(st.sampled_from(NAMES), st.integers(-5, 6).map(str))

    def extend(t: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        c = st.sampled_from(DIVS)
        return st.one_of(
            st.tuples(t, t).map(lambda p: f"({p[0]} + {p[1]})"),
            st.tuples(t, t).map(lambda p: f"({p[0]})*({p[1]})"),
            st.tuples(st.integers(-3, 16), t).map(lambda p: f"{p[0]}*({p[1]})"),
            st.tuples(t, c).map(lambda p: f"(({p[0]}) // {p[1]})"),
            st.tuples(t, c).map(lambda p: f"Mod({p[0]}, {p[1]})"),
            st.tuples(t, c).map(lambda p: f"(({p[0]}) + Mod({p[0]}, 2))//2"),  # patch merging
            st.tuples(t, c).map(lambda p: f"Mod({p[1]} - Mod({p[0]}, {p[1]}), {p[1]})"),  # window padding
            st.tuples(t, c).map(lambda p: f"CeilDiv({p[0]}, {p[1]})"),
            *([st.tuples(t, t).map(lambda p: f"FloorDiv({p[0]}, {p[1]})")]  # a non-literal divisor stays
              if nonliteral_divisors else []),
            st.tuples(t, t).map(lambda p: f"Max(1, {p[0]}, {p[1]})"),
            st.tuples(t, t).map(lambda p: f"Min({p[0]}, {p[1]})"),
        )

    return st.recursive(leaf, extend, max_leaves=5)


def _term(text: str) -> ir.Term:
    return load_problem({"queries": [text], "options": {"default_min": None}}).queries[0].term


def _sub(L: int, r: int) -> dict[str, periodic.Poly]:
    q = ir.mk_sym(periodic.q_name("x"))
    return {"x": {(q,): L, (): r} if r else {(q,): L}}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(terms(), st.integers(1, 24), st.data())
def test_substitution_keeps_the_value(text: str, L: int, data: st.DataObject) -> None:
    t = _term(text)
    r = data.draw(st.integers(0, L - 1))
    s = periodic.substitute(t, _sub(L, r))
    for q in range(-4, 5):
        for y in (-3, 0, 2, 5):
            x = L * q + r
            try:
                v = evaluate(t, {"x": x, "y": y})
            except ZeroDivisionError:
                continue
            assert evaluate(s, {periodic.q_name("x"): q, "y": y}) == v, (text, L, r, q, y)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(terms(nonliteral_divisors=False), st.data())
def test_the_period_removes_every_literal_division_over_the_symbol(text: str, data: st.DataObject) -> None:
    t = _term(text)
    L = periodic.periods([t]).get("x", 1) * data.draw(st.sampled_from([1, 2]))
    r = data.draw(st.integers(0, L - 1))
    s = periodic.substitute(t, _sub(L, r))
    q = periodic.q_name("x")
    for n in ir.iter_dag(s):
        if n.kind in ir.DIV_KINDS and n.args[1].kind == ir.CONST and n.args[1].value != 0:
            assert q not in _visible_symbols(n.args[0]), (text, L, s)


def _visible_symbols(t: ir.Term) -> set[str]:
    """Symbols of ``t`` outside divisions by non-literals or by 0 and outside ``Max``/``Min``/``ITE``
    (opaque atoms: the rules stop there, exact but not linear; a division by 0 is undefined and
    the parsers' ``!= 0`` conjunct makes it false)."""
    out: set[str] = set()
    todo = [t]
    seen: set[ir.Term] = set()
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        if n.kind == ir.SYM:
            out.add(n.value)
        elif n.kind not in (ir.MAX, ir.MIN, ir.ITE) and not (
                n.kind in ir.DIV_KINDS and (n.args[1].kind != ir.CONST or n.args[1].value == 0)):
            todo.extend(n.args)
    return out


@given(st.one_of(st.none(), st.integers(-20, 20)), st.one_of(st.none(), st.integers(-20, 20)), st.integers(1, 12))
def test_residues_are_a_bijection_of_the_range(lo: int | None, hi: int | None, L: int) -> None:
    window = range(-40, 41)
    inside = {s for s in window if (lo is None or s >= lo) and (hi is None or s <= hi)}
    mapped: list[int] = []
    for r, (qlo, qhi) in periodic._residues((lo, hi), L):
        assert 0 <= r < L
        for q in range(-50, 51):
            if (qlo is None or q >= qlo) and (qhi is None or q <= qhi) and L * q + r in window:
                mapped.append(L * q + r)
    assert sorted(mapped) == sorted(inside)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(terms(), st.sampled_from(["<=", ">", "==", "!="]), terms()), min_size=1, max_size=3),
       st.integers(-6, 3), st.integers(0, 14))
def test_cases_preserve_satisfiability(atoms: list[tuple[str, str, str]], lo: int, width: int) -> None:
    conds = [load_problem({"guards": [f"{a} {op} {b}"], "options": {"default_min": None}}).guards[0].term
             for a, op, b in atoms]
    ranges = {"x": (lo, lo + width), "y": (-2, 3)}
    split = periodic.plan(conds, ranges, 64)
    pts = [{"x": x, "y": y} for x in range(lo, lo + width + 1) for y in range(-2, 4)]
    truth = any(all(holds(c, p) for c in conds) for p in pts)
    found = False
    for case in periodic.cases(conds, ranges, split):
        split_syms = {sym for sym, _, _ in case.residues}
        axes = {n: range(lo_, hi_ + 1) for n, (lo_, hi_) in case.ranges.items()}  # type: ignore[operator]
        for name, (lo_, hi_) in ranges.items():
            if name not in split_syms:
                axes[name] = range(lo_, hi_ + 1)  # type: ignore[operator]
        for at in _product(axes):
            back = {n: v for n, v in at.items() if n in ranges}
            back.update(periodic.point_back(case, at))
            ok = all(holds(c, at) for c in case.conds)
            assert ok == all(holds(c, back) for c in conds), (atoms, case.residues, at)
            found = found or ok
    assert found == truth, (atoms, ranges, split)


def _product(qs: dict[str, range]) -> list[dict[str, int]]:
    out: list[dict[str, int]] = [{}]
    for name, rng in qs.items():
        out = [{**o, name: v} for o in out for v in rng]
    return out


def test_swin_chain_is_decided_per_residue() -> None:
    """``(k + Mod(k + 1, 2) + 1)//2 == (k + Mod(k + 1, 2))//2 + 1`` for ``k = x//4``: every case of
    ``x = 16q + r`` makes the negation False, so the guard is always true."""
    g = _term("Eq((((x//4) + Mod((x//4) + 1, 2) + 1)//2), (((x//4) + Mod((x//4) + 1, 2))//2) + 1)")
    goal = ir.mk_not(g)
    ranges = {"x": (2, None)}
    split = periodic.plan([goal], ranges, 64)
    assert split == [("x", 16)]
    assert all(c.conds == (ir.FALSE,) for c in periodic.cases([goal], ranges, split))


def test_a_long_period_is_split_by_its_largest_divisor_that_fits() -> None:
    """A 4-level chain of ``//4`` has period 256 > MAX_PERIOD: split by 64 instead (exact; the
    innermost three divisions vanish, the outer one stays)."""
    t = _term("((((x//4)//4)//4)//4) + Mod(x, 4) >= 1")
    assert periodic.periods([t]) == {"x": 256}
    split = periodic.plan([t], {"x": (0, None)}, 64)
    assert split == [("x", 64)]
    for case in periodic.cases([t], {"x": (0, None)}, split):
        (_, L, r), = case.residues
        for q in range(40):
            assert holds(case.conds[0], {periodic.q_name("x"): q}) == holds(t, {"x": L * q + r})
