"""boostrank.engines.model_files: damaged model files (every mutation) load and predict finite scores, or are a
ValueError, never a crash or a hang.

Of 353 single-field mutations of small LightGBM/XGBoost models, 26 killed the process by a signal and 3 hung
before the checks.  Each kind (LightGBM text, XGBoost JSON, boostrank's linear JSON) gets single-field and byte
mutations; the cases run in a child process with a time limit per case, so a crash or hang fails the test and
names the case.  ``BOOSTRANK_FUZZ_MODELS`` sets the mutations per kind.
"""

import json
import os
import random
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import boostrank as br
from ..conftest import small_lists


N_CASES = int(os.environ.get("BOOSTRANK_FUZZ_MODELS", "150"))


CASE_SECONDS = 30


_WORKER = textwrap.dedent("""
    import os, sys, warnings
    import numpy as np
    import boostrank as br
    warnings.simplefilter("ignore")
    # the engines' C code prints on fd 1 through its own buffer, which would split our lines
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    X = np.load(sys.argv[1])
    for line in sys.stdin:
        path = line.strip()
        try:
            model = br.load_model(path)
            s = np.asarray(model.predict(X), dtype=float)
            out = "finite" if s.shape == (X.shape[0],) and np.isfinite(s).all() else f"bad scores {s[:3]}"
        except ValueError as exc:
            out = "ValueError"
        except Exception as exc:  # anything else is a defect: the CLI would print a traceback
            out = f"{type(exc).__name__}: {str(exc)[:200]}"
        print("RESULT", out, file=answers, flush=True)
""")


_VALUES = ["0", "1", "-1", "2", "999999", "-999999", "2147483648", "-2147483649", "nan", "inf", "-inf", "",
           "abc", "1e308", "0.5", "18446744073709551616"]


def _mutate_text_field(text: str, rng: random.Random) -> str:
    """One value of one ``key=values`` line replaced, dropped, repeated or off by one."""
    lines = text.split("\n")
    candidates = [i for i, ln in enumerate(lines) if "=" in ln and not ln.startswith("[")]
    i = rng.choice(candidates)
    key, _, value = lines[i].partition("=")
    tokens = value.split(" ")
    j = rng.randrange(len(tokens))
    action = rng.randrange(4)
    if action == 0:
        tokens[j] = rng.choice(_VALUES)
    elif action == 1:
        try:
            tokens[j] = str(int(tokens[j]) + rng.choice([-1, 1]))
        except ValueError:
            tokens[j] = rng.choice(_VALUES)
    elif action == 2:
        del tokens[j]
    else:
        tokens.insert(j, tokens[j])
    lines[i] = key + "=" + " ".join(tokens)
    return "\n".join(lines)


def _json_leaves(node, path=()):
    if isinstance(node, dict):
        if not node:
            yield path
        for k, v in node.items():
            yield from _json_leaves(v, path + (k,))
    elif isinstance(node, list):
        if not node:
            yield path
        for k, v in enumerate(node):
            yield from _json_leaves(v, path + (k,))
    else:
        yield path


_JSON_VALUES = [0, 1, -1, 2, 999999, -999999, 2**31, -(2**31) - 1, 2**64, None, "x", "", [], {}, 1e308,
                float("nan"), float("inf"), True, "1", "-1", "999999", "nan"]


def _mutate_json_field(text: str, rng: random.Random) -> str:
    """One leaf of the JSON tree replaced, off by one, or deleted."""
    doc = json.loads(text)
    path = rng.choice(list(_json_leaves(doc)))
    if not path:
        return json.dumps(rng.choice(_JSON_VALUES))
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    action = rng.randrange(3)
    value = parent[key] if not isinstance(parent[key], (dict, list)) else None
    if action == 0:
        parent[key] = rng.choice(_JSON_VALUES)
    elif action == 1 and isinstance(value, (int, float)) and not isinstance(value, bool):
        parent[key] = value + rng.choice([-1, 1])
    elif action == 1 and isinstance(value, str):
        try:
            parent[key] = str(int(value) + rng.choice([-1, 1]))
        except ValueError:
            parent[key] = rng.choice(_JSON_VALUES)
    elif isinstance(parent, dict):
        del parent[key]
    else:
        del parent[key]
    return json.dumps(doc)


