"""Reporting: every typed-in paper number (:mod:`.paper_values`), paper-vs-workbook tables and rows
(:mod:`.dataset`, :mod:`.feasibility`, :mod:`.subsampling`, :mod:`.nephele`, :mod:`.fabulinus`; one per notebook topic),
the comparison records (:mod:`.summary`), notebook execution and the HTML report (:mod:`.reproduce`)."""
