"""boostrank.precompile: the warm-up's worker processes run boostrank's code only, and die with it."""

import os
import signal
import subprocess
import sys
import time

import pytest

import boostrank as br
from boostrank.precompile import child_command


def planted(folder):
    """A folder holding a json.py and an os.py that would leave a mark if any Python in it imported them."""
    for name in ("json", "os", "numpy"):
        (folder / f"{name}.py").write_text(f"open({str(folder / 'RAN')!r}, 'a').write('{name}')\n")
    return folder / "RAN"


def test_children_run_boostrank_not_the_current_folder(tmp_path, monkeypatch):
    mark = planted(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # the user's environment is not the child's either
    code = "import json, numpy, boostrank; print(json.__file__); print(boostrank.__file__)"
    done = subprocess.run(child_command(code), cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert not mark.exists()
    json_file, boostrank_file = done.stdout.split()
    assert not json_file.startswith(str(tmp_path))
    # this process's copy, not one pip installed elsewhere (Numba keys its cache by the source file's path)
    assert os.path.dirname(os.path.dirname(boostrank_file)) == os.path.dirname(os.path.dirname(br.__file__))
    order = subprocess.run(child_command("import sys, json; print(json.dumps(sys.path))"), cwd=tmp_path,
                           capture_output=True, text=True, timeout=120).stdout
    import json

    path = json.loads(order)
    stdlib = os.path.dirname(os.__file__)
    root = os.path.dirname(os.path.dirname(br.__file__))
    if root in path:
        assert path.index(root) > max(i for i, p in enumerate(path) if os.path.abspath(p) == stdlib)


@pytest.mark.slow
def test_warmup_in_a_folder_with_a_json_py_runs_none_of_it(tmp_path):
    mark = planted(tmp_path)
    # as the console script runs: from the user's folder (the parent's own sys.path is its launcher's business)
    script = tmp_path.parent / "launch.py"
    script.write_text("import sys; sys.path.remove(sys.path[0]); from boostrank.cli import main; "
                      "sys.exit(main(['warmup', '--only', 'metrics,mip', '--n-jobs', '2']))\n")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert not mark.exists(), done.stderr


def children_of(pid: int) -> list:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_sigterm_to_warmup_leaves_no_worker_compiling(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}  # a cold cache: the workers compile a while
    parent = subprocess.Popen([sys.executable, "-m", "boostrank", "warmup", "--n-jobs", "2"], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len(children_of(parent.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        workers = children_of(parent.pid)
        assert len(workers) == 2, "the warm-up did not start its two workers"
        parent.send_signal(signal.SIGTERM)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(alive(w) for w in workers), "a worker outlived the warm-up it compiled for"
    finally:
        parent.kill()
