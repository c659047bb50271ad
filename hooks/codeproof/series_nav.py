"""Series navigation: 上一篇 | 系列总览 | 下一篇, with announced posts shown but never linked."""

from __future__ import annotations

from dataclasses import dataclass

NUMERALS = "零一二三四五六七八九"


def chinese_number(n: int) -> str:
    """1 -> 一, 13 -> 十三, 105 -> 一百零五, 2024 -> 二千零二十四 (posts are numbered from 1 to 9999)."""
    if n < 10:
        return NUMERALS[n]
    if n < 20:
        return "十" + (NUMERALS[n % 10] if n % 10 else "")
    text, pending_zero = "", False
    for value, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        digit = n // value % 10
        if digit:
            text += ("零" if pending_zero else "") + NUMERALS[digit] + unit
            pending_zero = False
        elif text:
            pending_zero = True
    return text


@dataclass(frozen=True)
class Neighbour:
    number: int
    title: str | None
    url: str | None  # None for an announced post that is not published yet

    @property
    def label(self) -> str:
        name = f"第{chinese_number(self.number)}篇"
        return f"{name}：{self.title}" if self.title else name


def neighbours(number: int, published: dict[int, tuple[str, str]], announced: dict[int, str | None]):
    """(previous, next) of post `number` among published (number -> (title, url)) and announced posts."""
    known = {n: Neighbour(n, title, None) for n, title in announced.items()}
    known.update({n: Neighbour(n, title, url) for n, (title, url) in published.items()})
    before = [n for n in known if n < number]
    after = [n for n in known if n > number]
    return (known[max(before)] if before else None, known[min(after)] if after else None)
