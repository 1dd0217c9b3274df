"""In a real browser (headless Chromium driven by Selenium, Debian's chromium and chromium-driver): a
student opens their link, uploads a buggy file, sees the diagnosis and the heatmap, uploads the fix
and sees what changed and both attempts; the instructor sees both in the student's history, overrides
one with a reason, and finds the override in the history and in the downloaded gradebook. The service
is a real uvicorn on loopback grading in the real sandbox. A self-learner, with no account, answers a
quiz question, sees the verdict and the follow-up, and reveals and rates a recall card. Skips, saying why,
where Chromium is absent."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest
from support.corpora import ROOT
from support.serving import SECRET, on_loopback, student, write_course

from grader.paths import INSTRUCTOR_RUBRIC
from grader.report.models import Report
from grader.serve.app import make_app
from grader.serve.course import load_course
from grader.serve.tokens import INSTRUCTOR, token_for
from grader.serve.worker import sandbox_grader

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the dev extras have it)")
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="Chromium or chromedriver is absent "
                                "(Debian: apt-get install chromium chromium-driver)")
BUGGY, FIXED = ROOT / "reference" / "mutants" / "no_mask.py", ROOT / "reference" / "attention.py"
WAIT_S = 120  # a bound on each wait for a page's state, never an assertion about speed


@pytest.fixture
def browser():
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1200,900", "--no-first-run", "--disable-extensions"):
        options.add_argument(flag)
    # The driver named explicitly: Selenium Manager never runs, so nothing is downloaded.
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(WAIT_S)
    yield driver
    driver.quit()


def _upload(driver, base: str, source: Path, folder: Path) -> None:
    from selenium.webdriver.common.by import By

    folder.mkdir()
    copy = folder / "attention.py"  # the name a student's file has
    copy.write_bytes(source.read_bytes())
    driver.get(base + "/")
    driver.find_element(By.CSS_SELECTOR, 'input[type="file"]').send_keys(str(copy))
    driver.find_element(By.CSS_SELECTOR, 'form[action="/submit"] button').click()


def _graded_page(driver, attempt: int) -> str:
    """Attempt `attempt`'s report page once graded: it reloads itself every second until then, so the
    wait is for the report itself (a page caught mid-reload is empty, not graded)."""
    from selenium.webdriver.support.ui import WebDriverWait

    def graded(d) -> str | bool:
        page = d.page_source
        return page if 'class="grader-report"' in page and "Attention check: attention.py" in page and (
            f"since attempt {attempt - 1}" in page if attempt > 1 else "What changed" not in page) else False

    return WebDriverWait(driver, WAIT_S, poll_frequency=0.2).until(graded)


def test_a_student_and_the_instructor_in_a_real_browser(browser, sandbox, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    course = load_course(write_course(tmp_path / "course", release="immediate"))
    app = make_app(course, SECRET, grade=sandbox_grader(INSTRUCTOR_RUBRIC, SECRET, sandbox))
    store = app.state.svc.store
    with on_loopback(app) as base:
        browser.get(f"{base}/sign-in?token={token_for(SECRET, student('s1'))}")
        assert "Your attention.py" in browser.page_source and "Ada One" in browser.page_source

        _upload(browser, base, BUGGY, tmp_path / "first")
        page = _graded_page(browser, 1)
        (first,) = store.history("s1")
        report = Report.model_validate_json(first.report)
        assert report.diagnoses and report.score < report.max_score
        assert report.diagnoses[0].section in page  # the diagnosis, in the chapter's words
        assert f"{report.score:g}" in page
        heatmaps = browser.find_elements(By.CSS_SELECTOR, "img.heatmap")
        assert heatmaps and all(h.get_attribute("src").startswith("data:image/png;base64,") for h in heatmaps)
        assert browser.execute_script("return arguments[0].naturalWidth", heatmaps[0]) > 0  # it decoded and drew
        browser.save_screenshot(str(tmp_path / "student-report.png"))

        _upload(browser, base, FIXED, tmp_path / "second")
        page = _graded_page(browser, 2)
        second = store.history("s1")[1]
        fixed = Report.model_validate_json(second.report)
        assert fixed.score == fixed.max_score and fixed.score > report.score
        assert f"{fixed.score:g}" in page
        assert "What changed since attempt 1" in page and "no diagnosis any more" in page  # the history tells

        browser.get(base + "/")
        rows = browser.find_elements(By.CSS_SELECTOR, 'a[href^="/submissions/"]')
        assert [r.get_attribute("href").removeprefix(base) for r in rows] == [
            f"/submissions/{first.id}", f"/submissions/{second.id}"]  # the history: both attempts, in order

        browser.delete_all_cookies()  # the instructor, in the same browser
        browser.get(f"{base}/sign-in?token={token_for(SECRET, INSTRUCTOR)}")
        assert browser.current_url == base + "/class"
        row = browser.find_element(By.XPATH, "//tr[td/a[text()='Ada One (s1)']]").text
        assert "2" in row.split() and f"{fixed.score:g} / {fixed.max_score:g}" in row
        browser.find_element(By.LINK_TEXT, "Ada One (s1)").click()  # the name with its id, as the CLI lists students
        history = browser.page_source
        assert f"/submissions/{first.id}" in history and f"/submissions/{second.id}" in history
        assert f"{report.score:g} / {report.max_score:g}" in history

        reason = "two days' extension agreed; the late penalty is taken off by hand"
        form = browser.find_element(By.CSS_SELECTOR, f'tr#attempt-{second.id} form.override-form')
        form.find_element(By.NAME, "points").send_keys("95")
        form.find_element(By.NAME, "reason").send_keys(reason)
        form.find_element(By.TAG_NAME, "button").click()
        WebDriverWait(browser, WAIT_S).until(lambda d: reason in d.page_source)  # back on the history page
        row = browser.find_element(By.ID, f"attempt-{second.id}").text
        assert "95 / 100" in row and reason in row and f"graded {fixed.score:g} / {fixed.max_score:g}" in row
        assert f"{report.score:g} / {report.max_score:g}" in browser.find_element(By.ID, f"attempt-{first.id}").text

        downloads = tmp_path / "downloads"
        downloads.mkdir()
        browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
        browser.get(base + "/class")
        browser.find_element(By.LINK_TEXT, "gradebook.csv").click()
        saved = downloads / "gradebook.csv"
        WebDriverWait(browser, WAIT_S).until(lambda d: saved.is_file() and saved.stat().st_size > 0)
        rows = {r["ID"]: r for r in csv.DictReader(io.StringIO(saved.read_text(encoding="utf-8")))}
        assert rows["s1"]["Student"] == "Ada One" and rows["s1"]["Score"] == "95" and reason in rows["s1"]["Notes"]


def test_a_self_learner_takes_the_quiz_and_rates_a_card_in_a_real_browser(browser, tmp_path):
    """No account and no token: the course file lets self-learners in, and the browser's own cookie keeps
    its progress. The answer is judged by the quiz's judge; the card is scheduled by FSRS."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from grader.quiz.load import DEFAULT_QUIZ, load_quiz

    quiz = load_quiz(DEFAULT_QUIZ)
    course = load_course(write_course(tmp_path / "course", self_learners="true"))
    app = make_app(course, SECRET, grade=None)
    with on_loopback(app) as base:
        browser.get(base + "/")
        browser.find_element(By.LINK_TEXT, "Take the chapter's quiz").click()
        assert "Question 1 of 9" in browser.page_source
        browser.find_element(By.CSS_SELECTOR, 'form.answer textarea[name="answer"]').send_keys(
            "the values are what gets mixed")
        browser.find_element(By.XPATH, "//form[@class='answer']//button[text()='Check']").click()
        WebDriverWait(browser, WAIT_S).until(lambda d: "Verdict:" in d.page_source)
        assert browser.find_element(By.CSS_SELECTOR, "p.verdict").text.startswith("Verdict: partial")
        assert "Which two of the three projections" in browser.find_element(By.CSS_SELECTOR, "form.follow-up").text
        browser.find_element(By.CSS_SELECTOR, 'form.follow-up textarea').send_keys("the query and the key")
        browser.find_element(By.CSS_SELECTOR, "form.follow-up button").click()
        WebDriverWait(browser, WAIT_S).until(lambda d: "Model answer:" in d.page_source)
        assert "✓ The weights come from matching queries against keys" in browser.find_element(By.TAG_NAME, "body").text
        browser.save_screenshot(str(tmp_path / "quiz-verdict.png"))

        browser.get(base + "/cards")
        back = browser.find_element(By.CSS_SELECTOR, "p.back")
        assert quiz.cards[0].front in browser.find_element(By.CSS_SELECTOR, "p.front").text
        assert not back.is_displayed()  # the answer waits for the reveal
        browser.find_element(By.TAG_NAME, "summary").click()
        assert back.is_displayed() and quiz.cards[0].back in back.text
        browser.find_element(By.XPATH, "//button[text()='Again']").click()
        WebDriverWait(browser, WAIT_S).until(lambda d: quiz.cards[1].front in d.page_source)
        browser.get(base + "/quiz")  # the quiz kept its place across pages: the same browser, the same visitor
        assert "Question 1 of 9" in browser.page_source and "Model answer:" in browser.page_source
