"""A hand's position in and out: the observation (R5), the hidden part, the referee's view, the record, and
a position set up again (:func:`from_position`, R1 conservation).

Functions on a :class:`~paohuzi.engine.state.HandState`; :class:`~paohuzi.engine.Hand` calls them.
"""

from __future__ import annotations

from typing import Any, Final

from paohuzi.cards import COPIES, NUM_KINDS, Card
from paohuzi.engine import turns
from paohuzi.engine.claims import WAITING, ClaimWindow
from paohuzi.engine.deck import RNG_VERSION, seats_in_play
from paohuzi.engine.events import CARD_TEXT as _TEXT
from paohuzi.engine.events import jsonable
from paohuzi.engine.fair import FAIR_RNG_VERSION
from paohuzi.engine.observation import ChouKinds, Hidden, Observation, Pending, Phase, RowCard, row_card
from paohuzi.engine.records import HandRecord, format_version
from paohuzi.engine.seat import _WEI, SAME, sorted_cards
from paohuzi.engine.state import CARDS, CLAIM, LIANG, OVER, SELF, EngineError, HandState
from paohuzi.groups import Group, GroupKind
from paohuzi.rules import RuleSet


def record(st: HandState) -> HandRecord:
    """The hand, self-contained (``docs/engine.md`` §8). :raises EngineError: for a positioned hand."""
    if st.positioned:
        raise EngineError("a hand built from a position (Hand.from_position) has no deal to record")
    seeded = not st.stacked and st.seed is not None
    fair = st.fair if not st.stacked else None  # a verifiable deal (RNG version 2): its seeds, revealed
    family = st.rules.family
    return HandRecord(
        dealer=st.dealer,
        actions=tuple(st.action_texts()),
        seed=st.seed if seeded else None,
        rng_version=RNG_VERSION if seeded else FAIR_RNG_VERSION if fair is not None else None,
        fair=fair.to_dict() if fair is not None else None,
        rules=st.rules.to_dict(),
        dealt=dealt(st),
        double_cards=tuple(sorted(st.double_cards)),
        result=st.outcome.to_dict() if st.outcome is not None else None,
        format_version=format_version(family),
        # R9.1 黄番: a classic family's record never carries it (its records stay as they were)
        drawn_before=st.drawn_before if family != "classic" and st.drawn_before else None,
    )


def dealt(st: HandState) -> dict[str, Any]:
    """The dealt cards (R2), JSON-ready (see :meth:`~paohuzi.engine.Hand.dealt`)."""
    if st.positioned:
        raise EngineError("a hand built from a position (Hand.from_position) has no deal")
    hands: list[list[str]] = [[] for _ in range(st.table_size)]
    pos = 0
    for i, s in enumerate(st.seats):
        size = st.hand_cards + 1 if i == 0 else st.hand_cards  # 21/20 (R2), 15/14 (R9.3)
        hands[s] = [_TEXT[c] for c in st.deck[pos : pos + size]]
        pos += size
    return {"hands": hands, "stock": [_TEXT[c] for c in st.deck[pos:]]}


def hidden(st: HandState, seat: int) -> Hidden:
    """What ``seat``'s observation leaves out, as it truly is (referee information)."""
    st.check_seat(seat)
    shown = st.outcome is not None or st.rules.mingwei  # 明偎 (R9.3): no 偎 is hidden
    players = st.players
    return Hidden(
        hands=tuple(p.hand_cards() for p in players),
        wei=tuple(
            tuple(g.cards[0] for g in p.table if g.kind is _WEI and s != seat and not shown)
            for s, p in enumerate(players)
        ),
        stock=tuple(CARDS[c] for c in st.stock[st.spos :]),
        chou=tuple(
            ChouKinds(sorted_cards(p.no_chi), sorted_cards(p.no_peng), sorted_cards(p.renpeng)) for p in players
        ),
        discarded=tuple(sorted_cards(p.discarded) for p in players),
        decided=tuple(sorted(st.decided.items())),
        drawn=CARDS[st.card] if st.phase is SELF and st.card is not None else None,
    )


