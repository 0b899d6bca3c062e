import os
import subprocess
import sys

import pytest

from repbook import layout

from repbook.runner.cli import main, parse_value


@pytest.mark.parametrize(
    "text, value",
    [
        ("True", True),
        ("false", False),
        ("None", None),
        ("3", 3),
        ("0.5", 0.5),
        ("full", "full"),
        ("1e-3", 1e-3),
    ],
)
def test_parse_value_like_papermill(text, value):
    assert parse_value(text) == value


def test_bogus_scale_fails_before_any_kernel_starts(tmp_path):
    log = tmp_path / "kernels.log"
    env = {**os.environ, layout.KERNEL_LOG_ENV: str(log)}
    proc = subprocess.run(
        [sys.executable, "-m", "repbook", "run", "04", "-p", "scale", "bogus"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 2
    assert (
        "parameter 'scale' must be one of 'quick', 'full'; got 'bogus'" in proc.stderr
    )
    assert not log.exists(), "a kernel was started for a bad parameter"


@pytest.mark.parametrize(
    "argv, msg",
    [
        (["run", "04", "--seed", "-1"], "'seed' must be a non-negative int"),
        (["run", "04", "-p", "nope", "1"], "unknown parameter(s) 'nope'"),
        (["run", "04", "--scale", "medium"], "'scale' must be one of"),
        (["run", "99"], "no chapter matches '99'"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(argv, msg, capsys):
    assert main(argv) == 2
    assert msg in capsys.readouterr().err


def test_list(capsys):
    assert main(["list"]) == 0
    assert "04_aurc" in capsys.readouterr().out


def test_full_asks_for_a_chapter_or_all(capsys):
    assert main(["full"]) == 2
    assert "name the chapter(s)" in capsys.readouterr().err
    assert main(["full", "04", "--all"]) == 2


def test_lab_settings_merge_with_the_users_own(tmp_path, monkeypatch):
    import json

    from repbook.runner import cli

    monkeypatch.setattr(cli.sys, "prefix", str(tmp_path))
    path = tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    path.parent.mkdir(parents=True)
    mine = {
        "@jupyterlab/docmanager-extension:plugin": {
            "autosave": False,
            "defaultViewers": {"markdown": "Editor"},
        },
        "@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"},
    }
    path.write_text(json.dumps(mine))
    assert cli.lab_settings() == path
    got = json.loads(path.read_text())
    doc = got["@jupyterlab/docmanager-extension:plugin"]
    assert doc["autosave"] is False and doc["defaultViewers"] == {
        "markdown": "Editor",
        "python": "Jupytext Notebook",
    }
    assert got["@jupyterlab/apputils-extension:themes"] == {"theme": "JupyterLab Dark"}
