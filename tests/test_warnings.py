"""boostrank._warnings: a warning names the user's line, once, whatever path in boostrank raised it."""

import numpy as np

import boostrank as br


def test_the_long_list_warning_names_the_users_line_once(monkeypatch):
    """#47 item 6: it printed twice (the fit's check and the engine's callback) at internal lines."""
    import warnings

    import boostrank.objectives.objective as objectives

    monkeypatch.setattr(objectives, "LOGISTIC_WARN_PAIRS", 10**6)
    rng = np.random.default_rng(0)
    n = 4002
    X, y = rng.normal(size=(n, 2)), np.tile([0.0, 1.0], n // 2)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        br.LambdaRanker(link="logistic", n_estimators=2).fit(X, y, group=[n])
    ours = [w for w in seen if "pairs of differing labels" in str(w.message)]
    assert len(ours) == 1 and ours[0].filename == __file__
