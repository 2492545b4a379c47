"""Where boostrank meets what it did not write (#59): child processes in the user's folder, files from other tools,
untrusted model files, the engines' errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import boostrank as br
from boostrank.precompile import child_command

# ------------------------------------------------------------------ child processes


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


# ------------------------------------------------------------------ untrusted model files


def test_a_typed_boolean_array_cannot_make_the_reader_build_more_than_the_file_holds(tmp_path):
    from boostrank.engines.model_files import read_ubjson

    bomb = b"{#U\x01U\x01a[$T#l\x7f\xff\xff\xff"  # 16 bytes claiming 2**31 - 1 booleans
    t = time.perf_counter()
    with pytest.raises(ValueError, match="past the end of the data"):
        read_ubjson(bomb)
    assert time.perf_counter() - t < 1.0
    path = tmp_path / "model.ubj"
    path.write_bytes(bomb)
    with pytest.raises(ValueError, match=str(path.name)):
        br.load_model(str(path))


def _ubj_model(tmp_path):
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    path = tmp_path / "m.ubj"
    xgb.train({"max_depth": 3}, xgb.DMatrix(X, X[:, 0] > 0), 4).save_model(str(path))
    return path.read_bytes()


def test_model_file_fuzz_costs_time_and_memory_bounded_by_its_size(tmp_path):
    """Truncated, inflated (every count marker's value set to its type's largest), bit-flipped and deeply nested
    inputs: each is decoded or refused with ValueError within a time and a peak allocation bounded by its size."""
    import struct
    import tracemalloc

    from boostrank.engines.model_files import read_ubjson

    raw = _ubj_model(tmp_path)
    rng = np.random.default_rng(1)
    cases = [raw[:k] for k in rng.integers(1, len(raw), 40)]
    for at in [i for i in range(len(raw) - 1) if raw[i:i + 1] == b"#"][:60]:  # inflate each count
        marker = raw[at + 1:at + 2]
        size = {b"i": 1, b"U": 1, b"I": 2, b"l": 4, b"L": 8}.get(marker)
        if size:
            big = {1: b"\x7f", 2: b"\x7f\xff", 4: b"\x7f\xff\xff\xff", 8: b"\x7f" + b"\xff" * 7}[size]
            cases.append(raw[:at + 2] + big + raw[at + 2 + size:])
    for _ in range(60):
        b = bytearray(raw)
        for i in rng.integers(0, len(b), 3):
            b[i] ^= 1 << int(rng.integers(0, 8))
        cases.append(bytes(b))
    cases += [b"[" * 100_000, b"[$[#l" + struct.pack(">i", 2**31 - 1), b"{#L" + struct.pack(">q", 2**62)]
    for case in cases:
        tracemalloc.start()
        t = time.perf_counter()
        try:
            read_ubjson(case)
        except ValueError:
            pass
        seconds = time.perf_counter() - t
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert seconds < 2.0 and peak < 200 * len(case) + (1 << 20), (len(case), seconds, peak)


# ------------------------------------------------------------------ files from other tools


def test_a_bom_is_dropped_from_qrels_and_runs_and_refused_inside(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_bytes(b"\xef\xbb\xbf301 0 d1 1\n301 0 d2 0\n302 0 d3 1\n")
    run = tmp_path / "r.txt"
    run.write_bytes(b"\xef\xbb\xbf301 Q0 d1 1 2.0 t\n301 Q0 d2 2 1.0 t\n302 Q0 d3 1 1.0 t\n")
    q, r = br.load_qrels(qrels), br.load_run(run)
    assert sorted(q.queries) == ["301", "302"] and sorted(r.queries) == ["301", "302"]
    assert br.evaluate(q, r, ["map"])["map"] == 1.0
    qrels.write_bytes(b"301 0 d1 1\n\xef\xbb\xbf302 0 d3 1\n")
    with pytest.raises(br.LetorFormatError, match=r"q.txt:2: a byte-order mark"):
        br.load_qrels(qrels)


GRADES = ["1_0", "\uff13", "1.0", "0x1", "\u0661"]
SCORES = ["1_0", "\uff13", "0x1p3", "1e", "--1"]


@pytest.mark.parametrize("kind, text", [("qrels", g) for g in GRADES] + [("run", s) for s in SCORES])
def test_numbers_trec_eval_would_read_a_prefix_of_are_refused(tmp_path, kind, text):
    """trec_eval's atol/atof read '1_0' as 1 and a full-width 3 as 0; Python's int/float read 10 and 3."""
    path = tmp_path / f"{kind}.txt"
    line, load, what = {"qrels": (f"301 0 d2 {text}", br.load_qrels, "grade .* is not an integer"),
                        "run": (f"301 Q0 d1 1 {text} t", br.load_run, "score .* is not a number")}[kind]
    path.write_text(f"{line}\n", encoding="utf-8")
    with pytest.raises(br.LetorFormatError, match=rf"{kind}.txt:1: {what}"):
        load(path)


def test_fields_split_where_trec_eval_splits_them(tmp_path):
    """C's isspace: a form feed or a carriage return separates fields; a no-break space is part of an id."""
    path = tmp_path / "q.txt"
    path.write_bytes("301 0 d\u00a01 1\r\n301\f0\vd2\t0\n".encode("utf-8"))
    q = br.load_qrels(path)
    assert sorted(q.to_dict()["301"]) == ["d2", "d\u00a01"]
    path.write_text("301 0 d\u00a01\n", encoding="utf-8")
    with pytest.raises(br.LetorFormatError, match="4 fields separated by spaces or tabs"):
        br.load_qrels(path)
    run = tmp_path / "r.txt"
    run.write_text("301 Q0 d\u2003x 1 1.5 t\n", encoding="utf-8")  # an em space is part of the id too
    assert br.load_run(run).to_dict() == {"301": {"d\u2003x": 1.5}}


