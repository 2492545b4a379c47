"""Score a LETOR file with a linear model and compare rank metrics.

Run:  python examples/evaluate_letor.py [train.txt test.txt]
Without arguments it uses the sample bundled with boostrank.
"""

import sys

import numpy as np
from sklearn.linear_model import LogisticRegression

import boostrank as br

if len(sys.argv) == 3:
    train = br.load_letor(sys.argv[1])
    test = br.load_letor(sys.argv[2], n_features=train.n_features)
else:
    train, test = br.load_sample()

model = LogisticRegression(max_iter=1000).fit(train.X, train.y > 0)
scores = model.decision_function(test.X)

per_query_auc = br.auc(test.y, scores, test.qid, per_query=True)
print(f"test: {len(test)} documents in {test.n_queries} queries")
print(f"AUC           {br.auc(test.y, scores, test.qid):.4f}  "
      f"({np.count_nonzero(~np.isnan(per_query_auc))} queries with both classes)")
print(f"AUC (ties as misranks) {br.auc(test.y, scores, test.qid, ties='pessimistic'):.4f}")
print(f"MAUC          {br.mauc(test.y, scores, test.qid):.4f}")
print(f"NDCG@10       {br.ndcg(test.y, scores, test.qid, k=10):.4f}  (LightGBM convention)")
print(f"NDCG@10       {br.ndcg(test.y, scores, test.qid, k=10, convention='trec'):.4f}  (trec_eval)")
print(f"MAP           {br.mean_average_precision(test.y, scores, test.qid):.4f}")
print(f"P@5 micro     {br.precision_at(test.y, scores, test.qid, k=5):.4f}")
print(f"P@5 macro     {br.precision_at(test.y, scores, test.qid, k=5, average='macro'):.4f}")
print(f"DCG@5 (RRF)   {br.rank_risk(test.y, scores, br.weights.dcg_at(5), qid=test.qid):.4f}")
