"""The viewer binds loopback unless told otherwise, in so many words."""

from __future__ import annotations

import re

import pytest

from retrieval_eval.errors import InputError
from retrieval_eval.web.address import parse_address


@pytest.mark.parametrize(
    ("text", "host", "port"),
    [("127.0.0.1:8765", "127.0.0.1", 8765), (":0", "127.0.0.1", 0), ("9000", "127.0.0.1", 9000),
     ("[::1]:80", "::1", 80), ("localhost:1", "localhost", 1), ("127.3.4.5:2", "127.3.4.5", 2)],
)  # fmt: skip
def test_loopback_addresses_parse(text, host, port):
    address = parse_address(text)
    assert (address.host, address.port, address.loopback) == (host, port, True)


@pytest.mark.parametrize("text", ["0.0.0.0:8765", "10.1.2.3:80", "[::]:80", "example.org:80"])
def test_other_addresses_need_expose_and_say_what_it_exposes(text):
    with pytest.raises(InputError, match="no authentication; add --expose"):
        parse_address(text)
    assert not parse_address(text, expose=True).loopback


@pytest.mark.parametrize("text", ["127.0.0.1:http", "127.0.0.1:70000", "nonsense"])
def test_bad_addresses_are_named(text):
    with pytest.raises(InputError, match=re.escape(repr(text))):
        parse_address(text)


@pytest.mark.parametrize(
    ("bound", "exposed", "host", "allowed"),
    [
        ("127.0.0.1", (), "127.0.0.1:8765", True),
        ("127.0.0.1", (), "localhost:8765", True),
        ("127.0.0.1", (), "LOCALHOST", True),
        ("127.0.0.1", (), "[::1]:8765", True),
        ("127.0.0.1", (), "127.3.4.5:1", True),
        ("127.0.0.1", (), "evil.test:8765", False),
        ("127.0.0.1", (), "localhost.evil.test", False),
        ("127.0.0.1", (), "10.0.0.5:8765", False),
        ("127.0.0.1", (), "", False),
        ("127.0.0.1", (), "[::1", False),
        ("10.0.0.5", (), "10.0.0.5:8765", True),
        ("10.0.0.5", (), "10.0.0.6:8765", False),
        ("0.0.0.0", ("viewer.lan",), "viewer.lan:8765", True),
        ("0.0.0.0", ("viewer.lan",), "10.0.0.6:8765", True),
        ("0.0.0.0", ("viewer.lan",), "evil.test:8765", False),
    ],
)
def test_the_host_rule_answers_loopback_the_bound_address_and_exposed_names(
    bound, exposed, host, allowed
):
    from retrieval_eval.web.hosts import HostRule

    assert HostRule.for_address(bound, exposed).allows(host) is allowed
