"""Words the rules need: what a known thing is about (its subject), filler, idle remarks.

The subject taxonomy is how a correction finds what it corrects: "I prefer React
now" retires "I prefer Vue" because both are front-end frameworks, and "we're
moving to GCP" retires "we host on AWS" because both are clouds. Objects outside
the taxonomy are matched by their own name.
"""

from __future__ import annotations

import re

from engram.adapters.extraction import rx

__all__ = [
    "FILLER_EDGES",
    "IDLE_OBJECTS",
    "NAME_SHAPED",
    "NON_OBJECTS",
    "PEOPLE",
    "POINTER_DETERMINERS",
    "SPOKEN_LANGUAGE",
    "THINGS",
    "TOOL_SHAPED",
    "canonical",
    "is_known",
    "known_term",
    "subject_of",
    "terms_in",
]

# subject -> canonical term -> aliases (lower case; the canonical term is an alias too).
_TAXONOMY: dict[str, dict[str, tuple[str, ...]]] = {
    "programming_language": {
        "python": ("python", "python3", "py"),
        "typescript": ("typescript", "ts"),
        "javascript": ("javascript", "js", "ecmascript"),
        "go": ("golang", "go lang"),
        "rust": ("rust",),
        "java": ("java",),
        "kotlin": ("kotlin",),
        "swift": ("swift",),
        "csharp": ("c#", "csharp", "c sharp"),
        "cpp": ("c++", "cpp"),
        "ruby": ("ruby",),
        "php": ("php",),
        "scala": ("scala",),
        "elixir": ("elixir",),
        "haskell": ("haskell",),
        "clojure": ("clojure",),
        "dart": ("dart",),
        "lua": ("lua",),
        "perl": ("perl",),
        "zig": ("zig",),
        "fsharp": ("f#", "fsharp"),
        "ocaml": ("ocaml",),
        "julia": ("julia",),
        "erlang": ("erlang",),
    },
    "frontend_framework": {
        "react": ("react", "react.js", "reactjs"),
        "vue": ("vue", "vue.js", "vuejs", "vue 3", "vue3"),
        "angular": ("angular", "angularjs"),
        "svelte": ("svelte", "sveltekit"),
        "solid": ("solid", "solidjs", "solid.js"),
        "nextjs": ("next.js", "nextjs", "next"),
        "nuxt": ("nuxt", "nuxt.js"),
        "remix": ("remix",),
        "astro": ("astro",),
        "ember": ("ember", "ember.js"),
        "jquery": ("jquery",),
        "preact": ("preact",),
        "htmx": ("htmx",),
    },
    "backend_framework": {
        "django": ("django",),
        "fastapi": ("fastapi", "fast api"),
        "flask": ("flask",),
        "express": ("express", "express.js", "expressjs"),
        "nestjs": ("nestjs", "nest.js", "nest"),
        "rails": ("rails", "ruby on rails", "ror"),
        "laravel": ("laravel",),
        "spring": ("spring", "spring boot", "springboot"),
        "aspnet": ("asp.net", "asp.net core", ".net core"),
        "phoenix": ("phoenix",),
        "gin": ("gin",),
        "fiber": ("fiber",),
        "koa": ("koa",),
        "symfony": ("symfony",),
        "actix": ("actix", "actix-web"),
        "axum": ("axum",),
        "hono": ("hono",),
        "litestar": ("litestar",),
        "quarkus": ("quarkus",),
    },
    "database": {
        "postgresql": ("postgresql", "postgres", "pg", "psql", "postgre"),
        "mysql": ("mysql",),
        "mariadb": ("mariadb",),
        "sqlite": ("sqlite", "sqlite3"),
        "mongodb": ("mongodb", "mongo"),
        "dynamodb": ("dynamodb", "dynamo"),
        "cassandra": ("cassandra",),
        "cockroachdb": ("cockroachdb", "cockroach"),
        "firestore": ("firestore",),
        "oracle": ("oracle", "oracle db"),
        "sqlserver": ("sql server", "mssql", "ms sql"),
        "neo4j": ("neo4j",),
        "couchdb": ("couchdb",),
        "libsql": ("libsql", "turso"),
        "supabase": ("supabase",),
        "planetscale": ("planetscale",),
        "clickhouse": ("clickhouse",),
        "redis": ("redis",),
    },
    "cloud": {
        "aws": ("aws", "amazon web services"),
        "gcp": ("gcp", "google cloud", "google cloud platform"),
        "azure": ("azure", "microsoft azure"),
        "digitalocean": ("digitalocean", "digital ocean"),
        "heroku": ("heroku",),
        "vercel": ("vercel",),
        "netlify": ("netlify",),
        "flyio": ("fly.io", "fly"),
        "cloudflare": ("cloudflare",),
        "hetzner": ("hetzner",),
        "render": ("render",),
        "linode": ("linode",),
    },
    "editor": {
        "vim": ("vim", "neovim", "nvim"),
        "emacs": ("emacs",),
        "vscode": ("vs code", "vscode", "visual studio code"),
        "intellij": ("intellij", "intellij idea"),
        "pycharm": ("pycharm",),
        "webstorm": ("webstorm",),
        "sublime": ("sublime", "sublime text"),
        "zed": ("zed",),
        "cursor": ("cursor",),
        "helix": ("helix",),
        "xcode": ("xcode",),
        "nano": ("nano",),
    },
    "operating_system": {
        "linux": ("linux",),
        "macos": ("macos", "mac os", "os x", "osx"),
        "windows": ("windows",),
        "ubuntu": ("ubuntu",),
        "debian": ("debian",),
        "arch": ("arch linux", "arch"),
        "fedora": ("fedora",),
    },
    "shell": {
        "bash": ("bash",),
        "zsh": ("zsh",),
        "fish": ("fish shell",),
        "powershell": ("powershell",),
    },
    "package_manager": {
        "npm": ("npm",),
        "yarn": ("yarn",),
        "pnpm": ("pnpm",),
        "pip": ("pip",),
        "poetry": ("poetry",),
        "uv": ("uv",),
        "conda": ("conda",),
    },
    "js_runtime": {
        "nodejs": ("node.js", "nodejs", "node"),
        "deno": ("deno",),
        "bun": ("bun",),
    },
    "css_framework": {
        "tailwind": ("tailwind", "tailwindcss", "tailwind css"),
        "bootstrap": ("bootstrap",),
        "bulma": ("bulma",),
        "mui": ("material ui", "mui"),
        "chakra": ("chakra", "chakra ui"),
    },
    "test_framework": {
        "pytest": ("pytest",),
        "jest": ("jest",),
        "vitest": ("vitest",),
        "mocha": ("mocha",),
        "cypress": ("cypress",),
        "playwright": ("playwright",),
        "selenium": ("selenium",),
    },
    "orm": {
        "sqlalchemy": ("sqlalchemy",),
        "prisma": ("prisma",),
        "typeorm": ("typeorm",),
        "sequelize": ("sequelize",),
        "drizzle": ("drizzle",),
    },
    "ci": {
        "github_actions": ("github actions",),
        "gitlab_ci": ("gitlab ci", "gitlab ci/cd"),
        "jenkins": ("jenkins",),
        "circleci": ("circleci",),
        "travis": ("travis", "travis ci"),
    },
    "containers": {
        "kubernetes": ("kubernetes", "k8s"),
        "docker_swarm": ("docker swarm",),
        "nomad": ("nomad",),
        "ecs": ("ecs",),
    },
    "message_queue": {
        "kafka": ("kafka",),
        "rabbitmq": ("rabbitmq",),
        "sqs": ("sqs",),
        "nats": ("nats",),
    },
    "mobile_framework": {
        "react_native": ("react native",),
        "flutter": ("flutter",),
        "swiftui": ("swiftui",),
        "ionic": ("ionic",),
    },
    "state_management": {
        "redux": ("redux",),
        "mobx": ("mobx",),
        "zustand": ("zustand",),
        "pinia": ("pinia",),
        "vuex": ("vuex",),
    },
    "monorepo_tool": {
        "nx": ("nx",),
        "lerna": ("lerna",),
        "turborepo": ("turborepo", "turbo"),
        "rush": ("rush",),
        "bazel": ("bazel",),
        "pants": ("pants",),
    },
    "job_queue": {
        "sidekiq": ("sidekiq",),
        "celery": ("celery",),
        "good_job": ("goodjob", "good_job"),
        "solid_queue": ("solid queue", "solid_queue"),
        "bullmq": ("bullmq", "bull"),
        "resque": ("resque",),
        "rq": ("rq", "python-rq"),
        "hangfire": ("hangfire",),
        "temporal": ("temporal",),
    },
    "collaboration": {
        "jira": ("jira",),
        "confluence": ("confluence",),
        "trello": ("trello",),
        "asana": ("asana",),
        "notion": ("notion",),
        "slack": ("slack",),
        "microsoft_teams": ("microsoft teams", "ms teams", "teams"),
        "zoom": ("zoom",),
        "outlook": ("outlook",),
        "sharepoint": ("sharepoint",),
        "basecamp": ("basecamp",),
        "linear": ("linear",),
    },
    "version_control": {
        "git": ("git",),
        "mercurial": ("mercurial", "hg"),
        "svn": ("svn", "subversion"),
    },
    "theme": {
        "dark_mode": ("dark mode", "dark theme", "dark themes"),
        "light_mode": ("light mode", "light theme", "light themes"),
    },
    "indentation": {
        "tabs": ("tabs",),
        "spaces": ("spaces",),
    },
    "answer_length": {
        "concise": ("concise answers", "short answers", "brief answers", "concise replies"),
        "detailed": ("detailed answers", "long answers", "detailed explanations"),
    },
    "drink": {
        "coffee": ("coffee", "kopi", "kahve"),
        "tea": ("tea", "teh", "çay"),
    },
}

