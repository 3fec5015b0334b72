"""English vocabulary: components, slot values and sentence templates.

Clean text built from these lists must carry no planted signal, so nothing here may contain a
relative date, a weekday or month name, a date, a status marker (done, resolved, obsolete,
superseded, "no longer"), the words "until", "last" or "next", or a path-like token other
than the project paths that generate.py creates.
"""

from __future__ import annotations

PREFIXES: tuple[str, ...] = (
    "billing", "search", "auth", "checkout", "inventory", "notifications", "reporting",
    "exports", "imports", "media", "payments", "ledger", "catalog", "pricing", "shipping",
    "loyalty", "audit", "sessions", "profiles", "webhooks", "scheduler", "gateway",
    "analytics", "invoices", "refunds", "coupons", "cart", "reviews", "tax", "mailer",
    "onboarding", "permissions", "flags", "uploads", "geocoding", "recommendations",
    "subscriptions", "fraud", "warehouse", "support",
)
SUFFIXES: tuple[str, ...] = (
    "service", "worker", "api", "client", "pipeline", "cache", "adapter", "jobs",
)

ASPECTS: tuple[str, ...] = (
    "deploy", "testing", "database", "config", "observability", "errors", "performance",
    "security", "api", "ci", "style", "queues",
)

PEOPLE: tuple[str, ...] = (
    "Ana", "Bilal", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ines", "Jonas",
    "Kenji", "Lea", "Marco", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq",
    "Uma", "Vera", "Wen", "Yusuf", "Zoe", "Aiko", "Bruno", "Carmen", "Dmitri", "Elif",
)
TEAMS: tuple[str, ...] = (
    "platform", "payments", "growth", "data", "identity", "storefront", "fulfilment",
    "infrastructure", "mobile", "trust and safety",
)
DATABASES: tuple[str, ...] = ("Postgres", "MySQL", "Redis", "MongoDB", "ClickHouse")
PIPELINES: tuple[str, ...] = ("GitHub Actions", "GitLab CI", "Buildkite", "Argo CD", "Jenkins")
FLAG_TOOLS: tuple[str, ...] = ("LaunchDarkly", "Unleash", "Flagsmith", "the flags service")
METRICS: tuple[str, ...] = (
    "p95 latency", "error rate", "queue lag", "cache hit ratio", "pool saturation",
    "throughput", "retry count", "memory footprint",
)
TABLE_NOUNS: tuple[str, ...] = (
    "events", "entries", "records", "items", "jobs", "snapshots", "accounts", "lines",
)
ENV_NOUNS: tuple[str, ...] = (
    "TIMEOUT_MS", "POOL_SIZE", "MAX_RETRIES", "BATCH_SIZE", "BASE_URL", "CACHE_TTL",
    "WORKERS", "LOG_LEVEL",
)
PORTS: tuple[int, ...] = (3000, 4000, 5000, 7000, 8000, 8443, 9000, 9100)
ROLES: tuple[str, ...] = (
    "a senior backend engineer", "a staff engineer", "an engineering manager",
    "a data engineer", "a site reliability engineer", "a frontend engineer",
    "a product engineer", "a tech lead",
)
PROJECT_NAMES: tuple[str, ...] = (
    "acme-shop", "orbit-pay", "northwind", "bluebird", "harbor", "lumen", "tessera",
)

