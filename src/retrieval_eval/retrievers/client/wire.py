"""The usual answer read straight from the bytes received: ids alone, plain ASCII.

Nearly every answer a retriever sends is a list of short ASCII document ids and nothing
else. Encoded the canonical way (as every protobuf library writes it), each result is then
exactly ``0x0a, n + 2, 0x0a, n, <n bytes>``, so the ids can be sliced out of the bytes in one
pass, with no message and no wrapper object per result built and no second pass to judge
them. Anything else (scores, chunk ids, unknown fields, non-ASCII or unusual ids, another
encoding of the same message) is declined and goes the general way: protobuf's parser,
then the contract's rules.
"""

from __future__ import annotations


def plain_ids(data: bytes, limit: int) -> tuple[str, ...] | None:
    """The ids of an answer to ``limit`` that is the canonical encoding of at most
    ``limit`` results holding nothing but a document id each, of 1 to 125 visible ASCII
    characters (``!`` to ``~``: no white space, no control character); ``None`` for any
    other bytes.

    An answer read here conforms to the retriever contract on sight (no more results than
    asked for, no empty, blank or over-long id, no chunk id), so it needs no other check.
    """
    if not data.isascii():  # every length is then one byte, every id ASCII
        return None
    text = data.decode("ascii")
    ids: list[str] = []
    append = ids.append
    at, end = 0, len(data)
    try:
        while at < end:
            size = data[at + 1]
            if data[at] != 0x0A or data[at + 2] != 0x0A or data[at + 3] != size - 2:
                return None
            stop = at + 2 + size
            append(text[at + 4 : stop])
            at = stop
    except IndexError:  # cut short inside a result's first four bytes
        return None
    if at != end or len(ids) > limit:  # cut short inside an id, or too many results
        return None
    joined = "".join(ids)
    if " " in joined or not joined.isprintable() or not all(ids):
        return None
    return tuple(ids)
