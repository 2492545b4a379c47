"""The package imports and runs from a read-only install with an unwritable HOME."""

import os
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _can_mount_read_only(tmp_path):
    probe = tmp_path / "probe"
    probe.mkdir()
    cmd = f"mount --bind {probe} {probe} && mount -o remount,bind,ro {probe} && ! touch {probe}/x 2>/dev/null"
    return subprocess.run(["unshare", "--mount", "sh", "-c", cmd], capture_output=True).returncode == 0


@pytest.mark.slow
def test_import_from_a_read_only_copy_with_an_unwritable_home(tmp_path):
    site, home = tmp_path / "site", tmp_path / "home"
    shutil.copytree(ROOT / "boostrank", site / "boostrank",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    home.mkdir()
    (tmp_path / "tmp").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(HOME=str(home), PYTHONPATH=str(site), TMPDIR=str(tmp_path / "tmp"))
    code = "import boostrank as br; print(br.__file__); print(br.auc([0, 1, 1], [0.1, 0.5, 0.2]))"
    python = shlex.join([sys.executable, "-c", code])
    if os.geteuid() == 0:  # root writes through permission bits: use read-only mounts instead
        if not shutil.which("unshare") or not _can_mount_read_only(tmp_path):
            pytest.skip("running as root without mount namespaces: cannot make a read-only install")
        mounts = " && ".join(f"mount --bind {p} {p} && mount -o remount,bind,ro {p}" for p in (site, home))
        cmd = ["unshare", "--mount", "sh", "-c", f"{mounts} && exec {python}"]
    else:
        for path in [site, *site.rglob("*"), home]:
            path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        cmd = [sys.executable, "-c", code]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, cwd=str(tmp_path))
    finally:
        for path in [site, *site.rglob("*"), home]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert str(site) in proc.stdout and "1.0" in proc.stdout


def _fresh(folder, parent):
    return Path(folder).parent == parent and Path(folder).name.startswith("boostrank-numba-cache-") \
        and stat.S_IMODE(os.lstat(folder).st_mode) == 0o700 and not Path(folder).is_symlink()






@pytest.mark.slow  # over a second warm
def test_cbc_is_an_extra_and_the_defaults_never_need_it(monkeypatch):
    """#29: cbcbox (~600 MB) served only solver='cbc'; the core install leaves it to boostrank[cbc]."""
    import tomllib
    from pathlib import Path

    import numpy as np

    import boostrank as br
    from boostrank.mip import solvers

    meta = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith(("cbcbox", "pulp", "pandas")) for d in meta["dependencies"])
    assert any(d.startswith("cbcbox") for d in meta["optional-dependencies"]["cbc"])

    def no_cbc():
        raise RuntimeError("no CBC binary found: pip install 'boostrank[cbc]'")

    monkeypatch.setattr(solvers, "cbc_path", no_cbc)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + rng.normal(size=40) > 0).astype(int)
    qid = np.repeat(np.arange(4), 10)
    br.MIPRanker(objective="rank_risk", time_limit=5).fit(X, y, qid=qid)
    br.TopKReranker(k=4, time_limit=5, gate=0).fit(X, y, qid=qid, base_scores=X[:, 0])
    monkeypatch.delenv("BOOSTRANK_CBC", raising=False)
    with pytest.raises(RuntimeError, match=r"boostrank\[cbc\]"):
        br.MIPRanker(solver="cbc", objective="rank_risk", time_limit=5).fit(X, y, qid=qid)
