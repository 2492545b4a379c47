"""λ-AUC on one long list in linear time per round (probit link + erfc series).

Run:  python examples/long_list_auc.py [--n 200000] [--rounds 30]
"""

import argparse
import time

import numpy as np

import boostrank as br

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=20000)
ap.add_argument("--rounds", type=int, default=20)
args = ap.parse_args()

rng = np.random.default_rng(0)
X = rng.normal(size=(args.n, 10))
y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=args.n) > 2.5).astype(int)
split = int(0.8 * args.n)
for name, kw in (("λ-AUC, erfc series", dict(objective="auc", link="probit")),
                 ("LightGBM binary", dict(objective="binary"))):
    obj = kw.pop("objective")
    t = time.perf_counter()
    if obj == "binary":
        import lightgbm as lgb

        model = lgb.LGBMClassifier(n_estimators=args.rounds, num_leaves=15, verbose=-1).fit(X[:split], y[:split])
        s = model.predict_proba(X[split:])[:, 1]
    else:
        model = br.LambdaRanker(objective=obj, n_estimators=args.rounds, num_leaves=15, **kw)
        s = model.fit(X[:split], y[:split], group=[split]).predict(X[split:])  # one list
    print(f"{name:<20} {time.perf_counter() - t:6.2f} s   test AUC {br.auc(y[split:], s):.4f}")
