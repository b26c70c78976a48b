"""The independent rule-book oracle (R4.2–R4.7, R6.1) used by test_r4_r6_1_oracle_crosscheck.py (no tests here):
what each seat may legally do now, computed from the cards as the hand's events tell them (:class:`Cards`)
and a 臭 record this module keeps itself (not the engine's state), and a recursive R6.1 completeness test
sharing no code with the analysis. :class:`CheckedPlay` plays a hand through its public API and checks
every claim window, discard and forced 提/偎 the events show against the oracle.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from itertools import combinations_with_replacement

from paohuzi import analysis
from paohuzi.analysis import Source
from paohuzi.cards import NUM_KINDS, Card
from paohuzi.engine import Action, ActionKind, Hand
from paohuzi.engine import events as ev
from paohuzi.groups import Group, GroupKind

HU, PASS, PENG = "hu", "pass", "peng"


def _valid(cards: tuple[int, ...]) -> bool:
    """R3: a 句 (consecutive points or 二七十, one case) or a 绞 (one point, both cases, 2 + 1)."""
    a, b, c = sorted(cards)
    cases = {x // 10 for x in (a, b, c)}
    points = sorted(x % 10 + 1 for x in (a, b, c))
    if len(cases) == 1:
        return points in ([points[0], points[0] + 1, points[0] + 2], [2, 7, 10])
    return len({p for p in points}) == 1 and len(set((a, b, c))) == 2


def chi_options(counts: list[int], c: int, owes_after: bool) -> set[tuple]:
    """Every (two hand cards, 比 groups) way to 吃 ``c`` (R4.3, R4.5, R4.6), by brute force."""
    avail = [n if n < 3 else 0 for n in counts]
    kinds = [k for k in range(NUM_KINDS) if avail[k]]
    out: set[tuple] = set()
    for a, b in combinations_with_replacement(kinds, 2):
        if a == b and avail[a] < 2:
            continue
        if not _valid((c, a, b)):
            continue
        left = avail[:]
        left[a] -= 1
        left[b] -= 1
        for bis in _bi(left, c):
            rest = left[:]
            for g in bis:
                for x in g:
                    rest[x] -= 1
            assert rest[c] == 0
            if owes_after and not any(0 < n < 3 for n in rest):
                continue
            out.add(((a, b), tuple(sorted(bis))))
    return out


def _bi(left: list[int], c: int) -> list[list[tuple[int, ...]]]:
    """All multisets of valid groups, each holding at least one c, that use up every c in ``left``."""
    if left[c] == 0:
        return [[]]
    results: list[list[tuple[int, ...]]] = []
    kinds = [k for k in range(NUM_KINDS) if left[k]]
    seen = set()
    # take one c, two other hand cards (may include another c)
    for x, y in combinations_with_replacement(kinds, 2):
        need = {}
        for k in (c, x, y):
            need[k] = need.get(k, 0) + 1
        if any(left[k] < n for k, n in need.items()):
            continue
        g = tuple(sorted((c, x, y)))
        if not _valid(g):
            continue
        nxt = left[:]
        for k in g:
            nxt[k] -= 1
        for rest in _bi(nxt, c):
            key = tuple(sorted([g, *rest]))
            if key not in seen:
                seen.add(key)
                results.append(list(key))
    return results


def norm(action: Action) -> object:
    if action.kind is ActionKind.CHI:
        bi = tuple(sorted(tuple(sorted(int(x) for x in g)) for g in action.bi))
        return ("chi", tuple(sorted(int(x) for x in action.cards)), bi)
    if action.kind is ActionKind.DISCARD:
        return ("discard", int(action.card))  # type: ignore[arg-type]
    return action.kind.value


@dataclass
class Chou:
    no_chi: list[set[int]] = field(default_factory=lambda: [set() for _ in range(4)])
    no_peng: list[set[int]] = field(default_factory=lambda: [set() for _ in range(4)])
    renpeng: list[set[int]] = field(default_factory=lambda: [set() for _ in range(4)])


class Cards:
    """Every seat's hand and table as the events tell them (R4.1–R4.5), kept apart from the engine's state."""

    def __init__(self, table_size: int) -> None:
        self.held = [[0] * NUM_KINDS for _ in range(table_size)]
        self.groups: list[list[Group]] = [[] for _ in range(table_size)]

    def hand_cards(self, s: int) -> tuple[Card, ...]:
        return tuple(Card(k) for k in range(NUM_KINDS) for _ in range(self.held[s][k]))

    def _lay(self, s: int, kind: GroupKind, c: int, taken: int) -> None:
        self.held[s][c] -= taken
        self.groups[s].append(Group(kind, (Card(c),) * kind.size))

    def _grow(self, s: int, c: int, into: GroupKind) -> None:
        """A 偎/臭偎/碰 of c on the table takes the fourth card."""
        i = next(i for i, g in enumerate(self.groups[s]) if g.kind.size == 3 and int(g.cards[0]) == c)
        self.groups[s][i] = Group(into, (Card(c),) * 4)

    def follow(self, e: ev.Event) -> None:
        """Move the cards as the event says."""
        if isinstance(e, ev.Deal):
            for s, cards in enumerate(e.hands):
                for c in cards:
                    self.held[s][int(c)] += 1
        elif isinstance(e, (ev.Ti, ev.Pao)):
            kind = GroupKind.TI if isinstance(e, ev.Ti) else GroupKind.PAO
            s, c = e.seat, int(e.card)
            if e.origin in ("dealt", "kan"):
                self._lay(s, kind, c, 4 if e.origin == "dealt" else 3)
            else:
                self._grow(s, c, kind)
        elif isinstance(e, ev.Wei):
            self._lay(e.seat, GroupKind.CHOUWEI if e.chou else GroupKind.WEI, int(e.card), 2)
        elif isinstance(e, ev.Peng):
            self._lay(e.seat, GroupKind.PENG, int(e.card), 2)
        elif isinstance(e, ev.Chi):
            taken = [int(c) for c in e.group.cards]
            taken.remove(int(e.card))  # the card eaten came from outside the hand
            taken += [int(c) for g in e.bi for c in g.cards]
            for c in taken:
                self.held[e.seat][c] -= 1
            self.groups[e.seat] += [e.group, *e.bi]
        elif isinstance(e, ev.Discard):
            self.held[e.seat][int(e.card)] -= 1


class Oracle:
    def __init__(self, hand: Hand, cards: Cards, r61: bool = False) -> None:
        self.hand = hand  # for its rules and seats only: the cards come from ``cards``
        self.cards = cards
        self.r61 = r61
        self.chou = Chou()
        self.dead: set[int] = set()
        self.mismatch: list[str] = []
        self.nxt = {s: hand.seats[(i + 1) % len(hand.seats)] for i, s in enumerate(hand.seats)}

    # -- state as the rule book sees it -------------------------------------------------------
    def counts(self, s: int) -> list[int]:
        return self.cards.held[s][:]

    def hand_of(self, s: int) -> tuple[Card, ...]:
        return self.cards.hand_cards(s)

    def table(self, s: int) -> tuple[Group, ...]:
        return tuple(self.cards.groups[s])

    def owes_after_gain(self, s: int, gain: int) -> bool:
        """R4.6 after a take that adds ``gain`` cards to hand + table (n = 提 + 跑 unchanged)."""
        n = sum(1 for g in self.table(s) if g.kind in (GroupKind.TI, GroupKind.PAO))
        size = len(self.hand_of(s)) + sum(len(g.cards) for g in self.table(s))
        return size + gain > 20 + max(0, n - 1)

    def claim_options(self, c: int, src: int, drawn: bool) -> tuple[dict[int, set], list[tuple[str, int]]]:
        """Per seat, its options (normalised) on card c from src; and the claims in priority order."""
        rules = self.hand.rules
        seats = self.hand.seats
        opts: dict[int, set] = {}
        claims: list[tuple[str, int]] = []
        if drawn or rules.win_on_discard:
            s1 = self.nxt[src]
            order = (src, s1, self.nxt[s1]) if drawn else (s1, self.nxt[s1])
            for s in order:
                if s in self.dead:
                    continue
                source = Source.SELF if s == src else (Source.OTHER if drawn else Source.DISCARD)
                got = analysis.is_complete(
                    self.hand_of(s), self.table(s), Card(c), source, min_huxi=rules.min_huxi
                )
                want = got
                if self.r61:
                    want = complete_oracle(
                        [int(x) for x in self.hand_of(s)], self.table(s), c, source, rules.min_huxi
                    )
                if got != want:
                    self.mismatch.append(
                        f"R6.1 analysis {got} oracle {want}: {[str(x) for x in self.hand_of(s)]} "
                        f"{[str(g) for g in self.table(s)]} {Card(c)} {source}"
                    )
                if want:
                    opts.setdefault(s, set()).add(HU)
                    claims.append((HU, s))
        pao = None
        for s in seats:
            kinds = {(g.kind, int(g.cards[0])) for g in self.table(s)}
            if s != src and (self.counts(s)[c] == 3 or (GroupKind.WEI, c) in kinds or (GroupKind.CHOUWEI, c) in kinds):
                pao = s
            if drawn and (GroupKind.PENG, c) in kinds:
                pao = s
        if pao is not None:
            claims.append(("pao", pao))
            return opts, claims
        for s in seats:
            if s == src or s in self.dead:
                continue
            h = self.counts(s)
            if h[c] == 2 and c not in self.chou.no_peng[s]:
                loose_after = sum(n for n in h if n < 3) - 2
                if not self.owes_after_gain(s, 1) or loose_after > 0:
                    opts.setdefault(s, set()).add(PENG)
                    claims.append((PENG, s))
        for s in (src, self.nxt[src]) if drawn else (self.nxt[src],):
            if s in self.dead or c in self.chou.no_chi[s]:
                continue
            ways = chi_options(self.counts(s), c, self.owes_after_gain(s, 1))
            if ways:
                opts.setdefault(s, set()).update(("chi", ab, bi) for ab, bi in ways)
                claims.append(("chi", s))
        return opts, claims

    def mark(
        self, c: int, claims: list[tuple[str, int]], chosen: dict[int, object], winner: tuple[str, int] | None
    ) -> None:
        """R4.7 after a claim window: declined 吃/碰 are 臭 unless a claim with priority took the card."""
        rank = {HU: 0, "pao": 1, PENG: 2, "chi": 3}
        blocks = self.hand.rules.chou_blocks_peng
        for t, s in claims:
            if t in (HU, "pao"):
                continue
            if winner is not None:
                wt, ws = winner
                if ws == s and not (t == PENG and wt == "chi"):
                    continue  # took the card (a 碰 it answered with 吃 is still declined, R4.7)
                # lost to priority: a higher claim type, or an earlier 吃 (the drawer's before the 下家's)
                if rank[wt] < rank[t] or (
                    wt == t == "chi" and (wt, ws) in claims and claims.index((wt, ws)) < claims.index((t, s))
                ):
                    continue
            if t == "chi":
                self.chou.no_chi[s].add(c)
            else:
                self.chou.renpeng[s].add(c)  # R4.7: a 碰 answered with 吃 or 过 is 忍碰
            if blocks:
                self.chou.no_peng[s].add(c)

    def discarded(self, s: int, c: int) -> None:
        self.chou.no_chi[s].add(c)
        self.chou.no_peng[s].add(c)


_CLOSING = (ev.Pao, ev.Peng, ev.Chi, ev.Unclaimed, ev.Hu)  # the events that close a claim window
_WINNER = {ev.Pao: "pao", ev.Peng: PENG, ev.Chi: "chi", ev.Hu: HU}


@dataclass
class Window:
    """A claim window the events opened: the card, its seat, the oracle's options and claims."""

    c: int
    src: int
    opts: dict[int, set]
    claims: list[tuple[str, int]]
    asked: bool = False


