"""Labels drafted and graded by a model, trusted only as far as they agree with people."""
