"""The claim window (R4.2–R4.5, R4.7): the claims on a shown or discarded card and their resolution (R4.4)."""

from __future__ import annotations

from enum import Enum

from paohuzi._compiled import mypyc_attr
from paohuzi.analysis import Source
from paohuzi.cards import Card
from paohuzi.engine.actions import HU, PASS, PENG, Action, ActionKind
from paohuzi.engine.events import Chi, Chou, Pao, Peng, Unclaimed
from paohuzi.engine.observation import WinHow
from paohuzi.engine.state import _CARDS, _CLAIM, _OVER, _PAO, _PARTNERS, _PENG_G, _SAME
from paohuzi.engine.wins import WinsMixin
from paohuzi.groups import Group

_CHI_GROUPS: dict[tuple[int, ...], Group] = {}
_CHI_ACTIONS: dict[tuple[int, int, tuple[tuple[int, ...], ...]], Action] = {}
_NO_BI: list[tuple[tuple[int, ...], ...]] = [()]  # _bi_options when no copy of the card is left in hand

class _Waiting(Enum):
    """:meth:`Hand._resolve` while a seat with priority has not answered (R4.4)."""

    WAITING = "waiting"


_WAITING = _Waiting.WAITING
# Claim types, in priority order (R4.4).
_C_HU, _C_PAO, _C_PENG, _C_CHI = range(4)


def _chi_group(cards: tuple[int, ...]) -> Group:
    key = tuple(sorted(cards))
    g = _CHI_GROUPS.get(key)
    if g is None:
        g = _CHI_GROUPS[key] = Group.chi(tuple(Card(c) for c in key))
    return g


