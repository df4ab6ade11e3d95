"""One folder per paper study: its analysis, its paper-vs-workbook rows and its figures together."""
