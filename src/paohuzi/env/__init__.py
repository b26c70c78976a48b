"""Paohuzi (跑胡子) — ``paohuzi_v0``, a PettingZoo AEC environment for one hand (一局). Issue #7.

Three players play one hand of paohuzi under a rule preset (R8): they discard, claim shown and discarded
cards (胡 > 跑 > 碰 > 吃, R4.4) and win with a complete hand (R6) worth points (R7). Forced moves (提 偎 跑
比) are made by the engine and are never actions. The environment wraps :class:`paohuzi.engine.Hand`; its
rules are the engine's, and only the engine decides what is legal.

========================  ===================================================================
Import                    ``from paohuzi.env import env`` — ``env(rules="qq")``
Actions                   Discrete
Parallel API              No
Manual control            No
Agents                    ``agents = ['player_0', 'player_1', 'player_2']`` (the table seats)
Number of agents          3 (``four_players``: 4 possible agents, the 3 in play each hand; ``liuhuqiang``: 4 in play)
Action shape              Discrete(115) (Discrete(171) with ``yiwushi``, R9.3)
Action values             0–114 (:mod:`paohuzi.env.actions`; 115–170: 一五十's 吃 with ``yiwushi``)
Observation shape         ``{"observation": (606,), "action_mask": (115,)}`` (752 values with 4 players in the hand)
Observation values        ``observation`` float32 in [0, 21]; ``action_mask`` int8 in {0, 1}
Raw observation           ``env.unwrapped.raw_observation(agent)``: the engine's dict (R5-safe)
Rewards                   points at the end of the hand, zero-sum (R7.3)
========================  ===================================================================

Agents play in the engine's order. After a discard the discarder waits while the environment asks each
seat that may claim the card, one at a time in turn order from the drawer or discarder; the engine
resolves the claims by priority (R4.4) as soon as the answers that matter are in, so a seat whose claim
can no longer win is not asked. A seat with no real choice (only a forced move, or one possible discard)
is never asked.

Observation Space
-----------------

``observe(agent)`` returns ``{"observation": tensor, "action_mask": mask}``. The tensor is built only from
the engine's observation of the agent's seat (:meth:`paohuzi.engine.Hand.observation`, what R5 lets that
seat see), never from the full state; ``env.unwrapped.raw_observation(agent)`` gives that dict itself. The
tensor is a flat ``float32`` vector of named pieces (:func:`paohuzi.env.features.views` slices it by
name). Seats are relative: ``me``, ``next`` (下家, plays after me), ``prev`` (上家). A *card plane* has 20
values, one per card kind (``x1``…``x10`` = 0–9, ``d1``…``d10`` = 10–19); a *scalar* has one.

====================  =====  =====  ==========================================================================
piece                 size   max    value
====================  =====  =====  ==========================================================================
``hand``              20     4      copies of each kind in my hand
``kan``               20     1      1 where my hand holds a 坎 (three of a kind, R3)
``ti_<seat>``         20     1      1 where that seat has a 提 on the table (R3)
``pao_<seat>``        20     1      1 where that seat has a 跑
``wei_<seat>``        20     1      1 where that seat has a 偎 or 臭偎 *of known kind* (my own; others' 臭偎)
``peng_<seat>``       20     1      1 where that seat has a 碰
``chi_<seat>``        20     4      copies of each kind in that seat's 句/绞 groups (from 吃 and 比)
``discarded_<seat>``  20     4      copies of each kind the seat discarded from hand (its row)
``unclaimed_<seat>``  20     4      copies of each kind the seat drew, showed and nobody took (its row)
``pending``           20     1      the card on offer in a claim window (one-hot; all 0 otherwise)
``liangzhang``        20     1      the 亮张, the dealer's shown 21st card (one-hot, R2)
``chou_chi``          20     1      kinds I may no longer 吃 (臭, R4.7)
``chou_peng``         20     1      kinds I may no longer 碰 (R4.7)
``renpeng``           20     1      kinds I declined to 碰 (忍碰: a later 偎 of them is a 臭偎, R4.2)
``unseen``            20     4      4 − every copy I can see (hand, tables, rows, the card on offer)
``stock``             1      19     cards left in the stock
``hand_count_<seat>`` 1      21     cards in that seat's hand
``hidden_wei_<seat>`` 1      7      that seat's face-down 偎 whose kind I cannot see (0 for ``me``)
``dealer_<seat>``     1      1      1 for the dealer (庄家)
``turn_<seat>``       1      1      1 for the seat whose card or discard is being dealt with
``dead_<seat>``       1      1      1 for a 死手 seat (R4.6)
``phase_<name>``      1      1      one-hot: ``discard``, ``claim``, ``self_hu`` (R4.2.3), ``liangzhang``
``pending_drawn``     1      1      1 if the card on offer was drawn from the stock, 0 if discarded
``pending_from_<s>``  1      1      one-hot: who drew or discarded the card on offer
``pending_last``      1      1      1 if the card on offer is the stock's last card (海底, R6.3)
``deciding``          1      1      1 if I have a decision to make now
====================  =====  =====  ==========================================================================

``<seat>`` pieces come in the order ``me``, ``next``, ``prev``; the pieces lie in the order of the table
(29 card planes, then 26 scalars: 606 values). With ``four_players`` the seat sitting out is left out. With
four players in the hand (衡阳六胡抢, R9.3) they come four times, ``me``, ``next``, ``across`` (对家), ``prev``
(36 card planes, then 32 scalars: 752 values), and the highs of ``stock``, ``hand_count`` and ``hidden_wei``
follow the deal (:func:`paohuzi.env.features.observation_high`; docs/env.md "Shapes per rule set").

Legal Actions Mask
------------------

``action_mask`` is an ``int8`` vector of 115: 1 for each legal action ID of ``agent_selection``, all zeros
for every other agent and once the hand is over. It is built from the engine's legal actions (the
observation's ``legal``), so it is exact: every ID it allows is accepted, and every action the engine
offers has a 1.

Action Space
------------

=========  ====================================================================================
ID         action
=========  ====================================================================================
0–19       ``discard <card>`` (出牌): the card kind's index (``x1`` = 0 … ``x10`` = 9, ``d1`` = 10 …)
20         ``hu`` (胡): win with the card on offer, the 亮张 (R6.4) or the cards as they stand (R4.2.3)
21         ``peng`` (碰)
22         ``pass`` (过): decline every claim on offer, or decline the 胡
23–114     ``chi`` (吃) with its 比 groups (R4.5), relative to the card on offer ``c``
=========  ====================================================================================

A 吃 lays down ``c`` with two hand cards in one of six *shapes* (``p`` is c's point, ``C`` the card of that
point in the other case); each 比 group is ``c`` (a copy from hand) with two more hand cards in one of the
same shapes:

=====  ============  ==========================  =====================
shape  name          the two hand cards          group
=====  ============  ==========================  =====================
0      ``low``       p+1, p+2 (c's case)         c is the lowest of a 句
1      ``mid``       p−1, p+1                    c is the middle
2      ``high``      p−2, p−1                    c is the highest
3      ``ejs``       the other two of 2, 7, 10   二七十 (p ∈ {2, 7, 10})
4      ``jiao_c``    c, C                        绞 c c C
5      ``jiao_C``    C, C                        绞 c C C
=====  ============  ==========================  =====================

The 92 combinations of a shape with at most two 比 shapes that some hand can hold take IDs 23–114 in the
order of :data:`paohuzi.env.actions.CHI_COMBOS`: 23 ``chi low``, 24 ``chi low | bi low``, …, 41 ``chi mid``,
57 ``chi high``, 75 ``chi ejs``, 95 ``chi jiao_c``, 100 ``chi jiao_C`` … 114 ``chi jiao_C | bi ejs | bi ejs``
(:func:`paohuzi.env.actions.action_name` names each ID). The card on offer is public (the ``pending``
piece), so an ID always decodes to one engine action: ``env.unwrapped.engine_action(agent, id)`` and
``env.unwrapped.action_id(action)`` convert, :mod:`paohuzi.env.actions` holds the one mapping.

Rewards
-------

When the hand ends every agent gets its settlement in points (R7.3): the payment divided by the room stake
— the winner +points per loser, each loser −points (base × 番, R7.1–R7.2); 0 for everyone on a drawn hand
(荒庄). Rewards are 0 before the end. ``infos[agent]["outcome"]`` holds the outcome at the end (winner, 胡息,
名堂, points, payments).

Checks
------

``env()`` is the raw environment in one layer, :class:`~paohuzi.env.wrapper.CheckedWrapper`, that makes
the checks of PettingZoo's ``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper`` and
``OrderEnforcingWrapper`` with the same results, at the raw environment's speed:

* an illegal action ID ends the hand: every agent is terminated (and truncated), the offender gets
  ``illegal_reward`` (−8, the least that leaving a hand costs, R7.3) and the others 0; the engine's state
  is not touched, and every mask is then all zeros;
* an action outside ``Discrete(115)`` (or None for an agent that must act) raises
  ``AssertionError("action is not in action space")`` and changes nothing;
* ``step``/``observe``/``last``/``agent_iter``/``render``/``state`` and the attributes ``agents``,
  ``agent_selection``, ``rewards``, ``terminations``, ``truncations``, ``infos`` are refused before
  ``reset()``; ``step()`` once every agent is gone warns; a loop over ``agent_iter()`` must ``step()``.

``raw_env()`` has none of these: an illegal or out-of-range ID raises
:class:`~paohuzi.engine.IllegalActionError`, and the state is unchanged.

Seeding
-------

``reset(seed=s)`` deals exactly ``paohuzi.engine.Hand(rules, seed=s)``; later resets without a seed deal the
next hands of a stream seeded by ``s``. Hands that end as dealt (a dealt 天胡, R6.4: nobody decides) are
skipped. ``env.unwrapped.hand.record()`` replays the hand with :func:`paohuzi.engine.replay`.

Version History
---------------

* v0: first release (issue #7). ``env()``'s three PettingZoo wrappers became one layer of the same checks
  (the speed of ``raw_env()``). Issue #16 added ``state()``, ``action_masks()``, the vectorized
  environment and the Gymnasium reward options; observations, actions and rewards are unchanged.

``env.action_masks()`` is ``agent_selection``'s mask as booleans; ``env.state()`` is the global state for
centralised critics (every hand and the stock: :func:`~paohuzi.env.aec.global_state`, never for a policy).

Also here: :class:`~paohuzi.env.single.PaohuziGymEnv` (``gym_env()``, ``gymnasium.make("paohuzi/Paohuzi-v0")``
after ``import paohuzi``), a Gymnasium single-agent environment where the other seats are bots or policy
callables (self-play), with optional reward scale, 荒庄 reward and 胡息 shaping;
:class:`~paohuzi.env.vector.PaohuziVectorEnv` (``gymnasium.make_vec``), its batched form; and
:class:`~paohuzi.env.policy.PolicyBot`, which turns a policy over these tensors into a bot for
``paohuzi simulate``. See ``docs/env.md`` for examples.

>>> e = env(rules="qq")
>>> e.reset(seed=42)
>>> obs, reward, termination, truncation, info = e.last()
>>> obs["observation"].shape, obs["action_mask"].dtype, e.agent_selection
((606,), dtype('int8'), 'player_2')
"""