def observation(st: HandState, seat: int) -> Observation:
    """Everything ``seat`` may know now (R5)."""
    n = st.table_size
    if type(seat) is not int or not 0 <= seat < n:
        st.check_seat(seat)
    players = st.players
    outcome = st.outcome
    over = outcome is not None
    shown = over or st.rules.mingwei  # 明偎 (R9.3): every 偎 lies face up
    sizes: list[int] = []
    rows: list[tuple[RowCard, ...]] = []
    tables: list[tuple[Group | None, ...]] = []
    any_dead = False
    for s, p in enumerate(players):  # one pass over the seats: this runs at every step of the env and search
        sizes.append(p.size)
        rview = p.rview
        if len(p.row) != len(rview):  # rows only grow: the new cards after the cached ones
            rview = p.rview = rview + tuple([row_card(c, d) for c, d in p.row[len(rview) :]])
        rows.append(rview)
        # R5: a 偎's kind is hidden from the other seats while the hand is on; everything is shown once over
        tables.append(p.table_groups() if s == seat or shown else p.table_view())
        if p.dead:
            any_dead = True
    pending = None
    if st.phase is CLAIM and st.card is not None:
        key = (st.card, st.actor, st.drawn, st.last)
        pending = _PENDING.get(key)
        if pending is None:
            pending = _PENDING[key] = Pending(CARDS[st.card], st.actor, st.drawn, st.last)
    deciding = seat in st.deciding
    return Observation(
        st.rules.name,
        _options(st.rules),
        st.dealer,
        st.sitting_out,
        st.seats,
        CARDS[st.liang],
        len(st.stock) - st.spos,
        tuple(sizes),
        tuple(rows),
        tuple([s for s in st.seats if players[s].dead]) if any_dead else (),
        st.phase,
        st.actor,
        pending,
        outcome.to_dict() if outcome is not None else None,
        seat,
        players[seat].hand_cards(),
        tuple(tables),
        players[seat].chou_view(),
        deciding,
        tuple(st.legal[seat]) if deciding else (),
        tuple([p.hand_cards() for p in players]) if over else None,
        st.drawn_before,  # 0 for a classic family (Hand, Match): its observations stay as they were
    )


def referee_view(st: HandState) -> dict[str, Any]:
    """The whole state (R5 does not apply), JSON-ready (see :meth:`~paohuzi.engine.Hand.referee_view`)."""
    players = st.players
    pending = None
    if st.phase is CLAIM and st.card is not None:
        pending = {"card": _TEXT[st.card], "from": st.actor, "drawn": st.drawn, "last": st.last}
    return {
        "rules": st.rules.name,
        "options": _options(st.rules),
        "dealer": st.dealer,
        "sitting_out": st.sitting_out,
        "seats": list(st.seats),
        "liangzhang": _TEXT[st.liang],
        "stock": len(st.stock) - st.spos,
        "hand_counts": [p.size for p in players],
        "rows": [[{"card": _TEXT[c], "discarded": d} for c, d in p.row] for p in players],
        "dead": [s for s in st.seats if players[s].dead],
        "phase": st.phase.value,
        "turn": st.actor,
        "pending": pending,
        "outcome": st.outcome.to_dict() if st.outcome is not None else None,
        "hands": [[_TEXT[c] for c in p.hand_cards()] for p in players],
        "tables": [[jsonable(g) for g in p.table] for p in players],
        "stock_cards": [_TEXT[c] for c in st.stock[st.spos :]],
        "chou": [
            {
                "chi": [_TEXT[k] for k in sorted(p.no_chi)],
                "peng": [_TEXT[k] for k in sorted(p.no_peng)],
                "renpeng": [_TEXT[k] for k in sorted(p.renpeng)],
                "discarded": [_TEXT[k] for k in sorted(p.discarded)],
            }
            for p in players
        ],
        "deciding": list(st.deciding),
        "legal": {str(s): [str(a) for a in st.legal[s]] for s in st.deciding},
        "decided": {str(s): str(a) for s, a in st.decided.items()},
        "seed": st.seed,
        "actions": [[s, a] for s, a in st.action_texts()],
    }


# -- a position set up again (search worlds) -------------------------------------------------------------


