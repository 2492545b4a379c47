"""The MIP solvers' processes: the one module of boostrank that starts, signals, kills or finds them.

CBC runs as a binary beside this process: :func:`run_solver` reads its log as it comes, stops it at its time
limit (SIGINT, then SIGKILL) and, on Linux, has the kernel kill it when this process dies; its work folder
holds an ``flock`` while a fit runs (:func:`held_owner`), so :func:`clean_stale_cbc_folders` removes only the
folders of fits that were killed.  A PuLP solver object runs in its own thread, and past its limit the
processes that name its folder are killed (:func:`solve_within`).  HiGHS prints a banner on fd 1 before any
option can silence it (:func:`silent`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

__all__ = ["run_solver", "clean_stale_cbc_folders", "held_owner", "silent", "solve_within", "CBC_PREFIX"]


def read_log(stream, lines, verbose):
    for line in stream:
        lines.append(line)
        if verbose:
            print(line, end="", flush=True)


def wait_or_stop(proc, time_limit):
    """Wait for CBC; past its limit plus a grace, interrupt it, then kill it.

    CBC checks its clock only between phases: on large models its root node ran
    40 s past ``-sec 20``.  SIGINT makes it stop and still write its incumbent.
    """
    if time_limit is None:
        proc.wait()
        return False
    grace = 1.0 + 0.1 * float(time_limit)
    try:
        proc.wait(timeout=float(time_limit) + grace)
        return False
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=2.0)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    return True


CBC_PREFIX = "boostrank_cbc_"
_STALE_WITHOUT_OWNER = 24 * 3600.0  # seconds: folders of a version that wrote no owner file


def owner_lock(path: str):
    """The locked ``owner`` file of a live fit's folder: an open fd, or None when the lock is taken.

    Opened without following a symlink and without blocking (a FIFO would block ``open``
    forever), and only a regular file is accepted; nothing is read from it.
    """
    import fcntl  # POSIX; elsewhere the ImportError (an OSError's sibling) leaves every folder alone

    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return fd


def clean_stale_cbc_folders(folder: str | None = None) -> list[str]:
    """Remove this user's CBC work folders whose fit is over (its process was killed mid-fit).

    A live fit holds an ``flock`` on its folder's ``owner`` file for as long as it runs, in
    any process or PID namespace sharing the folder (containers sharing ``/tmp``), and the
    kernel drops the lock when the process dies.  A folder qualifies when it is a real
    folder (not a symlink) named ``boostrank_cbc_*``, owned by the current user, and the lock
    on its ``owner`` file (a regular file: no symlink, FIFO or device) can be taken; a folder
    without that file qualifies when it is over a day old.  Returns the removed paths.
    """
    folder = folder or tempfile.gettempdir()
    removed = []
    try:
        names = [n for n in os.listdir(folder) if n.startswith(CBC_PREFIX)]
    except OSError:
        return removed
    uid = os.getuid() if hasattr(os, "getuid") else None
    for name in names:
        path = os.path.join(folder, name)
        fd = None
        try:
            st = os.lstat(path)
            if not stat.S_ISDIR(st.st_mode) or (uid is not None and st.st_uid != uid):
                continue
            try:
                fd = owner_lock(os.path.join(path, "owner"))
            except FileNotFoundError:
                if time.time() - st.st_mtime <= _STALE_WITHOUT_OWNER:
                    continue
            except (OSError, ImportError):
                continue
            else:
                if fd is None:  # a live fit holds it
                    continue
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
        except OSError:
            continue
        finally:
            if fd is not None:
                os.close(fd)
    return removed


@contextlib.contextmanager
def held_owner(folder: str):
    """Create ``folder/owner`` and hold an ``flock`` on it while the fit runs (see
    :func:`clean_stale_cbc_folders`); the pid inside is for people reading the folder."""
    fd = os.open(os.path.join(folder, "owner"), os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                 0o600)
    try:
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        except ImportError:  # no flock (Windows): the cleaner leaves folders with an owner file alone
            pass
        os.write(fd, str(os.getpid()).encode("ascii"))
        yield
    finally:
        os.close(fd)


def run_solver(args, time_limit, verbose):
    """Run a solver binary (CBC), its log read as it comes (printed with ``verbose``): (log, whether the time
    limit stopped it from outside, whether it exited 0)."""
    log_lines = []
    kwargs = {"preexec_fn": die_with_parent} if sys.platform.startswith("linux") else {}
    with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                          text=True, errors="replace", **kwargs) as proc:
        reader = threading.Thread(target=read_log, args=(proc.stdout, log_lines, verbose), daemon=True)
        reader.start()
        try:
            interrupted = wait_or_stop(proc, time_limit)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        reader.join()
    return "".join(log_lines), interrupted, proc.returncode == 0


def silent(make):
    """``make()`` with the process's stdout (fd 1) sent to /dev/null: HiGHS prints its banner when
    constructed, before any option can turn its output off, and it landed in logs and tables."""
    import ctypes

    if sys.platform == "win32":
        return make()
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    libc.fflush(None)
    saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        return make()
    finally:
        libc.fflush(None)  # C's buffer holds the banner: out to /dev/null before fd 1 comes back
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


def solve_within(problem, solver, time_limit, folder):
    """``problem.solve(solver)`` kept to ``time_limit`` from outside: past the limit and a grace, the
    solver's processes (those naming ``folder`` on their command line) are killed.

    Returns None, the ``PulpSolverError`` raised, or ``"overran"``.  A solver running inside this
    process (PuLP's HiGHS through highspy) cannot be stopped from outside; its thread is left to finish.
    """
    import pulp

    box = {}

    def run():
        try:
            problem.solve(solver)
        except pulp.PulpSolverError as exc:
            box["error"] = exc
        except Exception as exc:  # noqa: BLE001 - a killed solver makes PuLP fail in its own ways
            box["error"] = pulp.PulpSolverError(f"{type(exc).__name__}: {exc}")

    if time_limit is None:
        run()
        return box.get("error")
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(float(time_limit) + 1.0 + 0.1 * float(time_limit))
    if not worker.is_alive():
        return box.get("error")
    for pid in processes_naming(folder):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    worker.join(5.0)
    return "overran"


def processes_naming(folder: str) -> list[int]:
    """Processes of this user whose command line names ``folder`` (Linux /proc; elsewhere none)."""
    found = []
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return found
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if folder.encode() in fh.read(65536) and int(pid) != os.getpid():
                    found.append(int(pid))
        except OSError:
            continue
    return found


def die_with_parent() -> None:
    """``preexec_fn`` of a child that is not Python (a solver binary): SIGKILL when this process dies (Linux)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - best effort; the solver still honours its time limit
        pass