_ALIASES: dict[str, tuple[str, str]] = {
    alias: (subject, term)
    for subject, terms in _TAXONOMY.items()
    for term, aliases in terms.items()
    for alias in (term.replace("_", " "), *aliases)
}
# Longest alias first, so "react native" wins over "react" and "sql server" over "sql".
_ALIAS_PATTERN = rx.compile(
    r"(?<![\w.#+-])("
    + "|".join(re.escape(a) for a in sorted(_ALIASES, key=len, reverse=True))
    + r")(?![\w#+]|\.\w)",
    re.IGNORECASE,
)
# Aliases that are common English words: they name the thing only when capitalised.
_CASE_SENSITIVE = frozenset(
    "go swift dart ruby julia solid next remix astro ember express nest rails spring "
    "phoenix gin fiber oracle fly render cursor helix nano arch bun node poetry mocha jest "
    "nomad zed hg rush pants bull temporal celery turbo notion slack teams zoom outlook "
    "linear".split()
)


def _matches(alias_text: str) -> tuple[str, str] | None:
    lowered = alias_text.lower()
    found = _ALIASES.get(lowered)
    if found is None or (lowered in _CASE_SENSITIVE and alias_text.islower()):
        return None
    return found


def known_term(text: str) -> tuple[str, str] | None:
    """(subject, canonical term) of the first known thing named in ``text``."""
    for match in _ALIAS_PATTERN.finditer(text):
        found = _matches(match.group(1))
        if found is not None:
            return found
    return None


