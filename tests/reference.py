"""Slow, obviously correct oracles: double loops over pairs, explicit sorts, recounts.

Nothing here imports boostrank; each function follows a paper's formula literally.
"""

from __future__ import annotations

import math

import numpy as np


def groups(qid, n):
    """Row index arrays of each contiguous query (one list without qid)."""
    if qid is None:
        return [np.arange(n)] if n else []
    out, start = [], 0
    for i in range(1, n + 1):
        if i == n or qid[i] != qid[start]:
            out.append(np.arange(start, i))
            start = i
    return out


def auc_list(y, s, ties="average", threshold=0.0):
    """(1 / n+ n-) Σ_{i+} Σ_{k-} (1[s_i > s_k] + w 1[s_i = s_k]); NaN with one class."""
    w = 0.5 if ties == "average" else 0.0
    pos = [i for i in range(len(y)) if y[i] > threshold]
    neg = [k for k in range(len(y)) if not y[k] > threshold]
    if not pos or not neg:
        return math.nan
    total = 0.0
    for i in pos:
        for k in neg:
            total += 1.0 if s[i] > s[k] else (w if s[i] == s[k] else 0.0)
    return total / (len(pos) * len(neg))


def mauc_list(y, s, ties="average"):
    """Welleck eq. 5 with classes c >= 1 and p(c) = n_c / n_relevant."""
    y = [int(v) for v in y]
    classes = sorted({v for v in y if v >= 1})
    n_rel = sum(1 for v in y if v >= 1)
    if not classes or len(set(y)) < 2:
        return math.nan
    total = 0.0
    for c in classes:
        onehot = [1 if v == c else 0 for v in y]
        total += (y.count(c) / n_rel) * auc_list(onehot, s, ties)
    return total


def wmw_list(y, s, edges, tie_credit=1.0):
    """Raykar eq. 1: credited pairs / all pairs over the edges (lo, hi)."""
    num = den = 0.0
    for lo, hi in edges:
        for k in range(len(y)):
            if y[k] != lo:
                continue
            for l in range(len(y)):
                if y[l] != hi:
                    continue
                den += 1
                num += 1.0 if s[l] > s[k] else (tie_credit if s[l] == s[k] else 0.0)
    return num / den if den else math.nan


def pessimistic_order(s, y):
    """Score descending; among equal scores the lower label, then the earlier row, first (thesis §2.1.3)."""
    return np.lexsort((np.arange(len(s)), np.asarray(y), -np.asarray(s, dtype=np.float64)))


def ascending_pessimistic_order(s, y):
    """The probit λ's order: score ascending; among equal scores the higher label, then the later row, first."""
    return np.lexsort((-np.arange(len(s)), -np.asarray(y), np.asarray(s)))


def desc_order(s):
    """Descending score order, ties in input order."""
    return sorted(range(len(s)), key=lambda i: (-s[i], i))


def ideal_grades_reference(values, rows, offsets):
    """Each group's grades (``values[rows]`` as floats) in a plain Python list, largest first."""
    out = []
    for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist()):
        out.extend(sorted((float(values[r]) for r in rows[a:b].tolist()), reverse=True))
    return np.array(out, dtype=np.float64)


def ndcg_list(y, s, k=None, exp_gain=True, empty=1.0):
    """DCG@k / ideal DCG@k with gain 2^l - 1 (or l) and discount 1/log2(i + 2)."""
    if len(y) == 0:
        return math.nan
    gain = (lambda l: 2.0**l - 1.0) if exp_gain else (lambda l: float(l))
    kk = len(y) if k is None else min(k, len(y))
    order = desc_order(s)
    dcg = sum(gain(y[order[i]]) / math.log2(i + 2) for i in range(kk))
    ideal = sorted(y, reverse=True)
    idcg = sum(gain(ideal[i]) / math.log2(i + 2) for i in range(kk))
    return dcg / idcg if idcg > 0 else empty


def err_list(y, s, k=None, max_grade=4):
    """RankLib's ERR@k: Σ_i R_i/i Π_{j<i}(1 − R_j), R = (2^l − 1)/2^max_grade (ERRScorer.java)."""
    if len(y) == 0:
        return math.nan
    order = desc_order(s)
    kk = len(y) if k is None else min(k, len(y))
    total, keep = 0.0, 1.0
    for i in range(kk):
        r = (2.0 ** y[order[i]] - 1.0) / 2.0 ** max_grade
        total += keep * r / (i + 1)
        keep *= 1.0 - r
    return total


def trec_precision_list(y, s, k):
    """trec_eval's P_k: relevant (label > 0) among the first k, divided by k."""
    if len(y) == 0:
        return math.nan
    order = desc_order(s)
    return sum(1 for i in order[:k] if y[i] > 0) / k


def ap_list(y, s, k=None, lightgbm=True):
    """Average precision at k: Σ_{hits i <= k} P@i / (min(k, R) or R)."""
    if len(y) == 0:
        return math.nan
    rel = [v > 0 for v in y]
    R = sum(rel)
    if R == 0:
        return 1.0 if lightgbm else 0.0
    order = desc_order(s)
    kk = len(y) if k is None else min(k, len(y))
    hits, total = 0, 0.0
    for i in range(kk):
        if rel[order[i]]:
            hits += 1
            total += hits / (i + 1)
    denom = min(k, R) if (lightgbm and k is not None) else R
    return total / denom


