"""R9 families everywhere a rule set goes (the engine's side): ``paohuzi simulate`` and ``paohuzi replay``
with ``--rules changde`` / ``changde_qmt`` / ``shihuka`` and their options, and the environments
(``env(rules="changde_qmt")``) playing them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paohuzi.cli import main
from paohuzi.engine import replay
from paohuzi.env import EnvError, env, gym_env
from paohuzi.rules import find_preset

FAMILIES = ["changde", "changde_qmt", "shihuka"]
OPTIONS = {"changde": ["duiduihu=off"], "changde_qmt": ["huangfan=on", "tuanyuan=on"], "shihuka": ["xing=fan"]}


@pytest.mark.parametrize("preset", FAMILIES)
def test_r9_simulate_plays_a_family_and_records_it(
    preset: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["simulate", "--bots", "greedy,random,random", "--hands", "2", "--seed", "5", "--quiet", "--json"]
    argv += ["--rules", preset, "--record", str(tmp_path)]
    for option in OPTIONS[preset]:
        argv += ["--option", option]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules"] == preset
    records = sorted(tmp_path.iterdir())
    assert len(records) == 6  # 2 deals × 3 seatings of greedy, random, random
    for path in records:
        record = json.loads(path.read_text())
        assert record["format_version"] == 3 and record["rules"]["name"] == preset
        assert record["rules"]["family"] == find_preset(preset).family
        hand = replay(record)
        assert hand.outcome is not None and hand.outcome.to_dict() == record["result"]
        if record["result"]["kind"] == "hu":
            assert {"tun", "xing", "xing_card", "combine"} <= set(record["result"])
    path = records[0]
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith(f"规则 {preset}（{find_preset(preset).title}）")


def test_r9_replay_shows_tun_xing_and_the_xing_card(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from .helpers import W_HANDS, deal, play

    hand = deal(W_HANDS, stock="x10 x2", rules=find_preset("shihuka").with_options(xing="fan"))
    play(hand, "0: discard x2", "1: hu")
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(hand.record()), encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    hu = next(line for line in out.splitlines() if "胡 十" in line)
    assert "囤 5 + 醒 1（醒牌 二） → 底 6 × 番 1 = 12 分" in hu


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--rules", "changde", "--option", "win_on_discard=on"], "win_on_discard"),
        (["--rules", "changde", "--option", "xing=fan"], "xing"),
        (["--rules", "shihuka", "--option", "min_huxi=15"], "min_huxi"),
    ],
)
def test_r9_simulate_refuses_an_option_outside_the_family(
    capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    assert main(["simulate", "--bots", "random,random,random", "--hands", "1", "--quiet", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and ("changde" in err or "shihuka" in err)


@pytest.mark.parametrize("preset", FAMILIES)
def test_r9_aec_env_plays_a_family(preset: str) -> None:
    e = env(rules=preset)
    for seed in range(3):
        e.reset(seed=seed)
        assert e.unwrapped.rules == find_preset(preset)
        rewards = {a: 0.0 for a in e.possible_agents}
        for agent in e.agent_iter():
            obs, reward, done, trunc, _info = e.last()
            rewards[agent] += reward
            if done or trunc:
                e.step(None)
                continue
            legal = [i for i, ok in enumerate(obs["action_mask"]) if ok]
            e.step(legal[-1])
        assert sum(rewards.values()) == 0  # payments ÷ stake, and a family's hand sums to 0 too


def test_r9_gym_env_plays_changde_qmt_with_options() -> None:
    g = gym_env(rules={"name": "changde_qmt", "huangfan": True, "shuahou": True}, opponents="random")
    assert g.unwrapped.rules.huangfan and g.unwrapped.rules.family == "changde"
    for seed in range(5):
        g.reset(seed=seed)
        done = False
        while not done:
            legal = [i for i, ok in enumerate(g.unwrapped.action_masks()) if ok]
            _obs, _reward, term, trunc, _info = g.step(legal[-1])
            done = term or trunc


def test_r9_env_refuses_an_option_outside_the_family() -> None:
    with pytest.raises(EnvError, match="xing"):
        env(rules={"name": "changde", "xing": "fan"})
