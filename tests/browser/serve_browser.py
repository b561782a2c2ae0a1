#!/usr/bin/env python3
"""Drives a real headless Chromium through `kalaha serve`'s page (WebDriver, Debian's chromium and
chromium-driver): a whole game at each level by clicking pits, undo and redo, a hint appearing,
the review after the game with its mistakes stepped through, the analysis board, the language
switch, and no console errors. Saves a screenshot of the board to checkpoints/runs/serve-board.png (run output; --screenshot elsewhere).

    python3 tests/browser/serve_browser.py [--bin target/release/kalaha] [--levels easy,medium,hard,perfect]

Skips (exit 0, saying why) when chromium, chromedriver or selenium is missing; with --require
(as CI runs it) a missing part is a failure (exit 1) instead.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


REQUIRE = "--require" in sys.argv


def skip(why):
    if REQUIRE:
        print(f"serve_browser: FAILED: required, but {why}")
        sys.exit(1)
    print(f"serve_browser: SKIPPED: {why}")
    sys.exit(0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "kalaha"))
    ap.add_argument("--levels", default="easy,medium,hard,perfect")
    ap.add_argument("--require", action="store_true", help="a missing browser, driver or selenium fails")
    ap.add_argument("--screenshot", default=os.path.join(ROOT, "checkpoints", "runs", "serve-board.png"))
    args = ap.parse_args()

    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver_bin = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
    if not chromium or not driver_bin:
        skip("chromium and chromium-driver are not installed (apt-get install -y chromium chromium-driver)")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import Select, WebDriverWait
    except ImportError:
        skip("the selenium package is not installed (pip install selenium)")
    if not os.path.exists(args.bin):
        sys.exit(f"serve_browser: no binary at {args.bin}: cargo build --release first")

    server = subprocess.Popen([args.bin, "serve", "--port", "0", "--json"], stdout=subprocess.PIPE, text=True)
    driver = None
    try:
        line = server.stdout.readline()
        if not line:
            sys.exit("serve_browser: the server did not start")
        url = json.loads(line)["url"]
        opts = webdriver.ChromeOptions()
        opts.binary_location = chromium
        for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1100,1300", "--lang=en-US"]:
            opts.add_argument(a)
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(driver_bin), options=opts)
        wait = WebDriverWait(driver, 120, poll_frequency=0.05)
        idle = lambda d: d.execute_script("return window.kalahaBusy === false && window.kalahaState() !== null")
        state = lambda: driver.execute_script("return window.kalahaState()")
        driver.get(url + "?speed=4")
        wait.until(idle)
        checks = []

        def new_game(level):
            Select(driver.find_element(By.ID, "level")).select_by_value(level)
            driver.find_element(By.ID, "new-game").click()
            time.sleep(0.1)
            wait.until(idle)

        def click_pit(nth=0):
            pits = driver.find_elements(By.CSS_SELECTOR, "#board-wrap .pit.legal")
            assert pits, f"no legal pit to click in {state()['position']}"
            pits[nth % len(pits)].click()
            time.sleep(0.05)
            wait.until(idle)

        for i, level in enumerate(args.levels.split(",")):
            new_game(level)
            s = state()
            assert s["level"] == level, s
            bot = s["bot"]
            option = Select(driver.find_element(By.ID, "level")).first_selected_option.text
            assert bot in option, (bot, option)
            if i == 0:
                # Undo and redo after two moves; a hint with the network and the solver.
                click_pit(0)
                click_pit(1)
                before = state()["moves"]
                driver.find_element(By.ID, "undo").click()
                wait.until(idle)
                assert state()["moves"] != before and len(state()["moves"]) < len(before)
                driver.find_element(By.ID, "redo").click()
                wait.until(idle)
                assert state()["moves"] == before, (state()["moves"], before)
                checks.append("undo/redo")
                driver.find_element(By.ID, "hint").click()
                wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hint-out .hint-table"))
                wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hint-out .solver-line"))
                wait.until(idle)
                checks.append("hint: " + driver.find_element(By.CSS_SELECTOR, "#hint-out .solver-line").text)
                os.makedirs(os.path.dirname(args.screenshot), exist_ok=True)
                driver.save_screenshot(args.screenshot)
            n = 0
            while not state()["position"]["over"]:
                click_pit(n * 7 + i)
                n += 1
                assert n < 200, "the game did not end"
            status = driver.find_element(By.ID, "status").text
            assert "Game over" in status, status
            checks.append(f"{level} ({bot}): {state()['result_text']} in {len(state()['history'])} moves")
        # The review of the last game: every move listed, the mistakes stepped through.
        driver.find_element(By.ID, "review-btn").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#review-list li"))
        wait.until(idle)
        items = driver.find_elements(By.CSS_SELECTOR, "#review-list li")
        assert len(items) == len(state()["history"]), (len(items), len(state()["history"]))
        driver.find_element(By.ID, "next-mistake").click()
        detail = driver.find_element(By.ID, "review-detail").text
        assert detail, "no review detail"
        checks.append(f"review: {driver.find_element(By.ID, 'review-summary').text}")
        # The analysis board on the game's position... and on a pasted one.
        driver.find_element(By.ID, "tab-analyse").click()
        pos = driver.find_element(By.ID, "a-position")
        pos.clear()
        pos.send_keys("0,5,3,1,0,2,15/1,0,2,4,0,3,12 s")
        Select(driver.find_element(By.ID, "a-preset")).select_by_value("international")
        driver.find_element(By.ID, "a-go").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#a-out .solver-line"))
        wait.until(idle)
        checks.append("analysis: " + driver.find_element(By.CSS_SELECTOR, "#a-out .solver-line").text)
        driver.find_element(By.ID, "tab-play").click()
        # The language switch.
        for code, word in [("sv", "Nytt parti"), ("da", "Nyt spil"), ("no", "Nytt parti"), ("en", "New game")]:
            Select(driver.find_element(By.ID, "lang")).select_by_value(code)
            got = driver.find_element(By.ID, "new-game").text
            assert got == word, (code, got)
            store = driver.find_elements(By.CSS_SELECTOR, "#board-wrap .store .num")[0].text
            assert store == "kalaha", store
        checks.append("languages: sv, da, no, en")
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, f"console errors: {errors}"
        checks.append("no console errors")
        for c in checks:
            print("serve_browser: ok:", c)
        print(f"serve_browser: PASSED ({len(checks)} checks); screenshot {args.screenshot}")
    finally:
        if driver is not None:
            driver.quit()
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
