# One entry point for people and CI. `make test` sets up everything it needs on a fresh machine.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PY := .venv/bin/python
CDK := node_modules/.bin/cdk --no-notices
CDK_DEPLOY_FLAGS ?=
STAGE ?= dev
PLAYERS ?=
KEY ?= both
GRACE ?= 300
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION := 1
export CDK_DISABLE_CLI_TELEMETRY := true
# Compiled bytecode is cached (__pycache__, gitignored): with PYTHONDONTWRITEBYTECODE set, as on some CI images, each
# of the suite's Python processes (pytest workers, synth, the stack's children) compiled boto3, moto and aws-cdk-lib
# from source again, seconds each
export PYTHONDONTWRITEBYTECODE :=
# `make test` runs tests/unit beside TEMPLATE_SUITES and PACKAGE_SUITES, then the other two groups side by side;
# together they are every test directory (tests/infra/test_workflows.py checks). Each group is its own pytest
# process: the browser and fuzz tests never share a process with the integration tests (in one process, a dashboard
# lookup test failed after the integration tests and passed on its own: shared process state, now gone)
TEMPLATE_SUITES := tests/infra
# The wheel, the operators' scripts and the integ app synthesize in processes of their own, apart from tests/infra's
# session apps: a pytest process of their own beside it, so that tests/infra is not left alone on one core at the end
# of the first phase once tests/unit is done (all in one process: 285 s for that phase, tests/unit done at 241 s)
PACKAGE_SUITES := tests/package tests/ops tests/deploy_rehearsal
STACK_SUITES := tests/integration tests/contract
BROWSER_SUITES := tests/e2e tests/fuzz
# The browser tests mostly wait (on the page, the stack, the edge's lag) and the fuzzing mostly computes: each of these
# directories is its own pytest process (a stack each), all side by side, rather than one after the other. (Not xdist's
# --dist loadgroup: with pytest 9.2 and xdist 3.8 its groups are not kept on one worker, and the browser tests would
# start a stack and a Chromium on each worker.)
# Each integration worker starts a stack of its own (DynamoDB Local, gateway and stand-ins on free ports, its own run
# directory and environment: xdist workers are processes); --dist loadfile keeps each file on one worker, so a file's
# module fixtures and table resets stay its own. One worker per core: with 3 on a loaded 2-core machine, calls ran
# past the local gateway's 29 s cut-off (502) and stream consumers past their 30 s (make test STACK_WORKERS=3 to try)
STACK_WORKERS ?= 2

.PHONY: help setup synth lint test test-unit test-infra test-integration test-e2e test-fuzz test-package integ snapshot-update preflight deploy diff destroy rotate-key rotate-password verify run seed bench bench-load bench-launch bench-live clean docs-config

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-18s %s\n", $$1, $$2}'

# uv installs the pinned requirements in parallel: this target took 14 s on a fresh clone instead of 58 s with pip,
# the same packages and versions (`pip freeze` compared); like `pip install --no-compile`, it leaves byte-compiling
# to the first imports.
UV_VERSION := 0.13.9
UV := $(PY) -m uv pip install --quiet --python $(PY)

.venv/.installed: requirements.txt requirements-dev.txt requirements-lambda.txt pyproject.toml
	test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	$(UV) -r requirements-dev.txt
	@# The app, ops and tests import the construct as users do (`cdk_leaderboard`): an editable install of this checkout
	$(UV) --no-deps -e .
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

.local/dynamodb-local/DynamoDBLocal.jar: | .venv/.installed
	$(PY) -m local fetch

# The functions' third-party packages (requirements-lambda.txt, every file hashed) as wheels for THEIR platform, not
# this machine's: Lambda's Python 3.14 on arm64 (stacks/leaderboard/functions.py's RUNTIME and ARCHITECTURE; the
# Python 3.14 runtime runs on Amazon Linux 2023, glibc 2.34). Synth installs them into the code asset offline
# (stacks/leaderboard/lambda_asset.py); the construct's wheel ships them. The lock's copy beside them says which
# lock they were fetched for.
LAMBDA_DEPS := stacks/leaderboard/lambda_deps
LAMBDA_PYTHON := 3.14
LAMBDA_PLATFORMS := manylinux_2_34_aarch64 manylinux_2_28_aarch64 manylinux_2_17_aarch64 manylinux2014_aarch64