class CheckedPlay:
    """A hand played through its public API; every step's events are checked against the oracle: each claim
    window as it opens (the seats asked and their options, or none when it closes unasked) and closes (臭,
    R4.7), each shown card (R4.2), each forced 提/偎 (R4.2.3) and each discard asked (R4.6)."""

    def __init__(self, rules, seed: int, r61: bool = False) -> None:  # type: ignore[no-untyped-def]
        self.hand = Hand(rules, seed)
        self.cards = Cards(self.hand.table_size)
        self.oracle = Oracle(self.hand, self.cards, r61)
        self.problems: list[str] = []
        self.window: Window | None = None
        self.chosen: dict[int, object] = {}
        self._follow(self.hand.events)

    def apply(self, seat: int, action: Action) -> None:
        self._follow(self.hand.apply(seat, action))

    def _follow(self, events: list[ev.Event]) -> None:
        """Check one step's events in order, then the decision the step left open."""
        for i, e in enumerate(events):
            window = self.window
            if window is not None and isinstance(e, _CLOSING):
                self._close(window, e)
            if isinstance(e, ev.Show):
                self._check_show(e)
            self.cards.follow(e)
            if isinstance(e, ev.Discard):
                self.oracle.discarded(e.seat, int(e.card))
            elif isinstance(e, ev.Dead):
                self.oracle.dead.add(e.seat)
            if isinstance(e, (ev.Show, ev.Discard)):
                self._open(int(e.card), e.seat, isinstance(e, ev.Show))
            elif isinstance(e, (ev.Ti, ev.Wei)) and getattr(e, "origin", "") != "dealt":
                self._check_forced(e.seat, events[i + 1 :])
        window = self.window
        if window is not None and not window.asked:
            window.asked = True
            self._compare(window.opts)
        self._compare_chou()

    def _open(self, c: int, src: int, drawn: bool) -> None:
        opts, claims = self.oracle.claim_options(c, src, drawn)
        self.problems.extend(self.oracle.mismatch)
        self.oracle.mismatch.clear()
        self.window = Window(c, src, opts, claims)
        self.chosen = {}

    def _close(self, window: Window, e: ev.Event) -> None:
        self.window = None
        if not window.asked and window.opts:
            self.problems.append(
                f"window on {Card(window.c)} from {window.src} closed unasked, oracle options {window.opts}"
            )
        winner = None if isinstance(e, ev.Unclaimed) else (_WINNER[type(e)], e.seat)  # type: ignore[attr-defined]
        self.oracle.mark(window.c, window.claims, self.chosen, winner)

    def _check_show(self, e: ev.Show) -> None:
        s, c = e.seat, int(e.card)
        wei = any(g.kind in (GroupKind.WEI, GroupKind.CHOUWEI) and int(g.cards[0]) == c for g in self.cards.groups[s])
        if self.cards.held[s][c] >= 2 or wei:
            self.problems.append(f"R4.2: seat {s} shows {Card(c)} though it must 提/偎 it")

    def _check_forced(self, s: int, after: list[ev.Event]) -> None:
        """R4.2.3: a drawer complete after a forced 提/偎 is asked (the step ends there, in ``self_hu``) or
        wins at once (有胡必胡)."""
        if s in self.oracle.dead or not analysis.is_complete(
            self.oracle.hand_of(s), self.oracle.table(s), min_huxi=self.hand.rules.min_huxi
        ):
            return
        asked = not after and self.hand.phase == "self_hu"
        if not asked and not (after and isinstance(after[0], ev.Hu)):
            self.problems.append(f"R4.2.3: seat {s} complete after a forced 提/偎 but not asked")

    def _compare(self, opts: dict[int, set]) -> None:
        hand = self.hand
        if set(hand.deciding) != set(opts):
            self.problems.append(f"deciding {hand.deciding} != oracle {sorted(opts)}: {opts}")
            return
        for s, o in opts.items():
            got = {norm(a) for a in hand.legal_actions(s)}
            want = o | {PASS}
            if got != want:
                self.problems.append(
                    f"seat {s}: engine-only {got - want}, oracle-only {want - got}; "
                    f"hand {[str(x) for x in self.oracle.hand_of(s)]}"
                )

    def _compare_chou(self) -> None:
        """R4.7: the engine's 臭 kinds (referee information) are the oracle's, after every step."""
        ch = self.oracle.chou
        engine = self.hand.hidden(self.hand.seats[0]).chou
        for s in self.hand.seats:
            got = tuple({int(c) for c in kinds} for kinds in (engine[s].chi, engine[s].peng, engine[s].renpeng))
            want = (ch.no_chi[s], ch.no_peng[s], ch.renpeng[s])
            if got != want:
                self.problems.append(f"R4.7 seat {s} (chosen {self.chosen}): engine {got} oracle {want}")
                ch.no_chi[s], ch.no_peng[s], ch.renpeng[s] = got  # follow the engine: report once

    def check_decision(self) -> None:
        """The discard and self_hu phases."""
        hand = self.hand
        s = hand.observation(hand.seats[0]).turn
        if hand.phase == "discard":
            kinds = {("discard", k) for k, n in enumerate(self.oracle.counts(s)) if 0 < n < 3}
            got = {norm(a) for a in hand.legal_actions(s)}
            if hand.deciding != (s,) or got != kinds or len(kinds) < 2:
                self.problems.append(f"discard phase: deciding {hand.deciding}, legal {got}, oracle {kinds}")
        elif hand.phase == "self_hu":
            if hand.deciding != (s,) or not analysis.is_complete(
                self.oracle.hand_of(s), self.oracle.table(s), min_huxi=hand.rules.min_huxi
            ):
                self.problems.append("self_hu phase wrong")


