"""boostrank.metrics: the package's names, the metrics of arrays and the reports' table, as before the split."""

import subprocess
import sys

import pytest

import boostrank as br
from boostrank import metrics
from boostrank.evaluation import report
from boostrank.metrics import arrays


@pytest.mark.parametrize("name", sorted(metrics.__all__))
def test_every_name_of_the_package_is_its_home_object(name):
    home = report if name in ("metric_table", "format_table") else arrays
    assert getattr(metrics, name) is getattr(home, name)


def test_the_names_users_reached_before_the_split_still_resolve():
    from boostrank.metrics import format_table, group_offsets, metric_table, TieWarning  # noqa: F401

    assert metrics.TieWarning is br.exceptions.TieWarning
    assert br.metrics.metric_table is report.metric_table
    assert {"metric_table", "format_table", "auc", "get_metric"} <= set(dir(metrics))  # tab completion sees them
    with pytest.raises(AttributeError, match="no attribute 'tables'"):
        metrics.tables


@pytest.mark.slow  # a fresh interpreter
def test_the_table_is_reached_first_in_a_fresh_interpreter():
    """``boostrank.metrics.metric_table`` before anything of evaluation has been imported: no import circle."""
    code = ("import boostrank.metrics as m, sys; assert 'boostrank.evaluation' not in sys.modules; "
            "t = m.metric_table([1, 0], None, {'r': [0.3, 0.1]}, ['auc']); assert t['r']['auc'] == 1.0")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
