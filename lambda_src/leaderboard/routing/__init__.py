"""The route table, by concern: who may call a route (access.py), what the edge may keep (caching.py), a route
(route.py) and its path matching (matching.py), the shapes of ids and query parameters (fields.py), one model per
request body (bodies.py) and the response bodies' schemas (responses.py), the routes by feature (*_routes.py), the
table in order (table.py), and the errors API Gateway answers itself (gateway_errors.py); the functions it names
are the function registry's (../function_registry.py). `leaderboard.routes` is their one front: import from there.
Pure data: importable without boto3 or aws-cdk-lib.
"""