def _qrels_and_runs(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("301 0 d1 1\n301 0 d2 0\n302 0 d3 1\n")
    empty = tmp_path / "empty.run"
    empty.write_text("")
    other = tmp_path / "other.run"
    other.write_text("401 Q0 d1 1 2.0 t\n402 Q0 d2 1 1.0 t\n")
    good = tmp_path / "good.run"
    good.write_text("301 Q0 d1 1 2.0 g\n301 Q0 d2 2 1.0 g\n302 Q0 d3 1 1.0 g\n")
    return qrels, empty, other, good


def test_an_empty_run_or_one_of_other_topics_is_an_error_with_a_nonzero_exit(tmp_path, capsys):
    from boostrank.cli import main

    qrels, empty, other, good = _qrels_and_runs(tmp_path)
    with pytest.raises(ValueError, match="empty.run: the run retrieves no document"):
        br.evaluate(br.load_qrels(qrels), br.load_run(empty), ["map"])
    with pytest.raises(ValueError, match=r"other.run: none of its 2 queries is in .*q.txt"):
        br.evaluate(br.load_qrels(qrels), br.load_run(other), ["map"])
    for command in (["evaluate", "--qrels", str(qrels), str(empty)], ["evaluate", "--qrels", str(qrels), str(other)],
                    ["compare", "--qrels", str(qrels), str(good), str(other)],
                    ["compare", "--qrels", str(qrels), str(empty), str(good)]):
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert "retrieves no document" in err or "none of its" in err, err
    assert main(["evaluate", "--qrels", str(qrels), str(good)]) == 0


def test_predict_refuses_one_file_for_the_run_and_the_scores(tmp_path, capsys):
    from boostrank.cli import main

    out = tmp_path / "same.txt"
    assert main(["predict", "--model", str(tmp_path / "m.txt"), "--data", str(tmp_path / "d.txt"), "--trec",
                 str(out), "--out", str(out)]) == 2
    assert "--out and --trec both name" in capsys.readouterr().err
    assert not out.exists()


def test_a_randomization_test_of_runs_equal_up_to_rounding_gives_p_1():
    from boostrank.evaluation.compare import _paired_p

    rng = np.random.default_rng(0)
    a = rng.random(40)
    b = (a + 0.1) - 0.1  # the same values, rounded differently
    assert np.any(a != b)
    for test in ("randomization", "t", "wilcoxon"):
        assert _paired_p(a, b, test, 10_000, 0)[0] == 1.0
    d = rng.normal(size=30)
    from scipy import stats
    assert _paired_p(np.zeros(30), d, "t", 10_000, 0)[0] == pytest.approx(stats.ttest_rel(d, np.zeros(30)).pvalue)


# ------------------------------------------------------------------ the engines' files and errors


def test_a_saved_lightgbm_model_loads_without_lightgbm_warnings_and_keeps_its_parameters(tmp_path):
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(120, 3)), rng.integers(0, 2, 120)
    model = br.LambdaRanker(objective="auc", n_estimators=3, learning_rate=0.2).fit(X, y, qid=np.repeat(range(6), 20))
    path = tmp_path / "m.txt"
    model.save_model(path)
    code = ("import sys, lightgbm as lgb, boostrank as br; lgb.Booster(model_file=sys.argv[1]); "
            "m = br.load_model(sys.argv[1]); print(m.objective, m.learning_rate)")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Ignoring unrecognized parameter" not in done.stdout + done.stderr
    assert done.stdout.split()[-2:] == ["auc", "0.2"]


