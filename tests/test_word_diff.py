"""Which words differ within a line, and which lines of two versions are compared."""

from __future__ import annotations

from syncdesk.services.conflicts.worddiff import (
    changed_words,
    first_change,
    pair_lines,
    tokens,
)

LONG = "    model = ModelConfig(hidden_size=4096, num_layers=32, seq_length={})"


def marked(text: str, other: str) -> list[str]:
    return [text[start:end] for start, end in changed_words(text, other)]


def test_the_one_changed_number_is_marked_whole() -> None:
    dev, main = LONG.format(512), LONG.format(256)
    assert marked(dev, main) == ["512"]
    assert marked(main, dev) == ["256"]
    (span,) = changed_words(dev, main)
    assert span == (dev.index("512"), dev.index("512") + 3)


def test_words_are_marked_whole_where_a_character_diff_would_split_them() -> None:
    # A character diff keeps the shared "e" and "r": readers see fragments.
    assert marked("timeout = retries", "timeout = reader") == ["retries"]


def test_equal_lines_mark_nothing() -> None:
    assert changed_words(LONG, LONG) == ()


def test_a_word_only_the_other_side_has_marks_nothing_on_this_side() -> None:
    assert marked("run(a, b)", "run(a, extra, b)") == []
    assert marked("run(a, extra, b)", "run(a, b)") == ["extra,"]


def test_adjacent_changed_tokens_make_one_range_without_its_edge_spaces() -> None:
    assert marked("x = alpha.beta + 1", "x = gamma + 1") == ["alpha.beta"]
    assert marked("call(a, b)", "call(c, d)") == ["a", "b"]


def test_a_change_of_indentation_is_marked_as_white_space() -> None:
    assert changed_words("        return x", "    return x") == ((0, 8),)


def test_tokens_are_words_spaces_and_single_characters() -> None:
    assert tokens("a_b  = f(x1)") == ["a_b", "  ", "=", " ", "f", "(", "x1", ")"]


def test_a_huge_line_is_compared_by_its_common_ends() -> None:
    words = [f"w{n}" for n in range(600)]
    changed = [*words]
    changed[10], changed[590] = "first", "last"
    text, other = " ".join(words), " ".join(changed)
    (span,) = changed_words(text, other)
    assert text[span[0] : span[1]].startswith("w10 ")
    assert text[span[0] : span[1]].endswith(" w590")


def test_a_changed_line_pairs_with_its_version_on_another_row() -> None:
    dev = ["x = 1\n", "TIMEOUT = 20\n", "end\n"]
    main = ["TIMEOUT = 30\n", "end\n"]
    dev_pairs, main_pairs = pair_lines(dev, main)
    assert dict(dev_pairs.counterparts) == {1: 0}
    assert dev_pairs.alone == {0}  # added by dev: nothing to compare it with
    assert dict(main_pairs.counterparts) == {0: 1}
    assert main_pairs.alone == frozenset()


def test_a_line_rewritten_past_recognition_stands_alone() -> None:
    dev_pairs, main_pairs = pair_lines(["return cache[key]\n"], ["import os\n"])
    assert dev_pairs.counterparts == {} and dev_pairs.alone == {0}
    assert main_pairs.counterparts == {} and main_pairs.alone == {0}


def test_line_endings_are_not_differences() -> None:
    dev_pairs, _ = pair_lines(["a = 1\r\n", "b = 2\n"], ["a = 1\n", "b = 3\n"])
    assert dict(dev_pairs.counterparts) == {1: 1}
    assert dev_pairs.alone == frozenset()


def test_the_most_similar_lines_pair_in_a_small_gap() -> None:
    dev = ["alpha = compute(1)\n", "beta = other(2)\n"]
    main = ["unrelated words here\n", "totally new text\n", "beta = other(3)\n"]
    dev_pairs, _ = pair_lines(dev, main)
    assert dict(dev_pairs.counterparts) == {1: 2}
    assert dev_pairs.alone == {0}


def test_a_2000_line_rewrite_pairs_line_by_line() -> None:
    dev = [f"value_{n} = compute({n}, 512)\n" for n in range(2000)]
    main = [f"value_{n} = compute({n}, 256)\n" for n in range(2000)]
    dev_pairs, main_pairs = pair_lines(dev, main)
    assert dict(dev_pairs.counterparts) == {n: n for n in range(2000)}
    assert len(main_pairs.counterparts) == 2000


def test_the_first_change_is_the_leftmost_on_the_lines_looked_at() -> None:
    dev = ["x = 1\n", LONG.format(512), "    y = compute(2)\n"]
    main = ["x = 1\n", LONG.format(256), "    y = compute(3)\n"]
    pairs, _ = pair_lines(dev, main)
    column = LONG.index("{")
    assert first_change(dev, main, pairs, count=2) == (column, column + 3)
    assert first_change(dev, main, pairs, count=3) == (16, 17)  # y's argument
    assert first_change(dev, main, pairs, count=1) is None  # x = 1 is on both sides


def test_a_line_standing_alone_changed_from_its_first_character() -> None:
    dev = ["        added_by_dev()\n", LONG.format(512)]
    main = [LONG.format(256)]
    pairs, _ = pair_lines(dev, main)
    assert first_change(dev, main, pairs, count=2) == (8, 22)


def test_the_first_change_is_in_the_columns_of_the_text_as_shown() -> None:
    dev, main = ["\tx = 512\n"], ["\tx = 256\n"]
    pairs, _ = pair_lines(dev, main)
    assert first_change(dev, main, pairs, 1) == (5, 8)
    expanded = first_change(dev, main, pairs, 1, shown=lambda s: s.expandtabs(8))
    assert expanded == (12, 15)
