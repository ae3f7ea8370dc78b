"""What a task name may be made of, in every format."""

import re

NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
