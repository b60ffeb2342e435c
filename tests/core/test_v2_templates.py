"""core/v2/templates.py: `<% … %>` tags found and filled in as the v2 server's `render` (mustache 2.3
with the tags `<%` `%>`) does, and refused where it answers 500."""

from __future__ import annotations

import pytest

from pai_lsp.core.v2.templates import TemplateError, find_templates, joined_commands, lookup, render


def test_tags_are_found_with_their_places_and_names():
    text = "echo <% $parameters.x %> and <%$secrets.a[0]%>"
    first, second = find_templates(text)
    assert text[first.start:first.end] == "<% $parameters.x %>" and first.expr == "$parameters.x" and first.filled
    assert text[second.start:second.end] == "<%$secrets.a[0]%>" and second.expr == "$secrets.a.0"
    assert second.parts == ["$secrets", "a", "0"]
    assert find_templates("no tags here: 5 % 3 < 4") == []


@pytest.mark.parametrize(("text", "parameters", "secrets", "expected"), [
    ("python train.py --lr <% $parameters.lr %>", {"lr": 0.1}, None, "python train.py --lr 0.1"),
    ("<% $parameters.n %>", {"n": 10.0}, None, "10"),  # JavaScript's String of a number
    ("<% $parameters.flag %>/<% $parameters.list %>", {"flag": True, "list": [1, "a"]}, None, "true/1,a"),
    ("<% $parameters.obj %>", {"obj": {"a": 1}}, None, "[object Object]"),
    ("<% $parameters.missing %> <% $parameters.none %>", {"none": None}, None,
     "<% $parameters.missing %> <% $parameters.none %>"),  # kept as written (HEAD)
    ("x <%   $parameters.a[1]   %> y", {"a": ["p", "q"]}, None, "x q y"),
    ("<% $secrets.pw %>", {}, None, "<% $secrets.pw %>"),  # the server leaves secrets in commands to the runtime
    ("<% $secrets.pw %>", {}, {"pw": "s3cret"}, "s3cret"),
    ("a <% #sec %>dropped <% $parameters.x %><% /sec %>b<% !comment %>", {"x": 1}, None, "a b"),
    ("  padded  ", {}, None, "padded"),  # the result is trimmed
    ("<% $parameters.name.length %>", {"name": "abcd"}, None, "4"),
])
def test_rendering_is_the_servers(text, parameters, secrets, expected):
    assert render(text, parameters, secrets) == expected


def test_prerequisites_of_a_role_are_filled_in():
    assert render("cd <% $script.uri %>", {}, None, script={"uri": "/code"}) == "cd /code"
    assert render("cd <% $data.uri %>", {}, None, data=None) == "cd <% $data.uri %>"


@pytest.mark.parametrize(("text", "message", "where"), [
    ("echo <% $parameters.x", "Unclosed tag at 21", "<%"),
    ("echo <% $parameters.x %> <%", "Unclosed tag at 27", "<%"),
    ("a <% #s %>b", 'Unclosed section "s" at 11', "<% #s %>"),
    ("a <% /s %>", 'Unopened section "s" at 2', "<% /s %>"),
])
def test_what_the_server_refuses_is_said_in_mustaches_words(text, message, where):
    with pytest.raises(TemplateError) as caught:
        find_templates(text)
    assert caught.value.message == message
    assert text[caught.value.start:caught.value.end] == where
    with pytest.raises(TemplateError):
        render(text, {}, None)


def test_commands_are_joined_as_the_server_joins_them():
    assert joined_commands(["  a ", "b", "\tc"]) == "a\nb\nc"
    # A tag may span two commands once they are joined.
    assert render(joined_commands(["echo <% $parameters.x", "%>"]), {"x": 1}, None) == "echo 1"


def test_lookup_walks_mappings_lists_and_strings():
    context = {"$parameters": {"a": {"b": [10, 20]}, "s": "xyz"}}
    assert lookup(context, "$parameters.a.b.1") == 20
    assert lookup(context, "$parameters.s.0") == "x"
    assert lookup(context, "$parameters.a.c") is None and lookup(context, "$nothing") is None
