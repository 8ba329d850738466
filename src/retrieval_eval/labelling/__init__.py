"""Labelling: pooled drafts, judgements and the agreement between judges."""
