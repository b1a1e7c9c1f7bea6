"""The README is a front door and the docs/ pages hold the rest: the README stays small, and no relative
link in it or in docs/ points at a file or a heading that is not there (a page moved or a heading renamed breaks
a test here, not a reader's click)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs").glob("*/*.md"))]
README_MAX_BYTES = 15_000  # the README's budget: at most 15 KB

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # https:, mailto:, ...


def _prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks (a `# comment` in a bash block is no heading, a `[x](y)` there no link)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def github_anchor(heading: str) -> str:
    """GitHub's id for a heading: lower case, punctuation dropped (hyphens and underscores kept), spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    for line in _prose_lines(page.read_text()):
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            slug = github_anchor(heading.group(1))
            n, unique = 0, slug
            while unique in found:  # GitHub numbers repeated headings: x, x-1, x-2
                n += 1
                unique = f"{slug}-{n}"
            found.add(unique)
    return found


def relative_links(page: Path) -> list[str]:
    return [
        target for line in _prose_lines(page.read_text()) for target in LINK.findall(line) if not EXTERNAL.match(target)
    ]


def test_the_readme_is_a_front_door_of_at_most_15_kb():
    size = len(README.read_bytes())
    assert size <= README_MAX_BYTES, f"README.md is {size} bytes: move a section to a page under docs/"


def test_the_anchor_of_a_heading_is_githubs():
    """The ids the link check expects, as GitHub renders them (the links in these pages that were written by hand)."""
    assert github_anchor("Live updates (AWS AppSync Events)") == "live-updates-aws-appsync-events"
    assert github_anchor("Text, numbers and dates") == "text-numbers-and-dates"
    assert github_anchor("Launch load test (`make bench-launch`)") == "launch-load-test-make-bench-launch"


def broken_links(page: Path) -> list[str]:
    """Each relative link must name an existing file, and a `#heading` on a Markdown page one of its headings."""
    broken = []
    for target in relative_links(page):
        path_part, _, anchor = target.partition("#")
        linked = (page.parent / path_part).resolve() if path_part else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading #{anchor} in {linked.name}")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path):
    broken = broken_links(page)
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_link_check_finds_a_missing_page_and_a_missing_heading(tmp_path: Path):
    (tmp_path / "OTHER.md").write_text("# Other\n\n## Kept (here)\n\n```bash\n# not a heading\n```\n")
    page = tmp_path / "PAGE.md"
    page.write_text(
        "# Page\n\n[ok](OTHER.md#kept-here) [self](#page) [gone](GONE.md) [renamed](OTHER.md#not-a-heading)\n"
        "[web](https://example.com/x.md)\n\n```\n[in code](NOWHERE.md)\n```\n"
    )
    assert broken_links(page) == [
        "GONE.md: no such file",
        "OTHER.md#not-a-heading: no heading #not-a-heading in OTHER.md",
    ]


def test_the_readme_links_every_page_under_docs():
    """A page nobody can reach from the front door is a page nobody reads."""
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in relative_links(README)}
    unlinked = [p.name for p in sorted((ROOT / "docs").glob("*.md")) if p.resolve() not in linked]
    assert not unlinked, f"README.md links no {unlinked}"


# --- Figures the docs give, held to the synthesized templates ------------------------------------------

CLOUDFORMATION_MAX_RESOURCES = 500  # per stack
WORDS = dict(enumerate("zero one two three four five six seven eight nine ten eleven twelve".split()))


def _unwrapped(path: Path) -> str:
    """The page's text with its line breaks as spaces: a figure's sentence may wrap anywhere."""
    return " ".join(path.read_text().split())


def _of_type(template: dict, kind: str) -> list[dict]:
    return [r for r in template["Resources"].values() if r["Type"] == kind]


def test_the_readme_gives_a_leaderboards_resource_count_and_how_many_fit_in_a_stack(
    dev_template_json, prod_template_json
):
    """The whole stack is one leaderboard (every resource is under its construct), with dev's and prod's settings
    from cdk.json; CloudFormation takes at most 500 resources in a stack."""
    assert all(name.startswith("Leaderboard") for name in dev_template_json["Resources"])
    dev, prod = len(dev_template_json["Resources"]), len(prod_template_json["Resources"])
    dev_fit, prod_fit = CLOUDFORMATION_MAX_RESOURCES // dev, CLOUDFORMATION_MAX_RESOURCES // prod
    readme = _unwrapped(README)
    assert f"is {dev} CloudFormation resources with dev's settings and {prod} with prod's" in readme
    assert (
        f"holds {WORDS[dev_fit]} dev-like leaderboards ({dev_fit * dev}) or {WORDS[prod_fit]} production ones "
        f"({prod_fit * prod}; {WORDS[prod_fit + 1]} are {(prod_fit + 1) * prod})" in readme
    )


def test_two_dev_like_leaderboards_do_fit_in_one_stack(users_app):
    """The user's app (conftest.py) has two in stack `games`, as the README says a stack holds."""
    template = users_app.synth().get_stack_by_name("games").template
    assert len(_of_type(template, "AWS::ApiGateway::RestApi")) == 2
    assert len(template["Resources"]) <= CLOUDFORMATION_MAX_RESOURCES


