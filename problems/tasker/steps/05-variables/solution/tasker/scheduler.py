"""Runs the selected tasks with up to N jobs and prints their blocks in the deterministic order."""

from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from tasker.explain import reason
from tasker.runner import TaskFailure, execute

OK = ("ran", "up to date")


class Scheduler:
    def __init__(self, tasks, names, state, out, jobs=1, keep_going=False, force=False):
        self.tasks = tasks
        self.names = names
        self.state = state
        self.out = out
        self.jobs = jobs
        self.keep_going = keep_going
        self.force = force
        self.outcome = {}  # name -> "ran" | "up to date" | "failed" | "skipped"
        self.blocks = {}  # name -> bytes
        self.errors = {}  # name -> message
        self.rebuilt = set()
        self.printed = 0

    def ready(self, name):
        """True to start, False to wait, None when a dependency failed or was skipped."""
        outcomes = [self.outcome.get(dep) for dep in self.tasks[name].deps]
        if any(outcome in ("failed", "skipped") for outcome in outcomes):
            return None
        return all(outcome in OK for outcome in outcomes)

    def finish(self, name, outcome, block, error=None):
        self.outcome[name] = outcome
        self.blocks[name] = block
        if error:
            self.errors[name] = error
        self.flush()

    def flush(self, final=False):
        """Prints every block whose task and all earlier tasks are settled."""
        while self.printed < len(self.names):
            name = self.names[self.printed]
            if name not in self.outcome and not final:
                return
            if name in self.blocks:
                self.out.write(self.blocks[name])
                self.out.flush()
            self.printed += 1

    def start(self, name, pool):
        task = self.tasks[name]
        if reason(task, self.state.record_of(name), self.force, self.rebuilt) is None:
            self.finish(name, "up to date", f"== {name} (up to date)\n".encode())
            return None
        return pool.submit(execute, task)

    def complete(self, name, future):
        task = self.tasks[name]
        header = f"== {name}\n".encode()
        try:
            output = future.result()
        except TaskFailure as failure:
            self.state.forget(task)
            self.finish(name, "failed", header + failure.output, str(failure))
            return
        if task.tracked:
            self.rebuilt.add(name)
            self.state.record(task)
        self.finish(name, "ran", header + output)

    def run(self):
        """Runs everything; returns the error messages of failed tasks, in task order."""
        waiting = list(self.names)
        running = {}
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            while True:
                stopped = self.errors and not self.keep_going
                progress = True
                while progress and not stopped:
                    progress = False
                    for name in list(waiting):
                        verdict = self.ready(name)
                        if verdict is None:
                            waiting.remove(name)
                            self.finish(name, "skipped", f"== {name} (skipped)\n".encode())
                            progress = True
                        elif verdict and len(running) < self.jobs:
                            waiting.remove(name)
                            future = self.start(name, pool)
                            if future is None:
                                progress = True
                            else:
                                running[future] = name
                if not running:
                    break
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda item: self.names.index(running[item])):
                    self.complete(running.pop(future), future)
        self.flush(final=True)
        return [self.errors[name] for name in self.names if name in self.errors]