$(LAMBDA_DEPS)/requirements-lambda.txt: requirements-lambda.txt | .venv/.installed
	rm -rf $(LAMBDA_DEPS).tmp
	$(PY) -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --require-hashes \
		$(addprefix --platform ,$(LAMBDA_PLATFORMS)) --implementation cp --python-version $(LAMBDA_PYTHON) \
		--dest $(LAMBDA_DEPS).tmp -r requirements-lambda.txt
	cp requirements-lambda.txt $(LAMBDA_DEPS).tmp/
	rm -rf $(LAMBDA_DEPS) && mv $(LAMBDA_DEPS).tmp $(LAMBDA_DEPS)

# Only the functions' wheels (what the construct's wheel ships), without the rest of `make setup`
.PHONY: lambda-deps
lambda-deps: $(LAMBDA_DEPS)/requirements-lambda.txt ## the functions' locked wheels (hash-checked), which the construct's wheel needs

.PHONY: lambda-lock
lambda-lock: ## pin requirements-lambda.in's packages for the functions, every file's hash (then make setup)
	UV_PYTHON_DOWNLOADS=never $(PY) -m uv pip compile --quiet requirements-lambda.in --generate-hashes \
		--python-platform aarch64-manylinux_2_34 --python-version $(LAMBDA_PYTHON) \
		--custom-compile-command "make lambda-lock" --output-file requirements-lambda.txt $(LOCK_FLAGS)

setup: .venv/.installed node_modules/.installed .local/dynamodb-local/DynamoDBLocal.jar $(LAMBDA_DEPS)/requirements-lambda.txt ## venv, pinned CDK CLI, DynamoDB Local, the functions' packages

synth: setup ## synthesize the stack (STAGE=dev|prod) into cdk.out with cdk-nag
	$(CDK) synth -c stage=$(STAGE) --quiet

