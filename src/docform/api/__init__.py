"""docform's HTTP client of the documentation service API (see `docform.api.client`)."""

from docform.api.client import ApiClient
from docform.api.errors import (
    ApiConfigError,
    ApiError,
    ApiStatusError,
    ApiTransportError,
    MalformedAnswerError,
    ReadOnlyError,
)
from docform.api.stats import CallStats, route_of
from docform.api.transport import ReadOnlyTransport
from docform.api.urls import resolve_api_url

__all__ = [
    "ApiClient",
    "ApiConfigError",
    "ApiError",
    "ApiStatusError",
    "ApiTransportError",
    "CallStats",
    "MalformedAnswerError",
    "ReadOnlyError",
    "ReadOnlyTransport",
    "resolve_api_url",
    "route_of",
]
