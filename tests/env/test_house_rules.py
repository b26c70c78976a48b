"""R8.1 house options in the environments: a rules object (or JSON text) is accepted, the options reach the
engine, and bad options are an EnvError naming them."""

from __future__ import annotations

import pytest

from paohuzi.env import EnvError, env, gym_env
from paohuzi.rules import find_preset

HOUSE = {"name": "hunan", "four_players": True, "cap": 100, "zimo": "double", "must_hu": True, "min_huxi": 18}


def test_r8_1_aec_env_takes_a_rules_object() -> None:
    e = env(rules=HOUSE)
    e.reset(seed=3)
    assert e.unwrapped.rules == find_preset("hunan").with_options(**{k: v for k, v in HOUSE.items() if k != "name"})
    assert e.unwrapped.possible_agents == [f"player_{s}" for s in range(4)]
    steps = 0
    for _agent in e.agent_iter():
        obs, _reward, done, trunc, _info = e.last()
        if done or trunc:
            e.step(None)
            continue
        legal = [i for i, ok in enumerate(obs["action_mask"]) if ok]
        e.step(legal[0])
        steps += 1
    assert steps > 0


def test_r8_1_gym_env_takes_rules_json_and_plays_under_them() -> None:
    g = gym_env(rules='{"name": "qq", "must_hu": true, "cap": 50}', opponents="random")
    assert g.unwrapped.rules.must_hu and g.unwrapped.rules.cap == 50
    for seed in range(20):
        obs, info = g.reset(seed=seed)
        done = False
        while not done:
            legal = [i for i, ok in enumerate(g.unwrapped.action_masks()) if ok]
            obs, reward, term, trunc, info = g.step(legal[-1])
            done = term or trunc
            assert abs(reward) <= 50 * 2  # reward = payment ÷ stake: 封顶 50 points from each of two losers


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"name": "hunan", "cap": 99}, "cap must be one of 0, 50, 100, 200, 300, 600, got 99"),
        ({"name": "qq", "zimo": "thrice"}, "zimo must be one of plus_one, double, none"),
        ({"name": "qq", "bogus": True}, "unknown rule options: bogus"),
        ("nowhere", "unknown rules preset 'nowhere'"),
        ({"name": "qq", "stake": 0}, "stake 0 pays nothing"),
        (3, "rules must be a preset name, a rules object or a RuleSet"),
    ],
)
def test_r8_1_bad_rules_are_an_env_error(rules: object, message: str) -> None:
    with pytest.raises(EnvError) as err:
        env(rules=rules)  # type: ignore[arg-type]
    assert message in str(err.value)
    with pytest.raises(EnvError) as err:
        gym_env(rules=rules)  # type: ignore[arg-type]
    assert message in str(err.value)
