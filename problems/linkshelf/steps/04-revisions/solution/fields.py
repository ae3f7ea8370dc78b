"""Validation and normalization of the fields a client sends for a link."""

from errors import BadRequest


def clean_fields(body, partial):
    """The valid, normalized link fields of a request body; all three unless `partial`."""
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    fields = {}
    if "url" in body or not partial:
        url = body.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise BadRequest("url must be a string starting with http:// or https://")
        fields["url"] = url
    if "title" in body or not partial:
        title = body.get("title")
        if not isinstance(title, str) or not title.strip():
            raise BadRequest("title must be a non-empty string")
        fields["title"] = title.strip()
    if "tags" in body or not partial:
        tags = body.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
            raise BadRequest("tags must be a list of strings")
        fields["tags"] = sorted({tag.lower() for tag in tags})
    return fields


def clean_batch(body):
    """The fields of every entry of a batch; the first invalid entry's index goes with the error."""
    entries = body.get("links") if isinstance(body, dict) else None
    if not isinstance(entries, list) or not 1 <= len(entries) <= 100:
        raise BadRequest("the body must be an object with a 'links' list of 1 to 100 entries")
    cleaned = []
    for index, entry in enumerate(entries):
        try:
            cleaned.append(clean_fields(entry, partial=False))
        except BadRequest as error:
            raise BadRequest(str(error), index=index) from None
    return cleaned