def _mutate_bytes(raw: bytes, rng: random.Random) -> bytes:
    """1-4 bytes overwritten, a byte inserted or removed, or the file cut."""
    data = bytearray(raw)
    action = rng.randrange(4)
    if action == 0:
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif action == 1:
        data.insert(rng.randrange(len(data)), rng.choice(b"0123456789-. =\n{}[],\"e"))
    elif action == 2:
        del data[rng.randrange(len(data))]
    else:
        data = data[:rng.randrange(len(data))]
    return bytes(data)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models")
    d = br.datasets.make_letor(25, random_state=0)
    paths = {}
    for name, model in [
        ("lightgbm", br.LambdaRanker(n_estimators=4, num_leaves=5, min_child_samples=5)),
        ("lightgbm-native", br.LambdaRanker(objective="lambdarank", n_estimators=3, num_leaves=4)),
        ("xgboost", br.LambdaRanker(engine="xgboost", n_estimators=3, max_depth=3)),
        ("rankncg", br.RankNCG(max_iter=20)),
    ]:
        model.fit(d.X, d.y, qid=d.qid)
        path = folder / (name + (".json" if name in ("xgboost", "rankncg") else ".txt"))
        br.save_model(model, path) if name == "rankncg" else model.save_model(path)
        paths[name] = path
    import lightgbm as lgb

    # categorical splits and linear leaves: the parts of LightGBM's format with the most tables
    X = d.X.copy()
    X[:, 3] = 3 * d.y + np.random.default_rng(0).integers(0, 3, len(X))  # a category the trees split on
    for name, extra in (("lightgbm-categorical", {"max_cat_to_onehot": 1, "min_data_per_group": 5,
                                                  "cat_smooth": 1}), ("lightgbm-linear", {"linear_tree": True})):
        booster = lgb.train({"objective": "binary", "verbose": -1, "num_leaves": 5, "min_data_in_leaf": 5, **extra},
                            lgb.Dataset(X, d.y > 0, categorical_feature=[3] if "cat" in name else "auto"),
                            num_boost_round=3)
        paths[name] = folder / f"{name}.txt"
        booster.save_model(paths[name])
    np.save(folder / "X.npy", X[:40])
    return folder, paths


def _run(folder, cases):
    """Each case's outcome, by one worker per run that is restarted after a crash or hang."""
    outcomes = {}
    pending = list(cases)
    while pending:
        proc = subprocess.Popen([sys.executable, "-c", _WORKER, str(folder / "X.npy")], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        previous = None
        try:
            while pending:
                name = pending[0]
                try:
                    proc.stdin.write(str(folder / name) + "\n")
                    proc.stdin.flush()
                except BrokenPipeError:  # it answered the previous case, then died (freeing that model)
                    proc.wait()
                    outcomes[previous] = f"died after answering (exit {proc.returncode})"
                    break
                previous = name
                line = _read_line(proc, CASE_SECONDS)
                if line is None:
                    outcomes[name] = "hang" if proc.poll() is None else f"died (signal {-proc.poll()})"
                    pending.pop(0)
                    break
                outcomes[name] = line
                pending.pop(0)
        finally:
            proc.kill()
            proc.wait()
    return outcomes


def _read_line(proc, seconds):
    """The worker's next RESULT line, None if it dies or is silent for ``seconds``."""
    import selectors
    import time

    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + seconds
    while True:
        if not sel.select(max(deadline - time.monotonic(), 0)):
            return None
        line = proc.stdout.readline()
        if not line:
            return None
        if line.startswith("RESULT "):
            return line[len("RESULT "):].strip()


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["lightgbm", "lightgbm-native", "lightgbm-categorical", "lightgbm-linear",
                                  "xgboost", "rankncg"])