def terms_in(text: str) -> list[str]:
    """Canonical names of every known thing ``text`` names."""
    found = (_matches(m.group(1)) for m in _ALIAS_PATTERN.finditer(text))
    return [term for _, term in (f for f in found if f is not None)]


def is_known(text: str) -> bool:
    """Whether ``text`` as a whole names a known thing."""
    return _matches(text.strip()) is not None


def subject_of(text: str) -> str | None:
    found = known_term(text)
    return found[0] if found else None


def canonical(text: str) -> str | None:
    found = known_term(text)
    return found[1] if found else None


# Words around an object that say nothing about it ("I don't like MongoDB anymore").
FILLER_EDGES = rx.compile(
    r"^(?:(?:really|actually|also|still|just|kind\s+of|sort\s+of|definitely|totally|"
    r"honestly|personally|mostly|mainly|primarily|currently|now|then|generally|"
    r"truly|very\s+much|quite|rather|probably|even)\s+)+"
    r"|(?:\s+(?:any\s*more|now|these\s+days|nowadays|lately|at\s+the\s+moment|right\s+now|"
    r"currently|for\s+now|still|too|also|as\s+well|though|tbh|honestly|really|"
    r"very\s+much|a\s+lot|so\s+much|either|again|instead|anyway|personally|"
    r"in\s+general|then|from\s+now\s+on|going\s+forward|these\s+days|for\s+sure|"
    r"lol|haha|btw|by\s+the\s+way|for\s+me|for\s+us|to\s+be\s+honest|if\s+I'm\s+honest|"
    r"if\s+I\s+am\s+honest|entirely|completely|altogether|for\s+good|fully|totally))+$",
    re.IGNORECASE,
)

