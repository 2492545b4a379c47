"""boostrank.mip.processes: CBC's processes and folders, private, locked, cleaned and stopped."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from boostrank.mip import build_problem, solve
from boostrank.mip import solvers as solvers_module
from boostrank.mip import processes

from .conftest import _small


def test_cbc_files_are_private_and_removed(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    seen = {}
    real = solvers_module.write_mps

    def spy(model, path):
        real(model, path)
        seen["mode"] = os.stat(os.path.dirname(path)).st_mode & 0o777

    monkeypatch.setattr(solvers_module, "write_mps", spy)
    X, y = _small(0, 3)
    solve(build_problem(X / 2, y.astype(float)), "cbc")
    assert seen["mode"] == 0o700
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux only")
def test_a_killed_python_does_not_leave_cbc_running(tmp_path):
    script = textwrap.dedent(f"""
        import numpy as np, tempfile
        tempfile.tempdir = {str(tmp_path)!r}
        from boostrank.mip import build_problem, solve
        rng = np.random.default_rng(0)
        X = rng.normal(size=(300, 6)); y = (X[:, 0] + rng.normal(size=300) > 0).astype(float)
        print("start", flush=True)
        solve(build_problem(X / np.abs(X).max(0), y), "cbc", time_limit=60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "start"
    deadline = time.time() + 30
    while time.time() < deadline and not _cbc_children(tmp_path):
        time.sleep(0.2)
    assert _cbc_children(tmp_path), "CBC did not start"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 10
    while time.time() < deadline and _cbc_children(tmp_path):
        time.sleep(0.2)
    assert not _cbc_children(tmp_path)
    left = [p for p in tmp_path.iterdir() if p.name.startswith("boostrank_cbc_")]
    assert left and solvers_module.clean_stale_cbc_folders(str(tmp_path)) == [str(p) for p in left]
    assert not any(p.exists() for p in left)


def test_stale_cbc_folders_of_dead_processes_are_cleaned_and_nothing_else(tmp_path):
    """Hardening #20 and #43 item 3: SIGKILL during a CBC fit left its folder (a 2 MB model.mps) for good; a
    folder is stale when nobody holds the lock on its owner file (a live fit in another PID namespace names
    a pid that does not exist here, yet holds the lock)."""
    import fcntl

    folders, held = {}, []
    for name, owner, age, lock in [("dead", "123456789", 0, False), ("alive", str(os.getpid()), 0, True),
                                   ("other_namespace", "999999999", 0, True),
                                   ("old", None, 2 * 86400, False), ("fresh", None, 0, False),
                                   ("junk", "not a pid", 0, False)]:
        path = tmp_path / f"boostrank_cbc_{name}"
        path.mkdir()
        (path / "model.mps").write_text("x")
        if owner is not None:
            (path / "owner").write_text(owner)
            if lock:
                fd = os.open(path / "owner", os.O_RDONLY)
                fcntl.flock(fd, fcntl.LOCK_EX)
                held.append(fd)
        if age:
            os.utime(path, (time.time() - age, time.time() - age))
        folders[name] = path
    (tmp_path / "boostrank_cbc_link").symlink_to(folders["dead"])
    (tmp_path / "other_dead").mkdir()
    try:
        removed = solvers_module.clean_stale_cbc_folders(str(tmp_path))
    finally:
        for fd in held:
            os.close(fd)
    assert sorted(removed) == sorted(str(folders[n]) for n in ("dead", "old", "junk"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["boostrank_cbc_alive", "boostrank_cbc_fresh",
                                                          "boostrank_cbc_link", "boostrank_cbc_other_namespace",
                                                          "other_dead"]


def _cbc_children(folder):
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmd = fh.read().decode(errors="replace")
        except OSError:
            continue
        if str(folder) in cmd and "model.mps" in cmd:
            out.append(int(pid))
    return out


def _cbc_folder(tmp_path, name):
    path = tmp_path / f"boostrank_cbc_{name}"
    path.mkdir()
    return path


def test_a_live_fit_in_another_pid_namespace_keeps_its_folder(tmp_path):
    """The owner's pid does not exist here, but its process holds the lock: the folder is live."""
    import subprocess
    import sys
    import textwrap

    path = _cbc_folder(tmp_path, "live")
    (path / "model.mps").write_text("x")
    script = textwrap.dedent(f"""
        import fcntl, os, sys
        fd = os.open({str(path / "owner")!r}, os.O_WRONLY | os.O_CREAT)
        os.write(fd, b"999999999")  # a pid of another namespace
        fcntl.flock(fd, fcntl.LOCK_EX)
        print("locked", flush=True)
        sys.stdin.readline()
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "locked"
        from boostrank.mip import solvers
        assert solvers.clean_stale_cbc_folders(str(tmp_path)) == []
        assert (path / "model.mps").exists()
    finally:
        proc.stdin.close()
        proc.wait()
    assert solvers.clean_stale_cbc_folders(str(tmp_path)) == [str(path)]  # its process ended: stale


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "folder"])
def test_an_owner_that_is_not_a_regular_file_neither_blocks_nor_is_read(tmp_path, kind):
    import os
    import threading

    from boostrank.mip import solvers

    path = _cbc_folder(tmp_path, kind)
    owner = path / "owner"
    if kind == "fifo":
        os.mkfifo(owner)
    elif kind == "dev_zero":
        owner.symlink_to("/dev/zero")
    else:
        owner.mkdir()
    out = {}
    thread = threading.Thread(target=lambda: out.setdefault("removed", solvers.clean_stale_cbc_folders(str(tmp_path))),
                              daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "the cleaner blocked on the owner file"
    assert out["removed"] == [] and path.exists()


def test_a_cbc_fit_holds_the_lock_on_its_folder_while_it_runs(tmp_path, monkeypatch):
    import os

    from boostrank.mip import build_problem, solve, solvers

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    seen = {}
    real = solvers.write_mps

    def spy(model, path):
        real(model, path)
        folder = os.path.dirname(path)
        seen["lock"] = processes.owner_lock(os.path.join(folder, "owner"))
        seen["cleaned"] = solvers.clean_stale_cbc_folders(str(tmp_path))

    monkeypatch.setattr(solvers, "write_mps", spy)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    res = solve(build_problem(X / 4, (X[:, 0] > 0).astype(float)), "cbc")
    assert seen == {"lock": None, "cleaned": []} and res.status == "optimal"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_pulp_solver_that_ignores_its_time_limit_is_stopped_from_outside():
    """Item 8: a solver object that does not keep timeLimit ran 30 s under time_limit=3."""
    import subprocess
    import sys
    import time

    pulp = pytest.importorskip("pulp")
    from boostrank.mip import build_problem, solve

    class Stubborn(pulp.LpSolver_CMD):
        def defaultPath(self):
            return sys.executable

        def available(self):
            return True

        def actualSolve(self, lp):  # a solver process that never looks at the clock
            subprocess.run([sys.executable, "-c", "import time; time.sleep(60)", self.tmpDir])
            return lp.status

    rng = np.random.default_rng(2)
    X = rng.normal(size=(10, 2))
    t = time.perf_counter()
    res = solve(build_problem(X / 4, (X[:, 0] > 0).astype(float)), Stubborn(msg=False), time_limit=2)
    assert time.perf_counter() - t < 20
    assert res.status == "no solution" and "overran the time limit of 2 s" in res.log
