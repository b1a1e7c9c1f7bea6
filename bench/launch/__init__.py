"""`make bench-launch`: launch-day traffic on the local stack with Locust, and what it would cost on AWS.

- stack_output.py: reading the URLs `make run` prints and the local gateway's line per request;
- players.py: the Locust users (readers, game servers submitting scores, live followers);
- costs.py: per operation DynamoDB cost measured through the real handlers;
- aws_cost.py: the same traffic priced on AWS, and which throttle binds first (modelled);
- runner.py: start the stack, seed it, run Locust headless, write the JSON. See docs/PERFORMANCE.md.
"""