def test_the_docs_give_the_number_of_functions(dev_template_json):
    from cdk_leaderboard_lambda.shared.function_registry import FUNCTIONS

    count = len(_of_type(dev_template_json, "AWS::Lambda::Function"))
    assert count == len(FUNCTIONS)
    readme = _unwrapped(README)
    assert f" {count} Lambda functions (lambda_src/" in readme
    assert f"{WORDS[count].capitalize()} functions on one code asset" in readme
    package = ROOT / "lambda_src" / "cdk_leaderboard_lambda" / "__init__.py"
    assert f"the {WORDS[count]} leaderboard functions" in _unwrapped(package)
    design = (ROOT / "docs" / "DESIGN.md").read_text()
    assert f"{WORDS[count].capitalize()} functions on one code asset" in design
    table = design.split("## Functions", 1)[1].split("\n\n")[2]
    assert len(table.splitlines()) == 2 + count  # a heading, a rule, one row per function


def test_the_two_reader_limit_of_a_stream_is_stated_where_a_third_reader_is_invited(dev_template_json):
    """The scores table's stream has two readers (rank counters, live updates), a DynamoDB stream's limit per
    shard: grant_stream_read and existing_scores_table (its docstring, so CONFIGURATION.md) and the README say so."""
    from cdk_leaderboard import Leaderboard

    (scores,) = [
        name for name, r in dev_template_json["Resources"].items() if "Scores" in name and "Table" in r["Type"]
    ]
    readers = [
        m
        for m in _of_type(dev_template_json, "AWS::Lambda::EventSourceMapping")
        if m["Properties"]["EventSourceArn"] == {"Fn::GetAtt": [scores, "StreamArn"]}
    ]
    assert len(readers) == 2
    limit = "at most two readers per shard"
    assert limit in " ".join((Leaderboard.grant_stream_read.__doc__ or "").split())
    (row,) = [
        line
        for line in (ROOT / "docs" / "CONFIGURATION.md").read_text().splitlines()
        if line.startswith("| `existing_scores_table` |")
    ]
    assert limit in row
    readme = _unwrapped(README)
    assert limit in readme and "has two already" in readme


def test_the_deploy_docs_tell_of_cloudfront_account_verification_and_the_destroy_retry():
    for page in (README, ROOT / "docs" / "OPERATIONS.md"):
        text = _unwrapped(page)
        assert "Your account must be verified before you can add new CloudFront resources" in text, page.name
        assert "`make destroy` again" in text and "describe-network-interfaces" in text, page.name


def test_the_docs_give_the_number_of_regions_with_vpc_origins_and_known_prefix_lists():
    """The regions the dashboard can run in and those whose prefix list id the construct knows: regions.py's
    tables, as the README, OPERATIONS.md, the props' docstrings (so CONFIGURATION.md) and regions.py state them."""
    from cdk_leaderboard import regions

    total = len(regions.VPC_ORIGIN_REGIONS)
    known = len(set(regions.VPC_ORIGIN_REGIONS) & set(regions.CLOUDFRONT_ORIGIN_FACING_PREFIX_LISTS))
    readme, operations = _unwrapped(README), _unwrapped(ROOT / "docs" / "OPERATIONS.md")
    assert f"CloudFront VPC origins: {total} regions" in readme
    assert f"{total - known} of those regions need `cloudfront_prefix_list_id`" in readme
    assert f"exist in {total} regions" in operations
    assert f"the construct knows {known} regions; in the {total - known} other regions" in operations
    docstrings = _unwrapped(ROOT / "stacks" / "leaderboard" / "props.py")
    assert f"which has {known} of the {total} regions with VPC origins" in docstrings
    assert f"every zone of the {total} regions that have them" in docstrings
    assert f"{total} commercial regions" in " ".join((regions.__doc__ or "").split())


def test_the_package_docstring_names_every_layer_folder():
    """The Lambda package's docstring walks its layers: each folder of the package (a layer) is named there as
    `folder/`, and nothing else is named as one."""
    package = ROOT / "lambda_src" / "cdk_leaderboard_lambda"
    folders = {p.parent.name for p in package.glob("*/__init__.py")}
    named = set(re.findall(r"\b([a-z_]+)/ \(", _unwrapped(package / "__init__.py")))
    assert named == folders


def test_the_readmes_door_for_contributors_names_what_exists():
    """ "Working on the code": every layer folder is on the request's path, and each file, folder and make target
    it names exists (a moved module or a renamed target breaks a test here, not a newcomer's first hour)."""
    text = README.read_text()
    section = text.split("## Working on the code", 1)[1].split("\n## ", 1)[0]
    package = ROOT / "lambda_src" / "cdk_leaderboard_lambda"
    named = re.findall(r"`([^`]+)`", section)
    folders = {p.parent.name for p in package.glob("*/__init__.py")}
    assert folders <= {n.split("/")[0] for n in named}, folders
    targets = set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), flags=re.M))
    for name in named:
        if name.startswith("make "):
            name = name.removeprefix("make ")
        if name.startswith(("test-", "typecheck", "docs-")):
            assert name in targets, name
        elif name.endswith(("/", ".py")):
            pattern = re.sub(r"<[^>]+>", "*", name).rstrip("/")
            found = [p for base in (ROOT, package, ROOT / "stacks" / "leaderboard") for p in base.glob(pattern)]
            assert found, name
