"""Applications built on the library: the teaching tour, the interactive explorer, your own job."""