def minrank_list(s):
    """minrank_i = #{k : s_k < s_i}."""
    return [sum(1 for t in s if t < si) for si in s]


def resolved_rank_list(y, s):
    """Definition 1 with the documented tie rule, by one explicit ascending sort:
    score, then positives below negatives, then later input rows lower."""
    n = len(s)
    asc = sorted(range(n), key=lambda i: (s[i], 0 if y[i] > 0 else 1, -i))
    rank = [0] * n
    for r, i in enumerate(asc):
        rank[i] = r
    return rank


def rank_risk_list(y, ranks, a):
    """Σ_i y_i a_{rank_i + 1}, a given as the list a_1..a_n."""
    return sum(a[r] for yi, r in zip(y, ranks) if yi > 0)


def per_query(fn, y, s, qid, *args, **kw):
    """Apply a per-list oracle to each query; returns the per-query values."""
    y = np.asarray(y)
    s = np.asarray(s)
    return np.array([fn(list(y[g]), list(s[g]), *args, **kw) for g in groups(qid, len(y))])


def nanmean(v):
    v = np.asarray(v, dtype=float)
    v = v[~np.isnan(v)]
    return float(v.mean()) if v.size else math.nan


# --- λ-gradients ------------------------------------------------------------------

def mauc_of_order(labels_in_order):
    """MAUC (Welleck eq. 5) of a strict ranking given as labels from top to bottom."""
    y = list(labels_in_order)
    n = len(y)
    rel = [v for v in y if v >= 1]
    if not rel or len(set(y)) < 2:
        return 0.0
    total = 0.0
    for c in sorted(set(rel)):
        m = y.count(c)
        correct = sum(1 for i in range(n) for j in range(i + 1, n) if y[i] == c and y[j] != c)
        total += (m / len(rel)) * correct / (m * (n - m))
    return total


def swap_delta(labels_in_order, i, j):
    """ΔMAUC of swapping positions i and j, by recounting before and after."""
    y = list(labels_in_order)
    before = mauc_of_order(y)
    y[i], y[j] = y[j], y[i]
    return mauc_of_order(y) - before


def graded_auc_of_order(labels_in_order, values, threshold, grade_weight):
    """Graded AUC of a strict ranking (labels top to bottom): AUC at ``label > threshold`` plus
    ``grade_weight`` times the correctly ordered pairs across each other boundary of ``values``
    (the data's sorted distinct labels), over m·n, or over the pairs of differing labels when
    the list has one side of the cut only."""
    y = list(labels_in_order)
    n = len(y)
    m = sum(1 for v in y if v > threshold)
    differing = sum(1 for i in range(n) for j in range(i + 1, n) if y[i] != y[j])
    norm = m * (n - m) if m * (n - m) else differing
    if not norm:
        return 0.0
    boundaries = [(values[k], values[k + 1]) for k in range(len(values) - 1)]
    total = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            for lo, hi in boundaries:
                if y[i] >= hi and y[j] <= lo:  # a pair ordered correctly across the boundary lo | hi
                    total += 1.0 if lo <= threshold < hi else grade_weight
    return total / norm


def swap_delta_of(statistic, labels_in_order, i, j):
    """Δ of any statistic of the order from swapping positions i and j, by recounting."""
    y = list(labels_in_order)
    before = statistic(y)
    y[i], y[j] = y[j], y[i]
    return statistic(y) - before


def logistic_rho(x):
    """1 / (1 + e^x) without overflow."""
    if x > 0:
        e = math.exp(-x)
        return e / (1.0 + e)
    return 1.0 / (1.0 + math.exp(x))


_M64 = (1 << 64) - 1


def splitmix64(x):
    """SplitMix64's output function on Python integers (mod 2**64)."""
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
    return x ^ (x >> 31)


def pair_offset(seed, d, c, k):
    """The first partner kept, 0 … k − 1, of document (row) d among class c under seed."""
    return splitmix64(int(seed) ^ ((int(d) * 0x9E3779B97F4A7C15) & _M64) ^ ((int(c) * 0xD1B54A32D192ED03) & _M64)) % k


def swap_delta_closed_form(labels_in_order, i, j):
    """ΔMAUC of swapping positions i and j from Thm 4.1 per class (eq. 18): (j − i)(ω_{l_j} − ω_{l_i}) with
    ω_c = 1 / (n_rel (n − m_c)) for each relevant class c present, ω_0 = 0; equal to :func:`swap_delta`
    (tested), in O(n) instead of its O(n²) recount."""
    y = list(labels_in_order)
    n = len(y)
    n_rel = sum(1 for v in y if v >= 1)
    if not n_rel or len(set(y)) < 2:
        return 0.0

    def omega(c):
        return 0.0 if c == 0 else 1.0 / (n_rel * (n - y.count(c)))

    return (j - i) * (omega(y[j]) - omega(y[i]))


