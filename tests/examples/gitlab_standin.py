"""A stand-in for GitLab, enough to run the example's jobs and to try what a branch can do.

- `GitLab`: the REST API the jobs call (`/user`, merge request notes, a commit's merge
  requests, a merge request's head pipeline, a pipeline's jobs, a job's artifact), served
  over loopback HTTP, with GitLab's permissions for what the tokens may write: a Reporter
  writes notes and edits their own; nobody writes a job's artifacts through the API (a job's
  runner uploads them, `finish_job`), and retrying or erasing a job needs a Developer.
- `Pipeline` and `job_environment`: which jobs of .gitlab-ci.yml a pipeline runs (their
  `rules:`) and which CI/CD variables each job is given: a protected variable only in
  pipelines of protected branches, a variable scoped to an environment only in jobs of that
  environment (https://docs.gitlab.com/ci/variables/#protect-a-cicd-variable, .../#limit-the-
  environment-scope-of-a-cicd-variable). Merge request pipelines run on
  refs/merge-requests/IID/head, which is never protected.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from loopback import serving

PROJECT = "7"


@dataclass(frozen=True)
class Variable:
    """A CI/CD variable of the project's settings."""

    name: str
    value: str
    protected: bool
    environment: str = "*"


@dataclass
class Pipeline:
    """A pipeline: what triggered it, on which branch, and whether that branch is protected."""

    source: str  # push, merge_request_event, schedule
    branch: str | None  # None for a merge request pipeline (its ref is the merge request's)
    protected: bool
    merge_request: int | None = None

    def predefined(self) -> dict[str, str]:
        values = {"CI_PIPELINE_SOURCE": self.source, "CI_DEFAULT_BRANCH": "main"}
        if self.branch is not None:
            values["CI_COMMIT_BRANCH"] = self.branch
        if self.merge_request is not None:
            values["CI_MERGE_REQUEST_IID"] = str(self.merge_request)
            # Merged results: GitLab checked out the merge of the merge request already.
            values["CI_MERGE_REQUEST_EVENT_TYPE"] = "merged_result"
        return values


TERM = re.compile(r'^\s*\$(\w+)\s*(==|!=)\s*(?:"([^"]*)"|\$(\w+))\s*$')


def rule_matches(condition: str, values: dict[str, str]) -> bool:
    """A `rules: if:` of `$A == "x"`, `$A != "x"`, `$A == $B` terms joined by `&&` (all the
    example uses; anything else fails the test that reads it)."""
    for term in condition.split("&&"):
        found = TERM.match(term)
        assert found, f"rules: if: not understood: {term!r}"
        name, operator, literal, other = found.groups()
        left = values.get(name)
        right = literal if other is None else values.get(other)
        equal = left is not None and left == right
        if equal != (operator == "=="):
            return False
    return True


def job_runs(job: dict[str, Any], pipeline: Pipeline) -> bool:
    """Whether ``pipeline`` includes ``job`` (its first matching rule; manual jobs count)."""
    values = pipeline.predefined()
    for rule in job.get("rules", []):
        if "if" not in rule or rule_matches(rule["if"], values):
            return rule.get("when") != "never"
    return False


def first_of_matrix(job: dict[str, Any], ci: dict[str, Any]) -> dict[str, str]:
    """The variables of the first job a `parallel:matrix` (the job's, or the one it extends)
    makes of ``job``: the example's one organization."""
    parallel = job.get("parallel") or ci.get(job.get("extends", ""), {}).get("parallel")
    if not parallel:
        return {}
    first = parallel["matrix"][0]
    return {
        name: values[0] if isinstance(values, list) else values for name, values in first.items()
    }


def job_environment(
    job: dict[str, Any],
    pipeline: Pipeline,
    settings: list[Variable],
    globals_: dict[str, str],
    matrix: dict[str, str] | None = None,
) -> dict[str, str]:
    """The variables ``job`` gets in ``pipeline``: the project's that it may see, its
    ``matrix`` variables, then the file's and the job's own (`$NAME` expanded from those)."""
    seen = pipeline.predefined() | (matrix or {})
    environment = job.get("environment")
    for variable in settings:
        if variable.protected and not pipeline.protected:
            continue
        if variable.environment != "*" and variable.environment != environment:
            continue
        seen[variable.name] = variable.value
    for name, value in {**globals_, **job.get("variables", {})}.items():
        seen[name] = re.sub(r"\$(\w+)", lambda m: seen.get(m.group(1), ""), str(value))
    return seen