def from_position(
    rules: object, observation: object, hidden: object, double_cards: frozenset[int], drawn_before: object = 0
) -> HandState:
    """The state of :meth:`~paohuzi.engine.Hand.from_position` (see there), its pending decision worked out.

    :raises EngineError: naming what does not fit.
    """
    obs, hid = _checked(rules, observation, hidden, double_cards)
    assert isinstance(rules, RuleSet)
    if isinstance(drawn_before, bool) or not isinstance(drawn_before, int) or drawn_before < 0:
        raise EngineError(f"drawn_before (荒庄 in a row, R9.1 黄番) must be a number ≥ 0, got {drawn_before!r}")
    st = HandState(rules, 0, obs.dealer, (), double_cards, ClaimWindow(), positioned=True)
    st.drawn_before = drawn_before
    for s, p in enumerate(st.players):
        cards = hid.hands[s]
        if len(cards) != obs.hand_counts[s]:
            raise EngineError(
                f"seat {s} holds {obs.hand_counts[s]} cards (hand_counts), hidden.hands[{s}] has {len(cards)}"
            )
        for c in cards:
            p.hand[c] += 1
        p.size = len(cards)
        weis = hid.wei[s]
        hidden_wei = sum(1 for g in obs.tables[s] if g is None)
        if len(weis) != hidden_wei:
            raise EngineError(f"seat {s} has {hidden_wei} hidden 偎, hidden.wei[{s}] names {len(weis)}")
        kinds = iter(weis)
        for g in obs.tables[s]:
            p.lay(SAME[_WEI][int(next(kinds))] if g is None else g)
        p.row = [(int(e.card), e.discarded) for e in obs.rows[s]]
        row_discards = {int(e.card) for e in obs.rows[s] if e.discarded}
        if hid.chou:
            ch = hid.chou[s]
            p.no_chi = {int(c) for c in ch.chi}
            p.no_peng = {int(c) for c in ch.peng}
            p.renpeng = {int(c) for c in ch.renpeng}
        else:  # R4.7: a kind discarded may never be 吃 or 碰 by its discarder
            p.no_chi, p.no_peng = set(row_discards), set(row_discards)
        p.discarded = {int(c) for c in hid.discarded[s]} if hid.discarded else row_discards
        p.dead = s in obs.dead
    own = st.players[obs.seat]
    own.no_chi = {int(c) for c in obs.chou.chi}
    own.no_peng = {int(c) for c in obs.chou.peng}
    own.renpeng = {int(c) for c in obs.chou.renpeng}
    if len(hid.stock) != obs.stock:
        raise EngineError(f"the stock has {obs.stock} cards, hidden.stock has {len(hid.stock)}")
    st.stock = [int(c) for c in hid.stock]
    st.liang = int(obs.liangzhang)
    st.actor = obs.turn
    _check_conservation(st, obs.pending.card if obs.pending is not None else None)
    _dihu_state(st, obs)
    _resume(st, obs, hid)
    return st


def _checked(
    rules: object, observation: object, hidden: object, doubles: frozenset[int]
) -> tuple[Observation, Hidden]:
    """:func:`from_position`'s checks of its arguments' shapes, each with its refusal."""
    if not isinstance(rules, RuleSet):
        raise EngineError(f"rules must be a RuleSet (see paohuzi.rules.find_preset), got {rules!r}")
    if not isinstance(observation, Observation):
        raise EngineError(f"observation must be an Observation, got {type(observation).__name__}")
    if not isinstance(hidden, Hidden):
        raise EngineError(f"hidden must be a Hidden, got {type(hidden).__name__}")
    obs = observation
    if obs.rules != rules.name:
        raise EngineError(f"the observation is of rule set {obs.rules!r}, not {rules.name!r}")
    if obs.phase is OVER:
        raise EngineError("the observation is of a hand that is over: there is no position to play from")
    n = rules.players_at_table
    if not (isinstance(obs.dealer, int) and 0 <= obs.dealer < n):
        raise EngineError(f"dealer must be a seat 0–{n - 1}, got {obs.dealer!r}")
    seats = seats_in_play(rules, obs.dealer)
    if tuple(obs.seats) != seats:
        raise EngineError(f"seats {list(obs.seats)} do not follow from dealer {obs.dealer} ({list(seats)})")
    sizes = {
        "observation hand_counts": len(obs.hand_counts),
        "observation tables": len(obs.tables),
        "observation rows": len(obs.rows),
        "hidden.hands": len(hidden.hands),
        "hidden.wei": len(hidden.wei),
    }
    if hidden.chou:
        sizes["hidden.chou"] = len(hidden.chou)
    if hidden.discarded:
        sizes["hidden.discarded"] = len(hidden.discarded)
    for name, size in sizes.items():
        if size != n:
            raise EngineError(f"{name} has {size} entries for a table of {n}")
    if not all(isinstance(s, int) and 0 <= s < n for s in doubles):
        raise EngineError(f"double_cards must be seats 0–{n - 1}, got {sorted(doubles)!r}")
    if sorted(hidden.hands[obs.seat]) != list(obs.hand):
        raise EngineError(f"hidden.hands[{obs.seat}] is not seat {obs.seat}'s observed hand")
    return obs, hidden