def lambda_reference(scores, labels, sigma=1.0, norm=False, statistic=None, uniform=False, stride=1, seed=0,
                     row0=0, upper=None, lower=None):
    """λ-MAUC (λ-AUC for 0/1 labels; any ``statistic`` of the order) of one list with plain loops
    and swap-and-recount ΔM.

    ``norm``: LightGBM's lambdarank_norm on the swap weight (ΔM / (0.01 + |Δs|) unless
    all scores tie, then the list's λs scaled by log2(1 + Σλ) / Σλ); ``"query"``: only the
    list's rescaling.  ``uniform``: the pair
    weighs |ΔM| / (j − i), the statistic's own weight of one pair (Thm 4.1: ΔM of a swap is
    the distance times it).  ``stride`` k > 1: the pair (h, l) counts k times when l's rank
    among the documents of its label, in order, is ≡ ``pair_offset(seed, row0 + h, label_l, k)``
    (mod k), and not at all otherwise (the list's rows start at row ``row0``).  ``upper``, ``lower``: per-document
    pair factors, the pair (h, l) with h of the higher label weighing ``upper[h] * lower[l]``.
    """
    n = len(scores)
    grad = np.zeros(n)
    hess = np.zeros(n)
    spread = norm is True and max(scores) > min(scores)
    total = 0.0
    # pessimistic order: score descending, ties lower label first, then input order
    order = sorted(range(n), key=lambda d: (-scores[d], labels[d], d))
    lab = [labels[d] for d in order]
    within = [sum(1 for t in range(i) if lab[t] == lab[i]) for i in range(n)]  # rank among its label
    for i in range(n):
        for j in range(i + 1, n):
            if lab[i] == lab[j]:
                continue
            if statistic is None:
                delta = swap_delta(lab, i, j)
            elif statistic is swap_delta_closed_form:  # long lists: MAUC's ΔM without the recount
                delta = statistic(lab, i, j)
            else:
                delta = swap_delta_of(statistic, lab, i, j)
            delta = abs(delta)
            if delta == 0:
                continue
            if uniform:
                delta /= j - i
            hi, lo = (order[i], order[j]) if lab[i] > lab[j] else (order[j], order[i])
            if stride > 1:
                low = j if lab[i] > lab[j] else i
                if within[low] % stride != pair_offset(seed, row0 + hi, lab[low], stride):
                    continue
                delta *= stride
            if spread:
                delta /= 0.01 + abs(scores[hi] - scores[lo])
            if upper is not None:
                delta *= upper[hi] * lower[lo]
            rho = logistic_rho(sigma * (scores[hi] - scores[lo]))
            rest = logistic_rho(-sigma * (scores[hi] - scores[lo]))  # 1 − ρ without cancellation
            grad[hi] -= sigma * delta * rho
            grad[lo] += sigma * delta * rho
            hess[hi] += sigma**2 * delta * rho * rest
            hess[lo] += sigma**2 * delta * rho * rest
            total += 2 * sigma * delta * rho
    if norm and total > 0:
        grad *= math.log2(1 + total) / total
        hess *= math.log2(1 + total) / total
    return grad, hess


def lambdarank_reference(scores, labels, sigma=1.0, truncation=30, norm=True):
    """LightGBM's LambdarankNDCG::GetGradientsForOneQuery, transcribed with plain loops
    (``norm="query"``: the list's log2(1 + Σλ) / Σλ without the score-gap division)."""
    n = len(scores)
    grad = np.zeros(n)
    hess = np.zeros(n)
    gain = lambda l: 2.0**l - 1.0
    disc = lambda r: 1.0 / math.log2(2.0 + r)
    order = sorted(range(n), key=lambda d: -scores[d])  # Python's sort is stable
    ideal = sorted(labels, reverse=True)
    max_dcg = sum(gain(ideal[r]) * disc(r) for r in range(min(truncation, n)))
    inv = 1.0 / max_dcg if max_dcg > 0 else 0.0
    best, worst = scores[order[0]], scores[order[-1]]
    total = 0.0
    for i in range(min(n - 1, truncation)):
        for j in range(i + 1, n):
            a, b = order[i], order[j]
            if labels[a] == labels[b]:
                continue
            (h, hr), (l, lr) = ((a, i), (b, j)) if labels[a] > labels[b] else ((b, j), (a, i))
            ds = scores[h] - scores[l]
            delta = (gain(labels[h]) - gain(labels[l])) * abs(disc(hr) - disc(lr)) * inv
            if norm is True and best != worst:
                delta /= 0.01 + abs(ds)
            rho = logistic_rho(sigma * ds)
            grad[h] -= sigma * delta * rho
            grad[l] += sigma * delta * rho
            hess[h] += sigma**2 * delta * rho * (1 - rho)
            hess[l] += sigma**2 * delta * rho * (1 - rho)
            total += 2 * sigma * delta * rho
    if norm and total > 0:
        f = math.log2(1 + total) / total
        grad *= f
        hess *= f
    return grad, hess