@pytest.mark.slow
def test_a_solver_whose_bound_is_below_what_w_achieves_proves_nothing():
    """A PuLP solver answering 'optimal' with every variable 0: its bound (the statistic of z = 0) lies below the
    statistic the search's w reaches, so the fit is feasible with no bound, and says why."""
    pulp = pytest.importorskip("pulp")

    class Wrong(pulp.LpSolver):
        def available(self):
            return True

        def actualSolve(self, lp, **kw):
            for v in lp.variables():
                v.varValue = 0.0
            lp.assignStatus(pulp.LpStatusOptimal, pulp.LpSolutionOptimal)
            return lp.status

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = (X @ [1, -1, 0.5, 0.2] + rng.normal(size=120) > 0).astype(int)
    with pytest.warns(UserWarning, match="below the statistic .* that w achieves"):
        model = br.MIPRanker(objective="rank_risk", solver=Wrong(), time_limit=3).fit(X, y)
    res = model.result_
    assert res.status == "feasible" and (res.bound is None or res.bound >= res.statistic)


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2", ".xz"])
def test_qrels_and_runs_write_and_read_back_compressed_by_their_suffix(tmp_path, suffix):
    import bz2
    import gzip
    import lzma

    qrels = br.Qrels(["301", "301", "302"], ["d1", "d\u00e9", "d3"], [2, 0, -1])
    run = br.Run(["301", "301", "302"], ["d1", "d2", "d3"], [0.5, 1.5, 0.25], name="mine")
    br.save_qrels(tmp_path / f"q.txt{suffix}", qrels)
    br.save_run(tmp_path / f"r.txt{suffix}", run)
    opener = {"": open, ".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}[suffix]
    with opener(tmp_path / f"q.txt{suffix}", "rt", encoding="utf-8") as fh:
        assert fh.read() == "301 0 d1 2\n301 0 d\u00e9 0\n302 0 d3 -1\n"
    assert br.load_qrels(tmp_path / f"q.txt{suffix}").to_dict() == qrels.to_dict()
    back = br.load_run(tmp_path / f"r.txt{suffix}")
    assert back.to_dict() == run.to_dict() and back.name == "mine"
    with pytest.raises(TypeError, match="writes a Qrels"):
        br.save_qrels(tmp_path / "x.txt", run)