def _check_conservation(st: HandState, pending: Card | None) -> None:
    """R1: four copies of each kind among the hands, the tables, the rows, the card on offer, the stock."""
    where = {name: [0] * NUM_KINDS for name in ("hands", "tables", "rows", "on offer", "stock")}
    hands, tables, rows, stock = where["hands"], where["tables"], where["rows"], where["stock"]
    for p in st.players:
        for k in range(NUM_KINDS):
            hands[k] += p.hand[k]
        for g in p.table:
            for card in g.cards:
                tables[card] += 1
        for k, _ in p.row:
            rows[k] += 1
    if pending is not None:
        where["on offer"][pending] += 1
    for k in st.stock:
        stock[k] += 1
    total = [sum(counts[k] for counts in where.values()) for k in range(NUM_KINDS)]
    if total.count(COPIES) == NUM_KINDS:
        return
    wrong = []
    for k in range(NUM_KINDS):
        if total[k] != COPIES:
            parts = ", ".join(f"{name} {counts[k]}" for name, counts in where.items() if counts[k])
            wrong.append(f"{CARDS[k]} appears {total[k]} times, not {COPIES} ({parts or 'nowhere'})")
    raise EngineError("card conservation (R1): " + "; ".join(wrong))


def _dihu_state(st: HandState, obs: Observation) -> None:
    """R9.1 地胡 in a position set up again: a 吃, 碰 or 跑 was made if a table shows one; the card on offer
    is the first card if it is the first stock card drawn or the dealer's opening discard. (A 提 made
    from a 偎 cannot be told from a dealt one here, so 听胡 may be granted where the play had none.)"""
    st.claimed = any(g is not None and g.kind in _CLAIMED for p in obs.tables for g in p)
    dealt = st.hand_cards * len(st.seats) + 1  # 61 (R2), 57 or 43 (R9.3)
    drawn = NUM_KINDS * COPIES - dealt - len(st.stock)  # stock cards drawn so far, the one on offer included
    p = obs.pending
    if p is not None:
        st.first = drawn == 1 if p.drawn else p.from_seat == st.dealer and drawn == 0
    elif obs.phase is SELF:  # the drawn card was 提'd or 偎'd (R4.2.3)
        st.first = drawn == 1


_CLAIMED = (GroupKind.JU, GroupKind.JIAO, GroupKind.PENG, GroupKind.PAO)


def _resume(st: HandState, obs: Observation, hidden: Hidden) -> None:
    """Work out the decision pending in a position just set up, as the engine would have."""
    phase = obs.phase
    if phase is CLAIM:
        p = obs.pending
        if p is None:
            raise EngineError("phase claim but no card on offer (pending)")
        if p.from_seat not in st.seats:
            raise EngineError(f"the card on offer comes from seat {p.from_seat}, which does not play")
        turns.run(st, turns.offer(st, int(p.card), p.from_seat, p.drawn, p.last))
    elif phase is LIANG:
        if not turns.offer_liangzhang(st):
            turns.run(st, turns.after_take(st, st.dealer))
    elif phase is SELF:
        if hidden.drawn is None:
            raise EngineError("phase self_hu needs hidden.drawn: the card 提'd or 偎'd (R4.2.3)")
        turns.run(st, turns.offer_self_hu(st, obs.turn, int(hidden.drawn), st.spos == len(st.stock)))
    else:
        if obs.turn not in st.seats:
            raise EngineError(f"turn {obs.turn} is not a seat in play")
        turns.run(st, turns.after_take(st, obs.turn))
    if hidden.decided:
        _decided(st, phase, hidden)


def _decided(st: HandState, phase: Phase, hidden: Hidden) -> None:
    """The choices already made in the claim window of a position set up again (``hidden.decided``)."""
    if st.phase is not phase or phase not in (CLAIM, LIANG):
        raise EngineError(f"hidden.decided given, but no claim window is open ({st.phase.value})")
    for s, action in hidden.decided:
        if s not in st.deciding or action not in st.legal[s]:
            raise EngineError(f"hidden.decided: {action} is not a choice open to seat {s}")
        st.decided[s] = action
        st.deciding = tuple(x for x in st.deciding if x != s)
    if st.window.resolve(st) is not WAITING:
        raise EngineError("hidden.decided would already have closed the claim window (R4.4)")


# By id(rules) -> (rules, options): a RuleSet's hash is a Python-level call over every field, and the entry
# holds the rule set, so its id is not reused while it is cached.
_OPTIONS: Final[dict[int, tuple[RuleSet, dict[str, Any]]]] = {}
# The card on offer as observed, by (card, from, drawn, last): immutable, shared.
_PENDING: Final[dict[tuple[int, int, bool, bool], Pending]] = {}


def _options(rules: RuleSet) -> dict[str, Any]:
    """Every option of the rule set but its name (R8.1: every seat sees the house options), a fresh dict."""
    hit = _OPTIONS.get(id(rules))
    if hit is None or hit[0] is not rules:
        if len(_OPTIONS) >= 10_000:
            _OPTIONS.clear()
        hit = _OPTIONS[id(rules)] = (rules, {k: v for k, v in rules.to_dict().items() if k not in ("name", "title")})
    return dict(hit[1])
