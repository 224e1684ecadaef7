"""``rewrite`` preserves meaning: every rewritten term has the original's value at every point of
its ranges (and facts) where the original is defined, including negative values and divisors.

The grammar mixes the shapes PyTorch prints for windowed / patchified models (``x - Mod(x, 4)``,
``Mod(4 - Mod(x + 1, 4), 4)``, ``Max(1, …)``, products, ``(k*d)//d``) with negative divisors.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symguard.solver import load_problem
from symguard.solver.ir import terms as ir
from symguard.solver.ir.printer import to_text
from symguard.solver.ir.pyeval import evaluate, holds
from symguard.solver.reason import rewrite
from symguard.solver.reason.facts import facts_env

NAMES = ["x", "y", "z"]
DIVS = ["-4", "-3", "-2", "2", "3", "4", "8"]


def terms() -> st.SearchStrategy[str]:
    leaf = st.one_of(st.sampled_from(NAMES), st.integers(-5, 6).map(str))

    def extend(t: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        c = st.sampled_from(DIVS)
        return st.one_of(
            st.tuples(t, t).map(lambda p: f"({p[0]} + {p[1]})"),
            st.tuples(t, t).map(lambda p: f"({p[0]} - {p[1]})"),
            st.tuples(t, t).map(lambda p: f"({p[0]})*({p[1]})"),
            st.tuples(st.integers(-3, 16), t).map(lambda p: f"{p[0]}*({p[1]})"),
            st.tuples(t, c).map(lambda p: f"(({p[0]}) // {p[1]})"),
            st.tuples(t, c).map(lambda p: f"Mod({p[0]}, {p[1]})"),
            st.tuples(t, c).map(lambda p: f"(({p[0]}) - Mod({p[0]}, {p[1]}))"),
            st.tuples(t, c).map(lambda p: f"({p[1]}*(({p[0]}) // {p[1]}))"),
            st.tuples(t, c).map(lambda p: f"Mod({p[1]} - Mod({p[0]} + 1, {p[1]}), {p[1]})"),
            st.tuples(t, c).map(lambda p: f"(({p[0]}) + 1 + Mod({p[1]} - Mod({p[0]} + 1, {p[1]}), {p[1]}))"),
            st.tuples(t, t).map(lambda p: f"FloorDiv(({p[0]})*({p[1]}), {p[1]})"),
            st.tuples(t, t).map(lambda p: f"Mod({p[0]}, ({p[0]})*({p[1]}))"),
            st.tuples(t, t).map(lambda p: f"FloorDiv({p[0]}, {p[1]})"),
            # a factor shared by dividend and divisor (a reshape's numel // (k * width))
            st.tuples(t, t, st.integers(-3, 4)).map(lambda p: f"FloorDiv(({p[0]})*({p[1]}), {p[2]}*({p[0]}))"),
            st.tuples(t, t, t).map(lambda p: f"Mod(2*({p[0]})*({p[1]}), ({p[0]})*({p[2]}))"),
            st.tuples(t, t).map(lambda p: f"FloorDiv(4*({p[0]}) + 4, 6*({p[0]}) + 6 + 0*({p[1]}))"),
            # multiples of a symbolic divisor, small dividends of either sign (CeilDiv's -(-x//d))
            st.tuples(t, t, t).map(lambda p: f"FloorDiv(3*({p[0]})*({p[1]}) + {p[2]}, ({p[0]}))"),
            st.tuples(t, t, t).map(lambda p: f"Mod(({p[0]})*({p[1]}) - {p[2]}, -2*({p[0]}))"),
            st.tuples(t, st.integers(-3, 3)).map(lambda p: f"FloorDiv({p[1]}, ({p[0]}))"),
            st.tuples(t, st.integers(-3, 3)).map(lambda p: f"Mod({p[1]}, -({p[0]}))"),
            st.tuples(t, t).map(lambda p: f"Max(1, {p[0]}, {p[1]})"),
            st.tuples(t, t).map(lambda p: f"Min({p[0]}, {p[1]})"),
        )

    return st.recursive(leaf, extend, max_leaves=5)


def conds() -> st.SearchStrategy[str]:
    rel = st.sampled_from(["<", "<=", ">", ">=", "==", "!="])
    atom = st.tuples(terms(), rel, terms()).map(lambda p: f"{p[0]} {p[1]} {p[2]}")
    return st.one_of(atom, atom, st.tuples(atom, atom).map(lambda p: f"({p[0]}) | ({p[1]})"))


boxes = st.tuples(*[st.tuples(st.integers(-9, 4), st.integers(0, 9)) for _ in NAMES])


def _points(box: tuple[tuple[int, int], ...]) -> list[dict[str, int]]:
    (xl, xw), (yl, yw), (zl, zw) = box
    return [{"x": x, "y": y, "z": z} for x in range(xl, xl + xw + 1) for y in range(yl, yl + yw + 1)
            for z in range(zl, zl + zw + 1, max(1, zw // 3))]


def _ranges(box: tuple[tuple[int, int], ...], open_ends: list[bool]) -> dict[str, tuple[int | None, int | None]]:
    return {n: ((lo, lo + w) if not o else (lo, None)) for n, (lo, w), o in zip(NAMES, box, open_ends)}


def _cond(text: str) -> ir.Term:
    return load_problem({"guards": [text], "options": {"default_min": None}}).guards[0].term


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(terms(), boxes, st.lists(st.booleans(), min_size=3, max_size=3))
def test_integer_terms_keep_their_value(text: str, box: tuple[tuple[int, int], ...], open_ends: list[bool]) -> None:
    t = load_problem({"queries": [text], "options": {"default_min": None}}).queries[0].term
    rw = rewrite.Rewriter(rewrite.Env(_ranges(box, open_ends)))
    r = rw.rewrite(t)
    for pt in _points(box):
        try:
            v = evaluate(t, pt)
        except ZeroDivisionError:
            continue
        assert evaluate(r, pt) == v, (text, ir.Term.__repr__(r), pt)
        lo, hi = rw.interval(r)
        assert (lo is None or lo <= v) and (hi is None or v <= hi), (text, pt, v, lo, hi)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conds(), boxes, st.lists(st.booleans(), min_size=3, max_size=3))
def test_conditions_keep_their_truth(text: str, box: tuple[tuple[int, int], ...], open_ends: list[bool]) -> None:
    c = _cond(text)
    r = rewrite.Rewriter(rewrite.Env(_ranges(box, open_ends))).rewrite(c)
    for pt in _points(box):
        assert holds(r, pt) == holds(c, pt), (text, r, pt)


# facts PyTorch asserts about divisibility (`Eq(Mod(s, 8), 0)`): the rewriter carries them into products
divisibility = st.tuples(st.sampled_from(NAMES), st.sampled_from(["2", "3", "4", "-4", "8"])).map(
    lambda p: f"Eq(Mod({p[0]}, {p[1]}), 0)")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conds(), st.lists(st.one_of(conds(), divisibility), min_size=1, max_size=3), boxes)
def test_rewriting_under_facts_is_exact_where_the_facts_hold(text: str, facts: list[str],
                                                             box: tuple[tuple[int, int], ...]) -> None:
    ranges = _ranges(box, [False] * 3)
    base = rewrite.Rewriter(rewrite.Env(dict(ranges)))
    fs = [_cond(f) for f in facts]
    env = facts_env(ranges, [(base.rewrite(f), k) for k, f in enumerate(fs)])
    c = _cond(text)
    rw = rewrite.Rewriter(env)
    r = rw.rewrite(base.rewrite(c))
    assert rw.used <= set(range(len(fs)))
    for pt in _points(box):
        if all(holds(f, pt) for f in fs):
            assert holds(r, pt) == holds(c, pt), (text, facts, r, pt)


def test_swin_shapes_canonicalize() -> None:
    env = rewrite.Env({"s": (2, None), "t": (2, None)})
    rw = rewrite.Rewriter(env)
    a = _cond("Eq(s - Mod(s, 4), 4*(s//4))")
    assert rw.rewrite(a) is ir.TRUE
    x = "((s - Mod(s, 4))//4 + Mod(4 - Mod((s - Mod(s, 4))//4 + 1, 4), 4) + 1)"
    assert rw.rewrite(_cond(f"Eq(({x})//(({x})//4), 4)")) is ir.TRUE
    assert rw.rewrite(_cond(f"Eq(Mod({x}, ({x})//4), 0)")) is ir.TRUE
    assert rw.rewrite(_cond("Eq(Max(1, (s - Mod(s, 4))//4 + 1), (s - Mod(s, 4))//4 + 1)")) is ir.TRUE
    assert rw.rewrite(_cond("Ne(Mod(s, 4), 0)")) is not ir.TRUE  # depends on s


def test_facts_report_their_sources() -> None:
    ranges = {"s": (2, None), "t": (2, None)}
    env = facts_env(ranges, [(_cond("t >= 5"), 7), (_cond("Eq(s, 3)"), 9)])
    rw = rewrite.Rewriter(env)
    assert rw.rewrite(_cond("t*s > 14")) is ir.TRUE
    assert rw.used == {7, 9}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conds(), st.lists(conds(), min_size=1, max_size=4), boxes, st.data())
def test_banned_sources_are_not_used(text: str, facts: list[str], box: tuple[tuple[int, int], ...],
                                     data: st.DataObject) -> None:
    ranges = _ranges(box, [False] * 3)
    base = rewrite.Rewriter(rewrite.Env(dict(ranges)))
    fs = [_cond(f) for f in facts]
    env = facts_env(ranges, [(base.rewrite(f), k) for k, f in enumerate(fs)])
    banned = data.draw(st.sets(st.integers(0, len(fs) - 1)))
    rw = rewrite.Rewriter(env, banned=banned)
    c = _cond(text)
    r = rw.rewrite(base.rewrite(c))
    assert not rw.used & banned
    allowed = [f for k, f in enumerate(fs) if k not in banned]
    for pt in _points(box):
        if all(holds(f, pt) for f in allowed):
            assert holds(r, pt) == holds(c, pt), (text, facts, banned, r, pt)
        if r is ir.TRUE and all(holds(fs[k], pt) for k in rw.used):
            assert holds(c, pt), ("the facts used are a sufficient reason", text, facts, rw.used, pt)


def test_divisibility_facts_make_products_multiples() -> None:
    env = facts_env({"s": (2, None), "t": (2, None)}, [(_cond("Eq(Mod(s, 8), 0)"), 3)])
    rw = rewrite.Rewriter(env)
    assert rw.rewrite(_cond("Eq(Mod(s*t, 4), 0)")) is ir.TRUE
    assert rw.rewrite(_cond("Eq(Mod(3*s*t + 16*t, 8), 0)")) is ir.TRUE
    assert rw.used == {3}
    assert rw.rewrite(_cond("Eq(Mod(s*t, 16), 0)")) is not ir.TRUE  # 8 | s says nothing more



# products of positive factors: ``f*Q == 0`` is ``Q == 0`` and ``f*Q <= 0`` is ``Q <= 0`` where f >= 1
positive = st.sampled_from(["Max(1, x)", "(x*x + 1)", "(Mod(y, 4) + 1)", "(x//4 + 1)", "y"])


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positive, terms(), terms(), st.sampled_from(["==", "!=", "<=", ">", "<", ">="]), st.integers(-3, 3))
def test_positive_factors_cancel_exactly(f: str, a: str, b: str, rel: str, k: int) -> None:
    text = f"({f})*({a}) + {k}*({f}) {rel} ({f})*({b})"
    c = _cond(text)
    ranges = {"x": (-3, 6), "y": (1, 7), "z": (-2, 2)}
    r = rewrite.Rewriter(rewrite.Env(dict(ranges))).rewrite(c)
    for pt in _points(((-3, 9), (1, 6), (-2, 4))):
        assert holds(r, pt) == holds(c, pt), (text, r, pt)


def test_product_with_a_positive_factor_loses_it() -> None:
    env = rewrite.Env({"a": (1, None), "b": (2, None)})
    rw = rewrite.Rewriter(env)
    assert rw.rewrite(_cond("Ne(a*b, a)")) is ir.TRUE  # a*(b - 1) != 0 with a >= 1, b >= 2
    assert rw.rewrite(_cond("a*b >= 2*a")) is ir.TRUE
    r = rw.rewrite(_cond("Ne(((a//4) + 1)*((b//4) + 1), (a//4) + 1)"))
    assert r == rw.rewrite(_cond("Ne(b//4, 0)")), r


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["(x//4)", "x", "Mod(x, 3)", "(x - 2)"]), terms(), st.sampled_from(["==", "!="]),
       st.integers(-2, 2))
def test_a_product_that_may_vanish_splits_exactly(f: str, a: str, rel: str, k: int) -> None:
    """``f*Q == 0`` iff ``f == 0`` or ``Q == 0`` (integers), taken when one side is decided."""
    text = f"({f})*({a}) + {k}*({f}) {rel} 0"
    c = _cond(text)
    ranges = {"x": (0, 9), "y": (1, 7), "z": (-2, 2)}
    r = rewrite.Rewriter(rewrite.Env(dict(ranges))).rewrite(c)
    for pt in _points(((0, 9), (1, 6), (-2, 4))):
        assert holds(r, pt) == holds(c, pt), (text, r, pt)


def test_ne_of_a_product_and_its_factor_is_the_factor_nonzero() -> None:
    rw = rewrite.Rewriter(rewrite.Env({"a": (2, None), "b": (2, None)}))
    assert rw.rewrite(_cond("Ne((a//4)*(b//4 + 2), a//4)")) == rw.rewrite(_cond("Ne(a//4, 0)"))


def test_shared_factors_of_dividend_and_divisor_cancel() -> None:
    """FocalNet's ``(w*w)//(2*w)`` with ``w = s//4`` is ``s//8``: once the shared ``w`` cancels, the
    nested floor of literals folds, and z3 sees no non-linear division."""
    rw = rewrite.Rewriter(rewrite.Env({"s": (2, None), "t": (2, None)}))

    def q(text: str) -> ir.Term:
        return rw.rewrite(load_problem({"queries": [text]}).queries[0].term)

    assert q("((s//4)*(s//4))//(2*(s//4))") is q("s//8")
    assert q("((s//4)*(s//4))//(4*(s//4))") is q("s//16")
    assert q("Mod((s//4)*(s//4), 2*(s//4))") is q("(s//4)*Mod(s//4, 2)")
    assert q("(6*s*t + 3*s)//(3*s*t)") is q("(2*t + 1)//t")
    assert q("(2*s + 2)//(4*s + 4)") is ir.ZERO
    assert q("(s*t)//(t*s*s)") is q("1//s")


def test_small_dividends_and_symbolic_multiples_leave_the_floor() -> None:
    """CeilDiv spelled ``-((-x)//d)`` and sizes divided by sizes: exact for either sign."""
    rw = rewrite.Rewriter(rewrite.Env({"s": (2, None), "t": (16, None)}))

    def q(text: str) -> ir.Term:
        return rw.rewrite(load_problem({"queries": [text]}).queries[0].term)

    def c(text: str) -> ir.Term:
        return rw.rewrite(_cond(text))

    assert q("(-1)//s") is q("-1") and q("Mod(-1, s)") is q("s - 1")
    assert q("Mod(-1, -s)") is q("-1") and q("1//(-s)") is q("-1") and q("Mod(1, -s)") is q("1 - s")
    assert q("(-6*((-s)//4) - 1)//(-2*((-s)//4))") is q("2")
    assert q("Mod(3*s*t + 1, s)") is q("1")
    assert c("Ne(s*(t//4 - 1), 1)") is ir.TRUE  # a product with a factor >= 2 is never 1
    assert c("Eq(s*t - 32, 0)") is not ir.FALSE  # s = 2, t = 16: a point
    assert c("Eq(s*t - 15, 0)") is ir.FALSE  # t >= 16 cannot divide 15


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(terms(), terms(), terms(), st.integers(-6, 6), boxes)
def test_common_factor_is_a_polynomial_identity(g: str, a: str, b: str, k: int,
                                                box: tuple[tuple[int, int], ...]) -> None:
    """``common_factor(x, y) = (f, x', y')``: ``x = f*x'`` and ``y = f*y'`` at every point, so
    ``x/y = x'/y'`` wherever ``y != 0`` (the cancellation ``rewrite`` takes)."""
    from symguard.solver.reason.polynomials import common_factor

    def q(text: str) -> ir.Term:
        return load_problem({"queries": [text], "options": {"default_min": None}}).queries[0].term

    x, y = q(f"{k}*({g})*({a})"), q(f"({g})*({b})")
    got = common_factor(x, y)
    if got is None:
        return
    f, x1, y1 = got
    for pt in _points(box):
        try:
            vx, vy = evaluate(x, pt), evaluate(y, pt)
        except ZeroDivisionError:
            continue
        assert evaluate(ir.mk_mul(f, x1), pt) == vx and evaluate(ir.mk_mul(f, y1), pt) == vy, (g, a, b, k, pt)
        if vy:
            assert vx // vy == evaluate(x1, pt) // evaluate(y1, pt)


def _best_spelling_by_construction(coefs: dict[ir.Term, int], const: int, m: ir.Term
                                   ) -> tuple[dict[ir.Term, int], int] | None:
    """``polynomials._best_spelling`` as it read before it counted monomials without building the
    quotient and remainder (``mk_floordiv``/``mk_mod`` first, then each candidate sum as a dict)."""
    x, cb = m.args
    c = cb.value
    q, r = ir.mk_floordiv(x, cb), ir.mk_mod(x, cb)
    if q.kind != ir.FLOORDIV or r.kind != ir.MOD:
        return None
    xc, xk = ir.linear(x)
    if not xc:
        return None
    m0 = next(iter(xc))
    alpha = coefs.get(m0, 0) // xc[m0] if coefs.get(m0, 0) % xc[m0] == 0 else 0
    if alpha and any(coefs.get(y, 0) != alpha * w for y, w in xc.items()):
        alpha = 0
    beta, gamma = coefs.get(q, 0), coefs.get(r, 0)
    ts = {gamma, -alpha}
    if beta % c == 0:
        ts.add(beta // c)
    best: tuple[int, int, dict[ir.Term, int], int] | None = None
    base = sum(1 for v in coefs.values() if v)
    for t in sorted(ts):
        if t == 0:
            continue
        new = dict(coefs)
        for y, w in xc.items():
            new[y] = new.get(y, 0) + t * w
        new[q] = new.get(q, 0) - t * c
        new[r] = new.get(r, 0) - t
        new = {y: w for y, w in new.items() if w}
        if len(new) < base and (best is None or len(new) < best[0]):
            best = (len(new), t, new, const + t * xk)
    return None if best is None else (best[2], best[3])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(terms(), terms(), st.sampled_from(DIVS), st.integers(-3, 3), st.integers(-3, 3), st.integers(-3, 3))
def test_fold_add_chooses_as_by_construction(a: str, b: str, d: str, k1: int, k2: int, k3: int) -> None:
    """``fold_add`` counts a candidate spelling's monomials before building its quotient and
    remainder: the same choice as building them, on sums of ``x``, ``x//c``, ``Mod(x, c)`` and more."""
    from symguard.solver.reason.polynomials import _best_spelling

    text = f"{k1}*({a}) + {k2}*(({a}) // {d}) + {k3}*Mod({a}, {d}) + ({b})"
    t = load_problem({"queries": [text], "options": {"default_min": None}}).queries[0].term
    coefs, const = ir.linear(t)
    for m in [m for m in coefs if m.kind in (ir.MOD, ir.FLOORDIV) and m.args[1].kind == ir.CONST
              and m.args[1].value != 0]:
        assert _best_spelling(coefs, const, m) == _best_spelling_by_construction(coefs, const, m), text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(conds(), min_size=1, max_size=4), conds())
def test_a_negation_is_looked_up_as_an_atom_only_when_it_can_be_one(facts: list[str], text: str) -> None:
    """``Rewriter._negation_atom`` answers None only for a condition whose negation is no atom of
    the facts (it does not build it), else the negation itself: the same lookups as ``mk_not``'s."""
    env = facts_env({n: (None, None) for n in NAMES}, [(_cond(f), None) for f in facts])
    rw = rewrite.Rewriter(env)
    atoms = list(env.atoms)
    for r in [*atoms, *(ir.mk_not(a) for a in atoms), *ir.iter_dag(_cond(text))]:
        if not r.is_bool:
            continue
        got = rw._negation_atom(r)
        if got is None:
            assert ir.mk_not(r) not in env.atoms, to_text(r)
        else:
            assert got is ir.mk_not(r), to_text(r)