def erfc_sum_reference(y, z, q, side="both", kernel="erfc"):
    """Σ_i q_i k(y_j − z_i) term by term with math.fsum (side: z<y 'below', z>=y 'above')."""
    out = []
    for yj in y:
        terms = []
        for zi, qi in zip(z, q):
            if side == "below" and not zi < yj:
                continue
            if side == "above" and zi < yj:
                continue
            s = yj - zi
            terms.append(qi * (math.erfc(s) if kernel == "erfc" else math.exp(-s * s)))
        out.append(math.fsum(terms))
    return np.array(out)


def rankncg_loglik(w, X, y, qid=None, alpha=1.0, link="logistic"):
    """Raykar eq. 2 over every preferred pair of the full order graph, pair by pair."""
    c = math.sqrt(3.0) / (math.sqrt(2.0) * math.pi)
    total = -0.5 * alpha * float(np.dot(w, w))
    grad = -alpha * np.asarray(w, dtype=float)
    f = X @ w
    for idx in groups(qid, len(y)):
        for l in idx:
            for k in idx:
                if y[l] > y[k]:
                    u = f[l] - f[k]
                    sig = 1 / (1 + math.exp(-u)) if link == "logistic" else 1 - 0.5 * math.erfc(c * u)
                    total += math.log(sig) if sig > 0 else -math.inf
                    grad = grad + (X[l] - X[k]) * (1 - sig)
    return total, grad


def candidate_directions(X):
    """Every ordering (with ties) a linear score on 1-D or 2-D data can produce.

    Orderings change only where w is orthogonal to a difference x_i − x_k; the
    critical directions and the midpoints between them, plus w = 0, visit all.
    """
    X = np.asarray(X, dtype=float)
    if X.shape[1] == 1:
        return [np.array([1.0]), np.array([-1.0]), np.array([0.0])]
    angles = set()
    for i in range(len(X)):
        for k in range(len(X)):
            dx = X[i] - X[k]
            if np.any(dx != 0):
                base = math.atan2(dx[1], dx[0]) + math.pi / 2
                angles.add(base % (2 * math.pi))
                angles.add((base + math.pi) % (2 * math.pi))
    crit = sorted(angles) or [0.0]
    mids = [(a + b) / 2 for a, b in zip(crit, crit[1:] + [crit[0] + 2 * math.pi])]
    return [np.array([math.cos(t), math.sin(t)]) for t in crit + mids] + [np.zeros(2)]


def candidate_directions_3d(X, eta=1e-6):
    """Directions that visit every cell of the arrangement of planes w·(x_i − x_k) = 0 in 3-D.

    Every cell of two or more non-parallel great circles on the sphere has a vertex
    v = ±D_p × D_q on its boundary; around v the planes through it cut the tangent
    plane into sectors, and v + η·(the middle of each sector) lies inside each cell
    next to v.  With fewer than two plane directions, the axes and a few fixed
    directions are added.  For small-integer X, η = 1e-6 stays clear of every other
    plane.
    """
    X = np.asarray(X, dtype=float)
    D = [X[i] - X[k] for i in range(len(X)) for k in range(i + 1, len(X)) if np.any(X[i] != X[k])]
    cands = [np.zeros(3)] + [s * e for e in np.eye(3) for s in (1.0, -1.0)]
    cands += [np.array(v, dtype=float) for v in ([1, 2, 3], [-3, 1, 2], [2, -1, -3], [1, -2, 1])]
    for p in range(len(D)):
        for q in range(p + 1, len(D)):
            v = np.cross(D[p], D[q])
            if not np.any(v):
                continue
            v = v / np.linalg.norm(v)
            a = np.cross(v, [1.0, 0.0, 0.0])
            if np.linalg.norm(a) < 0.5:
                a = np.cross(v, [0.0, 1.0, 0.0])
            a /= np.linalg.norm(a)
            b = np.cross(v, a)
            for vv in (v, -v):
                angles = []
                for r in D:
                    if abs(r @ vv) < 1e-12 * np.abs(r).sum():
                        base = math.atan2(r @ b, r @ a) + math.pi / 2
                        angles += [base % (2 * math.pi), (base + math.pi) % (2 * math.pi)]
                crit = sorted(set(angles))
                mids = [(x + y) / 2 for x, y in zip(crit, crit[1:] + [crit[0] + 2 * math.pi])]
                cands += [vv + eta * (math.cos(t) * a + math.sin(t) * b) for t in mids]
    return cands


