"""What each seat was sent about the hand on (:class:`Sent`): its last view and how many frames — the
``seq`` of docs/protocol.md §3.3, which ``game`` carries as the count so far and each ``update`` raises by
one. After a restart or a take-over (the shared mode) the new owner has sent nothing yet: :meth:`Sent.replayed`
counts again, from the hand's actions, the frames each seat was sent by the process before.
"""

from __future__ import annotations

from paohuzi.engine import Hand, Observation, replay

__all__ = ["Sent"]


class Sent:
    """What each seat was last sent about the hand on — its view and how many frames (its ``seq``): the
    delivery cache that decides whether an ``update`` is worth a frame. Written only when a frame is sent.
    A view is the seat's :class:`~paohuzi.engine.Observation` (R5: the engine decides what it shows), equal
    field for field where its JSON is equal; it becomes JSON only in a frame."""

    __slots__ = ("views", "counts")

    def __init__(self) -> None:
        self.views: dict[int, Observation] = {}
        self.counts: dict[int, int] = {}

    def clear(self) -> None:
        self.views.clear()
        self.counts.clear()

    def seq(self, seat: int) -> int:
        return self.counts.get(seat, 0)

    def same_view(self, seat: int, view: Observation) -> bool:
        return self.views.get(seat) == view

    def snapshot(self, seat: int, view: Observation) -> None:
        """A ``game`` frame with ``view`` was sent to ``seat`` (it does not count in ``seq``)."""
        self.views[seat] = view

    def update(self, seat: int, view: Observation) -> int:
        """An ``update`` with ``view`` is sent to ``seat``: its ``seq``."""
        self.views[seat] = view
        self.counts[seat] = self.counts.get(seat, 0) + 1
        return self.counts[seat]

    @classmethod
    def replayed(cls, hand: Hand) -> Sent:
        """The frames a seat online since the deal was sent about ``hand`` (the rule of
        ``Game._send_updates``: an ``update`` for each action that shows the seat an event or changes its
        view, and always for its own action), its last view included — what a process resuming the hand
        takes on (a restart, a take-over), so that the next ``game`` carries the count so far and ``seq``
        never goes back for a player whose websocket stayed on another process.

        >>> from paohuzi.rules import find_preset
        >>> hand = Hand(find_preset("qq"), seed=3)
        >>> for _ in range(6):
        ...     seat = hand.deciding[0]
        ...     _ = hand.apply(seat, hand.legal_actions(seat)[0])
        >>> [Sent.replayed(hand).seq(s) for s in hand.seats]
        [6, 6, 6]
        """
        sent = cls()
        again = replay(hand.record(), upto=0)
        for seat in again.seats:
            sent.snapshot(seat, again.observation(seat))  # the deal's ``game`` (not counted)
        for actor, text in hand.record()["actions"]:
            events = again.leave(actor) if text == "leave" else again.apply(actor, text)
            for seat in again.seats:
                view = again.observation(seat)
                seen = any(e.for_seat(seat) is not None for e in events)
                if seen or seat == actor or not sent.same_view(seat, view):
                    sent.update(seat, view)
        return sent
