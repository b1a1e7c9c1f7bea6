"""Reading the evidence: a log export (pages as `GET .../periods/{id}/log` returns them, concatenated in one file,
or one `{"records": [...]}` document, or fetched page by page from the API), receipts, a closing summary and the
published keys, each from a file or an http(s) URL."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from .report import Unusable

PAGE_LIMIT = 100
MAX_PAGES = 100_000  # a server whose cursor never ends cannot keep the verifier reading for ever
TIMEOUT_S = 60
COMPACT_JWS = re.compile(r"[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")  # a receipt given as itself


def is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def fetch_json(url: str) -> Any:
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            body = response.read()
    except urllib.error.HTTPError as error:
        raise Unusable(f"{url}: HTTP {error.code} {error.read()[:300].decode(errors='replace')}") from None
    except (urllib.error.URLError, OSError) as error:
        raise Unusable(f"{url}: {error}") from None
    try:
        return json.loads(body)
    except ValueError:
        raise Unusable(f"{url}: the answer is not JSON") from None


def read_text(source: str) -> str:
    if is_url(source):
        raise ValueError("read_text takes a file")
    try:
        return Path(source).read_text(encoding="utf-8")
    except OSError as error:
        raise Unusable(f"{source}: {error.strerror or error}") from None


def json_values(text: str, source: str) -> list[Any]:
    """Every JSON value in the text, one after another (pages concatenated, with or without newlines between)."""
    decoder, i = json.JSONDecoder(), 0
    values: list[Any] = []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return values
        try:
            value, i = decoder.raw_decode(text, i)
        except ValueError as error:
            raise Unusable(f"{source}: not JSON at character {i}: {error}") from None
        values.append(value)


def records_of(value: Any, source: str) -> list[Any]:
    """The records a value holds: a page, a list of pages, or a list of records."""
    if isinstance(value, dict):
        if not isinstance(value.get("records"), list):
            raise Unusable(f'{source}: a log page is {{"records": [...]}}, this object has no records list')
        return list(value["records"])
    if isinstance(value, list):
        if all(isinstance(v, dict) and "records" in v for v in value) and value:
            return [r for page in value for r in records_of(page, source)]
        return list(value)
    raise Unusable(f"{source}: neither a log page nor a list of records")


def log_url(base: str, board_id: str, period_id: str, generation: str | None = None) -> str:
    quote = urllib.parse.quote
    url = f"{base.rstrip('/')}/leaderboards/{quote(board_id, safe='')}/periods/{quote(period_id, safe='')}/log"
    return url if generation is None else f"{url}?generation={quote(generation, safe='')}"


def board_order(base: str, board_id: str) -> str | None:
    """The board's order (desc or asc) from GET /leaderboards/{board}, for payloads that do not sign one."""
    board = fetch_json(f"{base.rstrip('/')}/leaderboards/{urllib.parse.quote(board_id, safe='')}")
    order = board.get("order") if isinstance(board, dict) else None
    return order if order in ("desc", "asc") else None


def fetch_log(url: str) -> list[Any]:
    """Every page of a log route, following next_cursor."""
    records: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        query = {"limit": str(PAGE_LIMIT), **({"cursor": cursor} if cursor else {})}
        separator = "&" if "?" in url else "?"
        page = fetch_json(f"{url}{separator}{urllib.parse.urlencode(query)}")
        records += records_of(page, url)
        cursor = page.get("next_cursor") if isinstance(page, dict) else None
        if not cursor:
            return records
    raise Unusable(f"{url}: still a next_cursor after {MAX_PAGES} pages")


def load_log(sources: list[str]) -> list[Any]:
    """The records of every source in turn (files in the order given; a URL is read page by page)."""
    records: list[Any] = []
    for source in sources:
        if is_url(source):
            records += fetch_log(source)
        else:
            for value in json_values(read_text(source), source):
                records += records_of(value, source)
    return records


def load_json(source: str) -> Any:
    if is_url(source):
        return fetch_json(source)
    values = json_values(read_text(source), source)
    if len(values) != 1:
        raise Unusable(f"{source}: expected one JSON document, found {len(values)}")
    return values[0]


def load_receipt(source: str) -> str:
    """A receipt: the compact JWS itself, a file holding it, or a file or URL holding {"receipt": "<JWS>"}."""
    if COMPACT_JWS.fullmatch(source.strip()):
        return source.strip()
    if is_url(source):
        document = fetch_json(source)
    else:
        text = read_text(source).strip()
        if not text.startswith("{"):
            return text
        document = load_json(source)
    if not isinstance(document, dict) or not isinstance(document.get("receipt"), str):
        raise Unusable(f'{source}: neither a compact JWS nor {{"receipt": "<compact JWS>"}}')
    return str(document["receipt"])
