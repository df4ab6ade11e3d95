"""Reporting: the comparison records (:mod:`.summary`), notebook execution and the HTML report
(:mod:`.reproduce`, :mod:`.report`), the generated docs pages (:mod:`.docs`), the rows that differ
(:mod:`.discrepancies`). The paper-vs-workbook rows of each study are in its folder
(:mod:`tt_workbook.studies`); the papers' numbers in :mod:`tt_workbook.paper_values`."""
