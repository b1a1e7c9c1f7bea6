"""`make bench-live`, small: the delivery benchmark's measurement against the integration tests' stack (a few dozen
subscribers for two seconds), so the harness does not rot between full runs (docs/PERFORMANCE.md has those)."""

from __future__ import annotations

from bench import live_delivery

from .stack_config import ADMIN_KEY, API_KEY


def test_the_delivery_bench_measures_every_subscriber_and_none_misses_the_last_top(stack):
    options = live_delivery.Options(subscribers=40, seconds=2.5, rate=8, at_once=40, processes=2)
    figures = live_delivery.measure(stack.api_url, ADMIN_KEY, API_KEY, options, progress=lambda message: None)
    assert figures["subscribers"] == 40 and figures["submissions"] >= 15
    assert figures["missed_last_top"] == 0
    assert figures["pushes"] >= 2  # it pushed during the burst
    assert figures["delivery_delay"]["count"] >= 40 * 2
    assert 0 < figures["delivery_delay"]["p50_s"] <= figures["delivery_delay"]["max_s"]
    assert figures["messages_per_subscriber_per_second"]["max"] <= 1.2  # once a second, receive jitter allowed
    assert figures["message_bytes"] > 0
    print(live_delivery.report(figures))


def test_the_cost_model_prices_a_viewer_hour_and_the_old_ceiling():
    model = live_delivery.aws_model(10_000, 2_000)
    # 3,600 deliveries (one 5 KB increment each) + 60 connection-minutes + a connect and a subscribe
    assert model["usd_per_viewer_hour_at_1_push_per_s"] == round(3600e-6 + 60 * 0.08e-6 + 2e-6, 6)
    assert model["old_design_pushes_per_s_ceiling"] == 1.0  # 10,000/s account throttle ÷ 10,000 subscribers
    assert live_delivery.aws_model(10, 6_000)["usd_per_viewer_hour_at_1_push_per_s"] > 2 * 3600e-6  # 2 increments