def lambda_auc_probit_reference(scores, labels, sigma=1.0, uniform=False):
    """λ-MAUC (λ-AUC for 0/1) of one list with the probit link ρ = ½ erfc(ασx), swap-and-recount;
    ``uniform``: each pair weighs |ΔM| / (j − i), the statistic's own pair weight."""
    alpha = math.sqrt(3.0) / (math.sqrt(2.0) * math.pi)
    n = len(scores)
    grad, hess = np.zeros(n), np.zeros(n)
    grades = [int(v) for v in labels]
    order = sorted(range(n), key=lambda d: (-scores[d], grades[d], d))
    lab = [grades[d] for d in order]
    for i in range(n):
        for j in range(i + 1, n):
            if lab[i] == lab[j]:
                continue
            delta = abs(swap_delta(lab, i, j)) / ((j - i) if uniform else 1)
            hi, lo = (order[i], order[j]) if lab[i] > lab[j] else (order[j], order[i])
            x = alpha * sigma * (scores[hi] - scores[lo])
            rho = 0.5 * math.erfc(x)
            w = sigma * delta * alpha * sigma / math.sqrt(math.pi) * math.exp(-x * x)
            grad[hi] -= sigma * delta * rho
            grad[lo] += sigma * delta * rho
            hess[hi] += w
            hess[lo] += w
    return grad, hess


def line_candidates(X, w, v):
    """Every t where the order of X(w + t·v) can change, and a point inside each interval.

    Breakpoints t = −(x_i − x_k)ᵀw / (x_i − x_k)ᵀv over all pairs; the statistic is
    constant between consecutive breakpoints, so the midpoints (and one point beyond
    each end) visit every value it takes on open intervals.
    """
    X = np.asarray(X, dtype=float)
    ts = set()
    for i in range(len(X)):
        for k in range(len(X)):
            b = float((X[i] - X[k]) @ v)
            if b != 0:
                ts.add(-float((X[i] - X[k]) @ w) / b)
    ts = sorted(ts)
    if not ts:
        return [0.0]
    mids = [(a + b) / 2 for a, b in zip(ts, ts[1:])]
    return [ts[0] - 1 - abs(ts[0])] + mids + [ts[-1] + 1 + abs(ts[-1])]


def trec_eval_reference(qrels: dict, run: dict, k: int) -> dict:
    """trec_eval's measures from ``{qid: {docid: grade}}`` and ``{qid: {docid: score}}`` dicts, one query at a
    time: ranked by score descending, docid descending; relevant = grade >= 1; an unjudged document is grade 0;
    R and the ideal DCG count every judged document; queries in both only."""
    out = {}
    for q in sorted(set(qrels) & set(run)):
        ranked = [d for d, _ in sorted(run[q].items(), key=lambda item: (item[1], item[0]), reverse=True)]
        grades = [qrels[q].get(d, 0) for d in ranked]
        rel = [g >= 1 for g in grades]
        n_rel = sum(g >= 1 for g in qrels[q].values())

        def dcg(gs, cut=None):
            return sum(max(g, 0) / math.log2(i + 2) for i, g in enumerate(gs[:cut]))

        ideal = sorted(qrels[q].values(), reverse=True)

        def ndcg(cut=None):
            best = dcg(ideal, cut)
            return dcg(grades, cut) / best if best > 0 else 0.0

        def ap(cut=None):
            hits, total = 0, 0.0
            for i, r in enumerate(rel[:cut]):
                if r:
                    hits += 1
                    total += hits / (i + 1)
            return total / n_rel if n_rel else 0.0

        first = next((i for i, r in enumerate(rel) if r), None)
        out[q] = {
            "ndcg": ndcg(), f"ndcg_cut_{k}": ndcg(k), "map": ap(), f"map_cut_{k}": ap(k),
            f"P_{k}": sum(rel[:k]) / k, f"recall_{k}": sum(rel[:k]) / n_rel if n_rel else 0.0,
            "recip_rank": 0.0 if first is None else 1.0 / (first + 1),
            "Rprec": sum(rel[:n_rel]) / n_rel if n_rel else 0.0,
        }
    return out


def randomization_p_exact(a, b) -> float:
    """Two-sided sign-flip randomization p-value of the mean difference, by enumerating all 2^n flips."""
    d = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    observed = abs(d.mean())
    count = 0
    for mask in range(2 ** d.size):
        signs = np.array([-1.0 if mask >> i & 1 else 1.0 for i in range(d.size)])
        count += abs((signs * d).mean()) >= observed * (1 - 1e-12)
    return count / 2 ** d.size