from __future__ import annotations

from typing import Any

import gymnasium

from paohuzi import GYM_ID, _register
from paohuzi.env.actions import NUM_ACTIONS, action_name, decode, encode
from paohuzi.env.aec import EnvError, PaohuziEnv, RenderModeError, global_state
from paohuzi.env.batch import BatchEnv
from paohuzi.env.evaluation import Evaluation, evaluate
from paohuzi.env.features import OBSERVATION_SIZE, action_mask, featurize, views
from paohuzi.env.policy import FunctionPolicyBot, MaskedRandomBot, PolicyBot
from paohuzi.env.single import DEFAULT_ILLEGAL_REWARD, PaohuziGymEnv
from paohuzi.env.vector import PaohuziVectorEnv
from paohuzi.env.wrapper import CheckedWrapper
from paohuzi.rules import RuleSet

__all__ = [
    "env",
    "raw_env",
    "gym_env",
    "PaohuziEnv",
    "PaohuziGymEnv",
    "CheckedWrapper",
    "PolicyBot",
    "MaskedRandomBot",
    "FunctionPolicyBot",
    "PaohuziVectorEnv",
    "RenderModeError",
    "global_state",
    "EnvError",
    "NUM_ACTIONS",
    "OBSERVATION_SIZE",
    "DEFAULT_ILLEGAL_REWARD",
    "featurize",
    "action_mask",
    "views",
    "encode",
    "decode",
    "action_name",
    "GYM_ID",
    # issue 36: the batched fast path, evaluation in Python
    "BatchEnv",
    "evaluate",
    "Evaluation",
]

