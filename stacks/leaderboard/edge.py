"""The edge: a CloudFront distribution of its own that serves the API's public reads from a cache.

Its paths are the API's paths (`<EdgeUrl>/leaderboards/{board}/top`). How long an answer is kept is the origin's
Cache-Control, which each route states in the route table (routes.Caching): a few seconds for live rankings,
minutes for what cannot change, no-store for keyed routes. CloudFront sends one request to the origin for
concurrent misses of one cache key by itself (request collapsing), so a launch's spike on the top 25 reaches
API Gateway about once per max-age per edge location.

Only GET, HEAD and OPTIONS pass; GET and HEAD are cached. No viewer header but Origin reaches the API (no
x-api-key): score submissions and admin calls use ApiUrl. With the API's WAF on (waf.py) the edge adds two of its
own: the viewer's address (written by the viewer-request function over any the viewer sent) and the proof that the
request came through this distribution (a secret origin custom header). The cache key is the path plus the query
parameters of the cached routes (routes.edge_query_names), put in sorted order by a viewer-request function first:
`?limit=5&period=daily` and `?period=daily&limit=5` share one entry, and parameters the API does not take (cache
busters) are dropped.
"""

from __future__ import annotations

from aws_cdk import Aws, Duration, Fn, Names
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from .nag import acknowledge
from .paths import routes
from .waf import EDGE_PROOF_HEADER, VIEWER_IP_HEADER

# The origin's Cache-Control decides, within these bounds. Default 0: an answer that says nothing (API Gateway's
# own: throttled, bad key, unknown route) is not kept. Max: the longest a route states (routes.SETTLED_SECONDS).
MIN_TTL = Duration.seconds(0)
DEFAULT_TTL = Duration.seconds(0)
MAX_TTL = Duration.seconds(routes.SETTLED_SECONDS)
# CloudFront keeps these error statuses 10 s by default, whatever Cache-Control says (except 404, 410, 414 and 501
# with no-store). 0: only what the origin's max-age allows (a public read's 400 and 404: a few seconds), nothing
# else: a 403, 5xx or gateway error is never served to the next caller from the cache.
ERROR_STATUSES_NOT_CACHED = (400, 403, 404, 405, 414, 416, 500, 501, 502, 503, 504)
# A cache policy takes at most 10 query strings (a CloudFront quota).
MAX_QUERY_STRINGS = 10

# Viewer request, before the cache lookup: the query parameters in one (sorted) order, and the viewer's address as
# CloudFront saw the connection in a header of ours (set, not appended: what the viewer sent is gone). Not in the
# cache key; with the WAF on, the origin request policy forwards it (without, it goes no further). JavaScript 2.0.
SORT_QUERY_FUNCTION = f"""\
function handler(event) {{
  var request = event.request;
  var given = request.querystring;
  var sorted = {{}};
  Object.keys(given).sort().forEach(function (name) {{ sorted[name] = given[name]; }});
  request.querystring = sorted;
  request.headers['{VIEWER_IP_HEADER}'] = {{ value: event.viewer.ip }};
  return request;
}}
"""


