"""``graphmind serve``'s web page in a real headless Chromium: ask, watch the rounds
arrive, see the answer and its evidence graph drawn, give feedback."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path

import pytest

from graphmind.llm.base import Message
from graphmind.show import LABEL_COLOURS, VERDICT_COLOURS
from helpers.ask import DOCS, QUESTION, responder
from helpers.browser import CHROMIUM, SHOTS_FOR, colour_pixels
from helpers.cdp import Browser
from helpers.serve import serving

DRAWN = (LABEL_COLOURS["Decision"], VERDICT_COLOURS["used"], VERDICT_COLOURS["rejected"])


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium)")
def test_the_page_asks_streams_draws_and_takes_feedback(tmp_path: Path) -> None:
    round_one_shown = threading.Event()
    released: list[bool] = []

    def second_round_waits(messages: list[Message]) -> str:
        if "Still needed" in messages[1]["content"] and len(messages) == 2:  # round 2 waits
            released.append(round_one_shown.wait(60))
        return responder(messages)

    assert CHROMIUM is not None
    with (
        serving(tmp_path, {}, responder_=second_round_waits) as s,
        tempfile.TemporaryDirectory() as profile,
    ):
        browser = Browser(CHROMIUM, Path(profile))
        try:
            browser.open(s.url + "/")
            # the lists: the decision asked before, the documents
            browser.wait_for("document.querySelectorAll('#documents li').length === 5")
            documents = browser.evaluate(
                "[...document.querySelectorAll('#documents li b')].map(b => b.textContent)"
            )
            assert set(documents) == set(DOCS)
            browser.wait_for(
                f"document.getElementById('decisions').textContent.includes({QUESTION!r})"
            )

            browser.evaluate(
                f"document.getElementById('question').value = {QUESTION!r};"
                "document.getElementById('ask').click(); true"
            )
            # round 1 is on the page, coloured by its verdicts, before the answer exists
            browser.wait_for(
                "document.querySelectorAll('#round-1 .passage.used').length > 0 && "
                "document.querySelector('#round-1 .gap') !== null"
            )
            assert browser.evaluate("document.getElementById('round-2') === null")
            assert browser.evaluate(
                "document.getElementById('answer').classList.contains('hidden')"
            )
            gap = browser.evaluate("document.querySelector('#round-1 .gap').textContent")
            assert gap == "still missing: Where was Silent Harbor recorded?"
            round_one_shown.set()

            browser.wait_for("document.getElementById('answer-text').textContent !== ''")
            assert browser.evaluate("document.getElementById('answer-text').textContent") == (
                "Port Ellis"
            )
            full = browser.evaluate("document.getElementById('full-answer').textContent")
            assert full.startswith("It was shot in Port Ellis. [2]")  # the full answer, cited
            assert released == [True]
            events = browser.evaluate("window.graphmindEvents")
            assert events == [
                "started",
                *("round", "passages", "verdicts", "gap"),
                *("round", "passages", "verdicts"),
                "answer",
            ]
            cited = browser.evaluate(
                "[...document.querySelectorAll('#citations li b')].map(b => b.textContent)"
            )
            assert cited == ["Aldo Vance: ", "Silent Harbor: "]
            decision = browser.evaluate(
                "document.getElementById('answer-grade').textContent.split('decision ')[1]"
            )
            assert s.service.trace(decision).answer == "Port Ellis"

            browser.evaluate("document.getElementById('correct').click(); true")
            browser.wait_for(
                "document.getElementById('feedback-status').textContent"
                " === 'marked correct (was pending)'"
            )
            assert s.service.trace(decision).outcome == "correct"

            # the evidence graph: the page graphmind show draws, in the frame
            browser.wait_for(
                "(document.getElementById('graph').contentDocument || {}).readyState === 'complete'"
                " && document.getElementById('graph').contentDocument.body.innerText"
                ".includes('passage used')"
            )
            browser.evaluate("document.getElementById('graph').scrollIntoView(); true")
            shot = Path(os.environ.get("GRAPHMIND_TEST_SHOTS", tmp_path)) / "serve-page.png"
            deadline = time.monotonic() + SHOTS_FOR
            while True:  # the layout runs off the page's thread: shots until it has drawn
                pixels = colour_pixels(browser.screenshot(shot))
                if all(pixels[c] > 400 for c in DRAWN) or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
        finally:
            browser.close()
    for colour in DRAWN:
        assert pixels[colour] > 400, colour
