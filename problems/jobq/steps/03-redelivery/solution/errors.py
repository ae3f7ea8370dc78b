"""Errors that become HTTP answers: each carries its status code."""


class HttpError(Exception):
    status = 500


class BadRequest(HttpError):
    status = 400


class NotFound(HttpError):
    status = 404


class MethodNotAllowed(HttpError):
    status = 405


class Conflict(HttpError):
    status = 409
