"""R7.4 levels (等级, QQ): the 23 titles, the thresholds the sources give, the project's steady fill-in."""

from __future__ import annotations

import itertools

import pytest

from paohuzi.scoring import LEVELS, level_number, level_title

TITLES = [
    "包身工",
    "短工",
    "长工",
    "佃户",
    "贫农",
    "渔夫",
    "猎人",
    "中农",
    "富农",
    "掌柜",
    "商人",
    "衙役",
    "小财主",
    "大财主",
    "小地主",
    "大地主",
    "知县",
    "通判",
    "知府",
    "总督",
    "巡抚",
    "丞相",
    "帝王",
]


def test_r7_4_titles_in_order() -> None:
    assert [title for _, title in LEVELS] == TITLES
    assert len(LEVELS) == 23


def test_r7_4_known_thresholds() -> None:
    """The QQ page: below 30 包身工, 佃户 90, 贫农 180, 猎人 530, 掌柜 1600."""
    thresholds = {title: t for t, title in LEVELS}
    assert (
        thresholds["短工"],
        thresholds["佃户"],
        thresholds["贫农"],
        thresholds["猎人"],
        thresholds["掌柜"],
    ) == (30, 90, 180, 530, 1600)


def test_r7_4_rising_steadily() -> None:
    """Decision: thresholds rise, and the step from one title to the next never shrinks."""
    thresholds = [t for t, _ in LEVELS]
    steps = [b - a for a, b in itertools.pairwise(thresholds)]
    assert all(s > 0 for s in steps)
    assert all(b >= a for a, b in itertools.pairwise(steps))


@pytest.mark.parametrize(
    ("points", "title"),
    [
        (-10_000, "包身工"),
        (-1, "包身工"),
        (0, "包身工"),
        (29, "包身工"),
        (30, "短工"),
        (59, "短工"),
        (60, "长工"),
        (89, "长工"),
        (90, "佃户"),
        (179, "佃户"),
        (180, "贫农"),
        (529, "渔夫"),
        (530, "猎人"),
        (1599, "富农"),
        (1600, "掌柜"),
        (75_000, "帝王"),
        (10**12, "帝王"),
    ],
)
def test_r7_4_level_title(points: int, title: str) -> None:
    assert level_title(points) == title


def test_r7_4_every_threshold_starts_its_title() -> None:
    for number, (threshold, title) in enumerate(LEVELS, start=1):
        assert level_title(threshold) == title and level_number(threshold) == number
        if number > 1:
            assert level_number(threshold - 1) == number - 1
