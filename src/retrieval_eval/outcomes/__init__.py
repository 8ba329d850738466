"""A run's question outcomes held by column: what lets a million-question run fit in memory.

``QuestionOutcome`` objects are the API: scoring builds them, reports and the store read
them. Holding a million of them at once is what a big run cannot afford (an object, two
tuples of ids and a float per question: about 400 bytes). ``CompactOutcomes`` keeps the
same values by field instead and is a ``Sequence[QuestionOutcome]`` that builds each
outcome when it is read, equal field by field to the one that was added:

- every result id is stored once per run, and a ranking is an array of 4-byte indices
  into that table (ids recur across questions: a corpus has far fewer documents than a
  big run has results); the distinct documents likewise, or nothing when they are the
  ranking itself (no separator, no duplicate);
- latency and scores are C doubles; form, hard class and the hits mapping are small
  indices into tables of the few values a run holds (hits mappings are shared, read-only);
- the question's id, text, form, hard class and labels are read from the question set
  when the builder was given it (``builder(questions)``, then ``add(outcome, question=i)``):
  a 4-byte index per outcome; otherwise they are kept per outcome, as references to the
  strings the outcome holds; errors and notes, rare, are kept by position.

Built with ``CompactOutcomes.builder()`` in any order (the coordinator records answers as
they arrive), then ``build(order)`` puts them in question order. ``compact`` holds the
sequence and its builder, ``columns`` the columns and the shapes read back.
"""