# Core clauses per aspect. {c}/{C}: the component with article; other slots: see compose.py.
CORE: dict[str, tuple[str, ...]] = {
    "deploy": (
        "{C} is deployed from the main branch by {pipeline}, never from a laptop",
        "a deploy of {c} rolls out to {n1} canary pods first and waits {n2} seconds before the rest",
        "the container image of {c} is built once and promoted unchanged from staging to production",
        "rollbacks of {c} use the previous image tag, not a revert commit",
        "{who} approves every production deploy of {c} that touches the schema",
        "the Helm values of {c} are reviewed like code, beside `{p}`",
        "health checks of {c} hit /healthz on port {port} and must answer within {n1} seconds",
        "blue-green switching of {c} happens at the load balancer, so both colours read one config",
        "risky changes in {c} ship behind a flag, so a deploy never waits for a product call",
        "{c} needs {env} at boot and crash-loops without it",
        "the deploy job of {c} posts a summary with the image digest to the deploys channel",
        "migrations of {c} run as a separate job before the new pods start",
        "{c} keeps {n1} replicas in production and scales out on {metric}",
    ),
    "testing": (
        "integration tests of {c} run against a real {db} container, not mocks",
        "every bug fix in {c} starts with a failing test that reproduces it",
        "the slow tests of {c} carry a marker and run only in the nightly job",
        "test fixtures for {c} come from factories, never from shared JSON dumps",
        "snapshot tests in {c} are reviewed line by line because blind updates hide regressions",
        "contract tests between {c} and {svc} pin the request and response shapes",
        "a flaky test in {c} is quarantined within the hour and gets an owner",
        "property-based tests cover the parsing code in `{p}`",
        "coverage of {c} is measured per pull request and may not drop below {pct} percent",
        "tests of {c} must not sleep; they wait on events or poll with a timeout",
        "the test database of {c} is rebuilt from migrations at the start of each run",
        "end-to-end checks of {c} use the seeded tenant {tenant}, which nobody edits by hand",
        "the tests for {c} live in `{tp}` and mirror the module layout",
    ),
    "database": (
        "{c} talks to {db} through the connection pool set up in `{p}`",
        "every query in {c} that filters by tenant needs a composite index led by tenant_id",
        "schema changes of {c} stay backwards compatible for one release: add, backfill, switch",
        "batch jobs in {c} commit every {n2} rows so long transactions do not block vacuum",
        "the {table} table is partitioned by month and old partitions are read-only",
        "{c} never deletes rows from {table}; it sets deleted_at and a purge job removes them",
        "read replicas serve the reporting queries of {c}, while writes go to the primary",
        "the pool of {c} holds {n1} connections per pod, matching the pgbouncer limit",
        "raw SQL in {c} is allowed only in the repository layer, behind named functions",
        "money columns in {table} hold integer cents with a separate currency column",
        "migrations of {c} are numbered and never edited once they reach main",
        "foreign keys from {table} are enforced by {db}, not only in application code",
        "{c} reads {table} with keyset pagination because offsets got slow past a million rows",
    ),
    "config": (
        "configuration of {c} comes from environment variables parsed once in `{p}`",
        "{env} sets the request timeout of {c} in milliseconds and defaults to {n2}",
        "secrets of {c} are injected from the vault at deploy time and never committed",
        "{c} reads its flags from {flagtool} and caches them for {n1} seconds",
        "unknown config keys make {c} refuse to start, so typos fail loudly",
        "the staging config of {c} mirrors production except for the payment keys",
        "{c} validates its settings against a typed schema and prints every problem at once",
        "defaults for {c} live in code, and the environment only overrides them",
        "{c} logs its effective configuration at boot with secrets masked",
        "per-tenant overrides for {c} sit in the {table} table and are cached per request",
        "changing {env} requires a restart of {c}; it is not reloaded at runtime",
        "the compose file `docker-compose.yml` starts {c} with the same variables as staging",
    ),
    "observability": (
        "{c} logs JSON lines with a request_id on every line",
        "the dashboard of {c} shows {metric}, error rate and saturation side by side",
        "alerts for {c} page the {team} team only when the {metric} breaks the budget for {n1} minutes",
        "traces from {c} go through OpenTelemetry with a sample rate of {pct} percent",
        "{c} exports Prometheus metrics on port {port} under /metrics",
        "error reports of {c} go to Sentry with the release tag set from the image",
        "log levels in {c} are info in production and debug only behind a flag",
        "each background job in {c} emits a start, a finish and a duration metric",
        "{who} owns the alert rules of {c} and reviews changes to thresholds",
        "the runbook of {c} links every alert to a first diagnostic query",
        "personal data never appears in the logs of {c}; ids are hashed",
        "{c} tags every metric with tenant and region so a single noisy tenant stands out",
    ),
    "errors": (
        "{c} turns failures into typed domain errors and maps them to HTTP codes in one middleware",
        "{c} never swallows an exception; it logs it once at the boundary and re-raises",
        "retries in {c} use exponential backoff with jitter and stop after {n1} attempts",
        "calls from {c} to {svc} have a timeout of {n2} milliseconds and a circuit breaker",
        "user-facing error messages of {c} come from a catalogue, not from exception text",
        "{c} returns problem+json bodies with a stable error code for every 4xx",
        "a failed message in {c} goes to a dead-letter queue after {n1} tries",
        "{c} validates input at the edge and trusts it inside the domain",
        "partial failures in {c} are reported per item instead of failing the whole batch",
        "the error codes of {c} are documented beside `{p}` and never reused",
        "panics in {c} restart the worker but keep the message for a replay",
        "fallbacks in {c} are explicit and always emit a metric when they trigger",
    ),
    "performance": (
        "the latency budget of {c} is {n2} milliseconds at p95",
        "{c} batches writes to {table} in groups of {n2}",
        "hot paths in {c} avoid N+1 queries; the ORM eager-loads relations",
        "{c} caches computed prices for {n1} minutes keyed by tenant and currency",
        "benchmarks for {c} run on a fixed machine type so numbers stay comparable",
        "large exports from {c} stream rows instead of loading them into memory",
        "{c} uses a bounded worker pool of {n1} threads to protect {db}",
        "profiling of {c} starts with the flame graph from production, not a guess",
        "responses of {c} are compressed above {n2} bytes",
        "{c} precomputes the {table} aggregates in a background job",
        "the memory limit of {c} pods is set from the peak under load plus {pct} percent",
        "{c} keeps connections to {svc} alive instead of opening one per request",
    ),
    "security": (
        "{c} checks permissions in the service layer, never only in the UI",
        "tokens issued by {c} expire after {n1} hours and refresh silently",
        "{c} hashes passwords with argon2 and a per-user salt",
        "every endpoint of {c} needs an explicit scope; there is no default allow",
        "the admin routes of {c} are reachable only through the VPN",
        "{c} signs outgoing webhooks and {svc} verifies the signature",
        "dependency updates for {c} are reviewed for licence and advisories before merge",
        "{c} stores personal data encrypted at rest with keys from the KMS",
        "rate limits in {c} are {n2} requests per minute per token",
        "{who} reviews every change to the auth rules of {c}",
        "uploads handled by {c} are scanned before anyone can download them",
        "CORS in {c} allows only the storefront origins, never a wildcard",
    ),
    "api": (
        "{c} versions its API in the path and keeps the older version alive for one release",
        "list endpoints of {c} use cursor pagination with a page size of {n2}",
        "{c} accepts idempotency keys on every POST and stores them for {n1} hours",
        "field names in the API of {c} are snake_case and never abbreviated",
        "breaking changes to {c} need a note to {svc} owners and a migration guide",
        "the OpenAPI document of {c} is generated from code and checked in CI",
        "{c} returns timestamps in UTC with an explicit offset",
        "amounts in the API of {c} are strings of integer cents with a currency field",
        "{c} rejects unknown fields in requests instead of ignoring them",
        "the handlers of {c} live in `{p}` and stay thin; logic goes into services",
        "{c} answers health and readiness on separate endpoints",
        "errors from the API of {c} carry a trace id the client can quote to support",
    ),
    "ci": (
        "CI for {c} runs lint, type checks and the unit suite on every push",
        "the CI workflow `.github/workflows/ci.yml` caches dependencies keyed by the lockfile",
        "{c} merges only with a green pipeline and one approving review",
        "the integration stage of {c} starts {db} as a service container",
        "CI of {c} fails on new warnings, so they get fixed while the context is fresh",
        "pull requests to {c} get a preview environment that {pipeline} tears down on merge",
        "{c} pins its toolchain in CI so builds are reproducible",
        "the nightly pipeline of {c} runs the slow suite and the dependency audit",
        "{who} keeps the CI runners of {c} patched",
        "CI uploads the coverage report of {c} as an artifact for reviewers",
        "the pipeline of {c} builds the image once and reuses it for every stage",
        "merge queues keep the main branch of {c} green under heavy traffic",
    ),
    "style": (
        "{c} follows the formatter settings in the repo; nobody argues about style in review",
        "functions in {c} stay under {n1} parameters; more means a parameter object",
        "{c} prefers small pure functions and keeps I/O at the edges",
        "type annotations are required in {c} and the checker runs in strict mode",
        "comments in {c} explain why, not what the code does",
        "{c} names booleans as questions, such as is_active or has_access",
        "modules in {c} import from the public package surface, never from internals",
        "pull requests to {c} stay under {n3} changed lines; bigger work is stacked",
        "commit messages for {c} follow Conventional Commits with a scope",
        "{c} avoids global state; dependencies are passed in explicitly",
        "dead code in {c} is deleted, not commented out",
        "formatting and refactors in {c} go into separate commits from behaviour changes",
    ),
    "queues": (
        "{c} consumes from the {queue} topic with a consumer group per environment",
        "messages in {c} are idempotent because the broker may deliver them twice",
        "{c} commits offsets only after the side effects succeeded",
        "the {queue} queue keeps messages for {n1} days and replays from there",
        "{c} publishes events through an outbox table so no event is lost on a crash",
        "poison messages in {c} move to {queue}-dlq after {n1} attempts",
        "{c} processes the {queue} topic with {n1} partitions and one worker per partition",
        "schemas of the {queue} events are registered and checked for compatibility",
        "{who} watches the lag of {queue} and scales {c} when it grows",
        "{c} keeps message payloads under {n2} bytes and stores blobs elsewhere",
        "ordering in {c} is guaranteed only per key, so handlers never assume global order",
        "{c} acknowledges a message only after writing to {table}",
    ),
}