lint: synth ## cfn-lint on the synthesized template
	.venv/bin/cfn-lint --config-file .cfnlintrc.yaml cdk.out/*.template.json

test: setup clients ## everything: the SDKs built (clients/), then code lint (ruff), unit, infra (template, cdk-nag, cfn-lint, nginx -t), integration, browser, fuzzing
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	@$(MAKE) --no-print-directory typecheck
	@# Two phases, so that nothing CPU-heavy runs beside the tests that wait on a running stack. First the tests that
	@# wait on no clock: tests/unit (two workers) in the foreground, the template and package suites (synth, cdk-nag,
	@# cfn-lint, the wheel) beside them, logged to a file shown after. tests/unit runs at the lowest priority: it
	@# takes what CPU the two single-process suites leave, so that neither is left alone on one core at the end.
	@# Then the stack suites (a stack per worker) and the browser and fuzz tests (a stack each, in a child process)
	@# side by side, on a machine with nothing else to do.
	@# Each group's wall and CPU time is printed at the end (and kept in .local/test-times.txt; a foreground group's
	@# standard error is in its .local/<group>.time, above the time).
	@mkdir -p .local; : > .local/test-times.txt; export TIMEFORMAT="%0R s wall, CPU %0U s user + %0S s sys"; \
	started=$$SECONDS; \
	{ time $(PY) -m pytest $(TEMPLATE_SUITES) --durations=15 > .local/template-suites.log 2>&1; } 2> .local/template-suites.time & templates=$$!; \
	{ time $(PY) -m pytest $(PACKAGE_SUITES) --durations=10 > .local/package-suites.log 2>&1; } 2> .local/package-suites.time & packages=$$!; \
	{ time nice -n 19 $(PY) -m pytest tests/unit -n 2; } 2> .local/unit.time; unit_rc=$$?; \
	wait $$templates; templates_rc=$$?; wait $$packages; packages_rc=$$?; \
	echo "=== $(TEMPLATE_SUITES) (ran beside tests/unit) ==="; cat .local/template-suites.log; \
	echo "=== $(PACKAGE_SUITES) (ran beside tests/unit) ==="; cat .local/package-suites.log; \
	echo "phase 1 (unit, template and package suites): $$((SECONDS - started)) s" >> .local/test-times.txt; \
	if [ $$unit_rc -ne 0 -o $$templates_rc -ne 0 -o $$packages_rc -ne 0 ]; then \
		echo "unit: exit $$unit_rc; template suites: exit $$templates_rc; package suites: exit $$packages_rc" \
			"(the stack and browser suites did not run)"; exit 1; fi; \
	started=$$SECONDS; \
	{ time { pids=""; for suite in $(BROWSER_SUITES); do \
		$(PY) -m pytest $$suite --durations=10 > .local/$${suite//\//-}.log 2>&1 & pids="$$pids $$!"; done; \
		rc=0; for pid in $$pids; do wait $$pid || rc=1; done; \
		for suite in $(BROWSER_SUITES); do echo "--- $$suite ---"; cat .local/$${suite//\//-}.log; done; \
		test $$rc -eq 0; } > .local/browser-suites.log 2>&1; } 2> .local/browser-suites.time & browser=$$!; \
	{ time $(PY) -m pytest $(STACK_SUITES) -n $(STACK_WORKERS) --dist loadfile --durations=30; } 2> .local/stack-suites.time; stacks_rc=$$?; \
	wait $$browser; browser_rc=$$?; \
	echo "=== $(BROWSER_SUITES) (ran beside the stack suites) ==="; cat .local/browser-suites.log; \
	echo "phase 2 (stack, browser and fuzz suites): $$((SECONDS - started)) s" >> .local/test-times.txt; \
	for group in unit template-suites package-suites stack-suites browser-suites; do \
		head -n -1 .local/$$group.time; echo "$$group: $$(tail -n 1 .local/$$group.time)" >> .local/test-times.txt; done; \
	echo "=== times ==="; cat .local/test-times.txt; \
	echo "stack suites: exit $$stacks_rc; browser and fuzz: exit $$browser_rc"; \
	test $$stacks_rc -eq 0 -a $$browser_rc -eq 0

# mypy cannot see through the editable install's import hook: `make typecheck` first mirrors the wheel's layout
# (pyproject.toml's [tool.setuptools.package-dir]: cdk_leaderboard, its runtime = lambda_src, ...) in symlinks, made
# afresh each time so that added and removed modules show. The Lambda package itself is left out of the mirror: it
# has one name, top-level `cdk_leaderboard_lambda` (mypy_path's lambda_src), as in every process
define TYPECHECK_TREE
import pathlib, shutil, tomllib
root = pathlib.Path(".local/typecheck")
shutil.rmtree(root, ignore_errors=True)
package_dirs = tomllib.loads(pathlib.Path("pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
for package, source in sorted(package_dirs.items()):  # a package before its subpackages
    target = root.joinpath(*package.split("."))
    target.mkdir(parents=True, exist_ok=True)
    for child in pathlib.Path(source).iterdir():
        if source == "lambda_src" and child.is_dir():
            continue
        if not (target / child.name).exists():
            (target / child.name).symlink_to(child.resolve())
endef
export TYPECHECK_TREE

.PHONY: typecheck
typecheck: setup ## mypy over lambda_src, stacks, local and ops (settings: pyproject.toml's [tool.mypy])
	@$(PY) -c "$$TYPECHECK_TREE"
	.venv/bin/mypy

test-unit: setup ## handlers under moto, domain logic
	$(PY) -m pytest tests/unit

test-infra: setup ## template assertions and snapshot, cdk-nag, cfn-lint, nginx -t
	$(PY) -m pytest tests/infra

test-integration: setup ## every route over HTTP against DynamoDB Local (a stack per worker)
	$(PY) -m pytest tests/integration -n $(STACK_WORKERS) --dist loadfile

test-e2e: setup ## the dashboard in Chromium against the local stack behind Nginx
	$(PY) -m pytest tests/e2e

test-fuzz: setup ## schemathesis against a local stack, from the OpenAPI document it serves (4-6 minutes)
	$(PY) -m pytest tests/fuzz -p no:logging

test-package: setup ## build the wheel, install it in a fresh venv, synthesize a user's app with it
	$(PY) -m pytest tests/package

integ: setup ## deploy the integ-test stack to your account, call the API, assert, destroy (needs AWS credentials)
	npx --yes @aws-cdk/integ-runner@2.197.10 --app "$(PY) {filePath}" --test-regex '^integ_.*\.py$$' --directory tests/deploy_rehearsal --parallel-regions $${AWS_REGION:-us-east-1} --update-on-failed

docs-config: setup ## docs/CONFIGURATION.md from the props' docstrings (a test keeps it in step)
	$(PY) -m stacks.config_reference

snapshot-update: setup ## accept an intended template change
	$(PY) -m pytest tests/infra/test_snapshot.py --snapshot-update

preflight: setup ## is the target account and region ready for STAGE? one line per check, with its fix
	$(PY) -m ops preflight --stage $(STAGE)

deploy: setup ## preflight, then cdk deploy with the pinned CLI (STAGE=dev|prod; SKIP_PREFLIGHT=1 skips it)
	$(if $(SKIP_PREFLIGHT),,$(PY) -m ops preflight --stage $(STAGE))
	$(CDK) deploy -c stage=$(STAGE) $(CDK_DEPLOY_FLAGS)

diff: setup ## what a deploy would change
	$(CDK) diff -c stage=$(STAGE)

destroy: setup ## remove the stage (prod retains its tables)
	$(CDK) destroy -c stage=$(STAGE)

rotate-key: setup ## new API key(s) (KEY=game|admin|both); old ones refused after GRACE seconds (default 300)
	$(PY) -m ops rotate-key --stage $(STAGE) --key $(KEY) --grace-seconds $(GRACE)

.PHONY: rotate-token-key
rotate-token-key: setup ## new player-token signing key; old tokens verify for the functions' grace (FORCE=1, REVOKE=1)
	$(PY) -m ops rotate-token-key --stage $(STAGE) $(if $(FORCE),--force) $(if $(REVOKE),--revoke)

.PHONY: rotate-cursor-key
rotate-cursor-key: setup ## new page-cursor signing key (production); old cursors verify for their lifetime (FORCE=1)
	$(PY) -m ops rotate-cursor-key --stage $(STAGE) $(if $(FORCE),--force)

.PHONY: rotate-digest-key
rotate-digest-key: setup ## refused, with the reason: the digest key names players' items and never rotates
	$(PY) -m ops rotate-digest-key --stage $(STAGE)

.PHONY: rotate-receipt-key
rotate-receipt-key: setup ## new receipt/summary signing key (Ed25519); the old one stays in the JWKS as retired
	$(PY) -m ops rotate-receipt-key --stage $(STAGE)

.PHONY: revoke-receipt-key
revoke-receipt-key: setup ## a leaked receipt key KID=...: the JWKS lists it revoked, nothing it signed verifies
	@test -n "$(KID)" || { echo 'usage: make revoke-receipt-key STAGE=prod KID=<kid from /.well-known/jwks.json>' >&2; exit 2; }
	$(PY) -m ops revoke-receipt-key --stage $(STAGE) --kid $(KID)

rotate-password: setup ## new dashboard admin password, re-read by the dashboard at once
	$(PY) -m ops rotate-password --stage $(STAGE)

.PHONY: renew-live-key
renew-live-key: setup ## extend the live updates' API key now (its 6-hourly schedule does it too)
	$(PY) -m ops renew-live-key --stage $(STAGE)

.PHONY: live-off live-on
live-off: setup ## kill switch: refuse new live subscriptions and publish nothing more, no deploy (STAGE=...)
	$(PY) -m ops live-off --stage $(STAGE)

live-on: setup ## undo live-off
	$(PY) -m ops live-on --stage $(STAGE)

verify: .venv/.installed ## check a period's proof: ARGS="--log log.json --summary s.json --receipt r.jws --keys jwks.json" (or --url)
	$(PY) -m leaderboard_verify $(ARGS)

run: setup ## the whole stack on this machine: DynamoDB Local, local API, dashboard behind Nginx
	$(PY) -m local run

seed: setup ## load PLAYERS (default 1000) simulated players into the running local stack
	$(PY) -m local seed --players $(or $(PLAYERS),1000)

bench: setup ## rank at scale vs the original algorithm: PLAYERS (default 10000) on DynamoDB Local
	$(PY) -m bench --players $(or $(PLAYERS),10000) --json bench/results/$(or $(PLAYERS),10000).json

bench-load: setup ## one board under load, DynamoDB conflicts and partition limits modelled: WRITERS (default 32 64)
	$(PY) -m bench.write_load --writers $(or $(WRITERS),32 64) --json bench/results/load.json

bench-launch: setup ## launch traffic with Locust on `make run`'s stack (USERS, SECONDS), then the AWS cost model
	$(PY) -m bench.launch --users $(or $(USERS),40) --seconds $(or $(SECONDS),60) --json bench/results/launch.json

bench-live: setup ## live updates: SUBSCRIBERS (default 2000) on one board period through `make run`, a burst of new leaders
	$(PY) -m bench.live_delivery --subscribers $(or $(SUBSCRIBERS),2000) --seconds $(or $(SECONDS),10) --json bench/results/live.json

# The sample game (examples/web-game/) on `make run`'s stack (run in another terminal): its server reads the stack's
# run.json, creates its client-submission board and mints player tokens with the game key
.PHONY: web-game
web-game: setup clients ## the sample browser game on the running `make run` stack (WEB_GAME_PORT, default 3004)
	node examples/web-game/server.mjs

# The OpenAPI document the SDKs (clients/) are generated from: the route table's, as GET /openapi.json serves it
OPENAPI_JSON := .local/openapi.json
$(OPENAPI_JSON): .venv/.installed $(shell find lambda_src -name '*.py' -not -path '*/__pycache__/*')
	@mkdir -p .local
	cd lambda_src && ../$(PY) -c "import json, sys; from cdk_leaderboard_lambda.web import openapi; \
	json.dump(openapi.document(), open('../$@', 'w'), indent=1, sort_keys=True)"

.PHONY: clients
clients: $(OPENAPI_JSON) clients-typescript clients-python ## build the TypeScript and Python SDKs (clients/) from the OpenAPI document

# The TypeScript SDK (clients/typescript/README.md): npm ci when its lock changes, the types generated from the
# document (openapi-typescript), tsc to dist/ (ESM + .d.ts; a type error fails it), its Node test suite to build/,
# one self-contained browser module and the CommonJS entry (esbuild), and the npm package (npm pack: the tarball
# its README installs). Each step re-runs only when its inputs change
TS_SDK := clients/typescript
TS_SDK_SRC := $(wildcard $(TS_SDK)/src/*.ts)
TS_SDK_TESTS := $(wildcard $(TS_SDK)/test/*.ts)
TS_SDK_VERSION := $(shell sed -n 's/^  "version": "\(.*\)",$$/\1/p' $(TS_SDK)/package.json)
TS_SDK_TARBALL := $(TS_SDK)/pack/cdk-leaderboard-client-$(TS_SDK_VERSION).tgz
.PHONY: clients-typescript
clients-typescript: $(TS_SDK)/dist/browser/leaderboard-client.js $(TS_SDK)/build/.built $(TS_SDK_TARBALL)

$(TS_SDK)/node_modules/.installed: $(TS_SDK)/package.json $(TS_SDK)/package-lock.json
	cd $(TS_SDK) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(TS_SDK)/src/generated/openapi.ts: $(OPENAPI_JSON) $(TS_SDK)/node_modules/.installed
	cd $(TS_SDK) && node_modules/.bin/openapi-typescript ../../$(OPENAPI_JSON) --empty-objects-unknown \
		-o src/generated/openapi.ts --silent

# Type-checked twice: with the browser's library and no Node types (the build), and with Node's types and no DOM
# (`tsc --noEmit`): the SDK uses nothing that only one of the two has
$(TS_SDK)/dist/.built: $(TS_SDK)/src/generated/openapi.ts $(TS_SDK_SRC) $(TS_SDK)/tsconfig.json $(TS_SDK)/tsconfig.node.json
	rm -rf $(TS_SDK)/dist
	cd $(TS_SDK) && node_modules/.bin/tsc -p tsconfig.json && node_modules/.bin/tsc --noEmit -p tsconfig.node.json
	touch $@

$(TS_SDK)/dist/browser/leaderboard-client.js: $(TS_SDK)/dist/.built $(TS_SDK)/build.mjs
	cd $(TS_SDK) && node build.mjs

$(TS_SDK_TARBALL): $(TS_SDK)/dist/browser/leaderboard-client.js $(TS_SDK)/package.json $(TS_SDK)/README.md
	rm -rf $(TS_SDK)/pack && mkdir -p $(TS_SDK)/pack
	cd $(TS_SDK) && npm pack --pack-destination pack --silent > /dev/null

$(TS_SDK)/build/.built: $(TS_SDK)/dist/.built $(TS_SDK_TESTS) $(TS_SDK)/tsconfig.test.json
	rm -rf $(TS_SDK)/build
	cd $(TS_SDK) && node_modules/.bin/tsc -p tsconfig.test.json
	touch $@

clean: ## remove build outputs (keeps the venv and node_modules)
	rm -rf cdk.out .local/templates .pytest_cache tests/e2e/artifacts $(OPENAPI_JSON)
	rm -rf $(TS_SDK)/dist $(TS_SDK)/build $(TS_SDK)/pack $(TS_SDK)/src/generated $(PY_SDK)/dist $(PY_SDK_GENERATED)


# The Python SDK (clients/python/README.md): openapi-python-client writes leaderboard_client.generated from the document
# (gitignored, never committed), then uv's own build backend packs it with the hand-written part into a wheel and an
# sdist (which holds the generated code too: it builds without the generator), offline and reproducibly (the same
# bytes on every run). Rebuilt when the document, the generator's settings or a hand-written
# file changes, not otherwise.
PY_SDK := clients/python
PY_SDK_VERSION := $(shell sed -n 's/^version = "\(.*\)"$$/\1/p' $(PY_SDK)/pyproject.toml)
PY_SDK_WHEEL := $(PY_SDK)/dist/cdk_leaderboard_client-$(PY_SDK_VERSION)-py3-none-any.whl
PY_SDK_GENERATED := $(PY_SDK)/src/leaderboard_client/generated
.PHONY: clients-python
clients-python: $(PY_SDK_WHEEL) ## build the Python SDK's wheel and sdist (clients/python/dist/) from the OpenAPI document
$(PY_SDK_WHEEL): $(OPENAPI_JSON) $(PY_SDK)/generator.yaml $(PY_SDK)/pyproject.toml $(PY_SDK)/README.md \
		$(shell find $(PY_SDK)/src $(PY_SDK)/templates -type f -not -path '*/generated/*' -not -path '*/__pycache__/*')
	rm -rf $(PY_SDK_GENERATED) $(PY_SDK)/dist
	.venv/bin/openapi-python-client generate --path $(OPENAPI_JSON) --config $(PY_SDK)/generator.yaml --meta none \
		--custom-template-path $(PY_SDK)/templates --output-path $(PY_SDK_GENERATED) --fail-on-warning > /dev/null
	$(PY) -m uv build --quiet --offline --sdist --wheel --out-dir $(PY_SDK)/dist $(PY_SDK)
# mypy reads the SDK's hand-written part against its generated half
typecheck: clients-python
