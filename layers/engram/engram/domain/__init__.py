"""Models, errors and pure rules: no I/O, nothing above them."""