# GYM_ID (``paohuzi/Paohuzi-v0``) is registered by ``import paohuzi`` as soon as Gymnasium is imported (see
# :mod:`paohuzi`); once more here, in case Gymnasium was loaded by a finder that hook does not see.
_register(gymnasium)


def raw_env(rules: str | dict[str, Any] | RuleSet = "qq", render_mode: str | None = None) -> PaohuziEnv:
    """The AEC environment without wrappers: an illegal action raises
    :class:`~paohuzi.engine.IllegalActionError` and leaves the state unchanged."""
    return PaohuziEnv(rules=rules, render_mode=render_mode)


def env(
    rules: str | dict[str, Any] | RuleSet = "qq",
    render_mode: str | None = None,
    illegal_reward: float = DEFAULT_ILLEGAL_REWARD,
) -> CheckedWrapper:
    """The AEC environment ``paohuzi_v0``, checked (:class:`~paohuzi.env.wrapper.CheckedWrapper`, the checks
    of PettingZoo's three classic wrappers in one layer): an illegal action ends the hand with
    ``illegal_reward`` for the offender and the state untouched (``TerminateIllegalWrapper``), an action
    outside ``Discrete(115)`` is an ``AssertionError`` (``AssertOutOfBoundsWrapper``), and calls out of
    order are refused (``OrderEnforcingWrapper``).

    :param rules: a preset name (``qq``, ``hengyang``, ``hunan``, ``huayang``, and the R9 families' ``changde``,
        ``changde_qmt``, ``shihuka``), a rules object with R8.1 house
        options (``{"name": "hunan", "four_players": True, "cap": 100}``) or a :class:`RuleSet`.
    :param render_mode: None, ``ansi`` or ``human``.
    """
    return CheckedWrapper(raw_env(rules=rules, render_mode=render_mode), illegal_reward=illegal_reward)


def gym_env(
    rules: str | dict[str, Any] | RuleSet = "qq",
    opponents: Any = "greedy",
    seat: int | None = None,
    illegal_reward: float = DEFAULT_ILLEGAL_REWARD,
    render_mode: str | None = None,
    reward_scale: float = 1.0,
    draw_reward: float = 0.0,
    shaping: float = 0.0,
) -> PaohuziGymEnv:
    """The Gymnasium single-agent environment: the learner at ``seat`` against ``opponents`` (bot specs,
    bots or policy callables), with optional reward scale, 荒庄 reward and 胡息 shaping. See
    :class:`PaohuziGymEnv`."""
    return PaohuziGymEnv(rules=rules, opponents=opponents, seat=seat, illegal_reward=illegal_reward,
                         render_mode=render_mode, reward_scale=reward_scale, draw_reward=draw_reward,
                         shaping=shaping)
