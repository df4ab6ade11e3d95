"""The measurements themselves (notebook 01): what a benchmark holds, and the papers' statements about it."""