def play_checked(rules, seed: int, rng: random.Random, pass_bias: float = 0.0, r61: bool = False) -> CheckedPlay:  # type: ignore[no-untyped-def]
    play = CheckedPlay(rules, seed, r61=r61)
    hand = play.hand
    while not hand.over:
        play.check_decision()
        if hand.phase == "claim":
            order = list(hand.deciding)
            rng.shuffle(order)
            for s in order:
                if s not in hand.deciding:
                    continue
                acts = hand.legal_actions(s)
                # favour taking the card now and then, passing otherwise
                a = acts[-1] if rng.random() < pass_bias else rng.choice(acts)
                play.chosen[s] = norm(a)
                play.apply(s, a)
                if hand.phase != "claim" or play.window is None:
                    break
        else:
            s = hand.deciding[0]
            play.apply(s, rng.choice(hand.legal_actions(s)))
    return play


# ---------------------------------------------------------------------------------------------------
# An independent R6.1 check (no shared code with paohuzi.analysis): plain recursion over card counts.
# ---------------------------------------------------------------------------------------------------


def _group_huxi(cards: tuple[int, ...]) -> int:
    """R3 for a 句/绞 of the hand."""
    s = sorted(cards)
    big = s[0] >= 10
    if [x % 10 for x in s] in ([0, 1, 2], [1, 6, 9]) and len({x // 10 for x in s}) == 1:
        return 6 if big else 3
    return 0


def _rest_best(counts: list[int], pair: bool) -> int | None:
    """Most 胡息 splitting ``counts`` into 句/绞 (+ one 将 if ``pair``); None if impossible."""
    k = next((i for i in range(NUM_KINDS) if counts[i]), None)
    if k is None:
        return None if pair else 0
    best = None
    if pair and counts[k] >= 2:
        counts[k] -= 2
        sub = _rest_best(counts, False)
        counts[k] += 2
        if sub is not None:
            best = sub
    for x in range(k, NUM_KINDS):
        for y in range(x, NUM_KINDS):
            g = (k, x, y)
            if not _valid(g):
                continue
            need: dict[int, int] = {}
            for c in g:
                need[c] = need.get(c, 0) + 1
            if any(counts[c] < n for c, n in need.items()):
                continue
            for c in g:
                counts[c] -= 1
            sub = _rest_best(counts, pair)
            for c in g:
                counts[c] += 1
            if sub is not None and (best is None or sub + _group_huxi(g) > best):
                best = sub + _group_huxi(g)
    return best


_SAME_HUXI = {"ti": (9, 12), "pao": (6, 9), "wei": (3, 6), "chouwei": (3, 6), "kan": (3, 6), "peng": (1, 3)}


def complete_oracle(hand: list[int], table, card: int | None, source: Source, min_huxi: int) -> bool:  # type: ignore[no-untyped-def]
    counts = [0] * NUM_KINDS
    for c in hand:
        counts[c] += 1
    tab = [(g.kind.value, tuple(int(x) for x in g.cards)) for g in table]

    def same(kind: str, k: int) -> int:
        return _SAME_HUXI[kind][1 if k >= 10 else 0]

    def total(tab_, counts_) -> int | None:  # type: ignore[no-untyped-def]
        huxi, fours = 0, 0
        rest = counts_[:]
        for kind, cards in tab_:
            if kind in ("ti", "pao"):
                fours += 1
            huxi += same(kind, cards[0]) if kind in _SAME_HUXI else _group_huxi(cards)
        for k in range(NUM_KINDS):
            if rest[k] == 4:
                huxi += same("ti", k)
                fours += 1
                rest[k] = 0
            elif rest[k] == 3:
                huxi += same("kan", k)
                rest[k] = 0
        r = _rest_best(rest, fours > 0)
        return None if r is None else huxi + r

    options = []
    if card is None:
        options.append((tab, counts))
    else:
        own = source is Source.SELF
        n = counts[card]
        wei_i = [i for i, (kind, cs) in enumerate(tab) if kind in ("wei", "chouwei") and cs[0] == card]
        peng_i = [i for i, (kind, cs) in enumerate(tab) if kind == "peng" and cs[0] == card]
        if n == 3:
            c2 = counts[:]
            c2[card] = 0
            options.append((tab + [("ti" if own else "pao", (card,) * 4)], c2))
        elif own and n == 2:
            c2 = counts[:]
            c2[card] = 0
            options.append((tab + [("wei", (card,) * 3)], c2))
        elif own and wei_i:
            t2 = tab[:]
            t2[wei_i[0]] = ("ti", (card,) * 4)
            options.append((t2, counts))
        else:
            for i in wei_i:
                t2 = tab[:]
                t2[i] = ("pao", (card,) * 4)
                options.append((t2, counts))
            if source is not Source.DISCARD:
                for i in peng_i:
                    t2 = tab[:]
                    t2[i] = ("pao", (card,) * 4)
                    options.append((t2, counts))
            if n == 2:
                c2 = counts[:]
                c2[card] = 0
                options.append((tab + [("peng", (card,) * 3)], c2))
            c2 = counts[:]
            c2[card] += 1
            # a card joining a hand pair in the rest makes three: not a 坎 (R6.1 uses it in 句/绞/将)
            if c2[card] == 3:
                r_counts = c2
                # evaluate with the three kept loose
                huxi_opt = _total_loose3(tab, r_counts, card, same)
                if huxi_opt is not None and huxi_opt >= min_huxi:
                    return True
            else:
                options.append((tab, c2))
    for t, c in options:
        v = total(t, c)
        if v is not None and v >= min_huxi:
            return True
    return False


def _total_loose3(tab, counts, card, same):  # type: ignore[no-untyped-def]
    """Like ``total`` but the three copies of ``card`` (two in hand + the card won) stay loose."""
    huxi, fours = 0, 0
    rest = counts[:]
    for kind, cards in tab:
        if kind in ("ti", "pao"):
            fours += 1
        huxi += same(kind, cards[0]) if kind in _SAME_HUXI else _group_huxi(cards)
    for k in range(NUM_KINDS):
        if k == card:
            continue
        if rest[k] == 3:
            huxi += same("kan", k)
            rest[k] = 0
    r = _rest_best(rest, fours > 0)
    return None if r is None else huxi + r