@mypyc_attr(allow_interpreted_subclasses=True)  # see paohuzi/_compiled.py
class ClaimsMixin(WinsMixin):
    """Opening (:meth:`_open_window`), resolving (:meth:`_resolve`) and closing a claim window."""

    __slots__ = ()

    # The turn flow (turns.py) that a closed window hands back to: defined there, declared here so that a
    # compiled build (mypyc, docs/decisions.md "The compiled engine") sees real methods, not type-checking stubs.
    def _after_take(self, s: int) -> int | None:
        raise NotImplementedError

    def _run(self, nxt: int | None) -> None:
        raise NotImplementedError

    def _open_window(self, c: int, src: int, drawn: bool, last: bool) -> int | None:  # noqa: C901, PLR0912, PLR0915 (debt: one branch per R4 claim; file under rework (issue 10 item 1))
        """A shown or discarded card is offered (R4.2–R4.4): list every claim in priority order and ask
        the seats with a real choice; resolve at once when nobody has one."""
        self._card, self._actor, self._drawn, self._last = c, src, drawn, last
        nxt = self._next
        hands = self._hands
        dead = self._dead
        rules = self.rules
        claims: list[tuple[int, int]] = []
        legal: dict[int, list[Action]] = {}
        if drawn or rules.win_on_discard:
            # 胡: in turn order from the drawer (R4.4); a discard is never won by its discarder.
            s1 = nxt[src]
            order = (src, s1, nxt[s1]) if drawn else (s1, nxt[s1])
            infos = self._info
            for s in order:
                if dead[s]:
                    continue
                info = infos[s]
                if info is None:
                    info = self._seat_info(s)
                if not info[2] >> c & 1:  # the first test of _maybe_complete, for every card at once
                    continue
                source = Source.SELF if s == src else (Source.OTHER if drawn else Source.DISCARD)
                if self._can_hu(s, c, source):
                    claims.append((_C_HU, s))
                    legal[s] = [HU]
            if claims and rules.must_hu:
                # R8.1 有胡必胡: the first seat in R4.4 order wins at once; nobody is asked, nothing else happens.
                self._claims = claims
                return self._close_window(0)
        pao: int | None = None
        wei, peng = self._wei, self._peng
        for s in self.seats:
            if s != src and (hands[s][c] == 3 or c in wei[s]):
                pao = s
                break
            if drawn and c in peng[s]:
                pao = s
                break
        if pao is not None:
            claims.append((_C_PAO, pao))  # 跑 is forced and beats 碰/吃: those seats are not asked
        else:
            for s in self.seats:
                if s != src and hands[s][c] == 2 and self._peng_ok(s, c):
                    claims.append((_C_PENG, s))
                    acts = legal.get(s)
                    if acts is None:
                        legal[s] = [PENG]
                    else:
                        acts.append(PENG)
                    break
            no_chi = self._no_chi
            for s in (src, nxt[src]) if drawn else (nxt[src],):
                if not dead[s] and c not in no_chi[s]:
                    ways = self._chi_actions(s, c)
                    if ways:
                        claims.append((_C_CHI, s))
                        acts = legal.get(s)
                        if acts is None:
                            legal[s] = ways
                        else:
                            acts += ways
        self._claims = claims
        if not legal:
            return self._close_window(len(claims) - 1 if pao is not None else None)
        for acts in legal.values():
            acts.append(PASS)
        self._phase = _CLAIM
        self._legal = legal
        self._decided = {}
        self._deciding = tuple(legal) if len(legal) == 1 else tuple([s for s in self.seats if s in legal])
        return None

    def _peng_ok(self, s: int, c: int) -> bool:
        """碰 (R4.3) for a seat holding a pair: not 臭 (R4.7), not dead, and a discard left if one is owed (R4.6)."""
        if self._dead[s] or c in self._no_peng[s]:
            return False
        owes = self._owes(s, 1)
        return not owes or self._loose(s) > 2

    def _chi_actions(self, s: int, c: int) -> list[Action]:
        """Every distinct 吃 of ``c`` by ``s`` with its required 比 (R4.3, R4.5, R4.6)."""
        h = self._hands[s]
        # The pairs of hand cards outside 坎 that make a 句/绞 with c (most offers have none).
        pairs = [(a, b) for a, b in _PARTNERS[c] if (h[a] == 2 if a == b else 0 < h[a] < 3 and 0 < h[b] < 3)]
        if not pairs:
            return []
        avail = [n if n < 3 else 0 for n in h]  # 坎 cards may not be used
        total = sum(avail)
        owes = self._owes(s, 1)
        out: list[Action] = []
        seen: set[tuple[int, int, tuple[tuple[int, ...], ...]]] = set()
        for a, b in pairs:
            avail[a] -= 1
            avail[b] -= 1
            for bi in _bi_options(avail, c) if avail[c] else _NO_BI:
                if owes and total - 2 - 3 * len(bi) <= 0:
                    continue  # R4.6: 吃 that leaves no legal discard is not legal
                key = (a, b, bi)
                if key not in seen:
                    seen.add(key)
                    act = _CHI_ACTIONS.get(key)
                    if act is None:
                        act = _CHI_ACTIONS[key] = Action(
                            ActionKind.CHI, None, (_CARDS[a], _CARDS[b]), tuple(tuple(_CARDS[x] for x in g) for g in bi)
                        )
                    out.append(act)
            avail[a] += 1
            avail[b] += 1
        return out

    def _resolve(self) -> int | None | _Waiting:
        """The index of the winning claim (R4.4), None if nobody takes the card, ``_WAITING`` while a seat
        with priority has not answered."""
        decided = self._decided
        for i, (t, s) in enumerate(self._claims):
            if t == _C_PAO:
                return i
            d = decided.get(s)
            if d is None:
                return _WAITING
            k = d.kind
            if (
                (t == _C_HU and k is ActionKind.HU)
                or (t == _C_PENG and k is ActionKind.PENG)
                or (t == _C_CHI and k is ActionKind.CHI)
            ):
                return i
        return None

    def _close_window(self, idx: int | None) -> int | None:  # noqa: PLR0912, PLR0915 (debt: one R4.4–R4.7 resolution)
        claims, decided = self._claims, self._decided
        c, src, drawn = self._card, self._actor, self._drawn
        assert c is not None  # a window is open on a card
        winner = claims[idx][1] if idx is not None else None
        # R4.7: a declined 吃/碰 makes the kind 臭 — unless a claim with priority took the card. A 碰 answered
        # with 吃 (or 过) is declined (忍碰) whatever becomes of that 吃 — also when the seat's 吃 wins or
        # loses to the drawer's 吃: both rank below the 碰 (R4.7 decision, docs/decisions.md).
        events = self.events
        if claims:
            self._mark_chou(claims[: idx if idx is not None else len(claims)], winner, c)
        # _clear_decision, keeping ``decided`` for the 吃 below
        self._phase = _OVER
        self._legal = {}
        self._deciding = ()
        self._claims = []
        if idx is None:
            self._rows[src].append((c, not drawn))
            events.append(Unclaimed(None, src, _CARDS[c]))
            self._card = None
            self._decided = {}
            return self._next[src]
        t, s = claims[idx]
        if t == _C_HU:
            if drawn:
                source, how = (Source.SELF, WinHow.SELF) if s == src else (Source.OTHER, WinHow.OTHER)
            else:
                source, how = Source.DISCARD, WinHow.DISCARD
            self._win(s, c, how, source, forced=self.rules.must_hu)
            return None
        card = _CARDS[c]
        if t == _C_PAO:
            h = self._hands[s]
            if h[c] == 3:
                self._take(s, c, 3)
                self._lay(s, _SAME[_PAO][c])
                origin = "kan"
            elif c in self._wei[s]:
                self._upgrade(s, self._wei[s][c], _PAO)
                origin = "wei"
            else:
                self._upgrade(s, self._peng[s][c], _PAO)
                origin = "peng"
            self.events.append(Pao(None, s, card, origin, src))
        elif t == _C_PENG:
            self._take(s, c, 2)
            self._lay(s, _SAME[_PENG_G][c])
            self.events.append(Peng(None, s, card, src))
        else:
            action = decided[s]
            a, b = int(action.cards[0]), int(action.cards[1])
            self._take(s, a)
            self._take(s, b)
            group = _chi_group((c, a, b))
            self._lay(s, group)
            bis = []
            for g in action.bi:
                for x in g:
                    self._take(s, int(x))
                bg = _chi_group(tuple(int(x) for x in g))
                self._lay(s, bg)
                bis.append(bg)
            # The eaten card itself came from outside the hand: one of the bi cards is c taken from
            # the hand, the card eaten sits in ``group``.
            self.events.append(Chi(None, s, card, group, tuple(bis), src))
        self._decided = {}
        self._card = None
        return self._after_take(s)

    def _mark_chou(self, passed: list[tuple[int, int]], winner: int | None, c: int) -> None:
        """R4.7 for the claims ranked above the one that took the card (all of them when none did)."""
        marks: dict[int, list[bool]] = {}
        blocks_peng = self.rules.chou_blocks_peng
        for t, s in passed:
            if t == _C_HU or (s == winner and t != _C_PENG):
                continue
            m = marks.setdefault(s, [False, False, False])
            if t == _C_CHI:
                self._no_chi[s].add(c)
                m[0] = True
            else:
                self._renpeng[s].add(c)
                m[2] = True
            if blocks_peng:
                self._no_peng[s].add(c)
                m[1] = True
        for s, (chi, peng, ren) in marks.items():
            self.events.append(Chou(s, s, _CARDS[c], chi, peng, ren))

    def _close_liang(self, idx: int | None) -> None:
        s = self._claims[idx][1] if idx is not None else None
        self._clear_decision()
        if s is not None:
            forced = self.rules.must_hu
            if s == self.dealer:
                self._win(s, None, WinHow.LIANGZHANG, Source.NONE, won=self._liang, forced=forced)
            else:
                self._win(s, self._liang, WinHow.LIANGZHANG, Source.OTHER, forced=forced)
            return
        self._card = None
        self._run(self._after_take(self.dealer))



def _bi_options(avail: list[int], c: int) -> list[tuple[tuple[int, ...], ...]]:
    """Every way to lay down the copies of ``c`` left in hand (``avail``) in 句/绞 with hand cards (比,
    R4.5), each as a sorted tuple of groups (sorted card tuples); [()] when none is left."""
    r = avail[c]
    if r == 0:
        return [()]
    out: set[tuple[tuple[int, ...], ...]] = set()
    avail[c] -= 1
    for a, b in _PARTNERS[c]:
        if a == b:
            if avail[a] < 2:
                continue
        elif not (avail[a] and avail[b]):
            continue
        avail[a] -= 1
        avail[b] -= 1
        g = tuple(sorted((c, a, b)))
        if avail[c] == 0:
            out.add((g,))
        else:  # one more copy of c: a second 比 group
            avail[c] -= 1
            for a2, b2 in _PARTNERS[c]:
                if a2 == b2:
                    if avail[a2] < 2:
                        continue
                elif not (avail[a2] and avail[b2]):
                    continue
                out.add(tuple(sorted((g, tuple(sorted((c, a2, b2)))))))
            avail[c] += 1
        avail[a] += 1
        avail[b] += 1
    avail[c] += 1
    return sorted(out)
