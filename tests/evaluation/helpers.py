"""Collections, runs and files the evaluation tests share: what trec_eval must get right, in small."""

from __future__ import annotations

import numpy as np

import boostrank as br


K = 5


MEASURES = ["ndcg", f"ndcg_cut_{K}", "map", f"map_cut_{K}", f"P_{K}", f"recall_{K}", "recip_rank", "Rprec"]


def random_collection(seed, n_queries=12, ties=True):
    """Qrels and a run with what trec_eval must get right: tied scores, unjudged and unretrieved documents,
    negative and zero grades, queries without relevant documents, queries only in the run or only in the qrels."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        docs = [f"d{rng.integers(0, 10 ** 6)}-{i}" for i in range(int(rng.integers(1, 15)))]
        judged = [d for d in docs if rng.random() < 0.7] + [f"u{q}-{i}" for i in range(int(rng.integers(0, 4)))]
        grades = rng.choice([-1, 0, 0, 1, 2, 3], size=len(judged))
        if q % 5 == 1:
            grades = np.zeros(len(judged), dtype=int)  # no relevant document
        if q % 6 != 2:  # some queries are only in the run
            qrels[qid] = {d: int(g) for d, g in zip(judged, grades)} or {"x": 1}
        if q % 7 != 3:  # and some only in the qrels
            scores = rng.integers(0, 4, len(docs)) / 2.0 if ties else rng.normal(size=len(docs))
            run[qid] = {d: float(s) for d, s in zip(docs, scores)}
    return qrels, run


MORE = ["num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "set_P", "set_recall", "set_map",
        "set_relative_P", "set_F", "utility", "bpref", "infAP", "binG", "gm_map", "11pt_avg", "success",
        "relative_P.5,10,15,20,30,100", "iprec_at_recall", "Rprec_mult"]


GAIN_WALKS = ["G", "ndcg_rel", "Rndcg"]


TREC10 = ["unj", "rbp", "rbp_resid"]


RANX = ["hit_rate", "f1.1,3,10"]


def letor_lists(seed, n_queries=15):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    y = rng.integers(0, 4, qid.size).astype(float)
    y[qid == 2] = 0.0
    s = rng.integers(0, 3, qid.size).astype(float)
    docid = np.array([f"doc{rng.integers(0, 10 ** 6)}-{i}" for i in range(qid.size)], dtype=object)
    return y, qid, s, docid


def three_runs(n_queries, seed=0):
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {"base": {}, "better": {}, "same": {}}
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(10)]
        grades = rng.integers(0, 3, 10)
        qrels[f"q{q}"] = dict(zip(docs, grades.tolist()))
        noise = rng.normal(size=10)
        runs["base"][f"q{q}"] = dict(zip(docs, (noise * 2 + grades * 0.5).tolist()))
        runs["better"][f"q{q}"] = dict(zip(docs, (noise + grades).tolist()))
        runs["same"][f"q{q}"] = dict(runs["base"][f"q{q}"])
    return qrels, runs


def _write_trec(tmp_path, qrels, runs):
    with open(tmp_path / "qrels.txt", "w") as fh:
        for q, docs in qrels.items():
            fh.writelines(f"{q} 0 {d} {g}\n" for d, g in docs.items())
    paths = []
    for name, run in runs.items():
        br.save_run(tmp_path / f"{name}.run", br.Run.from_dict(run, name=name))
        paths.append(str(tmp_path / f"{name}.run"))
    return str(tmp_path / "qrels.txt"), paths


GRADES = ["1_0", "\uff13", "1.0", "0x1", "\u0661"]


SCORES = ["1_0", "\uff13", "0x1p3", "1e", "--1"]


def _six_rows(tmp_path):
    d = br.data.LetorData(X=np.zeros((6, 1)), y=np.array([1, 0, 1, 0, 1, 0]), qid=np.array([1, 1, 1, 2, 2, 2]),
                     docid=np.array(list("abcdef"), dtype=object))
    path = tmp_path / "data.txt"
    br.save_letor(path, d)
    return path


RUN = b"".join(b"q1 Q0 d%d %d %r run\n" % (i, i, 1.0 / i) for i in range(1, 40))


QRELS = b"".join(b"q1 0 d%d %d\n" % (i, i % 3) for i in range(1, 40))


def _write(path, raw):
    path.write_bytes(raw)
    return path


def _three_runs(seed=0, n_queries=25):
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {"a": {}, "b": {}, "c": {}}
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(15)]
        qrels[str(q)] = {d: int(rng.integers(0, 3)) for d in docs}
        truth = np.array([qrels[str(q)][d] for d in docs], dtype=float)
        for shift, name in ((0.3, "a"), (0.8, "b"), (1.5, "c")):
            s = shift * truth + rng.normal(size=len(docs))
            runs[name][str(q)] = dict(zip(docs, s.tolist()))
    return qrels, runs