# Other people: what they like or do is not the user's fact ("My girlfriend can't stand jazz").
PEOPLE = (
    r"(?:friend|girlfriend|boyfriend|wife|husband|partner|spouse|fianc[ée]e?|boss|manager|"
    r"colleague|co-?worker|teammate|brother|sister|sibling|mom|mum|mother|dad|father|parents?|"
    r"son|daughter|kids?|children|child|baby|grandma|grandpa|grandmother|grandfather|aunt|uncle|"
    r"cousin|nephew|niece|neighbou?r|roommate|flatmate|housemate|landlord|client|customer|"
    r"teacher|doctor|therapist|dentist|team\s+lead|cto|ceo|in-laws?|family)s?"
)
# Objects that only point elsewhere ("I like it", "I'll use that one").
NON_OBJECTS = frozenset(
    "it that this these those them they you him her what how when where if whether "
    "something anything everything nothing one some so too both either neither "
    "whatever whichever such yours mine ours theirs here there".split()
)
# First words of an object that make it a pointer, not a thing ("your suggestion").
POINTER_DETERMINERS = frozenset("your his her their its this that these those which".split())

# What people "need", "have to", "can't" or "will" do in passing: not facts to keep.
IDLE_OBJECTS = rx.compile(
    r"^(?:a\s+(?:minute|moment|second|sec|bit|while|break|nap|rest|hand|favou?r|hug|"
    r"drink|coffee|vacation|holiday|day\s+off)|"
    r"(?:some|more)\s+(?:time|coffee|sleep|rest|help|air|space|fresh\s+air|advice|ideas?)|"
    r"(?:to\s+)?(?:go|leave|run|think|check|sleep|eat|rest|relax|wait|hurry|ask|know|see|"
    r"figure|remember|recall|believe|imagine|tell|say|hear|decide|focus|stop|start|"
    r"finish|head|step|get\s+going|get\s+back|grab|take\s+a|catch|call|talk|reply|respond|"
    r"pee|shower|breathe|calm|vent|cry|laugh|admit|confess|apologi[sz]e|thank|understand|"
    r"wrap|log\s+off|sign\s+off|be\s+going|be\s+honest|say\s+goodbye|try\s+it|"
    r"look\s+into|mull|sleep\s+on|process|digest|get\s+some)\b|"
    r"help\b|more\s+time|time\b|you\b|it\b|that\b|this\b)",
    re.IGNORECASE,
)

# Tools named by what they are for: "our backend is Spring Boot", "the frontend uses X".
THINGS = (
    r"(?:main\s+|whole\s+|current\s+|new\s+)?(?:backend|back-end|back\s+end|frontend|front-end|"
    r"front\s+end|database|db|api|apis|app|apps|server|servers|infra(?:structure)?|website|site|"
    r"service|services|project|codebase|monorepo|repo|cloud(?:\s+provider)?|hosting|ci|cd|ci/cd|"
    r"pipelines?|editor|ide|os|laptop|machine|language|framework|orm|cache|caching|queue|cms|"
    r"mobile\s+apps?|data\s+warehouse|warehouse|monitoring|logging|observability|tooling|"
    r"build\s+system|bundler|package\s+manager|deployments?|auth|authentication|search|storage|"
    r"message\s+broker|broker|email\s+provider|payment\s+provider|payments|analytics|crm|"
    r"ticketing|issue\s+tracker|tracker|docs|wiki|version\s+control|orchestration|runtime|"
    r"shell|terminal|browser|phone|distro|dashboards?|alerting|tests?|test\s+suite|scripts|"
    r"data\s+pipeline|etl|ml\s+stack|models?|llm|vector\s+store|queue\s+system|workers?|code|"
    r"repos|repositories|source|data|logs|email|messages|messaging|notifications|traffic|"
    r"requests|events|jobs|builds|deploys|artifacts|images|backups|metrics|traces|files|"
    r"notes|tasks|tickets|issues|docs|documentation|designs|assets|videos|photos|tool|tools|"
    r"blog|newsletter|shop|storefront|store|portfolio|homelab|home\s+lab|cluster|home\s+server|"
    r"nas|platform|product|bot|extension|plugin|game)"
)
# Languages people speak: "English it is" chooses how to answer, not a tool.
SPOKEN_LANGUAGE = rx.compile(
    r"^(?:english|spanish|french|german|italian|portuguese|dutch|turkish|indonesian|malay|chinese|"
    r"mandarin|japanese|korean|arabic|hindi|russian|polish|swedish|norwegian|danish|finnish|greek)\b",
    re.IGNORECASE,
)
# Spellings only names have: an inner capital or a letter beside a digit ("iTerm2",
# "macOS", "S3"); a tool's name may also carry a digit or a dot anywhere ("Fly.io").
NAME_SHAPED = rx.compile(r"[a-z][A-Z]|[A-Za-z]\d")
TOOL_SHAPED = rx.compile(r"[a-z][A-Z]|\d|\.\w")
