"""Every threshold and floating-point flag set of the kernels, each with what it trades.

The figures behind each choice are measured by the scripts in ``benchmarks/``
(``long_lists.py``, ``objectives.py``, ``erfc_sum.py``, ``threads.py``), not quoted here.
Numba freezes these values into the compiled kernels: after editing one, clear
``boostrank/_kernels/__pycache__/*.nb[ic]``.
"""

# ----------------------------------------------------------------- floating point

#: The series sums: contraction to FMA and reassociation let the harmonic loops vectorise;
#: no NaN/inf assumptions (``nnan``/``ninf``), so a bad score still reaches the checks.
SERIES_FASTMATH = {"contract", "reassoc", "nsz"}
#: The vectorised exp of the logistic pair sums: FMA only, so its error bound holds.
EXP_FASTMATH = {"contract"}
#: The logistic pair sums: reordered sums and reciprocal multiplies, within the tests' 1e-12.
PAIR_SUM_FASTMATH = {"reassoc", "contract", "nsz", "arcp"}
#: Shortest run of lower-class partners the logistic pair sums take in vectorised loops: below, the
#: vectors' set-up and alias checks cost more than the scalar loop (MQ2008's runs are about 14 rows).
VECTOR_MIN_RUN = 16
#: Rows per batch of the anchor's vectorised loops: the batch's four arrays stay in L1.
ANCHOR_BATCH = 256

# ----------------------------------------------------------------- when to go parallel

#: Longest list the series takes: the parallel sort packs row numbers into 32 bits of its keys.
MAX_LIST_ROWS = 1 << 32

#: Lists shorter than this are ordered on one thread: the parallel sort's fixed cost
#: (counters and parallel regions per pass) outweighs its gain below.
PARALLEL_SORT_MIN_ROWS = 1 << 16
#: Rows from which a run's query takes the radix sort of its scores in trec_eval's order (``ids.trec_order``); below,
#: the merge sort, whose set-up is smaller (benchmarks/MEASUREMENTS.md, "a run's order by radix")
TREC_RADIX_MIN_ROWS = 128
#: Batches with fewer rows run the λ kernels on one thread: below, a parallel region's
#: start-up costs more than the work it splits.
PARALLEL_MIN_ROWS = 200_000
#: From this many rows a batch whose every list takes the probit series (one long list) runs on all threads:
#: the series' sweeps split across them pay, idle and beside busy loops on every core, where many short lists
#: (each a parallel region of its own) do not.
SERIES_PARALLEL_MIN_ROWS = 50_000

#: Shortest chunk a λ sweep of one list is cut into on more than two threads: each chunk
#: after the first costs a pass over the rows before it (about half its sweep).
SWEEP_CHUNK_MIN_ROWS = 1 << 15

# ----------------------------------------------------------------- the series' loops

#: Harmonics the two-class sweep carries, zero-padded: a constant trip count vectorises
#: fully; eps down to about 1e-7 needs at most 16 (eps 1e-4: 11).
SWEEP_P = 16
#: Rows per batch of a sweep's harmonics: the batch's (rows × 2P) table stays in L1.
SWEEP_BATCH = 64
#: Minority-class rate from which the two-class sweep runs branch-free: below it, a branch
#: on the class predicts well and is cheaper than the selects.
MIXED_MIN_RATE = 0.12
#: Points per batch of erfc_sum's vectorised loops: the batch's arrays stay in L1.
ERFC_BATCH = 256
#: Work units erfc_sum's batches are dealt into: more balance the threads, each costs its scratch.
ERFC_CHUNKS = 16
#: Row chunks of the uniform probit λ's grouping passes (fixed, so the order does not depend on the threads)
UNIFORM_CHUNKS = 16
#: Fewer targets + sources sum on one thread (and never compile the parallel loops): below, the
#: parallel region costs more than it splits (MEASUREMENTS.md, "first compile")
ERFC_PARALLEL_MIN_POINTS = 10_000

# ----------------------------------------------------------------- exact pairs or the series

#: ``method="auto"`` of the probit λ objective: lists from this many rows take the series,
#: shorter ones the exact pair sums (the series' fixed cost is not repaid below).
AUTO_MIN_ROWS = 128
#: ``method="auto"`` of RankNCG: exact pair sums up to this many pairs per preferred class
#: pair, the series' two ``erfc_sum`` calls per class pair above (where they cost the same).
AUTO_PAIRS_PER_EDGE = 2500

# ----------------------------------------------------------------- kernel settings by name

from collections import namedtuple  # noqa: E402  (the settings below are the kernels' named arguments)

#: What :func:`~boostrank._kernels.lambdas.lambda_auc_kernel` reads besides its arrays: σ of the
#: logistic, which parts of LightGBM's ``lambdarank_norm`` apply (an int of the ``NORM_*`` bits),
#: the statistic's own pair weights instead of Welleck's swap weights, every ``stride``-th partner
#: (1: all) and the seed of which ones (uint64).
LambdaSetting = namedtuple("LambdaSetting", "sigma norm uniform stride seed")

#: The two parts of LightGBM's ``lambdarank_norm``, as bits of the λ kernels' ``norm``: each pair's
#: |ΔM| divided by 0.01 + |Δs| (unless the query's scores all tie), and each query's λs and hessians
#: rescaled by log2(1 + Σλ) / Σλ.  ``lambdarank_norm`` is both.
NORM_SCORE_GAP = 1
NORM_QUERY = 2

#: The branch and bound over directions (:func:`~boostrank._kernels.direction_bnb.direction_bnb`): the pair
#: statistic, the stack of boxes, the records of closed narrow boxes and the limits of one call.
BnbPairs = namedtuple("BnbPairs", "D c_plus c_minus")
BnbStack = namedtuple("BnbStack", "lo hi face node_list node_len node_base node_ub pool")
BnbRecords = namedtuple("BnbRecords", "w base face start idx")
BnbLimits = namedtuple("BnbLimits", "max_nodes min_width tol")
#: Slots of its int64 counters, kept by the caller between calls.
BNB_TOP, BNB_NODES, BNB_STATUS, BNB_RECORDS, BNB_RECORDED_PAIRS = range(5)

#: One sweep of the probit λ's series (:mod:`.lambda_series`): block width (the cut-off radius), series
#: step, the erfc and Gaussian weights (zero-padded to the loops' length), the λ factor σ/2 and the
#: hessian factor σ²α/√π.
SweepSeries = namedtuple("SweepSeries", "width h ae ag lam hc")
#: The probit λ of whole lists (:func:`~boostrank._kernels.lambda_series.lambda_auc_series_kernel`): σ and
#: α of the link, the series (width, h, p harmonics, weights) and the largest |ασ s| whose block numbers
#: stay exact.
ProbitSeries = namedtuple("ProbitSeries", "sigma alpha width h p ae ag max_t")