@dataclass
class Token:
    user: int
    role: str  # reporter, developer, maintainer


ROLES = ["guest", "reporter", "developer", "maintainer"]


@dataclass
class GitLab:
    """The project's merge requests, notes, pipelines and jobs, and who may write what."""

    tokens: dict[str, Token]
    merge_requests: dict[int, dict[str, Any]] = field(default_factory=dict)
    notes: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    jobs: dict[int, dict[str, Any]] = field(default_factory=dict)
    artifacts: dict[int, dict[str, str]] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)

    def finish_job(self, job: int, pipeline: int, name: str, status: str, files: dict[str, str]):
        """A job's runner reports its end and uploads its artifacts (with the job's own
        token, which lives as long as the job)."""
        self.jobs[job] = {"id": job, "pipeline": pipeline, "name": name, "status": status}
        self.artifacts[job] = dict(files)

    def answer(self, method: str, path: str, token: str | None, form: dict[str, str]):
        """(status, JSON or text) for one request."""
        who = self.tokens.get(token or "")
        if who is None:
            return 401, {"message": "401 Unauthorized"}
        parts = path.removeprefix(f"/api/v4/projects/{PROJECT}").strip("/").split("/")
        if path == "/api/v4/user":
            return 200, {"id": who.user, "username": f"user_{who.user}"}
        if parts[:1] == ["merge_requests"] and parts[2:3] == ["notes"]:
            return self.answer_notes(method, int(parts[1]), parts[3:], who, form)
        if method == "GET" and parts[:1] == ["merge_requests"] and len(parts) == 2:
            return 200, self.merge_requests[int(parts[1])]
        if (
            method == "GET"
            and parts[:2] == ["repository", "commits"]
            and parts[3:] == ["merge_requests"]
        ):
            found = [m for m in self.merge_requests.values() if m["merge_commit_sha"] == parts[2]]
            return 200, found
        if method == "GET" and parts[:1] == ["pipelines"] and parts[2:] == ["jobs"]:
            return 200, [j for j in self.jobs.values() if j["pipeline"] == int(parts[1])]
        if parts[:1] == ["jobs"] and parts[2:3] == ["artifacts"] and method == "GET":
            files = self.artifacts.get(int(parts[1]), {})
            name = "/".join(parts[3:])
            return (200, files[name]) if name in files else (404, {"message": "404 Not Found"})
        if parts[:1] == ["jobs"]:  # upload, erase, retry, delete artifacts
            needed = "maintainer" if "artifacts" in parts else "developer"
            if ROLES.index(who.role) < ROLES.index(needed):
                self.refused.append(f"{method} {path}")
                return 403, {"message": "403 Forbidden"}
            return 404, {"message": "404 Not Found"}  # no API writes a job's artifacts
        return 404, {"message": f"404 {path} not in the stand-in"}

    def answer_notes(self, method: str, mr: int, rest: list[str], who: Token, form):
        notes = self.notes.setdefault(mr, [])
        if method == "GET":
            return 200, sorted(notes, key=lambda n: -n["id"])
        if method == "POST":
            note = {"id": 500 + sum(map(len, self.notes.values())), "body": form["body"]}
            note["author"] = {"id": who.user}
            notes.append(note)
            return 201, note
        note = next(n for n in notes if n["id"] == int(rest[0]))
        if note["author"]["id"] != who.user and who.role != "maintainer":
            self.refused.append(f"{method} notes/{rest[0]}")
            return 403, {"message": "403 Forbidden"}
        note["body"] = form["body"]
        return 200, note


def handler_for(gitlab: GitLab) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def handle_any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode() if length else ""
            form = {k: v[0] for k, v in parse_qs(raw, keep_blank_values=True).items()}
            split = urlsplit(self.path)
            status, value = gitlab.answer(
                self.command, split.path, self.headers.get("PRIVATE-TOKEN"), form
            )
            body = value.encode() if isinstance(value, str) else json.dumps(value).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("X-Next-Page", "")
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_DELETE = handle_any

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def served(gitlab: GitLab) -> Iterator[str]:
    """``gitlab`` on a loopback port; yields its CI_API_V4_URL."""
    with serving(ThreadingHTTPServer(("127.0.0.1", 0), handler_for(gitlab))) as root:
        yield f"{root}/api/v4"