LEADS: tuple[str, ...] = (
    "In practice, ", "As agreed with {who}, ", "Note that ", "By team convention, ",
    "Per the runbook, ", "On the {team} team, ", "In staging and production alike, ",
    "Unless {who} says otherwise, ", "For every environment, ", "To keep reviews simple, ",
    "As a rule, ", "After the platform move, ", "According to {who}, ", "Remember that ",
)
TAILS: tuple[str, ...] = (
    ", which keeps incidents small", " so that on-call can act without context",
    ", as {svc} relies on it", " in every environment", ", including staging",
    " and reviewers check it", ", per the {team} team", " without exceptions",
    ", with {who} as the contact", " for every tenant", ", and CI enforces it",
    " unless {who} signs off", ", to keep the {metric} stable", " across all regions",
    ", which the runbook explains in detail", " so nobody has to guess",
    ", and the {team} team agreed to it", " because {svc} shares the cluster",
)
REASONS: tuple[str, ...] = (
    "a mocked test passed while the real {db} rejected the query in production",
    "an outage of {c} traced back to a config value nobody had reviewed",
    "two people changed {c} at once and the merge silently dropped a fix",
    "on-call lost an hour because the logs of {c} had no request id",
    "a retry storm from {svc} took {c} down for {n2} seconds",
    "customers saw stale prices because a cache in {c} outlived a deploy",
    "a rollback of {c} failed once because the schema had already changed",
    "{who} spent a whole release chasing a flaky test in {c}",
    "audit asked for every change to {table} and the history had gaps",
    "support tickets about {c} doubled after an unreviewed change",
    "the database ran out of connections when {c} scaled to {n1} replicas",
    "latency of {c} grew past {n2} milliseconds under load",
    "a secret of {c} once leaked into a log line",
    "{svc} depends on the exact response shape of {c}",
    "reviewers cannot follow pull requests bigger than {n3} lines",
    "a batch job of {c} double-charged customers after a timeout",
    "a migration locked {table} for minutes and blocked checkout",
    "nobody could tell which build of {c} was running during an incident",
    "staging data for {c} drifted so far that bugs appeared only in production",
    "a silent fallback in {c} hid a broken dependency",
    "the {team} team could not reproduce a bug in {c} without the exact inputs",
    "an unbounded query from {c} filled the memory of {db}",
)
APPLY: tuple[str, ...] = (
    "before changing {c}, read `{p}` and run the tests in `{tp}`",
    "when touching {c}, check the dashboard of {svc} as well",
    "when a change to {c} grows past {n3} lines, split it and stack the rest",
    "when {c} fails at boot, check {env} first",
    "put new queries of {c} in the repository layer and add the index in the same change",
    "ask {who} before changing anything {c} exposes to other teams",
    "run the suite of {c} against a real {db} container before pushing",
    "mention the ticket of {c} in the commit message so the changelog links it",
    "add a metric and an alert with every new background job in {c}",
    "treat every warning from {c} in CI as an error",
    "when reviewing {c}, look for missing timeouts on calls to {svc}",
    "when writing a migration for {c}, make it reversible and test the rollback",
    "suggest a flag in {flagtool} before shipping a risky change to {c}",
    "point people at the runbook of {c} before paging the {team} team",
    "keep examples in answers about {c} consistent with `{p}`",
)