def test_damaged_model_files_never_crash_or_hang(models, kind):
    folder, paths = models
    raw = paths[kind].read_bytes()
    text = raw.decode()
    rng = random.Random(f"{kind}-{N_CASES}")
    cases = []
    for i in range(N_CASES):
        if i % 2:
            mutated = _mutate_bytes(raw, rng)
        elif kind.startswith("lightgbm"):
            mutated = _mutate_text_field(text, rng).encode()
        else:
            mutated = _mutate_json_field(text, rng).encode()
        name = f"{kind}-{i}{paths[kind].suffix}"
        (folder / name).write_bytes(mutated)
        cases.append(name)
    outcomes = _run(folder, cases)
    bad = {name: out for name, out in outcomes.items() if out not in ("finite", "ValueError")}
    counts = {out: sum(v == out for v in outcomes.values()) for out in ("finite", "ValueError")}
    print(f"{kind}: {len(cases)} mutations, {counts}, {len(bad)} defects")
    assert not bad, f"{len(bad)} of {len(cases)} mutations crashed, hung or raised: " + \
        "; ".join(f"{n}: {o}" for n, o in list(bad.items())[:8])


def test_the_checks_refuse_what_crashed_the_engines(models):
    """The reproducers named in the issue, each a ValueError before the engine reads the file."""
    folder, paths = models
    text = paths["lightgbm"].read_text()
    xgb = json.loads(paths["xgboost"].read_text())
    cases = {
        "num_leaves=1": text.replace("num_leaves=5", "num_leaves=1", 1),
        "num_tree_per_iteration=0": text.replace("num_tree_per_iteration=1", "num_tree_per_iteration=0"),
        "split_feature=999999": _replace_first_value(text, "split_feature", "999999"),
        "left_child=0": _replace_first_value(text, "left_child", "0"),
        "tree_sizes+1": _replace_first_value(text, "tree_sizes", lambda v: str(int(v) + 1)),
    }
    for name, body in cases.items():
        path = folder / f"repro-{name}.txt"
        path.write_text(body)
        with pytest.raises(ValueError, match="damaged LightGBM model"):
            br.load_model(path)
    xgb["learner"]["gradient_booster"]["model"]["trees"][0]["left_children"][0] = 0
    path = folder / "repro-xgb.json"
    path.write_text(json.dumps(xgb))
    with pytest.raises(ValueError, match="damaged XGBoost model"):
        br.load_model(path)


def _replace_first_value(text, key, value):
    lines = text.split("\n")
    for i, ln in enumerate(lines):
        if ln.startswith(key + "="):
            first, *rest = ln[len(key) + 1:].split(" ")
            new = value(first) if callable(value) else value
            lines[i] = f"{key}=" + " ".join([new] + rest)
            break
    return "\n".join(lines)


