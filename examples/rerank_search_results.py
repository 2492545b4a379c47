"""Re-rank your search results: BM25 as the first stage, an exact second stage on its top 20.

The first stage here is one feature (BM25, feature 25 of LETOR 4.0; on the bundled
sample, feature 1).  ``TopKReranker`` takes the top 20 of each training query by it,
fits a linear model of all features plus the BM25 score for DCG@10, and keeps it only
if it beats BM25's order on held-out queries.  Test lists are re-ranked in their top 20;
the rest keeps the BM25 order.

Run:  python examples/rerank_search_results.py                        # bundled sample
      python examples/rerank_search_results.py --train vali.txt --test test.txt --feature 25
"""

import argparse

import boostrank as br

ap = argparse.ArgumentParser()
ap.add_argument("--train", help="LETOR training file (default: the bundled sample)")
ap.add_argument("--test", help="LETOR test file")
ap.add_argument("--feature", type=int, default=1, help="1-based feature used as the first stage")
ap.add_argument("--k", type=int, default=20)
ap.add_argument("--time-limit", type=float, default=10.0)
args = ap.parse_args()

if args.train:
    train = br.load_letor(args.train, sparse=False)
    test = br.load_letor(args.test or args.train, sparse=False, n_features=train.n_features)
else:
    train, test = br.load_sample()
base_train, base_test = train.X[:, args.feature - 1], test.X[:, args.feature - 1]

reranker = br.TopKReranker(k=args.k, time_limit=args.time_limit)
reranker.fit(train.X, train.y, qid=train.qid, base_scores=base_train)
print(reranker.result_.summary())
reranked = reranker.predict(test.X, base_test, qid=test.qid)
for name, s in (("first stage", base_test), (f"re-ranked top {args.k}", reranked)):
    print(f"{name:<18} NDCG@10 {br.ndcg(test.y, s, test.qid, k=10):.4f}   "
          f"MAP {br.mean_average_precision(test.y, s, test.qid):.4f}")
