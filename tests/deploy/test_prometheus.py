"""``deploy/prometheus/`` checked by Prometheus's own ``promtool`` (Debian's ``prometheus``
package; ``.ci/run`` installs it): the scrape configuration installed as ``deploy/README.md``
says (with its token file), the alert rules, and ``alerts_test.yml``'s cases, one for every
alert. Without ``promtool`` these tests fail: they are the only check of the rules' meaning."""

from __future__ import annotations

import grp
import os
import shutil
import stat
import subprocess
from pathlib import Path

import yaml

from tests.deploy.test_systemd import shell_lines

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS = ROOT / "deploy" / "prometheus"
TOKEN = "metrics-token-of-the-test"


def promtool_path() -> str:
    tool = shutil.which("promtool")
    assert tool, "no promtool: install Debian's prometheus package (.ci/run does)"
    return tool


def promtool(*args: str) -> str:
    done = subprocess.run(
        [promtool_path(), *args], cwd=PROMETHEUS, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_configuration_installed_as_the_readme_says_checks(tmp_path: Path) -> None:
    """The README's commands in a directory standing for /etc/prometheus (the test's own group
    for ``prometheus``'s, the checkout for /opt/omerta; no reload), then ``promtool check
    config``: the token file it names is there, readable by root and that group only."""
    lines = shell_lines("## Metrics and alerts")
    assert lines[0] == "cd /etc/prometheus"
    group = grp.getgrgid(os.getgid()).gr_name
    script = "\n".join(
        line.replace("sudo ", "")
        .replace("/opt/omerta", str(ROOT))
        .replace("-g prometheus", f"-g {group}")
        .replace("systemctl reload prometheus", "true")
        for line in ["set -e", *lines[1:]]
    )
    promtool_path()  # the README's last command runs it
    done = subprocess.run(
        ["sh", "-c", script],
        cwd=tmp_path,
        env={**os.environ, "OMERTA_METRICS_TOKEN": TOKEN},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "is valid prometheus config file syntax" in done.stdout, done.stdout
    token = tmp_path / "omerta-metrics-token"
    assert token.read_text().strip() == TOKEN
    assert stat.S_IMODE(token.stat().st_mode) == 0o640


def test_every_process_of_omerta_run_is_scraped() -> None:
    config = yaml.safe_load((PROMETHEUS / "prometheus.yml").read_text())
    targets = {
        job["job_name"]: [t for static in job["static_configs"] for t in static["targets"]]
        for job in config["scrape_configs"]
    }
    # omerta run with OMERTA_WORKER_METRICS_PORT=9101: the worker, its AI worker, the analysis
    # worker in this order (api.serving.supervisor); the web server on 8000.
    assert targets == {
        "omerta-web": ["127.0.0.1:8000"],
        "omerta-worker": ["127.0.0.1:9101"],
        "omerta-ai-worker": ["127.0.0.1:9102"],
        "omerta-analysis-worker": ["127.0.0.1:9103"],
    }


def test_the_alert_rules_check() -> None:
    assert "SUCCESS" in promtool("check", "rules", "alerts.yml")


def test_every_alert_has_a_promtool_test_and_they_pass() -> None:
    rules = yaml.safe_load((PROMETHEUS / "alerts.yml").read_text())
    alerts = {rule["alert"] for group in rules["groups"] for rule in group["rules"]}
    cases = yaml.safe_load((PROMETHEUS / "alerts_test.yml").read_text())
    tested = {check["alertname"] for case in cases["tests"] for check in case["alert_rule_test"]}
    assert tested == alerts
    # Each alert is seen both silent and firing.
    for alert in alerts:
        expected = [
            bool(check["exp_alerts"])
            for case in cases["tests"]
            for check in case["alert_rule_test"]
            if check["alertname"] == alert
        ]
        assert {True, False} <= set(expected), alert
    assert "SUCCESS" in promtool("test", "rules", "alerts_test.yml")
