"""Paper-vs-workbook records: agreement rules."""

import pytest

from tt_core.reporting.summary import agree, comparison


def test_agree_rules():
    assert agree(111, 111) is True and agree(111, 112) is False
    assert agree(0.755, 0.7554, abs_tol=0.0005) is True
    assert agree(10.0, 4.9, factor=2.0) is False and agree(10.0, 5.0, factor=2.0) is True
    assert agree(2.4, 4.8, factor=2.0) is True and agree(2.4, -4.8, factor=2.0) is False
    assert agree(None, 1.0) is None and agree(1.0, float("nan")) is None
    assert agree("6000", "6000") is True
    with pytest.raises(ValueError, match="factor must be >= 1"):
        agree(1.0, 1.0, factor=0.5)


def test_comparison_computes_agrees():
    df = comparison([{"source": "s", "item": "a (count)", "paper": 3, "workbook": 3},
                     {"source": "s", "item": "b", "paper": 10.0, "workbook": 30.0, "factor": 2.0}])
    assert df["agrees"].tolist() == [True, False]