def sign_flip_extremes_reference(d, words, observed) -> int:
    """Resamples whose flipped sum is as far from 0 as ``observed``: bit i of a resample's words flips d[i]."""
    count = 0
    for row in words:
        bits = [int(row[i // 64]) >> (i % 64) & 1 for i in range(len(d))]
        count += abs(sum(-x if b else x for x, b in zip(d.tolist(), bits))) >= observed
    return count


def pairs_per_list_reference(labels, offsets):
    """Pairs of differing labels in each list, counted pair by pair."""
    out = []
    for a, b in zip(offsets[:-1], offsets[1:]):
        v = list(labels[a:b])
        out.append(sum(1 for i in range(len(v)) for j in range(i + 1, len(v)) if v[i] != v[j]))
    return out


def trec_more_reference(qrels: dict, run: dict, level: int = 1, v9: bool = True) -> dict:
    """trec_eval's other measures (trec_measures.py) one query at a time, from the definitions in its m_*.c
    comments rather than its loops: a retrieved document is relevant (grade >= level), judged non-relevant
    (0 <= grade < level), or neither (absent from the qrels, or graded negatively); R counts the judged."""
    out = {}
    for q in sorted(set(qrels) & set(run)):
        ranked = [d for d, _ in sorted(run[q].items(), key=lambda item: (item[1], item[0]), reverse=True)]
        grade = [qrels[q].get(d) for d in ranked]
        rel = [g is not None and g >= level for g in grade]
        judged_non = [g is not None and 0 <= g < level for g in grade]
        n, n_rel = len(ranked), sum(g >= level for g in qrels[q].values())
        n_nonrel = sum(0 <= g < level for g in qrels[q].values())
        hits = sum(rel)
        prec = [sum(rel[:i + 1]) / (i + 1) for i in range(n)]
        recall_at = [sum(rel[:i + 1]) for i in range(n)]

        def iprec(x):  # the best precision at any rank whose recall count reaches the cut
            cut = int(x * n_rel + 0.9) if v9 else math.floor(x * n_rel + 0.5)
            if cut > hits:
                return 0.0
            return max([p for p, c in zip(prec, recall_at) if c >= cut] + [hits / n if n else 0.0])

        bpref = 0.0
        inf_ap = 0.0
        for j in range(n):
            if not rel[j]:
                continue
            above_non = sum(judged_non[:j])
            bpref += 1.0 - (min(above_non, n_rel) / min(n_nonrel, n_rel) if above_non else 0.0)
            if j == 0:
                inf_ap += 1.0
            else:  # Yilmaz & Aslam: 1/k + (k-1)/k * (judged above / (k-1)) * (rel above + ε)/(judged above + 2ε)
                eps = 0.00001
                judged_above = sum(g is not None for g in grade[:j])  # in the pool: judged or graded negatively
                rel_above, non_above = sum(rel[:j]), sum(judged_non[:j])
                inf_ap += 1 / (j + 1) + (j / (j + 1)) * (judged_above / j) * (
                    (rel_above + eps) / (rel_above + non_above + 2 * eps))
        ap = sum(prec[i] for i in range(n) if rel[i]) / n_rel if hits else 0.0
        big = sum(1 / math.log2(2 + sum(1 for k in range(i) if not rel[k])) for i in range(n) if rel[i])
        v = {"num_ret": n, "num_rel": n_rel, "num_rel_ret": hits, "num_nonrel_judged_ret": sum(judged_non),
             "set_P": hits / n, "set_recall": hits / n_rel if n_rel else 0.0,
             "set_map": hits * hits / (n * n_rel) if n_rel else 0.0,
             "set_relative_P": hits / min(n, n_rel) if n_rel else 0.0,
             "set_F": 2 * hits / (n + n_rel) if hits else 0.0,
             "utility": hits - (n - hits), "bpref": bpref / n_rel if n_rel else 0.0,
             "infAP": inf_ap / n_rel if n_rel else 0.0, "binG": big / n_rel if hits else 0.0, "gm_map": ap,
             "11pt_avg": sum(iprec(i / 10) for i in range(11)) / 11}
        for k in (1, 5, 10):
            v[f"success_{k}"] = v[f"hit_rate_{k}"] = float(any(rel[:k]))
        for k in (1, 3, 10):  # ranx's f1: the harmonic mean of P_k (over k) and recall_k (over R)
            p, r = sum(rel[:k]) / k, (sum(rel[:k]) / n_rel if n_rel else 0.0)
            v[f"f1_{k}"] = 2 * p * r / (p + r) if p + r else 0.0
        unjudged = [g is None or g < 0 for g in grade]
        for k in (5, 10, 20):  # trec_eval 10: unj, rbp, rbp_resid (gains scaled by the best grade when above 1)
            v[f"unj_{k}"] = sum(unjudged[:k]) / k
        top = max(qrels[q].values())
        v["rbp"] = 0.1 * sum(g / max(top, 1) * 0.9 ** i for i, g in enumerate(grade) if g is not None and g > 0)
        v["rbp_resid"] = (0.9 ** n + 0.1 * sum(0.9 ** i for i, u in enumerate(unjudged) if u)) if any(unjudged) else 0.0
        for k in (5, 10, 15, 20, 30, 100):
            v[f"relative_P_{k}"] = sum(rel[:k]) / min(k, n_rel) if n_rel else 0.0
        for i in range(11):
            v[f"iprec_at_recall_{i / 10:3.2f}"] = iprec(i / 10)
        for i in range(1, 11):
            cut = int(i / 5 * n_rel + 0.9)
            v[f"Rprec_mult_{i / 5:3.2f}"] = sum(rel[:cut]) / cut if cut else 0.0
        out[q] = v
    return out


def line_spans_reference(raw: bytes) -> tuple:
    """(lines, bad_cr) of :func:`boostrank._kernels.ids.line_spans`: (number, bytes) of every line (split at
    ``\\n``) holding a byte other than space, tab, ``\\v``, ``\\f``, ``\\r``, a final ``\\r`` dropped; the number of the
    first line with another ``\\r`` (0: none)."""
    lines, bad_cr = [], 0
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if line.endswith(b"\r"):
            line = line[:-1]
        if b"\r" in line and not bad_cr:
            bad_cr = number
        if line.strip(b" \t\x0b\x0c\r"):
            lines.append((number, line))
    return lines, bad_cr


def id_hash_reference(text: str) -> int:
    """FNV-1a of the UTF-8 bytes, then SplitMix64's output function, as a signed 64-bit integer."""
    h = 0xCBF29CE484222325
    for c in text.encode("utf-8"):
        h = ((h ^ c) * 0x100000001B3) & _M64
    h = splitmix64(h)
    return h - (1 << 64) if h >> 63 else h


def first_duplicate_reference(codes, ids) -> tuple:
    """(i, j): the first row j whose (group, id) an earlier row i had, with that earliest i; (−1, −1)."""
    seen: dict = {}
    for j, key in enumerate(zip(codes, ids)):
        if key in seen:
            return seen[key], j
        seen[key] = j
    return -1, -1


def trec_order_reference(codes, score, ids) -> list:
    """Rows by group, score descending, then id descending (``strcmp``: code-point order)."""
    rows = sorted(range(len(ids)), key=lambda r: ids[r], reverse=True)
    return sorted(rows, key=lambda r: (codes[r], -score[r]))



def judged_lists_reference(qrels: dict, run: dict, depth=None, complete=False, float32=False,
                           judged_only=False) -> dict:
    """``{qid: (grades in rank order, scores, judged grades best first)}`` of the queries trec_eval evaluates
    (the run's queries, then with ``complete`` the qrels' it lacks, each in ``strcmp`` order):
    a run's documents by score descending then docid descending (``strcmp``), the first ``depth``; a grade of −1
    for a document the qrels lack, −2 for one they grade negatively; ``judged_only`` drops both."""
    out = {}  # the run's queries, then (complete) the qrels' it lacks, each in strcmp order
    for q in sorted(set(run) & set(qrels)) + (sorted(set(qrels) - set(run)) if complete else []):
        docs = run.get(q, {})
        key = (lambda d: float(np.float32(docs[d]))) if float32 else docs.__getitem__
        ranked = sorted(sorted(docs, reverse=True), key=lambda d: -key(d))[:depth]
        rel = [(-2.0 if qrels[q][d] < 0 else float(qrels[q][d])) if d in qrels[q] else -1.0 for d in ranked]
        kept = [i for i, r in enumerate(rel) if r >= 0 or not judged_only]
        out[q] = ([rel[i] for i in kept], [docs[ranked[i]] for i in kept],
                  sorted((float(g) for g in qrels[q].values()), reverse=True))
    return out


def anchor_reference(scores, labels, thresholds, bias, alpha):
    """(grad, hess) of α × the mean over thresholds t_k of the log-loss of [y > t_k] at log-odds s + b_k."""
    grad, hess = [], []
    K = len(thresholds)
    for s, y in zip(scores, labels):
        g = h = 0.0
        for t, b in zip(thresholds, bias):
            p = 1.0 / (1.0 + math.exp(-(s + b)))
            g += p - (1.0 if y > t else 0.0)
            h += p * (1.0 - p)
        grad.append(alpha * g / K)
        hess.append(alpha * h / K)
    return grad, hess


def anchor_loss_reference(scores, labels, thresholds, bias, alpha):
    """α × the mean over thresholds of the log-loss, summed over rows: what the anchor's gradient descends."""
    total = 0.0
    for s, y in zip(scores, labels):
        for t, b in zip(thresholds, bias):
            z = s + b
            total += math.log1p(math.exp(-z)) if y > t else math.log1p(math.exp(z))
    return alpha * total / len(thresholds)


def tukey_hsd_blocked_reference(values: list) -> dict:
    """Tukey's HSD on a run × query table, written out: the additive two-way model's residual mean square by
    loops, then ``q = |mean_i - mean_j| / sqrt(MSE / n)`` on the studentized range (Carterette, TOIS 2012).
    ``values``: one list of per-query values per run.  Returns ``{(i, j): p}``."""
    from scipy import stats

    k, n = len(values), len(values[0])
    run_mean = [sum(v) / n for v in values]
    query_mean = [sum(values[i][q] for i in range(k)) / k for q in range(n)]
    grand = sum(run_mean) / k
    sse = 0.0
    for i in range(k):
        for q in range(n):
            sse += (values[i][q] - run_mean[i] - query_mean[q] + grand) ** 2
    df = (k - 1) * (n - 1)
    mse = sse / df
    return {(i, j): float(stats.studentized_range.sf(abs(run_mean[j] - run_mean[i]) / math.sqrt(mse / n), k, df))
            for i in range(k) for j in range(i + 1, k)}


def paired_bootstrap_p_reference(d, n_resamples: int, seed: int) -> float:
    """The paired bootstrap test one resample at a time: each a multinomial draw of query counts (the same
    stream as one batch of the kernel's draws), its mean of the centred differences against the observed mean."""
    d = np.asarray(d, dtype=np.float64)
    n = d.size
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, np.full(n, 1.0 / n), size=n_resamples)
    hits = 0
    for row in counts:
        mean = sum(c * (x - d.mean()) for c, x in zip(row, d)) / n
        hits += abs(mean) >= abs(d.mean()) * (1 - 1e-12)
    return (hits + 1) / (n_resamples + 1)


def setup_gains_reference(pairs, counts: dict, sort) -> list:
    """trec_eval's ``setup_gains`` (gain_init.c) as written: every level 0 … the highest grade, judged or not,
    after the named ones, each sorted by ``sort`` (the truncating comparator's merge sort); [level, gain, count]."""
    levels = [[int(name), gain, 0] for name, gain in pairs if name.lstrip("+-").isdigit()]
    top = max(counts) if counts else -1
    for grade in range(top + 1):
        for row in levels:
            if row[0] == grade:
                row[2] = counts.get(grade, 0)
                break
        else:
            levels.append([grade, float(grade), counts.get(grade, 0)])
    return sort(levels)


def click_anchor_loss_reference(scores, clicks, thresholds, bias, alpha, exam):
    """α × the mean over thresholds of the position-based model's click log-loss, P(y > t_k) = e σ(s + b_k),
    summed over rows: what the anchor's gradient descends with examination propensities."""
    total = 0.0
    for s, y, e in zip(scores, clicks, exam):
        for t, b in zip(thresholds, bias):
            p = e / (1.0 + math.exp(-(s + b)))
            total -= math.log(p) if y > t else math.log1p(-p)
    return alpha * total / len(thresholds)


def click_fisher_reference(scores, thresholds, bias, alpha, exam):
    """α × the mean over thresholds of the click model's Fisher information in s: (dP/ds)² / (P (1 − P))."""
    out = []
    for s, e in zip(scores, exam):
        h = 0.0
        for b in bias:
            sig = 1.0 / (1.0 + math.exp(-(s + b)))
            p = e * sig
            h += (e * sig * (1 - sig)) ** 2 / (p * (1 - p))
        out.append(alpha * h / len(thresholds))
    return out


def position_bias_step_reference(bias, position, grad, hess, learning_rate, reg):
    """LightGBM's UpdatePositionBiasFactors, written out: per position p, over its rows,
    b_p += lr × (−Σg − b_p reg n_p) / (Σh + reg n_p + 0.001)."""
    out = list(bias)
    for p in range(len(bias)):
        rows = [i for i, q in enumerate(position) if q == p]
        n = len(rows)
        first = -sum(grad[i] for i in rows) - bias[p] * reg * n
        second = sum(hess[i] for i in rows) + reg * n
        out[p] = bias[p] + learning_rate * first / (second + 1e-3)
    return out


def examination_em_reference(propensity, position, clicked, gamma):
    """One EM step of the position-based click model's examination propensities: per position, the mean over its
    rows of P(examined | click) = 1 and P(examined | no click) = e (1 − γ) / (1 − e γ)."""
    out = []
    for p in range(len(propensity)):
        rows = [i for i, q in enumerate(position) if q == p]
        e = propensity[p]
        seen = [1.0 if clicked[i] else e * (1 - gamma[i]) / (1 - e * gamma[i]) for i in rows]
        out.append(sum(seen) / len(rows) if rows else float("nan"))
    return out


def click_factors_reference(position, clicked, propensity, scores, offset, power, posterior):
    """Row by row: (upper, lower, exam) of the λ kernel's pair factors and each position's expected examinations
    (the E step's sums): e = propensity[position]; upper = e^-power; lower = upper for a clicked row, else
    (1 − γ)/(1 − e γ) (``posterior``) or 1; seen += 1 for a click, e (1 − γ)/(1 − e γ) otherwise."""
    upper, lower, exam = [], [], []
    seen = [0.0] * len(propensity)
    for p, c, s in zip(position, clicked, scores):
        e = propensity[p]
        gamma = 1.0 / (1.0 + math.exp(-(s + offset)))
        irrelevant = (1.0 - gamma) / (1.0 - e * gamma) if e * gamma < 1.0 else 1.0  # the limit at e = γ = 1
        upper.append(e ** -power)
        lower.append(e ** -power if c else irrelevant if posterior else 1.0)
        exam.append(e)
        seen[p] += 1.0 if c else e * irrelevant
    return upper, lower, exam, seen


def nested_cross_fit_reference(make, X, y, row_fold):
    """Nested cross-fitted scores, one fit per (held-out fold, inner fold): outer[i] from a model fitted on the rows
    outside i's fold; inner[f][i] (i outside f) from a model fitted on the rows in neither f nor i's fold."""
    n_folds = int(row_fold.max()) + 1
    outer = np.empty(len(y))
    inner = np.full((n_folds, len(y)), np.nan)
    for f in range(n_folds):
        m = make().fit(X[row_fold != f], y[row_fold != f])
        outer[row_fold == f] = m.predict(X[row_fold == f])
        for g in range(n_folds):
            if g != f:
                keep = (row_fold != f) & (row_fold != g)
                m = make().fit(X[keep], y[keep])
                inner[f, row_fold == g] = m.predict(X[row_fold == g])
    return outer, inner
