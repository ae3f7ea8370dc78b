class BadRequest(Exception):
    def __init__(self, message, **extra):
        super().__init__(message)
        self.extra = extra


class NotFound(Exception):
    pass


class MethodNotAllowed(Exception):
    pass
