"""boostrank._kernels.jit: Numba's thread count is a parameter of a call, left as it was found; the cache folder is
this user's own."""

import os
import stat
from pathlib import Path

import numba
import numpy as np
import pytest

import boostrank as br


def test_thread_count_is_a_parameter_and_is_left_as_found():
    before = numba.get_num_threads()
    for n_jobs in (None, 1, -1, before):
        obj = br.LambdaObjective("auc", n_jobs=n_jobs)
        obj.bind(np.array([1.0, 0, 0, 1])).gradients(np.zeros(4))
        assert numba.get_num_threads() == before
    assert br.xgboost_objective("auc").objective.n_jobs == 1
    assert br.lightgbm_objective("auc").objective.n_jobs is None  # the size rule, unless the engine says
    with pytest.raises(ValueError, match="n_jobs"):
        br.LambdaObjective("auc", n_jobs=0)
    with pytest.raises(TypeError, match="n_threads"):
        br.LambdaObjective("auc", n_threads=1)



def _fresh(folder, parent):
    return Path(folder).parent == parent and Path(folder).name.startswith("boostrank-numba-cache-") \
        and stat.S_IMODE(os.lstat(folder).st_mode) == 0o700 and not Path(folder).is_symlink()


def _plant(folder, how, tmp_path):
    """Leave at ``folder`` what another local user could: an open folder, a link, a folder or a file of theirs."""
    if how == "group-writable":
        folder.mkdir(mode=0o700)
        folder.chmod(0o775)
    elif how == "symlink":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        folder.symlink_to(tmp_path / "elsewhere")
    elif how == "other-owner":
        if os.getuid() != 0:
            pytest.skip("only root can give a folder to another user")
        folder.mkdir(mode=0o700)
        os.chown(folder, 65534, 65534)
    else:
        folder.write_text("")


@pytest.mark.parametrize("plant", ["group-writable", "symlink", "other-owner", "file"])
def test_the_fallback_cache_never_uses_a_folder_someone_else_controls(tmp_path, plant):
    """A predictable cache folder planted by another user would run their code in ours (hardening #2)."""
    from boostrank._kernels import private_cache_folder

    own = tmp_path / f"boostrank-numba-cache-{os.getuid()}"
    assert private_cache_folder(str(tmp_path)) == str(own) and _fresh(own, tmp_path)  # made private
    assert private_cache_folder(str(tmp_path)) == str(own)  # and reused while it stays so
    own.rmdir()
    _plant(own, plant, tmp_path)
    chosen = private_cache_folder(str(tmp_path))
    assert chosen != str(own) and _fresh(chosen, tmp_path)


@pytest.mark.parametrize("plant", ["group-writable", "symlink", "other-owner", "open-parent", None])
def test_an_inherited_cache_folder_obeys_the_same_rules(tmp_path, monkeypatch, plant):
    """Hardening 6 #4: NUMBA_CACHE_DIR was trusted whatever its owner and mode; Numba unpickles its indexes."""
    import numba

    from boostrank._kernels import jit as kernels

    told = tmp_path / "shared" / "numba"
    told.parent.mkdir()
    if plant == "open-parent":  # others may rename the folder and put theirs in its place
        told.parent.chmod(0o777)
    elif plant is not None:
        _plant(told, plant, tmp_path)
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(told))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(told))
    monkeypatch.setattr(kernels.tempfile, "gettempdir", lambda: str(tmp_path))
    if plant is None:
        assert kernels.ensure_cache_dir() == str(told) and numba.config.CACHE_DIR == str(told)
        assert stat.S_IMODE(told.stat().st_mode) == 0o700  # made private when absent
        return
    with pytest.warns(RuntimeWarning, match="is not this user's own private folder"):
        chosen = kernels.ensure_cache_dir()
    assert chosen != str(told) and _fresh(chosen, tmp_path)
    assert numba.config.CACHE_DIR == chosen and os.environ["NUMBA_CACHE_DIR"] == chosen


@pytest.mark.parametrize("n_threads", [None, 1, 2, 5])
def test_in_threads_keeps_the_items_order_and_raises_their_errors(n_threads):
    import threading

    from boostrank._kernels.jit import in_threads

    assert in_threads(lambda x: x, [], n_threads) == []
    seen = set()

    def square(x):
        seen.add(threading.get_ident())
        return x * x

    assert in_threads(square, range(7), n_threads) == [x * x for x in range(7)]
    if n_threads == 1:
        assert seen == {threading.get_ident()}  # one thread: the caller's own
    with pytest.raises(ZeroDivisionError):
        in_threads(lambda x: 1 / x, [1, 0, 2], n_threads)