@pytest.mark.slow
def test_the_checks_accept_what_the_engines_write(tmp_path):
    """Categorical splits, missing values, linear trees, several classes, DART: all pass the checks."""
    import lightgbm as lgb
    import xgboost as xgb

    from boostrank.engines.model_files import check_lightgbm_model_file, check_xgboost_model_file

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    X[:, 4] = rng.integers(0, 12, 400)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:, 4] = np.nan_to_num(X[:, 4], nan=3)
    y3 = rng.integers(0, 3, 400)
    for params in ({"objective": "multiclass", "num_class": 3}, {"objective": "binary", "linear_tree": True},
                   {"objective": "lambdarank"}, {"objective": "regression", "boosting": "dart"},
                   {"objective": "binary", "max_cat_to_onehot": 1, "min_data_per_group": 5}):
        y = y3 if params["objective"] == "multiclass" else (y3 > 0).astype(int)
        booster = lgb.train({**params, "verbose": -1, "num_leaves": 15, "min_data_in_leaf": 5},
                            lgb.Dataset(X, y if params["objective"] != "lambdarank" else y3,
                                        group=[40] * 10 if params["objective"] == "lambdarank" else None,
                                        categorical_feature=[4]), num_boost_round=6)
        path = tmp_path / "m.txt"
        booster.save_model(path)
        check_lightgbm_model_file(path)
    Xc = X.copy()
    for params in ({"objective": "multi:softprob", "num_class": 3}, {"objective": "rank:ndcg"},
                   {"objective": "binary:logistic", "booster": "dart"}, {"objective": "reg:squarederror",
                                                                        "max_depth": 8}):
        y = y3 if params["objective"].startswith("multi") or params["objective"].startswith("rank") else y3 > 0
        dm = xgb.DMatrix(Xc, y, group=[40] * 10) if params["objective"].startswith("rank") else xgb.DMatrix(Xc, y)
        booster = xgb.train({**params, "verbosity": 0}, dm, num_boost_round=6)
        path = tmp_path / "m.json"
        booster.save_model(path)
        check_xgboost_model_file(path)
    import pandas as pd

    frame = pd.DataFrame(X[:, :4], columns=list("abcd")).assign(e=pd.Categorical(X[:, 4].astype(int)))
    booster = xgb.train({"objective": "binary:logistic", "verbosity": 0, "max_cat_to_onehot": 1},
                        xgb.DMatrix(frame, y3 > 0, enable_categorical=True), num_boost_round=6)
    booster.save_model(tmp_path / "cat.json")
    check_xgboost_model_file(tmp_path / "cat.json")


def test_damaged_ubjson_is_refused_with_the_file_name(tmp_path):
    import warnings

    xgb = pytest.importorskip("xgboost")
    X, y, qid = small_lists(6)
    booster = xgb.train({"objective": "rank:pairwise", "nthread": 1}, xgb.DMatrix(X, y, group=np.bincount(qid)), 2)
    path = tmp_path / "m.ubj"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        booster.save_model(str(path))
    raw = path.read_bytes()
    for k, cut in enumerate([raw[: len(raw) // 2], raw[:40] + b"\xff" * 8 + raw[48:], raw + b"junk"]):
        bad = tmp_path / f"bad{k}.ubj"
        bad.write_bytes(cut)
        with pytest.raises(ValueError, match=rf"bad{k}\.ubj: damaged XGBoost model file"):
            br.load_model(bad)


def test_read_ubjson_equals_the_json_document(tmp_path):
    import json
    import warnings

    from boostrank.engines.model_files import read_ubjson

    xgb = pytest.importorskip("xgboost")
    X, y, qid = small_lists(7)
    booster = xgb.train({"objective": "rank:ndcg", "nthread": 1}, xgb.DMatrix(X, y, group=np.bincount(qid)), 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        booster.save_model(str(tmp_path / "m.ubj"))
        booster.save_model(str(tmp_path / "m.json"))

    def f32(doc):  # UBJSON keeps float32 where JSON prints decimals
        if isinstance(doc, dict):
            return {k: f32(v) for k, v in doc.items()}
        if isinstance(doc, list):
            return [f32(v) for v in doc]
        return float(np.float32(doc)) if isinstance(doc, float) else doc

    assert f32(read_ubjson((tmp_path / "m.ubj").read_bytes())) == f32(json.loads((tmp_path / "m.json").read_text()))
    assert read_ubjson(b"[$i#i\x03\x01\x02\x03") == [1, 2, 3]
    assert read_ubjson(b"{i\x01aSi\x02hii\x01bZ}") == {"a": "hi", "b": None}
    assert read_ubjson(b"[TFD?\xf0\x00\x00\x00\x00\x00\x00]") == [True, False, 1.0]


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