class Edge(Construct):
    """CloudFront in front of the REST API, for its public reads. Attributes: `distribution`, `cache_policy`,
    `url` (https://<domain>, no trailing slash: append the API's paths). `proof_secret`: the WAF's (waf.py), whose
    value CloudFront sends in EDGE_PROOF_HEADER on every origin request; None without a WAF."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        rest_api: apigw.SpecRestApi,
        proof_secret: secretsmanager.ISecret | None = None,
    ) -> None:
        super().__init__(scope, id)
        query_names = routes.edge_query_names()
        if len(query_names) > MAX_QUERY_STRINGS:
            raise ValueError(
                f"the cached routes take {len(query_names)} query parameters; a CloudFront cache policy takes "
                f"{MAX_QUERY_STRINGS}: {', '.join(query_names)}"
            )
        # Names are account-wide (CloudFront is global): the region keeps the same stack deployable elsewhere too.
        unique = Fn.join("-", [Names.unique_resource_name(self, max_length=100, separator="-"), Aws.REGION])
        self.cache_policy = cloudfront.CachePolicy(
            self,
            "CachePolicy",
            cache_policy_name=unique,
            comment="Leaderboard public reads: the API's Cache-Control, the routes' query parameters",
            min_ttl=MIN_TTL,
            default_ttl=DEFAULT_TTL,
            max_ttl=MAX_TTL,
            query_string_behavior=cloudfront.CacheQueryStringBehavior.allow_list(*query_names),
            header_behavior=cloudfront.CacheHeaderBehavior.none(),
            cookie_behavior=cloudfront.CacheCookieBehavior.none(),
            enable_accept_encoding_gzip=True,
            enable_accept_encoding_brotli=True,
        )
        # Origin only: a preflight through the edge gets the API's answer for the caller's origin; public reads answer
        # "*" whatever it is. Never x-api-key, Authorization or a cookie. With the WAF, also the viewer's address (AWS's
        # managed CORS-CustomOrigin policy otherwise: Origin only), and the proof as an origin custom header (a viewer's
        # header of that name is not in the policy, so never forwarded); the template holds a {{resolve:...}} reference.
        self.origin_request_policy: cloudfront.IOriginRequestPolicy = cloudfront.OriginRequestPolicy.CORS_CUSTOM_ORIGIN
        proof: dict[str, str] | None = None
        if proof_secret is not None:
            self.origin_request_policy = cloudfront.OriginRequestPolicy(
                self,
                "OriginRequestPolicy",
                origin_request_policy_name=unique,
                comment="Leaderboard public reads: Origin, and the viewer's address for the API's WAF",
                header_behavior=cloudfront.OriginRequestHeaderBehavior.allow_list("origin", VIEWER_IP_HEADER),
                query_string_behavior=cloudfront.OriginRequestQueryStringBehavior.none(),
                cookie_behavior=cloudfront.OriginRequestCookieBehavior.none(),
            )
            proof = {EDGE_PROOF_HEADER: proof_secret.secret_value.unsafe_unwrap()}
        sort_query = cloudfront.Function(
            self,
            "SortQuery",
            comment="Leaderboard edge: query parameters in sorted order, and the viewer address for the WAF",
            code=cloudfront.FunctionCode.from_inline(SORT_QUERY_FUNCTION),
            runtime=cloudfront.FunctionRuntime.JS_2_0,
        )
        self.distribution = cloudfront.Distribution(
            self,
            "Distribution",
            comment="Leaderboard edge: the REST API's public reads, cached",
            default_behavior=cloudfront.BehaviorOptions(
                # HTTPS to the API (TLS 1.2), with the stage as the origin path: the edge's paths are the API's.
                origin=origins.RestApiOrigin(rest_api, custom_headers=proof),
                viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
                allowed_methods=cloudfront.AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
                # A preflight's answer depends on the caller's Origin, which is not in the key: never cached.
                cached_methods=cloudfront.CachedMethods.CACHE_GET_HEAD,
                cache_policy=self.cache_policy,
                origin_request_policy=self.origin_request_policy,
                compress=True,
                function_associations=[
                    cloudfront.FunctionAssociation(
                        function=sort_query, event_type=cloudfront.FunctionEventType.VIEWER_REQUEST
                    )
                ],
            ),
            error_responses=[
                cloudfront.ErrorResponse(http_status=status, ttl=Duration.seconds(0))
                for status in ERROR_STATUSES_NOT_CACHED
            ],
            http_version=cloudfront.HttpVersion.HTTP2_AND_3,
            price_class=cloudfront.PriceClass.PRICE_CLASS_100,
        )
        self.url = f"https://{self.distribution.distribution_domain_name}"
        for rule, reason in {
            "CFR1": "Public leaderboard reads for players anywhere: no geo restriction",
            "CFR2": "A CLOUDFRONT-scope web ACL can only be created in us-east-1 (this stack may be elsewhere) and "
            "costs from 6 USD/month; GET/HEAD/OPTIONS only, public data, and the API's throttles behind it",
            "CFR3": "Access logs would need a log bucket; the API's access log records every request that misses",
            "CFR4": "CloudFront's default certificate (*.cloudfront.net): its TLS policy is CloudFront's own",
        }.items():
            acknowledge(self.distribution, rule, reason)