REFERENCE_LINES: tuple[str, ...] = (
    "- Dashboard of {c}: https://grafana.{org}.example/d/{cid}",
    "- Runbook: https://wiki.{org}.example/runbooks/{cid}",
    "- Alerts for {c} page the {team} rotation in PagerDuty",
    "- Error tracking: https://sentry.{org}.example/organizations/{org}/projects/{cid}",
    "- Design notes: https://docs.{org}.example/design/{cid}-{aspect}",
    "- Logs: https://logs.{org}.example/app/discover#/?q=service:{cid}",
    "- The code lives in `{p}`, tests in `{tp}`",
    "- Owner: {who} on the {team} team",
    "- Service catalogue entry: https://backstage.{org}.example/catalog/{cid}",
    "- Support queue for {c}: https://support.{org}.example/queues/{cid}",
)
USER_INTROS: tuple[str, ...] = (
    "The user is {role} who works mostly on {c}",
    "The user, {role}, owns {c} and reviews most changes to it",
    "The user joined the {team} team as {role} and now maintains {c}",
)
USER_LINES: tuple[str, ...] = (
    "the user wants short answers with the command first and the explanation after",
    "the user prefers plain SQL over ORM tricks when explaining queries",
    "the user reads diffs more easily than prose, so show changes as patches",
    "the user works in a terminal with tmux and neovim",
    "the user asks for trade-offs, not a single recommendation",
    "the user reviews code for the {team} team and cares about naming",
    "the user wants links to the runbook whenever an alert of {c} comes up",
    "the user dislikes emoji and exclamation marks in answers",
    "the user writes tests first and expects suggestions to include them",
)
BULLET_INTROS: tuple[str, ...] = (
    "Key points:", "Checklist:", "The rules in short:", "What to check:", "Ground rules:",
)

# Planted signals -----------------------------------------------------------------------------

CONFLICT_PM: tuple[tuple[str, str], ...] = (("pnpm", "npm"), ("pnpm", "yarn"), ("npm", "pnpm"))
CONFLICT_PORTS: tuple[tuple[str, int, int], ...] = (
    ("database", 5432, 6432), ("Redis cache", 6379, 6380), ("HTTP server", 8080, 8081),
    ("Kafka broker", 9092, 9093),
)
CONFLICT_DAYS: tuple[tuple[str, str], ...] = (
    ("Wednesday", "Thursday"), ("Monday", "Tuesday"), ("Tuesday", "Thursday"),
)
CONFLICT_RULES: tuple[str, ...] = (
    "{AN} squash-merge pull requests into the main branch of {c}",
    "{AN} run the migrations of {c} inside a transaction",
    "{AN} retry webhook deliveries of {c} on a timeout",
    "{AN} put the tenant id into the cache keys of {c}",
    "{AN} rebase feature branches of {c} before opening a review",
)
